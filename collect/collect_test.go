package collect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/collect"
)

// testOptions are fast options for the test server: short timeouts, two
// scrapes 50ms apart, SQL against a closed port.
func testOptions(t *testing.T, cfg *rest.Config) collect.Options {
	o := collect.DefaultOptions()
	o.RESTConfig = cfg
	o.Namespace = testNS
	o.Output = filepath.Join(t.TempDir(), "bundle.tar.zst")
	o.MetricsSamples = 2
	o.MetricsInterval = 50 * time.Millisecond
	o.CallTimeout = 300 * time.Millisecond
	o.RetryBackoff = 10 * time.Millisecond
	o.Retries = 2
	o.Grace = 200 * time.Millisecond
	o.Timeout = 20 * time.Second
	o.SQLDSN = "postgres://root@" + closedAddr(t) + "/dev?connect_timeout=1&sslmode=disable"
	o.ToolVersion = "v0.0.0-test"
	return o
}

// closedAddr is a local address nothing listens on.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// readBundle verifies a bundle and returns its manifest and files.
func readBundle(t *testing.T, path string) (*bundle.Manifest, map[string][]byte) {
	t.Helper()
	r, err := bundle.Open(path, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bundle.Verify(r)
	r.Close()
	if err != nil {
		t.Fatalf("verify %s: %v", path, err)
	}
	if !rep.OK() {
		t.Fatalf("verify %s: missing %v, mismatched %v, problems %v", path, rep.Missing, rep.Mismatched, rep.Problems)
	}
	r, err = bundle.Open(path, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string][]byte{}
	var m *bundle.Manifest
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(e)
		if err != nil {
			t.Fatal(err)
		}
		if e.Path == bundle.ManifestPath {
			if m, err = bundle.DecodeManifest(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		files[e.Path] = b
	}
	if m == nil {
		t.Fatalf("%s: no manifest", path)
	}
	return m, files
}

// findError returns the manifest's error for step and target.
func findError(m *bundle.Manifest, step, target string) (bundle.CollectError, bool) {
	for _, e := range m.Errors {
		if e.Step == step && e.Target == target {
			return e, true
		}
	}
	return bundle.CollectError{}, false
}

func errorList(m *bundle.Manifest) string {
	var b strings.Builder
	for _, e := range m.Errors {
		fmt.Fprintf(&b, "  %s %s [%s]: %s\n", e.Step, e.Target, e.Path, e.Error)
	}
	return b.String()
}

const (
	compute0  = "rw-prod-compute-0"
	compute1  = "rw-prod-compute-1"
	meta0     = "rw-prod-meta-0"
	frontend  = "rw-prod-frontend-7d9c6b5f4-x2lqp"
	compactor = "rw-prod-compactor-5b8d9c7f6-m4tzn"
)

// The whole collection against the test API server, with a forbidden
// resource, a hanging endpoint and a pod that disappears between list and
// log: every failure is recorded with its reason, the rest is collected,
// and only GET requests were sent.
func TestCollect(t *testing.T) {
	api := newFakeAPI(t)
	api.forbidden["configmaps"] = true
	api.hang["proxy:api/monitor/await_tree/"] = true
	api.gone[compactor] = true
	api.pageSize = 2 // lists come in pages
	planted := "2026-11-29T20:30:02.114422001Z 2026-11-29T20:30:02.114278001Z  INFO pgwire::pg_server: connection string postgres://root:hunter2-not-a-real-one@rw-prod-frontend:4567/dev\n"
	api.logs[frontend+"/frontend"] = append(slices.Clone(api.logs[frontend+"/frontend"]), planted...)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)

	began := time.Now()
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("collection took %v", d)
	}
	if ms := api.methods(); !slices.Equal(ms, []string{http.MethodGet}) {
		t.Errorf("the collector sent %v requests, want GET only", ms)
	}
	if res.Path != opts.Output {
		t.Errorf("result path %q, want %q", res.Path, opts.Output)
	}
	m, files := readBundle(t, res.Path)

	if !m.Complete || m.IncompleteReason != "" {
		t.Errorf("complete %v (%q), want complete", m.Complete, m.IncompleteReason)
	}
	if m.Namespace != testNS || m.Cluster != "rw-prod" || m.RisingWaveVersion != "v3.0.3" || m.Tool.Version != "v0.0.0-test" {
		t.Errorf("manifest header: namespace %q cluster %q version %q tool %v", m.Namespace, m.Cluster, m.RisingWaveVersion, m.Tool)
	}
	if !m.Redaction.Enabled {
		t.Error("redaction is not recorded as enabled")
	}

	// The files: every resource but the forbidden one, describe and logs of
	// every pod but the gone one, the diagnose report but not the hung await tree.
	want := []string{
		"kubernetes/pods.json", "kubernetes/events.json", "kubernetes/nodes.json",
		"kubernetes/statefulsets.json", "kubernetes/deployments.json", "kubernetes/services.json",
		"kubernetes/persistentvolumeclaims.json", "kubernetes/risingwaves.json",
		"diagnose/report.txt",
		bundle.LogPath(compute0, "compute", false), bundle.LogPath(compute0, "compute", true),
		bundle.LogPath(compute1, "compute", false), bundle.LogPath(meta0, "meta", false),
		bundle.LogPath(frontend, "frontend", false),
	}
	for _, p := range []string{compute0, compute1, meta0, frontend} {
		want = append(want, bundle.DescribePath(p))
	}
	for _, p := range want {
		if _, ok := files[p]; !ok {
			t.Errorf("missing %s", p)
		}
	}
	for _, p := range []string{"kubernetes/configmaps.json", "diagnose/await-tree.json", bundle.DescribePath(compactor),
		bundle.LogPath(compactor, "compactor", false), bundle.LogPath(compute1, "compute", true)} {
		if _, ok := files[p]; ok {
			t.Errorf("%s written, want it missing", p)
		}
	}
	scrapes := map[string]int{}
	for p := range files {
		if c := bundle.Classify(p); c.Kind == bundle.KindMetricsScrape {
			scrapes[c.Pod]++
		}
	}
	for _, p := range []string{compute0, compute1, meta0, frontend} {
		if scrapes[p] != 2 {
			t.Errorf("%s: %d scrapes, want 2", p, scrapes[p])
		}
	}
	if scrapes[compactor] != 0 {
		t.Errorf("%d scrapes of the gone pod", scrapes[compactor])
	}

	// The failures, each with its reason and the path it would have written.
	for _, tc := range []struct {
		step, target, path string
		reason             []string
	}{
		{"kube", "configmaps", "kubernetes/configmaps.json", []string{"forbidden", "cannot list resource", "docs/rbac.yaml"}},
		{"diagnose", meta0, "diagnose/await-tree.json", []string{"await_tree", "per-call timeout"}},
		{"describe", compactor, bundle.DescribePath(compactor), []string{"not found", "deleted after it was listed"}},
		{"logs", compactor + "/compactor", bundle.LogPath(compactor, "compactor", false), []string{"not found", "deleted after it was listed"}},
		{"metrics", compactor, "", []string{"not found"}},
		{"sql", "frontend", "", []string{"could not connect"}},
	} {
		e, ok := findError(m, tc.step, tc.target)
		if !ok {
			t.Errorf("no %s error for %s; errors:\n%s", tc.step, tc.target, errorList(m))
			continue
		}
		for _, r := range tc.reason {
			if !strings.Contains(e.Error, r) {
				t.Errorf("%s %s: error %q lacks %q", tc.step, tc.target, e.Error, r)
			}
		}
		if tc.path != "" && e.Path != tc.path {
			t.Errorf("%s %s: path %q, want %q", tc.step, tc.target, e.Path, tc.path)
		}
		if tc.step == "metrics" && !strings.HasPrefix(e.Path, "metrics/"+compactor+"/") {
			t.Errorf("metrics error path %q, want a scrape path", e.Path)
		}
	}

	// pods.json is what kubectl prints: the sample's bytes exactly.
	if sample := readFile(t, filepath.Join(sampleDir, "kubernetes/pods.json")); !bytes.Equal(files["kubernetes/pods.json"], sample) {
		t.Errorf("kubernetes/pods.json differs from kubectl's output in %s: %s", sampleDir, firstDiff(files["kubernetes/pods.json"], sample))
	}
	if bytes.Contains(files["kubernetes/nodes.json"], []byte("managedFields")) {
		t.Error("nodes.json keeps managedFields, which kubectl leaves out")
	}
	var nodes struct {
		Kind  string
		Items []struct{ Kind, APIVersion string }
	}
	if err := json.Unmarshal(files["kubernetes/nodes.json"], &nodes); err != nil || nodes.Kind != "List" || len(nodes.Items) != 3 || nodes.Items[0].Kind != "Node" {
		fe, _ := m.File("kubernetes/nodes.json")
		t.Errorf("nodes.json: %v %+v (%s)", err, nodes, fe.Error)
	}

	// The log requests: timestamps and since always, previous only for the
	// container that restarted.
	for _, r := range api.received("/log") {
		q := r.URL.Query()
		if q.Get("timestamps") != "true" || q.Get("sinceSeconds") != "21600" {
			t.Errorf("log request %s lacks timestamps=true&sinceSeconds=21600", r.URL)
		}
		if q.Get("previous") == "true" && !strings.Contains(r.URL.Path, compute0) {
			t.Errorf("previous log asked of a container that never restarted: %s", r.URL)
		}
	}
	if got := files[bundle.LogPath(compute0, "compute", true)]; !bytes.Equal(got, readFile(t, filepath.Join(sampleDir, "logs/rw-prod-compute-0/compute.previous.log"))) {
		t.Error("the previous log is not what the server sent")
	}

	// The planted password in the frontend's log is gone from every file.
	for p, b := range files {
		if bytes.Contains(b, []byte("hunter2-not-a-real-one")) {
			t.Errorf("%s holds the planted password", p)
		}
	}
	if fe, ok := m.File(bundle.LogPath(frontend, "frontend", false)); !ok || fe.Redacted == 0 {
		t.Errorf("the frontend log records no redaction: %+v", fe)
	}

	// The summary lists the failures.
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	for _, s := range []string{res.Path, "Missing (", "configmaps", "await_tree", compactor} {
		if !strings.Contains(sum.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, sum.String())
		}
	}
}

// Interrupted mid-run (a log that never ends), the collector stops within
// its grace period and still writes a valid bundle, marked incomplete.
func TestCollectInterrupted(t *testing.T) {
	api := newFakeAPI(t)
	api.hang["log:"+meta0+"/meta"] = true
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.CallTimeout = 20 * time.Second // the hang must end by the interruption, not a timeout
	opts.MetricsSamples = 3
	opts.MetricsInterval = 5 * time.Second

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	began := time.Now()
	res, err := collect.Run(ctx, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 4*time.Second {
		t.Errorf("took %v to stop after the interruption", d)
	}
	m, files := readBundle(t, res.Path)
	if m.Complete || !strings.Contains(m.IncompleteReason, "interrupted") {
		t.Errorf("complete %v, reason %q: want incomplete, interrupted", m.Complete, m.IncompleteReason)
	}
	if _, ok := files["kubernetes/pods.json"]; !ok {
		t.Error("pods.json missing from the interrupted bundle")
	}
	e, ok := findError(m, "logs", meta0+"/meta")
	if !ok || !strings.Contains(e.Error, "cut short") {
		t.Errorf("the hung log's error: %+v (found %v); errors:\n%s", e, ok, errorList(m))
	}
	if e, ok := findError(m, "metrics", compute1); !ok || !strings.Contains(e.Error, "scrapes not taken") {
		t.Errorf("the scrapes not taken are not recorded: %+v; errors:\n%s", e, errorList(m))
	}
}

// The run's deadline ends it the same way, with the reason.
func TestCollectDeadline(t *testing.T) {
	api := newFakeAPI(t)
	api.hang["log:"+meta0+"/meta"] = true
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.CallTimeout = 20 * time.Second
	opts.Timeout = 800 * time.Millisecond
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := readBundle(t, res.Path)
	if m.Complete || !strings.Contains(m.IncompleteReason, "--timeout 800ms") {
		t.Errorf("complete %v, reason %q: want incomplete by the deadline", m.Complete, m.IncompleteReason)
	}
}

// numbered returns n log lines numbered from 1, each about 60 bytes.
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "2026-11-29T20:%02d:%02d.000000000Z INFO line %06d of the log\n", i/60%60, i%60, i)
	}
	return b.Bytes()
}

// A log over --log-bytes keeps its newest lines, whole, and is marked truncated.
func TestLogCapKeepsNewest(t *testing.T) {
	api := newFakeAPI(t)
	api.logs[compute1+"/compute"] = numbered(2000)
	api.logs[meta0+"/meta"] = numbered(3)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.LogBytes = 4000
	opts.MetricsSamples = 0
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, files := readBundle(t, res.Path)
	path := bundle.LogPath(compute1, "compute", false)
	got := files[path]
	if len(got) == 0 || len(got) > 4000 {
		t.Fatalf("%s: %d bytes, want 1 to 4000", path, len(got))
	}
	if !bytes.HasSuffix(got, []byte("line 002000 of the log\n")) {
		t.Errorf("%s does not end with the newest line: %q", path, got[max(0, len(got)-80):])
	}
	if !bytes.HasPrefix(got, []byte("2026-11-29T")) {
		t.Errorf("%s does not start with a whole line: %q", path, got[:min(80, len(got))])
	}
	if !bytes.HasSuffix(numbered(2000), got) {
		t.Errorf("%s is not the tail of the log", path)
	}
	if fe, _ := m.File(path); !fe.Truncated {
		t.Errorf("%s not marked truncated", path)
	}
	if fe, _ := m.File(bundle.LogPath(meta0, "meta", false)); fe.Truncated {
		t.Error("a small log is marked truncated")
	}
}

// The log budget goes to the unhealthy pod first (compute-0, OOMKilled and
// restarting), however the downloads interleave; the healthy pods get
// what is left.
func TestLogBudgetFavoursUnhealthy(t *testing.T) {
	api := newFakeAPI(t)
	big := numbered(200) // about 12 kB each
	for _, k := range []string{compute0 + "/compute", compute0 + "/compute/previous", compute1 + "/compute", meta0 + "/meta", frontend + "/frontend"} {
		api.logs[k] = big
	}
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 0
	opts.LogBudget = int64(2*len(big) + len(big)/2)
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, files := readBundle(t, res.Path)
	for _, prev := range []bool{true, false} {
		p := bundle.LogPath(compute0, "compute", prev)
		if !bytes.Equal(files[p], big) {
			t.Errorf("%s: %d bytes, want the whole %d", p, len(files[p]), len(big))
		}
	}
	var total int
	for p, b := range files {
		if c := bundle.Classify(p); c.Kind == bundle.KindLog || c.Kind == bundle.KindPreviousLog {
			total += len(b)
		}
	}
	if total > int(opts.LogBudget) {
		t.Errorf("logs hold %d bytes, over the budget of %d", total, opts.LogBudget)
	}
	budgetErrors := 0
	for _, e := range m.Errors {
		if e.Step == "logs" && strings.Contains(e.Error, "log budget") {
			budgetErrors++
			if strings.Contains(e.Target, compute0) {
				t.Errorf("the unhealthy pod's log was dropped for the budget: %+v", e)
			}
		}
	}
	if budgetErrors == 0 {
		t.Errorf("no log was left out for the budget; errors:\n%s", errorList(m))
	}
}

// Without the operator's CRD there is no risingwaves.json and no error:
// just a note.
func TestCollectWithoutCRD(t *testing.T) {
	api := newFakeAPI(t)
	api.noCRD = true
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 0
	opts.Skip = []string{collect.StepLogs, collect.StepDescribe, collect.StepSQL}
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, files := readBundle(t, res.Path)
	if _, ok := files["kubernetes/risingwaves.json"]; ok {
		t.Error("risingwaves.json written without the CRD")
	}
	if _, ok := findError(m, "kube", "risingwaves"); ok {
		t.Errorf("the absent CRD is recorded as an error:\n%s", errorList(m))
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "not installed") }) {
		t.Errorf("no note of the absent CRD: %q", res.Notes)
	}
	for _, p := range []string{bundle.LogPath(compute0, "compute", false), bundle.DescribePath(compute0)} {
		if _, ok := files[p]; ok {
			t.Errorf("%s collected though skipped", p)
		}
	}
	if len(api.received("/log")) != 0 {
		t.Error("logs were requested though skipped")
	}
}

// --selector replaces the discovery.
func TestCollectSelector(t *testing.T) {
	api := newFakeAPI(t)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.Selector = "risingwave/component=compute"
	opts.MetricsSamples = 0
	opts.Skip = []string{collect.StepSQL, collect.StepDiagnose}
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, files := readBundle(t, res.Path)
	pods, err := bundle.ParsePods(bytes.NewReader(files["kubernetes/pods.json"]))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{compute0, compute1}) {
		t.Errorf("pods %v, want the two compute pods", names)
	}
	fe, _ := m.File("kubernetes/pods.json")
	if !strings.Contains(fe.Source, "-l 'risingwave/component=compute'") {
		t.Errorf("pods.json source %q does not name the selector", fe.Source)
	}
	for p := range files {
		if c := bundle.Classify(p); c.Kind == bundle.KindLog && !strings.Contains(c.Pod, "compute") {
			t.Errorf("log of %s collected", c.Pod)
		}
	}
}

// --prometheus reads query_range history of the named metrics, restricted to
// the namespace when that finds series, and never records the password.
func TestCollectPrometheus(t *testing.T) {
	var queries []string
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/prom/api/v1/query_range" {
			http.Error(w, "bad request "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != "s3cret-prom" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		q := r.URL.Query().Get("query")
		queries = append(queries, q)
		result := `[]`
		switch q {
		case `jemalloc_active_bytes{namespace="risingwave"}`, "lru_eviction_policy":
			result = `[{"metric":{"__name__":"x","pod":"rw-prod-compute-0"},"values":[[1795984992,"6312476672"]]}]`
		case "broken_metric", `broken_metric{namespace="risingwave"}`:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"parse error"}`)
			return
		}
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":%s}}`, result)
	}))
	defer prom.Close()
	u, _ := url.Parse(prom.URL)
	u.User = url.UserPassword("reader", "s3cret-prom")
	u.Path = "/prom"

	api := newFakeAPI(t)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 0
	opts.Skip = []string{collect.StepLogs, collect.StepDescribe, collect.StepSQL, collect.StepDiagnose}
	opts.PrometheusURL = u.String()
	opts.PrometheusRange = time.Hour
	opts.PrometheusMetrics = []string{"lru_eviction_policy", "jemalloc_active_bytes", "broken_metric", "jemalloc_active_bytes"}
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, files := readBundle(t, res.Path)
	for _, name := range []string{"jemalloc_active_bytes", "lru_eviction_policy"} {
		p := bundle.PrometheusRangePath(name)
		if !bytes.Contains(files[p], []byte("6312476672")) {
			t.Errorf("%s: %s", p, files[p])
		}
	}
	fe, _ := m.File(bundle.PrometheusRangePath("jemalloc_active_bytes"))
	if !strings.Contains(fe.Source, "namespace%3D%22risingwave%22") {
		t.Errorf("jemalloc_active_bytes was not read restricted to the namespace: %s", fe.Source)
	}
	fe, _ = m.File(bundle.PrometheusRangePath("lru_eviction_policy"))
	if strings.Contains(fe.Source, "namespace") {
		t.Errorf("lru_eviction_policy: the fallback without the namespace was not used: %s", fe.Source)
	}
	if e, ok := findError(m, "prometheus", "broken_metric"); !ok || !strings.Contains(e.Error, "bad_data") {
		t.Errorf("broken_metric error: %+v; errors:\n%s", e, errorList(m))
	}
	manifest, _ := json.Marshal(m)
	if bytes.Contains(manifest, []byte("s3cret-prom")) {
		t.Error("the manifest holds the Prometheus password")
	}
	if n := slices.Index(queries, "jemalloc_active_bytes"); n >= 0 {
		t.Error("jemalloc_active_bytes was read twice")
	}
}

// Without a kubeconfig or a reachable API server, Run fails before writing.
func TestCollectNoCluster(t *testing.T) {
	opts := collect.DefaultOptions()
	opts.Kubeconfig = filepath.Join(t.TempDir(), "missing")
	opts.Output = filepath.Join(t.TempDir(), "b.tar.zst")
	_, err := collect.Run(context.Background(), opts, nil)
	if err == nil {
		t.Fatal("no error without a kubeconfig")
	}
	if _, statErr := os.Stat(opts.Output); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a bundle was written: %v", statErr)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "no line differs"
}

// The summary prints what the cluster chose (its version string, error
// messages, targets, the incomplete reason) escaped for the terminal.
func TestWriteSummaryEscapes(t *testing.T) {
	m := &bundle.Manifest{Namespace: "rw", Cluster: "c\x1b]0;t\x07", RisingWaveVersion: "PostgreSQL 13.14.0-RisingWave-2.3.0\x1b[2J",
		Complete: false, IncompleteReason: "interrupted\r\x1b[1A",
		Errors: []bundle.CollectError{{Step: "logs", Target: "pod\x1b[31m", Error: "refused \u202eevil"}},
		Files:  []bundle.FileEntry{{Path: "logs/p\x1b/x.log", Error: "cut\x9b", Truncated: true}}}
	var sum bytes.Buffer
	(&collect.Result{Path: "out.tar.zst", Manifest: m, Notes: []string{"note\x1b[0m"}}).WriteSummary(&sum)
	out := sum.String()
	for _, r := range out {
		if r == 0x1b || r == 0x07 || r == '\r' || r == 0x9b || r == 0x202e {
			t.Fatalf("raw control %U in the summary:\n%q", r, out)
		}
	}
	for _, want := range []string{`c\x1b]0;t\x07`, `pod\x1b[31m`, `\u202eevil`} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// A log stream that breaks part-way and whose retries are all refused (the
// API server died) keeps the part that arrived, marked as broken, rather
// than nothing.
func TestLogBrokenStreamKeepsWhatArrived(t *testing.T) {
	api := newFakeAPI(t)
	api.logs[compute1+"/compute"] = numbered(2000)
	api.logBreak[compute1+"/compute"] = 20000
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.MetricsSamples = 0
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if api.logTries[compute1+"/compute"] < 2 {
		t.Fatalf("the broken log was asked for %d times, want retries", api.logTries[compute1+"/compute"])
	}
	m, files := readBundle(t, res.Path)
	path := bundle.LogPath(compute1, "compute", false)
	got := files[path]
	if want := numbered(2000)[:20000]; !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, want the 20000 that arrived before the break", path, len(got))
	}
	fe, ok := m.File(path)
	if !ok || !strings.Contains(fe.Error, "the stream broke after 20000 bytes") {
		t.Errorf("%s: manifest entry %+v, want the break recorded", path, fe)
	}
}
