package bundle

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Root is the top-level directory the archive's entries sit under,
	// e.g. "rwdiag-prod-20261129T204300Z". Empty puts them at the root.
	Root string
	// Format is FormatTarZstd (the default), FormatTarGzip or FormatTar.
	Format Format
}

// Writer builds a bundle. Files are staged in a temporary directory beside
// the destination as they arrive, from any number of goroutines; Close writes
// the archive, manifest first and the rest in sorted order, to a temporary
// file and renames it into place only when it is complete.
type Writer struct {
	dest  string
	opts  WriterOptions
	stage string

	mu       sync.Mutex
	manifest Manifest
	files    map[string]*FileEntry // nil while the file is open
	staged   map[string]string     // path -> staged file
	done     bool
}

// NewWriter starts a bundle that Close will write to dest.
func NewWriter(dest string, opts WriterOptions) (*Writer, error) {
	if opts.Format == FormatDir {
		opts.Format = FormatTarZstd
	}
	if opts.Root != "" {
		// A root the reader would take for part of the layout ("logs") would
		// not be stripped when the bundle is read back.
		if clean, reason := cleanName(opts.Root); reason != "" || clean != opts.Root || strings.Contains(clean, "/") || topLevelNames[clean] {
			return nil, fmt.Errorf("bundle root %q: must be a single directory name, not one of the bundle's own", opts.Root)
		}
	}
	stageDir := filepath.Dir(dest)
	if writeInPlace(dest) {
		stageDir = "" // not beside /dev/null: in the temporary directory
	}
	stage, err := os.MkdirTemp(stageDir, "."+filepath.Base(dest)+".stage-*")
	if err != nil {
		return nil, fmt.Errorf("stage bundle: %w", err)
	}
	return &Writer{
		dest:     dest,
		opts:     opts,
		stage:    stage,
		manifest: Manifest{FormatVersion: FormatVersion, Complete: true},
		files:    map[string]*FileEntry{},
		staged:   map[string]string{},
	}, nil
}

// Update changes the manifest's header fields under the writer's lock. Files
// and FormatVersion are the writer's own and are overwritten at Close.
func (w *Writer) Update(f func(m *Manifest)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.manifest)
}

// RecordError records a collection step that failed.
func (w *Writer) RecordError(e CollectError) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	w.Update(func(m *Manifest) { m.Errors = append(m.Errors, e) })
}

// File is a bundle file being written. It hashes what is written to it.
type File struct {
	w     *Writer
	entry FileEntry
	f     *os.File
	h     hash.Hash
	n     int64
}

// Create starts the file at path (slash-separated, relative to the bundle
// root); source says what produced it.
func (w *Writer) Create(path, source string) (*File, error) {
	clean, reason := cleanName(path)
	if reason != "" || clean != path {
		return nil, fmt.Errorf("bundle path %q: %s", path, cmpOr(reason, "not in clean form"))
	}
	if path == ManifestPath {
		return nil, fmt.Errorf("bundle path %q: reserved for the manifest", path)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil, errors.New("bundle: writer is closed")
	}
	if _, dup := w.files[path]; dup {
		return nil, fmt.Errorf("bundle path %q: written twice", path)
	}
	f, err := os.CreateTemp(w.stage, "f-*")
	if err != nil {
		return nil, fmt.Errorf("stage %s: %w", path, err)
	}
	w.files[path] = nil // reserved until the file is closed
	w.staged[path] = f.Name()
	return &File{w: w, f: f, h: sha256.New(),
		entry: FileEntry{Path: path, Source: source, Started: time.Now().UTC()}}, nil
}

// Write appends to the file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	f.h.Write(p[:n])
	f.n += int64(n)
	return n, err
}

// SetError records that the source failed part-way; the file keeps what was written.
func (f *File) SetError(err error) {
	if err != nil {
		f.entry.Error = err.Error()
	}
}

// SetTruncated records that a size cap cut the file.
func (f *File) SetTruncated() { f.entry.Truncated = true }

// AddRedacted records that n more values in the file were redacted.
func (f *File) AddRedacted(n int) { f.entry.Redacted += n }

// Close finishes the file and records it in the manifest.
func (f *File) Close() error {
	err := f.f.Close()
	f.entry.Finished = time.Now().UTC()
	f.entry.Size = f.n
	f.entry.SHA256 = hex.EncodeToString(f.h.Sum(nil))
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	if err != nil {
		delete(f.w.files, f.entry.Path)
		delete(f.w.staged, f.entry.Path)
		os.Remove(f.f.Name())
		return fmt.Errorf("stage %s: %w", f.entry.Path, err)
	}
	e := f.entry
	f.w.files[e.Path] = &e
	return nil
}

// WriteFile writes a whole file at once.
func (w *Writer) WriteFile(path, source string, data []byte) error {
	f, err := w.Create(path, source)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Close writes the archive and removes the staging directory. Files still
// open are left out. The destination appears only if everything succeeded:
// the archive is written beside it and renamed over it. A destination that
// exists and is not a regular file (a device such as /dev/null, a FIFO, a
// symbolic link) is written to in place, through the link, and never
// replaced.
func (w *Writer) Close() (err error) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return errors.New("bundle: writer already closed")
	}
	w.done = true
	m := w.manifest
	m.FormatVersion = FormatVersion
	m.Files = nil
	for _, e := range w.files {
		if e != nil {
			m.Files = append(m.Files, *e)
		}
	}
	staged := w.staged
	w.mu.Unlock()
	defer os.RemoveAll(w.stage)

	slices.SortFunc(m.Files, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	if m.FinishedAt.IsZero() {
		m.FinishedAt = time.Now().UTC()
	}
	tmp, inPlace, err := createOutput(w.dest)
	if err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			if !inPlace {
				os.Remove(tmp.Name())
			}
		}
	}()
	var comp io.WriteCloser
	switch w.opts.Format {
	case FormatTarZstd:
		// Independent frames, so that readers decode them on every core.
		comp, err = newFrameWriter(tmp)
	case FormatTarGzip:
		comp = gzip.NewWriter(tmp)
	case FormatTar:
		comp = nopWriteCloser{tmp}
	default:
		err = fmt.Errorf("bundle: cannot write format %v", w.opts.Format)
	}
	if err != nil {
		return err
	}
	tw := tar.NewWriter(comp)
	if err := w.writeArchive(tw, &m, staged); err != nil {
		return fmt.Errorf("write bundle %s: %w", w.dest, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write bundle %s: %w", w.dest, err)
	}
	if err := comp.Close(); err != nil {
		return fmt.Errorf("write bundle %s: %w", w.dest, err)
	}
	if fi, err := tmp.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("write bundle %s: %w", w.dest, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write bundle %s: %w", w.dest, err)
	}
	if inPlace {
		return nil
	}
	if err := os.Rename(tmp.Name(), w.dest); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	return nil
}

// Abort discards everything staged; the destination is not written.
func (w *Writer) Abort() error {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	return os.RemoveAll(w.stage)
}

func (w *Writer) writeArchive(tw *tar.Writer, m *Manifest, staged map[string]string) error {
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		return err
	}
	dirs := map[string]bool{}
	mtime := m.FinishedAt
	if err := w.writeEntry(tw, dirs, ManifestPath, int64(buf.Len()), mtime, &buf); err != nil {
		return err
	}
	for _, fe := range m.Files {
		f, err := os.Open(staged[fe.Path])
		if err != nil {
			return err
		}
		err = w.writeEntry(tw, dirs, fe.Path, fe.Size, fe.Finished, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) writeEntry(tw *tar.Writer, dirs map[string]bool, p string, size int64, mtime time.Time, r io.Reader) error {
	full := p
	if w.opts.Root != "" {
		full = w.opts.Root + "/" + p
	}
	// Directory entries let plain `tar -x` recreate the tree with sane modes.
	for i := 0; i < len(full); i++ {
		if full[i] == '/' && !dirs[full[:i]] {
			dirs[full[:i]] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: full[:i+1], Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: full, Size: size, Mode: 0o644, ModTime: mtime, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	n, err := io.Copy(tw, r)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if n != size {
		return fmt.Errorf("%s: staged %d bytes, expected %d", p, n, size)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writeInPlace reports whether dest exists and is neither a regular file nor
// a directory: a device, FIFO, socket or symbolic link, which is written to
// as it is rather than replaced by a rename.
func writeInPlace(dest string) bool {
	fi, err := os.Lstat(dest)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// createOutput opens what Close writes the archive to: dest itself when it
// is to be written in place, else a temporary file beside it.
func createOutput(dest string) (f *os.File, inPlace bool, err error) {
	if writeInPlace(dest) {
		f, err = os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // as CreateTemp: a bundle may hold secrets
		return f, true, err
	}
	f, err = os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".partial-*")
	return f, false, err
}
