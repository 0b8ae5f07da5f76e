package analyze

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// fuzzBudget keeps each fuzzed rule's evaluation short: the budgets, not the
// fuzzer's patience, bound it.
var fuzzBudget = Budget{Time: 2 * time.Second, ExprSteps: 200_000, ExprBytes: 16 << 20, MaxValueBytes: 4 << 20,
	TemplateSteps: 100_000, SummaryBytes: 64 << 10}

// fuzzHang is how long one input may take before it counts as a hang.
const fuzzHang = 60 * time.Second

// fuzzSeeds are rule files beside the built-in ones: each evidence language,
// each budget attack.
var fuzzSeeds = []string{
	"apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n" + budgetRule("seed-quadratic", "", "len(filter(rows, {len(filter(rows, {true})) > 0})) > 0", "s"),
	"apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n" + budgetRule("seed-doubling", "reduce(1..40, {#acc + #acc}, \"x\")", "len(x) > 0", "{{ range .rows }}{{ range $.rows }}x{{ end }}{{ end }}"),
	`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: seed-languages
    pattern: seed
    severity: info
    title: t
    subject: {kind: source, field: source_id}
    signals:
      offsets:
        promql: max by (source_id) (max_over_time(source_latest_message_id[$__range:$__interval]))
      sources:
        sql: SELECT id AS source_id, name FROM rw_sources
      starts:
        log: {files: [log, previous-log], component: compute, regex: 'Starting (?P<what>\w+) node'}
      pods:
        kube: {resource: pods, path: status.containerStatuses, fields: {restarts: restartCount}}
      tree:
        awaittree: {rows: remaining}
    requires: offsets || sources
    let:
      - n: len(offsets) + len(sources)
    condition: n > 0 && any(offsets, .value > 0)
    values:
      top: maxOf(offsets, "value")
    summary: '{{ .subject }} at {{ humanize .values.top }}{{ with first .sources }} ({{ .name }}){{ end }}'
    remediation: r
`,
}

// FuzzRuleFile loads a rule file and evaluates its rules on a small bundle
// with metrics, SQL dumps, logs and pods.json: nothing in a rule file may
// panic (in loading, or in a rule: a rule's panic is its error, which
// would hide it, so it fails here) or run past its budget.
//
//	go test ./analyze/ -run '^$' -fuzz FuzzRuleFile -fuzztime 30s
func FuzzRuleFile(f *testing.F) {
	err := fs.WalkDir(rules.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(p) != "." || !isYAML(p) || strings.HasSuffix(p, "_test.yaml") {
			return err
		}
		data, err := fs.ReadFile(rules.FS, p)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := copyFS(rules.FS, "testdata/offset-replay", dir); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a crash, so that the fuzzer keeps the input: the
		// worker dies with every goroutine's stack.
		timer := time.AfterFunc(fuzzHang, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("loading and evaluating the rule file ran past %v:\n%s", fuzzHang, buf[:runtime.Stack(buf, true)]))
		})
		defer timer.Stop()
		rs, _ := ParseRules("fuzz.yaml", data)
		if len(rs) == 0 {
			return
		}
		ctx := context.Background()
		ev, err := Gather(ctx, dir, rs, bundle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ev.Close()
		start := time.Now()
		rep := EvaluateWith(ctx, ev, rs, fuzzBudget)
		for _, r := range rep.Rules {
			if strings.Contains(r.Reason, "panicked") {
				t.Fatalf("rule %s: %s", r.ID, r.Reason)
			}
		}
		// Each rule's budget is 2 s; far more means something ran outside it.
		if d := time.Since(start); d > time.Duration(len(rs))*fuzzBudget.Time+30*time.Second {
			t.Fatalf("%d rules took %v", len(rs), d)
		}
	})
}

// copyFS copies the files under root in fsys to dir.
func copyFS(fsys fs.FS, root, dir string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, root+"/")))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}
