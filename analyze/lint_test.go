package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// What a rule file cannot be is refused before the YAML parser spends
// seconds or gigabytes on it: aliases (a "billion laughs" of expressions),
// brackets nested deeper than any rule writes (100,000 deep took the parser
// 9 s to refuse), files over 4 MiB.
func TestHostileRuleFileShapes(t *testing.T) {
	head := "apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"
	laughs := head + "  - id: x\n    let:\n      - &a {a: 'len(x) > 0'}\n" +
		"      - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
		"      - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	for _, tc := range []struct{ name, data, want string }{
		{"aliases", laughs, "hostile.yaml:7:13: YAML aliases"},
		{"merge key", head + "  - &r {id: a}\n  - <<: *r\n", "YAML aliases"},
		{"nesting", "apiVersion: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "nested more than 64 deep"},
		{"size", head + strings.Repeat("# padding\n", 500000), "larger than 4 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseRules("hostile.yaml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), "hostile.yaml") {
				t.Fatalf("got %v, want a problem naming the file", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// A recursive CTE is a warning, as is a subquery step under the scrape
// interval: the rules still load. Literals and comments do not count.
func TestLintWarningsLoad(t *testing.T) {
	data := []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: warned
    pattern: lint
    severity: info
    title: t
    signals:
      tree:
        sql: WITH  Recursive n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n
      words:
        sql: "SELECT 'WITH RECURSIVE' AS s /* with recursive */ FROM rw_sources -- WITH RECURSIVE"
      fine:
        promql: max_over_time(up[1h:5s])
    condition: len(tree) > 0
    summary: s
    remediation: r
`)
	rules, warns, err := parseRules("w.yaml", data)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %d, err %v", len(rules), err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Error())
	}
	if len(got) != 2 || !strings.Contains(got[0]+got[1], "signals.tree.sql: WITH RECURSIVE") ||
		!strings.Contains(got[0]+got[1], "signals.fine.promql") || !strings.HasPrefix(got[0], "w.yaml:") {
		t.Errorf("warnings %q", got)
	}
}

// The lets of a file are run on empty rows while loading, to learn their
// types; all of them together run within one small budget, so a file of
// many costly lets loads in seconds.
func TestCostlyLetsLoadQuickly(t *testing.T) {
	var lets strings.Builder
	for i := range 200 {
		fmt.Fprintf(&lets, "      - l%d: 'first(map(1..900000, {#}))'\n", i)
	}
	data := "apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n  - id: lets\n    pattern: p\n    severity: info\n    title: t\n" +
		"    signals:\n      up: {promql: up}\n    let:\n" + lets.String() + "    condition: l0 != nil\n    summary: s\n    remediation: r\n"
	start := time.Now()
	if _, err := ParseRules("lets.yaml", []byte(data)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("loading took %v", d)
	}
	t.Logf("loaded in %v", time.Since(start))
}
