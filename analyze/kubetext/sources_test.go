package kubetext

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestSourcesCoverEveryFixture: every fixture has a row in SOURCES.md
// naming its kubectl version and source, every row a fixture, and every
// fixture a test.
func TestSourcesCoverEveryFixture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(shapes, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([0-9.]+) \\| ([^|]+) \\|").FindAllSubmatch(b, -1) {
		if !regexp.MustCompile(`(describe|printers)\.go:[0-9]+`).Match(m[3]) {
			t.Errorf("SOURCES.md row %s names no source file:line", m[1])
		}
		rows = append(rows, string(m[1]))
	}
	files, err := filepath.Glob(filepath.Join(shapes, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, tc := range describeFixtures {
		tested = append(tested, tc.file)
	}
	for _, tc := range getPodsFixtures {
		tested = append(tested, tc.file)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if !slices.Contains(rows, name) {
			t.Errorf("%s has no row in SOURCES.md", name)
		}
		if !slices.Contains(tested, name) {
			t.Errorf("%s is asserted by no test", name)
		}
		if !regexp.MustCompile(`^v1\.[0-9]+-(describe|get-pods)(-[a-z-]+)?\.txt$`).MatchString(name) {
			t.Errorf("%s is not named <kubectl-version>-<shape>.txt", name)
		}
	}
	for _, r := range rows {
		if !slices.Contains(files, filepath.Join(shapes, r)) {
			t.Errorf("SOURCES.md names %s, which does not exist", r)
		}
	}
}
