package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The streaming path (`tar | zstd`: newStreamDecoder, synchronous, behind a
// readAhead) against a reference: the decoder's DecodeAll of the whole
// stream. Random contents, sizes around the read-ahead's chunk and the
// decoder's 128 KiB blocks, several frames and a skippable frame, read in
// random-sized pieces.
func TestStreamDecoderReadsLikeDecodeAll(t *testing.T) {
	ref, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 14))
		var plain bytes.Buffer
		var stream bytes.Buffer
		frames := 1 + rng.IntN(3)
		for f := range frames {
			n := []int{0, 1, 128 << 10, readAheadBytes - 1, readAheadBytes + 1, 3<<20 + 17}[rng.IntN(6)] + rng.IntN(5000)
			part := randomText(rng, n)
			plain.Write(part)
			zw, err := zstd.NewWriter(&stream, zstd.WithEncoderLevel(zstd.EncoderLevel(1+rng.IntN(4))))
			if err != nil {
				t.Fatal(err)
			}
			zw.Write(part)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if f == 0 && frames > 1 {
				// A skippable frame between two frames (pzstd writes them).
				stream.Write([]byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'})
			}
		}
		want, err := ref.DecodeAll(stream.Bytes(), nil)
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		if !bytes.Equal(want, plain.Bytes()) {
			t.Fatalf("seed %d: the reference does not decode what was written", seed)
		}
		zr, err := newStreamDecoder(bytes.NewReader(stream.Bytes()), Options{}.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		ra := newReadAhead(zr)
		var got []byte
		buf := make([]byte, 2<<20)
		for {
			m, err := ra.Read(buf[:1+rng.IntN(len(buf))])
			got = append(got, buf[:m]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("seed %d: read: %v", seed, err)
			}
		}
		ra.Close()
		zr.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: the streaming path read %d bytes, the reference %d; they differ", seed, len(got), len(want))
		}
	}
}

// randomText is n bytes of log-like text: words from a small vocabulary
// and digits, so that it compresses as logs do.
func randomText(rng *rand.Rand, n int) []byte {
	words := []string{"INFO", "WARN", "barrier", "epoch", "actor", "compute-0", "risingwave_stream", " ", " ", "\n"}
	b := make([]byte, 0, n+32)
	for len(b) < n {
		if rng.IntN(4) == 0 {
			b = fmt.Appendf(b, "%d", rng.Uint32())
		} else {
			b = append(b, words[rng.IntN(len(words))]...)
		}
	}
	return b[:n]
}

// A byte spoiled anywhere in a bundle packed as one frame (`tar | zstd`,
// read by the streaming decoder) is never passed over: reading ends in a
// fatal *DamageError, naming the entry in which it stopped (or saying it
// stopped between entries), and every entry handed out before it was whole
// in size; a spoiled checksum is a checksum mismatch, not a cut archive. The single frame's checksum is only checked at its end, so what
// an entry holds before that is not asserted; the parallel frames' tighter
// guarantee is TestMultiFrameDamage's.
func TestSingleFrameDamageIsReported(t *testing.T) {
	files := framedFiles()
	single := oneFrame(t, writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, files))
	b := readFile(t, single)
	if parallelFrames(b[:512]) {
		t.Fatal("the one-frame bundle goes to the parallel reader")
	}
	for _, frac := range []float64{0.02, 0.2, 0.45, 0.7, 0.95, 0.9999, 1} {
		spoiled := bytes.Clone(b)
		at := 16 + int(frac*float64(len(b)-16))
		if at >= len(b) {
			at = len(b) - 1
		}
		spoiled[at] ^= 0x55
		name := filepath.Join(t.TempDir(), "bad.tar.zst")
		if err := os.WriteFile(name, spoiled, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		gots := drainAll(t, r)
		r.Close()
		if len(gots) == 0 {
			t.Fatalf("byte %d spoiled: nothing read, not even the damage", at)
		}
		last := gots[len(gots)-1]
		err = errors.Join(last.NextErr, last.ReadErr)
		de, ok := asError[*DamageError](err)
		if !ok || !Fatal(err) {
			t.Fatalf("byte %d of %d spoiled: reading ended with %v (%T), want a fatal *DamageError", at, len(b), err, err)
		}
		switch {
		case frac == 1 && !errors.Is(err, zstd.ErrCRCMismatch):
			// The frame's checksum spoiled: every block decodes, and the
			// archive is whole, so it is not "cut" either.
			t.Errorf("the checksum spoiled: %v, want a checksum mismatch", err)
		case de.Between && last.NextErr == nil:
			t.Errorf("byte %d spoiled: damage between entries reported by an entry's Read: %+v", at, de)
		case !de.Between && de.Entry != last.Path:
			t.Errorf("byte %d spoiled: damage names %q, but reading stopped in %q", at, de.Entry, last.Path)
		}
		for _, g := range gots[:len(gots)-1] {
			if g.NextErr != nil || g.ReadErr != nil || int64(len(g.Data)) != g.Size {
				t.Errorf("byte %d spoiled: %s before the damage: %d of %d bytes, %v %v", at, g.Path, len(g.Data), g.Size, g.NextErr, g.ReadErr)
			}
		}
	}
}
