package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// duplicateTar is an archive holding two manifest.json and the same log
// twice, each second copy saying something else, one spelled through the
// wrapping directory and "./".
func duplicateTar(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []tarEntry{
		regEntry("rwdiag-x/manifest.json", `{"format_version": 1, "namespace": "first", "complete": true, "collected_at": "2026-11-29T20:43:00Z"}`),
		regEntry("rwdiag-x/logs/rw-compute-0/compute.log", "first copy\n"),
		regEntry("rwdiag-x/manifest.json", `{"format_version": 1, "namespace": "second", "complete": true, "collected_at": "2026-11-29T20:43:00Z"}`),
		regEntry("./rwdiag-x/logs/rw-compute-0/compute.log", "second copy\n"),
		regEntry("rwdiag-x/logs/rw-compute-0/compute.previous.log", "other file\n"),
	} {
		e.hdr.ModTime = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)
		if err := tw.WriteHeader(e.hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(e.body)
	}
	tw.Close()
	name := filepath.Join(t.TempDir(), "dup.tar")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// The first copy of a path is handed out; later copies are refused with a
// *DuplicateEntryError, which is not fatal, and their content is skipped.
func TestDuplicateEntries(t *testing.T) {
	r, err := Open(duplicateTar(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var paths, dups []string
	for _, g := range drainAll(t, r) {
		var de *DuplicateEntryError
		switch {
		case errors.As(g.NextErr, &de):
			if Fatal(g.NextErr) {
				t.Errorf("%v is fatal", g.NextErr)
			}
			dups = append(dups, de.Path)
		case g.NextErr != nil:
			t.Errorf("unexpected error %v", g.NextErr)
		default:
			paths = append(paths, g.Path)
			if g.Path == "logs/rw-compute-0/compute.log" && string(g.Data) != "first copy\n" {
				t.Errorf("the log holds %q, want the first copy", g.Data)
			}
		}
	}
	if want := []string{ManifestPath, "logs/rw-compute-0/compute.log", "logs/rw-compute-0/compute.previous.log"}; !slices.Equal(paths, want) {
		t.Errorf("entries %q, want %q", paths, want)
	}
	if want := []string{ManifestPath, "logs/rw-compute-0/compute.log"}; !slices.Equal(dups, want) {
		t.Errorf("duplicates %q, want %q", dups, want)
	}
}

// Summarize (bundle inspect), Verify and Extract all use the first copy and
// report the others.
func TestDuplicateEntriesEverywhere(t *testing.T) {
	name := duplicateTar(t)
	open := func() *Reader {
		r, err := Open(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	countDup := func(errs []error) int {
		n := 0
		for _, err := range errs {
			var de *DuplicateEntryError
			if errors.As(err, &de) {
				n++
			}
		}
		return n
	}

	s, err := Summarize(open())
	if err != nil || s.Manifest == nil || s.Manifest.Namespace != "first" || s.Files != 3 || countDup(s.Problems) != 2 {
		t.Errorf("Summarize: %v, namespace %v, %d files, problems %v; want the first manifest, 3 files, 2 duplicates", err, s.Manifest, s.Files, s.Problems)
	}

	rep, err := Verify(open())
	if err != nil || rep.Manifest.Namespace != "first" || countDup(rep.Problems) != 2 || rep.OK() {
		t.Errorf("Verify: %v, %+v; want the first manifest and 2 duplicate problems, not OK", err, rep)
	}

	dir := filepath.Join(t.TempDir(), "out")
	files, problems, err := Extract(open(), dir)
	if err != nil || files != 3 || countDup(problems) != 2 {
		t.Errorf("Extract = %d, %v, %v; want 3 files and 2 duplicates, going on past them", files, problems, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "logs/rw-compute-0/compute.log")); string(b) != "first copy\n" {
		t.Errorf("extracted log holds %q, want the first copy", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ManifestPath)); !strings.Contains(string(b), `"first"`) {
		t.Errorf("extracted manifest holds %q, want the first", b)
	}
}
