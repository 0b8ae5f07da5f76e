package logs

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/rwdiag/rwdiag/bundle"
)

// lazyCompiled records the expressions compiled from a Query's Source or
// SectionSource until the test ends.
func lazyCompiled(t *testing.T) *[]string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	compiledHook = func(expr string) {
		mu.Lock()
		got = append(got, expr)
		mu.Unlock()
	}
	t.Cleanup(func() { compiledHook = nil })
	return &got
}

// lazyCopies returns new queries like qs, given by source (each compiled
// when first needed), or compiled now with eager.
func lazyCopies(qs []*Query, eager bool) []*Query {
	var out []*Query
	for _, q := range qs {
		c := &Query{Name: q.Name, Kinds: q.Kinds, Container: q.Container, MinLevel: q.MinLevel, MaxRows: q.MaxRows}
		if eager {
			c.Regex = regexp.MustCompile(q.Expr())
		} else {
			c.Source = q.Expr()
		}
		out = append(out, c)
	}
	return out
}

// The built-in rules' queries come given by source, and are not compiled
// until the scanner needs them: not for their prefilters, not for lines
// that pass none, only for those that pass theirs.
func TestLazyQueryCompiledWhenAPrefilterPasses(t *testing.T) {
	builtin := builtinQueries(t)
	for _, q := range builtin {
		if q.Regex != nil || q.Source == "" || q.Section != nil {
			t.Fatalf("%s: Regex %v, Source %q, Section %v: want a query given by source", q.Name, q.Regex, q.Source, q.Section)
		}
	}
	compiled := lazyCompiled(t)
	qs := lazyCopies(builtin, false)
	s := NewScanner(qs)
	p := "logs/rw-meta-0/meta.log"
	c := bundle.Classify(p)
	// Lines no built-in query's prefilter lets through, text and JSON.
	quiet := strings.Repeat("2026-11-29T20:41:07.1Z  INFO risingwave_meta::x: nothing to see here\n"+
		`{"timestamp":"2026-11-29T20:41:07Z","level":"INFO","fields":{"message":"quiet"},"target":"t"}`+"\n", 2000)
	if err := s.Scan(p, c, strings.NewReader(quiet)); err != nil {
		t.Fatal(err)
	}
	if len(*compiled) > 0 {
		t.Fatalf("compiled without a line through their prefilters: %q", *compiled)
	}

	// One line one query matches: that query's expression is compiled,
	// and none whose prefilter the line does not pass.
	line := []byte("2026-11-29T20:41:08.1Z  INFO risingwave_compute::server: Starting compute node")
	var passes, matches []string
	for _, q := range s.queries {
		if q.wants(c) && q.pre.match(line[len("2026-11-29T20:41:08.1Z  "):], s) {
			passes = append(passes, q.q.Source)
		}
		if q.wants(c) && regexp.MustCompile(q.q.Source).Match(line) {
			matches = append(matches, q.q.Name)
		}
	}
	if len(matches) == 0 || len(passes) >= len(qs)/2 {
		t.Fatalf("line: %d queries match it, %d of %d pass their prefilters: want some, and few", len(matches), len(passes), len(qs))
	}
	if err := s.Scan(p, c, bytes.NewReader(append(line, '\n'))); err != nil {
		t.Fatal(err)
	}
	for _, e := range *compiled {
		if !slices.Contains(passes, e) {
			t.Errorf("compiled %q, whose prefilter the line does not pass", e)
		}
	}
	for _, name := range matches {
		q := s.byName[name]
		if !slices.Contains(*compiled, q.q.Source) {
			t.Errorf("%s matches, yet its expression was not compiled", name)
		}
		if rows, n, _ := s.Results(name); n != 1 || len(rows) != 1 || rows[0]["line"] != 1 {
			t.Errorf("%s: %d matches, rows %v; want line 1", name, n, rows)
		}
	}
}

// A section expression given by source is compiled when a file the query
// reads is scanned, and its captures join the rows as Section's do.
func TestLazySection(t *testing.T) {
	compiled := lazyCompiled(t)
	mk := func(lazy bool) *Query {
		q := &Query{Name: "s", Kinds: []bundle.Kind{bundle.KindDiagnoseReport}}
		if lazy {
			q.Source, q.SectionSource = `stuck (?P<n>\d+)`, `^>> Worker (?P<worker>\d+)`
		} else {
			q.Regex, q.Section = regexp.MustCompile(`stuck (?P<n>\d+)`), regexp.MustCompile(`^>> Worker (?P<worker>\d+)`)
		}
		return q
	}
	q := mk(true)
	if err := NewScanner([]*Query{q}).Scan("logs/rw-compute-0/compute.log", bundle.Classify("logs/rw-compute-0/compute.log"), strings.NewReader(">> Worker 1\nstuck 2\n")); err != nil {
		t.Fatal(err)
	}
	if len(*compiled) > 0 {
		t.Fatalf("compiled for a file the query does not read: %q", *compiled)
	}
	data := []byte("a\n>> Worker 1\nstuck 2\n>> Worker 3\nb\nstuck 4\n")
	lazy, eager := NewScanner([]*Query{q}), NewScanner([]*Query{mk(false)})
	lbCompareScanners(t, "lazy", "eager", lazy, eager, []*Query{q}, "diagnose/report.txt", data, iotest.HalfReader)
	if rows, _, _ := lazy.Results("s"); len(rows) != 2 || rows[0]["worker"] != "1" || rows[1]["worker"] != "3" || rows[1]["n"] != "4" {
		t.Errorf("rows %v", rows)
	}
	if want := []string{`^>> Worker (?P<worker>\d+)`, `stuck (?P<n>\d+)`}; !slices.Equal(slices.Sorted(slices.Values(*compiled)), want) {
		t.Errorf("compiled %q, want %q", *compiled, want)
	}
}

// The built-in rules' queries find the same whether their expressions are
// compiled when first needed or at once, in text, JSON and mixed logs and
// in other text files.
func TestLazySameAsEager(t *testing.T) {
	builtin := builtinQueries(t)
	for _, q := range builtin {
		if q.Source == "" {
			t.Fatalf("%s: not given by source", q.Name)
		}
	}
	all := lbQueries(t) // with Kinds nil: every query reads every file
	r := rand.New(rand.NewPCG(9, 10))
	text := lsBenchLog(logBlockBytes + 40<<10)
	for _, set := range lbLogSets(r, text) {
		found := 0
		for _, qs := range [][]*Query{builtin, all} {
			for _, p := range []string{"logs/rw-compute-0/compute.log", "logs/rw-meta-0/meta.previous.log", "diagnose/report.txt"} {
				lazy, eager := NewScanner(lazyCopies(qs, false)), NewScanner(lazyCopies(qs, true))
				lbCompareScanners(t, "lazy", "eager", lazy, eager, qs, p, set.data, iotest.HalfReader)
				for _, q := range qs {
					_, n, _ := lazy.Results(q.Name)
					found += n
				}
			}
		}
		if found == 0 {
			t.Errorf("%s: nothing found; the comparison shows nothing", set.name)
		}
		if t.Failed() {
			t.Fatalf("set %s", set.name)
		}
	}
}

// A query's expression given by source is compiled once, whichever of
// the goroutines that ask for it at once gets there first; all get the
// same.
func TestLazyRegexpConcurrent(t *testing.T) {
	compiled := lazyCompiled(t)
	q := &Query{Name: "c", Source: `a(?P<b>b+)`}
	got := make([]*regexp.Regexp, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = q.Regexp() })
	}
	wg.Wait()
	for _, re := range got {
		if re == nil || re != got[0] || re.String() != q.Source {
			t.Fatalf("got %v", got)
		}
	}
	if len(*compiled) != 1 {
		t.Errorf("compiled %d times, want once", len(*compiled))
	}
}

// An expression given by source that does not compile: CheckQuery says
// so, and Regexp panics with the query's name.
func TestLazyRegexpBad(t *testing.T) {
	q := &Query{Name: "r/s", Source: `x(`}
	if err := CheckQuery(q); err == nil || err.Error() != "log query \"r/s\": error parsing regexp: missing closing ): `x(`" {
		t.Errorf("CheckQuery: %v", err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `log query "r/s": error parsing regexp`) {
			t.Errorf("Regexp: recovered %v", p)
		}
	}()
	q.Regexp()
}
