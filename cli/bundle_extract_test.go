package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

func TestExtract(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := run(t, "bundle", "extract", writeBundle(t, bundle.FormatTarZstd), dir)
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	// The three files and the manifest, without the archive's wrapping directory.
	if !strings.Contains(r.stdout, "extracted 4 files") {
		t.Errorf("stdout lacks the count\n%v", r)
	}
	for _, f := range testFiles {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil {
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		if string(got) != f.content {
			t.Errorf("%s: content %q, want %q", f.path, got, f.content)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, bundle.ManifestPath)); err != nil {
		t.Errorf("manifest not extracted: %v", err)
	}
	// What was extracted is a bundle that verifies.
	if r := run(t, "bundle", "verify", dir); r.code != exitOK {
		t.Errorf("the extracted directory does not verify\n%v", r)
	}
}

func TestExtractOverExistingFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "sql", "rw_worker_nodes.csv")
	if err := os.MkdirAll(filepath.Dir(existing), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bundle", "extract", writeBundle(t, bundle.FormatTarZstd), dir)
	if r.code != exitUsage {
		t.Errorf("exit %d, want %d\n%v", r.code, exitUsage, r)
	}
	if !strings.Contains(r.stderr, "sql/rw_worker_nodes.csv") {
		t.Errorf("stderr does not name the file in the way\n%v", r)
	}
	if got, _ := os.ReadFile(existing); string(got) != "mine\n" {
		t.Errorf("existing file overwritten: %q", got)
	}
}
