package bundle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDirRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{goodFirstPath: goodFirstBody, goodLastPath: goodLastBody})
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "logs", "p", "c.log")); err != nil {
		t.Skipf("cannot make a symlink: %v", err)
	}
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(dir, "metrics")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var paths, refused []string
	for _, g := range drainAll(t, r) {
		if g.NextErr != nil {
			ue, ok := asError[*UnsafeEntryError](g.NextErr)
			if !ok || Fatal(g.NextErr) {
				t.Fatalf("Next: %v, want a non-fatal *UnsafeEntryError", g.NextErr)
			}
			refused = append(refused, ue.Path+": "+ue.Reason)
			continue
		}
		if string(g.Data) == "secret\n" {
			t.Errorf("%s: read the link's target", g.Path)
		}
		paths = append(paths, g.Path)
	}
	if want := []string{goodFirstPath, goodLastPath}; !slices.Equal(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	want := []string{
		"logs/p/c.log: symbolic link to " + quote(secret),
		"metrics: symbolic link to " + quote(filepath.Dir(secret)),
	}
	if !slices.Equal(refused, want) {
		t.Errorf("refused = %q, want %q", refused, want)
	}
}

func quote(s string) string { return `"` + s + `"` }

func TestDirWrappingDirectory(t *testing.T) {
	tests := []struct {
		name  string
		tree  map[string]string
		paths []string
	}{
		{
			name:  "one wrapping dir is entered",
			tree:  map[string]string{"rwdiag-x-20261129T204300Z/" + goodFirstPath: goodFirstBody, "rwdiag-x-20261129T204300Z/" + ManifestPath: "{}"},
			paths: []string{goodFirstPath, ManifestPath},
		},
		{
			name:  "a lone layout dir is not a wrapping dir",
			tree:  map[string]string{"logs/p/c.log": "x\n"},
			paths: []string{"logs/p/c.log"},
		},
		{
			name:  "two dirs: neither is entered",
			tree:  map[string]string{"rwdiag-a/" + goodFirstPath: "", "rwdiag-b/" + goodFirstPath: ""},
			paths: []string{"rwdiag-a/" + goodFirstPath, "rwdiag-b/" + goodFirstPath},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tt.tree)
			r, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var paths []string
			for _, g := range drainAll(t, r) {
				if g.NextErr != nil || g.ReadErr != nil {
					t.Fatalf("errors %v, %v", g.NextErr, g.ReadErr)
				}
				paths = append(paths, g.Path)
				if g.Path == goodFirstPath && g.Class.Kind != KindPods {
					t.Errorf("%s classified %v", g.Path, g.Class.Kind)
				}
			}
			if !slices.Equal(paths, tt.paths) {
				t.Errorf("paths = %q, want %q", paths, tt.paths)
			}
		})
	}
}

func TestDirEntryLimit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"logs/p/c.log": "0123456789", goodLastPath: goodLastBody})
	r, err := Open(dir, Options{MaxEntryBytes: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gots := drainAll(t, r)
	if len(gots) != 2 || string(gots[0].Data) != "0123" {
		t.Fatalf("got %+v", gots)
	}
	if le, ok := asError[*LimitError](gots[0].ReadErr); !ok || le.Total || le.Limit != 4 {
		t.Errorf("read error %v, want a per-entry *LimitError", gots[0].ReadErr)
	}
	if gots[1].Path != goodLastPath || gots[1].ReadErr == nil {
		// goodLastBody is longer than 4 bytes too.
		t.Errorf("second entry %+v", gots[1])
	}
}
