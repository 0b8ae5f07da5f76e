package cluster

// The parts of the fixture that need no API server: the sample as read, the
// kubelet stand-in over HTTPS, and the rw_catalog PostgreSQL.

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func sampleDir(t *testing.T, name string) (string, string) {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "samples", name), root
}

func TestReadSample(t *testing.T) {
	dir, root := sampleDir(t, "oom-crash-loop")
	s, err := readSample(dir, filepath.Join(root, "collect", "testdata", "apiserver"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.lists["pods"]); got != 5 {
		t.Errorf("pods: %d, want 5", got)
	}
	if got := len(s.scrapes["rw-prod-compute-0"]); got != 4 {
		t.Errorf("compute-0 scrapes: %d, want the sample's 4", got)
	}
	if s.scrapes["rw-prod-meta-0"][0].at.After(s.scrapes["rw-prod-meta-0"][1].at) {
		t.Error("scrapes not oldest first")
	}
	if s.logs["rw-prod-compute-0/compute/previous"] == nil || s.logs["rw-prod-compute-0/compute"] == nil {
		t.Error("compute-0's current and previous logs not read")
	}
	if len(s.dashboard) != 2 {
		t.Errorf("dashboard answers: %v, want the diagnose report and the await tree", s.dashFiles)
	}
	if len(s.sqlFiles) == 0 {
		t.Error("no sql/rw_*.csv read")
	}
	want := time.Date(2026, 11, 29, 20, 45, 13, 204e6, time.UTC)
	if !s.finished.Equal(want) {
		t.Errorf("clock %v, want the manifest's finished_at %v", s.finished, want)
	}
	// What is created carries none of the server's fields.
	c := forCreate(s.lists["pods"][0], "elsewhere")
	for _, f := range serverFields {
		if _, ok := md(c)[f]; ok {
			t.Errorf("forCreate kept metadata.%s", f)
		}
	}
	if md(c)["namespace"] != "elsewhere" || c["status"] != nil {
		t.Errorf("forCreate: namespace %v, status %v", md(c)["namespace"], c["status"])
	}
}

func TestParseLogAndRender(t *testing.T) {
	stamped := "2026-11-29T20:41:07.1Z 2026-11-29T20:41:07.0Z  INFO a: one\n" +
		"2026-11-29T20:41:08.2Z > continued\n" +
		"2026-11-29T20:41:09.3Z 2026-11-29T20:41:09.0Z  WARN a: three\n"
	lf, err := parseLog("x.log", []byte(stamped))
	if err != nil {
		t.Fatal(err)
	}
	all := logOptions{timestamps: true, tail: -1, limit: -1}
	if got := string(lf.render(all)); got != stamped {
		t.Errorf("stamped file with timestamps:\n%q\nwant it as it is", got)
	}
	o := all
	o.timestamps = false
	if got, want := string(lf.render(o)), "2026-11-29T20:41:07.0Z  INFO a: one\n> continued\n2026-11-29T20:41:09.0Z  WARN a: three\n"; got != want {
		t.Errorf("without timestamps: %q, want %q", got, want)
	}
	o = all
	o.since = time.Date(2026, 11, 29, 20, 41, 8, 0, time.UTC)
	if got := strings.Count(string(lf.render(o)), "\n"); got != 2 {
		t.Errorf("since 20:41:08: %d lines, want 2", got)
	}
	o = all
	o.tail = 1
	if got := string(lf.render(o)); !strings.HasSuffix(got, "three\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("tail 1: %q", got)
	}
	o = all
	o.limit = 10
	if got := lf.render(o); len(got) != 10 {
		t.Errorf("limit 10: %d bytes", len(got))
	}

	// A log of the container's own lines gets their times; a line without
	// one, the time before it.
	own := "> banner first\n2026-11-29T20:41:07.5Z  INFO a: start\n> outline\n"
	lf, err = parseLog("y.log", []byte(own))
	if err != nil {
		t.Fatal(err)
	}
	want := "2026-11-29T20:41:07.5Z > banner first\n2026-11-29T20:41:07.5Z 2026-11-29T20:41:07.5Z  INFO a: start\n2026-11-29T20:41:07.5Z > outline\n"
	if got := string(lf.render(all)); got != want {
		t.Errorf("own lines with timestamps:\n%q\nwant\n%q", got, want)
	}
	if _, err := parseLog("z.log", []byte("no time\nanywhere\n")); err == nil || !strings.Contains(err.Error(), "z.log:1") {
		t.Errorf("a log without times: %v, want an error naming z.log:1", err)
	}
}

func TestKubeletStandIn(t *testing.T) {
	dir, _ := sampleDir(t, "oom-crash-loop")
	s, err := readSample(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := startKubelet("127.0.0.1:0", s.finished)
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	k.addPod("risingwave", "rw-prod-compute-0", []string{"compute"})
	k.addPod("risingwave", "rw-prod-meta-0", []string{"meta"})
	k.setLog("risingwave", "rw-prod-compute-0", "compute", false, s.logs["rw-prod-compute-0/compute"])
	k.setLog("risingwave", "rw-prod-compute-0", "compute", true, s.logs["rw-prod-compute-0/compute/previous"])
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get("https://127.0.0.1:" + strconv.Itoa(k.Port()) + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	file, _ := os.ReadFile(filepath.Join(dir, "logs", "rw-prod-compute-0", "compute.log"))
	// The query the API server forwards for `kubectl logs --timestamps --since=6h`.
	code, body := get("/containerLogs/risingwave/rw-prod-compute-0/compute?sinceSeconds=21600&timestamps=true")
	if code != 200 || body != string(file) {
		t.Errorf("current log: %d, %d bytes; want 200 and the sample's %d bytes", code, len(body), len(file))
	}
	// The sample's clock, not the wall clock: a day-old sample's log is
	// still within --since 6h; a minute before its end holds less.
	code, body = get("/containerLogs/risingwave/rw-prod-compute-0/compute?sinceSeconds=60&timestamps=true")
	if code != 200 || len(body) >= len(file) {
		t.Errorf("sinceSeconds=60: %d, %d bytes; want fewer than %d", code, len(body), len(file))
	}
	code, body = get("/containerLogs/risingwave/rw-prod-compute-0/compute?previous=true&timestamps=true")
	if code != 200 || !strings.Contains(body, "Starting compute node") {
		t.Errorf("previous log: %d %q", code, body[:min(len(body), 200)])
	}
	code, body = get("/containerLogs/risingwave/rw-prod-meta-0/meta?previous=true")
	if code != 400 || !strings.Contains(body, `previous terminated container "meta" in pod "rw-prod-meta-0" not found`) {
		t.Errorf("previous of a container that never restarted: %d %q", code, body)
	}
	code, body = get("/containerLogs/risingwave/rw-prod-gone-0/compute")
	if code != 404 || !strings.Contains(body, `pod "rw-prod-gone-0" does not exist`) {
		t.Errorf("unknown pod: %d %q", code, body)
	}
	code, body = get("/containerLogs/risingwave/rw-prod-meta-0/sidecar")
	if code != 404 || !strings.Contains(body, `container "sidecar" not found in pod "rw-prod-meta-0"`) {
		t.Errorf("unknown container: %d %q", code, body)
	}
	reqs := k.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests recorded, want 6", len(reqs))
	}
	if r := reqs[0]; r.Pod != "rw-prod-compute-0" || r.Container != "compute" || !r.Timestamps || r.Previous ||
		r.SinceSeconds == nil || *r.SinceSeconds != 21600 || r.Status != 200 || r.Bytes != len(file) {
		t.Errorf("first request recorded as %+v", r)
	}
	if r := reqs[2]; !r.Previous {
		t.Errorf("previous not recorded: %+v", r)
	}
}

func TestCatalogInPostgres(t *testing.T) {
	if pgBinDir() == "" {
		t.Skip(ErrNoPostgres)
	}
	dir, _ := sampleDir(t, "oom-crash-loop")
	s, err := readSample(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := startPG()
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	tables, err := p.loadCatalog(s.sqlFiles, "v3.0.3")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != len(s.sqlFiles) {
		t.Fatalf("%d tables for %d files", len(tables), len(s.sqlFiles))
	}
	psql := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(p.psql, append([]string{"-X", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", SQLUser, "-d", "dev"}, args...)...)
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("psql %v: %v\n%s", args, err, ee.Stderr)
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if v := psql("-At", "-c", "SELECT version()"); !strings.Contains(v, "RisingWave-3.0.3") {
		t.Errorf("version() as the collector's role: %q", v)
	}
	// What the collector dumps is what psql --csv prints: the sample's bytes.
	for _, f := range s.sqlFiles {
		table := strings.TrimSuffix(filepath.Base(f), ".csv")
		want, _ := os.ReadFile(f)
		if got := psql("--csv", "-c", "SELECT * FROM rw_catalog."+table); got != string(want) {
			t.Errorf("%s: psql --csv differs from the sample\n got %q\nwant %q", table, got, want)
		}
	}
}

func TestPodServerScrapesInTurn(t *testing.T) {
	ps := &podServers{served: map[string]int{}}
	at := time.Now().Add(-time.Hour)
	ep := &podEndpoint{pod: "p", portName: "metrics", scrapes: []scrape{
		{at, []byte("a 1\nlast_committed_barrier_time{database_id=\"1\"} 100\n")},
		{at, []byte("a 2\n")},
	}}
	get := func(ep *podEndpoint, path string) (int, string) {
		w := httptest.NewRecorder()
		ps.serve(w, httptest.NewRequest("GET", path, nil), "192.0.2.10:1222", ep)
		return w.Code, w.Body.String()
	}
	_, first := get(ep, "/metrics")
	if !strings.HasPrefix(first, "a 1\n") {
		t.Errorf("first scrape %q, want the first snapshot", first)
	}
	// The clock gauge moved by as much as the snapshot is old (an hour).
	if !strings.Contains(first, "} 3700.") {
		t.Errorf("last_committed_barrier_time not moved by the hour since the snapshot: %q", first)
	}
	for i := 0; i < 2; i++ {
		if _, b := get(ep, "/metrics"); b != "a 2\n" {
			t.Errorf("scrape %d: %q, want the last snapshot", i+2, b)
		}
	}
	if code, _ := get(ep, "/other"); code != 404 {
		t.Errorf("/other on the metrics port: %d, want 404", code)
	}
	dash := &podEndpoint{pod: "m", portName: "dashboard", pages: map[string][]byte{"/api/monitor/diagnose/": []byte("report")}}
	if code, b := get(dash, "/api/monitor/diagnose/"); code != 200 || b != "report" {
		t.Errorf("diagnose: %d %q", code, b)
	}
	if code, _ := get(dash, "/api/monitor/await_tree/"); code != 404 {
		t.Errorf("a page the dashboard does not have: %d, want 404", code)
	}
	reqs := ps.requests
	if len(reqs) != 6 || reqs[0].Pod != "p" || reqs[0].Status != 200 || reqs[3].Status != 404 {
		t.Errorf("requests recorded: %+v", reqs)
	}
}
