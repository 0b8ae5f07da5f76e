package bundle

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// refDecoder is the reference the streaming path is compared with: the
// decoder's own DecodeAll.
func refDecoder(t *testing.T) *zstd.Decoder {
	t.Helper()
	ref, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ref.Close)
	return ref
}

// The streaming path (`tar | zstd`: newStreamDecoder, synchronous, given a
// frame at a time by a frameSplitter, behind a readAhead that checks the
// frames' checksums) against a reference: the decoder's DecodeAll of the whole
// stream. Random contents, sizes around the read-ahead's chunk and the
// decoder's 128 KiB blocks, several frames and a skippable frame, read in
// random-sized pieces.
func TestStreamDecoderReadsLikeDecodeAll(t *testing.T) {
	ref := refDecoder(t)
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
		zc, err := newStreamChunks(bufio.NewReaderSize(bytes.NewReader(stream.Bytes()), 64<<10), Options{}.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		ra := newZstdReadAhead(zc)
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
		zc.Close()
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

// streamOf packs parts as zstd frames of the shapes a stream may hold:
// with and without a checksum, with a content size (EncodeAll, single
// segment) or without (streaming), and skippable frames between them. It
// returns the stream and where each part's frame ends in it.
func streamOf(t *testing.T, rng *rand.Rand, parts [][]byte) ([]byte, []int) {
	t.Helper()
	var stream bytes.Buffer
	var ends []int
	for _, part := range parts {
		crc := rng.IntN(4) != 0
		level := zstd.EncoderLevel(1 + rng.IntN(4))
		if rng.IntN(3) == 0 {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(crc))
			if err != nil {
				t.Fatal(err)
			}
			stream.Write(enc.EncodeAll(part, nil))
			enc.Close()
		} else {
			zw, err := zstd.NewWriter(&stream, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(crc))
			if err != nil {
				t.Fatal(err)
			}
			zw.Write(part)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		ends = append(ends, stream.Len())
		if rng.IntN(4) == 0 {
			n := rng.IntN(40)
			stream.Write([]byte{0x50 | byte(rng.IntN(16)), 0x2a, 0x4d, 0x18, byte(n), 0, 0, 0})
			stream.Write(bytes.Repeat([]byte{'s'}, n))
		}
	}
	return stream.Bytes(), ends
}

// randomPart is the content of a frame: log-like text, incompressible
// bytes (raw blocks), a run of one byte (RLE blocks) or nothing.
func randomPart(rng *rand.Rand) []byte {
	n := []int{0, 1, 100, 128 << 10, readAheadBytes + 7, 2<<20 + 3}[rng.IntN(6)] + rng.IntN(3000)
	switch rng.IntN(4) {
	case 0:
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case 1:
		return bytes.Repeat([]byte{'z'}, n)
	}
	return randomText(rng, n)
}

// readStream reads a zstd stream the way the reader does (frameSplitter,
// decoder, readAhead) in random-sized reads, and returns what it handed out
// and the error it ended with (nil at a clean end).
func readStream(t *testing.T, rng *rand.Rand, stream []byte) ([]byte, error) {
	t.Helper()
	zc, err := newStreamChunks(bufio.NewReaderSize(bytes.NewReader(stream), 64<<10), Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	ra := newZstdReadAhead(zc)
	defer zc.Close()
	defer ra.Close()
	var got []byte
	buf := make([]byte, 2<<20)
	for {
		m, err := ra.Read(buf[:1+rng.IntN(len(buf))])
		got = append(got, buf[:m]...)
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
}

// Streams of frames of every shape (checksum or not, content size or not,
// raw, RLE and compressed blocks, empty frames, skippable frames between
// them) read through the frame splitter and the readAhead's checksum give
// what DecodeAll gives.
func TestFrameSplitterReadsLikeDecodeAll(t *testing.T) {
	ref := refDecoder(t)
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 141))
		parts := make([][]byte, 1+rng.IntN(4))
		for i := range parts {
			parts[i] = randomPart(rng)
		}
		stream, _ := streamOf(t, rng, parts)
		want, err := ref.DecodeAll(stream, nil)
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		if !bytes.Equal(want, bytes.Join(parts, nil)) {
			t.Fatalf("seed %d: the reference does not decode what was written", seed)
		}
		got, err := readStream(t, rng, stream)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: read %d bytes, the reference %d; they differ", seed, len(got), len(want))
		}
	}
}

// A spoiled checksum of any frame of a stream is a checksum mismatch, and
// the frame's last chunk is not handed out: what was handed out is a
// prefix of the content that ends before that frame's end.
func TestFrameChecksumSpoiled(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 142))
		var parts [][]byte
		var stream []byte
		var ends []int
		for {
			parts = parts[:0]
			for range 1 + rng.IntN(4) {
				parts = append(parts, randomText(rng, 1+rng.IntN(3<<20)))
			}
			stream, ends = streamOf(t, rng, parts)
			if hasChecksum(stream, ends, len(parts)) {
				break
			}
		}
		plain := bytes.Join(parts, nil)
		// The last frame with a checksum: spoil its last byte.
		f := len(parts) - 1
		for !frameHasChecksum(stream, ends, f) {
			f--
		}
		spoiled := bytes.Clone(stream)
		spoiled[ends[f]-1] ^= 0x21
		got, err := readStream(t, rng, spoiled)
		if !errors.Is(err, zstd.ErrCRCMismatch) {
			t.Fatalf("seed %d: frame %d's checksum spoiled: %v, want a checksum mismatch", seed, f, err)
		}
		upto := 0
		for _, p := range parts[:f+1] {
			upto += len(p)
		}
		if !bytes.HasPrefix(plain, got) || len(got) >= upto && len(parts[f]) > 0 {
			t.Fatalf("seed %d: %d bytes handed out before the mismatch of frame %d, which ends at %d", seed, len(got), f, upto)
		}
	}
}

// frameStart is where frame i of a stream written by streamOf starts.
func frameStart(stream []byte, ends []int, i int) int {
	if i == 0 {
		return 0
	}
	s := ends[i-1]
	if bytes.HasPrefix(stream[s+1:], []byte{0x2a, 0x4d, 0x18}) && stream[s]&0xf0 == 0x50 {
		s += 8 + int(binary.LittleEndian.Uint32(stream[s+4:]))
	}
	return s
}

func frameHasChecksum(stream []byte, ends []int, i int) bool {
	return stream[frameStart(stream, ends, i)+4]&0x04 != 0
}

func hasChecksum(stream []byte, ends []int, n int) bool {
	for i := range n {
		if frameHasChecksum(stream, ends, i) {
			return true
		}
	}
	return false
}

// A byte spoiled anywhere in a stream of frames with checksums never goes
// unnoticed: reading ends in an error, or hands out exactly the content
// (the byte was in a skippable frame's payload, or a flag that changes
// nothing decoded, which the checksum then covers); never a hang or a
// panic.
func TestFrameSplitterSpoiledByte(t *testing.T) {
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 143))
		var parts [][]byte
		for range 1 + rng.IntN(3) {
			parts = append(parts, randomText(rng, rng.IntN(300<<10)))
		}
		var stream bytes.Buffer
		for _, p := range parts {
			zw, err := zstd.NewWriter(&stream, zstd.WithEncoderCRC(true))
			if err != nil {
				t.Fatal(err)
			}
			zw.Write(p)
			zw.Close()
		}
		plain := bytes.Join(parts, nil)
		b := stream.Bytes()
		for range 30 {
			spoiled := bytes.Clone(b)
			at := rng.IntN(len(b))
			spoiled[at] ^= byte(1 + rng.IntN(255))
			got, err := readStream(t, rng, spoiled)
			if err == nil && !bytes.Equal(got, plain) {
				t.Fatalf("seed %d: byte %d of %d spoiled: read %d bytes without an error, not the content", seed, at, len(b), len(got))
			}
		}
	}
}
