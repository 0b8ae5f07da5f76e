package bundle

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

func gnuSparseHeader(name string, realSize int64) []byte {
	h := make([]byte, 512)
	copy(h[0:], name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", 1)) // one byte on disk
	copy(h[136:], fmt.Sprintf("%011o\x00", 1796000000))
	h[156] = 'S'
	copy(h[257:], "ustar  \x00")
	copy(h[386:], fmt.Sprintf("%011o\x00%011o\x00", 0, 1)) // fragment: offset 0, 1 byte
	copy(h[483:], fmt.Sprintf("%011o\x00", realSize))
	copy(h[148:], "        ")
	sum := 0
	for _, b := range h {
		sum += int(b)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

func TestScratchSparse(t *testing.T) {
	var b bytes.Buffer
	for i := range 4 {
		b.Write(gnuSparseHeader(fmt.Sprintf("logs/p/c%d.log", i), 1<<30))
		blk := make([]byte, 512)
		blk[0] = 'x'
		b.Write(blk)
	}
	b.Write(make([]byte, 1024))
	t.Logf("archive %d bytes", b.Len())
	r, err := NewReader("sparse", bytes.NewReader(b.Bytes()), Options{MaxTotalBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var total int64
	for {
		e, err := r.Next()
		if err != nil {
			t.Logf("Next: %v", err)
			break
		}
		n, err := io.Copy(io.Discard, e)
		total += n
		t.Logf("%s size %d read %d err %v", e.Path, e.Size, n, err)
	}
	t.Logf("handed out %d bytes in %v", total, time.Since(start))
}
