// Package outfile writes a file the user named on the command line (-o FILE).
//
// A new path, or one that holds a regular file, is written to a temporary
// file beside it that is renamed over it only when whole, so a failed run
// leaves the old file (or none) rather than half a report. Anything else that
// exists at the path is written to directly and never replaced: a device
// such as /dev/null, a FIFO a reader is waiting on, or a symbolic link,
// which is written through (the link stays, its target gets the content).
// Renaming over those would put a regular file in their place: as root,
// `-o /dev/null` would replace /dev/null.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output file being written.
type File struct {
	*os.File
	path string
	tmp  bool // f is a temporary file to rename over path
	done bool
}

// Create opens path for writing as the package says, with mode perm for a
// file it creates. It fails for a directory.
func Create(path string, perm fs.FileMode) (*File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("write %s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		// A device, FIFO, socket or symbolic link: write to it as it is.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return &File{File: f, path: path}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{File: f, path: path, tmp: true}, nil
}

// Direct reports whether the file is written in place, not renamed over
// the path.
func (f *File) Direct() bool { return !f.tmp }

// Commit closes the file and, for a temporary file, renames it over the path.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if err := f.File.Close(); err != nil {
		if f.tmp {
			os.Remove(f.Name())
		}
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if !f.tmp {
		return nil
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort closes the file and removes a temporary one: the path keeps what it
// held. What was written to a device, FIFO or link target stays written.
// Abort after Commit does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	if f.tmp {
		os.Remove(f.Name())
	}
}
