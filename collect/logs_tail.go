package collect

import (
	"bufio"
	"io"
	"os"
)

// tailBuffer keeps the newest max bytes written to it, in a temporary file
// used as a ring, so a log of any length costs at most max bytes of disk and
// a little memory. The ring holds one byte more than max, so that whether the
// oldest byte kept starts a line can always be told.
type tailBuffer struct {
	f     *os.File
	max   int64 // bytes kept
	ring  int64 // bytes stored: max+1
	pos   int64 // where the next byte goes
	total int64 // bytes written in all
	err   error
}

func newTailBuffer(dir string, max int64) (*tailBuffer, error) {
	f, err := os.CreateTemp(dir, "log-*")
	if err != nil {
		return nil, err
	}
	return &tailBuffer{f: f, max: max, ring: max + 1}, nil
}

// Write keeps p, dropping the oldest bytes beyond max.
func (t *tailBuffer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	t.total += int64(n)
	if int64(len(p)) > t.ring {
		skip := int64(len(p)) - t.ring
		t.pos = (t.pos + skip) % t.ring
		p = p[skip:]
	}
	for len(p) > 0 {
		k := min(int64(len(p)), t.ring-t.pos)
		if _, err := t.f.WriteAt(p[:k], t.pos); err != nil {
			t.err = err
			return 0, err
		}
		t.pos = (t.pos + k) % t.ring
		p = p[k:]
	}
	return n, nil
}

// Reset forgets everything written, for a new try.
func (t *tailBuffer) Reset() { t.pos, t.total, t.err = 0, 0, nil }

// Size is the number of bytes kept.
func (t *tailBuffer) Size() int64 { return min(t.total, t.max) }

// Total is the number of bytes written, kept or not.
func (t *tailBuffer) Total() int64 { return t.total }

// stored is the sequence of bytes stored, oldest first, and its length.
func (t *tailBuffer) stored() (io.ReaderAt, int64) {
	if t.total <= t.ring {
		return t.f, t.total
	}
	return &ringReaderAt{f: t.f, ring: t.ring, pos: t.pos}, t.ring
}

// Tail returns the newest bytes kept, at most keep of them, oldest first.
// When older bytes are left out the text starts at a whole line: a partial
// first line is dropped (a "line" with no end at all is kept). cut reports
// that bytes were left out.
func (t *tailBuffer) Tail(keep int64) (r io.Reader, size int64, cut bool, err error) {
	if t.err != nil {
		return nil, 0, false, t.err
	}
	seq, n := t.stored()
	keep = min(keep, t.Size())
	start := n - keep
	if t.total <= keep {
		return io.NewSectionReader(seq, start, keep), keep, false, nil
	}
	// start >= 1 here: the ring stores one byte more than it keeps.
	var prev [1]byte
	if _, err := seq.ReadAt(prev[:], start-1); err != nil {
		return nil, 0, true, err
	}
	if prev[0] != '\n' {
		br := bufio.NewReader(io.NewSectionReader(seq, start, keep))
		skipped := int64(0)
		for {
			chunk, err := br.ReadSlice('\n')
			skipped += int64(len(chunk))
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				skipped = 0 // no line end at all
				break
			}
		}
		start += skipped
	}
	return io.NewSectionReader(seq, start, n-start), n - start, true, nil
}

// Close removes the temporary file.
func (t *tailBuffer) Close() error {
	t.f.Close()
	return os.Remove(t.f.Name())
}

// ringReaderAt reads a full ring as one sequence, oldest byte first.
type ringReaderAt struct {
	f         *os.File
	ring, pos int64
}

func (r *ringReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for len(p) > 0 {
		if off >= r.ring {
			return n, io.EOF
		}
		phys := (r.pos + off) % r.ring
		k := min(int64(len(p)), r.ring-phys, r.ring-off)
		m, err := r.f.ReadAt(p[:k], phys)
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
		off += k
	}
	return n, nil
}
