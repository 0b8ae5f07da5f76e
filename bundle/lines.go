package bundle

import (
	"bufio"
	"errors"
	"io"
)

// DefaultMaxLineBytes is the longest line a LineReader hands out whole.
const DefaultMaxLineBytes = 1 << 20

// LineReader splits text into lines without ever buffering more than the
// line limit: a longer line is cut at the limit, handed out, and counted.
// Unlike bufio.Scanner it never fails on a long line.
type LineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte
	line int
	cut  int
	err  error
}

// NewLineReader reads lines from r, cutting each at max bytes (0 takes
// DefaultMaxLineBytes).
func NewLineReader(r io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	size := 64 << 10
	if limit < size {
		size = max(limit, 16)
	}
	return &LineReader{br: bufio.NewReaderSize(r, size), max: limit}
}

// Next returns the next line without its line ending, its 1-based number and
// whether it was cut. The slice is valid until the next call. At the end it
// returns io.EOF; a read error is returned once the lines before it are out.
func (l *LineReader) Next() (line []byte, number int, cut bool, err error) {
	if l.err != nil {
		return nil, l.line, false, l.err
	}
	frag, err := l.br.ReadSlice('\n')
	if err == nil || (err != bufio.ErrBufferFull && len(frag) > 0) {
		// The common case: the whole line fit in the buffer.
		if err != nil {
			l.err = err
		}
		l.line++
		if line = trimEOL(frag); len(line) > l.max {
			l.cut++
			return line[:l.max], l.line, true, nil
		}
		return line, l.line, false, nil
	}
	if err != bufio.ErrBufferFull {
		l.err = err
		return nil, l.line, false, err
	}
	// A line longer than the buffer: keep up to max bytes, drop the rest.
	l.buf = l.keep(l.buf[:0], frag)
	for err == bufio.ErrBufferFull {
		frag, err = l.br.ReadSlice('\n')
		l.buf = l.keep(l.buf, frag[:min(max(l.max+2-len(l.buf), 0), len(frag))])
	}
	if err != nil {
		l.err = err
	}
	l.line++
	// Up to two bytes past the limit are kept, so a line of exactly the limit
	// whose "\r\n" fell past it is not taken for a cut one.
	line = trimEOL(l.buf)
	if len(line) > l.max {
		line, cut = line[:l.max], true
	}
	if cut {
		l.cut++
	}
	return line, l.line, cut, nil
}

// keep appends frag to buf, growing buf fourfold at a time but never past
// the limit plus a line ending, so a long line costs few allocations.
func (l *LineReader) keep(buf, frag []byte) []byte {
	if need := len(buf) + len(frag); need > cap(buf) {
		nb := make([]byte, len(buf), max(need, min(4*cap(buf), l.max+2)))
		copy(nb, buf)
		buf = nb
	}
	return append(buf, frag...)
}

// Cut returns how many lines were cut so far.
func (l *LineReader) Cut() int { return l.cut }

// Err returns the read error that ended the lines, or nil at a clean end.
func (l *LineReader) Err() error {
	if errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
