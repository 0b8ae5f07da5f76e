package bundle

import (
	"errors"
	"io"
	"sync"
)

// Read-ahead: decompression runs in its own goroutine, a few chunks ahead
// of the reader, so that decompressing a bundle and analysing it overlap on
// two cores instead of taking turns. Memory stays bounded: readAheadChunks
// chunks of readAheadBytes.
const (
	readAheadBytes  = 1 << 20
	readAheadChunks = 4
)

type chunk struct {
	buf []byte
	err error // after buf's bytes
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
}

func newReadAhead(src io.Reader) *readAhead {
	ra := &readAhead{
		full: make(chan chunk, readAheadChunks),
		free: make(chan []byte, readAheadChunks+1), // every buffer fill makes
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go ra.fill(src)
	return ra
}

// fill reads src chunk by chunk until an error, the end or Close. Buffers
// are made as needed, at most readAheadChunks+1 in all.
func (ra *readAhead) fill(src io.Reader) {
	defer close(ra.done)
	made := 0
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.stop:
			return
		default:
			if made <= readAheadChunks {
				buf = make([]byte, readAheadBytes)
				made++
				break
			}
			select {
			case buf = <-ra.free:
			case <-ra.stop:
				return
			}
		}
		n, err := fillBuf(src, buf)
		select {
		case ra.full <- chunk{buf: buf[:n], err: err}:
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
