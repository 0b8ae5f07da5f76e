package kube

// End to end: the fixture cluster (package cluster: samples/oom-crash-loop
// created in the real API server, logs from the kubelet stand-in, metrics
// and the diagnose report through the pod proxy, rw_catalog in PostgreSQL)
// collected by `rwdiag collect` as the ServiceAccount docs/rbac.yaml binds,
// then `rwdiag analyze --format json` on the bundle: the findings are the
// sample's, as samples/expectations_test.yaml lists them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/test/kube/cluster"
)

// fixtureCluster starts the fixture in h, closed when t ends.
func fixtureCluster(t *testing.T, h *Harness, o cluster.Options) *cluster.Cluster {
	t.Helper()
	o.Logf = t.Logf
	c, err := cluster.Start(context.Background(), h.Admin, o)
	if errors.Is(err, cluster.ErrNoPostgres) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// reportFinding is the part of a finding of `rwdiag analyze --format json`
// the tests read (docs/report-schema.md).
type reportFinding struct {
	Rule     string `json:"rule"`
	Subject  string `json:"subject"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
}

// analyzeBundle runs `rwdiag analyze --format json` on a bundle.
func analyzeBundle(t *testing.T, bundle string) []reportFinding {
	t.Helper()
	cmd := exec.Command(Rwdiag(), "analyze", "--format", "json", bundle)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 2 || err != nil && !errors.As(err, &ee) {
		t.Fatalf("rwdiag analyze %s: %v\n%s", bundle, err, stderr.String())
	}
	var rep struct {
		Findings []reportFinding `json:"findings"`
		Bundle   struct {
			Problems []string `json:"problems"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("rwdiag analyze --format json: %v\n%s", err, out)
	}
	for _, p := range rep.Bundle.Problems {
		t.Logf("analyze: bundle problem: %s", p)
	}
	return rep.Findings
}

// assertFindings checks that the report has each expected finding (firing
// unless the expectation says another status) and no other firing one.
func assertFindings(t *testing.T, got []reportFinding, want []cluster.Finding) {
	t.Helper()
	if want == nil {
		t.Fatal("the sample has no case in samples/expectations_test.yaml")
	}
	matched := make([]bool, len(got))
	for _, w := range want {
		status := w.Status
		if status == "" {
			status = "firing"
		}
		i := slices.IndexFunc(got, func(f reportFinding) bool {
			return f.Rule == w.Rule && f.Subject == w.Subject && f.Status == status && (w.Severity == "" || f.Severity == w.Severity)
		})
		if i < 0 {
			t.Errorf("finding %s on %s (%s %s) missing from the report of the collected bundle", w.Rule, w.Subject, status, w.Severity)
			continue
		}
		matched[i] = true
	}
	for i, f := range got {
		if !matched[i] && f.Status == "firing" {
			t.Errorf("finding %s on %s (%s) fired on the collected bundle, and not on the sample", f.Rule, f.Subject, f.Severity)
		}
	}
	if t.Failed() {
		t.Logf("findings: %+v", got)
	}
}

// requestCounts sums up what the stand-ins served for one collect.
func requestCounts(c *cluster.Cluster) string {
	kinds := map[string]int{}
	for _, r := range c.Kubelet().Requests() {
		k := "log"
		if r.Previous {
			k = "previous log"
		}
		kinds[fmt.Sprintf("kubelet %s %d", k, r.Status)]++
	}
	for _, r := range c.ProxyRequests() {
		kinds[fmt.Sprintf("proxy %s %s %d", r.PortName, r.Path, r.Status)]++
	}
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d; ", k, kinds[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

func TestCollectThenAnalyzeRealAPIServer(t *testing.T) {
	h := Shared(t)
	const ns = "k12b-e2e"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns})
	exp := c.Expected()
	col := h.Collector(t, ns, nil)
	run := col.Collect(t, append([]string{"--sql-dsn", c.SQLDSN()}, QuickMetrics...)...)
	if run.ExitCode != 0 {
		t.Fatalf("collect: exit %d\n%s", run.ExitCode, run.Stderr)
	}
	t.Logf("fixture created in %v (objects %v, PostgreSQL %v); collect took %v; %s",
		c.Timings.Total.Round(time.Millisecond), c.Timings.Objects.Round(time.Millisecond),
		c.Timings.Postgres.Round(time.Millisecond), run.Duration.Round(time.Millisecond), requestCounts(c))
	for _, r := range c.Repairs {
		t.Logf("fixture repair: %s", r)
	}
	for _, e := range run.Manifest.Errors {
		t.Logf("collect recorded: step %s, target %s: %s", e.Step, e.Target, e.Error)
	}
	if reqs := c.Kubelet().Requests(); len(reqs) > 0 {
		t.Logf("the API server asked the kubelet: /containerLogs/%s/%s/%s?%s (client certificate CN %q)",
			reqs[0].Namespace, reqs[0].Pod, reqs[0].Container, reqs[0].Query, reqs[0].ClientCN)
	}
	if problems := CheckReadOnly(h.Audit(t), col.User, nil); len(problems) > 0 {
		t.Errorf("audit log:\n%s", strings.Join(problems, "\n"))
	}
	// No planted secret in any byte of the bundle, archive or extracted.
	archive, err := os.ReadFile(run.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	filepath.WalkDir(run.Dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[path], _ = os.ReadFile(path)
		}
		return nil
	})
	for _, secret := range c.PlantedSecrets() {
		for path, b := range files {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("planted secret %q in %s", secret, path)
			}
		}
		if bytes.Contains(archive, []byte(secret)) {
			t.Errorf("planted secret %q in the archive's bytes", secret)
		}
	}

	// The bundle holds what the stand-ins served.
	for path, want := range exp.Logs {
		got, err := os.ReadFile(filepath.Join(run.Dir, path))
		if err != nil {
			t.Errorf("log %s: %v", path, err)
			continue
		}
		if !bytes.Equal(got, want) && !fileRedacted(&run.Manifest, path) {
			t.Errorf("log %s: %d bytes, the kubelet served %d", path, len(got), len(want))
		}
	}
	for path, want := range exp.Diagnose {
		if got, err := os.ReadFile(filepath.Join(run.Dir, path)); err != nil || !bytes.Equal(got, want) && !fileRedacted(&run.Manifest, path) {
			t.Errorf("diagnose %s: %d bytes (%v), the dashboard served %d", path, len(got), err, len(want))
		}
	}
	for _, pod := range exp.Scraped {
		scrapes, _ := filepath.Glob(filepath.Join(run.Dir, "metrics", pod, "*.prom"))
		if len(scrapes) != 2 {
			t.Errorf("metrics of %s: %d scrapes, want 2 (--metrics-samples 2)", pod, len(scrapes))
			continue
		}
		// Each scrape is the sample's next snapshot.
		a, _ := os.ReadFile(scrapes[0])
		b, _ := os.ReadFile(scrapes[1])
		if exp.Snapshots[pod] >= 2 && bytes.Equal(a, b) {
			t.Errorf("metrics of %s: both scrapes hold the same snapshot", pod)
		}
	}
	for _, path := range exp.SQLTables {
		got, err := os.ReadFile(filepath.Join(run.Dir, path))
		if err != nil {
			t.Errorf("sql %s: %v", path, err)
			continue
		}
		if !bytes.Equal(got, exp.SQLFiles[path]) && !fileRedacted(&run.Manifest, path) {
			t.Errorf("sql %s differs from the sample's dump", path)
		}
	}

	// The planted secrets were in the collector's path: the configmap and
	// the env var that held them are in the bundle, their values replaced.
	cms, _ := os.ReadFile(filepath.Join(run.Dir, "kubernetes", "configmaps.json"))
	pods, _ := os.ReadFile(filepath.Join(run.Dir, "kubernetes", "pods.json"))
	for _, want := range [][2]string{{"configmaps.json", `"RW_POSTGRES_PASSWORD"`}, {"configmaps.json", "sql_endpoint"},
		{"pods.json", `"RW_S3_SECRET_KEY"`}} {
		b := cms
		if want[0] == "pods.json" {
			b = pods
		}
		if !bytes.Contains(b, []byte(want[1])) {
			t.Errorf("%s has no %s: the planted secret was not where the collector reads", want[0], want[1])
		}
	}

	// The events about a pod point at its new uid, so kubectl's describer
	// (a field selector on involvedObject.uid) shows them.
	desc, err := os.ReadFile(filepath.Join(run.Dir, "kubernetes", "describe", "pods", "rw-prod-compute-0.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{"BackOff", "Unhealthy", "Started"} {
		if !regexp.MustCompile(`(?m)^\s+\S+\s+` + reason + `\s`).Match(desc) {
			t.Errorf("describe of rw-prod-compute-0 shows no %s event:\n%s", reason, desc)
		}
	}

	got := analyzeBundle(t, run.Bundle)
	assertFindings(t, got, exp.Findings)
}

// fileRedacted reports whether the collector redacted something in path
// (its bytes then differ from what was served, rightly).
func fileRedacted(m *Manifest, path string) bool {
	for _, f := range m.Files {
		if f.Path == path {
			return f.Redacted > 0
		}
	}
	return false
}
