package metrics

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
)

// Limits bound one PromQL evaluation, so that no query of a rule file can
// exhaust the machine: it fails with a *LimitError naming the query and
// the limit instead. A zero field takes the default; a negative one means
// no limit (for MaxSamples, Prometheus' own default).
type Limits struct {
	// MaxSamples is the most samples the engine holds at once during one
	// query. Default: twice the samples the store holds (a query reading
	// all of them twice over), at least 5 million and at most 50 million,
	// Prometheus' default.
	MaxSamples int
	// Timeout stops a query that runs longer. Default 30 s; the caller's
	// context may end it earlier.
	Timeout time.Duration
	// MaxSubquerySteps is the most steps one subquery may evaluate, checked
	// before evaluation: its range (with the ranges of the subqueries it is
	// in) divided by its step. Prometheus allocates per step before it
	// counts a single sample, so `max_over_time(up[10y:1ms])` (3×10¹¹
	// steps) would run the process out of memory at once. Default
	// 1,000,000: a 1 s step over 11 days, a 15 s step over 173 days.
	MaxSubquerySteps int
	// MaxSeriesWork is the most samples a range function (max_over_time,
	// rate, ...) may read for one series over all the steps it is evaluated
	// at, estimated before evaluation: the steps of the subquery it is in
	// (1 at the top) times the samples in its window (a subquery's steps,
	// or a range's scrapes, at most the store's longest series). Prometheus
	// checks for a timeout between series, not within one, so
	// `max_over_time((max_over_time(vector(1)[1d:1s]))[1d:1s])`, 7.5×10⁹
	// samples for its single series, would run past any Timeout for a
	// minute. Default 100,000,000, about a second.
	MaxSeriesWork int
}

// Default limits; see Limits.
const (
	DefaultMinSamples       = 5_000_000
	DefaultMaxSamples       = 50_000_000
	DefaultTimeout          = 30 * time.Second
	DefaultMaxSubquerySteps = 1_000_000
	DefaultMaxSeriesWork    = 100_000_000
)

// SetLimits sets the limits of the queries to come; it must not run
// concurrently with Query.
func (s *Store) SetLimits(l Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = l
	s.engine = nil // made again with them
}

// maxSamples is the engine's sample limit for a store of n samples.
func (l Limits) maxSamples(n int) int {
	switch {
	case l.MaxSamples > 0:
		return l.MaxSamples
	case l.MaxSamples < 0:
		return DefaultMaxSamples
	}
	return min(max(2*n, DefaultMinSamples), DefaultMaxSamples)
}

func (l Limits) timeout() time.Duration {
	switch {
	case l.Timeout > 0:
		return l.Timeout
	case l.Timeout < 0:
		return 100 * 365 * 24 * time.Hour
	}
	return DefaultTimeout
}

// limitOr is limit, or def when it is 0, or -1 (none) when negative.
func limitOr(limit, def int) int64 {
	switch {
	case limit > 0:
		return int64(limit)
	case limit < 0:
		return -1
	}
	return int64(def)
}

// ErrLimit is wrapped by every error of a query stopped at one of its
// Limits: errors.Is tells a rule that exceeded its budget from one whose
// query is wrong.
var ErrLimit = errors.New("limit reached")

// LimitError is a query stopped at one of the Limits.
type LimitError struct {
	Query string // as the rule wrote it
	Limit string // the field of Limits, e.g. "MaxSamples"
	Msg   string // what was exceeded
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("query %q stopped: %s (metrics limit %s)", e.Query, e.Msg, e.Limit)
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// lintLimitError is CheckQuery's error for a query the store would refuse,
// worded for rules lint; errors.Is(err, ErrLimit) tells it from a warning.
type lintLimitError string

func (e lintLimitError) Error() string        { return string(e) }
func (e lintLimitError) Is(target error) bool { return target == ErrLimit }

// evalError turns the engine's errors for its limits into LimitErrors;
// callerDone tells a timeout of the caller's context from the store's.
func evalError(query string, l Limits, maxSamples int, err error, callerDone bool) error {
	var tooMany promql.ErrTooManySamples
	var timeout promql.ErrQueryTimeout
	switch {
	case errors.As(err, &tooMany):
		return &LimitError{Query: query, Limit: "MaxSamples",
			Msg: fmt.Sprintf("it would hold more than %d samples at once", maxSamples)}
	case errors.As(err, &timeout) && !callerDone:
		return &LimitError{Query: query, Limit: "Timeout", Msg: "it ran longer than " + l.timeout().String()}
	}
	return fmt.Errorf("query %q: %w", query, err)
}

// costCheck is what a query is checked against before evaluation.
type costCheck struct {
	maxSteps, maxWork int64         // -1: none
	defaultStep       time.Duration // of a subquery written without one
	scrape            time.Duration // spacing of samples, for a range's count
	maxSeriesLen      int64         // samples of the longest series; -1: unknown
	lint              bool          // messages for rules lint
}

// check returns the errors of query's parsed expr against c: subqueries
// with too many steps and range functions reading too many samples per
// series, in the order they appear. The first is enough for Query.
func (c costCheck) check(query, qs string, expr parser.Expr) []error {
	var errs []error
	add := func(limit, msg string) {
		if c.lint {
			errs = append(errs, lintLimitError(fmt.Sprintf("query %q: %s (metrics limit %s)", query, msg, limit)))
		} else {
			errs = append(errs, &LimitError{Query: query, Limit: limit, Msg: msg})
		}
	}
	parser.Inspect(expr, func(n parser.Node, path []parser.Node) error {
		switch n := n.(type) {
		case *parser.SubqueryExpr:
			window, step := c.window(n, path)
			if k := steps(window, step); c.maxSteps >= 0 && k > c.maxSteps {
				add("MaxSubquerySteps", fmt.Sprintf("%s: subquery %s would evaluate %d steps (%s / %s), more than %d",
					c.at(qs, n), n, k, durText(window), durText(step), c.maxSteps))
			}
		case *parser.Call:
			for _, arg := range n.Args {
				var per int64 // samples in one window
				switch a := arg.(type) {
				case *parser.SubqueryExpr:
					if c.maxSteps >= 0 && steps(c.window(a, append(path, n))) > c.maxSteps {
						continue // its own error says enough
					}
					per = steps(a.Range, c.step(a))
				case *parser.MatrixSelector:
					per = steps(a.Range, max(c.scrape, time.Second))
					if c.maxSeriesLen >= 0 {
						per = min(per, c.maxSeriesLen)
					}
				default:
					continue
				}
				evals := int64(1)
				for i := len(path) - 1; i >= 0; i-- {
					if outer, ok := path[i].(*parser.SubqueryExpr); ok {
						evals = steps(c.window(outer, path[:i]))
						break
					}
				}
				if work := evals * per; c.maxWork >= 0 && (work > c.maxWork || work/per != evals) {
					add("MaxSeriesWork", fmt.Sprintf("%s: %s would read about %d samples per series (%d steps × %d samples in each window of %s), more than %d",
						c.at(qs, n), n.Func.Name, evals*per, evals, per, arg, c.maxWork))
				}
			}
		}
		return nil
	})
	return errs
}

// window is the time a subquery spans when evaluated, its range plus those
// of the subqueries it is in (path: its ancestors), and its step.
func (c costCheck) window(sq *parser.SubqueryExpr, path []parser.Node) (window, step time.Duration) {
	window = sq.Range
	for _, p := range path {
		if outer, ok := p.(*parser.SubqueryExpr); ok && outer != sq {
			window += outer.Range
		}
	}
	return window, c.step(sq)
}

func (c costCheck) step(sq *parser.SubqueryExpr) time.Duration {
	if sq.Step > 0 {
		return sq.Step
	}
	return c.defaultStep
}

// at is where n starts in the query as evaluated, "line:column".
func (c costCheck) at(q string, n parser.Node) string {
	return positionText(q, int(n.PositionRange().Start))
}

// steps is how many steps a subquery of that window and step evaluates.
func steps(window, step time.Duration) int64 {
	if step <= 0 {
		return 1
	}
	return int64(window/step) + 1
}

// durText writes a duration as PromQL does: 10y, 1w2d, 1m30s, 1ms.
func durText(d time.Duration) string {
	ms := d.Milliseconds()
	if ms == 0 {
		return "0s"
	}
	var b strings.Builder
	if ms < 0 {
		b.WriteByte('-')
		ms = -ms
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"y", 365 * 24 * 3600 * 1000}, {"w", 7 * 24 * 3600 * 1000}, {"d", 24 * 3600 * 1000},
		{"h", 3600 * 1000}, {"m", 60 * 1000}, {"s", 1000}, {"ms", 1}} {
		if n := ms / u.ms; n > 0 {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteString(u.name)
			ms -= n * u.ms
		}
	}
	return b.String()
}

// DefaultScrapeInterval is what CheckQuery assumes when not told the scrape
// interval, and what $__interval stands for then: Grafana's default.
const DefaultScrapeInterval = 15 * time.Second

// CheckQuery checks a rule's PromQL query without data, for `rules lint`:
// it returns the parse error alone if it does not parse, else one error per
// problem found statically, each naming the query, the subquery and where it
// is (line:column in the query):
//
//   - a subquery step under scrapeInterval (0: DefaultScrapeInterval): most
//     of its steps would see the same sample, and it multiplies the steps
//     (`x[10y:1ms]`); step by $__interval or more;
//   - a subquery that would evaluate more than DefaultMaxSubquerySteps steps
//     (its range, with those of the subqueries it is in, over its step), and
//     a range function that would read more than DefaultMaxSeriesWork
//     samples per series (see Limits), which Query refuses before
//     evaluating anything.
//
// The errors of the second kind, the ones Query would refuse, satisfy
// errors.Is(err, ErrLimit); the first kind is advice.
//
// Grafana's variables stand for placeholder durations ($__range 1m,
// $__interval the scrape interval), so a subquery over $__range is checked
// against the data only when Query runs.
func CheckQuery(q string, scrapeInterval time.Duration) []error {
	if scrapeInterval <= 0 {
		scrapeInterval = DefaultScrapeInterval
	}
	qs := expandGrafanaVars(q, metricIntervals{scrape: scrapeInterval})
	expr, err := parsePromQL(qs)
	if err != nil {
		return []error{err}
	}
	var errs []error
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		if sq, ok := n.(*parser.SubqueryExpr); ok && sq.Step > 0 && sq.Step < scrapeInterval {
			errs = append(errs, fmt.Errorf("query %q: %s: subquery %s steps by %s, under the scrape interval %s: its steps see the same samples over and over; step by $__interval or more",
				q, positionText(qs, int(sq.PositionRange().Start)), sq, durText(sq.Step), durText(scrapeInterval)))
		}
		return nil
	})
	c := costCheck{maxSteps: DefaultMaxSubquerySteps, maxWork: DefaultMaxSeriesWork,
		defaultStep: scrapeInterval, scrape: scrapeInterval, maxSeriesLen: -1, lint: true}
	return append(errs, c.check(q, qs, expr)...)
}

// positionText is "line:column" of byte offset off in q, 1-based.
func positionText(q string, off int) string {
	off = min(max(off, 0), len(q))
	line := 1 + strings.Count(q[:off], "\n")
	col := off - strings.LastIndexByte(q[:off], '\n')
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}
