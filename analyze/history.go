package analyze

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MetricHistory is a firing finding's metric signals evaluated at every
// scrape of the bundle, and the first scrape at which the finding's rule
// held.
type MetricHistory struct {
	Rule        string
	Fingerprint string
	Subject     string
	SubjectKind string
	Severity    Severity
	// Times are the evaluation times: the end of each scrape round.
	Times []time.Time
	// Signals are the rule's PromQL signals, in the rule's order.
	Signals []SignalHistory
	// FirstHeld is the first of Times at which the rule, re-evaluated with
	// its metrics as of that time, gave this finding: on its metrics alone
	// (rows that carry a time, log lines and events, left out; SQL rows and
	// Kubernetes objects as collected), or, when it never did so, with the
	// log lines and events up to that time (WithEvents). Zero when it held
	// at none. AtStart is true when that was already the first time: it may
	// have held before the bundle's metrics begin.
	FirstHeld  time.Time
	AtStart    bool
	WithEvents bool
	// FirstPath is a scrape file behind the values at FirstHeld, and
	// FirstValues those values ("latency = 8.3; piled = 12").
	FirstPath   string
	FirstValues string
	// Held says, per Times, whether the rule gave this finding at that
	// evaluation, the same way as FirstHeld (on metrics alone, or with the
	// events up to the time when WithEvents); nil when it held at none.
	Held []bool
}

// SignalHistory is one PromQL signal over time.
type SignalHistory struct {
	Name        string
	Description string
	PromQL      string
	Series      []SeriesHistory
}

// SeriesHistory is one result series of a signal over time.
type SeriesHistory struct {
	// Series is the series as PromQL prints it: name{label="value", ...}.
	Series string
	Labels map[string]string
	// Subject is true when a label's value is the finding's subject.
	Subject bool
	Points  []MetricPoint
}

// MetricPoint is a value at a time; a series absent at an evaluation time
// has no point there.
type MetricPoint struct {
	T time.Time
	V float64
}

// maxHistoryTimes bounds the evaluations per rule.
const maxHistoryTimes = 240

// MetricHistories re-evaluates, at every scrape round, the rules that
// produced firing findings and have PromQL signals, and returns the history
// of each such finding by fingerprint. Rules whose signals fail to evaluate
// are left out.
func (ev *Gathered) MetricHistories(ctx context.Context, rules []*Rule, rep *Report) map[string]*MetricHistory {
	out := map[string]*MetricHistory{}
	if ev.Metrics.Empty() {
		return out
	}
	firing := map[string][]Finding{}
	for _, f := range rep.Findings {
		if f.Status == StatusFiring {
			firing[f.Rule] = append(firing[f.Rule], f)
		}
	}
	times := ev.Metrics.EvalTimes(maxHistoryTimes)
	for _, r := range rules {
		fs := firing[r.ID]
		if len(fs) == 0 || !slices.ContainsFunc(r.Signals, func(s *Signal) bool { return s.Kind == SignalPromQL }) {
			continue
		}
		for fp, h := range ev.ruleHistory(ctx, r, fs, times) {
			out[fp] = h
		}
	}
	return out
}

func (ev *Gathered) ruleHistory(ctx context.Context, r *Rule, fs []Finding, times []time.Time) (hist map[string]*MetricHistory) {
	// Every re-evaluation of the rule counts against one budget; a rule
	// that exceeds it, or panics, has no history.
	ctx, cancel := context.WithTimeout(ctx, DefaultBudget.Time)
	defer cancel()
	b := newBudget(ctx, DefaultBudget)
	defer func() {
		if recover() != nil || b.err != nil {
			hist = nil
		}
	}()
	// The other signals, whole and without the rows that carry a time.
	base, untimed := map[string]*signalResult{}, map[string]*signalResult{}
	for _, s := range r.Signals {
		if s.Kind == SignalPromQL {
			continue
		}
		sr, err := ev.evalSignal(ctx, s)
		if err != nil {
			return nil
		}
		base[s.Name] = sr
		untimed[s.Name] = &signalResult{rows: rowsUpTo(sr.rows, time.Time{}), available: sr.available}
	}
	// rows[signal][i] are the signal's rows at times[i].
	rows := map[string][][]Row{}
	// The first time each finding held on metrics alone, and with the
	// events up to the time.
	alone, withEvents := map[string]int{}, map[string]int{}
	heldAlone, heldEvents := map[string][]bool{}, map[string][]bool{}
	for i, t := range times {
		metricOnly, upTo := map[string]*signalResult{}, map[string]*signalResult{}
		for _, s := range r.Signals {
			if s.Kind != SignalPromQL {
				b := base[s.Name]
				metricOnly[s.Name] = untimed[s.Name]
				upTo[s.Name] = &signalResult{rows: rowsUpTo(b.rows, t), available: b.available}
				continue
			}
			got, err := ev.Metrics.Query(ctx, s.PromQL, t)
			if err != nil {
				return nil
			}
			rows[s.Name] = append(rows[s.Name], got)
			metricOnly[s.Name] = &signalResult{rows: nonNil(got), available: true}
			upTo[s.Name] = metricOnly[s.Name]
		}
		noteHeld(alone, heldAlone, r.findingsFrom(ev.bundleEnv(), metricOnly, b), i, len(times))
		noteHeld(withEvents, heldEvents, r.findingsFrom(ev.bundleEnv(), upTo, b), i, len(times))
		if b.err != nil {
			return nil
		}
	}
	out := map[string]*MetricHistory{}
	for _, f := range fs {
		h := &MetricHistory{Rule: r.ID, Fingerprint: f.Fingerprint, Subject: f.Subject, SubjectKind: f.SubjectKind,
			Severity: f.Severity, Times: times}
		for _, s := range r.Signals {
			if s.Kind == SignalPromQL {
				h.Signals = append(h.Signals, signalHistory(s, rows[s.Name], times, f.Subject))
			}
		}
		i, ok := alone[f.Fingerprint]
		h.Held = heldAlone[f.Fingerprint]
		if !ok {
			i, ok = withEvents[f.Fingerprint]
			h.WithEvents = ok
			h.Held = heldEvents[f.Fingerprint]
		}
		if ok {
			h.FirstHeld, h.AtStart = times[i], i == 0
			h.FirstPath, h.FirstValues = firstValues(r, rows, i, f.Subject)
			if h.FirstPath == "" {
				h.FirstPath = ev.Metrics.ScrapeOf(r.promQL(), times[i])
			}
		}
		out[f.Fingerprint] = h
	}
	return out
}

// noteHeld records i as the first index of the findings not seen before,
// and marks i held for each of them (held[fp] has n entries).
func noteHeld(first map[string]int, held map[string][]bool, fs []Finding, i, n int) {
	for _, f := range fs {
		if _, ok := first[f.Fingerprint]; !ok {
			first[f.Fingerprint] = i
		}
		if held[f.Fingerprint] == nil {
			held[f.Fingerprint] = make([]bool, n)
		}
		held[f.Fingerprint][i] = true
	}
}

// findingsFrom decides a rule on given signal results, as evaluateRule does
// after evaluating the signals; it returns the firing findings.
func (r *Rule) findingsFrom(bundleEnv map[string]any, results map[string]*signalResult, b *budget) []Finding {
	avail := map[string]any{budgetKey: b}
	ok := true
	for name, sr := range results {
		avail[name] = sr.available
		ok = ok && sr.available
	}
	if r.compiledRequires() != nil {
		return nil
	}
	if r.requires != nil {
		ok, _ = runBool(r.requires, avail)
	}
	if !ok {
		return nil
	}
	all, _ := r.decide(bundleEnv, results, b)
	var fs []Finding
	for _, f := range all {
		if f.Status == StatusFiring {
			fs = append(fs, f)
		}
	}
	return fs
}

// rowsUpTo keeps the rows that happened at or before t, and those with no
// time (a pod's status, a SQL row). With a zero t, it keeps only the latter.
func rowsUpTo(rows []Row, t time.Time) []Row {
	out := make([]Row, 0, len(rows))
	for _, row := range rows {
		if rt, ok := row["time"].(time.Time); ok && !rt.IsZero() && (t.IsZero() || rt.After(t)) {
			continue
		}
		out = append(out, row)
	}
	return out
}

func signalHistory(s *Signal, rows [][]Row, times []time.Time, subject string) SignalHistory {
	sh := SignalHistory{Name: s.Name, Description: s.Description, PromQL: s.PromQL}
	index := map[string]int{}
	for i, rs := range rows {
		for _, row := range rs {
			v := toFloat(row["value"])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			key, _ := row["series"].(string)
			j, ok := index[key]
			if !ok {
				j = len(sh.Series)
				index[key] = j
				sh.Series = append(sh.Series, SeriesHistory{Series: key, Labels: rowLabels(row), Subject: rowIsAbout(row, subject)})
			}
			sh.Series[j].Points = append(sh.Series[j].Points, MetricPoint{T: times[i], V: v})
		}
	}
	return sh
}

// rowLabels are a metric row's labels: its string fields but the
// bookkeeping ones.
func rowLabels(row Row) map[string]string {
	ls := map[string]string{}
	for k, v := range row {
		switch k {
		case "series", "path", "value", "values", "time":
			continue
		}
		if s, ok := v.(string); ok {
			ls[k] = s
		}
	}
	return ls
}

func rowIsAbout(row Row, subject string) bool {
	if subject == "" || subject == "cluster" {
		return false
	}
	for k, v := range row {
		if k != "series" && k != "path" && v == subject {
			return true
		}
	}
	return false
}

// firstValues describes the PromQL signals' values at times[i]: for each,
// the subject's series, else the only one, else the largest.
func firstValues(r *Rule, rows map[string][][]Row, i int, subject string) (path, values string) {
	var parts []string
	for _, s := range r.Signals {
		if s.Kind != SignalPromQL || i >= len(rows[s.Name]) {
			continue
		}
		rs := rows[s.Name][i]
		var pick Row
		for _, row := range rs {
			v := toFloat(row["value"])
			if math.IsNaN(v) {
				continue
			}
			if rowIsAbout(row, subject) {
				pick = row
				break
			}
			if pick == nil || v > toFloat(pick["value"]) {
				pick = row
			}
		}
		if pick == nil {
			continue
		}
		if p, _ := pick["path"].(string); path == "" && p != "" {
			path = p
		}
		label := s.Name
		if len(rs) > 1 {
			if ls := ShortLabels(rowLabels(pick)); ls != "" {
				label += "{" + ls + "}"
			}
		}
		parts = append(parts, label+" = "+formatMetricValue(toFloat(pick["value"])))
		if len(parts) == 4 {
			break
		}
	}
	return path, strings.Join(parts, "; ")
}

// ShortLabels writes labels as "pod=..., k=v, ...", pod first, leaving out
// __name__ and component.
func ShortLabels(ls map[string]string) string {
	var keys []string
	for k := range ls {
		if k != "__name__" && k != "component" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if (a == "pod") != (b == "pod") {
			if a == "pod" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+ls[k])
	}
	return strings.Join(parts, ", ")
}

func formatMetricValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v), math.IsInf(v, 0):
		return fmt.Sprint(v)
	case a >= 1e4 && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// entry is the timeline entry of the moment the finding first held.
func (h *MetricHistory) entry() (TimelineEntry, bool) {
	if h.FirstHeld.IsZero() {
		return TimelineEntry{}, false
	}
	e := TimelineEntry{Time: h.FirstHeld, Source: SourceMetric, Level: severityLevel(h.Severity), Path: h.FirstPath,
		Rule: h.Rule, Fingerprint: h.Fingerprint}
	if h.SubjectKind == "pod" && h.Subject != "cluster" {
		e.Pod = h.Subject
	}
	e.Text = fmt.Sprintf("%s (%s): the rule's condition first held on its metrics at this scrape", h.Rule, h.Subject)
	if h.WithEvents {
		e.Text = fmt.Sprintf("%s (%s): the rule's condition first held at this scrape, with its log lines and events up to it", h.Rule, h.Subject)
	}
	if h.FirstValues != "" {
		e.Text += ": " + h.FirstValues
	}
	if h.AtStart {
		e.Text += " (already at the first scrape: it may have held before)"
	}
	return e, true
}

func severityLevel(s Severity) string {
	switch s {
	case SeverityCritical:
		return "ERROR"
	case SeverityWarning:
		return "WARN"
	}
	return "INFO"
}

// promQL are the queries of the rule's PromQL signals, in order.
func (r *Rule) promQL() []string {
	var qs []string
	for _, s := range r.Signals {
		if s.Kind == SignalPromQL {
			qs = append(qs, s.PromQL)
		}
	}
	return qs
}
