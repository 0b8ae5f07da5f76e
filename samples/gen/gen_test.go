package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// maxSampleBytes is the size every sample must stay under.
const maxSampleBytes = 1 << 20

// generated writes every sample into a fresh directory and returns it.
func generated(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := generateAll(dir, "", 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

// files maps each file under dir to its contents.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Two runs give byte-identical samples.
func TestDeterministic(t *testing.T) {
	a, b := files(t, generated(t)), files(t, generated(t))
	if len(a) != len(b) {
		t.Errorf("first run wrote %d files, second %d", len(a), len(b))
	}
	var names []string
	for name := range a {
		names = append(names, name)
	}
	slices.Sort(names)
	diffs := 0
	for _, name := range names {
		other, ok := b[name]
		switch {
		case !ok:
			t.Errorf("%s: written by the first run only", name)
		case !bytes.Equal(a[name], other):
			t.Errorf("%s: differs between runs", name)
		default:
			continue
		}
		if diffs++; diffs > 10 {
			t.Fatal("too many differences")
		}
	}
}

// Every sample is a valid bundle: under 1 MiB, every file classified, and
// (but for the hand-made one) verified against its manifest.
func TestSamples(t *testing.T) {
	dir := generated(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			root := filepath.Join(dir, sc.name)
			fs := files(t, root)
			var size int
			for name, b := range fs {
				size += len(b)
				if bundle.Classify(name).Kind == bundle.KindUnknown {
					t.Errorf("%s: not a path the bundle format knows", name)
				}
			}
			if size >= maxSampleBytes {
				t.Errorf("%d bytes, want under %d", size, maxSampleBytes)
			}
			r, err := bundle.Open(root, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rep, err := bundle.Verify(r)
			if sc.name == "handmade-minimal" {
				if !errors.Is(err, bundle.ErrNoManifest) {
					t.Errorf("hand-made sample: Verify error %v, want ErrNoManifest", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || len(rep.Extra) > 0 {
				t.Errorf("verify: missing %v, extra %v, mismatched %v, problems %v", rep.Missing, rep.Extra, rep.Mismatched, rep.Problems)
			}
			m := rep.Manifest
			if m.FormatVersion != 1 || m.Tool.Name != toolName || !m.Complete || m.Namespace == "" || m.Cluster == "" || m.RisingWaveVersion == "" {
				t.Errorf("manifest header: %+v", m)
			}
			for _, f := range m.Files {
				if f.Source == "" {
					t.Errorf("%s: no source in the manifest", f.Path)
				}
			}
		})
	}
}

// The checked-in samples are what the generator writes: run
// `go run ./samples/gen -out samples` after changing it.
func TestCheckedIn(t *testing.T) {
	want := generated(t)
	for _, sc := range scenarios {
		have := filepath.Join("..", sc.name)
		if _, err := os.Stat(have); err != nil {
			t.Errorf("%s: %v", sc.name, err)
			continue
		}
		a, b := files(t, filepath.Join(want, sc.name)), files(t, have)
		for name, content := range a {
			if !bytes.Equal(content, b[name]) {
				t.Errorf("samples/%s/%s is not what the generator writes; regenerate with go run ./samples/gen -out samples", sc.name, name)
				break
			}
		}
		for name := range b {
			if _, ok := a[name]; !ok {
				t.Errorf("samples/%s/%s is not written by the generator", sc.name, name)
				break
			}
		}
	}
}

// -scale adds noise and keeps the bundle valid.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	const name = "sink-decoupled-lag"
	if err := generateAll(filepath.Join(dir, "1"), name, 1); err != nil {
		t.Fatal(err)
	}
	if err := generateAll(filepath.Join(dir, "4"), name, 4); err != nil {
		t.Fatal(err)
	}
	size := func(root string) (n int) {
		for _, b := range files(t, root) {
			n += len(b)
		}
		return n
	}
	small, big := size(filepath.Join(dir, "1", name)), size(filepath.Join(dir, "4", name))
	if big < 3*small {
		t.Errorf("scale 4: %d bytes, scale 1: %d; want at least three times more", big, small)
	}
	r, err := bundle.Open(filepath.Join(dir, "4", name), bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := bundle.Verify(r)
	if err != nil || !rep.OK() {
		t.Errorf("scale 4 bundle does not verify: %v %+v", err, rep)
	}
}

// Unknown names are refused with the list of samples.
func TestOnlyUnknown(t *testing.T) {
	err := generateAll(t.TempDir(), "no-such-sample", 1)
	if err == nil {
		t.Fatal("no error for an unknown sample")
	}
}
