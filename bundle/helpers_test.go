package bundle

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// got is one result of Reader.Next: an entry read whole, or an error.
type got struct {
	Path    string
	Class   Class
	Size    int64
	Data    []byte
	NextErr error // the error Next returned instead of an entry
	ReadErr error // the error reading the entry ended with
}

// drainAll calls Next until io.EOF or a fatal error, reading every entry
// whole, and returns what it saw. A fatal error is the last element.
func drainAll(t *testing.T, r *Reader) []got {
	t.Helper()
	var out []got
	for range 10000 {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			out = append(out, got{NextErr: err})
			if Fatal(err) {
				return out
			}
			continue
		}
		data, err := io.ReadAll(e)
		out = append(out, got{Path: e.Path, Class: e.Class, Size: e.Size, Data: data, ReadErr: err})
		if Fatal(err) {
			return out
		}
	}
	t.Fatal("reader never ended")
	return nil
}

func openTestdata(t *testing.T, name string, opts Options) *Reader {
	t.Helper()
	r, err := Open(filepath.Join("testdata", name), opts)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// filesUnder lists the regular files and links under dir, as slash paths
// relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// extractContained extracts r into a directory inside a fresh parent and
// fails the test if anything appears in the parent outside that directory.
func extractContained(t *testing.T, r *Reader) (target string, files int, problems []error, err error) {
	t.Helper()
	parent := t.TempDir()
	target = filepath.Join(parent, "target")
	files, problems, err = Extract(r, target)
	for _, f := range filesUnder(t, parent) {
		if !strings.HasPrefix(f, "target/") {
			t.Errorf("extract wrote %s outside the target directory", f)
		}
	}
	ents, rerr := os.ReadDir(parent)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(ents) != 1 || ents[0].Name() != "target" {
		t.Errorf("parent directory holds %v, want only target", ents)
	}
	return target, files, problems, err
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func asError[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

func isPrefix(prefix, full []byte) bool { return bytes.HasPrefix(full, prefix) }
