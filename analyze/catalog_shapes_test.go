package analyze_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// Every release's rw_catalog dumps (testdata/shapes/catalog/<tag>/, the
// columns `SELECT *` prints at that tag; SOURCES.md names the source files)
// load without a problem, and the catalog signals the built-in rules decide
// or name subjects with find a query that runs on that release's columns.
func TestCatalogShapesPerRelease(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "shapes", "catalog")
	sources, err := os.ReadFile(filepath.Join(root, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	tags, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	// rule/signal that must be read on every release's catalog.
	want := []string{
		"backfill-starving-live-jobs/creating",
		"barrier-stall-slow-compute-node/workers",
		"barrier-stall-slow-compute-node/actors",
		"kafka-offset-replay-after-meta-restart/sources",
		"sink-blocking-barriers/sinks",
	}
	n := 0
	for _, tag := range tags {
		if !tag.IsDir() {
			continue
		}
		n++
		t.Run(tag.Name(), func(t *testing.T) {
			if !strings.Contains(string(sources), tag.Name()) {
				t.Errorf("SOURCES.md does not name %s", tag.Name())
			}
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "sql"), 0o755); err != nil {
				t.Fatal(err)
			}
			files, err := filepath.Glob(filepath.Join(root, tag.Name(), "*.csv"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no CSV dumps for %s: %v", tag.Name(), err)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "sql", filepath.Base(f)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Bundle.Problems) > 0 {
				t.Errorf("problems reading %s's dumps: %q", tag.Name(), rep.Bundle.Problems)
			}
			read := map[string]string{}
			for _, rr := range rep.Rules {
				for _, e := range rr.Examined {
					if e.Read {
						read[rr.ID+"/"+e.Signal] = e.Coverage
					} else {
						read[rr.ID+"/"+e.Signal+"!"] = e.Coverage
					}
				}
			}
			for _, w := range want {
				if _, ok := read[w]; !ok {
					t.Errorf("%s not read on %s's columns: %s", w, tag.Name(), read[w+"!"])
				}
			}
		})
	}
	if n < 8 {
		t.Errorf("%d release directories, want at least the eight tags v1.0.0 to v3.0.0", n)
	}
}
