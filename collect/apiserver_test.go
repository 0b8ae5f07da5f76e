package collect_test

// A Kubernetes API server for the tests: net/http/httptest serving the real
// API paths (lists with label and field selectors and pages, pods, logs with
// previous, the pod proxy to /metrics and the meta dashboard) from the
// sample bundle samples/oom-crash-loop and collect/testdata/apiserver, so
// client-go and kubectl's describer run over real HTTP. It can refuse a
// resource (403 with a real Status), hang an endpoint, lose a pod between
// list and get, and lack the RisingWave CRD. It records every request.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
)

const (
	sampleDir  = "../samples/oom-crash-loop"
	fixtureDir = "testdata/apiserver"
	testNS     = "risingwave"
)

type object = map[string]any

// listKinds maps a resource to its kind and group/version.
var listKinds = map[string][2]string{
	"pods":                   {"Pod", "v1"},
	"events":                 {"Event", "v1"},
	"services":               {"Service", "v1"},
	"persistentvolumeclaims": {"PersistentVolumeClaim", "v1"},
	"configmaps":             {"ConfigMap", "v1"},
	"nodes":                  {"Node", "v1"},
	"statefulsets":           {"StatefulSet", "apps/v1"},
	"deployments":            {"Deployment", "apps/v1"},
	"risingwaves":            {"RisingWave", "risingwave.risingwavelabs.com/v1alpha1"},
}

type fakeAPI struct {
	t testing.TB

	mu       sync.Mutex
	requests []*http.Request
	scrapes  map[string]int

	objects   map[string][]object // resource -> items, as kubectl prints them
	logs      map[string][]byte   // "pod/container" or "pod/container/previous"
	metrics   map[string][][]byte // pod -> scrapes served in turn
	dashboard map[string][]byte   // proxy suffix -> body

	// Failures to simulate.
	forbidden map[string]bool   // resource -> 403 on list
	gone      map[string]bool   // pod -> 404 on get, log and proxy
	hang      map[string]bool   // "log:pod/container", "proxy:suffix" -> no answer
	logFail   map[string]string // "pod/container" -> 400 with this message
	logBreak  map[string]int    // "pod/container" -> the first request sends this many bytes and drops the connection; later ones get 503
	logTries  map[string]int    // "pod/container" -> log requests so far
	noCRD     bool              // the RisingWave CRD is not installed
	pageSize  int               // serve lists in pages of this many items
}

// newFakeAPI loads the fixtures: what the sample bundle has, and for what it
// lacks, collect/testdata/apiserver. Nodes are made for the nodes the pods
// name, from the fixture's first node.
func newFakeAPI(t testing.TB) *fakeAPI {
	f := &fakeAPI{
		t: t, scrapes: map[string]int{},
		objects: map[string][]object{}, logs: map[string][]byte{}, metrics: map[string][][]byte{}, dashboard: map[string][]byte{},
		forbidden: map[string]bool{}, gone: map[string]bool{}, hang: map[string]bool{}, logFail: map[string]string{},
		logBreak: map[string]int{}, logTries: map[string]int{},
	}
	for res := range listKinds {
		path := filepath.Join(sampleDir, "kubernetes", res+".json")
		if _, err := os.Stat(path); err != nil {
			path = filepath.Join(fixtureDir, res+".json")
		}
		f.objects[res] = readList(t, path)
	}
	f.objects["nodes"] = f.nodesFor(f.objects["nodes"][0])

	for _, dir := range []string{fixtureDir, sampleDir} { // the sample's win
		logs, _ := filepath.Glob(filepath.Join(dir, "logs/*/*.log"))
		for _, p := range logs {
			pod, name := filepath.Base(filepath.Dir(p)), filepath.Base(p)
			key := pod + "/" + strings.TrimSuffix(name, ".log")
			if c := strings.TrimSuffix(name, ".previous.log"); c != name {
				key = pod + "/" + c + "/previous"
			}
			f.logs[key] = readFile(t, p)
		}
		proms, _ := filepath.Glob(filepath.Join(dir, "metrics/*.prom"))
		for _, p := range proms {
			f.metrics[strings.TrimSuffix(filepath.Base(p), ".prom")] = [][]byte{readFile(t, p)}
		}
		scrapes, _ := filepath.Glob(filepath.Join(dir, "metrics/*/*.prom"))
		slices.Sort(scrapes)
		seen := map[string]bool{}
		for _, p := range scrapes {
			pod := filepath.Base(filepath.Dir(p))
			if !seen[pod] {
				seen[pod], f.metrics[pod] = true, nil
			}
			f.metrics[pod] = append(f.metrics[pod], shiftClockGauges(readFile(t, p), p))
		}
		for suffix, file := range map[string]string{"api/monitor/diagnose/": "diagnose/report.txt", "api/monitor/await_tree/": "diagnose/await-tree.json"} {
			if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
				f.dashboard[suffix] = b
			}
		}
	}
	// Every container has a log, if only a line.
	for _, o := range f.objects["pods"] {
		pod := o["metadata"].(object)["name"].(string)
		for _, c := range o["spec"].(object)["containers"].([]any) {
			key := pod + "/" + c.(object)["name"].(string)
			if f.logs[key] == nil {
				f.logs[key] = []byte("2026-11-27T09:12:55.000000001Z  INFO started\n")
			}
		}
		if f.metrics[pod] == nil {
			f.metrics[pod] = [][]byte{[]byte("process_start_time_seconds 1795771964\n")}
		}
	}
	return f
}

// nodesFor makes a node for each node the pods run on, from a template.
func (f *fakeAPI) nodesFor(template object) []object {
	var nodes []object
	var names []string
	for _, o := range f.objects["pods"] {
		if n, _ := o["spec"].(object)["nodeName"].(string); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		b, _ := json.Marshal(template)
		var n object
		json.Unmarshal(b, &n)
		n["metadata"].(object)["name"] = name
		n["metadata"].(object)["labels"].(object)["kubernetes.io/hostname"] = name
		nodes = append(nodes, n)
	}
	return nodes
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readList(t testing.TB, path string) []object {
	t.Helper()
	var l struct{ Items []object }
	if err := json.Unmarshal(readFile(t, path), &l); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return l.Items
}

// start serves the API and returns a client configuration for it.
func (f *fakeAPI) start(t testing.TB) (*httptest.Server, *rest.Config) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv, &rest.Config{Host: srv.URL}
}

// methods returns the methods of the requests received, each once.
func (f *fakeAPI) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ms []string
	for _, r := range f.requests {
		if !slices.Contains(ms, r.Method) {
			ms = append(ms, r.Method)
		}
	}
	return ms
}

// received returns the requests whose path has the suffix.
func (f *fakeAPI) received(suffix string) []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rs []*http.Request
	for _, r := range f.requests {
		if strings.HasSuffix(r.URL.Path, suffix) {
			rs = append(rs, r)
		}
	}
	return rs
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(r.Context()))
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the test API server serves GET only", "", "")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	// /api/v1/nodes/NAME
	case len(parts) == 4 && parts[0] == "api" && parts[2] == "nodes":
		f.get(w, "nodes", parts[3])
	// /api/v1/namespaces/NS/RESOURCE
	case len(parts) == 5 && parts[0] == "api" && parts[2] == "namespaces":
		f.list(w, r, parts[4], parts[3])
	// /api/v1/namespaces/NS/pods/NAME
	case len(parts) == 6 && parts[0] == "api" && parts[4] == "pods":
		if f.gone[parts[5]] {
			status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", parts[5]), parts[5], "pods")
			return
		}
		f.get(w, "pods", parts[5])
	// /api/v1/namespaces/NS/pods/NAME/log
	case len(parts) == 7 && parts[0] == "api" && parts[4] == "pods" && parts[6] == "log":
		f.log(w, r, parts[5])
	// /api/v1/namespaces/NS/pods/NAME:PORT/proxy/...
	case len(parts) >= 7 && parts[0] == "api" && parts[4] == "pods" && parts[6] == "proxy":
		suffix := strings.Join(parts[7:], "/")
		if strings.HasSuffix(r.URL.Path, "/") {
			suffix += "/"
		}
		f.proxy(w, r, parts[5], suffix)
	// /apis/GROUP/VERSION/namespaces/NS/RESOURCE
	case len(parts) == 6 && parts[0] == "apis" && parts[3] == "namespaces":
		if parts[5] == "risingwaves" && f.noCRD {
			status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "", "")
			return
		}
		if kind, ok := listKinds[parts[5]]; !ok || kind[1] != parts[1]+"/"+parts[2] {
			status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "", "")
			return
		}
		f.list(w, r, parts[5], parts[4])
	default:
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "", "")
	}
}

// status writes a metav1.Status, as the API server does for errors.
func status(w http.ResponseWriter, code int, reason, msg, name, kind string) {
	st := object{"kind": "Status", "apiVersion": "v1", "metadata": object{}, "status": "Failure",
		"message": msg, "reason": reason, "code": code}
	if name != "" || kind != "" {
		st["details"] = object{"name": name, "kind": kind}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(st)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// wire strips what kubectl adds to list items: the API server's items have
// no kind or apiVersion.
func wire(o object) object {
	c := make(object, len(o))
	for k, v := range o {
		if k != "kind" && k != "apiVersion" {
			c[k] = v
		}
	}
	return c
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request, resource, ns string) {
	kind, ok := listKinds[resource]
	if !ok || resource == "nodes" {
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "", "")
		return
	}
	if f.forbidden[resource] {
		status(w, http.StatusForbidden, "Forbidden", fmt.Sprintf(
			"%s is forbidden: User \"system:serviceaccount:%s:rwdiag\" cannot list resource %q in API group %q in the namespace %q",
			resource, ns, resource, strings.TrimSuffix(strings.TrimSuffix(kind[1], "v1"), "/"), ns), "", resource)
		return
	}
	q := r.URL.Query()
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		status(w, http.StatusBadRequest, "BadRequest", "unable to parse requirement: "+err.Error(), "", "")
		return
	}
	fsel, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		status(w, http.StatusBadRequest, "BadRequest", err.Error(), "", "")
		return
	}
	var items []any
	for _, o := range f.objects[resource] {
		md, _ := o["metadata"].(object)
		if md["namespace"] != ns {
			continue
		}
		lbls := labels.Set{}
		if l, ok := md["labels"].(object); ok {
			for k, v := range l {
				lbls[k] = fmt.Sprint(v)
			}
		}
		if !sel.Matches(lbls) || !fsel.Matches(eventFields(o)) {
			continue
		}
		items = append(items, wire(o))
	}
	if items == nil {
		items = []any{}
	}
	// Pages: limit is what the client asks; pageSize what the server grants.
	start, _ := strconv.Atoi(q.Get("continue"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if f.pageSize > 0 && (limit == 0 || f.pageSize < limit) {
		limit = f.pageSize
	}
	meta := object{"resourceVersion": "48212100"}
	if start > len(items) {
		start = len(items)
	}
	items = items[start:]
	if limit > 0 && len(items) > limit {
		items = items[:limit]
		meta["continue"] = strconv.Itoa(start + limit)
	}
	writeJSON(w, object{"kind": kind[0] + "List", "apiVersion": kind[1], "metadata": meta, "items": items})
}

// eventFields are the fields an event can be selected by.
func eventFields(o object) fields.Set {
	md, _ := o["metadata"].(object)
	set := fields.Set{"metadata.name": fmt.Sprint(md["name"]), "metadata.namespace": fmt.Sprint(md["namespace"])}
	if io, ok := o["involvedObject"].(object); ok {
		for _, k := range []string{"kind", "name", "namespace", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
			if v, ok := io[k]; ok {
				set["involvedObject."+k] = fmt.Sprint(v)
			}
		}
	}
	return set
}

func (f *fakeAPI) find(resource, name string) object {
	for _, o := range f.objects[resource] {
		if md, _ := o["metadata"].(object); md["name"] == name {
			return o
		}
	}
	return nil
}

func (f *fakeAPI) get(w http.ResponseWriter, resource, name string) {
	o := f.find(resource, name)
	if o == nil {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", resource, name), name, resource)
		return
	}
	writeJSON(w, o)
}

// restarts returns a pod container's restart count, or -1 when it has none.
func (f *fakeAPI) restarts(pod, container string) int {
	o := f.find("pods", pod)
	if o == nil {
		return -1
	}
	st, _ := o["status"].(object)
	css, _ := st["containerStatuses"].([]any)
	for _, c := range css {
		if cs, _ := c.(object); cs["name"] == container {
			n, _ := cs["restartCount"].(float64)
			return int(n)
		}
	}
	return -1
}

func (f *fakeAPI) log(w http.ResponseWriter, r *http.Request, pod string) {
	q := r.URL.Query()
	container := q.Get("container")
	if f.gone[pod] || f.find("pods", pod) == nil {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", pod), pod, "pods")
		return
	}
	if f.hang["log:"+pod+"/"+container] {
		<-r.Context().Done()
		return
	}
	key := pod + "/" + container
	if msg, ok := f.logFail[key]; ok {
		status(w, http.StatusBadRequest, "BadRequest", msg, "", "")
		return
	}
	if n, ok := f.logBreak[key]; ok {
		f.mu.Lock()
		f.logTries[key]++
		try := f.logTries[key]
		f.mu.Unlock()
		if try > 1 {
			status(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the API server is shutting down", "", "")
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(f.logs[key][:n])
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	if q.Get("previous") == "true" {
		key += "/previous"
		if f.restarts(pod, container) <= 0 || f.logs[key] == nil {
			status(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod), "", "")
			return
		}
	}
	body, ok := f.logs[key]
	if !ok {
		status(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("container %q in pod %q is not valid", container, pod), "", "")
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Write(body)
}

// proxy answers for a pod's port: /metrics on the port named metrics, the
// dashboard paths on the port named dashboard.
func (f *fakeAPI) proxy(w http.ResponseWriter, r *http.Request, podPort, suffix string) {
	pod, port, _ := strings.Cut(podPort, ":")
	if f.gone[pod] || f.find("pods", pod) == nil {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", pod), pod, "pods")
		return
	}
	if f.hang["proxy:"+suffix] {
		<-r.Context().Done()
		return
	}
	portName := f.portName(pod, port)
	switch {
	case suffix == "metrics" && portName == "metrics" && len(f.metrics[pod]) > 0:
		f.mu.Lock()
		n := f.scrapes[pod]
		f.scrapes[pod]++
		f.mu.Unlock()
		ss := f.metrics[pod]
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(ss[n%len(ss)])
	case portName == "dashboard" && f.dashboard[suffix] != nil:
		w.Write(f.dashboard[suffix])
	case portName == "dashboard":
		http.Error(w, "Not Found", http.StatusNotFound)
	default:
		status(w, http.StatusServiceUnavailable, "ServiceUnavailable",
			fmt.Sprintf("error trying to reach service: dial tcp 10.0.0.1:%s: connect: connection refused", port), "", "")
	}
}

func (f *fakeAPI) portName(pod, port string) string {
	o := f.find("pods", pod)
	spec, _ := o["spec"].(object)
	cts, _ := spec["containers"].([]any)
	for _, c := range cts {
		ps, _ := c.(object)["ports"].([]any)
		for _, p := range ps {
			if po, _ := p.(object); fmt.Sprint(po["containerPort"]) == port {
				return fmt.Sprint(po["name"])
			}
		}
	}
	return ""
}

// clockGauges hold unix times, so a scrape replayed later must move them by
// as much as the replay is late, or the cluster would look stalled for as
// long as the sample is old.
var clockGauges = []string{"last_committed_barrier_time"}

// shiftClockGauges moves the clock gauges of a scrape taken at the time its
// file name says to now.
func shiftClockGauges(b []byte, path string) []byte {
	ms, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(path), ".prom"), 10, 64)
	if err != nil {
		return b
	}
	late := float64(time.Now().UnixMilli()-ms) / 1000
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		for _, g := range clockGauges {
			if !strings.HasPrefix(l, g) || strings.HasPrefix(l, "#") {
				continue
			}
			sp := strings.LastIndexByte(l, ' ')
			if v, err := strconv.ParseFloat(l[sp+1:], 64); err == nil && sp > 0 {
				lines[i] = l[:sp+1] + strconv.FormatFloat(v+late, 'f', 3, 64)
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
