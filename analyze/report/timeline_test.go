package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
)

// tlBundle (a copy of the one in analyze's timeline tests) is a small bundle with every timeline source: a crashed
// instance's log without kubectl's prefix (a level-less continuation line, a
// "+08:00" timestamp, a JSON line), the current log with the prefix (whose
// own timestamps differ from kubectl's), a meta log, events repeated and
// not, a container OOM-killed and restarted in the same whole second as its
// last log line, an event log row spanning two lines, a job being created,
// and scrapes of a gauge that crosses a test rule's threshold.
var tlBundle = map[string]string{
	"logs/rw-compute-0/compute.previous.log": "" +
		"2026-11-29T20:40:00.100000Z  INFO risingwave_compute::server: Starting compute node\n" +
		"2026-11-29T20:40:05.200000Z  WARN risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.0s\n" +
		"> total_memory: 8 GiB\n" +
		"2026-11-30T04:40:06.300000+08:00 ERROR risingwave_stream::task::barrier_manager: Failed to sync state store\n" +
		`{"timestamp":"2026-11-29T20:40:07.800000Z","level":"WARN","fields":{"message":"memory is tight","used":"7.9GiB"},"target":"risingwave_compute::memory"}` + "\n",
	"logs/rw-compute-0/compute.log": "" +
		"2026-11-29T20:40:10.999999999Z 2026-11-29T20:40:10.100000Z  WARN risingwave_compute::server: heap profiling is off\n" +
		`2026-11-29T20:40:12.000000000Z {"timestamp":"2026-11-29T20:40:11.500000Z","level":"ERROR","fields":{"message":"actor exit with error","actor_id":7},"target":"risingwave_stream::task::actor_manager"}` + "\n" +
		"2026-11-29T20:40:13.000000000Z > continuation\n",
	"logs/rw-meta-0/meta.log": "2026-11-29T20:40:08.000000Z  WARN risingwave_meta::barrier::rpc: get error from response stream\n",
	"kubernetes/pods.json": `{"kind": "List", "items": [
{"metadata": {"name": "rw-compute-0", "labels": {"risingwave/component": "compute"}}, "spec": {"containers": [{"name": "compute"}]}, "status": {"containerStatuses": [{"name": "compute", "restartCount": 1, "state": {"running": {"startedAt": "2026-11-29T20:40:07Z"}}, "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137, "startedAt": "2026-11-29T20:39:59Z", "finishedAt": "2026-11-29T20:40:07Z"}}}]}},
{"metadata": {"name": "rw-meta-0", "labels": {"risingwave/component": "meta"}}, "spec": {"containers": [{"name": "meta"}]}, "status": {"containerStatuses": [{"name": "meta", "restartCount": 0, "state": {"running": {"startedAt": "2026-11-29T19:00:00Z"}}}]}}
]}`,
	"kubernetes/events.json": `{"kind": "List", "items": [
{"kind": "Event", "type": "Warning", "reason": "BackOff", "count": 5, "firstTimestamp": "2026-11-29T20:40:08Z", "lastTimestamp": "2026-11-29T20:40:30Z", "message": "Back-off restarting failed container compute", "involvedObject": {"kind": "Pod", "name": "rw-compute-0", "fieldPath": "spec.containers{compute}"}},
{"kind": "Event", "type": "Normal", "reason": "Scheduled", "count": 1, "firstTimestamp": "2026-11-29T20:39:00Z", "lastTimestamp": "2026-11-29T20:39:00Z", "message": "Successfully assigned", "involvedObject": {"kind": "Pod", "name": "rw-meta-0"}},
{"kind": "Event", "type": "Warning", "reason": "OOMKilling", "count": 1, "firstTimestamp": "2026-11-29T20:40:07Z", "lastTimestamp": "2026-11-29T20:40:07Z", "message": "Memory cgroup out of memory: Killed process 42 (risingwave)", "involvedObject": {"kind": "Node", "name": "node-1"}}
]}`,
	"sql/rw_event_logs.csv": "unique_id,timestamp,event_type,info\n" +
		"u1,2026-11-29 20:40:08.1+00:00,COLLECT_BARRIER_FAIL,\"{\"\"collectBarrierFail\"\":\n {\"\"error\"\": \"\"connection reset by peer\"\"}}\"\n" +
		"u2,2026-11-29 20:40:09+00,GLOBAL_RECOVERY_START,\"{\"\"recovery\"\": {\"\"globalStart\"\": {\"\"reason\"\": \"\"failover\"\"}}}\"\n",
	"sql/rw_ddl_progress.csv": "ddl_id,ddl_statement,progress,initialized_at\n" +
		"9,\"CREATE MATERIALIZED VIEW mv_big AS SELECT * FROM t\",3.00% (3/100),2026-11-29 20:38:00+00:00\n",
	"metrics/rw-compute-0/1795984770000.prom": "test_gauge 1\n",  // 20:39:30
	"metrics/rw-compute-0/1795984800000.prom": "test_gauge 20\n", // 20:40:00
	"metrics/rw-compute-0/1795984830000.prom": "test_gauge 30\n", // 20:40:30
	"metrics/rw-meta-0/1795984770050.prom":    "test_gauge 0\n",  // the same rounds, 50 ms later
	"metrics/rw-meta-0/1795984800050.prom":    "test_gauge 0\n",
	"metrics/rw-meta-0/1795984830050.prom":    "test_gauge 0\n",
}

const tlRules = `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-gauge-high
    pattern: test
    severity: warning
    title: Gauge high
    subject: {kind: pod, field: pod}
    signals:
      gauge:
        promql: max by (pod) (test_gauge)
    condition: any(gauge, .value > 10)
    summary: '{{ .subject }} gauge is high'
    remediation: Lower it.
`

func tlRulesFor(t *testing.T) []*analyze.Rule {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte(tlRules), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadTestRules(t, p)
}

func tlInvestigate(t *testing.T, files map[string]string, opts analyze.TimelineOptions) (*analyze.Report, *analyze.Forensics) {
	t.Helper()
	rep, x, err := analyze.Investigate(context.Background(), writeBundleDir(t, files), tlRulesFor(t), bundle.Options{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep, x
}

func loadTestRules(t *testing.T, paths ...string) []*analyze.Rule {
	t.Helper()
	rules, err := analyze.LoadPaths(paths)
	if err != nil {
		t.Fatalf("load %v: %v", paths, err)
	}
	return rules
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

// The timeline's table escapes nothing a terminal would act on, its
// Markdown cells are safe, and its JSON keeps empty lists as [].
func TestTimelineWrite(t *testing.T) {
	tl := &analyze.Timeline{Bundle: "b.tar.zst", Entries: []analyze.TimelineEntry{
		{Time: time.Date(2026, 11, 29, 20, 40, 7, 800000000, time.UTC), Source: analyze.SourceLog, Level: "WARN", Pod: "rw-compute-0",
			Container: "compute", Path: "logs/rw-compute-0/compute.log", Line: 12, Text: "a | pipe and \x1b[31mcolour\x1b[0m"},
		{Time: time.Date(2026, 11, 29, 20, 40, 8, 0, time.UTC), Source: analyze.SourceEventLog, Level: "ERROR", Path: "sql/rw_event_logs.csv", Line: 2, Text: "COLLECT_BARRIER_FAIL"},
	}, Notes: []string{"logs/x.log: 3 lines carry no time"}}
	var table, md, js bytes.Buffer
	for f, buf := range map[Format]*bytes.Buffer{FormatTable: &table, FormatMarkdown: &md, FormatJSON: &js} {
		if err := WriteTimeline(buf, tl, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"2026-11-29T20:40:07.800Z  WARN   log        rw-compute-0/compute  a | pipe and colour",
		"(logs/rw-compute-0/compute.log:12)", "2 entries.", "Note: logs/x.log: 3 lines carry no time"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if strings.Contains(table.String(), "\x1b") {
		t.Error("table passes terminal escapes through")
	}
	for _, want := range []string{"| 2026-11-29T20:40:07.800Z | WARN | log | `rw-compute-0/compute` | `a \\| pipe and colour` |", "`sql/rw_event_logs.csv:2`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var back struct {
		Bundle  string
		Entries []map[string]any
		Notes   []string
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	e := back.Entries[0]
	if back.Bundle != "b.tar.zst" || e["time"] != "2026-11-29T20:40:07.8Z" || e["source"] != "log" || e["line"] != 12.0 || e["pod"] != "rw-compute-0" {
		t.Errorf("json = %s", js.String())
	}
	if _, ok := back.Entries[1]["pod"]; ok {
		t.Errorf("json has a pod for an entry without one: %s", js.String())
	}
	var empty bytes.Buffer
	if err := WriteTimeline(&empty, &analyze.Timeline{}, FormatJSON); err != nil || !strings.Contains(empty.String(), `"entries": []`) {
		t.Errorf("empty timeline json = %s, %v", empty.String(), err)
	}
}

// The Markdown report shows the timeline around each firing finding, and
// the HTML report is the same bytes every time.
func TestReportsShowTheTimeline(t *testing.T) {
	rep, x := tlInvestigate(t, tlBundle, analyze.TimelineOptions{})
	var md bytes.Buffer
	if err := WriteWith(&md, rep, FormatMarkdown, x); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Timeline** (2026-11-29T20:35:00.050Z to 2026-11-29T20:45:30.050Z, 5 minutes either side of the evidence; 1 more entry in `rwdiag timeline`)",
		"| 2026-11-29T20:40:00.050Z | WARN | metric | `rw-compute-0` | `test-gauge-high (rw-compute-0): the rule's condition first held on its metrics at this scrape: gauge{pod=rw-compute-0} = 20` | `metrics/rw-compute-0/1795984800000.prom` |",
		"| 2026-11-29T20:40:07.000Z | ERROR | termination | `rw-compute-0/compute` |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var plain bytes.Buffer
	if err := Write(&plain, rep, FormatMarkdown); err != nil || strings.Contains(plain.String(), "**Timeline**") {
		t.Errorf("markdown without forensics has a timeline (%v)", err)
	}
	var a, b bytes.Buffer
	if err := WriteWith(&a, rep, FormatHTML, x); err != nil {
		t.Fatal(err)
	}
	_, x2 := tlInvestigate(t, tlBundle, analyze.TimelineOptions{})
	if err := WriteWith(&b, rep, FormatHTML, x2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two HTML reports of the same bundle differ")
	}
	if !strings.Contains(a.String(), `<figure class="chart" data-signal="gauge">`) || strings.Count(a.String(), "<polyline") != 2 {
		t.Errorf("the HTML report lacks the gauge chart with its two series")
	}
}
