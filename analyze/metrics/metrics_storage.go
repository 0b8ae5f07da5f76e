package metrics

import (
	"context"
	"slices"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// The storage.Querier the Prometheus engine reads a Store through:
// in-memory series selected by matchers within the query's time range.

func (s *Store) querier(mint, maxt int64) (storage.Querier, error) {
	return &memQuerier{s: s, mint: mint, maxt: maxt}, nil
}

type memQuerier struct {
	s          *Store
	mint, maxt int64
}

// candidates returns the series sorted by labels that may match: those of
// the metric name matched with =, else all.
func (q *memQuerier) candidates(matchers []*labels.Matcher) []*memSeries {
	for _, m := range matchers {
		if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
			return q.s.byName[m.Value]
		}
	}
	return q.s.sorted
}

func matchesAll(lset labels.Labels, matchers []*labels.Matcher) bool {
	for _, m := range matchers {
		if !m.Matches(lset.Get(m.Name)) {
			return false
		}
	}
	return true
}

func (q *memQuerier) Select(ctx context.Context, _ bool, hints *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
	mint, maxt := q.mint, q.maxt
	limit := 0
	if hints != nil {
		mint, maxt, limit = hints.Start, hints.End, hints.Limit
	}
	var out []storage.Series
	for _, ms := range q.candidates(matchers) {
		if err := ctx.Err(); err != nil {
			return storage.ErrSeriesSet(err)
		}
		if !matchesAll(ms.lset, matchers) {
			continue
		}
		if !ms.anyIn(mint, maxt) {
			continue
		}
		out = append(out, &memSeriesView{lset: ms.lset, s: &ms.samples, mint: mint, maxt: maxt})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return &memSeriesSet{series: out, i: -1}
}

func (q *memQuerier) LabelValues(ctx context.Context, name string, hints *storage.LabelHints, matchers ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	seen := map[string]bool{}
	for _, ms := range q.candidates(matchers) {
		if v := ms.lset.Get(name); v != "" && matchesAll(ms.lset, matchers) {
			seen[v] = true
		}
	}
	return limitSorted(seen, hints), nil, ctx.Err()
}

func (q *memQuerier) LabelNames(ctx context.Context, hints *storage.LabelHints, matchers ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	seen := map[string]bool{}
	for _, ms := range q.candidates(matchers) {
		if matchesAll(ms.lset, matchers) {
			ms.lset.Range(func(l labels.Label) { seen[l.Name] = true })
		}
	}
	return limitSorted(seen, hints), nil, ctx.Err()
}

func limitSorted(set map[string]bool, hints *storage.LabelHints) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	if hints != nil && hints.Limit > 0 && len(out) > hints.Limit {
		out = out[:hints.Limit]
	}
	return out
}

func (*memQuerier) Close() error { return nil }

type memSeriesSet struct {
	series []storage.Series
	i      int
}

func (ss *memSeriesSet) Next() bool {
	ss.i++
	return ss.i < len(ss.series)
}
func (ss *memSeriesSet) At() storage.Series             { return ss.series[ss.i] }
func (*memSeriesSet) Err() error                        { return nil }
func (*memSeriesSet) Warnings() annotations.Annotations { return nil }

// memSeriesView is a series' samples within a Select's time range.
type memSeriesView struct {
	lset       labels.Labels
	s          *samples
	mint, maxt int64
}

func (v *memSeriesView) Labels() labels.Labels { return v.lset }

// Iterator decodes the samples in the range into plain slices, reusing
// those of it when it is one of these, and iterates them with storage's
// list iterator, as the store did when it held the slices: every Seek and
// Next behaves as it did. (An iterator over the chunks themselves would
// need a Seek method of this package's own, which go vet's stdmethods
// check refuses.)
func (v *memSeriesView) Iterator(it chunkenc.Iterator) chunkenc.Iterator {
	si, ok := it.(*sampleIter)
	if !ok {
		si = &sampleIter{buf: &memSamples{}}
	}
	si.buf.ts, si.buf.vs = v.s.appendRange(v.mint, v.maxt, si.buf.ts[:0], si.buf.vs[:0], &si.dec)
	if si.Iterator == nil {
		si.Iterator = storage.NewListSeriesIterator(si.buf)
	} else {
		si.Iterator.(interface{ Reset(storage.Samples) }).Reset(si.buf)
	}
	return si
}

// sampleIter is storage's list iterator over decoded samples, with the
// slices they were decoded into, for the next series to reuse.
type sampleIter struct {
	chunkenc.Iterator
	buf *memSamples
	dec chunkenc.Iterator // of the chunks, reused
}

// memSamples shows parallel time and value slices as storage.Samples.
// Get returns a pointer to a scratch sample it overwrites on every call,
// so that reading a sample allocates nothing; storage's list iterator reads
// each sample it gets at once.
type memSamples struct {
	ts  []int64
	vs  []float64
	cur floatSample
}

func (m *memSamples) Len() int { return len(m.ts) }

func (m *memSamples) Get(i int) chunks.Sample {
	m.cur = floatSample{t: m.ts[i], f: m.vs[i]}
	return &m.cur
}

// floatSample is a chunks.Sample holding a float.
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
