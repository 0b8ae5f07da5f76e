package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// sparse.tar holds four sparse entries of 1 GiB, within the default limits.
// Extracted, they stay sparse on disk: their holes are not written out as
// gigabytes of zeros, and the result says how much was left as holes.
func TestExtractSparseStaysSparse(t *testing.T) {
	r := openTestdata(t, "sparse.tar", Options{})
	target := filepath.Join(t.TempDir(), "out")
	res, err := ExtractAll(r, target)
	if err != nil || len(res.Problems) != 0 || res.Files != 6 {
		t.Fatalf("ExtractAll = %+v, %v", res, err)
	}
	if res.Holes < 4*(1<<30)-4*(1<<20) || res.Bytes < res.Holes {
		t.Errorf("%d of %d bytes left as holes, want nearly 4 GiB", res.Holes, res.Bytes)
	}
	var used int64
	for i := range 4 {
		p := filepath.Join(target, "logs", "sparse", fmt.Sprintf("c%d.log", i))
		fi, err := os.Stat(p)
		if err != nil || fi.Size() != 1<<30 {
			t.Fatalf("%s: %v, %v; want 1 GiB", p, fi, err)
		}
		used += fi.Sys().(*syscall.Stat_t).Blocks * 512
	}
	if used > 64<<20 {
		t.Errorf("the sparse files take %d bytes on disk, want them sparse", used)
	}
	// They read back as written: data at the start, zeros after.
	f, err := os.Open(filepath.Join(target, "logs", "sparse", "c0.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 8)
	f.ReadAt(head, 0)
	tail := make([]byte, 8)
	f.ReadAt(tail, 1<<30-8)
	if head[0] != 'x' || !bytes.Equal(tail, make([]byte, 8)) {
		t.Errorf("c0.log reads %q ... %q", head, tail)
	}
}

// A name too long to create (a component over NAME_MAX, a path over
// PATH_MAX) is refused and skipped; the entries after it are extracted.
func TestExtractSkipsOverlongNames(t *testing.T) {
	long := "logs/" + strings.Repeat("p", 300) + "/c.log"
	deep := "logs/" + strings.Repeat("d/", 2100) + "c.log"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []tarEntry{regEntry(long, "a\n"), regEntry(deep, "b\n"), regEntry("logs/p/c.log", "c\n")} {
		if err := tw.WriteHeader(e.hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(e.body)
	}
	tw.Close()
	r, err := NewReader("long.tar", &buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	target, files, problems, err := extractContained(t, r)
	if err != nil || files != 1 || len(problems) != 2 {
		t.Fatalf("Extract = %d, %v, %v; want 1 file and 2 problems", files, problems, err)
	}
	for _, p := range problems {
		if ue, ok := asError[*UnsafeEntryError](p); !ok || !strings.Contains(ue.Reason, "too long") {
			t.Errorf("problem %v, want a name too long", p)
		}
	}
	if got := readFile(t, filepath.Join(target, "logs/p/c.log")); string(got) != "c\n" {
		t.Errorf("logs/p/c.log holds %q", got)
	}
}
