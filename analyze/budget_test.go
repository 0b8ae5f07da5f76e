package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// podsBundle writes a hand-made bundle whose pods.json lists n compute pods.
func podsBundle(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"rw-budget-compute-%d","labels":{"app.kubernetes.io/component":"compute"}},`+
			`"status":{"containerStatuses":[{"name":"compute","restartCount":%d}]}}`, i, i%4)
	}
	b.WriteString("]}")
	dir := t.TempDir()
	p := filepath.Join(dir, "kubernetes", "pods.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// budgetRule is a rule over one row per pod (pod, restarts) with the given
// let, condition and summary; its subject is the cluster.
func budgetRule(id, let, condition, summary string) string {
	if let != "" {
		let = "    let:\n      - x: " + quoteYAML(let) + "\n"
	}
	return fmt.Sprintf(`  - id: %s
    pattern: budget
    severity: warning
    title: t
    signals:
      rows:
        kube: {resource: pods, path: 'status.containerStatuses', fields: {restarts: restartCount}}
%s    condition: %s
    summary: %s
    remediation: r
`, id, let, quoteYAML(condition), quoteYAML(summary))
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// evalWithin loads the rules, gathers dir and evaluates within budget,
// failing the test when that takes more than a generous minute.
func evalWithin(t *testing.T, dir string, budget Budget, ruleYAML ...string) *Report {
	t.Helper()
	rs, err := ParseRules("budget.yaml", []byte("apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"+strings.Join(ruleYAML, "")))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ev, err := Gather(ctx, dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	start := time.Now()
	rep := EvaluateWith(ctx, ev, rs, budget)
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("evaluation took %v", d)
	}
	return rep
}

func ruleResult(rep *Report, id string) RuleResult {
	for _, r := range rep.Rules {
		if r.ID == id {
			return r
		}
	}
	return RuleResult{}
}

// healthy fires on any bundle with pods: it shows the other rules still run.
var healthy = budgetRule("still-runs", "", "len(rows) > 0", "{{ len .rows }} rows")

// Each runaway rule stops with an error naming the budget it exceeded, and
// the rule beside it still fires. The budgets are lowered so that each
// attack takes well under a second to hit them; with the defaults the same
// code paths stop within minutes instead of never.
func TestRuleBudgets(t *testing.T) {
	dir := podsBundle(t, 3000)
	budget := Budget{Time: 30 * time.Second, ExprSteps: 1_000_000, ExprBytes: 64 << 20, MaxValueBytes: 8 << 20,
		TemplateSteps: 1_000_000, SummaryBytes: 64 << 10}
	for _, tc := range []struct {
		name, let, condition, summary string
		want                          string
	}{
		// The quadratic expression: 9 million steps over 3000 rows.
		{"quadratic filter", "", "len(filter(rows, {len(filter(rows, {true})) > 0})) > 0", "s", "1000000 expression steps"},
		{"quadratic any", "", "len(filter(rows, {any(rows, {.restarts < 0}) == false})) > 0", "s", "1000000 expression steps"},
		{"quadratic map in let", "sum(map(rows, {sum(map(rows, {.restarts}))}))", "x > 0", "s", "1000000 expression steps"},
		{"quadratic reduce", "", "reduce(rows, {#acc + reduce(rows, {#acc + 1}, 0)}, 0) > 0", "s", "1000000 expression steps"},
		// A string doubled 40 times: a terabyte if nothing stopped it.
		{"doubling string", "reduce(1..40, {#acc + #acc}, \"x\")", "len(x) > 0", "s", "over the limit of 8388608 for one value"},
		// Doubling without any closure: one + after another.
		{"doubling lets", "let a = repeat(\"x\", 100000); let b = a + a; let c = b + b; let d = c + c; let e = d + d; let f = e + e; let g = f + f; let h = g + g; h + h", "len(x) > 0", "s", "over the limit"},
		// A string grown one row at a time: quadratic copying (a list grown
		// so stops at expr's own memory budget).
		{"growing string", "reduce(rows, {#acc + \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}, \"\")", "len(x) > 0", "s", "bytes of values built"},
		{"range over huge in summary", "", "true", "{{ range .rows }}{{ range $.rows }}{{ end }}{{ end }}", "1000000 template steps"},
		{"range over int in summary", "", "true", "{{ range 1000000000 }}{{ end }}", "1000000 template steps"},
		{"long summary", "", "true", "{{ range .rows }}{{ range $.rows }}xxxxxxxxxxxx{{ end }}{{ end }}", "a summary longer than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := evalWithin(t, dir, budget, budgetRule("runaway", tc.let, tc.condition, tc.summary), healthy)
			r := ruleResult(rep, "runaway")
			if r.Status != RuleError || !strings.Contains(r.Reason, "exceeded its evaluation budget") || !strings.Contains(r.Reason, tc.want) {
				t.Errorf("runaway rule: %s %q, want an error naming %q", r.Status, r.Reason, tc.want)
			}
			if s := ruleResult(rep, "still-runs"); s.Status != RuleFired {
				t.Errorf("the other rule: %s %q, want fired", s.Status, s.Reason)
			}
		})
	}
}

// A rule running out of time stops at its time limit, even with no step
// limit at all.
func TestRuleTimeBudget(t *testing.T) {
	dir := podsBundle(t, 3000)
	budget := Budget{Time: 500 * time.Millisecond}
	start := time.Now()
	rep := evalWithin(t, dir, budget,
		budgetRule("runaway", "", "len(filter(rows, {len(filter(rows, {any(rows, {.restarts < 0}) == false})) > 0})) > 0", "s"), healthy)
	r := ruleResult(rep, "runaway")
	if r.Status != RuleError || !strings.Contains(r.Reason, "time limit of 500ms") {
		t.Errorf("runaway rule: %s %q, want its time limit", r.Status, r.Reason)
	}
	if s := ruleResult(rep, "still-runs"); s.Status != RuleFired {
		t.Errorf("the other rule: %s %q, want fired", s.Status, s.Reason)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}

// A rule that panics is that rule's error; the others still run.
func TestRulePanicIsItsError(t *testing.T) {
	dir := podsBundle(t, 3)
	rs, err := ParseRules("panic.yaml", []byte("apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"+
		budgetRule("panics", "", "true", "s")+healthy))
	if err != nil {
		t.Fatal(err)
	}
	rs[0].summary = nil // executing a missing template panics
	ev, err := Gather(context.Background(), dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	rep := Evaluate(context.Background(), ev, rs)
	if r := ruleResult(rep, "panics"); r.Status != RuleError || !strings.Contains(r.Reason, "panicked") {
		t.Errorf("panicking rule: %s %q", r.Status, r.Reason)
	}
	if s := ruleResult(rep, "still-runs"); s.Status != RuleFired {
		t.Errorf("the other rule: %s %q, want fired", s.Status, s.Reason)
	}
}

// A summary template that calls itself, directly or through another, is
// rejected when the rule is loaded (text/template would recurse 100,000
// deep, and with two calls per level never finish).
func TestRecursiveTemplateRejected(t *testing.T) {
	for _, summary := range []string{
		`{{ define "a" }}{{ template "a" . }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
		`{{ define "a" }}x{{ template "b" . }}{{ end }}{{ define "b" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
	} {
		_, err := ParseRules("rec.yaml", []byte("apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"+budgetRule("rec", "", "true", summary)))
		if err == nil || !strings.Contains(err.Error(), "templates may not recurse") || !strings.Contains(err.Error(), "rec.yaml:") {
			t.Errorf("%s: got %v, want a recursion problem with file and line", summary, err)
		}
	}
	// Calling a defined template that does not recurse is fine.
	if _, err := ParseRules("ok.yaml", []byte("apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"+
		budgetRule("ok", "", "true", `{{ define "a" }}x{{ end }}{{ template "a" . }}{{ template "a" . }}`))); err != nil {
		t.Error(err)
	}
}

// BenchmarkBuiltinRuleCost reports what the built-in rules spend of their
// budget on the sample bundles (the highest per rule, over every bundle):
// the defaults must stay far above it.
//
//	go test ./analyze/ -run '^$' -bench BuiltinRuleCost -benchtime 1x
//	RWDIAG_COST_BUNDLES=/path/a,/path/b go test ... (other bundles)
func BenchmarkBuiltinRuleCost(b *testing.B) {
	rs, err := LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		b.Fatal(err)
	}
	bundles, _ := filepath.Glob("../samples/*")
	more, _ := filepath.Glob("../samples/variety/*")
	bundles = append(bundles, more...)
	if env := os.Getenv("RWDIAG_COST_BUNDLES"); env != "" {
		bundles = strings.Split(env, ",")
	}
	var steps, bytes, tsteps int64
	var slowest time.Duration
	observeBudget = func(rule string, bu *budget) {
		steps, bytes, tsteps = max(steps, bu.steps), max(bytes, bu.bytes), max(tsteps, bu.tsteps)
		if !bu.deadline.IsZero() {
			slowest = max(slowest, bu.Time-time.Until(bu.deadline))
		}
	}
	defer func() { observeBudget = nil }()
	for range b.N {
		for _, dir := range bundles {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "kubernetes")); err != nil {
				continue
			}
			rep, err := Analyze(context.Background(), dir, rs, bundle.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range rep.Rules {
				if r.Status == RuleError {
					b.Errorf("%s: rule %s: %s", dir, r.ID, r.Reason)
				}
			}
		}
	}
	b.ReportMetric(float64(steps), "max-expr-steps")
	b.ReportMetric(float64(bytes), "max-expr-bytes")
	b.ReportMetric(float64(tsteps), "max-template-steps")
	b.ReportMetric(slowest.Seconds(), "max-rule-s")
}

// A SQL signal stopped by the SQL store's limits, or by the rule's time
// limit, is the rule's error naming the limit; the other rules still run.
// (rwdiag sql and the fallback queries are not involved: a fallback is tried
// only when the query fails for what the dump lacks.)
func TestSQLBudgetIsRuleError(t *testing.T) {
	dir := replayBundle(t, nil)
	sqlRule := func(id, q string) string {
		return fmt.Sprintf(`  - id: %s
    pattern: budget
    severity: warning
    title: t
    signals:
      n:
        sql: %s
        sql_fallback: ['SELECT 1 AS i FROM rw_sources']
    condition: len(n) > 0
    summary: s
    remediation: r
`, id, quoteYAML(q))
	}
	budget := DefaultBudget
	budget.Time = 2 * time.Second
	start := time.Now()
	rep := evalWithin(t, dir, budget,
		sqlRule("endless-count", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) AS c FROM n"),
		sqlRule("endless-rows", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"),
		sqlRule("huge-value", "SELECT printf('%.*c', 200000000, 'x') AS s FROM rw_sources"),
		budgetRule("still-runs", "", "true", "s"))
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("took %v", d)
	}
	for _, id := range []string{"endless-count", "endless-rows", "huge-value"} {
		t.Logf("%s: %s", id, ruleResult(rep, id).Reason)
	}
	if r := ruleResult(rep, "endless-count"); r.Status != RuleError || !strings.Contains(r.Reason, "time limit of 2s") {
		t.Errorf("endless-count: %s %q, want its time limit", r.Status, r.Reason)
	}
	if r := ruleResult(rep, "endless-rows"); r.Status != RuleError || !(strings.Contains(r.Reason, "limit") || strings.Contains(r.Reason, "rows")) {
		t.Errorf("endless-rows: %s %q, want a row or time limit", r.Status, r.Reason)
	}
	if r := ruleResult(rep, "huge-value"); r.Status != RuleError || !strings.Contains(r.Reason, "MaxValueBytes") {
		t.Errorf("huge-value: %s %q, want the SQL store's value limit", r.Status, r.Reason)
	}
	if s := ruleResult(rep, "still-runs"); s.Status == RuleError {
		t.Errorf("the other rule: %s %q", s.Status, s.Reason)
	}
}
