package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
)

// checkGolden compares got with testdata/golden/file, rewriting it with
// -update.
func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./analyze/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update to accept it)\n--- got ---\n%s", path, got)
	}
}

// checkLineWidths fails for a line of out longer than width columns unless
// the line is one identifier, alone and unindented, longer than width
// itself (it cannot be broken); and for trailing spaces.
func checkLineWidths(t *testing.T, out string, width int) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("width %d: line %d has trailing space: %q", width, i+1, line)
		}
		if n := len([]rune(line)); n > width && strings.ContainsAny(line, " |") {
			t.Errorf("width %d: line %d is %d columns wide:\n%s", width, i+1, n, line)
		}
	}
}

// A subject longer than what is left of the line after severity and status
// goes on a line of its own, indented when that fits; one longer than the
// line is alone on its line, whole.
func TestGridRenderStacked(t *testing.T) {
	for _, width := range []int{80, 100, 120, 200} {
		short := "shop-risingwave-compute-0"
		fits := strings.Repeat("x", width-2)                                            // alone on a line, indented 2
		long := "risingwave-compute-" + strings.Repeat("very-long-", width/10) + "7c9f" // longer than the line
		g := &grid{
			header: []string{"SEVERITY", "STATUS", "SUBJECT"},
			wrap:   []bool{false, false, false},
			border: true,
			rows:   [][]string{{"critical", "firing", short}, {"warning", "inconclusive", fits}, {"warning", "firing", long}},
		}
		var buf bytes.Buffer
		if err := g.renderStacked(&buf, width, false); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		checkLineWidths(t, out, width)
		want := "SEVERITY  STATUS        SUBJECT\n" +
			"critical  firing        " + short + "\n" +
			"warning   inconclusive\n  " + fits + "\n" +
			"warning   firing\n" + long + "\n"
		if out != want {
			t.Errorf("width %d:\n got:\n%s\nwant:\n%s", width, out, want)
		}
	}
	// Colour is added after the layout: the same lines, painted.
	g := &grid{header: []string{"SEVERITY", "SUBJECT"}, wrap: []bool{false, false}, rows: [][]string{{"critical", strings.Repeat("y", 90)}},
		paint: func(row, col int) string { return sgrRed }}
	var buf bytes.Buffer
	if err := g.renderStacked(&buf, 80, true); err != nil {
		t.Fatal(err)
	}
	if want := "SEVERITY  SUBJECT\n" + sgrRed + "critical" + sgrReset + "\n" + sgrRed + strings.Repeat("y", 90) + sgrReset + "\n"; buf.String() != want {
		t.Errorf("coloured:\n got %q\nwant %q", buf.String(), want)
	}
}

// layouts are the widths the text goldens are laid out for: a narrow
// terminal, the piped default, a wide terminal, and -o wide.
var layouts = []struct {
	name string
	opts Options
}{
	{"80", Options{Width: 80}},
	{"100", Options{}},
	{"200", Options{Width: 200}},
	{"wide", Options{Wide: true}},
}

func ruleRowsSample() []RuleRow {
	return []RuleRow{
		{ID: "backfill-starving-live-jobs", Pattern: "backfill-starvation", Severity: analyze.SeverityWarning, File: "backfill-starvation.yaml", Status: "active",
			Signals: []string{"backfill_rows (promql)", "backfilling (promql)", "cpu (promql)", "creating (sql)", "latency (promql)", "paused (log)", "piled (promql)", "progress (sql)", "slow_queries (log)", "snapshot_lag (promql)"}},
		{ID: "kafka-offset-replay-after-meta-restart", Pattern: "offset-replay", Severity: analyze.SeverityWarning, File: "offset-replay.yaml", Status: "active",
			Signals: []string{"leader_starts (log)", "meta_previous (log)", "meta_restarts (kube)", "offsets (promql)"}},
		{ID: "sink-blockage-legacy-jdbc", Pattern: "sink-blockage", Severity: analyze.SeverityCritical, Versions: "<2.0", File: "/home/me/rules/legacy.yaml",
			Status: "skipped: outside <2.0", Signals: []string{"errors (log)"}},
	}
}

func TestWriteRulesLayout(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := l.opts.WriteRules(&buf, ruleRowsSample()); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !l.opts.Wide {
				checkLineWidths(t, out, l.opts.width())
			}
			for _, r := range ruleRowsSample() {
				for _, want := range append([]string{r.ID, r.File}, r.Signals...) {
					if !strings.Contains(out, want) {
						t.Errorf("%q is broken or missing:\n%s", want, out)
					}
				}
			}
			if !strings.HasSuffix(out, "\n3 rules\n") {
				t.Errorf("no count line:\n%s", out)
			}
			checkGolden(t, "rules-"+l.name+".txt", buf.Bytes())
		})
	}
	var one bytes.Buffer
	if err := (Options{}).WriteRules(&one, ruleRowsSample()[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(one.String(), "\n1 rule\n") {
		t.Errorf("one rule:\n%s", one.String())
	}
}

// timelineSample has the frontend's slow query line, whose message comes
// after a long span, a source executor's, after a long module path, and a
// short start line that fits after its pod at 200 columns.
func timelineSample() *analyze.Timeline {
	at := time.Date(2026, 11, 29, 20, 15, 0, 1595609, time.UTC)
	return &analyze.Timeline{Bundle: "samples/compound-incident", Entries: []analyze.TimelineEntry{
		{Time: at.Add(-time.Minute), Source: analyze.SourceDDL, Level: "INFO", Path: "sql/rw_ddl_progress.csv", Line: 2,
			Text: "creation of materialized view mv_basket_affinity began (its backfill started); progress when collected: 27.90% (16740000/60000000)"},
		{Time: at, Source: analyze.SourceLog, Level: "WARN", Pod: "shop-risingwave-frontend-7ccz9z656z-4lw96", Container: "frontend",
			Path: "logs/shop-risingwave-frontend-7ccz9z656z-4lw96/frontend.log", Line: 8,
			Text: `handle_query{mode="simple query" session_id=12 sql="CREATE MATERIALIZED VIEW mv_basket_affinity AS SELECT a.product_id AS product_a, b.product_id AS product_b, count(*) AS baskets FROM order_items a JOIN order_items b ON a.order_id = b.order_id GROUP BY 1, 2"}: pgwire_slow_query_log: slow query elapsed=60000ms`},
		{Time: at.Add(90 * time.Second), Source: analyze.SourceLog, Level: "INFO", Pod: "shop-risingwave-compute-0", Container: "compute",
			Path: "logs/shop-risingwave-compute-0/compute.log", Line: 3, Text: "Starting compute node"},
		{Time: at.Add(2 * time.Minute), Source: analyze.SourceLog, Level: "WARN", Pod: "shop-risingwave-compute-0", Container: "compute",
			Path: "logs/shop-risingwave-compute-0/compute.log", Line: 29,
			Text: `actor{otel.name="Actor 1" actor_id=1 prev_epoch=11714440724480000 curr_epoch=11714440790016000}:executor{otel.name="SourceExecutor 100000001"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.003340s`},
	}, Notes: []string{"logs/x.log: 3 lines carry no time"}}
}

func TestTimelineLayout(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := l.opts.WriteTimeline(&buf, timelineSample(), FormatTable); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !l.opts.Wide {
				checkLineWidths(t, out, l.opts.width())
			}
			// The messages show, whatever the width; pod names are whole.
			for _, want := range []string{"slow query elapsed=60000ms", "source paused, wait barrier for 5.003340s",
				"shop-risingwave-frontend-7ccz9z656z-4lw96/frontend", "logs/shop-risingwave-compute-0/compute.log:29"} {
				if !strings.Contains(out, want) {
					t.Errorf("%q is missing:\n%s", want, out)
				}
			}
			// A text that fits after its entry's pod is on the entry's line
			// (at 200 columns); one that does not, on a line of its own.
			short := regexp.MustCompile(`(?m)^2026-11-29T20:16:30\.001Z +INFO +log +shop-risingwave-compute-0/compute +Starting compute node$`)
			if got, want := short.MatchString(out), l.name == "200"; got != want {
				t.Errorf("start line on its entry's line: %v, want %v:\n%s", got, want, out)
			}
			if got, want := strings.HasSuffix(strings.SplitN(out, "\n", 2)[0], "WHAT"), l.name != "80" && l.name != "100"; got != want {
				t.Errorf("WHAT header: %v, want %v:\n%s", got, want, out)
			}
			if !l.opts.Wide && !strings.Contains(out, "\n    "+ShortenLogText(timelineSample().Entries[1].Text, l.opts.width()-4)+"\n") {
				t.Errorf("the slow query's text is not on a line of its own:\n%s", out)
			}
			checkGolden(t, "timeline-"+l.name+".txt", buf.Bytes())
		})
	}
}

// A pod name longer than the line is printed whole on a line of its own,
// and nothing else goes past the width.
func TestTimelineLongPod(t *testing.T) {
	pod := "risingwave-compute-with-a-very-long-release-name-" + strings.Repeat("for-the-production-cluster-", 6) + "7c9f-0"
	tl := &analyze.Timeline{Entries: []analyze.TimelineEntry{{Time: time.Date(2026, 11, 29, 20, 15, 0, 0, time.UTC), Source: analyze.SourceLog,
		Level: "WARN", Pod: pod, Container: "compute", Path: "logs/" + pod + "/compute.log", Line: 3, Text: "source paused, wait barrier for 5.003340s"}}}
	for _, width := range []int{80, 100, 120, 200} {
		var buf bytes.Buffer
		if err := (Options{Width: width}).WriteTimeline(&buf, tl, FormatTable); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		checkLineWidths(t, out, width)
		for _, want := range []string{"\n" + pod + "/compute\n", "\n(logs/" + pod + "/compute.log:3)\n", "\n    source paused, wait barrier for 5.003340s\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: no line %q:\n%s", width, strings.TrimSpace(want), out)
			}
		}
	}
}

func TestShortenLogText(t *testing.T) {
	slow := `handle_query{mode="simple query" session_id=12 sql="CREATE MATERIALIZED VIEW mv AS SELECT a FROM t"}: pgwire_slow_query_log: slow query elapsed=60000ms`
	paused := `2026-11-29T20:17:01.309516590Z  WARN actor{actor_id=1}:executor{otel.name="SourceExecutor 100000001"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.003340s`
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{slow, 0, slow},
		{slow, 1000, slow},
		{slow, 80, `handle_query{mode="simple…: pgwire_slow_query_log: slow query elapsed=60000ms`},
		{slow, 50, `pgwire_slow_query_log: slow query elapsed=60000ms`},
		{slow, 30, `slow query elapsed=60000ms`},
		{slow, 20, `slow query…`},
		{paused, 170, `2026-11-29T20:17:01.309516590Z  WARN actor{actor_id=1}:executor{otel.name="SourceExecutor 100000001"}: source_executor: source paused, wait barrier for 5.003340s`},
		{paused, 150, `2026-11-29T20:17:01.309516590Z  WARN actor{actor_id=1}:executor{otel.name="SourceExecutor…: source_executor: source paused, wait barrier for 5.003340s`},
		{paused, 100, `2026-11-29T20:17:01.309516590Z  WARN source_executor: source paused, wait barrier for 5.003340s`},
		{"no target here, just a long plain message that goes on", 30, "no target here, just a long…"},
	} {
		if got := ShortenLogText(tc.in, tc.n); got != tc.want {
			t.Errorf("ShortenLogText(%d)\n got %q\nwant %q", tc.n, got, tc.want)
		}
		if tc.n > 0 && len([]rune(ShortenLogText(tc.in, tc.n))) > tc.n {
			t.Errorf("ShortenLogText(%d) is longer than %d", tc.n, tc.n)
		}
	}
}

func TestFixLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Throttle the backfill so the live jobs get CPU back (rows per second per actor; it can\nbe changed while the backfill runs, from v1.9):\n\n```sql\nALTER ...\n```",
			"Throttle the backfill so the live jobs get CPU back (rows per second per actor; it can be changed while the backfill runs, from v1.9):"},
		{"```sh\nkubectl get pods\n```\n\nThen look.", "Then look."},
		{"1. First step. More\n   words here.", "1. First step. More words here."},
		{strings.Repeat("word ", 30) + "ends here. More " + strings.Repeat("more ", 40), strings.Repeat("word ", 30) + "ends here."},
	} {
		if got := fixLine(tc.in); got != tc.want {
			t.Errorf("fixLine(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
