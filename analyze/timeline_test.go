package analyze

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// tlBundle is a small bundle with every timeline source; see
// testdata/timeline/README.md. tlRules holds one test rule over its gauge.
const (
	tlBundle = "testdata/timeline/bundle"
	tlRules  = "testdata/timeline/rules.yaml"
)

func tlRulesFor(t *testing.T) []*Rule {
	t.Helper()
	return loadTestRules(t, tlRules)
}

// tlWant is an expected entry: its source, time, "path:line" and a piece of
// its text.
type tlWant struct {
	source TimelineSource
	time   string
	from   string
	text   string
}

func tlCheck(t *testing.T, got []TimelineEntry, want []tlWant) {
	t.Helper()
	var b strings.Builder
	for _, e := range got {
		fmt.Fprintf(&b, "  %s %s %s %s\n", e.Time.Format(time.RFC3339Nano), e.Source, e.Location(), e.Text)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d:\n%s", len(got), len(want), b.String())
	}
	for i, w := range want {
		e := got[i]
		at, err := time.Parse(time.RFC3339Nano, w.time)
		if err != nil {
			t.Fatal(err)
		}
		if e.Source != w.source || !e.Time.Equal(at) || e.Location() != w.from || !strings.Contains(e.Text, w.text) {
			t.Errorf("entry %d = %s %s %s %q, want %s %s %s containing %q\nall:\n%s", i, e.Time.Format(time.RFC3339Nano), e.Source,
				e.Location(), e.Text, w.time, w.source, w.from, w.text, b.String())
		}
		if e.Time.Location() != time.UTC {
			t.Errorf("entry %d time %v is not in UTC", i, e.Time)
		}
	}
}

func tlInvestigate(t *testing.T, dir string, opts TimelineOptions) (*Report, *Forensics) {
	t.Helper()
	rep, x, err := Investigate(context.Background(), dir, tlRulesFor(t), bundle.Options{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep, x
}

// Every source lands on one line of time, normalised to UTC, each entry
// naming its file and line; the crashed instance's log comes before the
// termination that ended it, though Kubernetes' whole-second finishedAt is
// earlier than its last line, and the restart after that.
func TestTimelineSources(t *testing.T) {
	rep, x := tlInvestigate(t, tlBundle, TimelineOptions{})
	if len(rep.Findings) != 1 || rep.Findings[0].Subject != "rw-compute-0" {
		t.Fatalf("findings = %+v, want test-gauge-high on rw-compute-0", rep.Findings)
	}
	tlCheck(t, x.Timeline.Entries, []tlWant{
		{SourceDDL, "2026-11-29T20:38:00Z", "sql/rw_ddl_progress.csv:2", "creation of materialized view mv_big began"},
		{SourceEvent, "2026-11-29T20:39:00Z", "kubernetes/events.json:3", "Normal Scheduled pod/rw-meta-0: Successfully assigned"},
		{SourceMetric, "2026-11-29T20:40:00.05Z", "metrics/rw-compute-0/1795984800000.prom", "test-gauge-high (rw-compute-0): the rule's condition first held on its metrics at this scrape: gauge{pod=rw-compute-0} = 20"},
		{SourceLog, "2026-11-29T20:40:05.2Z", "logs/rw-compute-0/compute.previous.log:2", "risingwave_stream::executor::source::source_executor: source paused"},
		{SourceLog, "2026-11-29T20:40:06.3Z", "logs/rw-compute-0/compute.previous.log:4", "Failed to sync state store"},
		{SourceEvent, "2026-11-29T20:40:07Z", "kubernetes/events.json:4", "Warning OOMKilling node/node-1: Memory cgroup out of memory"},
		{SourceLog, "2026-11-29T20:40:07.8Z", "logs/rw-compute-0/compute.previous.log:5", "risingwave_compute::memory: memory is tight used=7.9GiB"},
		{SourceTermination, "2026-11-29T20:40:07Z", "kubernetes/pods.json:2", "container compute terminated: OOMKilled, exit code 137 (it had started at 20:39:59Z); restarted 1 time in all"},
		{SourceRestart, "2026-11-29T20:40:07Z", "kubernetes/pods.json:2", "container compute started again (restart 1)"},
		{SourceEvent, "2026-11-29T20:40:08Z", "kubernetes/events.json:2", "Warning BackOff pod/rw-compute-0: Back-off restarting failed container compute (first of 5; last at 20:40:30Z)"},
		{SourceLog, "2026-11-29T20:40:08Z", "logs/rw-meta-0/meta.log:1", "get error from response stream"},
		{SourceEventLog, "2026-11-29T20:40:08.1Z", "sql/rw_event_logs.csv:2", "COLLECT_BARRIER_FAIL: error=connection reset by peer"},
		{SourceEventLog, "2026-11-29T20:40:09Z", "sql/rw_event_logs.csv:4", "GLOBAL_RECOVERY_START: globalStart.reason=failover"},
		{SourceLog, "2026-11-29T20:40:10.1Z", "logs/rw-compute-0/compute.log:1", "heap profiling is off"},
		{SourceLog, "2026-11-29T20:40:11.5Z", "logs/rw-compute-0/compute.log:2", "actor exit with error actor_id=7"},
		{SourceEvent, "2026-11-29T20:40:30Z", "kubernetes/events.json:2", "(last of 5; first at 20:40:08Z)"},
	})
	byText := map[string]TimelineEntry{}
	for _, e := range x.Timeline.Entries {
		byText[e.Text] = e
	}
	for _, e := range x.Timeline.Entries {
		switch {
		case e.Source == SourceLog && e.Pod == "rw-compute-0" && e.Container != "compute":
			t.Errorf("%s: container %q, want compute", e.Location(), e.Container)
		case e.Source == SourceLog && strings.Contains(e.Text, "Failed to sync") && e.Level != "ERROR":
			t.Errorf("%s: level %q, want ERROR", e.Location(), e.Level)
		case e.Source == SourceMetric && (e.Rule != "test-gauge-high" || e.Fingerprint != rep.Findings[0].Fingerprint || e.Level != "WARN"):
			t.Errorf("metric entry %+v does not name its finding", e)
		}
	}
	h := x.History[rep.Findings[0].Fingerprint]
	if h == nil || h.AtStart || h.WithEvents || len(h.Times) != 3 || len(h.Signals) != 1 || len(h.Signals[0].Series) != 2 {
		t.Fatalf("history = %+v, want 3 rounds, one signal with two series, held on metrics after the start", h)
	}
	// Held marks every round the rule gave the finding, the first of them
	// at FirstHeld.
	first := -1
	for i, held := range h.Held {
		if held && first < 0 {
			first = i
		}
	}
	if len(h.Held) != len(h.Times) || first < 1 || !h.Times[first].Equal(h.FirstHeld) {
		t.Errorf("held = %v at %v, want the rounds from FirstHeld %v", h.Held, h.Times, h.FirstHeld)
	}
}

func TestTimelineOptions(t *testing.T) {
	kinds := func(es []TimelineEntry) string {
		var parts []string
		for _, e := range es {
			parts = append(parts, string(e.Source)+"@"+e.Time.Format("15:04:05.0"))
		}
		return strings.Join(parts, " ")
	}
	for _, tt := range []struct {
		name string
		opts TimelineOptions
		want string
	}{
		{"errors only", TimelineOptions{MinLevel: "ERROR"},
			// Without the WARN line at 20:40:07.8, the termination keeps its own time.
			"ddl@20:38:00.0 event@20:39:00.0 metric@20:40:00.0 log@20:40:06.3 termination@20:40:07.0 restart@20:40:07.0 event@20:40:07.0 " +
				"event@20:40:08.0 event-log@20:40:08.1 event-log@20:40:09.0 log@20:40:11.5 event@20:40:30.0"},
		{"a window", TimelineOptions{Since: time.Date(2026, 11, 29, 20, 40, 8, 0, time.UTC), Until: time.Date(2026, 11, 29, 20, 40, 9, 0, time.UTC)},
			"event@20:40:08.0 log@20:40:08.0 event-log@20:40:08.1 event-log@20:40:09.0"},
		{"one pod", TimelineOptions{Pod: "rw-compute-*"},
			"metric@20:40:00.0 log@20:40:05.2 log@20:40:06.3 log@20:40:07.8 termination@20:40:07.0 restart@20:40:07.0 " +
				"event@20:40:08.0 log@20:40:10.1 log@20:40:11.5 event@20:40:30.0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, x := tlInvestigate(t, tlBundle, tt.opts)
			if got := kinds(x.Timeline.Entries); got != tt.want {
				t.Errorf("entries:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	// INFO lines come with --min-level info; level-less lines never.
	_, x := tlInvestigate(t, tlBundle, TimelineOptions{MinLevel: "INFO"})
	var sawInfo bool
	for _, e := range x.Timeline.Entries {
		sawInfo = sawInfo || strings.Contains(e.Text, "Starting compute node")
		if strings.Contains(e.Text, "total_memory") || strings.Contains(e.Text, "continuation") {
			t.Errorf("a line without a level is on the timeline: %+v", e)
		}
	}
	if !sawInfo {
		t.Error("--min-level INFO lost the INFO line")
	}
}

// A Rust panic, which RisingWave prints without a time or level, is an
// ERROR entry at the time of the line before it (or of its kubectl prefix),
// with its message, whether the message is on the header line (before Rust
// 1.73) or on the next; its backtrace adds no entry.
func TestTimelineShowsPanics(t *testing.T) {
	files := map[string]string{
		"logs/rw-compute-0/compute.previous.log": "" +
			"  2023-08-02T07:10:44.61803Z  INFO risingwave_compute::server: Starting compute node\n" +
			"    at src/compute/src/server.rs:90\n" +
			"\n" +
			"thread 'risingwave-streaming-actor' panicked at 'attempt to subtract with overflow', src/stream/src/executor/over_window/general.rs:412:21\n" +
			"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
		"logs/rw-meta-0/meta.log": "" +
			"2026-03-09T02:11:45.170034Z  INFO risingwave_meta::barrier::worker: recovery success\n" +
			"thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1288:30:\n" +
			"fragment should exist\n" +
			"stack backtrace:\n" +
			"   0: __rustc::rust_begin_unwind\n" +
			"             at /rustc/9f3a2bd1b4c54e0c2e1a3f1d7d9e8c6b5a4f3e2d/library/std/src/panicking.rs:698:5\n",
		"logs/rw-compute-1/compute.log": "" +
			"2025-04-22T16:44:02.903411207Z 2025-04-22T16:44:02.903Z  INFO risingwave_compute::server: Starting compute node\n" +
			"2025-04-22T16:51:19.118034765Z thread 'rw-streaming' panicked at src/stream/src/executor/merge.rs:303:21:\n" +
			"2025-04-22T16:51:19.118041023Z upstream actor 12 not found\n" +
			"2025-04-22T16:51:19.118042371Z note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
	}
	_, x := tlInvestigate(t, writeBundleDir(t, files), TimelineOptions{})
	tlCheck(t, x.Timeline.Entries, []tlWant{
		{SourceLog, "2023-08-02T07:10:44.61803Z", "logs/rw-compute-0/compute.previous.log:4",
			"thread 'risingwave-streaming-actor' panicked at 'attempt to subtract with overflow', src/stream/src/executor/over_window/general.rs:412:21"},
		{SourceLog, "2025-04-22T16:51:19.118034765Z", "logs/rw-compute-1/compute.log:2",
			"thread 'rw-streaming' panicked at src/stream/src/executor/merge.rs:303:21: upstream actor 12 not found"},
		{SourceLog, "2026-03-09T02:11:45.170034Z", "logs/rw-meta-0/meta.log:2",
			"thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1288:30: fragment should exist"},
	})
	for _, e := range x.Timeline.Entries {
		if e.Level != "ERROR" {
			t.Errorf("%s: level %q, want ERROR", e.Location(), e.Level)
		}
	}
}

// While a container waits in CrashLoopBackOff its current and previous logs
// hold the same run: its lines appear once, from the previous log.
func TestTimelineDedupesCrashLoopLogs(t *testing.T) {
	run := "2026-11-29T20:40:05.200000Z  WARN risingwave_compute::memory: memory is tight\n" +
		"2026-11-29T20:40:06.200000Z ERROR risingwave_compute::memory: out of memory\n"
	files := map[string]string{
		"logs/rw-compute-0/compute.log":          run,
		"logs/rw-compute-0/compute.previous.log": run,
		"logs/rw-compute-0/sidecar.log":          run,
	}
	_, x := tlInvestigate(t, writeBundleDir(t, files), TimelineOptions{})
	var got []string
	for _, e := range x.Timeline.Entries {
		got = append(got, e.Location())
	}
	want := "logs/rw-compute-0/compute.previous.log:1 logs/rw-compute-0/sidecar.log:1 logs/rw-compute-0/compute.previous.log:2 logs/rw-compute-0/sidecar.log:2"
	if strings.Join(got, " ") != want {
		t.Errorf("entries from %s, want %s", strings.Join(got, " "), want)
	}
}

// Gather without a timeline reads nothing for it, and the stores see every
// byte when one is asked for.
func TestGatherWithTimelineKeepsStoresWhole(t *testing.T) {
	dir := tlBundle
	rules := tlRulesFor(t)
	plain, err := Gather(context.Background(), dir, rules, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	with, err := GatherWith(context.Background(), dir, rules, bundle.Options{}, GatherOptions{Timeline: &TimelineOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	defer with.Close()
	if plain.tap != nil || len(plain.BuildTimeline(nil, nil).Notes) != 1 {
		t.Error("Gather kept timeline data")
	}
	a, b := plain.SQL.Tables(), with.SQL.Tables()
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) != 2 {
		t.Errorf("SQL tables differ with a timeline:\n%v\n%v", a, b)
	}
	if plain.Info.Files != with.Info.Files || len(with.Info.Problems) != 0 {
		t.Errorf("files %d vs %d, problems %v", plain.Info.Files, with.Info.Files, with.Info.Problems)
	}
}

// The timeline splits lines as bundle.LineReader does, so that its line
// numbers are the ones the rules' evidence cites.
func TestLineSplitterMatchesLineReader(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	inputs := []string{"", "a", "a\n", "a\r\nb", "\n\n", "x\r\n\r\ny\n", "a\rb\n", strings.Repeat("z", bundle.DefaultMaxLineBytes+10) + "\nshort\n"}
	for range 200 {
		var b strings.Builder
		for range r.Intn(20) {
			b.WriteString([]string{"a", "bc", "\n", "\r\n", "\r", " ", "{\"x\":1}"}[r.Intn(7)])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		var want []string
		lr := bundle.NewLineReader(strings.NewReader(in), 0)
		for {
			line, n, _, err := lr.Next()
			if err != nil {
				break
			}
			want = append(want, fmt.Sprintf("%d:%q", n, line))
		}
		var got []string
		s := lineSplitter{fn: func(line []byte, n int) { got = append(got, fmt.Sprintf("%d:%q", n, line)) }}
		// Written in pieces of random size, as a TeeReader passes them on.
		for rest := in; rest != ""; {
			k := min(len(rest), 1+r.Intn(5))
			s.Write([]byte(rest[:k]))
			rest = rest[k:]
		}
		s.finish()
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("input %.40q: got %.200s, want %.200s", in, strings.Join(got, "|"), strings.Join(want, "|"))
		}
	}
}

// An excerpt keeps the finding's own entries when the window holds more
// than it shows.
func TestExcerptPrefersTheFindingsOwnEntries(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	tl := &Timeline{}
	for i := range 100 {
		tl.Entries = append(tl.Entries, TimelineEntry{Time: t0.Add(time.Duration(i) * time.Second), Source: SourceLog, Level: "WARN",
			Pod: "other", Path: "logs/other/x.log", Line: i + 1, Text: "noise"})
	}
	tl.Entries = append(tl.Entries,
		TimelineEntry{Time: t0.Add(50 * time.Second), Source: SourceLog, Level: "INFO", Pod: "p", Path: "logs/p/c.log", Line: 7, Text: "cited"},
		TimelineEntry{Time: t0.Add(60 * time.Second), Source: SourceMetric, Level: "ERROR", Fingerprint: "fp", Text: "held"},
		TimelineEntry{Time: t0.Add(time.Hour), Source: SourceTermination, Level: "ERROR", Pod: "p", Text: "far away"})
	orderTimeline(tl.Entries)
	f := Finding{Fingerprint: "fp", Subject: "p", Evidence: []Evidence{{Path: "logs/p/c.log", Line: 7, Time: t0.Add(50 * time.Second)}}}
	x := &Forensics{Timeline: tl, History: map[string]*MetricHistory{"fp": {FirstHeld: t0.Add(60 * time.Second)}}}
	ex, ok := x.Excerpt(f, 5)
	if !ok || len(ex.Entries) != 5 || ex.More != 97 {
		t.Fatalf("excerpt = %+v, want 5 entries and 97 more", ex)
	}
	var texts []string
	for _, e := range ex.Entries {
		texts = append(texts, e.Text)
	}
	if got := strings.Join(texts, ","); got != "noise,noise,cited,held,noise" {
		t.Errorf("excerpt texts %s, want the cited line and the metric entry among the nearest noise", got)
	}
	if _, ok := x.Excerpt(Finding{Fingerprint: "none"}, 5); ok {
		t.Error("a finding without a time got an excerpt")
	}
	var nilX *Forensics
	if _, ok := nilX.Excerpt(f, 5); ok {
		t.Error("no forensics gave an excerpt")
	}
}

// The acceptance test of issue 7: on the compound-incident sample the
// timeline shows the backfill starting, then the barrier latency rising,
// then the OOM kill, each with its source.
func TestTimelineCompoundIncident(t *testing.T) {
	const sample = "../samples/compound-incident"
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("%s is not generated yet: %v", sample, err)
	}
	rules := loadTestRules(t, "../rules")
	rep, x, err := Investigate(context.Background(), sample, rules, bundle.Options{}, TimelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	find := func(what string, match func(TimelineEntry) bool) (int, TimelineEntry) {
		t.Helper()
		for i, e := range x.Timeline.Entries {
			if match(e) {
				return i, e
			}
		}
		var b strings.Builder
		for _, e := range x.Timeline.Entries {
			fmt.Fprintf(&b, "  %s %s %s %s\n", e.Time.Format(time.RFC3339Nano), e.Source, e.Location(), e.Text)
		}
		t.Fatalf("no %s on the timeline:\n%s", what, b.String())
		return 0, TimelineEntry{}
	}
	iBackfill, backfill := find("backfill start", func(e TimelineEntry) bool {
		return e.Source == SourceDDL && strings.Contains(e.Text, "mv_basket_affinity")
	})
	iLatency, latency := find("barrier latency rise", func(e TimelineEntry) bool {
		return e.Source == SourceMetric && e.Rule == "backfill-starving-live-jobs" && strings.Contains(e.Text, "latency = ")
	})
	iKill, kill := find("OOM kill", func(e TimelineEntry) bool {
		return e.Source == SourceTermination && strings.Contains(e.Text, "OOMKilled")
	})
	if !(iBackfill < iLatency && iLatency < iKill) || !backfill.Time.Before(latency.Time) || !latency.Time.Before(kill.Time) {
		t.Errorf("order: backfill #%d at %s, latency #%d at %s, kill #%d at %s; want them in this order",
			iBackfill, backfill.Time, iLatency, latency.Time, iKill, kill.Time)
	}
	for _, c := range []struct {
		e        TimelineEntry
		path     string
		wantLine bool
	}{{backfill, "sql/rw_ddl_progress.csv", true}, {latency, "metrics/", false}, {kill, "kubernetes/pods.json", true}} {
		if !strings.HasPrefix(c.e.Path, c.path) || (c.wantLine && c.e.Line == 0) {
			t.Errorf("%s entry names %s, want a line of %s", c.e.Source, c.e.Location(), c.path)
		}
	}
	if kill.Pod != "shop-risingwave-compute-1" {
		t.Errorf("the OOM kill is of %q, want shop-risingwave-compute-1", kill.Pod)
	}
	// The latency rises across the scrapes, and the rule first held on it.
	for _, f := range rep.Findings {
		if f.Rule != "backfill-starving-live-jobs" {
			continue
		}
		h := x.History[f.Fingerprint]
		if h == nil || h.AtStart {
			t.Fatalf("history of %s = %+v, want one that held after the first scrape", f.Rule, h)
		}
		for _, s := range h.Signals {
			if s.Name != "latency" {
				continue
			}
			pts := s.Series[0].Points
			if len(pts) < 3 || pts[len(pts)-1].V < 2*pts[0].V {
				t.Errorf("latency points %v do not rise", pts)
			}
		}
	}
}

// Forensics carry each pod's container memory limit, for the HTML memory
// chart: the compute container's, not a sidecar's.
func TestForensicsMemoryLimits(t *testing.T) {
	_, x := tlInvestigate(t, "../samples/compound-incident", TimelineOptions{})
	if got, want := x.MemoryLimits["shop-risingwave-compute-1"], 16.0*(1<<30); got != want {
		t.Errorf("compute-1 limit = %v, want %v (all: %v)", got, want, x.MemoryLimits)
	}
	_, x = tlInvestigate(t, tlBundle, TimelineOptions{})
	if x.MemoryLimits != nil {
		t.Errorf("a bundle whose pods state no limit has limits %v", x.MemoryLimits)
	}
}
