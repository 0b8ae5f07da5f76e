package analyze

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The worked example in docs/rule-format.md must load, lint clean and pass
// its own tests, so the page cannot drift from the code.
func TestRuleFormatWorkedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/rule-format.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	block := regexp.MustCompile("(?s)`my-rules/([a-z_]+\\.yaml)`:\\s*```yaml\n(.*?)```")
	blocks := block.FindAllSubmatch(doc, -1)
	if len(blocks) != 2 {
		t.Fatalf("found %d example files in docs/rule-format.md, want the rule file and its test", len(blocks))
	}
	for _, b := range blocks {
		if err := os.WriteFile(filepath.Join(dir, string(b[1])), b[2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatalf("the example rule does not load:\n%v", err)
	}
	if len(rules) != 1 {
		t.Fatalf("loaded %d rules, want 1", len(rules))
	}
	cases, err := LoadTestPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	results := RunTests(context.Background(), cases, rules, nil)
	if len(results) != 2 {
		t.Fatalf("ran %d cases, want 2", len(results))
	}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("FAIL %s", r)
		}
	}
}
