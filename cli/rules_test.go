package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// costlyRules holds one rule of each costly kind that lint flags, at known
// lines: a subquery of a 1 ms step over 10 years (a problem: out of memory
// at once), a subquery step under the scrape interval and a recursive CTE
// (warnings), and a summary template that calls itself (a problem).
const costlyRules = `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: costly-subquery
    pattern: lint
    severity: info
    title: t
    signals:
      huge:
        promql: max_over_time(rate(stream_source_output_rows_counts[1m])[10y:1ms])
      fine:
        promql: max_over_time(up[1h:1s])
      grafana:
        promql: max_over_time(up[$__range:$__interval])
    condition: len(huge) > 0
    summary: s
    remediation: r
  - id: costly-sql
    pattern: lint
    severity: info
    title: t
    signals:
      tree:
        sql: |
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
          SELECT i FROM n
      quoted:
        sql: SELECT 'with recursive' AS s FROM rw_sinks -- WITH RECURSIVE in a comment
    condition: len(tree) > 0
    summary: s
    remediation: r
  - id: costly-template
    pattern: lint
    severity: info
    title: t
    signals:
      up: {promql: up}
    condition: len(up) > 0
    summary: '{{ define "x" }}{{ template "x" . }}{{ end }}{{ template "x" . }}'
    remediation: r
`

func writeRuleFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "costly.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRulesLintFlagsCostlyRules(t *testing.T) {
	p := writeRuleFile(t, costlyRules)
	res := run(t, "rules", "lint", p)
	if res.code != exitUsage {
		t.Fatalf("want exit %d:\n%s", exitUsage, res)
	}
	for _, want := range []string{
		p + `:10:17: rule "costly-subquery": signals.huge.promql: 1:15: subquery rate(stream_source_output_rows_counts[1m])[10y:1ms] would evaluate 315360000001 steps`,
		p + `:10:17: warning: rule "costly-subquery": signals.huge.promql: 1:15: subquery rate(stream_source_output_rows_counts[1m])[10y:1ms] steps by 1ms, under the scrape interval 15s`,
		p + `:12:17: warning: rule "costly-subquery": signals.fine.promql: 1:15: subquery up[1h:1s] steps by 1s, under the scrape interval 15s`,
		p + `:25:11: warning: rule "costly-sql": signals.tree.sql: WITH RECURSIVE`,
		p + `:39:14: rule "costly-template": summary: template "x" calls itself (x -> x): templates may not recurse`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("lint output lacks %q:\n%s", want, res)
		}
	}
	for _, unwanted := range []string{"signals.grafana", "signals.quoted"} {
		if strings.Contains(res.stdout, unwanted) {
			t.Errorf("lint flags %s:\n%s", unwanted, res)
		}
	}
	// The huge subquery also reads too many samples per series (an error).
	if n := strings.Count(res.stdout, "\n"); n != 6 {
		t.Errorf("%d lines, want the 6 findings:\n%s", n, res)
	}
}

// Warnings alone do not fail lint, and the rules still load.
func TestRulesLintWarningsOnly(t *testing.T) {
	onlyWarnings := strings.Replace(costlyRules, "[10y:1ms]", "[1h:15s]", 1)
	onlyWarnings = onlyWarnings[:strings.Index(onlyWarnings, "  - id: costly-template")]
	p := writeRuleFile(t, onlyWarnings)
	res := run(t, "rules", "lint", p)
	if res.code != 0 || !strings.Contains(res.stdout, "2 rules OK, 2 warning(s)") || strings.Count(res.stdout, "warning: ") != 2 {
		t.Errorf("want exit 0 with 2 warnings:\n%s", res)
	}
	// analyze loads them (no error about invalid rules).
	if res := run(t, "rules", "list", "--rules", p); res.code != 0 {
		t.Errorf("rules list --rules: %s", res)
	}
}

// A third-party rule file is not trusted either: what lint, list and test
// print from it (keys, ids, titles, messages) reaches the terminal escaped.
func TestRulesOutputEscapesRuleFileText(t *testing.T) {
	hostile := "apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n" +
		"  - id: esc-rule\n    pattern: \"p\\e]0;pwned\\a\"\n    severity: info\n    title: \"t\\e[2J\"\n" +
		"    signals:\n      up: {promql: up}\n    condition: len(up) > 0\n    summary: s\n    remediation: r\n" +
		"    \"bogus\\e[31mkey\": 1\n"
	p := writeRuleFile(t, hostile)
	for _, args := range [][]string{{"rules", "lint", p}, {"rules", "list", "--rules", p}} {
		res := run(t, args...)
		out := res.stdout + res.stderr
		if !strings.Contains(out, "bogus") && args[1] == "lint" {
			t.Errorf("%v: the unknown key is not reported:\n%s", args, out)
		}
		if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
			t.Errorf("%v: a raw control character reached the output:\n%q", args, out)
		}
	}
	// a valid rule in a file whose name holds an escape sequence: list
	// prints the file name escaped
	valid := strings.Replace(strings.Replace(hostile, "    \"bogus\\e[31mkey\": 1\n", "", 1), `"p\e]0;pwned\a"`, "p", 1)
	p = filepath.Join(t.TempDir(), "r\x1b]0;pwned\x07.yaml")
	if err := os.WriteFile(p, []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, "rules", "list", "--rules", p)
	if res.code != 0 || !strings.Contains(res.stdout, `\x1b]0;pwned`) || strings.ContainsRune(res.stdout, 0x1b) {
		t.Errorf("rules list: the file name is not shown escaped:\n%v", res)
	}
}

// rules lint and rules test write one JSON object for programs, with the
// same exit status as their text.
func TestRulesJSONOutput(t *testing.T) {
	p := writeRuleFile(t, costlyRules)
	res := run(t, "rules", "lint", "--format", "json", p)
	var lint struct {
		Rules, Errors, Warnings int
		Problems                []struct {
			File, Rule, Field, Message, Severity string
			Line, Column                         int
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &lint); err != nil {
		t.Fatalf("lint --format json: %v\n%v", err, res)
	}
	if res.code != exitUsage || lint.Errors == 0 || lint.Warnings == 0 || len(lint.Problems) != lint.Errors+lint.Warnings {
		t.Errorf("lint --format json: want exit 2 with errors and warnings counted; got %+v\n%v", lint, res)
	}
	for _, pr := range lint.Problems {
		if pr.File != p || pr.Line == 0 || pr.Rule == "" || (pr.Severity != "error" && pr.Severity != "warning") {
			t.Errorf("problem without its place or severity: %+v", pr)
		}
	}
	if res := run(t, "rules", "lint", "--format", "JSON"); res.code != 0 || !strings.Contains(res.stdout, `"errors": 0`) {
		t.Errorf("built-in rules, --format JSON: want exit 0 and no errors\n%v", res)
	}

	// A test file with one passing and one failing case.
	dir := t.TempDir()
	tests := "apiVersion: rwdiag/v1\nkind: RuleTest\ntests:\n" +
		"  - name: no pods, so the OOM rule cannot tell\n    rules: [compute-oom-crash-loop]\n    files:\n      logs/rw-meta-0/meta.log: \"2026-11-29T20:00:00Z INFO risingwave_meta: started\\n\"\n" +
		"    expect:\n      - {rule: compute-oom-crash-loop, subject: cluster, severity: critical, status: inconclusive}\n" +
		"  - name: wrongly expects an OOM\n    rules: [compute-oom-crash-loop]\n    files:\n      logs/rw-meta-0/meta.log: \"2026-11-29T20:00:00Z INFO risingwave_meta: started\\n\"\n" +
		"    expect:\n      - {rule: compute-oom-crash-loop, subject: rw-compute-0, severity: critical}\n"
	if err := os.WriteFile(filepath.Join(dir, "x_test.yaml"), []byte(tests), 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, "rules", "test", "--format", "json", dir)
	var rt struct {
		Passed, Failed int
		Cases          []struct {
			File, Name, Error string
			Pass              bool
			Expected, Got     []string
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &rt); err != nil {
		t.Fatalf("test --format json: %v\n%v", err, res)
	}
	if res.code != exitFailed || rt.Passed != 1 || rt.Failed != 1 || len(rt.Cases) != 2 {
		t.Fatalf("test --format json: want exit 1, 1 passed and 1 failed; got %+v\n%v", rt, res)
	}
	if c := rt.Cases[1]; c.Pass || len(c.Expected) != 1 || !strings.Contains(c.Expected[0], "rw-compute-0") || len(c.Got) != 1 || !strings.Contains(c.Got[0], "inconclusive") {
		t.Errorf("the failing case does not say what was expected and what came: %+v", c)
	}
	if res := run(t, "rules", "test", "--format", "yaml", dir); res.code != exitUsage {
		t.Errorf("--format yaml: want a usage error\n%v", res)
	}
}
