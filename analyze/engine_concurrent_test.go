package analyze

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// Evaluating the rules on several goroutines (EvaluateWith) gives the
// report of evaluating them one after another, byte for byte, on every
// sample: every built-in rule and known issue, loaded lazily so that their
// expressions are also compiled concurrently. Run with -race, it also
// checks what the rules share while evaluated (the stores, the Gathered
// fields, the deferred compilation, the budget hook).
func TestEvaluateConcurrentSameReport(t *testing.T) {
	dirs, _ := filepath.Glob("../samples/*")
	more, _ := filepath.Glob("../samples/variety/*")
	dirs = append(dirs, more...)
	load := func() []*Rule {
		var all []*Rule
		for _, set := range builtinSets {
			rs, probs, _ := loadFSCached(set.fsys, set.prefix, cacheLazy)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			all = append(all, rs...)
		}
		return all
	}
	report := func(dir string, workers int) string {
		t.Helper()
		defer func(f func() int) { evalWorkers = f }(evalWorkers)
		evalWorkers = func() int { return workers }
		rs := load()
		ctx := context.Background()
		ev, err := Gather(ctx, dir, rs, bundle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ev.Close()
		js, err := json.Marshal(Evaluate(ctx, ev, rs))
		if err != nil {
			t.Fatal(err)
		}
		return string(js)
	}
	// The budget hook sees every rule, from whichever goroutine.
	seen := map[string]int{}
	observeBudget = func(rule string, _ *budget) { seen[rule]++ }
	defer func() { observeBudget = nil }()
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || filepath.Base(dir) == "variety" || filepath.Base(dir) == "gen" {
			continue
		}
		n++
		want := report(dir, 1)
		if got := report(dir, 4); got != want {
			t.Errorf("%s: the report of 4 goroutines differs from the one of rules evaluated one after another", dir)
		}
	}
	if n < 10 {
		t.Fatalf("only %d samples found", n)
	}
	rules := len(load())
	if len(seen) != rules {
		t.Errorf("the budget hook saw %d rules, want %d", len(seen), rules)
	}
	for id, c := range seen {
		if c != 2*n {
			t.Errorf("the budget hook saw rule %s %d times, want %d", id, c, 2*n)
		}
	}
}

// A rule's PromQL signals are evaluated at once (evalSignals), and a rule
// whose signals fail says which as it would evaluating them in turn: the
// first failing one in the rule's order, whichever finished first.
func TestSignalsConcurrentFirstError(t *testing.T) {
	rules, err := ParseRules("sig.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-signals
    pattern: barrier-stall
    severity: info
    title: t
    signals:
      a_fine: {promql: 'up'}
      b_bad: {promql: 'label_replace(up, "dst", "$1", "job", "(")'}
      c_bad: {promql: 'label_replace(up, "dst", "$1", "job", "[")'}
      d_fine: {promql: 'sum(up)'}
    condition: len(a_fine) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeBundleDir(t, map[string]string{
		"metrics/rw-compute-0/1795983480000.prom": "# TYPE up gauge\nup{job=\"a\"} 1\n",
	})
	for _, workers := range []int{1, 2, 4} {
		func() {
			defer func(f func() int) { evalWorkers = f }(evalWorkers)
			evalWorkers = func() int { return workers }
			ev, err := Gather(context.Background(), dir, rules, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ev.Close()
			for range 20 {
				rep := Evaluate(context.Background(), ev, rules)
				if len(rep.Rules) != 1 || rep.Rules[0].Status != RuleError || !strings.HasPrefix(rep.Rules[0].Reason, "signal b_bad: ") {
					t.Fatalf("%d workers: %+v, want an error of signal b_bad", workers, rep.Rules)
				}
			}
		}()
	}
}
