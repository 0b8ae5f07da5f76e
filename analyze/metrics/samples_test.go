package metrics

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// refSamples is the store's former sample storage, the reference the XOR
// chunks are checked against: parallel slices in the order added, sorted
// by a stable sort keeping the last of equal times once ordered.
type refSamples struct {
	ts      []int64
	vs      []float64
	ordered bool
}

func (r *refSamples) add(t int64, v float64) {
	if n := len(r.ts); n > 0 && t <= r.ts[n-1] {
		r.ordered = false
	}
	r.ts = append(r.ts, t)
	r.vs = append(r.vs, v)
}

func (r *refSamples) order() {
	if r.ordered {
		return
	}
	idx := make([]int, len(r.ts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(r.ts[a], r.ts[b]) })
	var ts []int64
	var vs []float64
	for k, i := range idx {
		if k+1 < len(idx) && r.ts[idx[k+1]] == r.ts[i] {
			continue
		}
		ts = append(ts, r.ts[i])
		vs = append(vs, r.vs[i])
	}
	r.ts, r.vs, r.ordered = ts, vs, true
}

func (r *refSamples) filter(keep func(int64) bool) {
	var ts []int64
	var vs []float64
	for i, t := range r.ts {
		if keep(t) {
			ts = append(ts, t)
			vs = append(vs, r.vs[i])
		}
	}
	r.ts, r.vs = ts, vs
}

// inRange is what the former Select handed the engine.
func (r *refSamples) inRange(mint, maxt int64) ([]int64, []float64) {
	lo, _ := slices.BinarySearch(r.ts, mint)
	hi, found := slices.BinarySearch(r.ts, maxt)
	if found {
		hi++
	}
	if lo >= hi {
		return nil, nil
	}
	return r.ts[lo:hi], r.vs[lo:hi]
}

// sameFloat compares bit for bit, so that NaNs and stale markers count.
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func sequence(s *samples) (ts []int64, vs []float64) {
	s.each(func(t int64, v float64) {
		ts = append(ts, t)
		vs = append(vs, v)
	})
	return ts, vs
}

// sampleGen makes the shapes scrapes bring: regular scrape times with
// jitter, counters that grow and reset, gauges, NaN and stale markers,
// samples out of order and at the same time, extreme timestamps.
type sampleGen struct {
	r    *rand.Rand
	t    int64
	step int64
	v    float64
}

func newSampleGen(r *rand.Rand) *sampleGen {
	g := &sampleGen{r: r, t: 1_790_000_000_000 + r.Int64N(1e6), step: []int64{1, 1000, 15000, 30000}[r.IntN(4)]}
	return g
}

func (g *sampleGen) next() (int64, float64) {
	switch k := g.r.IntN(100); {
	case k < 80:
		g.t += g.step + g.r.Int64N(3) - 1
	case k < 86:
		g.t -= g.r.Int64N(3 * g.step) // out of order, or the same time
	case k < 89:
		g.t += g.r.Int64N(1 << 40) // a long gap
	case k < 90:
		g.t = []int64{math.MinInt64, math.MaxInt64, 0, -1, math.MinInt64 + 1, math.MaxInt64 - 1}[g.r.IntN(6)]
	}
	switch k := g.r.IntN(100); {
	case k < 50:
		g.v += float64(g.r.IntN(1000)) // a counter
	case k < 55:
		g.v = 0 // a reset
	case k < 60:
		g.v = math.NaN()
	case k < 64:
		g.v = math.Float64frombits(value.StaleNaN)
	case k < 66:
		g.v = []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64}[g.r.IntN(5)]
	case k < 80:
		g.v = g.r.NormFloat64() * 1e6 // a gauge
	}
	return g.t, g.v
}

// TestSamplesMatchSlices checks the XOR chunk storage against the former
// slice storage on random sequences: the same sequence, count and bounds
// after every step, and the same samples in every range once ordered.
func TestSamplesMatchSlices(t *testing.T) {
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 14))
		g := newSampleGen(r)
		s := newSamples()
		ref := &refSamples{ordered: true}
		n := r.IntN([]int{3, 130, 600}[r.IntN(3)])
		check := func(stage string) {
			t.Helper()
			ts, vs := sequence(&s)
			if !slices.Equal(ts, ref.ts) || !sameFloats(vs, ref.vs) || s.n != len(ref.ts) {
				t.Fatalf("seed %d, %s: sequence differs: %d samples, want %d\n got  %v\n want %v", seed, stage, s.n, len(ref.ts), ts, ref.ts)
			}
			lo, hi := s.bounds()
			wlo, whi := int64(math.MaxInt64), int64(math.MinInt64)
			for _, t := range ref.ts {
				wlo, whi = min(wlo, t), max(whi, t)
			}
			if lo != wlo || hi != whi {
				t.Fatalf("seed %d, %s: bounds %d..%d, want %d..%d", seed, stage, lo, hi, wlo, whi)
			}
		}
		for i := range n {
			tm, v := g.next()
			s.add(tm, v)
			ref.add(tm, v)
			if i%97 == 0 {
				check(fmt.Sprintf("after %d adds", i+1))
			}
		}
		check("added")
		if r.IntN(3) == 0 {
			// DropScrapesOutside before ordering.
			cut := g.t - r.Int64N(100*g.step+1)
			keep := func(t int64) bool { return t <= cut }
			s.filter(keep)
			ref.filter(keep)
			check("filtered")
		}
		s.order()
		s.compact()
		ref.order()
		check("ordered")
		if !s.ordered {
			t.Fatalf("seed %d: not ordered after order()", seed)
		}
		times := append([]int64{math.MinInt64, math.MaxInt64}, ref.ts...)
		for range 50 {
			mint := times[r.IntN(len(times))] + r.Int64N(3) - 1
			maxt := times[r.IntN(len(times))] + r.Int64N(3) - 1
			if r.IntN(4) > 0 && mint > maxt {
				mint, maxt = maxt, mint
			}
			wts, wvs := ref.inRange(mint, maxt)
			if got := s.anyIn(mint, maxt); got != (len(wts) > 0) {
				t.Fatalf("seed %d: anyIn(%d, %d) = %v, want %v", seed, mint, maxt, got, len(wts) > 0)
			}
			ts, vs := s.appendRange(mint, maxt, nil, nil, nil)
			if !slices.Equal(ts, wts) || !sameFloats(vs, wvs) {
				t.Fatalf("seed %d: range [%d, %d]: got %v, want %v", seed, mint, maxt, ts, wts)
			}
		}
		// Appending goes on after ordering, and filtering an ordered one.
		for range r.IntN(200) {
			tm, v := g.next()
			s.add(tm, v)
			ref.add(tm, v)
		}
		check("added after ordering")
		keep := func(t int64) bool { return t%3 != 0 }
		s.filter(keep)
		ref.filter(keep)
		check("filtered again")
	}
}

// refQueryable is the former memQuerier over refSamples, for the engine.
type refQueryable struct {
	series []refSeries // sorted by labels
}

type refSeries struct {
	lset labels.Labels
	smp  *refSamples
}

func (q *refQueryable) Querier(mint, maxt int64) (storage.Querier, error) {
	return &refQuerier{q: q, mint: mint, maxt: maxt}, nil
}

type refQuerier struct {
	q          *refQueryable
	mint, maxt int64
}

func (q *refQuerier) Select(_ context.Context, _ bool, hints *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
	mint, maxt := q.mint, q.maxt
	if hints != nil {
		mint, maxt = hints.Start, hints.End
	}
	var out []storage.Series
	for _, rs := range q.q.series {
		if !matchesAll(rs.lset, matchers) {
			continue
		}
		ts, vs := rs.smp.inRange(mint, maxt)
		if len(ts) == 0 {
			continue
		}
		var smp []chunks.Sample
		for i, t := range ts {
			smp = append(smp, &floatSample{t: t, f: vs[i]})
		}
		out = append(out, storage.NewListSeries(rs.lset, smp))
	}
	return &memSeriesSet{series: out, i: -1}
}

func (*refQuerier) LabelValues(context.Context, string, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, nil
}

func (*refQuerier) LabelNames(context.Context, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, nil
}
func (*refQuerier) Close() error { return nil }

// TestStoreQueriesMatchSlices fills a store and the reference with the same
// random series (counters with resets, a histogram's _bucket series, gauges
// with NaN and stale markers, series that start mid-window, samples out of
// order and at the same time), merged by SetComponents and cut by
// DropScrapesOutside, and checks that the engine answers every query the
// same over both, at times all over the window.
func TestStoreQueriesMatchSlices(t *testing.T) {
	queries := []string{
		`up`, `rate(c_total[1m])`, `increase(c_total[5m])`, `resets(c_total[10m])`,
		`histogram_quantile(0.9, sum by (le) (rate(h_bucket[2m])))`,
		`max_over_time(g[3m])`, `g`, `count_over_time(g[1h])`, `timestamp(g)`,
		`last_over_time(g[10m])`, `changes(g[30m])`, `deriv(g[5m])`,
		`g offset 1m`, `max_over_time(g[5m:30s])`, `sum by (pod) (c_total)`,
		`c_total[4m]`, `{__name__=~"g|up"}`, `absent(g)`, `delta(g[2m])`,
	}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 41))
		s := NewStore(nil)
		refs := map[string]*refSamples{}
		start := int64(1_790_000_000_000)
		names := []string{"up", "c_total", "g", "h_bucket"}
		type pending struct {
			lset labels.Labels
			t    int64
			v    float64
			seq  int // index in its series
		}
		var adds []pending
		for pod := range 3 {
			for _, name := range names {
				for k := range 1 + r.IntN(3) {
					b := labels.NewScratchBuilder(4)
					b.Add(labels.MetricName, name)
					b.Add("pod", fmt.Sprintf("p%d", pod))
					if name == "h_bucket" {
						b.Add("le", []string{"0.1", "1", "10", "+Inf"}[k%4])
					} else {
						b.Add("k", fmt.Sprint(k))
					}
					b.Sort()
					lset := b.Labels()
					g := newSampleGen(r)
					g.t, g.step = start+r.Int64N(600_000), 15_000 // some start mid-window
					for i := range r.IntN(150) {
						tm, v := g.next()
						if tm < start-3_600_000 || tm > start+7_200_000 {
							tm = start + r.Int64N(3_600_000)
						}
						adds = append(adds, pending{lset, tm, v, i})
					}
				}
			}
		}
		// Interleave the series, as scrapes do, each in its own order.
		slices.SortStableFunc(adds, func(a, b pending) int { return a.seq - b.seq })
		for _, a := range adds {
			s.append(s.getOrCreate(a.lset), a.t, a.v)
			key := a.lset.String()
			if refs[key] == nil {
				refs[key] = &refSamples{ordered: true}
			}
			refs[key].add(a.t, a.v)
		}
		for _, ms := range s.series {
			ms.scraped = true
		}
		// SetComponents: pods p1 and p2 are one component's, p0 none; the
		// component label makes no two series equal here, so nothing merges,
		// but every series is relabelled.
		s.SetComponents(func(pod string) string {
			if pod == "p0" {
				return ""
			}
			return "compute"
		})
		ref := &refQueryable{}
		for _, ms := range s.series {
			lb := labels.NewBuilder(ms.lset)
			lb.Del("component")
			rs := refs[lb.Labels().String()]
			if rs == nil {
				t.Fatalf("seed %d: series %s not in the reference", seed, ms.lset)
			}
			ref.series = append(ref.series, refSeries{ms.lset, rs})
		}
		if r.IntN(2) == 0 {
			from, to := start+r.Int64N(600_000), start+3_000_000+r.Int64N(600_000)
			s.DropScrapesOutside(time.UnixMilli(from), time.UnixMilli(to))
			for _, rs := range ref.series {
				rs.smp.filter(func(t int64) bool { return t >= from && t <= to })
			}
		}
		s.prepare()
		for _, rs := range ref.series {
			rs.smp.order()
		}
		slices.SortFunc(ref.series, func(a, b refSeries) int { return labels.Compare(a.lset, b.lset) })
		engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1e8, Timeout: time.Minute, EnableAtModifier: true, EnableNegativeOffset: true,
			NoStepSubqueryIntervalFn: func(int64) int64 { return 15_000 }})
		opts := promql.NewPrometheusQueryOpts(false, 5*time.Minute, nil)
		for _, q := range queries {
			for range 8 {
				at := time.UnixMilli(start + r.Int64N(3_900_000))
				got := evalWith(t, engine, storage.QueryableFunc(s.querier), opts, q, at)
				want := evalWith(t, engine, ref, opts, q, at)
				if got != want {
					t.Fatalf("seed %d: %s at %d:\n got  %s\n want %s", seed, q, at.UnixMilli(), got, want)
				}
			}
		}
	}
}

func evalWith(t *testing.T, engine *promql.Engine, q storage.Queryable, opts promql.QueryOpts, qs string, at time.Time) string {
	t.Helper()
	iq, err := engine.NewInstantQuery(context.Background(), q, opts, qs, at)
	if err != nil {
		t.Fatal(err)
	}
	defer iq.Close()
	res := iq.Exec(context.Background())
	if res.Err != nil {
		return "error: " + res.Err.Error()
	}
	if v, ok := res.Value.(promql.Vector); ok {
		slices.SortFunc(v, func(a, b promql.Sample) int { return labels.Compare(a.Metric, b.Metric) })
	}
	// %v prints NaN as NaN; stale markers are NaN too, told apart by the
	// sample checks above.
	return fmt.Sprintf("%v", res.Value)
}

// refWantedLines is wantedLines as it was before it compared each line's
// start with the name of the line before: exposedName on every line.
func refWantedLines(names map[string]bool, b []byte) (kept []byte, lineNos []int32) {
	n := int32(0)
	for r := 0; r < len(b); {
		end := r + bytes.IndexByte(b[r:], '\n') + 1
		if end == r {
			end = len(b)
		}
		line := b[r:end]
		n++
		keep := true
		switch line[0] {
		case '#':
			keep = bytes.HasPrefix(bytes.TrimLeft(line[1:], " \t"), []byte("TYPE"))
		case '\n':
			keep = false
		default:
			if name, ok := exposedName(line); ok {
				keep = names[string(name)]
			}
		}
		if keep {
			kept = append(kept, line...)
			lineNos = append(lineNos, n)
		}
		r = end
	}
	return kept, lineNos
}

// TestWantedLinesMatchesReference feeds wantedLines lines whose names are
// prefixes of each other, quoted, indented or cut short, and checks it keeps
// what exposedName on every line keeps.
func TestWantedLinesMatchesReference(t *testing.T) {
	parts := []string{"a", "ab", "a_bucket", "b", "", " ", "\t", "{", "}", `"a"`, `le="1"`, " 1", "\n", "#", "# TYPE a counter", "x"}
	names := map[string]bool{"a": true, "a_bucket": true, "": true}
	s := NewStore(names)
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 7))
		var b []byte
		for range r.IntN(40) {
			for range 1 + r.IntN(4) {
				b = append(b, parts[r.IntN(len(parts))]...)
			}
			if r.IntN(8) > 0 {
				b = append(b, '\n')
			}
		}
		if len(b) == 0 {
			continue
		}
		wantB, wantN := refWantedLines(names, slices.Clone(b))
		in := slices.Clone(b)
		gotB, gotN := s.wantedLines(in)
		if !bytes.Equal(gotB, wantB) || !slices.Equal(gotN, wantN) {
			t.Fatalf("seed %d: %q:\n got  %q %v\n want %q %v", seed, b, gotB, gotN, wantB, wantN)
		}
	}
}

// floatSample is a chunks.Sample holding a float, for storage's list
// series the reference answers from.
type floatSample struct {
	t int64
	f float64
}

func (s *floatSample) T() int64                    { return s.t }
func (*floatSample) ST() int64                     { return 0 }
func (s *floatSample) F() float64                  { return s.f }
func (*floatSample) H() *histogram.Histogram       { return nil }
func (*floatSample) FH() *histogram.FloatHistogram { return nil }
func (*floatSample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s *floatSample) Copy() chunks.Sample         { c := *s; return &c }
