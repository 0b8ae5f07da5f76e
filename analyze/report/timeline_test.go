package report

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
)

// tlBundle is a small bundle with every timeline source; see
// ../testdata/timeline/README.md. tlRules holds one test rule over its gauge.
const (
	tlBundle = "../testdata/timeline/bundle"
	tlRules  = "../testdata/timeline/rules.yaml"
)

func tlRulesFor(t *testing.T) []*analyze.Rule {
	t.Helper()
	return loadTestRules(t, tlRules)
}

func tlInvestigate(t *testing.T, dir string, opts analyze.TimelineOptions) (*analyze.Report, *analyze.Forensics) {
	t.Helper()
	rep, x, err := analyze.Investigate(context.Background(), dir, tlRulesFor(t), bundle.Options{}, opts)
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
	for _, want := range []string{"2026-11-29T20:40:07.800Z  WARN   log        rw-compute-0/compute  a | pipe and colour\n",
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
