package analyze

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// LoadFS parses files on every core; what it returns must not depend on
// that: rules in the walk's order, every file's problems in that order,
// then duplicate ids; rule tests are skipped without being parsed.
func TestLoadFSOrderAndRuleTests(t *testing.T) {
	rule := func(id, cond string) string {
		return fmt.Sprintf(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: %s
    pattern: p
    severity: info
    title: t
    signals: {x: {promql: up}}
    condition: %s
    summary: s
    remediation: r
`, id, cond)
	}
	fsys := fstest.MapFS{}
	var wantIDs, wantBad []string
	for i := range 24 {
		name := fmt.Sprintf("r%02d.yaml", i)
		switch i % 3 {
		case 0, 1:
			id := fmt.Sprintf("rule-%02d", i)
			fsys[name] = &fstest.MapFile{Data: []byte(rule(id, "len(x) > 0"))}
			wantIDs = append(wantIDs, id)
		case 2:
			fsys[name] = &fstest.MapFile{Data: []byte(rule(fmt.Sprintf("bad-%02d", i), "len(x) >"))}
			wantBad = append(wantBad, "builtin:"+name)
		}
	}
	// A duplicate id, in a later file than its first definition.
	fsys["z-dup.yaml"] = &fstest.MapFile{Data: []byte(rule("rule-00", "true"))}
	wantIDs = append(wantIDs, "rule-00")
	// Rule tests hold no rules, whatever else they say.
	fsys["r00_test.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: rwdiag/v1\nkind: RuleTest # a test\ncases: [\n")}
	fsys["sub/r01_test.yaml"] = &fstest.MapFile{Data: []byte("# header\nkind: \"RuleTest\"\n")}

	for range 3 {
		rules, err := LoadFS(fsys, "builtin:")
		var ids []string
		for _, r := range rules {
			ids = append(ids, r.ID)
		}
		if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
			t.Fatalf("rules %v, want %v", ids, wantIDs)
		}
		var probs Problems
		if !errors.As(err, &probs) {
			t.Fatalf("LoadFS = %v, want Problems", err)
		}
		var files []string
		for _, p := range probs {
			files = append(files, p.File)
		}
		want := append(append([]string(nil), wantBad...), "builtin:z-dup.yaml")
		if strings.Join(files, " ") != strings.Join(want, " ") {
			t.Fatalf("problems in %v, want %v:\n%v", files, want, probs)
		}
		if last := probs[len(probs)-1]; !strings.Contains(last.Msg, "duplicate rule id") {
			t.Errorf("last problem %v, want the duplicate id", last)
		}
	}
}

func TestTopLevelKind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"apiVersion: rwdiag/v1\nkind: RuleTest\n", "RuleTest"},
		{"kind: 'RuleSet'  # comment\r\nkind: RuleTest\n", "RuleSet"},
		{"rules:\n  - kind: RuleTest\n", ""},
		{"summary: |\n  kind: RuleTest\nkind: RuleSet", "RuleSet"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := topLevelKind([]byte(tt.in)); got != tt.want {
			t.Errorf("topLevelKind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
