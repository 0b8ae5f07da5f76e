package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

// A series' samples, held compactly in Prometheus' XOR chunks (tsdb/chunkenc):
// a scrape's regular timestamps and slowly changing values take a bit to a
// few bytes a sample instead of 16.
//
// samples holds the same sequence the store's plain time and value slices
// held before: the samples in the order they were added until one comes at
// or before the time of the one before it, and from order() on the samples
// sorted by time with one per time (the last added). While that sequence is
// increasing in time (ordered), it is in XOR chunks of at most chunkSamples
// samples: sealed ones, trimmed to their bytes, and an open head with its
// appender. A sample out of order decodes everything into the plain slices
// ts and vs, where samples go on being appended until order() sorts them
// and encodes them again; scrapes bring such samples rarely (a sample with
// its own old timestamp, two files of one pod with the same time).
type samples struct {
	n       int  // samples held
	ordered bool // the sequence is increasing in time and in chunks

	chunks   []sealedChunk
	head     *chunkenc.XORChunk
	app      chunkenc.Appender
	headN    int   // samples in head
	headMinT int64 // first sample's time in head
	lastT    int64 // the last sample's time, when ordered and n > 0

	// !ordered: every sample in the order added.
	ts []int64
	vs []float64
}

// chunkSamples is the most samples an XOR chunk holds, as in Prometheus'
// head: a Seek decodes at most that many samples to reach its time.
const chunkSamples = 120

type sealedChunk struct {
	minT, maxT int64
	b          []byte
}

func newSamples() samples { return samples{ordered: true} }

// add appends a sample to the sequence.
func (s *samples) add(t int64, v float64) {
	s.n++
	if s.ordered && s.n > 1 && t <= s.lastT {
		s.unorder()
	}
	if !s.ordered {
		s.ts = append(s.ts, t)
		s.vs = append(s.vs, v)
		return
	}
	if s.head == nil || s.headN >= chunkSamples {
		s.cut(t)
	}
	s.app.Append(0, t, v)
	s.headN++
	s.lastT = t
}

// cut seals the head, if any, and opens a new one whose first sample is at t.
func (s *samples) cut(t int64) {
	if s.head != nil {
		s.chunks = append(s.chunks, sealedChunk{minT: s.headMinT, maxT: s.lastT, b: trimmed(s.head.Bytes())})
	}
	s.head = chunkenc.NewXORChunk()
	app, err := s.head.Appender()
	if err != nil {
		panic(err) // an empty chunk's appender cannot fail
	}
	s.app, s.headN, s.headMinT = app, 0, t
}

func trimmed(b []byte) []byte {
	if cap(b) == len(b) {
		return b
	}
	return slices.Clip(slices.Clone(b))
}

// compact trims the head's spare capacity; appending may go on.
func (s *samples) compact() {
	if s.head != nil {
		s.head.Compact()
	}
}

// unorder moves the chunks' samples to the plain slices.
func (s *samples) unorder() {
	n := s.n - 1 // the sample being added is not in yet
	s.ts = make([]int64, 0, n+1)
	s.vs = make([]float64, 0, n+1)
	s.each(func(t int64, v float64) {
		s.ts = append(s.ts, t)
		s.vs = append(s.vs, v)
	})
	s.ordered = false
	s.chunks, s.head, s.app, s.headN = nil, nil, nil, 0
}

// each calls f on every sample of the sequence, in order.
func (s *samples) each(f func(t int64, v float64)) {
	if !s.ordered {
		for i, t := range s.ts {
			f(t, s.vs[i])
		}
		return
	}
	var c chunkenc.XORChunk
	var it chunkenc.Iterator
	for i := 0; i <= len(s.chunks); i++ {
		var b []byte
		if i < len(s.chunks) {
			b = s.chunks[i].b
		} else if s.head != nil {
			b = s.head.Bytes()
		} else {
			break
		}
		c.Reset(b)
		it = c.Iterator(it)
		for it.Next() != chunkenc.ValNone {
			f(it.At())
		}
	}
}

// order sorts the samples by time, keeping the last added of those with the
// same time, and encodes them in chunks.
func (s *samples) order() {
	if s.ordered {
		return
	}
	idx := make([]int32, len(s.ts))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(s.ts[a], s.ts[b]) })
	ts, vs := s.ts, s.vs
	*s = newSamples()
	for k, i := range idx {
		if k+1 < len(idx) && ts[idx[k+1]] == ts[i] {
			continue
		}
		s.add(ts[i], vs[i])
	}
}

// filter keeps the samples whose time keep accepts, in their order, and
// reports whether any went.
func (s *samples) filter(keep func(t int64) bool) bool {
	if !s.ordered {
		n := 0
		for i, t := range s.ts {
			if keep(t) {
				s.ts[n], s.vs[n] = t, s.vs[i]
				n++
			}
		}
		if n == len(s.ts) {
			return false
		}
		clear(s.ts[n:])
		s.ts, s.vs, s.n = s.ts[:n:n], s.vs[:n:n], n
		return true
	}
	all := true
	s.each(func(t int64, _ float64) { all = all && keep(t) })
	if all {
		return false
	}
	var ts []int64
	var vs []float64
	s.each(func(t int64, v float64) {
		if keep(t) {
			ts = append(ts, t)
			vs = append(vs, v)
		}
	})
	*s = newSamples()
	for i, t := range ts {
		s.add(t, vs[i])
	}
	return true
}

// bounds returns the earliest and the latest time; MaxInt64 and MinInt64
// when there is no sample.
func (s *samples) bounds() (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	switch {
	case s.n == 0:
	case s.ordered && len(s.chunks) > 0:
		lo, hi = s.chunks[0].minT, s.lastT
	case s.ordered:
		lo, hi = s.headMinT, s.lastT
	default:
		for _, t := range s.ts {
			lo, hi = min(lo, t), max(hi, t)
		}
	}
	return lo, hi
}

// chunk returns the i-th chunk, the head last; ok is false past it.
func (s *samples) chunk(i int) (c sealedChunk, ok bool) {
	switch {
	case i < len(s.chunks):
		return s.chunks[i], true
	case i == len(s.chunks) && s.head != nil:
		return sealedChunk{minT: s.headMinT, maxT: s.lastT, b: s.head.Bytes()}, true
	}
	return sealedChunk{}, false
}

// anyIn reports whether a sample's time is in [mint, maxt]. The samples
// must be ordered.
func (s *samples) anyIn(mint, maxt int64) bool {
	for i := 0; ; i++ {
		c, ok := s.chunk(i)
		if !ok || c.minT > maxt {
			return false
		}
		if c.maxT < mint {
			continue
		}
		if c.minT >= mint || c.maxT <= maxt {
			return true // its first or last sample is in
		}
		// The chunk spans the range: look inside.
		var xc chunkenc.XORChunk
		xc.Reset(c.b)
		it := xc.Iterator(nil)
		for it.Next() != chunkenc.ValNone {
			if t := it.AtT(); t >= mint {
				return t <= maxt
			}
		}
		return false
	}
}

// appendRange appends the times and values of the samples with a time in
// [mint, maxt] to ts and vs. The samples must be ordered. it, when not nil,
// is a chunk iterator to reuse, and is set to the one used.
func (s *samples) appendRange(mint, maxt int64, ts []int64, vs []float64, it *chunkenc.Iterator) ([]int64, []float64) {
	var xc chunkenc.XORChunk
	if it == nil {
		it = new(chunkenc.Iterator)
	}
	for i := 0; ; i++ {
		c, ok := s.chunk(i)
		if !ok || c.minT > maxt {
			return ts, vs
		}
		if c.maxT < mint {
			continue
		}
		xc.Reset(c.b)
		*it = xc.Iterator(*it)
		for (*it).Next() != chunkenc.ValNone {
			t, v := (*it).At()
			if t < mint {
				continue
			}
			if t > maxt {
				return ts, vs
			}
			ts = append(ts, t)
			vs = append(vs, v)
		}
	}
}
