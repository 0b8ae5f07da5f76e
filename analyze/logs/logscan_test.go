package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// lsQuery builds a query, failing the test on a bad one.
func lsQuery(t testing.TB, name, re string, mod ...func(*Query)) *Query {
	t.Helper()
	q := &Query{Name: name, Regex: regexp.MustCompile(re)}
	for _, m := range mod {
		m(q)
	}
	if err := CheckQuery(q); err != nil {
		t.Fatal(err)
	}
	return q
}

// lsScanFile scans a testdata file as the bundle path p.
func lsScanFile(t *testing.T, s *Scanner, file, p string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := bundle.Classify(p)
	if !s.Wants(c) {
		t.Fatalf("scanner does not want %s", p)
	}
	if err := s.Scan(p, c, f); err != nil {
		t.Fatal(err)
	}
}

func lsResults(t *testing.T, s *Scanner, name string, wantCount int) []evidence.Row {
	t.Helper()
	rows, count, files := s.Results(name)
	if count != wantCount || len(rows) != min(wantCount, DefaultMaxRows) {
		t.Fatalf("%s: %d matches, %d rows; want %d", name, count, len(rows), wantCount)
	}
	if files == 0 {
		t.Fatalf("%s: no files", name)
	}
	return rows
}

// TestLogScanFormats runs the same regular expressions over the same log in
// the text format with +08:00 offsets, in the text format behind kubectl's
// timestamps, and in the JSON format.
func TestLogScanFormats(t *testing.T) {
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, file := range []string{"text.log", "kubectl.log", "json.log"} {
		t.Run(file, func(t *testing.T) {
			warn := func(q *Query) { q.MinLevel = "WARN" }
			s := NewScanner([]*Query{
				lsQuery(t, "r/paused", `source paused, wait barrier for (?P<wait>\S+)`, warn),
				lsQuery(t, "r/paused-any", `source paused, wait barrier for (?P<wait>\S+)`),
				lsQuery(t, "r/watermarks", `fetch kafka watermarks: low: (?P<low>-?\d+), high: (?P<high>-?\d+), split: .*start_offset: Some\((?P<start>\d+)\)`),
				lsQuery(t, "r/outline", `^> total_memory: (?P<total>.+)$`),
				lsQuery(t, "r/actor", `actor_id=(?P<actor>\d+)`),
				lsQuery(t, "r/sink", `(?i)error.*sink_id=(?P<sink>\d+)`),
				lsQuery(t, "r/level", `^\S+ +(?P<lvl>[A-Z]+) risingwave_compute::server: Starting`),
			})
			p := "logs/rw-compute-0/compute.log"
			lsScanFile(t, s, file, p)

			r := lsResults(t, s, "r/paused", 1)[0]
			want := evidence.Row{"pod": "rw-compute-0", "container": "compute", "path": p, "line": 6,
				"time": utc("2026-11-29T20:42:10.5Z"), "level": "WARN", "target": "risingwave_stream::executor::source::source_executor",
				"message": "source paused, wait barrier for 5.1s", "previous": false, "kind": "log", "wait": "5.1s"}
			for k, v := range want {
				if k == "time" {
					if !r[k].(time.Time).Equal(v.(time.Time)) {
						t.Errorf("time = %v, want %v", r[k], v)
					}
				} else if r[k] != v {
					t.Errorf("%s = %#v, want %#v", k, r[k], v)
				}
			}
			if !strings.Contains(r["text"].(string), `actor{otel.name="Actor 12" actor_id=12}:executor{otel.name="SourceExecutor 5"}: risingwave_stream`) {
				t.Errorf("text = %q", r["text"])
			}

			if rows := lsResults(t, s, "r/paused-any", 2); rows[1]["level"] != "DEBUG" || rows[1]["wait"] != "6s" {
				t.Errorf("second pause: %v", rows[1])
			}

			r = lsResults(t, s, "r/watermarks", 1)[0]
			if r["low"] != "0" || r["high"] != "1500" || r["start"] != "1234" || r["line"] != 5 {
				t.Errorf("watermarks row: %v", r)
			}
			if !r["time"].(time.Time).Equal(utc("2026-11-29T20:41:09.000001Z")) {
				t.Errorf("watermarks time %v", r["time"])
			}

			// A continuation line's row is its event's: the time, level and
			// message of the "Memory outline:" line above it, and its own
			// text and number. After a JSON line, which is a whole event,
			// the same lines stand alone: no level, no time of their own.
			r = lsResults(t, s, "r/outline", 1)[0]
			wantLevel, wantTime := "INFO", utc("2026-11-29T20:41:07.223456Z")
			wantMessage := "Memory outline:\n> total_memory: 8.00 GiB\n>     compute_memory: 2.40 GiB"
			if file == "json.log" {
				wantLevel, wantTime, wantMessage = "", time.Time{}, "> total_memory: 8.00 GiB"
			}
			if r["total"] != "8.00 GiB" || r["line"] != 3 || r["level"] != wantLevel || r["text"] != "> total_memory: 8.00 GiB" ||
				r["message"] != wantMessage {
				t.Errorf("outline row: %v", r)
			}
			if !r["time"].(time.Time).Equal(wantTime) {
				t.Errorf("outline time %v, want %v", r["time"], wantTime)
			}

			rows := lsResults(t, s, "r/actor", 3)
			for i, line := range []int{5, 6, 8} {
				if rows[i]["actor"] != "12" || rows[i]["line"] != line {
					t.Errorf("actor row %d: %v", i, rows[i])
				}
			}
			if r := lsResults(t, s, "r/sink", 1)[0]; r["sink"] != "7" || r["level"] != "ERROR" {
				t.Errorf("sink row: %v", r)
			}
			if r := lsResults(t, s, "r/level", 1)[0]; r["lvl"] != "INFO" {
				t.Errorf("level row: %v", r)
			}
		})
	}
}

func TestLogScanContainerAndPrevious(t *testing.T) {
	s := NewScanner([]*Query{
		lsQuery(t, "r/compute", `Starting compute node`, func(q *Query) { q.Container = "compute" }),
		lsQuery(t, "r/any", `Starting compute node`),
		lsQuery(t, "r/describe", `OOMKilled`, func(q *Query) { q.Kinds = []bundle.Kind{bundle.KindDescribe}; q.Container = "compute" }),
	})
	meta := bundle.Classify("logs/rw-meta-0/meta.log")
	if !s.Wants(meta) {
		t.Error("r/any wants every log")
	}
	if s.Wants(bundle.Classify("metrics/rw-meta-0/1764448867000.prom")) {
		t.Error("nothing wants metrics")
	}
	line := "2026-11-29T20:41:07.123456789Z  INFO risingwave_compute::server: Starting compute node\n"
	for _, p := range []string{"logs/rw-meta-0/meta.log", "logs/rw-compute-0/compute.log", "logs/rw-compute-0/compute.previous.log", "kubernetes/describe/pods/rw-compute-0.txt"} {
		c := bundle.Classify(p)
		text := line
		if c.Kind == bundle.KindDescribe {
			text = "      Reason:       OOMKilled\n"
		}
		if err := s.Scan(p, c, strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
	}
	rows, count, files := s.Results("r/compute")
	if count != 2 || files != 2 || rows[0]["previous"] != false || rows[1]["previous"] != true || rows[1]["kind"] != "previous-log" {
		t.Errorf("r/compute: count %d files %d rows %v", count, files, rows)
	}
	if _, count, files := s.Results("r/any"); count != 3 || files != 3 {
		t.Errorf("r/any: count %d files %d", count, files)
	}
	// A container filter does not apply to files of no container.
	rows, count, files = s.Results("r/describe")
	if count != 1 || files != 1 || rows[0]["pod"] != "rw-compute-0" || rows[0]["container"] != "" || rows[0]["text"] != "      Reason:       OOMKilled" || rows[0]["kind"] != "describe" {
		t.Errorf("r/describe: count %d files %d rows %v", count, files, rows)
	}
	if rows, count, files := s.Results("no/such"); rows != nil || count != 0 || files != 0 {
		t.Error("unknown query has results")
	}
}

// TestLogScanJSONLines covers JSON lines behind the kubectl prefix, the
// byte-level skip, and lines with escapes, which are always rendered.
func TestLogScanJSONLines(t *testing.T) {
	s := NewScanner([]*Query{
		lsQuery(t, "r/sink", `(?P<lvl>ERROR) \S+: actor exit with error actor_id=(?P<actor>\d+) error="Sink error: sink_id=(?P<sink>\d+)`),
		lsQuery(t, "r/quoted", `topic: "(?P<topic>\w+)"`),
		lsQuery(t, "r/warn", `WARN risingwave_stream`, func(q *Query) { q.MinLevel = "warn" }),
	})
	log := `2026-11-29T20:41:07.5Z {"timestamp":"2026-11-29T20:41:07Z","level":"ERROR","fields":{"message":"actor exit with error","actor_id":12,"error":"Sink error: sink_id=7, error: x"},"target":"risingwave_stream::task::actor_manager"}
2026-11-29T20:41:07.6Z {"timestamp":"2026-11-29T20:41:07Z","level":"INFO","fields":{"message":"split: KafkaSplit { topic: \"orders\" }"},"target":"risingwave_connector"}
2026-11-29T20:41:07.7Z {"timestamp":"2026-11-29T20:41:07Z","level":"warn","fields":{"message":"m"},"target":"risingwave_stream::x"}
2026-11-29T20:41:07.8Z {"timestamp":"2026-11-29T20:41:07Z","level":"INFO","fields":{"message":"WARN risingwave_stream"},"target":"t"}
2026-11-29T20:41:07.9Z {"timestamp":"2026-11-29T20:41:07Z","level":"INFO","fields":{"message":"nothing"},"target":"t"}
`
	p := "logs/rw-compute-0/compute.log"
	if err := s.Scan(p, bundle.Classify(p), strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if r := lsResults(t, s, "r/sink", 1)[0]; r["lvl"] != "ERROR" || r["actor"] != "12" || r["sink"] != "7" || r["line"] != 1 || r["target"] != "risingwave_stream::task::actor_manager" {
		t.Errorf("sink row %v", r)
	}
	if r := lsResults(t, s, "r/quoted", 1)[0]; r["topic"] != "orders" || r["message"] != `split: KafkaSplit { topic: "orders" }` {
		t.Errorf("quoted row %v", r)
	}
	// "warn" is rendered WARN; the INFO line whose message says WARN is
	// below the level.
	if r := lsResults(t, s, "r/warn", 1)[0]; r["line"] != 3 || r["level"] != "WARN" {
		t.Errorf("warn row %v", r)
	}
}

func TestLogScanAbsentInput(t *testing.T) {
	s := NewScanner([]*Query{lsQuery(t, "r/tree", `!!!`, func(q *Query) { q.Kinds = []bundle.Kind{bundle.KindAwaitTreeText} })})
	p := "logs/rw-compute-0/compute.log"
	if s.Wants(bundle.Classify(p)) {
		t.Fatal("an await-tree query wants logs")
	}
	if err := s.Scan(p, bundle.Classify(p), strings.NewReader("!!!\n")); err != nil {
		t.Fatal(err)
	}
	if _, count, files := s.Results("r/tree"); count != 0 || files != 0 {
		t.Errorf("count %d files %d, want 0 0 (input absent)", count, files)
	}
}

func TestLogScanCutLines(t *testing.T) {
	s := NewScanner([]*Query{
		lsQuery(t, "r/head", `^2026\S+ ERROR risingwave_stream::x: huge (?P<n>\d+)`),
		lsQuery(t, "r/tail", `TAIL-MARKER`),
		lsQuery(t, "r/next", `after the long line`),
	})
	var b strings.Builder
	b.WriteString("2026-11-29T20:41:07Z ERROR risingwave_stream::x: huge 42 ")
	b.WriteString(strings.Repeat("x", bundle.DefaultMaxLineBytes))
	b.WriteString("TAIL-MARKER\n2026-11-29T20:41:08Z  INFO a::b: after the long line\n")
	p := "logs/rw-compute-0/compute.log"
	if err := s.Scan(p, bundle.Classify(p), strings.NewReader(b.String())); err != nil {
		t.Fatal(err)
	}
	if got := s.CutLines(); len(got) != 1 || got[p] != 1 {
		t.Errorf("CutLines = %v, want %s: 1", got, p)
	}
	rows, _, _ := s.Results("r/head")
	if len(rows) != 1 || rows[0]["n"] != "42" || len(rows[0]["text"].(string)) != maxLogTextBytes || len(rows[0]["message"].(string)) != maxLogMessageBytes {
		t.Errorf("r/head: %d rows", len(rows))
	}
	if _, count, _ := s.Results("r/tail"); count != 0 {
		t.Error("matched past the cut")
	}
	if rows, _, _ := s.Results("r/next"); len(rows) != 1 || rows[0]["line"] != 2 {
		t.Errorf("r/next: %v", rows)
	}
}

func TestLogScanAwaitTreeJSON(t *testing.T) {
	s := NewScanner([]*Query{
		lsQuery(t, "r/slow", `^(?P<key>\S+): +(?P<span>\w+) (?P<id>\d+) \[!!! (?P<secs>[\d.]+)s\]`, func(q *Query) { q.Kinds = []bundle.Kind{bundle.KindAwaitTreeJSON} }),
		lsQuery(t, "r/remaining", `Remaining actors: \[(?P<actors>[\d, ]+)\]`, func(q *Query) { q.Kinds = []bundle.Kind{bundle.KindAwaitTreeJSON} }),
		lsQuery(t, "r/list", `^list\.(?P<i>\d+)(\.deep)?: `, func(q *Query) { q.Kinds = []bundle.Kind{bundle.KindAwaitTreeJSON} }),
	})
	lsScanFile(t, s, "await-tree.json", "diagnose/await-tree.json")
	rows := lsResults(t, s, "r/slow", 2)
	if rows[0]["key"] != "actorTraces.12" || rows[0]["span"] != "Epoch" || rows[0]["secs"] != "21.283" || rows[0]["line"] != 0 || rows[0]["kind"] != "await-tree-json" {
		t.Errorf("row 0: %v", rows[0])
	}
	if rows[1]["span"] != "HashAgg" || rows[1]["text"] != "actorTraces.12:     HashAgg 8400000005 [!!! 21.280s]" {
		t.Errorf("row 1: %v", rows[1])
	}
	if r := lsResults(t, s, "r/remaining", 1)[0]; r["actors"] != "12, " {
		t.Errorf("remaining: %v", r)
	}
	lsResults(t, s, "r/list", 3) // "a", "b" and the nested object's string
	if err := s.Scan("diagnose/await-tree.json", bundle.Classify("diagnose/await-tree.json"), strings.NewReader(`{"a": "b"`)); err == nil || !strings.Contains(err.Error(), "diagnose/await-tree.json") {
		t.Errorf("invalid JSON: err = %v", err)
	}
}

// TestLogScanKeepsFirstAndLast checks the row window: the first and last
// halves survive, the count stays exact, across files.
func TestLogScanKeepsFirstAndLast(t *testing.T) {
	for _, tc := range []struct {
		max, n   int
		wantLine []int
	}{
		{10, 100, []int{1, 2, 3, 4, 5, 96, 97, 98, 99, 100}},
		{3, 100, []int{1, 2, 100}},
		{1, 100, []int{1}},
		{10, 7, []int{1, 2, 3, 4, 5, 6, 7}},
		{4, 6, []int{1, 2, 5, 6}},
	} {
		t.Run(fmt.Sprint(tc.max, "/", tc.n), func(t *testing.T) {
			s := NewScanner([]*Query{lsQuery(t, "r/n", `event (?P<n>\d+)`, func(q *Query) { q.MaxRows = tc.max })})
			var a, b strings.Builder
			for i := 1; i <= tc.n; i++ {
				w := &a
				if i > tc.n/2 {
					w = &b
				}
				fmt.Fprintf(w, "2026-11-29T20:41:07Z  INFO a::b: event %d\nnoise\n", i)
			}
			for _, f := range []struct{ p, text string }{{"logs/p/c.previous.log", a.String()}, {"logs/p/c.log", b.String()}} {
				if err := s.Scan(f.p, bundle.Classify(f.p), strings.NewReader(f.text)); err != nil {
					t.Fatal(err)
				}
			}
			rows, count, files := s.Results("r/n")
			if count != tc.n || files != 2 {
				t.Fatalf("count %d files %d", count, files)
			}
			var got []int
			for _, r := range rows {
				var n int
				fmt.Sscan(r["n"].(string), &n)
				got = append(got, n)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.wantLine) {
				t.Errorf("events %v, want %v", got, tc.wantLine)
			}
			// Rows are the caller's: changing them changes no later result.
			rows[len(rows)-1]["n"] = "changed"
			if again, _, _ := s.Results("r/n"); again[len(again)-1]["n"] == "changed" {
				t.Error("Results hands out shared rows")
			}
		})
	}
}

func TestCheckLogQuery(t *testing.T) {
	re := regexp.MustCompile(`x`)
	for _, tc := range []struct {
		q    *Query
		want string
	}{
		{&Query{Name: "ok", Regex: re, MinLevel: "warn", Kinds: []bundle.Kind{bundle.KindDescribe}}, ""},
		{&Query{Name: "a"}, "no regular expression"},
		{&Query{Name: "a", Regex: regexp.MustCompile(`(?P<pod>x)`)}, `capture name "pod"`},
		{&Query{Name: "a", Regex: re, Kinds: []bundle.Kind{bundle.KindPods}}, "pods files"},
		{&Query{Name: "a", Regex: re, MinLevel: "loud"}, "unknown level"},
		{&Query{Name: "a", Regex: re, MaxRows: -1}, "negative"},
		// Given by source: compiled, then checked alike.
		{&Query{Name: "ok", Source: `x`, SectionSource: `>> (?P<worker>\w+)`}, ""},
		{&Query{Name: "a", Source: `x(`}, "missing closing )"},
		{&Query{Name: "a", Source: `x`, SectionSource: `[`}, "section: error parsing regexp: missing closing ]"},
		{&Query{Name: "a", Source: `(?P<pod>x)`}, `capture name "pod"`},
		{&Query{Name: "a", Source: `x`, MinLevel: "loud"}, "unknown level"},
	} {
		err := CheckQuery(tc.q)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %q: err = %v, want %q", tc.q.Name, tc.q.Expr(), err, tc.want)
		}
	}
}

// lsPrefilterRegexps are regular expressions of the shapes rules use, and
// some that stress the literal analysis.
var lsPrefilterRegexps = []string{
	`Starting compute node`,
	`source paused, wait barrier`,
	`recovery start!`,
	`Sink error: sink_id=(?P<sink_id>\d+)`,
	`fetch kafka watermarks: low: (?P<low>-?\d+), high: (?P<high>-?\d+), split: .*start_offset: Some\((?P<start>\d+)\)`,
	`recovery (start!|success|failed)`,
	`(?i)recovery START`,
	`(?i)kafka|sink`,
	`[Ss]ource (paused|resumed)`,
	`a[bc]d[ef]g[hi]j[kl]m[no]`,
	`(?:foo)+bar`,
	`x{2,4}y?z`,
	`^WARN|ERROR$`,
	`\bactor_id=\d+\b`,
	`(ab|cd)(ef|gh)(ij|kl)(mn|op)(qr|st)`,
	`héllo wörld`,
	`(?i)héllo`,
	`(?i)kelvin`,
	`(?i)SS`,
	`.*`,
	`a?b?c?`,
	`(a|)bc`,
	`epoch (\d+|none) done`,
	`\x{FFFD}`,
	`[^a]bc`,
	`(?s)a.b`,
	`(?i:Sink) error`,
	`(foo|bar|baz|qux|quux|corge|grault|garply|waldo|fred|plugh|xyzzy|thud|a1|a2|a3|a4|a5)!`,
}

// lsLines generates lines from words the regular expressions use, mutated.
func lsLines(r *rand.Rand, n int) [][]byte {
	words := []string{"Starting", "compute", "node", "source", "Source", "paused,", "paused", "resumed", "wait", "barrier",
		"recovery", "RECOVERY", "start!", "success", "failed", "Sink", "sink", "SINK", "error:", "sink_id=", "42", "-7",
		"fetch", "kafka", "KAFKA", "watermarks:", "low:", "high:", "split:", "start_offset:", "Some(", "1234)", ")",
		"foo", "bar", "foobar", "x", "xx", "xxx", "y", "z", "WARN", "ERROR", "actor_id=12", "héllo", "HÉLLO", "wörld",
		"\u212Aelvin", "kelvin", "\u017F\u017F", "ss", "epoch", "none", "done", "ab", "cd", "ef", "gh", "\xff", "\xef\xbf\xbd",
		"abdfgijlmo", "acdegh", "a", "b", "c", "bc", "qux!", "thud!", "a5!", "\n", ""}
	out := make([][]byte, n)
	for i := range out {
		var b bytes.Buffer
		for j, k := 0, r.IntN(12); j < k; j++ {
			w := words[r.IntN(len(words))]
			if r.IntN(10) == 0 && len(w) > 1 {
				p := r.IntN(len(w))
				w = w[:p] + w[p+1:]
			}
			b.WriteString(w)
			if r.IntN(4) != 0 {
				b.WriteByte(' ')
			}
		}
		out[i] = b.Bytes()
	}
	return out
}

// TestPrefilterSound checks on many generated lines that a prefilter never
// rejects a line its regular expression matches, and that the literal
// regexes do get a prefilter that rejects something.
func TestPrefilterSound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lines := lsLines(r, 20000)
	// Lines past 64 bytes take the rare-byte search; pad half of them.
	for i := 0; i < len(lines); i += 2 {
		lines[i] = append([]byte("2026-11-29T20:41:07.123456789Z  INFO risingwave_stream::executor::x: "), lines[i]...)
	}
	s := &Scanner{}
	for _, expr := range lsPrefilterRegexps {
		re := regexp.MustCompile(expr)
		pre := newPrefilter(expr)
		matched, passed := 0, 0
		for _, l := range lines {
			s.lowerOK, s.ks = false, ksUnknown
			ok := pre.match(l, s)
			m := re.Match(l)
			if m && !ok {
				t.Errorf("%s: prefilter %v rejects matching line %q", expr, pre.clauses, l)
				break
			}
			if m {
				matched++
			}
			if ok {
				passed++
			}
		}
		t.Logf("%-40s clauses %-60s matched %5d passed %5d", expr, fmt.Sprintf("%q", lsClauseStrings(pre)), matched, passed)
	}
	for expr, want := range map[string]string{
		`Sink error: sink_id=(?P<sink_id>\d+)`: `[["Sink error: sink_id="]]`,
		`fetch kafka watermarks: low: (?P<low>-?\d+), high: (?P<high>-?\d+), split: .*start_offset: Some\((?P<start>\d+)\)`: `[["fetch kafka watermarks: low: "] ["start_offset: Some("] [", split: "]]`,
		`recovery (start!|success|failed)`: `[["recovery failed" "recovery start!" "recovery success"]]`,
		`(?i)recovery START`:               `[["(?i)recovery start"]]`,
		`[Ss]ource (paused|resumed)`:       `[["Source paused" "Source resumed" "source paused" "source resumed"]]`,
		`.*`:                               `[]`,
		`(a|)bc`:                           `[["bc"]]`,
		`a?b?c?`:                           `[]`,
	} {
		got := fmt.Sprintf("%q", lsClauseStrings(newPrefilter(expr)))
		if got != want {
			t.Errorf("%s: clauses %s, want %s", expr, got, want)
		}
	}
}

func lsClauseStrings(p prefilter) [][]string {
	out := [][]string{}
	for _, c := range p.clauses {
		var ss []string
		for _, l := range c {
			s := string(l.s)
			if l.fold {
				s = "(?i)" + s
			}
			ss = append(ss, s)
		}
		slices.Sort(ss)
		out = append(out, ss)
	}
	return out
}

// TestJSONPrefilterSound checks that the byte-level test on JSON lines never
// skips a line whose rendering the expression matches.
func TestJSONPrefilterSound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lines := lsLines(r, 5000)
	levels := []string{"INFO", "info", "WARN", "Error", "DEBUG", "trace", "NOTICE"}
	var qs []*scanQuery
	sc := &Scanner{}
	for _, expr := range append(lsPrefilterRegexps, `WARN source`, `(?i)warn source`, `NFO`, `rror sink`, `INFO\s+\S+: node`, `node k=v`, `target: \w+`) {
		s := NewScanner([]*Query{{Name: expr, Regex: regexp.MustCompile(expr)}})
		qs = append(qs, s.queries[0])
	}
	escaped := []string{`Starting \u0063ompute node`, `source paused\u002c wait barrier`, `recovery start\u0021`,
		`Sink error: sink_id\u003d7`, `a\/b \"héllo\" w\u00f6rld`, `\\u0041\\/ \t\n Sink error: sink_id=\r`}
	for _, e := range escaped {
		obj := `{"level":"INFO","fields":{"message":"` + e + `","k":"` + e + `"},"target":"` + e + `"}`
		rendered, _, ok := renderJSONLine(nil, []byte(obj))
		if !ok {
			t.Fatalf("invalid JSON %s", obj)
		}
		for _, q := range qs {
			if q.regexp().Match(rendered) && !sc.jsonCandidate([]byte(obj), []*scanQuery{q}) {
				t.Errorf("%s: JSON prefilter (pieces %v) skips %s rendered %q", q.q.Name, q.pieces, obj, rendered)
			}
		}
	}
	for i, l := range lines {
		msg := strings.ToValidUTF8(string(l), "?")
		obj := fmt.Sprintf(`{"timestamp":"2026-11-29T20:41:07Z","level":%q,"fields":{"message":%q,"k":%q},"target":"target","spans":[{"name":"actor","otel.name":%q}]}`,
			levels[i%len(levels)], msg, lsPick(lines, i+1), strings.ToValidUTF8(lsPick(lines, i+2), "?"))
		rendered, _, ok := renderJSONLine(nil, []byte(obj))
		if !ok {
			t.Fatalf("invalid JSON %s", obj)
		}
		for _, q := range qs {
			if q.regexp().Match(rendered) && !sc.jsonCandidate([]byte(obj), []*scanQuery{q}) {
				t.Errorf("%s: JSON prefilter (pieces %v) skips %s rendered %q", q.q.Name, q.pieces, obj, rendered)
			}
		}
	}
}

func lsPick(lines [][]byte, i int) string {
	return strings.ToValidUTF8(string(lines[i%len(lines)]), "?")
}

// FuzzPrefilter checks soundness on arbitrary expressions and lines.
func FuzzPrefilter(f *testing.F) {
	for i, e := range lsPrefilterRegexps {
		f.Add(e, "line "+e+fmt.Sprint(i))
	}
	f.Fuzz(func(t *testing.T, expr, line string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		s := &Scanner{}
		pre := newPrefilter(expr)
		if re.MatchString(line) && !pre.match([]byte(line), s) {
			t.Errorf("prefilter of %q rejects matching %q", expr, line)
		}
	})
}

// FuzzContainsLit checks the literal searches against their definitions.
func FuzzContainsLit(f *testing.F) {
	pad := strings.Repeat("risingwave_stream ", 5)
	f.Add(pad+"Sink error: sink_id=7", "Sink error: sink_id=")
	f.Add(pad+"RECOVERY \u212Aelvin start", "recovery kelvin")
	f.Add(pad+"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "ab")
	f.Add("xx", "x")
	f.Fuzz(func(t *testing.T, line, s string) {
		if s == "" {
			return
		}
		l := lit{s: []byte(s)}
		l.anchor = rarestByte(l.s)
		if got, want := containsLit([]byte(line), l), strings.Contains(line, s); got != want {
			t.Errorf("containsLit(%q, %q) = %v", line, s, got)
		}
		fl := lit{s: foldBytes(nil, []byte(s)), fold: true}
		fl.anchor, fl.ks = rarestByte(fl.s), bytes.ContainsAny(fl.s, "ks")
		sc := &Scanner{}
		// Exact, but on lines with a Kelvin sign or a long s, where it may
		// find a literal among their bytes (never one a regexp has).
		want := bytes.Contains(foldBytes(nil, []byte(line)), fl.s)
		got := sc.containsFold([]byte(line), fl)
		if got != want && (want || !strings.ContainsAny(line, "\u212A\u017F")) {
			t.Errorf("containsFold(%q, %q) = %v", line, fl.s, got)
		}
	})
}

// lsBenchLog writes about size bytes of realistic RisingWave text log lines
// with the kubectl prefix.
func lsBenchLog(size int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	templates := []string{
		`INFO actor{otel.name="Actor %[1]d" actor_id=%[1]d prev_epoch=8251479106256896 curr_epoch=8251479171792896}:executor{otel.name="HashAggExecutor %[2]X"}: risingwave_stream::executor::aggregation: evicted %[3]d entries from cache`,
		`INFO risingwave_storage::hummock::event_handler::hummock_event_handler: sync epoch 8251479%[3]d finished, sst count %[1]d`,
		`INFO risingwave_meta::hummock::manager::compaction: Compaction task %[3]d finished in group %[1]d, level 0 -> level %[2]d`,
		`DEBUG risingwave_stream::task::barrier_manager: collect barrier epoch=8251479%[3]d actor_id=%[1]d`,
		`WARN actor{otel.name="Actor %[1]d" actor_id=%[1]d}:executor{otel.name="SinkExecutor %[2]X"}: risingwave_connector::sink::kafka: producer queue is full, awaiting an outstanding delivery before retry`,
		`INFO actor{otel.name="Actor %[1]d" actor_id=%[1]d}:executor{otel.name="SourceExecutor %[2]X"}: risingwave_connector::source::kafka::source::reader: fetch kafka watermarks: low: 0, high: %[3]d, split: KafkaSplit { topic: "orders", partition: %[2]d, start_offset: Some(%[3]d), stop_offset: None, hack_seek_to_latest: false }`,
		`ERROR risingwave_stream::task::actor_manager: actor exit with error actor_id=%[1]d error=Executor error: Sink error: sink_id=%[2]d, error: connection refused`,
		`INFO risingwave_frontend::session: handle_query sql="SELECT * FROM orders_mv WHERE id = %[3]d"`,
		`INFO risingwave_compute::server: Starting compute node`,
		`INFO failure_recovery{error=get error from control stream}:recovery_attempt: risingwave_meta::barrier::worker: recovery start!`,
		`WARN actor{otel.name="Actor %[1]d" actor_id=%[1]d}:executor{otel.name="SourceExecutor %[2]X"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for %[2]dms`,
	}
	weights := []int{300, 200, 150, 150, 20, 30, 3, 100, 1, 1, 5}
	total := 0
	for _, w := range weights {
		total += w
	}
	var b bytes.Buffer
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := 0; b.Len() < size; i++ {
		ts := t0.Add(time.Duration(i) * 3 * time.Millisecond)
		pick := r.IntN(total)
		k := 0
		for pick >= weights[k] {
			pick -= weights[k]
			k++
		}
		lvl := templates[k][:strings.IndexByte(templates[k], ' ')]
		fmt.Fprintf(&b, "%s %s %5s ", ts.Format(time.RFC3339Nano), ts.Add(-time.Millisecond).Format("2006-01-02T15:04:05.000000000Z07:00"), lvl)
		fmt.Fprintf(&b, templates[k][len(lvl)+1:], r.IntN(2000), r.IntN(64), r.IntN(1<<30))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// lsBenchQueries are ten queries of the kind rules use.
var lsBenchQueries = []string{
	`Starting compute node`,
	`source paused, wait barrier for (?P<wait>\S+)`,
	`recovery start!`,
	`Sink error: sink_id=(?P<sink_id>\d+)`,
	`fetch kafka watermarks: low: (?P<low>-?\d+), high: (?P<high>-?\d+), split: .*start_offset: Some\((?P<start>\d+)\)`,
	`actor exit with error actor_id=(?P<actor>\d+)`,
	`producer queue is full`,
	`Deleted expired worker`,
	`(?i)database entering recovery`,
	`Failed to sync state store`,
}

// lsBenchJSON turns lsBenchLog's lines into RisingWave's JSON format, as
// encoding/json writes it ("->" as "-\u003e").
func lsBenchJSON(text []byte) []byte { return lsBenchJSONEscaping(text, true) }

// lsBenchJSONEscaping is lsBenchJSON, escaping <, > and & or, as
// RisingWave (serde_json) does, not.
func lsBenchJSONEscaping(text []byte, html bool) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		ll := ParseLine(line)
		all := ll.Message // what follows the target, fields included
		if ll.fieldText != "" {
			all += " " + ll.fieldText
		}
		msg, fields, _ := strings.Cut(all, " actor_id=")
		obj := map[string]any{"timestamp": ll.Time.Format(time.RFC3339Nano), "level": ll.Level, "target": ll.Target,
			"fields": map[string]any{"message": msg}}
		if fields != "" {
			obj["fields"].(map[string]any)["actor_id"] = fields
		}
		if strings.Contains(ll.Text, "actor{") {
			obj["spans"] = []any{map[string]any{"name": "actor", "actor_id": 12, "otel.name": "Actor 12"}}
		}
		enc := json.NewEncoder(&b) // writes the newline
		enc.SetEscapeHTML(html)
		enc.Encode(obj)
	}
	return b.Bytes()
}

// lsSparse keeps the lines of text that no query matches and one in every
// of the others.
func lsSparse(text []byte, qs []*Query, every int) []byte {
	var out bytes.Buffer
	n := 0
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if slices.ContainsFunc(qs, func(q *Query) bool { return q.Regexp().Match(line) }) {
			if n++; n%every != 0 {
				continue
			}
		}
		out.Write(line)
	}
	return out.Bytes()
}

func BenchmarkScan(b *testing.B) {
	text := lsBenchLog(50 << 20)
	var qs []*Query
	for i, e := range lsBenchQueries {
		qs = append(qs, &Query{Name: fmt.Sprint("bench/", i), Regex: regexp.MustCompile(e)})
	}
	p := "logs/rw-compute-0/compute.log"
	c := bundle.Classify(p)
	for _, bc := range []struct {
		name string
		data func() []byte
	}{
		{"text", func() []byte { return text }},
		{"json", func() []byte { return lsBenchJSON(text[:10<<20]) }},
		// As in a big bundle: one line in a thousand of the kind a query
		// matches.
		{"text-sparse", func() []byte { return lsSparse(text, qs, 1000) }},
		{"json-sparse", func() []byte { return lsBenchJSONEscaping(lsSparse(text[:10<<20], qs, 1000), false) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := bc.data()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s := NewScanner(qs)
				if err := s.Scan(p, c, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
				if _, n, _ := s.Results("bench/4"); n == 0 && !strings.HasSuffix(bc.name, "sparse") {
					b.Fatal("no watermark lines matched")
				}
			}
		})
	}
}
