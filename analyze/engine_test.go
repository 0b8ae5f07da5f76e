package analyze

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

func loadTestRules(t *testing.T, paths ...string) []*Rule {
	t.Helper()
	rules, err := LoadPaths(paths)
	if err != nil {
		t.Fatalf("load %v: %v", paths, err)
	}
	return rules
}

// The rule tests in testdata/languages cover each evidence language with a
// rule that fires and one that does not: PromQL rate() over several scrape
// files, a SQL join of two dumps, a gjson path over pods.json, and one regular
// expression over a log with and without kubectl's prefix and in JSON.
func TestEvidenceLanguages(t *testing.T) {
	rules := loadTestRules(t, "testdata/languages")
	cases, err := LoadTestPaths([]string{"testdata/languages"})
	if err != nil {
		t.Fatal(err)
	}
	results := RunTests(context.Background(), cases, rules, nil)
	if len(results) < 10 {
		t.Fatalf("ran %d cases, want the whole file", len(results))
	}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("FAIL %s", r)
		}
	}
}

// A failing expectation is reported with the case, expected and got.
func TestRuleTestFailureIsReported(t *testing.T) {
	rules := loadTestRules(t, "testdata/languages")
	c := &TestCase{Name: "wrong expectation", file: "inline", Rules: []string{"test-kube-oomkilled"},
		Files: map[string]string{"kubernetes/pods.json": `{"kind":"List","items":[{"metadata":{"name":"p"},
			"status":{"containerStatuses":[{"name":"compute","lastState":{"terminated":{"reason":"OOMKilled"}}}]}}]}`},
		Expect: []Expectation{{Rule: "test-kube-oomkilled", Subject: "someone-else"}}}
	res := RunTests(context.Background(), []*TestCase{c}, rules, nil)
	if len(res) != 1 || res[0].Pass {
		t.Fatalf("case passed, want a failure: %+v", res)
	}
	out := res[0].String()
	for _, want := range []string{"wrong expectation", "expected:", "someone-else", "got:", "test-kube-oomkilled p"} {
		if !strings.Contains(out, want) {
			t.Errorf("failure report lacks %q:\n%s", want, out)
		}
	}
}

// A rule that fails to evaluate fails its case, even one that expects no
// finding: an error is not a silent pass.
func TestRuleErrorFailsCase(t *testing.T) {
	rules, err := ParseRules("err.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-eval-error
    pattern: sink-blockage
    severity: info
    title: t
    signals:
      errors: {log: {regex: 'Sink error'}}
    condition: len(errors) > 0 && int(first(errors).message) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	c := &TestCase{Name: "expects nothing", file: "inline", Expect: []Expectation{},
		Files: map[string]string{"logs/rw-compute-0/compute.log": "2026-11-30T10:00:00Z ERROR x: Sink error: not a number\n"}}
	res := RunTests(context.Background(), []*TestCase{c}, rules, nil)
	if len(res) != 1 || res[0].Pass {
		t.Fatalf("case passed, want a failure for the rule's evaluation error: %+v", res)
	}
	if out := res[0].String(); !strings.Contains(out, "test-eval-error") {
		t.Errorf("failure report does not name the rule that failed:\n%s", out)
	}
}

func writeBundleDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A rule whose metrics are absent is inconclusive, names what is missing and
// what to collect, and quotes the collector's error when the manifest has one.
func TestInconclusiveWhenMetricsMissing(t *testing.T) {
	rules := loadTestRules(t, "testdata/languages")
	var promRule []*Rule
	for _, r := range rules {
		if r.ID == "test-promql-flat-progress" {
			promRule = append(promRule, r)
		}
	}
	manifest := `{"format_version": 1, "tool": {"name": "rwdiag", "version": "test"},
		"collected_at": "2026-11-29T20:43:00Z", "namespace": "rw", "cluster": "prod", "complete": true,
		"files": [], "errors": [{"step": "metrics", "target": "rw-compute-0", "error": "pods \"rw-compute-0\" is forbidden: cannot get resource \"pods/proxy\""}],
		"redaction": {"enabled": true, "total": 0}}`
	dir := writeBundleDir(t, map[string]string{"manifest.json": manifest,
		"kubernetes/pods.json": `{"kind":"List","items":[]}`})
	rep, err := Analyze(context.Background(), dir, promRule, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings = %+v, want one inconclusive", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Status != StatusInconclusive || f.Subject != "cluster" {
		t.Errorf("finding = %s %s, want inconclusive cluster", f.Status, f.Subject)
	}
	for _, want := range []string{"no metrics", "forbidden", "collect", "metrics/<pod>"} {
		if !strings.Contains(f.Summary, want) {
			t.Errorf("summary %q lacks %q", f.Summary, want)
		}
	}
	if rep.Rules[0].Status != RuleInconclusive {
		t.Errorf("rule status = %s, want inconclusive", rep.Rules[0].Status)
	}
	if rep.ExceedsFailOn(SeverityInfo) {
		t.Error("an inconclusive finding must not fail the run")
	}
}

// oomBundle starts a bundle at dest, as the collector writes it, whose
// pods.json shows rw-compute-0 OOM-killed; the caller adds to it and
// closes it.
func oomBundle(t *testing.T, dest, root string) *bundle.Writer {
	t.Helper()
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	pods := `{"kind":"List","items":[{"metadata":{"name":"rw-compute-0","labels":{"risingwave/component":"compute"}},
		"status":{"containerStatuses":[{"name":"compute","restartCount":4,"lastState":{"terminated":{"reason":"OOMKilled","exitCode":137}}}]}}]}`
	if err := w.WriteFile("kubernetes/pods.json", "kubectl get pods -o json", []byte(pods)); err != nil {
		t.Fatal(err)
	}
	return w
}

// A bundle cut short still yields the findings its readable part supports,
// and the report names the damage.
func TestDamagedBundleStillReports(t *testing.T) {
	rules := loadTestRules(t, "testdata/languages")
	dest := filepath.Join(t.TempDir(), "b.tar.zst")
	w := oomBundle(t, dest, "rwdiag-prod-20261129T204300Z")
	noise := make([]byte, 4<<20) // incompressible, so a cut lands inside it
	rand.Read(noise)
	if err := w.WriteFile("logs/rw-compute-0/compute.log", "kubectl logs", noise); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(dest, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(context.Background(), dest, rules, bundle.Options{})
	if err != nil {
		t.Fatalf("Analyze on a damaged bundle = %v, want a report", err)
	}
	var fired []string
	for _, f := range rep.Findings {
		if f.Status == StatusFiring && strings.HasPrefix(f.Rule, "test-kube-") {
			fired = append(fired, f.Rule+" "+f.Subject)
		}
	}
	if strings.Join(fired, ",") != "test-kube-oomkilled rw-compute-0" {
		t.Errorf("firing findings = %v, want the OOM from pods.json", fired)
	}
	damage := strings.Join(rep.Bundle.Problems, "\n")
	if !strings.Contains(damage, "damaged") || !strings.Contains(damage, "logs/rw-compute-0/compute.log") {
		t.Errorf("problems = %q, want the damage naming the entry", damage)
	}
}

// Bytes after a bundle's compressed stream are named among the problems;
// every entry before them is read, and the findings are those of the clean
// bundle. Zero padding after it is no problem.
func TestTrailingBytesNamedFindingsKept(t *testing.T) {
	rules := loadTestRules(t, "testdata/languages")
	dest := filepath.Join(t.TempDir(), "b.tar.zst")
	w := oomBundle(t, dest, "rwdiag-prod-20261202T010000Z")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	clean, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	firing := func(rep *Report) string {
		var fired []string
		for _, f := range rep.Findings {
			if f.Status == StatusFiring {
				fired = append(fired, f.Rule+" "+f.Subject)
			}
		}
		return strings.Join(fired, ",")
	}
	want := ""
	for _, tc := range []struct {
		name, tail string
		problem    string
	}{
		{"clean", "", ""},
		{"zero padding", "\x00\x00\x00\x00\x00\x00\x00\x00", ""},
		{"junk", "PK\x03\x04 a zip glued on", fmt.Sprintf("b.tar.zst: after the last entry: the bytes from byte %d of the file on are not zstd data", len(clean))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(dest, append(append([]byte(nil), clean...), tc.tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Analyze(context.Background(), dest, rules, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := firing(rep); !strings.Contains(got, "test-kube-oomkilled rw-compute-0") {
				t.Errorf("firing = %q, want the OOM from pods.json", got)
			} else if want == "" {
				want = got
			} else if got != want {
				t.Errorf("firing = %q, want the clean bundle's %q", got, want)
			}
			if rep.Bundle.Stopped != "" {
				t.Errorf("reading stopped: %s", rep.Bundle.Stopped)
			}
			problems := strings.Join(rep.Bundle.Problems, "\n")
			if tc.problem == "" && strings.Contains(problems, "after the last entry") || tc.problem != "" && !strings.Contains(problems, tc.problem) {
				t.Errorf("problems = %q, want %q", problems, tc.problem)
			}
		})
	}
}

// An unreadable bundle is an error, not an empty report.
func TestUnreadableBundleIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "not-a-bundle.zip")
	if err := os.WriteFile(p, []byte("PK\x03\x04 this is a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Analyze(context.Background(), p, nil, bundle.Options{})
	if !errors.Is(err, bundle.ErrUnknownFormat) || !strings.Contains(err.Error(), p) {
		t.Errorf("Analyze = %v, want ErrUnknownFormat naming the file", err)
	}
}

// Rules outside their version range are skipped and say why.
func TestVersionRangeSkips(t *testing.T) {
	rules, err := ParseRules("v.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: old-only
    pattern: p
    severity: info
    title: t
    versions: "< 2.0"
    signals: {x: {kube: {resource: pods, path: metadata.name}}}
    condition: len(x) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeBundleDir(t, map[string]string{
		"kubernetes/pods.json":    `{"kind":"List","items":[{"metadata":{"name":"a"}}]}`,
		"sql/rw_worker_nodes.csv": "id,host,rw_version\n1,a,v2.1.0\n",
	})
	rep, err := Analyze(context.Background(), dir, rules, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bundle.RisingWaveVersion != "2.1.0" {
		t.Errorf("version = %q, want 2.1.0 from rw_worker_nodes", rep.Bundle.RisingWaveVersion)
	}
	if len(rep.Findings) != 0 || rep.Rules[0].Status != RuleSkipped || !strings.Contains(rep.Rules[0].Reason, "2.1.0") {
		t.Errorf("report = %+v %+v, want the rule skipped for 2.1.0", rep.Findings, rep.Rules)
	}
}

// Metric evidence names its signal and metric when the series lost its
// name to an aggregation; a named series stays as it is.
func TestMetricEvidenceNamesItsSource(t *testing.T) {
	v := 1.624e10
	for _, tc := range []struct {
		signal  string
		metrics []string
		series  string
		want    string
	}{
		{"memory", []string{"process_resident_memory_bytes"}, `{pod="rw-compute-1"}`, `memory (process_resident_memory_bytes) {pod="rw-compute-1"} = 1.624e+10`},
		{"latency", []string{"meta_barrier_duration_seconds_bucket"}, "", `latency (meta_barrier_duration_seconds_bucket) = 1.624e+10`},
		{"latency", nil, "{}", `latency = 1.624e+10`},
		{"rss", []string{"process_resident_memory_bytes"}, `process_resident_memory_bytes{pod="rw-compute-1"}`, `process_resident_memory_bytes{pod="rw-compute-1"} = 1.624e+10`},
	} {
		e := rowEvidence(tc.signal, tc.metrics, Row{"series": tc.series, "value": v})
		if e.Text != tc.want {
			t.Errorf("%s %q: text %q, want %q", tc.signal, tc.series, e.Text, tc.want)
		}
	}
}
