package bundle

import (
	"fmt"
	"io"
	"os"
	"path"
)

// Extract writes every entry of r under dir, creating dir if needed.
// Files are created through an os.Root opened on dir, so nothing can land
// outside it whatever a name says, and with O_EXCL, so an existing file is
// never overwritten: meeting one ends the extraction with an error naming it.
// Files are written 0644 and directories 0755.
//
// Errors from r that are not Fatal (a refused entry, a file cut by the
// per-entry limit, whose first part is kept) are collected in problems and
// extraction goes on. A fatal one (damage, the total limit) ends it and is
// returned as err; what was extracted before it, including the part of the
// file being written, stays on disk. files counts the files created.
func Extract(r *Reader, dir string) (files int, problems []error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, fmt.Errorf("extract: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, nil, fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	buf := make([]byte, 64<<10)
	for {
		e, err := r.Next()
		if err == io.EOF {
			return files, problems, nil
		}
		if err != nil {
			if Fatal(err) {
				return files, problems, err
			}
			problems = append(problems, err)
			continue
		}
		if d := path.Dir(e.Path); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return files, problems, fmt.Errorf("extract %s: %w", e.Path, err)
			}
		}
		f, err := root.OpenFile(e.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return files, problems, fmt.Errorf("extract %s: %w", e.Path, err)
		}
		files++
		_, rerr, werr := copyEntry(f, e, buf)
		cerr := f.Close()
		if werr != nil {
			return files, problems, fmt.Errorf("extract %s: %w", e.Path, werr)
		}
		if cerr != nil {
			return files, problems, fmt.Errorf("extract %s: %w", e.Path, cerr)
		}
		if rerr != nil {
			if Fatal(rerr) {
				return files, problems, rerr
			}
			problems = append(problems, rerr)
		}
	}
}
