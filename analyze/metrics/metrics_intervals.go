package metrics

import (
	"strconv"
	"strings"
	"time"
)

// metricIntervals is what Grafana's variables stand for over a store.
//
//   - scrape is the median spacing of samples: between the consecutive
//     scrape files of each pod, and in the query_range files; 0 when unknown.
//   - span is the last sample's time minus the first's.
//
// Range selectors are left-open, (at-d, at], so the window that holds every
// sample, `cover`, is span+1ms.
//
//   - $__range is cover (1m for a single scrape), so `increase(x[$__range])`
//     is the increase over the whole bundle, extrapolated by 1ms only.
//   - $__rate_interval is Grafana's max(4 × scrape, 1m), at most cover:
//     rate() extrapolates only up to 1.1 sample spacings past the data, so a
//     window much longer than the data would understate rates; with cover,
//     rate() is the exact average over the data.
//   - $__interval is scrape rounded down to a second (15s, Grafana's default
//     scrape interval, when unknown), so that `x offset $__interval` at a
//     sample's time finds the sample before it even when scrapes run late.
type metricIntervals struct {
	scrape, span time.Duration
}

// placeholderIntervals stand for the variables when only parsing: 1m, 1m
// and 15s.
var placeholderIntervals = metricIntervals{scrape: 15 * time.Second}

func (iv metricIntervals) cover() time.Duration { return iv.span + time.Millisecond }

func (iv metricIntervals) rangeVar() time.Duration {
	if iv.span <= 0 {
		return time.Minute
	}
	return iv.cover()
}

func (iv metricIntervals) rateInterval() time.Duration {
	d := max(4*iv.scrape, time.Minute)
	if iv.span > 0 {
		d = min(d, iv.cover())
	}
	return d
}

func (iv metricIntervals) interval() time.Duration {
	if iv.scrape <= 0 {
		return 15 * time.Second
	}
	// Down, not up: scrapes a few milliseconds late (15.005s apart) must
	// still find the previous one at `x offset $__interval`; rounded up, the
	// offset would reach past it to the one before.
	d := iv.scrape.Truncate(time.Second)
	if d <= 0 {
		d = iv.scrape
	}
	return d
}

// expandGrafanaVars replaces Grafana's interval variables by durations (and
// the _s/_ms forms by numbers), padded to the variable's length where they
// fit so that parse error positions still point into the query as written:
// durations with leading zeros, numbers with trailing spaces.
func expandGrafanaVars(q string, iv metricIntervals) string {
	if !strings.Contains(q, "$") {
		return q
	}
	var pairs []string
	dur := func(d time.Duration, vars ...string) {
		s := strconv.FormatInt(d.Milliseconds(), 10) + "ms"
		if d%time.Second == 0 {
			s = strconv.FormatInt(int64(d/time.Second), 10) + "s"
		}
		for _, v := range vars {
			pairs = append(pairs, v, strings.Repeat("0", max(len(v)-len(s), 0))+s)
		}
	}
	num := func(n int64, vars ...string) {
		s := strconv.FormatInt(n, 10)
		for _, v := range vars {
			pairs = append(pairs, v, s+strings.Repeat(" ", max(len(v)-len(s), 0)))
		}
	}
	rng := iv.rangeVar()
	// Longer names first: the replacer tries them in this order.
	num(iv.interval().Milliseconds(), "${__interval_ms}", "$__interval_ms")
	num(rng.Milliseconds(), "${__range_ms}", "$__range_ms")
	num(int64((rng+time.Second-1)/time.Second), "${__range_s}", "$__range_s")
	dur(iv.rateInterval(), "${__rate_interval}", "$__rate_interval")
	dur(iv.interval(), "${__interval}", "$__interval")
	dur(rng, "${__range}", "$__range")
	return strings.NewReplacer(pairs...).Replace(q)
}
