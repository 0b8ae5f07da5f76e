package logs

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// scanFixture scans a fixture as a compute node's log, in blocks and line
// by line, checks that both find the same, and returns the block
// scanner's results for each query.
func scanFixture(t *testing.T, name string, qs ...*Query) map[string][]evidence.Row {
	t.Helper()
	lines, header := fixtureLines(t, name)
	for i := range header {
		lines[i] = nil // the header, blank: the lines keep their numbers
	}
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	p := "logs/rw-compute-0/compute.log"
	lbCompare(t, qs, p, data, iotest.HalfReader)
	s := NewScanner(qs)
	if err := s.Scan(p, bundle.Classify(p), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	out := map[string][]evidence.Row{}
	for _, q := range qs {
		rows, n, _ := s.Results(q.Name)
		if n != len(rows) {
			t.Fatalf("%s: %d matches, %d rows", q.Name, n, len(rows))
		}
		out[q.Name] = rows
	}
	return out
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	if s == "" {
		return time.Time{}
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// A panic, header, message, note and backtrace, is one ERROR event: a
// query for its header and one for a line after it each match it once,
// with the panic's message and the time of the nearest line before it that
// has one (or of its kubectl prefix).
func TestScanPanicIsOneEvent(t *testing.T) {
	tests := []struct {
		file, message, time, later string
		header                     int
	}{
		{"v1.0.0-panic-old-format.log", "attempt to subtract with overflow", "2023-08-02T07:10:44.61803Z", "RUST_BACKTRACE", 7},
		{"v2.3.0-panic-new-format.log", "mem-table operation inconsistent! table_id: 1042, vnode: 17", "2025-04-22T16:44:02.903Z", "table_id: 1042", 4},
		{"v2.5.0-panic-backtrace-full.log", "called `Option::unwrap()` on a `None` value", "", "await tree context", 3},
		{"v2.8.0-panic-backtrace.log", "fragment should exist", "2026-03-09T02:11:45.170034Z", `InflightDatabaseInfo::fragment`, 4},
		{"v2.8.0-json-panic-stderr.log", "dispatcher for actor 12 should exist", "2026-03-09T02:10:58.4417Z", "should exist", 5},
		{"kubectl-timestamps-panic.log", "upstream actor 12 not found in the barrier's mutation", "2025-04-22T16:51:19.118034765Z", "RUST_BACKTRACE", 5},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := scanFixture(t, tt.file,
				lsQuery(t, "r/panic", `panicked at`),
				lsQuery(t, "r/later", regexpQuote(tt.later)),
				lsQuery(t, "r/any", `panicked at|`+regexpQuote(tt.later)+`|RUST_BACKTRACE|stack backtrace`),
				lsQuery(t, "r/error", `panicked at`, func(q *Query) { q.MinLevel = "ERROR" }),
			)
			for _, name := range []string{"r/panic", "r/later", "r/any", "r/error"} {
				rows := res[name]
				if len(rows) != 1 {
					t.Fatalf("%s: %d rows, want 1 (one event): %v", name, len(rows), rows)
				}
				r := rows[0]
				if r["level"] != "ERROR" || r["message"] != tt.message || !r["time"].(time.Time).Equal(mustTime(t, tt.time)) {
					t.Errorf("%s: level %v message %q time %v; want ERROR, %q, %s", name, r["level"], r["message"], r["time"], tt.message, tt.time)
				}
			}
			if n := res["r/panic"][0]["line"]; n != tt.header {
				t.Errorf("panic row at line %v, want the header's, %d", n, tt.header)
			}
			if n := res["r/later"][0]["line"].(int); n <= tt.header && !strings.Contains(tt.file, "old-format") {
				t.Errorf("later row at line %d, want its own line, after %d", n, tt.header)
			}
		})
	}
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// A line that continues an event (an error's backtrace, the pretty
// format's span line) matches as part of that event: the row has the
// event's time, level, target and message, and the line's own number and
// text; its level is the event's for min_level.
func TestScanContinuationLines(t *testing.T) {
	t.Run("kubectl backtrace", func(t *testing.T) {
		res := scanFixture(t, "kubectl-timestamps.log",
			lsQuery(t, "r/bt", `^Backtrace:$`),
			lsQuery(t, "r/frame", `at \./src/stream/src/executor/error\.rs`, func(q *Query) { q.MinLevel = "ERROR" }),
			lsQuery(t, "r/warnonly", `^Backtrace:$`, func(q *Query) { q.MinLevel = "ERROR" }),
		)
		for _, name := range []string{"r/bt", "r/frame", "r/warnonly"} {
			if len(res[name]) != 1 {
				t.Fatalf("%s: %d rows, want 1", name, len(res[name]))
			}
			r := res[name][0]
			if r["level"] != "ERROR" || r["target"] != "risingwave_stream::task::stream_manager" || r["message"] != "actor exit with error" ||
				!r["time"].(time.Time).Equal(mustTime(t, "2025-03-20T08:15:40.0161Z")) {
				t.Errorf("%s: %v", name, r)
			}
		}
		if r := res["r/bt"][0]; r["line"] != 10 || r["text"] != "Backtrace:" {
			t.Errorf("backtrace row: line %v text %q, want 10, %q", r["line"], r["text"], "Backtrace:")
		}
	})
	t.Run("pretty span line", func(t *testing.T) {
		res := scanFixture(t, "v1.0.0-pretty-meta-recovery.log",
			lsQuery(t, "r/sink", `Sink error: (?P<k>Kafka error)`),
			lsQuery(t, "r/info", `Sink error`, func(q *Query) { q.MinLevel = "WARN" }),
		)
		rows := res["r/sink"]
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2: %v", len(rows), rows)
		}
		for i, want := range []struct {
			line    int
			message string
		}{{11, "recovery start!"}, {15, "recovery success"}} {
			if r := rows[i]; r["line"] != want.line || r["message"] != want.message || r["level"] != "INFO" || r["k"] != "Kafka error" ||
				r["target"] != "risingwave_meta::barrier::recovery" {
				t.Errorf("row %d: %v", i, r)
			}
		}
		if len(res["r/info"]) != 0 {
			t.Errorf("an INFO event's span line matched at WARN: %v", res["r/info"])
		}
	})
	t.Run("a JSON line's stray lines stand alone", func(t *testing.T) {
		data := `{"timestamp":"2026-03-09T02:10:58.4417Z","level":"ERROR","fields":{"message":"x"},"target":"t"}` + "\nlaunching `compute`\n"
		p := "logs/rw-compute-0/compute.log"
		q := lsQuery(t, "r/launch", `launching`)
		lbCompare(t, []*Query{q}, p, []byte(data), iotest.HalfReader)
		s := NewScanner([]*Query{q})
		if err := s.Scan(p, bundle.Classify(p), strings.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if rows, _, _ := s.Results("r/launch"); len(rows) != 1 || rows[0]["level"] != "" || !rows[0]["time"].(time.Time).IsZero() {
			t.Errorf("rows %v", rows)
		}
	})
}

// FileStats: the lines, how many of the first ones parse, the first and the
// last time, the same however the file is read.
func TestScanFileStats(t *testing.T) {
	fixture := func(name string) string {
		lines, header := fixtureLines(t, name)
		return string(bytes.Join(lines[header:], []byte("\n"))) + "\n"
	}
	log := "logs/rw-compute-0/compute.log"
	tests := []struct {
		name, path, data       string
		lines, sampled, parsed int
		first, last            string
		json                   bool
	}{
		{"kubectl", log, fixture("kubectl-timestamps.log"), 9, 9, 9, "2025-03-20T08:00:01.40201Z", "2025-03-20T08:15:40.02273Z", false},
		{"json", log, fixture("v2.3.0-json-sink.log"), 3, 3, 3, "2025-04-22T14:03:11.1834Z", "2025-04-22T14:20:51.6046Z", true},
		{"pretty", log, fixture("v1.0.0-pretty-compute-sink-actor-exit.log"), 14, 11, 3, "2023-08-02T06:40:11.5012083Z", "2023-08-02T06:52:37.9113Z", false},
		{"panic with no time", log, fixture("v2.5.0-panic-backtrace-full.log"), 19, 15, 1, "", "", false},
		{"untimed tail", log, fixture("v2.8.0-panic-backtrace.log"), 13, 13, 2, "2026-03-09T02:11:45.170034Z", "2026-03-09T02:11:45.170034Z", false},
		{"pasted", log, fixture("pasted-no-timestamp.log"), 13, 13, 4, "2025-04-22T14:20:51.6046Z", "2025-04-22T14:20:51.6046Z", false},
		{"offsets", log, fixture("v2.5.0-text-local-offset.log"), 10, 10, 10, "2025-08-04T05:31:05-04:00", "2025-08-04T05:31:05.512014507-04:00", false},
		{"no line parses", log, "GET /healthz 200\nGET /metrics 200\n\nshutting down\n", 4, 3, 0, "", "", false},
		{"no final newline", log, "2026-01-02T03:04:05Z  INFO a::b: x\n2026-01-02T03:04:06Z  INFO a::b: y", 2, 2, 2, "2026-01-02T03:04:05Z", "2026-01-02T03:04:06Z", false},
		{"empty", log, "", 0, 0, 0, "", "", false},
		{"not a log", "kubernetes/describe/pods.txt", "Name: rw-compute-0\n2026-01-02T03:04:05Z  INFO a::b: x\n", 2, 0, 0, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := bundle.Classify(tt.path)
			want := FileStats{Path: tt.path, Pod: c.Pod, Container: c.Container, Kind: c.Kind, Lines: tt.lines, Sampled: tt.sampled,
				Parsed: tt.parsed, First: mustTime(t, tt.first), Last: mustTime(t, tt.last), JSON: tt.json}
			q := lsQuery(t, "r/x", `Starting compute node`, func(q *Query) { q.Kinds = []bundle.Kind{c.Kind} })
			for _, s := range []*Scanner{NewScanner(nil), NewScanner([]*Query{q}), lbLineByLine([]*Query{q})} {
				if err := s.Scan(tt.path, c, iotest.HalfReader(strings.NewReader(tt.data))); err != nil {
					t.Fatal(err)
				}
				files := s.Files()
				if len(files) != 1 {
					t.Fatalf("Files() = %v", files)
				}
				got, w := files[0], want
				_, gotOff := got.First.Zone()
				_, wantOff := w.First.Zone()
				if !got.First.Equal(w.First) || !got.Last.Equal(w.Last) || gotOff != wantOff {
					t.Errorf("first, last %v, %v; want %v, %v", got.First, got.Last, w.First, w.Last)
				}
				got.First, got.Last, w.First, w.Last = time.Time{}, time.Time{}, time.Time{}, time.Time{}
				if got != w {
					t.Errorf("got  %+v\nwant %+v", got, w)
				}
			}
		})
	}
}

// Files covers every file Scan was given, in order, with the queries or
// without.
func TestScanFilesEveryFile(t *testing.T) {
	s := NewScanner([]*Query{lsQuery(t, "r/x", `x`, func(q *Query) { q.Container = "meta" })})
	paths := []string{"logs/rw-compute-0/compute.log", "logs/rw-meta-0/meta.log", "logs/rw-meta-0/meta.previous.log", "kubernetes/describe/pods.txt"}
	for _, p := range paths {
		if err := s.Scan(p, bundle.Classify(p), strings.NewReader("2026-01-02T03:04:05Z  INFO a::b: x\n")); err != nil {
			t.Fatal(err)
		}
	}
	files := s.Files()
	if len(files) != len(paths) {
		t.Fatalf("%d files, want %d", len(files), len(paths))
	}
	for i, f := range files {
		if f.Path != paths[i] || f.Lines != 1 {
			t.Errorf("file %d: %+v", i, f)
		}
		if isLog := i < 3; isLog != (f.Parsed == 1) {
			t.Errorf("%s: parsed %d", f.Path, f.Parsed)
		}
	}
}

// lbEvents writes a log of multi-line events of every kind, some longer
// than maxEventBytes, so that events straddle blocks and bounds.
func lbEvents(r *rand.Rand, size int) []byte {
	var b bytes.Buffer
	ts := func() string {
		return fmt.Sprintf("2026-03-09T05:%02d:%02d.%dZ", r.IntN(60), r.IntN(60), r.IntN(1000000))
	}
	kube := func() string {
		if r.IntN(3) == 0 {
			return ts() + " "
		}
		return ""
	}
	frames := func(n int) {
		for i := range n {
			fmt.Fprintf(&b, "%s  %3d: risingwave_stream::executor::f%d::h%08x\n%s             at ./src/stream/src/x.rs:%d:9\n", kube(), i, i, r.Uint32(), kube(), i)
		}
	}
	b.WriteString("launching `compute`\n")
	for b.Len() < size {
		switch k := r.IntN(100); {
		case k < 40:
			fmt.Fprintf(&b, "%s%s  INFO risingwave_stream::x: evicted %d entries actor_id=%d\n", kube(), ts(), r.IntN(100), r.IntN(10))
		case k < 55:
			fmt.Fprintf(&b, "%s%s ERROR risingwave_stream::task::stream_manager: actor exit with error actor_id=%d error=Executor error: Sink error: sink_id=%d, error: boom\n", kube(), ts(), r.IntN(10), r.IntN(5))
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "%s\n%sBacktrace:\n", kube(), kube())
				frames(r.IntN(8))
			}
		case k < 65:
			fmt.Fprintf(&b, "%s  %s ERROR risingwave_stream::task::stream_manager: actor exit, actor: %d, error: Executor error: Sink error: Kafka error: boom\n%s  backtrace of `StreamExecutorError`:\n%sdisabled backtrace\n%s    at src/stream/src/task/stream_manager.rs:656\n%s    in risingwave_meta::barrier::failure_recovery with err: Sink error: x, prev_epoch: 1\n%s\n",
				kube(), ts(), r.IntN(10), kube(), kube(), kube(), kube(), kube())
		case k < 72:
			fmt.Fprintf(&b, "%sthread 'rw-streaming' (%d) panicked at src/stream/src/x.rs:1:2:\n%sfragment %d should exist\n%sstack backtrace:\n", kube(), r.IntN(99), kube(), r.IntN(10), kube())
			frames(r.IntN(20))
		case k < 75:
			fmt.Fprintf(&b, "%sthread 'risingwave-main' panicked at 'failed to execute barrier: Sink error: sink_id=3', src/meta/src/barrier/mod.rs:1:2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n", kube())
		case k < 80:
			fmt.Fprintf(&b, "%s{\"timestamp\":%q,\"level\":\"ERROR\",\"fields\":{\"message\":\"actor exit with error\",\"actor_id\":7,\"error\":\"Sink error: sink_id=2, error: x\"},\"target\":\"t\"}\n", kube(), ts())
			if r.IntN(2) == 0 {
				b.WriteString("*** await tree context of current task ***\n\nactor 7 [1s]\n")
			}
		case k < 82:
			// A backtrace longer than an event may be: its end stands alone.
			fmt.Fprintf(&b, "%s%s ERROR risingwave_meta::barrier: recovery failed error=Sink error: sink_id=9, error: x\n", kube(), ts())
			frames(300 + r.IntN(2000))
		case k < 85:
			fmt.Fprintf(&b, "%s%s  WARN risingwave_stream::x: source paused, wait barrier for 1s\r\n%s  continued\r\n", kube(), ts(), kube())
		default:
			fmt.Fprintf(&b, "%s%s DEBUG risingwave_stream::x: collect barrier epoch=%d\n", kube(), ts(), r.IntN(1000))
		}
	}
	return b.Bytes()
}

// The block path attributes lines to events, and finds panics' times,
// exactly as reading line by line does, across blocks and event bounds.
func TestLogScanBlocksSameAsLinesEvents(t *testing.T) {
	var qs []*Query
	for _, q := range lbQueries(t) {
		if !strings.HasPrefix(q.Name, "p/") {
			qs = append(qs, q)
		}
	}
	for i, e := range []string{`panicked at`, `^Backtrace:$`, `at \./src/stream/src/x\.rs:(?P<l>\d+)`, `disabled backtrace`, `Sink error: sink_id=(?P<sink>\d+)`,
		`fragment \d+ should exist`, `await tree context`, `continued`, `with err: Sink error`, `launching`} {
		qs = append(qs, &Query{Name: fmt.Sprint("e/", i), Regex: regexpMust(t, e), MaxRows: 9})
	}
	qs = append(qs, &Query{Name: "e/min", Regex: regexpMust(t, `h[0-9a-f]{8}`), MinLevel: "ERROR", MaxRows: 9})
	r := rand.New(rand.NewPCG(9, 10))
	data := lbEvents(r, 4*logBlockBytes)
	p := "logs/rw-compute-0/compute.log"
	lbCompare(t, qs, p, data, iotest.HalfReader)
	lbCompare(t, qs, p, data, func(r io.Reader) io.Reader { return &errAfter{r: r, n: len(data) / 2} })
	// A panic that is the last event a block holds starts the next block:
	// its time is the last of the block before. A panic with more than
	// maxEventBytes of backtrace ends a block with no event to carry.
	for _, lead := range []int{logBlockBytes - 3000, logBlockBytes - 100, logBlockBytes + 500} {
		var b bytes.Buffer
		for i := 0; b.Len() < lead; i++ {
			fmt.Fprintf(&b, "2026-03-09T05:00:%02d.%06dZ  INFO risingwave_stream::x: filler line %d\n", i%60, i, i)
		}
		b.WriteString("thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1288:30:\nfragment 3 should exist\nstack backtrace:\n")
		for i := range 1500 {
			fmt.Fprintf(&b, "  %3d: risingwave_meta::f%d::h%08x\n             at ./src/stream/src/x.rs:%d:9\n", i, i, i, i)
		}
		b.WriteString("2026-03-09T06:00:00Z  INFO risingwave_stream::x: after\n")
		lbCompare(t, qs, p, b.Bytes(), iotest.HalfReader)
		s := NewScanner(qs)
		if err := s.Scan(p, bundle.Classify(p), bytes.NewReader(b.Bytes())); err != nil {
			t.Fatal(err)
		}
		rows, n, _ := s.Results("e/0")
		if n != 1 || rows[0]["time"].(time.Time).IsZero() || rows[0]["message"] != "fragment 3 should exist" {
			t.Errorf("lead %d: panic rows %v", lead, rows)
		}
		if rows, n, _ := s.Results("e/2"); n < 2 || rows[0]["level"] != "ERROR" || rows[len(rows)-1]["level"] != "" {
			t.Errorf("lead %d: frames within the panic's event are its, those past it stand alone: %d, %v", lead, n, rows)
		}
	}
	// The queries found something in every kind of line.
	s := NewScanner(qs)
	if err := s.Scan(p, bundle.Classify(p), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs[len(qs)-11:] {
		if _, n, _ := s.Results(q.Name); n == 0 {
			t.Errorf("%s (%s): no match", q.Name, q.Regex)
		}
	}
}

func regexpMust(t *testing.T, e string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(e)
	if err != nil {
		t.Fatal(err)
	}
	return re
}
