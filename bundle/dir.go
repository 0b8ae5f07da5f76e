package bundle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// dirWalker hands out the files of a bundle directory in lexical order.
type dirWalker struct {
	root  string
	opts  Options
	paths []string // slash paths relative to root, still to visit
	open  *os.File
}

func openDir(name string, opts Options) (*Reader, error) {
	root := name
	// A directory holding nothing but the wrapping directory of an extracted
	// archive is read from inside that directory.
	if ents, err := os.ReadDir(root); err == nil && len(ents) == 1 && ents[0].IsDir() && !topLevelNames[ents[0].Name()] {
		root = filepath.Join(root, ents[0].Name())
	}
	w := &dirWalker{root: root, opts: opts}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read bundle directory: %w", err)
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		w.paths = append(w.paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(w.paths)
	r := &Reader{name: name, format: FormatDir, opts: opts, next: w.next, root: root}
	r.closer = closerFunc(w.closeOpen)
	return r, nil
}

func (w *dirWalker) closeOpen() error {
	if w.open == nil {
		return nil
	}
	err := w.open.Close()
	w.open = nil
	return err
}

func (w *dirWalker) next() (*Entry, error) {
	if err := w.closeOpen(); err != nil {
		return nil, err
	}
	if len(w.paths) == 0 {
		return nil, io.EOF
	}
	rel := w.paths[0]
	w.paths = w.paths[1:]
	full := filepath.Join(w.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, &UnsafeEntryError{Path: rel, Reason: err.Error()}
	}
	switch mode := fi.Mode(); {
	case mode&fs.ModeSymlink != 0:
		target, _ := os.Readlink(full)
		return nil, &UnsafeEntryError{Path: rel, Reason: fmt.Sprintf("symbolic link to %q", target)}
	case mode&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return nil, &UnsafeEntryError{Path: rel, Reason: "device file"}
	case mode&fs.ModeNamedPipe != 0:
		return nil, &UnsafeEntryError{Path: rel, Reason: "named pipe"}
	case !mode.IsRegular():
		return nil, &UnsafeEntryError{Path: rel, Reason: "not a regular file"}
	}
	f, err := os.Open(full)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, &UnsafeEntryError{Path: rel, Reason: "permission denied"}
		}
		return nil, &UnsafeEntryError{Path: rel, Reason: err.Error()}
	}
	w.open = f
	er := &dirEntryReader{f: f, path: rel, remaining: w.opts.MaxEntryBytes, limit: w.opts.MaxEntryBytes}
	return &Entry{Path: rel, Class: Classify(rel), Size: fi.Size(), ModTime: fi.ModTime(), r: er}, nil
}

type dirEntryReader struct {
	f         *os.File
	path      string
	remaining int64
	limit     int64
	err       error
}

func (d *dirEntryReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.remaining <= 0 {
		var one [1]byte
		n, err := d.f.Read(one[:])
		if n > 0 {
			d.err = &LimitError{Path: d.path, Limit: d.limit}
			return 0, d.err
		}
		return 0, err
	}
	if int64(len(p)) > d.remaining {
		p = p[:d.remaining]
	}
	n, err := d.f.Read(p)
	d.remaining -= int64(n)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("read %s: %w", d.path, err)
	}
	return n, err
}
