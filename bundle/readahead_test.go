package bundle

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"
)

// A read-ahead reader hands out the source's bytes in order, then its
// error, whatever the sizes of the reads.
func TestReadAhead(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boom := errors.New("boom")
	for _, n := range []int{0, 1, readAheadBytes - 1, readAheadBytes, readAheadBytes + 1, 7*readAheadBytes + 12345} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		for _, fail := range []bool{false, true} {
			var src io.Reader = iotest.HalfReader(bytes.NewReader(data))
			want := io.EOF
			if fail {
				src, want = io.MultiReader(src, iotest.ErrReader(boom)), boom
			}
			ra := newReadAhead(src)
			got, err := io.ReadAll(iotest.HalfReader(ra))
			if !bytes.Equal(got, data) {
				t.Errorf("%d bytes, fail %v: read %d bytes, not the source's", n, fail, len(got))
			}
			if want == io.EOF && err != nil || want != io.EOF && !errors.Is(err, want) {
				t.Errorf("%d bytes, fail %v: error %v, want %v", n, fail, err, want)
			}
			if _, err := ra.Read(make([]byte, 1)); want == io.EOF && err != io.EOF || want != io.EOF && !errors.Is(err, want) {
				t.Errorf("%d bytes, fail %v: read after the end: %v", n, fail, err)
			}
			ra.Close()
		}
	}
}

// Closing stops the goroutine though nobody reads, and a read after Close
// fails rather than blocks.
func TestReadAheadClose(t *testing.T) {
	ra := newReadAhead(neverEnding{})
	buf := make([]byte, 100)
	if _, err := io.ReadFull(ra, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		ra.Close()
		ra.Close() // twice is fine
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	for {
		// What was read ahead may still come out; then the error.
		if _, err := ra.Read(buf); err != nil {
			if !errors.Is(err, errReadAheadClosed) {
				t.Errorf("read after Close: %v", err)
			}
			break
		}
	}
}

type neverEnding struct{}

func (neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
