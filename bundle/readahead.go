package bundle

import (
	"errors"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// Read-ahead: decompression runs in its own goroutine, a few chunks ahead
// of the reader, so that decompressing a bundle and analysing it overlap on
// two cores instead of taking turns. Memory stays bounded: readAheadChunks
// chunks of readAheadBytes. For a zstd stream the reading side also checks
// the frames' checksums (see zstdstream.go).
const (
	readAheadBytes  = 1 << 20
	readAheadChunks = 4
)

// The archive file itself is read ahead too, in smaller chunks, by
// fileReadAhead: then the goroutine that decompresses, the critical path
// of a single-frame zstd or a gzip bundle, makes no read system calls (on
// the 2 GiB single-frame benchmark bundle they were 0.08-0.16 s of its
// 1.6 s). Reading a file never blocks for long, which Close relies on.
const (
	fileReadAheadBytes  = 256 << 10
	fileReadAheadChunks = 3
)

type chunk struct {
	buf []byte
	end frameEnd // buf ends a zstd frame (see zstdChunks)
	err error    // after buf's bytes
}

// chunkSource fills a chunk: until buf is full, an error or the end, or
// for zstd the end of a frame.
type chunkSource interface {
	fill(buf []byte) (int, frameEnd, error)
}

// readerChunks fills chunks from a reader.
type readerChunks struct{ r io.Reader }

func (rc readerChunks) fill(buf []byte) (int, frameEnd, error) {
	n, err := fillBuf(rc.r, buf)
	return n, frameEnd{}, err
}

// readAhead is an io.Reader over src that reads src in a goroutine.
type readAhead struct {
	full chan chunk
	free chan []byte
	stop chan struct{}
	done chan struct{}
	once sync.Once

	cur []byte // unread bytes of the current chunk
	buf []byte // the current chunk's buffer, to hand back
	err error

	// sums, for zstd frames: the XXH64 of the current frame's bytes taken
	// so far, checked at its end against its checksum.
	sums *xxhash.Digest
}

func newReadAhead(src io.Reader) *readAhead {
	return startReadAhead(readerChunks{src}, nil, readAheadBytes, readAheadChunks)
}

// fileReadAhead reads an archive file ahead of its decompressor.
func fileReadAhead(f io.Reader) *readAhead {
	return startReadAhead(readerChunks{f}, nil, fileReadAheadBytes, fileReadAheadChunks)
}

// newZstdReadAhead reads a zstd stream decoded by z, checking each frame's
// checksum as its chunks are taken (see zstdstream.go).
func newZstdReadAhead(z *zstdChunks) *readAhead {
	return startReadAhead(z, xxhash.New(), readAheadBytes, readAheadChunks)
}

// startReadAhead reads src in chunks of size bytes, at most chunks of them
// read and not yet taken.
func startReadAhead(src chunkSource, sums *xxhash.Digest, size, chunks int) *readAhead {
	ra := &readAhead{
		full: make(chan chunk, chunks),
		free: make(chan []byte, chunks+1), // every buffer fill makes
		stop: make(chan struct{}),
		done: make(chan struct{}),
		sums: sums,
	}
	go ra.fill(src, size, chunks)
	return ra
}

// fill reads src chunk by chunk until an error, the end or Close. Buffers
// are made as needed, at most chunks+1 in all.
func (ra *readAhead) fill(src chunkSource, size, chunks int) {
	defer close(ra.done)
	made := 0
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.stop:
			return
		default:
			if made <= chunks {
				buf = make([]byte, size)
				made++
				break
			}
			select {
			case buf = <-ra.free:
			case <-ra.stop:
				return
			}
		}
		n, end, err := src.fill(buf)
		select {
		case ra.full <- chunk{buf: buf[:n], end: end, err: err}:
		case <-ra.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.buf != nil {
			ra.free <- ra.buf[:cap(ra.buf)] // never blocks: free holds every buffer
			ra.buf = nil
		}
		var c chunk
		select {
		case c = <-ra.full:
		case <-ra.done:
			// fill sends its last chunk before it ends; after Close there
			// may be none.
			select {
			case c = <-ra.full:
			default:
				return 0, errReadAheadClosed
			}
		}
		ra.cur, ra.buf, ra.err = c.buf, c.buf, c.err
		if ra.sums != nil {
			// A chunk's bytes are handed out only once the frame it ends,
			// if it ends one, is checked.
			ra.sums.Write(c.buf)
			if c.end.end {
				if c.end.check && uint32(ra.sums.Sum64()) != c.end.sum {
					ra.cur, ra.err = nil, zstd.ErrCRCMismatch
				}
				ra.sums.Reset()
			}
		}
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

var errReadAheadClosed = errors.New("bundle: read after close")

// Close stops the goroutine and waits for it, so that src may be closed
// next. A read of src in progress is waited for.
func (ra *readAhead) Close() {
	ra.once.Do(func() { close(ra.stop) })
	<-ra.done
}

// fillBuf reads until buf is full or src returns an error, which it returns
// as src gave it: io.EOF at a clean end, anything else (a decoder's
// io.ErrUnexpectedEOF on a truncated stream among them) as damage.
func fillBuf(src io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := src.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
