package kube

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rwdiag/rwdiag/test/kube/cluster"
)

// QuickMetrics are the scrape flags the tests pass: two samples a second
// apart instead of four 15 s apart.
var QuickMetrics = []string{"--metrics-samples", "2", "--metrics-interval", "1s"}

// bundleResources are the namespaced kinds the collector lists whole, by
// the bundle file they go to (collect/kube.go's namespacedResources).
var bundleResources = []struct {
	file string
	gvr  schema.GroupVersionResource
}{
	{"events", schema.GroupVersionResource{Version: "v1", Resource: "events"}},
	{"statefulsets", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}},
	{"deployments", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	{"services", schema.GroupVersionResource{Version: "v1", Resource: "services"}},
	{"persistentvolumeclaims", schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}},
	{"configmaps", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
	{"risingwaves", rwGVR},
	{"pods", schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
}

// identity is what must match between the server and the bundle.
func identity(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	return fmt.Sprintf("%v uid=%v rv=%v", md["name"], md["uid"], md["resourceVersion"])
}

// AssertObjects checks that the bundle holds every object of ns the
// server holds, for each resource the collector lists, with the same uid
// and resourceVersion, and nothing else; and the nodes the pods run on.
// pods are compared whole when allPods (a namespace of RisingWave pods only).
func AssertObjects(t *testing.T, h *Harness, run *Run, ns string, skip ...string) {
	t.Helper()
	ctx := context.Background()
	nodes := map[string]bool{}
	for _, r := range bundleResources {
		if slices.Contains(skip, r.file) {
			continue
		}
		list, err := h.Dynamic.Resource(r.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Errorf("admin list %s: %v", r.file, err)
			continue
		}
		var want []string
		for _, it := range list.Items {
			want = append(want, identity(it.Object))
			if r.file == "pods" {
				if n, _, _ := unstructuredString(it.Object, "spec", "nodeName"); n != "" {
					nodes[n] = true
				}
			}
		}
		var got []string
		for _, it := range run.ReadJSONList(t, r.file) {
			got = append(got, identity(it))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("kubernetes/%s.json holds\n  %s\nthe server holds\n  %s", r.file, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	if slices.Contains(skip, "nodes") {
		return
	}
	var want, got []string
	for n := range nodes {
		node, err := h.Client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Errorf("admin get node %s: %v", n, err)
			continue
		}
		want = append(want, fmt.Sprintf("%s uid=%s rv=%s", node.Name, node.UID, node.ResourceVersion))
	}
	for _, it := range run.ReadJSONList(t, "nodes") {
		got = append(got, identity(it))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kubernetes/nodes.json holds %v, the pods run on %v", got, want)
	}
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[p]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// AssertNoSecrets checks that no planted value appears in any byte of the
// extracted bundle, nor in what rwdiag printed.
func AssertNoSecrets(t *testing.T, run *Run, planted []string) {
	t.Helper()
	if len(planted) == 0 {
		t.Fatal("no planted secrets: the check would prove nothing")
	}
	files := 0
	err := filepath.WalkDir(run.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range planted {
			if bytes.Contains(data, []byte(s)) {
				rel, _ := filepath.Rel(run.Dir, path)
				t.Errorf("planted secret %q is in %s", s, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("the bundle has no files")
	}
	for _, s := range planted {
		if strings.Contains(run.Stdout+run.Stderr, s) {
			t.Errorf("planted secret %q is in rwdiag's output", s)
		}
	}
}

// AssertAudit fails the test with CheckReadOnly's problems.
func AssertAudit(t *testing.T, h *Harness, user string, expected Expected) []AuditEvent {
	t.Helper()
	evs := ByUser(h.Audit(t), user)
	for _, p := range CheckReadOnly(evs, user, expected) {
		t.Errorf("audit: %s", p)
	}
	t.Logf("audit: %d requests by %s: %s", len(evs), user, Summary(evs))
	return evs
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Errorf("bundle: %v", err)
		return ""
	}
	return string(b)
}

// TestCollectMini collects the harness's small cluster and checks the
// bundle against the server and the stand-ins, and the audit log.
func TestCollectMini(t *testing.T) {
	h := Shared(t)
	ns := UniqueName("rw-mini")
	m := newMiniCluster(t, h, ns, miniOptions{})
	c := h.Collector(t, ns, nil)
	run := c.Collect(t, append([]string{"--skip", "sql"}, QuickMetrics...)...)
	t.Logf("collect: %v, exit %d", run.Duration.Round(1e6), run.ExitCode)
	if run.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", run.ExitCode, run.Stderr)
	}
	if !run.Manifest.Complete || len(run.Manifest.Errors) > 0 {
		t.Errorf("manifest: complete %v, errors %+v\n%s", run.Manifest.Complete, run.Manifest.Errors, run.Stderr)
	}
	AssertObjects(t, h, run, ns)
	for _, pod := range m.pods {
		d := readFile(t, run.Dir, "kubernetes/describe/pods/"+pod+".txt")
		if !strings.Contains(d, "Name:") || !strings.Contains(d, pod) {
			t.Errorf("describe %s: not kubectl describe's text:\n%s", pod, d)
		}
		if strings.HasSuffix(pod, "compute-0") && !strings.Contains(d, "Back-off restarting failed container") {
			t.Errorf("describe %s: the pod's event is missing:\n%s", pod, d)
		}
		n := 0
		for _, f := range run.Manifest.Files {
			if strings.HasPrefix(f.Path, "metrics/"+pod+"/") && strings.HasSuffix(f.Path, ".prom") {
				n++
				if got := readFile(t, run.Dir, f.Path); got != m.scrape[pod] {
					t.Errorf("%s = %q, the pod served %q", f.Path, got, m.scrape[pod])
				}
			}
		}
		if n != 2 {
			t.Errorf("%s: %d scrapes, want 2", pod, n)
		}
	}
	for key, want := range m.logs {
		parts := strings.Split(key, "/")
		path := "logs/" + parts[0] + "/" + parts[1] + ".log"
		if len(parts) == 3 {
			path = "logs/" + parts[0] + "/" + parts[1] + ".previous.log"
		}
		got := readFile(t, run.Dir, path)
		if strings.Contains(want, "postgres://") { // holds a planted password
			if strings.Count(got, "\n") != strings.Count(want, "\n") || !strings.Contains(got, "[REDACTED:") {
				t.Errorf("%s = %q, want %q redacted", path, got, want)
			}
		} else if got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if got := readFile(t, run.Dir, "diagnose/report.txt"); got != m.report {
		t.Errorf("diagnose/report.txt = %q, want %q", got, m.report)
	}
	if got := readFile(t, run.Dir, "diagnose/await-tree.json"); got != m.awaitTree {
		t.Errorf("diagnose/await-tree.json = %q, want %q", got, m.awaitTree)
	}
	AssertNoSecrets(t, run, m.planted)
	AssertAudit(t, h, c.User, nil)
	t.Logf("kubelet stand-in: %d log requests: %v", len(m.kubelet.Requests()), m.kubelet.Requests())
}

// TestCollect is the main test: package cluster's RisingWave cluster (the
// sample samples/oom-crash-loop created in the real API server, with the
// kubelet, pod servers and PostgreSQL behind it), collected by `rwdiag
// collect` as a ServiceAccount bound only by docs/rbac.yaml, with the flags
// a user passes. The bundle must hold every object the server holds, the
// describe of every pod, every log (current and previous) as the kubelet
// served it, the scrapes, the diagnose files and the SQL dumps; no planted
// secret; and the audit log must show reads only.
func TestCollect(t *testing.T) {
	h := Shared(t)
	ctx := context.Background()
	cl, err := cluster.Start(ctx, h.Admin, cluster.Options{Namespace: UniqueName("rw-main"), Logf: t.Logf})
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	defer cl.Close()
	ns := cl.Namespace()
	exp := cl.Expected()
	c := h.Collector(t, ns, nil)
	const samples = 2
	run := c.Collect(t, append([]string{"--sql-dsn", cl.SQLDSN(), "--since", "0"}, QuickMetrics...)...)
	t.Logf("collect: %v, exit %d, %d files", run.Duration.Round(time.Millisecond), run.ExitCode, len(run.Manifest.Files))
	fmt.Fprintf(os.Stderr, "kube harness: rwdiag collect of %s took %v\n", ns, run.Duration.Round(time.Millisecond))
	if run.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", run.ExitCode, run.Stderr)
	}
	if !run.Manifest.Complete {
		t.Errorf("manifest: incomplete: %s", run.Manifest.IncompleteReason)
	}

	// The only failures allowed: previous logs the kubelet does not have,
	// and the statements PostgreSQL cannot answer as RisingWave does.
	for _, e := range run.Manifest.Errors {
		switch {
		case e.Step == "logs" && strings.HasSuffix(e.Target, " (previous)") &&
			slices.Contains(exp.NoPrevious, strings.TrimSuffix(e.Target, " (previous)")):
		case e.Step == "sql":
			t.Logf("sql step failed (PostgreSQL is a stand-in): %s: %s", e.Target, firstLine(e.Error))
		default:
			t.Errorf("manifest error: %s %s: %s", e.Step, e.Target, e.Error)
		}
	}

	AssertObjects(t, h, run, ns)
	for file, names := range exp.Objects {
		var got []string
		for _, it := range run.ReadJSONList(t, file) {
			md, _ := it["metadata"].(map[string]any)
			if file == "events" && serverEvent(it) && !slices.Contains(names, fmt.Sprint(md["name"])) {
				continue // the API server's own, about the fixture's Services
			}
			got = append(got, fmt.Sprint(md["name"]))
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Errorf("kubernetes/%s.json names %v, the fixture made %v", file, got, names)
		}
	}
	for _, pod := range exp.Objects["pods"] {
		d := readFile(t, run.Dir, "kubernetes/describe/pods/"+pod+".txt")
		if !strings.Contains(d, "Name:") || !strings.Contains(d, pod) {
			t.Errorf("describe %s: not kubectl describe's text", pod)
		}
	}

	logs := 0
	for path, want := range exp.Logs {
		entry := run.Manifest.File(path)
		if entry == nil {
			t.Errorf("%s: not in the bundle", path)
			continue
		}
		logs++
		got := readFile(t, run.Dir, path)
		switch {
		case got == string(want):
		case entry.Redacted > 0 && strings.Count(got, "\n") == strings.Count(string(want), "\n"):
			// Redaction replaced values; the lines are all there.
		default:
			t.Errorf("%s: %d bytes, the kubelet served %d (redacted %d)", path, len(got), len(want), entry.Redacted)
		}
	}
	previous := 0
	for path := range exp.Logs {
		if strings.HasSuffix(path, ".previous.log") {
			previous++
		}
	}
	if previous == 0 {
		t.Error("the fixture has no previous log: the test would not see one collected")
	}

	for _, pod := range exp.Scraped {
		n := 0
		for _, f := range run.Manifest.Files {
			if strings.HasPrefix(f.Path, "metrics/"+pod+"/") && strings.HasSuffix(f.Path, ".prom") {
				n++
				if f.Size == 0 {
					t.Errorf("%s is empty", f.Path)
				}
			}
		}
		if n != samples {
			t.Errorf("%s: %d scrapes, want %d", pod, n, samples)
		}
	}
	for path, want := range exp.Diagnose {
		if got := readFile(t, run.Dir, path); got != string(want) && !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s: %d bytes, the dashboard served %d", path, len(got), len(want))
		}
	}
	if len(exp.Diagnose) == 0 {
		t.Error("the fixture serves no diagnose files")
	}
	for _, path := range exp.SQLTables {
		if !run.Manifest.HasFile(path) {
			t.Errorf("%s: not in the bundle", path)
			continue
		}
		want, ok := exp.SQLFiles[path]
		if got := readFile(t, run.Dir, path); ok && got != string(want) && run.Manifest.File(path).Redacted == 0 {
			t.Errorf("%s: the dump differs from the table the server holds:\n got %.300q\nwant %.300q", path, got, want)
		}
	}
	if len(exp.SQLTables) == 0 {
		t.Error("the fixture has no SQL tables")
	}
	t.Logf("bundle: %d objects files, %d logs (%d previous), %d scraped pods x %d, %d diagnose files, %d SQL tables",
		len(exp.Objects), logs, previous, len(exp.Scraped), samples, len(exp.Diagnose), len(exp.SQLTables))

	AssertNoSecrets(t, run, cl.PlantedSecrets())
	noPrevious := func(e AuditEvent) bool {
		return e.Code() == 400 && e.Resource() == "pods/log" && e.ObjectRef != nil &&
			slices.ContainsFunc(exp.NoPrevious, func(pc string) bool { return strings.HasPrefix(pc, e.ObjectRef.Name+"/") })
	}
	for _, e := range AssertAudit(t, h, c.User, noPrevious) {
		if !strings.HasPrefix(e.UserAgent, "rwdiag/") {
			t.Errorf("audit: %s came with user agent %q, not rwdiag's", e, e.UserAgent)
		}
	}
	t.Logf("kubelet stand-in: %d log requests; pod proxy: %d requests", len(cl.Kubelet().Requests()), len(cl.ProxyRequests()))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// TestListPagination: 520 Events in the namespace, more than the 500 the
// collector asks for per page. The real server answers with a continue
// token; the collector must follow it (and so must kubectl's describer,
// whose field selector matches them all) and the bundle hold every Event.
func TestListPagination(t *testing.T) {
	h := Shared(t)
	ns := UniqueName("rw-pages")
	newMiniCluster(t, h, ns, miniOptions{})
	ctx := context.Background()
	pod, err := h.Client.CoreV1().Pods(ns).Get(ctx, "mini-compute-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	const n = 520
	for i := range n {
		_, err := h.Client.CoreV1().Events(ns).Create(ctx, &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("mini-compute-0.%016x", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod.Name, UID: pod.UID, APIVersion: "v1"},
			Reason:         "Unhealthy", Message: fmt.Sprintf("Readiness probe failed: attempt %d", i), Type: corev1.EventTypeWarning,
			Source: corev1.EventSource{Component: "kubelet"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d events created in %v", n, time.Since(began).Round(time.Millisecond))
	c := h.Collector(t, ns, nil)
	run := c.Collect(t, "--skip", "sql,metrics,diagnose,logs")
	if run.ExitCode != 0 || len(run.Manifest.Errors) > 0 {
		t.Fatalf("exit %d, errors %+v\n%s", run.ExitCode, run.Manifest.Errors, run.Stderr)
	}
	AssertObjects(t, h, run, ns)
	if got := len(run.ReadJSONList(t, "events")); got != n+1 {
		t.Errorf("kubernetes/events.json: %d events, want %d", got, n+1)
	}
	pages := map[string]int{} // "collector" or "describe" -> requests with a continue token
	for _, e := range AssertAudit(t, h, c.User, nil) {
		if e.Verb == "list" && e.Resource() == "events" && strings.Contains(e.RequestURI, "continue=") {
			if strings.Contains(e.RequestURI, "fieldSelector=") {
				pages["describe"]++
			} else {
				pages["collector"]++
			}
		}
	}
	if pages["collector"] != 1 {
		t.Errorf("the collector's events list followed %d continue tokens, want 1", pages["collector"])
	}
	if pages["describe"] == 0 {
		t.Error("the describer did not page its events")
	}
	d := readFile(t, run.Dir, "kubernetes/describe/pods/mini-compute-0.txt")
	if !strings.Contains(d, fmt.Sprintf("attempt %d", n-1)) {
		t.Errorf("describe mini-compute-0: the last page's event is missing")
	}
}

// TestServerVersion: the API server the tests ran against is the one
// docs/kubernetes-testing.md names (run.sh stamps the version it builds).
func TestServerVersion(t *testing.T) {
	h := Shared(t)
	v, err := h.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != KubernetesVersion {
		t.Errorf("the API server says %s, want %s (built without run.sh's -ldflags?)", v.GitVersion, KubernetesVersion)
	}
	t.Logf("kube-apiserver %s, %s, %s", v.GitVersion, v.GoVersion, v.Platform)
}

// serverEvent reports whether an Event was recorded by kube-apiserver
// itself: its ipallocator-repair-controller (v1.37.2
// pkg/registry/core/service/ipallocator/controller/repairip.go) watches
// Services and, when it sees one before the IPAddress the allocator made for
// it, records a ClusterIPNotAllocated event about the Service. So an Event
// the fixture did not make may appear in the namespace at any moment of a
// run; the collector is right to collect it (AssertObjects checks it against
// the server like every other object).
func serverEvent(ev map[string]any) bool {
	src, _ := ev["source"].(map[string]any)
	return ev["reportingComponent"] == "ipallocator-repair-controller" || src != nil && src["component"] == "ipallocator-repair-controller"
}
