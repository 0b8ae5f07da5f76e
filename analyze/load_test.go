package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var wantRE = regexp.MustCompile(`(?m)^# want: (\d+):(\d+) (.*)$`)

// Each testdata/rulefiles/*.bad.yaml states the problems it must produce in
// "# want: LINE:COL substring" comments; all of them, and no others.
func TestLoadBadRuleFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/rulefiles/*.bad.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad rule files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wants := wantRE.FindAllStringSubmatch(string(data), -1)
			if len(wants) == 0 {
				t.Fatalf("%s has no # want: lines", f)
			}
			_, err = LoadPaths([]string{f})
			var probs Problems
			if !errors.As(err, &probs) {
				t.Fatalf("LoadPaths(%s) = %v, want Problems", f, err)
			}
			if len(probs) != len(wants) {
				t.Errorf("got %d problems, want %d:\n%v", len(probs), len(wants), probs)
			}
			for _, w := range wants {
				pos := w[1] + ":" + w[2]
				found := false
				for _, p := range probs {
					if fmt.Sprintf("%d:%d", p.Line, p.Column) == pos && strings.Contains(p.Msg, w[3]) &&
						strings.HasPrefix(p.Error(), f+":"+pos+": ") {
						found = true
					}
				}
				if !found {
					t.Errorf("no problem at %s containing %q; got:\n%v", pos, w[3], probs)
				}
			}
		})
	}
}

func TestLoadRejectsDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	rule := `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: same
    pattern: p
    severity: info
    title: t
    signals: {x: {promql: up}}
    condition: len(x) > 0
    summary: s
    remediation: r
`
	for _, n := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadPaths([]string{dir})
	if err == nil || !strings.Contains(err.Error(), "duplicate rule id") {
		t.Fatalf("LoadPaths = %v, want a duplicate id problem", err)
	}
}

func TestMergeOverridesAndDisables(t *testing.T) {
	base := []*Rule{{ID: "a", File: "builtin"}, {ID: "b", File: "builtin"}, {ID: "c", File: "builtin"}}
	extra := []*Rule{{ID: "b", File: "mine"}, {ID: "d", File: "mine"}}
	got, err := Merge(base, extra, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID+"@"+r.File)
	}
	if want := "a@builtin b@mine d@mine"; strings.Join(ids, " ") != want {
		t.Errorf("Merge = %v, want %s", ids, want)
	}
	if _, err := Merge(base, nil, []string{"nope"}); err == nil {
		t.Error("disabling an unknown rule must be an error")
	}
}

func TestAppliesTo(t *testing.T) {
	rules, err := ParseRules("v.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: ranged
    pattern: p
    severity: info
    title: t
    versions: ">= 2.1, < 3.0"
    signals: {x: {promql: up}}
    condition: len(x) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	r := rules[0]
	for v, want := range map[string]bool{
		"2.1.0": true, "2.8.3": true, "2.1.0-rc.1": true, "1.10.1": false, "3.0.3": false,
		"": true, "nightly": true,
	} {
		if got := r.AppliesTo(v); got != want {
			t.Errorf("AppliesTo(%q) = %v, want %v", v, got, want)
		}
	}
}
