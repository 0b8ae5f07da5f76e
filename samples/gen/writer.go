package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// toolName and toolVersion go into every generated manifest.
const (
	toolName    = "rwdiag-samplegen"
	toolVersion = "v1"
)

// bundleWriter writes one bundle directory, file by file, hashing each as it
// streams, and finally its manifest.
type bundleWriter struct {
	root  string
	files []bundle.FileEntry
	errs  []bundle.CollectError
	err   error // the first write error; later writes are skipped
}

func newBundleWriter(root string) *bundleWriter {
	return &bundleWriter{root: root}
}

// file is one bundle file being written.
type file struct {
	*bufio.Writer
	bw    *bundleWriter
	f     *os.File
	h     hash.Hash
	n     *countWriter
	entry bundle.FileEntry
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// create opens a bundle path for writing. source is the command that would
// have produced the file; started and finished are its capture times.
func (b *bundleWriter) create(p, source string, started, finished time.Time) *file {
	fw := &file{bw: b, h: sha256.New()}
	fw.entry = bundle.FileEntry{Path: p, Source: source, Started: started.UTC(), Finished: finished.UTC()}
	if b.err == nil {
		full := filepath.Join(b.root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.err = err
		} else if f, err := os.Create(full); err != nil {
			b.err = err
		} else {
			fw.f = f
		}
	}
	var w io.Writer = io.Discard
	if fw.f != nil {
		w = fw.f
	}
	fw.n = &countWriter{w: io.MultiWriter(w, fw.h)}
	fw.Writer = bufio.NewWriterSize(fw.n, 64<<10)
	return fw
}

// printf writes formatted text.
func (f *file) printf(format string, args ...any) {
	fmt.Fprintf(f.Writer, format, args...)
}

// close flushes the file and records it for the manifest.
func (f *file) close() {
	if err := f.Flush(); err != nil && f.bw.err == nil {
		f.bw.err = err
	}
	if f.f != nil {
		if err := f.f.Close(); err != nil && f.bw.err == nil {
			f.bw.err = err
		}
	}
	f.entry.Size = f.n.n
	f.entry.SHA256 = hex.EncodeToString(f.h.Sum(nil))
	f.bw.files = append(f.bw.files, f.entry)
}

// writeString writes a whole small file at once.
func (b *bundleWriter) writeString(p, source string, started, finished time.Time, content string) {
	f := b.create(p, source, started, finished)
	f.WriteString(content)
	f.close()
}

// collectError records a collection step that produced no file.
func (b *bundleWriter) collectError(e bundle.CollectError) {
	b.errs = append(b.errs, e)
}

// finish writes manifest.json, unless m is nil (a hand-made bundle).
func (b *bundleWriter) finish(m *bundle.Manifest) error {
	if b.err != nil {
		return fmt.Errorf("write %s: %w", b.root, b.err)
	}
	if m == nil {
		return nil
	}
	files := slices.Clone(b.files)
	slices.SortFunc(files, func(x, y bundle.FileEntry) int { return strings.Compare(x.Path, y.Path) })
	m.Files = files
	m.Errors = slices.Clone(b.errs)
	slices.SortStableFunc(m.Errors, func(x, y bundle.CollectError) int { return x.Time.Compare(y.Time) })
	if m.Errors == nil {
		m.Errors = []bundle.CollectError{}
	}
	f, err := os.Create(filepath.Join(b.root, bundle.ManifestPath))
	if err != nil {
		return err
	}
	if err := m.Encode(f); err != nil {
		f.Close()
		return fmt.Errorf("write manifest: %w", err)
	}
	return f.Close()
}

// joinPath is path.Join for bundle paths.
func joinPath(elem ...string) string { return path.Join(elem...) }
