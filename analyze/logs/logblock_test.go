package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rwdiag/rwdiag/bundle"
)

// lbQueries are the built-in rules' log queries and the prefilter test's
// expressions, those that have gates.
func lbQueries(t testing.TB) []*Query {
	t.Helper()
	var qs []*Query
	for _, lq := range builtinQueries(t) {
		// Kinds nil: every query reads every file of the test.
		qs = append(qs, &Query{Name: lq.Name, Regex: lq.Regex, Source: lq.Source, Container: lq.Container,
			MinLevel: lq.MinLevel, MaxRows: lq.MaxRows, Section: lq.Section, SectionSource: lq.SectionSource})
	}
	for i, e := range append(lsPrefilterRegexps, `(?i)SINK ERROR: sink_id=\d+`, `WARN source`, `rror sink`, `Starting`) {
		qs = append(qs, &Query{Name: fmt.Sprint("p/", i), Regex: regexp.MustCompile(e), MaxRows: 7})
	}
	s := NewScanner(qs)
	gated := qs[:0]
	for _, q := range qs {
		if s.byName[q.Name].gated {
			gated = append(gated, q)
		}
	}
	if len(gated) < 30 {
		t.Fatalf("%d queries with gates, want at least 30", len(gated))
	}
	return gated
}

// lbLineByLine is a scanner that reads every file line by line.
func lbLineByLine(qs []*Query) *Scanner {
	s := NewScanner(qs)
	for _, q := range s.queries {
		q.gated = false
	}
	return s
}

// lbMixed writes lines of every kind the block path treats apart.
// lbSet is a named log to scan.
type lbSet struct {
	name string
	data []byte
}

// lbLogSets are the logs every comparison of two scanners reads: text,
// JSON, and the two mixed with JSON lines rare or common.
func lbLogSets(r *rand.Rand, text []byte) []lbSet {
	return []lbSet{
		{"text", text},
		{"json", lsBenchJSON(text[:200<<10])},
		{"mixed", lbMixed(r, 5000, 10)},
		{"mostly-json", lbMixed(r, 5000, 70)},
	}
}

func lbMixed(r *rand.Rand, n int, jsonShare int) []byte {
	var b bytes.Buffer
	words := lsLines(r, n)
	prefix := "2026-11-29T20:41:07.123456789Z "
	for i, w := range words {
		switch k := r.IntN(100); {
		case k < jsonShare:
			msg := strings.ToValidUTF8(string(w), "?")
			obj := fmt.Sprintf(`{"timestamp":"2026-11-29T20:41:07Z","level":"WARN","fields":{"message":%q},"target":"t"}`, msg)
			if r.IntN(2) == 0 {
				b.WriteString(prefix)
			}
			b.WriteString(obj)
		case k < jsonShare+3:
			// Escapes that spell a literal only once decoded.
			b.WriteString([]string{
				`{"level":"ERROR","fields":{"message":"actor exit with error: Sink error: sink_id\u003d7, error: x"}}`,
				prefix + `{"level":"INFO","fields":{"message":"recovery start\u0021"}}`,
				`{"level":"INFO","fields":{"message":"Starting meta\/ node"},"target":"a\/b"}`,
				`{ "level":"INFO","fields":{"message":"source paused, wait barrier for 5s"}}`,
				`{"level":"INFO","fields":{"message":"fetch kafka watermarks: low: 1, high: 9, split: KafkaSplit { partition: 3, start_offset: Some(4) }"}}`,
				// No gate in the bytes: only the escape, or only being JSON.
				`{"level":"INFO","fields":{"message":"\u0053tarting compute node"}}`,
				prefix + `{"level":"INFO","fields":{"message":"recovery \u0073tart!"}}`,
			}[r.IntN(7)])
		case k < jsonShare+5:
			b.WriteString(prefix + "2026-11-29T20:41:07.000000001Z  INFO x: ")
			b.Write(w)
			b.WriteString("\r") // a CRLF line
		case k < jsonShare+6:
			// Nothing: an empty line.
		case k < jsonShare+7:
			b.WriteString("WARN " + strings.Repeat("x", r.IntN(300)) + " Sink error: sink_id=3, error: z")
		default:
			if i%2 == 0 {
				b.WriteString(prefix + "2026-11-29T20:41:07.000000001Z  INFO risingwave_stream::x: ")
			}
			b.Write(w)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// lbCompare scans data as bundle path p both ways, reading it through
// wrap, and fails on any difference.
func lbCompare(t *testing.T, qs []*Query, p string, data []byte, wrap func(io.Reader) io.Reader) {
	t.Helper()
	block, lines := NewScanner(qs), lbLineByLine(qs)
	c := bundle.Classify(p)
	var want []*scanQuery
	for _, q := range block.queries {
		if q.wants(c) {
			want = append(want, q)
		}
	}
	if _, ok := fileGates(want); !ok {
		t.Fatalf("%s: not scanned in blocks", p)
	}
	lbCompareScanners(t, "block", "line by line", block, lines, qs, p, data, wrap)
}

// lbCompareScanners scans data as bundle path p with scanners a and b
// (named as and bs), reading it through wrap, and fails on any difference
// in what they find for qs (by name).
func lbCompareScanners(t *testing.T, as, bs string, a, b *Scanner, qs []*Query, p string, data []byte, wrap func(io.Reader) io.Reader) {
	t.Helper()
	c := bundle.Classify(p)
	errA := a.Scan(p, c, wrap(bytes.NewReader(data)))
	errB := b.Scan(p, c, wrap(bytes.NewReader(data)))
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%s: %s error %v, %s error %v", p, as, errA, bs, errB)
	}
	for _, q := range qs {
		ra, na, fa := a.Results(q.Name)
		rb, nb, fb := b.Results(q.Name)
		if na != nb || fa != fb || !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s: %s: %s %d matches (%d rows), %s %d (%d rows)", p, q.Name, as, na, len(ra), bs, nb, len(rb))
			for i := range min(len(ra), len(rb)) {
				if !reflect.DeepEqual(ra[i], rb[i]) {
					t.Errorf("first difference, row %d:\n%s %v\n%s %v", i, as, ra[i], bs, rb[i])
					break
				}
			}
		}
	}
	if x, y := a.CutLines(), b.CutLines(); !reflect.DeepEqual(x, y) {
		t.Errorf("%s: cut lines: %s %v, %s %v", p, as, x, bs, y)
	}
	if x, y := a.Files(), b.Files(); !reflect.DeepEqual(x, y) {
		t.Errorf("%s: file stats\n%s %+v\n%s %+v", p, as, x, bs, y)
	}
}

// errAfter fails with errBoom once n bytes have been read.
type errAfter struct {
	r io.Reader
	n int
}

var errBoom = errors.New("boom")

func (e *errAfter) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, errBoom
	}
	if len(p) > e.n {
		p = p[:e.n]
	}
	k, err := e.r.Read(p)
	e.n -= k
	return k, err
}

// The block path finds exactly what reading line by line finds: the same
// rows, counts, line numbers, cut lines and errors, on text, JSON and
// mixed logs, across block boundaries, whatever the reads' sizes.
func TestLogScanBlocksSameAsLines(t *testing.T) {
	all := lbQueries(t)
	var builtin, fold []*Query
	for _, q := range all {
		if !strings.HasPrefix(q.Name, "p/") {
			builtin = append(builtin, q)
		}
		if !strings.HasPrefix(q.Name, "p/") || strings.HasPrefix(q.Expr(), "(?i)") {
			fold = append(fold, q)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	text := lsBenchLog(logBlockBytes + 40<<10)
	longLine := "INFO x: " + strings.Repeat("y", logBlockBytes+100) + " Starting compute node"
	many := lsBenchLog((pipelineBlocks + 2) * logBlockBytes)
	cutLine := "INFO x: Starting compute node " + strings.Repeat("z", bundle.DefaultMaxLineBytes+10) + " recovery start!"
	sets := append(lbLogSets(r, text), []lbSet{
		{"json-then-text", append(lsBenchJSON(text[:20<<10]), text...)},
		{"text-then-json", append(slices0(text[:20<<10]), lsBenchJSON(text[:200<<10])...)},
		{"long-line", []byte("INFO a: Starting compute node\n" + longLine + "\nINFO b: Starting compute node\n")},
		{"long-line-late", append(slices0(text), []byte(longLine+"\n"+cutLine+"\nrecovery start!")...)},
		// More blocks than are in flight at once (pipelineBlocks): buffers
		// are reused while earlier blocks are searched; then a line longer
		// than a block after them.
		{"many-blocks", many},
		{"many-blocks-long-line", append(slices0(many), []byte(longLine+"\nrecovery start!\n")...)},
		{"no-final-newline", []byte("a\nrecovery start!\r")},
		{"gate-at-end", []byte("a\nINFO x: Starting compute node")},
		{"final-crlf", []byte("a\r\nrecovery start!\r\n")},
		{"empty", nil},
		{"only-newlines", []byte("\n\n\n")},
	}...)
	for _, set := range sets {
		// The built-in rules' gates are selective; with the prefilter
		// test's, most lines hold one ("a", "bc").
		for _, qs := range [][]*Query{builtin, fold, all} {
			for _, p := range []string{"logs/rw-compute-0/compute.log", "diagnose/report.txt"} {
				lbCompare(t, qs, p, set.data, iotest.HalfReader)
				if len(qs) == len(all) {
					continue // slow, and its gates are in most lines
				}
				if len(set.data) < 64<<10 {
					lbCompare(t, qs, p, set.data, iotest.OneByteReader)
				}
				lbCompare(t, qs, p, set.data, func(r io.Reader) io.Reader { return &errAfter{r: r, n: len(set.data) * 2 / 3} })
			}
		}
		if t.Failed() {
			t.Fatalf("set %s", set.name)
		}
	}
}

// slices0 copies b, so that appending to it leaves b alone.
func slices0(b []byte) []byte { return append([]byte(nil), b...) }

// The built-in rules' log files are scanned in blocks, JSON files
// included.
func TestLogScanBlocksTaken(t *testing.T) {
	s := NewScanner(builtinQueries(t))
	var want []*scanQuery
	for _, q := range s.queries {
		if q.wants(bundle.Classify("logs/rw-compute-0/compute.log")) {
			want = append(want, q)
		}
	}
	if g, ok := fileGates(want); !ok || g.json == nil {
		t.Fatalf("built-in rules: gates %v, %v; want text and JSON gates", g, ok)
	}
}

// FuzzLogScanBlocks compares the block path with reading line by line on
// arbitrary files.
func FuzzLogScanBlocks(f *testing.F) {
	f.Add([]byte("a\nINFO x: Starting compute node"))
	f.Add([]byte("{\"fields\":{\"message\":\"\\u0053tarting compute node\"}}\r\n{}\n"))
	f.Add([]byte("2026-11-29T20:41:07.1Z {\"fields\":{\"message\":\"recovery \\u0073tart!\"}}\n"))
	f.Add([]byte("x Sink error: sink_id=1, error: e\r\nactor exit with error Sink error: sink_id=2\n\n"))
	f.Add([]byte("2026-01-01T00:00:00Z ERROR a::b: actor exit with error error=Sink error: sink_id=3, error: e\n\nBacktrace:\n  0: f\n" +
		"thread 'rw-main' (1) panicked at src/a.rs:1:2:\nSink error: sink_id=4, error: x\nnote: run with\n" +
		"  2023-01-01T00:00:00Z  INFO a: recovery start!\n    at src/a.rs:1\n    in a::failure_recovery with err: Sink error: sink_id=5, error: y\n\n"))
	var qs []*Query
	for _, q := range lbQueries(f) {
		if !strings.HasPrefix(q.Name, "p/") || strings.HasPrefix(q.Expr(), "(?i)") {
			qs = append(qs, q) // the built-in rules' and folding ones: selective gates
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lbCompare(t, qs, "logs/rw-compute-0/compute.log", data, iotest.HalfReader)
	})
}
