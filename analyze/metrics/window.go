package metrics

import (
	"math"
	"slices"
	"time"
)

// ScrapeTimes returns the time of every scrape file added (AddScrape's
// `at`), sorted: what a caller needs to work out the bundle's collection
// window when no manifest says, e.g. around their median.
func (s *Store) ScrapeTimes() []time.Time {
	var ts []int64
	for _, files := range s.scrapes {
		for _, f := range files {
			ts = append(ts, f.t)
		}
	}
	slices.Sort(ts)
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = time.UnixMilli(t).UTC()
	}
	return out
}

// DropScrapesOutside leaves out of the store every scrape file (AddScrape)
// taken outside [from, to], and every sample of a scraped series whose time
// is outside it (the samples of those files, and samples that carried their
// own timestamp), and returns the paths of the files left out in the order
// they were added. Series left with no sample go. Span, EvalTimes,
// Coverage, Grafana's $__range and the other intervals, and Query's lookback
// and default evaluation time see only what is kept: a scrape file named
// with a 1970 time can no longer stretch an evaluation over 55 years, and
// one in year 9999 no longer moves the evaluation time past every other
// sample. Series only from query_range files (AddRange) are left as they
// are, since a range query's window is its own. It must not run
// concurrently with Query.
func (s *Store) DropScrapesOutside(from, to time.Time) (dropped []string) {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	outside := func(t int64) bool { return t < lo || t > hi }
	var files []scrapeFile
	for pod, fs := range s.scrapes {
		kept := fs[:0]
		for _, f := range fs {
			if outside(f.t) {
				files = append(files, f)
			} else {
				kept = append(kept, f)
			}
		}
		if len(kept) == 0 {
			delete(s.scrapes, pod)
		} else {
			s.scrapes[pod] = kept
		}
	}
	slices.SortFunc(files, func(a, b scrapeFile) int { return a.seq - b.seq })
	for _, f := range files {
		dropped = append(dropped, f.path)
	}

	changed := len(files) > 0
	before := len(s.series)
	series := s.series[:0]
	for _, ms := range s.series {
		// Every sample is within the bounds: when they are inside, nothing
		// goes, and the chunks need not be decoded.
		if lo, hi := ms.bounds(); ms.scraped && (outside(lo) || outside(hi)) &&
			ms.filter(func(t int64) bool { return !outside(t) }) {
			changed = true
		}
		if ms.n > 0 {
			series = append(series, ms)
		}
	}
	clear(s.series[len(series):before])
	s.series = series
	if !changed && len(series) == before {
		return dropped
	}

	// Index again, and count and bound what is left.
	s.index = map[uint64]*memSeries{}
	s.raw = map[string]map[string]*memSeries{}
	s.nsamples = 0
	s.minT, s.maxT = math.MaxInt64, math.MinInt64
	for _, ms := range s.series {
		ms.next = s.index[ms.hash]
		s.index[ms.hash] = ms
		s.nsamples += ms.n
		lo, hi := ms.bounds()
		s.minT = min(s.minT, lo)
		s.maxT = max(s.maxT, hi)
	}
	s.dirty, s.famsDirty = true, true
	return dropped
}
