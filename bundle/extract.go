package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Name limits of the file systems Extract writes to (Linux's NAME_MAX and
// PATH_MAX). A name past them cannot be created, or could be only through
// the os.Root and then not opened by ordinary tools.
const (
	maxNameComponent = 255
	maxPathLen       = 4096
)

// ExtractResult is what ExtractAll did.
type ExtractResult struct {
	// Files counts the files created, and Bytes their sizes together.
	Files int
	Bytes int64
	// Holes is how many of Bytes were runs of zeros left as holes: a sparse
	// entry (or a file of zeros) takes its data's room on disk, not its size.
	Holes int64
	// Problems are the entries refused or cut (see ExtractAll), in order.
	Problems []error
}

// Extract is ExtractAll, returning the files created and the problems.
func Extract(r *Reader, dir string) (files int, problems []error, err error) {
	res, err := ExtractAll(r, dir)
	return res.Files, res.Problems, err
}

// ExtractAll writes every entry of r under dir, creating dir if needed.
// Files are created through an os.Root opened on dir, so nothing can land
// outside it whatever a name says, and with O_EXCL, so an existing file is
// never overwritten: meeting one ends the extraction with an error naming it.
// Files are written 0644 and directories 0755. Aligned 4 KiB blocks of zeros
// are not written but left as holes, so a sparse entry stays sparse on disk
// (the file reads back the same).
//
// Errors from r that are not Fatal (a refused entry, a duplicate, a file cut
// by the per-entry limit, whose first part is kept) are collected in
// Problems and extraction goes on; so is an entry whose name is too long to
// create (a component over 255 bytes, or a path over 4096 with dir's), which
// is skipped. A fatal one (damage, the total limit) ends it and is returned
// as err; what was extracted before it, including the part of the file being
// written, stays on disk.
func ExtractAll(r *Reader, dir string) (res ExtractResult, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("extract: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("extract: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return res, fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	buf := make([]byte, 64<<10)
	for {
		e, err := r.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			if Fatal(err) {
				return res, err
			}
			res.Problems = append(res.Problems, err)
			continue
		}
		if reason := nameTooLong(abs, e.Path); reason != "" {
			res.Problems = append(res.Problems, &UnsafeEntryError{Path: e.Path, Reason: reason})
			continue
		}
		if d := path.Dir(e.Path); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				if errors.Is(err, syscall.ENAMETOOLONG) {
					res.Problems = append(res.Problems, &UnsafeEntryError{Path: e.Path, Reason: "name too long to create here"})
					continue
				}
				return res, fmt.Errorf("extract %s: %w", e.Path, err)
			}
		}
		f, err := root.OpenFile(e.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			if errors.Is(err, syscall.ENAMETOOLONG) {
				res.Problems = append(res.Problems, &UnsafeEntryError{Path: e.Path, Reason: "name too long to create here"})
				continue
			}
			return res, fmt.Errorf("extract %s: %w", e.Path, err)
		}
		res.Files++
		sw := &sparseWriter{f: f}
		_, rerr, werr := copyEntry(sw, e, buf)
		if werr == nil {
			werr = sw.finish()
		}
		res.Bytes += sw.off
		res.Holes += sw.holes
		cerr := f.Close()
		if werr != nil {
			return res, fmt.Errorf("extract %s: %w", e.Path, werr)
		}
		if cerr != nil {
			return res, fmt.Errorf("extract %s: %w", e.Path, cerr)
		}
		if rerr != nil {
			if Fatal(rerr) {
				return res, rerr
			}
			res.Problems = append(res.Problems, rerr)
		}
	}
}

// nameTooLong says why p cannot be created under the directory abs, or "".
func nameTooLong(abs, p string) string {
	for part := range strings.SplitSeq(p, "/") {
		if len(part) > maxNameComponent {
			return fmt.Sprintf("name too long to create: a path component of %d bytes (the limit is %d)", len(part), maxNameComponent)
		}
	}
	if n := len(abs) + 1 + len(p); n >= maxPathLen {
		return fmt.Sprintf("name too long to create: %d bytes with the target directory (the limit is %d)", n, maxPathLen-1)
	}
	return ""
}

// holeBlock is the size of the zero blocks sparseWriter leaves as holes.
const holeBlock = 4 << 10

var zeroBlock [holeBlock]byte

// sparseWriter writes a file, seeking over aligned blocks of zeros instead
// of writing them; finish sets the file's size when it ends in a hole.
type sparseWriter struct {
	f       *os.File
	off     int64 // bytes written or skipped
	pending int64 // bytes of zeros skipped since the last write
	holes   int64
}

func (s *sparseWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		// Up to the next block boundary, so holes are aligned.
		k := min(len(p)-n, holeBlock-int(s.off%holeBlock))
		chunk := p[n : n+k]
		if k == holeBlock && bytes.Equal(chunk, zeroBlock[:]) {
			s.pending += int64(k)
			s.holes += int64(k)
		} else {
			if s.pending > 0 {
				if _, err := s.f.Seek(s.pending, io.SeekCurrent); err != nil {
					return n, err
				}
				s.pending = 0
			}
			if _, err := s.f.Write(chunk); err != nil {
				return n, err
			}
		}
		s.off += int64(k)
		n += k
	}
	return n, nil
}

// finish gives the file its full size when it ends in skipped zeros.
func (s *sparseWriter) finish() error {
	if s.pending == 0 {
		return nil
	}
	s.pending = 0
	return s.f.Truncate(s.off)
}
