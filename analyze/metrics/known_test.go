package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
)

// scrapeGen writes scrapes of one pod in the shapes clients write and the
// ones the text parser refuses or reads in unexpected ways: tabs, blanks
// around braces and at the end, timestamps, every float spelling, quoted
// names, broken TYPE lines, values with braces or hex digits.
type scrapeGen struct {
	r      *rand.Rand
	series []string // exposition text of a series
}

func newScrapeGen(r *rand.Rand) *scrapeGen {
	g := &scrapeGen{r: r}
	for _, name := range []string{"a_total", "b", "h_bucket", "x"} {
		g.series = append(g.series, name, name+`{k="1"}`, name+` {k="2"}`, name+`{k="a b",j="c\"d"}`, name+`{le="+Inf"}`, name+`{le="1.0"}`, "\t"+name+`{k="3"}`)
	}
	g.series = append(g.series, `{"b",k="4"}`, `b{k="6",}`)
	return g
}

func (g *scrapeGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// scrape writes a scrape; a clean one has only what addKnown reads.
func (g *scrapeGen) scrape(clean bool) string {
	var sb strings.Builder
	pick := func(plain, odd []string) string {
		if !clean && g.r.IntN(40) == 0 {
			return g.pick(odd...)
		}
		return g.pick(plain...)
	}
	for _, ser := range g.series {
		if g.r.IntN(10) == 0 || clean && ser[0] == '\t' {
			// Missing this time; the parser reads a tab before a name as
			// part of the name, so addKnown never knows those.
			continue
		}
		if g.r.IntN(8) == 0 {
			sb.WriteString(pick([]string{"# TYPE a_total counter\n", "# TYPE b gauge\n", "# TYPE h histogram\n", "# TYPE x untyped\n", "# TYPE s summary\n"},
				[]string{"# TYPE x bogus\n", "# TYPE  x gauge\n", "#\tTYPE x gauge\n", "# TYPE x gauge \n", `# TYPE "x" gauge` + "\n", "# TYPE 1x gauge\n", "# TYPE x\n"}))
		}
		if !clean && g.r.IntN(200) == 0 {
			sb.WriteString(g.pick("\n", " \n", "# HELP x text\n", "garbage line\n", "x{k=\"1\" 3\n"))
		}
		sb.WriteString(ser)
		sb.WriteString(pick([]string{" ", " ", " ", "\t", "  ", " \t"}, []string{""}))
		val := pick([]string{"1", "0", "-0", "12345.678", "1e3", "1E-3", "NaN", "nan", "+Inf", "-Inf", "inf", "Infinity", ".5", "5.", "+1", "017"},
			[]string{"0x1p3", "1_000", "1e400", "1{", "abc", "", "--1", "0x10"})
		if val == "1" {
			val = fmt.Sprint(g.r.IntN(1 << 20))
		}
		sb.WriteString(val)
		if g.r.IntN(4) == 0 {
			sb.WriteString(g.pick(" ", "\t", "  "))
			sb.WriteString(pick([]string{"1790000000000", "0", "1790000001234"}, []string{"-5", "99999999999999999999", "12a", "1.5"}))
		}
		sb.WriteString(pick([]string{"", "", "", " ", "\t"}, []string{"\r"}))
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestAddKnownMatchesParser feeds the same scrapes to a store that reads
// known series without the text parser and to one that parses everything,
// and checks they end with the same errors, series and samples (bit for
// bit, NaNs included).
func TestAddKnownMatchesParser(t *testing.T) {
	fast, known := 0, 0
	for seed := range uint64(600) {
		r := rand.New(rand.NewPCG(seed, 3))
		g := newScrapeGen(r)
		names := map[string]bool{"a_total": true, "b": true, "h_bucket": true}
		if r.IntN(2) == 0 {
			names["x"] = true
		}
		want, got := NewStore(names), NewStore(names)
		want.parseAll = true
		for k := range 12 {
			text := g.scrape(k == 0 || r.IntN(2) == 0)
			at := metricsT0.Add(time.Duration(k) * 15 * time.Second)
			path := fmt.Sprintf("metrics/p/%d.prom", at.UnixMilli())
			errW := want.AddScrape(path, "p", at, strings.NewReader(text))
			before := got.nsamples
			errG := got.AddScrape(path, "p", at, strings.NewReader(text))
			if fmt.Sprint(errW) != fmt.Sprint(errG) {
				t.Fatalf("seed %d scrape %d: error %v, want %v\n%s", seed, k, errG, errW, text)
			}
			_ = before
		}
		if len(got.series) != len(want.series) {
			t.Fatalf("seed %d: %d series, want %d", seed, len(got.series), len(want.series))
		}
		for i, ms := range got.series {
			wms := want.series[i]
			if !labels.Equal(ms.lset, wms.lset) {
				t.Fatalf("seed %d: series %d is %s, want %s", seed, i, ms.lset, wms.lset)
			}
			ts, vs := sequence(&ms.samples)
			wts, wvs := sequence(&wms.samples)
			if !slices.Equal(ts, wts) || !sameFloats(vs, wvs) {
				t.Fatalf("seed %d: %s: samples %v %v, want %v %v", seed, ms.lset, ts, vs, wts, wvs)
			}
		}
		known += len(got.series)
		fast += got.nknown
	}
	// Half the scrapes are clean; addKnown reads those whose series
	// were all parsed before.
	if fast < 600*12/6 || known == 0 {
		t.Fatalf("addKnown read %d of %d scrapes (%d series)", fast, 600*12, known)
	}
	t.Logf("addKnown read %d of %d scrapes", fast, 600*12)
}

// TestAddKnownEdgeLines puts one odd line in a scrape whose other lines
// are all known, so that addKnown must give it to the parser, or read it
// as the parser does.
func TestAddKnownEdgeLines(t *testing.T) {
	first := "# TYPE b gauge\nb{k=\"1\"} 1\nb 2\nb {k=\"2\"} 3\n{\"b\",k=\"3\"} 4\n"
	odd := []string{
		"# TYPE b bogus", "# TYPE  b gauge", "#\tTYPE b gauge", "# TYPE b gauge ", `# TYPE "b" gauge`, "# TYPE 1b gauge",
		"# TYPE b", "# TYPE b:c_9 counter", "# TYPE b summary", "# TYPE b untyped", "# TYPE b histogram", "# TYPE é gauge",
		"b 5 1790000000000", "b 5\t1790000000000 ", "b 5 -1", "b 5 99999999999999999999", "b 5 1e3", "b 5 12a",
		"b 0x1p3", "b 1_0", "b 1e400", "b 1{", "b {", "b }", "b", "b ", "b  NaN", "b nan", "b -Inf", "b Infinity",
		"b 5 6 7", "b\t5", "b5", "b{k=\"1\"}5", "b{k=\"1\"} 5\r", "b{k=\"1\"}  5  ", " b 5", "b{k=\"1\"} 5 1 2",
		"b {k=\"2\"} 5 17", "{\"b\",k=\"3\"} 6", "b{k=\"9\"} 1", "x 1", "b 5 ",
	}
	names := map[string]bool{"b": true}
	for _, line := range odd {
		want, got := NewStore(names), NewStore(names)
		want.parseAll = true
		second := strings.Replace(first, "b 2\n", line+"\n", 1)
		for i, text := range []string{first, second} {
			at := metricsT0.Add(time.Duration(i) * 15 * time.Second)
			errW := want.AddScrape("p.prom", "p", at, strings.NewReader(text))
			errG := got.AddScrape("p.prom", "p", at, strings.NewReader(text))
			if fmt.Sprint(errW) != fmt.Sprint(errG) {
				t.Fatalf("%q: error %v, want %v", line, errG, errW)
			}
		}
		if len(got.series) != len(want.series) {
			t.Fatalf("%q: %d series, want %d", line, len(got.series), len(want.series))
		}
		for i, ms := range got.series {
			ts, vs := sequence(&ms.samples)
			wts, wvs := sequence(&want.series[i].samples)
			if !labels.Equal(ms.lset, want.series[i].lset) || !slices.Equal(ts, wts) || !sameFloats(vs, wvs) {
				t.Fatalf("%q: %s %v %v, want %s %v %v", line, ms.lset, ts, vs, want.series[i].lset, wts, wvs)
			}
		}
	}
	// The plain shapes are read without the parser.
	s := NewStore(names)
	for i := range 2 {
		at := metricsT0.Add(time.Duration(i) * 15 * time.Second)
		if err := s.AddScrape("p.prom", "p", at, strings.NewReader(first)); err != nil {
			t.Fatal(err)
		}
	}
	if s.nknown != 1 {
		t.Errorf("addKnown read %d scrapes, want 1", s.nknown)
	}
}
