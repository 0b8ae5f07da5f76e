package kube

// Fault cases on the fixture cluster (package cluster) against the real API
// server: a pod deleted between the list and its logs, a namespace of 200
// pods (pages, the log budget), and a helm install without the RisingWave
// CRD.

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/test/kube/cluster"
)

// TestPodDeletedBetweenListAndLogs deletes a pod when the kubelet gets the
// first log request for another pod: the collector listed it, and its logs
// are then gone. The kubelet holds the victim's own log requests a moment,
// so the deletion comes first whichever request the API server sends first.
func TestPodDeletedBetweenListAndLogs(t *testing.T) {
	h := Shared(t)
	const ns = "k12b-gone"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns, NoSQL: true})
	const victim = "rw-prod-frontend-7d9c6b5f4-x2lqp"
	c.SlowLogs(victim, 2*time.Second)
	var once sync.Once
	deleted := make(chan error, 1)
	c.OnLogRequest(func(r cluster.LogRequest) {
		if r.Pod == victim {
			return
		}
		once.Do(func() { deleted <- c.DeletePod(context.Background(), victim) })
	})
	col := h.Collector(t, ns, nil)
	run := col.Collect(t, "--skip", "metrics,diagnose,sql")
	select {
	case err := <-deleted:
		if err != nil {
			t.Fatalf("delete %s: %v", victim, err)
		}
	default:
		t.Fatal("the kubelet stand-in got no log request: the pod was never deleted")
	}
	if run.ExitCode != 0 {
		t.Fatalf("collect: exit %d (a failed step is not fatal)\n%s", run.ExitCode, run.Stderr)
	}
	if !run.Manifest.Complete {
		t.Errorf("bundle marked incomplete (%s): a deleted pod is a failed step, not an interrupted run", run.Manifest.IncompleteReason)
	}
	var logErr string
	for _, e := range run.Manifest.Errors {
		if e.Step == "logs" && strings.HasPrefix(e.Target, victim+"/") {
			logErr = e.Error
		}
	}
	if logErr == "" {
		t.Errorf("no logs error recorded for %s; errors: %+v", victim, run.Manifest.Errors)
	} else {
		t.Logf("the collector recorded for the deleted pod's log: %s", logErr)
		// The API server turns the kubelet's 404 ("pod ... does not exist")
		// into its own generic NotFound, so the collector's explanation is
		// what tells the reader the pod went away.
		if !strings.Contains(logErr, "deleted after it was listed") {
			t.Errorf("the error does not say the pod is gone: %s", logErr)
		}
	}
	if run.Manifest.HasFile("logs/" + victim + "/frontend.log") {
		t.Errorf("a log of the deleted pod is in the bundle")
	}
	// Every other container's log is there.
	for path := range c.Expected().Logs {
		if !strings.Contains(path, victim) && !run.Manifest.HasFile(path) {
			t.Errorf("%s missing: one deleted pod stopped other logs", path)
		}
	}
	if code, out := run.Verify(t); code != 0 {
		t.Errorf("bundle verify: exit %d\n%s", code, out)
	}
	// The pod was listed, so it is in pods.json, as the server had it then.
	if !slices.ContainsFunc(run.ReadJSONList(t, "pods"), func(p map[string]any) bool {
		return p["metadata"].(map[string]any)["name"] == victim
	}) {
		t.Errorf("the deleted pod is not in pods.json: it was deleted before the list")
	}
	if problems := CheckReadOnly(h.Audit(t), col.User, func(e AuditEvent) bool {
		return e.Code() == 404 && e.ObjectRef != nil && e.ObjectRef.Name == victim
	}); len(problems) > 0 {
		t.Errorf("audit log:\n%s", strings.Join(problems, "\n"))
	}
	var victimReqs []string
	for _, r := range c.Kubelet().Requests() {
		if r.Pod == victim {
			victimReqs = append(victimReqs, r.Container+" "+strconv.Itoa(r.Status))
		}
	}
	// Either the request reached the kubelet after the deletion (404 "pod
	// ... does not exist" there), or the API server refused it itself
	// (no request here).
	t.Logf("kubelet requests for the deleted pod (container, status): %v", victimReqs)
}

// TestPodDeletedWhileItsLogIsFetched deletes a pod while the kubelet holds
// its log request (the API server found the pod and asked its node): the
// kubelet answers 404 "pod ... does not exist", and the API server passes
// on a NotFound of its own wording, which the collector must still read as
// a pod gone since it was listed.
func TestPodDeletedWhileItsLogIsFetched(t *testing.T) {
	h := Shared(t)
	const ns = "k12b-gone-late"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns, NoSQL: true})
	const victim = "rw-prod-compactor-5b8d9c7f6-m4tzn"
	var once sync.Once
	deleted := make(chan error, 1)
	c.OnLogRequest(func(r cluster.LogRequest) {
		if r.Pod == victim {
			once.Do(func() { deleted <- c.DeletePod(context.Background(), victim) })
		}
	})
	col := h.Collector(t, ns, nil)
	run := col.Collect(t, "--skip", "metrics,diagnose,sql,describe")
	if err := <-deleted; err != nil {
		t.Fatalf("delete %s: %v", victim, err)
	}
	if run.ExitCode != 0 || !run.Manifest.Complete {
		t.Fatalf("collect: exit %d, complete %v\n%s", run.ExitCode, run.Manifest.Complete, run.Stderr)
	}
	var kubelet []int
	for _, r := range c.Kubelet().Requests() {
		if r.Pod == victim {
			kubelet = append(kubelet, r.Status)
		}
	}
	if !slices.Equal(kubelet, []int{404}) {
		t.Errorf("the kubelet answered the deleted pod's log requests %v, want one 404", kubelet)
	}
	var logErr string
	for _, e := range run.Manifest.Errors {
		if e.Step == "logs" && strings.HasPrefix(e.Target, victim+"/") {
			logErr = e.Error
		}
	}
	t.Logf("the collector recorded: %q", logErr)
	if !strings.Contains(logErr, "deleted after it was listed") {
		t.Errorf("the log error does not say the pod went away: %q", logErr)
	}
	if run.Manifest.HasFile("logs/" + victim + "/compactor.log") {
		t.Error("a log of the deleted pod is in the bundle")
	}
	if problems := CheckReadOnly(h.Audit(t), col.User, func(e AuditEvent) bool {
		return e.Code() == 404 && e.ObjectRef != nil && e.ObjectRef.Name == victim
	}); len(problems) > 0 {
		t.Errorf("audit log:\n%s", strings.Join(problems, "\n"))
	}
}

// TestTwoHundredPods collects a namespace of 200 RisingWave pods with a log
// budget of 1 MiB: every pod is listed (in pages the collector asks for, as
// the audit log shows), the budget goes to the OOM-killed pod first and is
// never exceeded, and the logs it cannot hold are recorded with why.
func TestTwoHundredPods(t *testing.T) {
	h := Shared(t)
	const ns = "k12b-many"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns, NoSQL: true, FillerPods: 195, FillerLogBytes: 64 << 10})
	exp := c.Expected()
	if n := len(exp.Objects["pods"]); n != 200 {
		t.Fatalf("fixture has %d pods, want 200", n)
	}
	t.Logf("200-pod fixture created in %v", c.Timings.Total.Round(time.Millisecond))
	col := h.Collector(t, ns, nil)
	const budget = 1 << 20
	run := col.Collect(t, "--log-budget", "1MiB", "--skip", "metrics,diagnose,sql,describe")
	if run.ExitCode != 0 {
		t.Fatalf("collect: exit %d\n%s", run.ExitCode, run.Stderr)
	}
	t.Logf("collect of 200 pods took %v; %s", run.Duration.Round(time.Millisecond), requestCounts(c))

	pods := run.ReadJSONList(t, "pods")
	var names []string
	for _, p := range pods {
		names = append(names, p["metadata"].(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if !slices.Equal(names, exp.Objects["pods"]) {
		t.Errorf("pods.json has %d pods, the server %d", len(names), len(exp.Objects["pods"]))
	}

	// Pages: every list of pods asked for a limit; a continue token, if
	// the server gave one, was followed.
	var lists []string
	for _, e := range ByUser(h.Audit(t), col.User) {
		if e.Verb != "list" || e.Resource() != "pods" {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		lists = append(lists, q.Get("labelSelector")+" limit="+q.Get("limit")+" continue="+strconv.FormatBool(q.Get("continue") != ""))
		if q.Get("limit") == "" {
			t.Errorf("pods listed without a limit: %s", e.RequestURI)
		}
	}
	t.Logf("pod lists (selector, limit, continue): %v", lists)
	if len(lists) == 0 {
		t.Error("no list of pods by the collector in the audit log")
	}

	// The budget: what was kept is within it, the OOM-killed pod's logs
	// came first, and the rest says why it is missing.
	var kept int64
	for _, f := range run.Manifest.Files {
		if strings.HasPrefix(f.Path, "logs/") {
			kept += f.Size
		}
	}
	if kept > budget {
		t.Errorf("logs in the bundle: %d bytes, over --log-budget %d", kept, budget)
	}
	for _, p := range []string{"logs/rw-prod-compute-0/compute.previous.log", "logs/rw-prod-compute-0/compute.log"} {
		if !run.Manifest.HasFile(p) {
			t.Errorf("%s missing: the budget goes to the OOM-killed pod first", p)
		}
	}
	spent := 0
	for _, e := range run.Manifest.Errors {
		if e.Step == "logs" && strings.Contains(e.Error, "log budget") {
			spent++
		}
	}
	logs, _ := filepath.Glob(filepath.Join(run.Dir, "logs", "*", "*.log"))
	if spent == 0 || len(logs)+spent < len(exp.Logs) {
		t.Errorf("%d logs kept and %d recorded as over the budget, of %d", len(logs), spent, len(exp.Logs))
	}
	fetched := len(c.Kubelet().Requests())
	t.Logf("log budget 1MiB: %d bytes kept in %d files, %d logs recorded as over budget, %d fetched from the kubelet, of %d",
		kept, len(logs), spent, fetched, len(exp.Logs))
}

// TestHelmInstallWithoutCRD collects a helm install (samples/compound-
// incident, the chart's labels) from an API server that never had the
// RisingWave CRD: the collection is complete, the custom resource step is
// noted as absent and recorded as no error, and analyze finds the sample's
// findings.
func TestHelmInstallWithoutCRD(t *testing.T) {
	h := Start(t, Options{}) // a private API server: the shared one may have the CRD
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	const ns = "k12b-helm"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns, WithoutCRD: true,
		Sample: filepath.Join(root, "samples", "compound-incident")})
	col := h.Collector(t, ns, nil)
	// The sample has no diagnose report for the meta dashboard to serve.
	run := col.Collect(t, append([]string{"--sql-dsn", c.SQLDSN(), "--skip", "diagnose"}, QuickMetrics...)...)
	if run.ExitCode != 0 {
		t.Fatalf("collect: exit %d\n%s", run.ExitCode, run.Stderr)
	}
	t.Logf("helm fixture created in %v; collect took %v; %s", c.Timings.Total.Round(time.Millisecond),
		run.Duration.Round(time.Millisecond), requestCounts(c))
	if !run.Manifest.Complete {
		t.Errorf("bundle incomplete: %s", run.Manifest.IncompleteReason)
	}
	for _, e := range run.Manifest.Errors {
		if strings.Contains(e.Target+e.Error, "risingwaves") {
			t.Errorf("the missing CRD recorded as an error: %+v", e)
		}
	}
	if run.Manifest.HasFile("kubernetes/risingwaves.json") {
		t.Error("kubernetes/risingwaves.json written without the CRD")
	}
	if _, err := os.Stat(filepath.Join(run.Dir, "kubernetes", "risingwaves.json")); err == nil {
		t.Error("kubernetes/risingwaves.json in the bundle")
	}
	if !strings.Contains(run.Stderr, "the RisingWave custom resource is not installed") {
		t.Errorf("the summary does not note the missing CRD:\n%s", run.Stderr)
	}
	if n := len(run.ReadJSONList(t, "pods")); n != len(c.Expected().Objects["pods"]) {
		t.Errorf("pods.json: %d pods found by the helm labels, the server has %d", n, len(c.Expected().Objects["pods"]))
	}
	// The one refusal is the 404 for the missing resource.
	evs := h.Audit(t)
	if problems := CheckReadOnly(evs, col.User, MissingCRD); len(problems) > 0 {
		t.Errorf("audit log:\n%s", strings.Join(problems, "\n"))
	}
	if !slices.ContainsFunc(ByUser(evs, col.User), MissingCRD) {
		t.Error("the audit log shows no 404 for the RisingWave resources: did the collector not ask?")
	}
	assertFindings(t, analyzeBundle(t, run.Bundle), c.Expected().Findings)
}

// TestPaginationPast500 lists 520 pods: more than the collector's page of
// 500, so the real API server (etcd-backed pages) hands out a continue
// token, and the collector must follow it to have every pod.
func TestPaginationPast500(t *testing.T) {
	h := Shared(t)
	const ns = "k12b-pages"
	c := fixtureCluster(t, h, cluster.Options{Namespace: ns, NoSQL: true, FillerPods: 515, FillerLogBytes: 1 << 10})
	exp := c.Expected()
	t.Logf("520-pod fixture created in %v", c.Timings.Total.Round(time.Millisecond))
	col := h.Collector(t, ns, nil)
	run := col.Collect(t, "--skip", "logs,metrics,diagnose,sql,describe")
	if run.ExitCode != 0 {
		t.Fatalf("collect: exit %d\n%s", run.ExitCode, run.Stderr)
	}
	var names []string
	for _, p := range run.ReadJSONList(t, "pods") {
		names = append(names, p["metadata"].(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if !slices.Equal(names, exp.Objects["pods"]) {
		t.Errorf("pods.json has %d pods, the server %d", len(names), len(exp.Objects["pods"]))
	}
	pages := map[string]int{} // selector -> requests
	followed := 0
	for _, e := range ByUser(h.Audit(t), col.User) {
		if e.Verb != "list" || e.Resource() != "pods" {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			t.Fatal(err)
		}
		pages[u.Query().Get("labelSelector")]++
		if u.Query().Get("continue") != "" {
			followed++
		}
	}
	t.Logf("pod list requests by selector: %v; %d with a continue token", pages, followed)
	// The operator's label selects all 520 (the other selectors none).
	if n := pages["risingwave/component"]; n != 2 || followed != 1 {
		t.Errorf("risingwave/component: %d list requests, %d with a continue token; want 2 and 1 (500 pods, then the remaining 20)", n, followed)
	}
}
