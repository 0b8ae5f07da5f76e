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

func TestWriterRefusesBadPaths(t *testing.T) {
	w, err := NewWriter(filepath.Join(t.TempDir(), "b.tar.zst"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	tests := []struct{ path, want string }{
		{"", "empty name"},
		{"/etc/passwd", "absolute path"},
		{"../evil", `".."`},
		{"logs/../evil", `".."`},
		{"logs//p/c.log", "not in clean form"},
		{"./logs/p/c.log", "not in clean form"},
		{"logs/p/", "not in clean form"},
		{`logs\p\c.log`, "backslash"},
		{ManifestPath, "reserved for the manifest"},
	}
	for _, tt := range tests {
		if _, err := w.Create(tt.path, "test"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Create(%q) = %v, want an error saying %q", tt.path, err, tt.want)
		}
	}
}

func TestWriterRefusesDuplicates(t *testing.T) {
	w, err := NewWriter(filepath.Join(t.TempDir(), "b.tar.zst"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	f, err := w.Create("logs/p/c.log", "test")
	if err != nil {
		t.Fatal(err)
	}
	// Refused while the first is open, and after it is closed.
	if _, err := w.Create("logs/p/c.log", "test"); err == nil || !strings.Contains(err.Error(), "written twice") {
		t.Errorf("second Create while open = %v, want written twice", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("logs/p/c.log", "test", []byte("x")); err == nil || !strings.Contains(err.Error(), "written twice") {
		t.Errorf("second WriteFile = %v, want written twice", err)
	}
}

func TestWriterRoot(t *testing.T) {
	for _, root := range []string{"a/b", "..", ".", "/abs", "x/", "logs", ManifestPath, `a\b`} {
		if w, err := NewWriter(filepath.Join(t.TempDir(), "b.tar"), WriterOptions{Root: root}); err == nil {
			w.Abort()
			t.Errorf("NewWriter with Root %q succeeded", root)
		}
	}
}

func TestWriterDestinationAppearsOnlyAtClose(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "b.tar.zst")
	w, err := NewWriter(dest, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("logs/p/c.log", "test", []byte("line\n")); err != nil {
		t.Fatal(err)
	}
	open, err := w.Create("logs/p/open.log", "test")
	if err != nil {
		t.Fatal(err)
	}
	open.Write([]byte("never closed\n"))
	if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination exists before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Only the bundle is left: no stage, no partial file.
	if got := entriesOf(t, dir); !slices.Equal(got, []string{"b.tar.zst"}) {
		t.Errorf("directory holds %q after Close, want only the bundle", got)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if _, err := w.Create("logs/p/late.log", "test"); err == nil {
		t.Error("Create after Close succeeded")
	}
	// The file still open at Close was left out.
	r, err := Open(dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var paths []string
	for _, g := range drainAll(t, r) {
		paths = append(paths, g.Path)
	}
	if want := []string{ManifestPath, "logs/p/c.log"}; !slices.Equal(paths, want) {
		t.Errorf("bundle holds %q, want %q", paths, want)
	}
	open.f.Close()
}

func TestWriterAbort(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "b.tar.zst")
	w, err := NewWriter(dest, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("logs/p/c.log", "test", []byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := entriesOf(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q after Abort, want nothing", got)
	}
	if err := w.WriteFile("logs/p/d.log", "test", nil); err == nil {
		t.Error("WriteFile after Abort succeeded")
	}
}

func TestWriterRecordsErrorsAndFlags(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "b.tar")
	w, err := NewWriter(dest, WriterOptions{Format: FormatTar})
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.Create("logs/p/c.log", "kubectl logs p -c c")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial\n"))
	f.SetError(errors.New("stream closed"))
	f.SetTruncated()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	w.RecordError(CollectError{Step: "sql", Target: "rw_catalog", Error: "timeout", Path: "sql/rw_catalog.csv"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := verifyFile(t, dest)
	if err != nil || !rep.OK() {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	m := rep.Manifest
	fe, ok := m.File("logs/p/c.log")
	if !ok || fe.Error != "stream closed" || !fe.Truncated || fe.Size != 8 || fe.Started.IsZero() || fe.Finished.IsZero() {
		t.Errorf("file entry = %+v", fe)
	}
	if len(m.Errors) != 1 || m.Errors[0].Path != "sql/rw_catalog.csv" || m.Errors[0].Time.IsZero() {
		t.Errorf("errors = %+v", m.Errors)
	}
}

func entriesOf(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
