package collect

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// tailBuffer keeps the newest max bytes written to it, in a temporary file
// used as a ring, so a log of any length costs at most max bytes of disk and
// a little memory.
type tailBuffer struct {
	f     *os.File
	max   int64
	pos   int64 // where the next byte goes
	full  bool  // the ring has wrapped: older bytes were overwritten
	total int64 // bytes written in all
	// before is the byte just before the oldest one kept, once full.
	before byte
	err    error
}

func newTailBuffer(dir string, max int64) (*tailBuffer, error) {
	f, err := os.CreateTemp(dir, "log-*")
	if err != nil {
		return nil, err
	}
	return &tailBuffer{f: f, max: max}, nil
}

// Write keeps p, dropping the oldest bytes beyond max.
func (t *tailBuffer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	t.total += int64(n)
	if int64(len(p)) >= t.max {
		// p alone fills the ring: keep its tail, starting at offset 0.
		if off := int64(len(p)) - t.max; off > 0 {
			t.before = p[off-1]
			t.full = true
		} else if t.total > int64(len(p)) {
			t.full = true
			t.before = t.lastByte()
		}
		p = p[int64(len(p))-t.max:]
		if _, err := t.f.WriteAt(p, 0); err != nil {
			t.err = err
			return 0, err
		}
		t.pos = 0
		if int64(len(p)) == t.max && t.total > t.max {
			t.full = true
		}
		if !t.full {
			t.pos = int64(len(p)) % t.max
		}
		return n, nil
	}
	for len(p) > 0 {
		if t.full || t.pos+int64(len(p)) > t.max {
			// The bytes at pos are about to be overwritten; the last of them
			// becomes the byte before the oldest kept.
			end := min(t.pos+int64(len(p)), t.max)
			if end > t.pos && (t.full || end > t.pos) {
				if t.full {
					var b [1]byte
					if _, err := t.f.ReadAt(b[:], end-1); err != nil {
						t.err = err
						return 0, err
					}
					t.before = b[0]
				}
			}
		}
		k := min(int64(len(p)), t.max-t.pos)
		if _, err := t.f.WriteAt(p[:k], t.pos); err != nil {
			t.err = err
			return 0, err
		}
		p = p[k:]
		t.pos += k
		if t.pos == t.max {
			t.pos = 0
			if len(p) > 0 {
				// Wrapping onto old bytes: the byte before the oldest kept is
				// the last one about to be overwritten.
				var b [1]byte
				if _, err := t.f.ReadAt(b[:], min(int64(len(p)), t.max)-1); err != nil {
					t.err = err
					return 0, err
				}
				t.before = b[0]
			}
			t.full = t.full || len(p) > 0
		}
	}
	return n, nil
}

func (t *tailBuffer) lastByte() byte {
	var b [1]byte
	off := t.pos - 1
	if off < 0 {
		off = t.max - 1
	}
	t.f.ReadAt(b[:], off)
	return b[0]
}

// Reset forgets everything written, for a new try.
func (t *tailBuffer) Reset() {
	t.pos, t.full, t.total, t.before, t.err = 0, false, 0, 0, nil
}

// Size is the number of bytes kept.
func (t *tailBuffer) Size() int64 {
	if t.full {
		return t.max
	}
	return t.pos
}

// Total is the number of bytes written, kept or not.
func (t *tailBuffer) Total() int64 { return t.total }

// Tail returns the newest bytes kept, at most keep of them, oldest first. When
// older bytes are left out, the text starts at the first whole line: a
// partial first line is dropped. cut reports that bytes were left out.
func (t *tailBuffer) Tail(keep int64) (r io.Reader, cut bool, err error) {
	size := t.Size()
	keep = min(keep, size)
	// The kept bytes as one sequence: [pos, max) then [0, pos) once full.
	var seq io.ReaderAt = t.f
	start := int64(0)
	if t.full {
		seq = &ringReaderAt{f: t.f, max: t.max, pos: t.pos}
	}
	start = size - keep
	cut = t.total > keep
	if !cut {
		return io.NewSectionReader(seq, 0, size), false, nil
	}
	// Is the first kept byte the start of a line?
	var prev byte
	switch {
	case start > 0:
		var b [1]byte
		if _, err := seq.ReadAt(b[:], start-1); err != nil {
			return nil, true, err
		}
		prev = b[0]
	default:
		prev = t.before
	}
	if prev != '\n' {
		// Skip the partial line; a "line" with no end at all is kept whole.
		br := bufio.NewReader(io.NewSectionReader(seq, start, keep))
		skipped := int64(0)
		for {
			chunk, err := br.ReadSlice('\n')
			skipped += int64(len(chunk))
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				skipped = 0
				break
			}
		}
		start += skipped
	}
	return io.NewSectionReader(seq, start, size-start), true, nil
}

// Close removes the temporary file.
func (t *tailBuffer) Close() error {
	t.f.Close()
	return os.Remove(t.f.Name())
}

// ringReaderAt reads a full ring as one sequence, oldest byte first.
type ringReaderAt struct {
	f        *os.File
	max, pos int64
}

func (r *ringReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for len(p) > 0 {
		if off >= r.max {
			return n, io.EOF
		}
		phys := (r.pos + off) % r.max
		k := min(int64(len(p)), r.max-phys, r.max-off)
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

// lastLineStart is used by tests: the offset of the first whole line in b
// when b was cut at its front.
func lastLineStart(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i + 1
	}
	return 0
}
