package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExtractWritesEveryEntry(t *testing.T) {
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarGzip, Root: "rwdiag-x"}, testFiles())
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The target and its parents are created.
	target, files, problems, err := extractContainedAt(t, r, "a/b/target")
	if err != nil || len(problems) != 0 || files != len(testFiles())+1 {
		t.Fatalf("Extract = %d, %v, %v", files, problems, err)
	}
	want := []string{ManifestPath}
	for _, f := range testFiles() {
		want = append(want, f.path)
		if got := readFile(t, filepath.Join(target, f.path)); string(got) != f.body {
			t.Errorf("%s: extracted content differs", f.path)
		}
		fi, err := os.Stat(filepath.Join(target, f.path))
		if err != nil || fi.Mode().Perm() != 0o644&^umask() {
			t.Errorf("%s: mode %v, %v", f.path, fi.Mode(), err)
		}
	}
	slices.Sort(want)
	got := filesUnder(t, target)
	slices.Sort(got) // a directory walk puts pods/x before pods.txt
	if !slices.Equal(got, want) {
		t.Errorf("extracted %q, want %q", got, want)
	}
	fi, err := os.Stat(filepath.Join(target, "logs", "risingwave-compute-0"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755&^umask() {
		t.Errorf("directory mode %v, %v", fi.Mode(), err)
	}
}

// umask returns the process umask, which trims the modes Extract asks for.
func umask() fs.FileMode {
	dir, err := os.MkdirTemp("", "umask")
	if err != nil {
		return 0
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, nil, 0o777)
	fi, err := os.Stat(f)
	if err != nil {
		return 0
	}
	return 0o777 &^ fi.Mode().Perm()
}

func extractContainedAt(t *testing.T, r *Reader, rel string) (string, int, []error, error) {
	t.Helper()
	parent := t.TempDir()
	target := filepath.Join(parent, filepath.FromSlash(rel))
	files, problems, err := Extract(r, target)
	for _, f := range filesUnder(t, parent) {
		if !strings.HasPrefix(f, rel+"/") {
			t.Errorf("extract wrote %s outside %s", f, rel)
		}
	}
	return target, files, problems, err
}

func TestExtractNeverOverwrites(t *testing.T) {
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target := t.TempDir()
	existing := filepath.Join(target, "logs", "risingwave-compute-0", "compute.log")
	if err := os.MkdirAll(filepath.Dir(existing), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, err := Extract(r, target)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "logs/risingwave-compute-0/compute.log") {
		t.Errorf("Extract = %d, %v; want an error naming the existing file", files, err)
	}
	if got := readFile(t, existing); string(got) != "keep me\n" {
		t.Errorf("existing file overwritten with %d bytes", len(got))
	}
	// The files before it were extracted.
	if _, err := os.Stat(filepath.Join(target, "kubernetes", "pods.json")); err != nil {
		t.Errorf("file before the existing one: %v", err)
	}
}

func TestExtractStaysInsideThroughSymlinks(t *testing.T) {
	// A link already in the target pointing out of it: os.Root refuses to
	// follow it, so nothing lands outside even though every name is clean.
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside")
	target := filepath.Join(parent, "target")
	for _, d := range []string{outside, target} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(target, "logs")); err != nil {
		t.Skipf("cannot make a symlink: %v", err)
	}
	_, _, err = Extract(r, target)
	t.Logf("Extract: %v", err)
	if err == nil || !strings.Contains(err.Error(), "logs/") {
		t.Errorf("Extract through an escaping link = %v, want an error naming the file", err)
	}
	if got := filesUnder(t, outside); len(got) != 0 {
		t.Errorf("extract wrote %q outside the target, through the link", got)
	}
}
