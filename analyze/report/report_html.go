package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rwdiag/rwdiag/internal/english"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/internal/lazyre"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

// The HTML report is one self-contained page: inline CSS, charts as inline
// SVG, no script, no font, no image, nothing fetched. Its Content Security
// Policy (default-src 'none') makes a browser refuse any load that might
// slip in. Everything from the bundle goes through html/template.

//go:embed html/report.html.tmpl
var reportHTMLTemplate string

// reportHTML is the page's template, parsed when first used: the text and
// JSON reports never need it, and parsing it at start cost every run of
// `rwdiag analyze` 1-2.5 ms (issue 14).
var reportHTML = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"lower": strings.ToLower,
		"upper": strings.ToUpper,
		"time":  timelineTime,
		"rfc":   reportTime,
		"src":   analyze.Evidence.Location,
		"esrc":  analyze.TimelineEntry.Location,
		"who":   entryWho,
		"clean": func(s string) string { return sanitizeText(s, true) },
		"short": func(s string) string { return ShortenLogText(sanitizeText(s, true), htmlEntryRunes) },
		"link":  func(s string) bool { return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") },
	}).Parse(reportHTMLTemplate))
})

// htmlExcerptEntries is how many timeline entries the page shows around a
// finding, and htmlTimelineEntries how many in the full timeline.
// htmlEntryRunes is how much of an entry's text a row shows, all of it (the
// whole text is the row's tooltip): about four lines of the column at 1280
// pixels, cut as the text timeline cuts, from the spans and module path
// rather than from the message at the end.
const (
	htmlExcerptEntries  = 20
	htmlTimelineEntries = 2000
	htmlEntryRunes      = 160
)

type htmlPage struct {
	R            *analyze.Report
	Summary      string
	RulesLine    string
	KnownLine    string // known-issue entries, counted apart from the rules
	Shape        string
	Cluster      string
	Notes        []string
	Firing       []htmlFinding
	Inconclusive []htmlFinding
	Notable      []analyze.RuleResult
	Examined     []analyze.RuleResult
	Timeline     htmlEntries
	TimelineMore int
	TimelineNote []string
	HasTimeline  bool
}

type htmlFinding struct {
	F           analyze.Finding
	Anchor      string
	Remediation template.HTML
	Charts      []htmlChart
	NoData      []string // signals without a series
	Excerpt     *analyze.Excerpt
	ExcerptRows htmlEntries
	FirstHeld   string
}

// htmlEntries are timeline rows; those of the finding they are shown with
// (its metric moment, the lines its evidence cites) are marked.
type htmlEntries struct {
	Entries []analyze.TimelineEntry
	own     func(analyze.TimelineEntry) bool
}

// Own reports whether e belongs to the finding the rows are shown with.
func (h htmlEntries) Own(e analyze.TimelineEntry) bool { return h.own != nil && h.own(e) }

func writeHTML(w io.Writer, r *analyze.Report, x *analyze.Forensics) error {
	page := htmlPage{R: r, Summary: tally(r).summaryLine(), RulesLine: rulesLine(r), KnownLine: knownLine(r),
		Shape: reportBundleShape(r.Bundle), Cluster: reportClusterLine(r.Bundle), Notes: reportBundleNotes(r.Bundle),
		Notable: notableRules(r), Examined: examinedRules(r)}
	for _, f := range r.Findings {
		hf := htmlFinding{F: f, Anchor: "f-" + f.Fingerprint, Remediation: markdownHTML(f.Remediation)}
		if f.Status != analyze.StatusFiring {
			page.Inconclusive = append(page.Inconclusive, hf)
			continue
		}
		if x != nil {
			if h := x.History[f.Fingerprint]; h != nil {
				for _, s := range h.Signals {
					if len(s.Series) == 0 {
						hf.NoData = append(hf.NoData, s.Name)
						continue
					}
					hf.Charts = append(hf.Charts, buildChart(h, s, chartMemoryLimits(x, f)))
				}
				if !h.FirstHeld.IsZero() {
					hf.FirstHeld = timelineTime(h.FirstHeld)
				}
			}
			if ex, ok := x.Excerpt(f, htmlExcerptEntries); ok {
				hf.Excerpt = &ex
				hf.ExcerptRows = htmlEntries{Entries: ex.Entries, own: analyze.OwnEntries(f)}
			}
		}
		page.Firing = append(page.Firing, hf)
	}
	if x != nil && x.Timeline != nil {
		page.HasTimeline = true
		page.Timeline.Entries = x.Timeline.Entries
		if n := len(x.Timeline.Entries); n > htmlTimelineEntries {
			page.TimelineMore = n - htmlTimelineEntries
			page.Timeline.Entries = x.Timeline.Entries[:htmlTimelineEntries]
		}
		page.TimelineNote = x.Timeline.Notes
	}
	// Every field is escaped for HTML by the template; the page as a whole
	// then has the control characters and bidirectional overrides that
	// escaping leaves (a subject, a pod name) written visibly, so they can
	// neither reorder text in a browser nor act on a terminal the page is
	// printed on.
	var html strings.Builder
	if err := reportHTML().Execute(&html, page); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	_, err := io.WriteString(w, termtext.Escape(html.String(), termtext.Lines))
	return err
}

// ---- charts ----

// Chart geometry, in SVG user units.
const (
	chartW, chartH                = 560, 230
	chartLeft, chartRight         = 62, 30
	chartTop, chartBottom         = 14, 36
	chartMaxSeries                = 10
	chartPlotW            float64 = chartW - chartLeft - chartRight
	chartPlotH            float64 = chartH - chartTop - chartBottom
)

type htmlChart struct {
	Signal      string
	Description string
	PromQL      string
	W, H        int
	// Plot area.
	X0, X1, Y0, Y1 float64
	XTicks         []chartTick
	YTicks         []chartTick
	Lines          []chartLine
	Marker         *chartTick  // when the rule first held
	Held           []chartBand // where the rule's condition held, shaded
	HeldLegend     string
	Limits         []chartLimit // the containers' memory limits, on a memory chart
	Same           []string     // notes on series drawn on one line
	Caption        string
	More           int // series not drawn
}

// PlotH is the plot area's height.
func (c htmlChart) PlotH() float64 { return c.Y1 - c.Y0 }

type chartTick struct {
	Pos   float64
	Label string
	// Anchor is the label's text-anchor, and DX its offset from Pos, so
	// that it stays inside the chart.
	Anchor string
	DX     float64
	Legend string
}

// chartBand is a span of the plot, from X, W wide.
type chartBand struct{ X, W float64 }

// chartMinBand is the least width of a held band, so that a rule that held
// at the last evaluation only still shows.
const chartMinBand = 4

// heldBands are the spans in which the history's rule held: each run of
// evaluations at which it held, from the first of them to the next
// evaluation (at which it no longer held), or to the last when it held to
// the end. Nil when Held does not match Times or holds nowhere.
func heldBands(h *analyze.MetricHistory, xPos func(time.Time) float64) []chartBand {
	if len(h.Held) != len(h.Times) {
		return nil
	}
	var out []chartBand
	for i := 0; i < len(h.Held); i++ {
		if !h.Held[i] {
			continue
		}
		j := i
		for j+1 < len(h.Held) && h.Held[j+1] {
			j++
		}
		x0, x1 := xPos(h.Times[i]), xPos(h.Times[j])
		if j+1 < len(h.Times) {
			x1 = xPos(h.Times[j+1])
		}
		if x1-x0 < chartMinBand {
			x0 = min(x0, chartW-chartRight-chartMinBand)
			x1 = x0 + chartMinBand
		}
		out = append(out, chartBand{X: math.Round(x0*10) / 10, W: math.Round((x1-x0)*10) / 10})
		i = j
	}
	return out
}

// chartLimit is a horizontal line at a container memory limit.
type chartLimit struct {
	Y      float64
	Label  string
	LabelX float64
	Anchor string
}

type chartLine struct {
	Class   string // colour class, c0..c9
	Label   string
	Subject bool
	// Dash and DashOffset are the line's stroke-dasharray and
	// stroke-dashoffset: each series has its own, and series drawn on one
	// line take turns along it.
	Dash       string
	DashOffset string
	// Swatch is the dash the legend shows.
	Swatch string
	Shape  string   // the dots' shape
	Points []string // "x,y x,y ..." per unbroken run
	Dots   []chartDot
	Mark   string // the legend's dot, a path at (11, 4)
}

// chartDot is one marker: an SVG path, its shape centred on a point.
type chartDot struct{ D string }

// Each series is told apart by colour, dash and marker shape, so that
// series near each other stay distinguishable without colour.
var (
	chartDashes = []string{"", "7 3", "2 2.5", "9 3 2 3", "4 4", "12 3", "1.5 4", "7 2 2 2 2 2", "5 2", "10 4 4 4"}
	chartShapes = []string{"circle", "square", "triangle", "diamond", "down"}
)

// buildChart lays out one signal's series over the history's times. On a
// chart of container memory, limits (by pod, in bytes) are drawn as lines.
func buildChart(h *analyze.MetricHistory, s analyze.SignalHistory, limits map[string]float64) htmlChart {
	c := htmlChart{Signal: s.Name, Description: s.Description, PromQL: s.PromQL, W: chartW, H: chartH,
		X0: chartLeft, X1: chartW - chartRight, Y0: chartTop, Y1: chartH - chartBottom}
	series := slices.Clone(s.Series)
	slices.SortStableFunc(series, func(a, b analyze.SeriesHistory) int {
		if a.Subject != b.Subject {
			if a.Subject {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(seriesMax(b), seriesMax(a)), cmp.Compare(a.Series, b.Series))
	})
	if len(series) > chartMaxSeries {
		c.More = len(series) - chartMaxSeries
		series = series[:chartMaxSeries]
	}
	t0, t1 := h.Times[0], h.Times[len(h.Times)-1]
	if !t1.After(t0) {
		t0, t1 = t0.Add(-30*time.Second), t1.Add(30*time.Second)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, se := range series {
		for _, p := range se.Points {
			lo, hi = min(lo, p.V), max(hi, p.V)
		}
	}
	bytesUnit := strings.Contains(s.PromQL, "bytes")
	var lims []chartLimitValue
	if memoryChart(s.PromQL) {
		lims = chartLimits(series, limits, h.Subject)
		for _, l := range lims {
			lo, hi = min(lo, l.v), max(hi, l.v)
		}
	}
	if lo >= 0 {
		lo = 0 // most metrics are amounts: start at zero
	}
	// Bytes get round binary ticks: 2 GiB, not 2.15 GB.
	unit := 1.0
	for bytesUnit && max(math.Abs(lo), math.Abs(hi))/unit >= 1024 && unit < 1<<50 {
		unit *= 1024
	}
	ticks, lo, hi := niceTicks(lo/unit, hi/unit, 5)
	for i := range ticks {
		ticks[i] *= unit
	}
	lo, hi = lo*unit, hi*unit
	for _, v := range ticks {
		c.YTicks = append(c.YTicks, chartTick{Pos: yPos(v, lo, hi), Label: chartValue(v, bytesUnit)})
	}
	xPos := func(t time.Time) float64 {
		return chartLeft + chartPlotW*float64(t.Sub(t0))/float64(t1.Sub(t0))
	}
	for _, t := range timeTicks(t0, t1, 5) {
		label := t.Format("15:04:05")
		c.XTicks = append(c.XTicks, chartTick{Pos: xPos(t), Label: label})
	}
	if !h.FirstHeld.IsZero() {
		// The label goes on the side of the line with room for it.
		m := chartTick{Pos: xPos(h.FirstHeld), Label: "rule held", Anchor: "start", DX: 4,
			Legend: "rule held: " + h.FirstHeld.UTC().Format("15:04:05") + ", the first evaluation at which its condition held"}
		if m.Pos > c.X1-60 {
			m.Anchor, m.DX = "end", -4
		}
		c.Marker = &m
	}
	if c.Held = heldBands(h, xPos); c.Held != nil {
		c.HeldLegend = "shaded: where the rule's condition held, from each evaluation at which it held to the next"
		if h.WithEvents {
			c.HeldLegend += " (counting the log lines and events up to each evaluation)"
		}
	}
	for _, l := range lims {
		// Away from the marker's label, which sits at the top.
		cl := chartLimit{Y: yPos(l.v, lo, hi), Label: l.label, LabelX: c.X1 - 4, Anchor: "end"}
		if c.Marker != nil && c.Marker.Pos > (c.X0+c.X1)/2 {
			cl.LabelX, cl.Anchor = c.X0+4, "start"
		}
		c.Limits = append(c.Limits, cl)
	}
	labels := seriesLabels(series, s.Name)
	// A series absent at an evaluation time breaks its line there.
	timeIndex := map[int64]int{}
	for i, t := range h.Times {
		timeIndex[t.UnixMilli()] = i
	}
	for i, se := range series {
		l := chartLine{Class: "c" + strconv.Itoa(i), Label: labels[i], Subject: se.Subject,
			Dash: chartDashes[i%len(chartDashes)], Shape: chartShapes[i%len(chartShapes)]}
		l.Swatch = l.Dash
		var run []string
		last := -2
		for _, p := range se.Points {
			j := timeIndex[p.T.UnixMilli()]
			if j != last+1 && len(run) > 0 {
				l.Points = append(l.Points, strings.Join(run, " "))
				run = nil
			}
			x, y := xPos(p.T), yPos(p.V, lo, hi)
			run = append(run, strconv.FormatFloat(x, 'f', 1, 64)+","+strconv.FormatFloat(y, 'f', 1, 64))
			last = j
		}
		if len(run) > 0 {
			l.Points = append(l.Points, strings.Join(run, " "))
		}
		c.Lines = append(c.Lines, l)
	}
	// Series drawn on one line: each takes its turn along it, in dashes of
	// one length, so that every colour shows; their dots are drawn larger
	// the lower they lie, as rings. The legend says which they are.
	size := make([]float64, len(series))
	for _, g := range sameLines(series, c.Lines) {
		k := len(g)
		seg := max(4, min(8, 48/float64(k)))
		names := make([]string, k)
		for n, i := range g {
			names[n] = c.Lines[i].Label
			size[i] = float64(min(k-1-n, 3))
			c.Lines[i].Swatch = "" // the legend's swatch is too short for turns
			if n == 0 {
				c.Lines[i].Dash = "" // whole, beneath the others
				continue
			}
			c.Lines[i].Dash = chartNum(seg) + " " + chartNum(seg*float64(k-1))
			c.Lines[i].DashOffset = chartNum(seg * float64(k-n))
		}
		what := "identical"
		if !sameValues(series, g) {
			what = "overlap, their values closer than the chart shows"
		}
		// Names that hold commas are told apart by semicolons.
		sep := ", "
		if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ",") }) {
			sep = "; "
		}
		switch {
		case k == len(series) && k > 4:
			c.Same = append(c.Same, fmt.Sprintf("all %d series %s", k, what))
		case k > 4:
			c.Same = append(c.Same, fmt.Sprintf("%d series %s: %s and %d more", k, what, strings.Join(names[:3], sep), k-3))
		default:
			c.Same = append(c.Same, fmt.Sprintf("%d series %s: %s", k, what, strings.Join(names, sep)))
		}
	}
	for i, se := range series {
		l := &c.Lines[i]
		r := 2.2 + size[i]
		if se.Subject {
			r = 3 + size[i]
		}
		if len(se.Points) <= 40 {
			for _, p := range se.Points {
				l.Dots = append(l.Dots, chartDot{D: markPath(l.Shape, xPos(p.T), yPos(p.V, lo, hi), r)})
			}
		}
		l.Mark = markPath(l.Shape, 11, 4, 2.6)
	}
	c.Caption = fmt.Sprintf("%s to %s UTC, %d %s", t0.Format("2006-01-02 15:04:05"), t1.Format("15:04:05"),
		len(h.Times), english.Plural(len(h.Times), "evaluation", "evaluations"))
	return c
}

// sameLines are the groups of series (indexes, in drawing order) whose
// lines are drawn on the same points: identical values, or values closer
// than the chart shows.
func sameLines(series []analyze.SeriesHistory, lines []chartLine) [][]int {
	var groups [][]int
	seen := map[string]int{}
	for i, l := range lines {
		key := strings.Join(l.Points, "|")
		if key == "" {
			continue
		}
		if g, ok := seen[key]; ok {
			groups[g] = append(groups[g], i)
			continue
		}
		seen[key] = len(groups)
		groups = append(groups, []int{i})
	}
	return slices.DeleteFunc(groups, func(g []int) bool { return len(g) < 2 })
}

// sameValues reports whether the series of g have the same points.
func sameValues(series []analyze.SeriesHistory, g []int) bool {
	for _, i := range g[1:] {
		if !slices.EqualFunc(series[g[0]].Points, series[i].Points, func(a, b analyze.MetricPoint) bool {
			return a.T.Equal(b.T) && a.V == b.V
		}) {
			return false
		}
	}
	return true
}

// markPath is an SVG path of a marker of radius r centred on (x, y).
func markPath(shape string, x, y, r float64) string {
	n := func(v float64) string { return chartNum(v) }
	switch shape {
	case "square":
		r *= 0.9
		return "M" + n(x-r) + "," + n(y-r) + "h" + n(2*r) + "v" + n(2*r) + "h" + n(-2*r) + "z"
	case "triangle":
		r *= 1.25
		return "M" + n(x) + "," + n(y-r) + "L" + n(x+r*0.87) + "," + n(y+r*0.5) + "L" + n(x-r*0.87) + "," + n(y+r*0.5) + "z"
	case "down":
		r *= 1.25
		return "M" + n(x) + "," + n(y+r) + "L" + n(x+r*0.87) + "," + n(y-r*0.5) + "L" + n(x-r*0.87) + "," + n(y-r*0.5) + "z"
	case "diamond":
		r *= 1.2
		return "M" + n(x) + "," + n(y-r) + "L" + n(x+r) + "," + n(y) + "L" + n(x) + "," + n(y+r) + "L" + n(x-r) + "," + n(y) + "z"
	}
	return "M" + n(x-r) + "," + n(y) + "a" + n(r) + "," + n(r) + " 0 1,0 " + n(2*r) + ",0a" + n(r) + "," + n(r) + " 0 1,0 " + n(-2*r) + ",0z"
}

// chartNum writes a coordinate with at most one decimal.
func chartNum(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// ---- memory limits ----

// memoryChartRE matches the metrics of a container's memory, which its
// memory limit bounds.
var memoryChartRE = lazyre.New(`\b(process_resident_memory_bytes|container_memory_(working_set|rss|usage)_bytes)\b`)

func memoryChart(promql string) bool { return memoryChartRE.Re().MatchString(promql) }

type chartLimitValue struct {
	v     float64
	label string
}

// chartLimits are the memory limits to draw over series: one line per
// distinct limit of the pods the series are of, labelled with the pods
// when not every pod of the chart has it; when the series name no pod,
// the subject's limit.
func chartLimits(series []analyze.SeriesHistory, limits map[string]float64, subject string) []chartLimitValue {
	if len(limits) == 0 {
		return nil
	}
	var pods []string
	for _, se := range series {
		if p := se.Labels["pod"]; p != "" && !slices.Contains(pods, p) {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 && subject != "" {
		pods = []string{subject}
	}
	byValue := map[float64][]string{}
	var values []float64
	for _, p := range pods {
		v, ok := limits[p]
		if !ok || v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if _, ok := byValue[v]; !ok {
			values = append(values, v)
		}
		byValue[v] = append(byValue[v], p)
	}
	slices.Sort(values)
	var out []chartLimitValue
	for _, v := range values {
		label := "memory limit " + chartValue(v, true)
		if who := byValue[v]; len(who) < len(pods) || len(series) > 0 && series[0].Labels["pod"] == "" {
			if len(who) > 2 {
				who = append(who[:2:2], fmt.Sprintf("%d more", len(who)-2))
			}
			label += " (" + strings.Join(who, ", ") + ")"
		}
		out = append(out, chartLimitValue{v: v, label: label})
		if len(out) == 3 {
			break
		}
	}
	return out
}

// limitEvidenceRE reads a container's memory limit from the evidence of a
// Kubernetes signal that has the field memory_limit (compute-oom-crash-loop's
// containers): "pod NAME: ... container=compute, memory_limit=8Gi, ...", or
// worded "memory limit 8Gi". limitSummaryRE reads the summary's "memory
// limit 8GiB", the subject's, when no evidence states one.
var (
	limitEvidenceRE   = lazyre.New(`\bmemory[_ ]limit(?:=|:\s*|\s+)([0-9][0-9.eE+-]*[A-Za-z]*)`)
	limitSummaryRE    = lazyre.New(`\bmemory limit ([0-9][0-9.]*\s?[KMGTP]i?B)\b`)
	limitPodRE        = lazyre.New(`^pod ([^\s:,]+)`)
	limitContainerRE  = lazyre.New(`\bcontainer[= ]([^\s,):]+)`)
	computeContainers = lazyre.New(`^(compute|standalone)`)
)

// chartMemoryLimits are the container memory limits, by pod, for f's
// charts: the bundle's (Forensics.MemoryLimits), else, when the forensics
// have none (a bundle without pods.json, forensics made without them), what
// the finding's text states.
func chartMemoryLimits(x *analyze.Forensics, f analyze.Finding) map[string]float64 {
	if x != nil && x.MemoryLimits != nil {
		return x.MemoryLimits
	}
	return memoryLimits(f)
}

// memoryLimits are the memory limits, in bytes by pod, that the finding
// states: its evidence, of the compute or standalone container, else of a
// pod's only container with one; else its summary, of the subject.
func memoryLimits(f analyze.Finding) map[string]float64 {
	type lim struct {
		v       float64
		compute bool
		n       int
	}
	found := map[string]*lim{}
	for _, e := range f.Evidence {
		m := limitEvidenceRE.Re().FindStringSubmatch(e.Text)
		if m == nil {
			continue
		}
		v, ok := parseQuantity(m[1])
		if !ok {
			continue
		}
		pod := f.Subject
		if p := limitPodRE.Re().FindStringSubmatch(e.Text); p != nil {
			pod = p[1]
		}
		compute := false
		if c := limitContainerRE.Re().FindStringSubmatch(e.Text); c != nil {
			compute = computeContainers.Re().MatchString(c[1])
		}
		l := found[pod]
		if l == nil {
			l = &lim{}
			found[pod] = l
		}
		l.n++
		switch {
		case compute && !l.compute:
			l.v, l.compute = v, true
		case !l.compute && l.n == 1:
			l.v = v
		}
	}
	out := map[string]float64{}
	for pod, l := range found {
		if l.compute || l.n == 1 {
			out[pod] = l.v
		}
	}
	if len(found) == 0 && f.SubjectKind == "pod" {
		if m := limitSummaryRE.Re().FindStringSubmatch(f.Summary); m != nil {
			if v, ok := parseQuantity(strings.TrimSuffix(strings.ReplaceAll(m[1], " ", ""), "B")); ok {
				out[f.Subject] = v
			}
		}
	}
	return out
}

// parseQuantity reads a Kubernetes resource quantity of bytes: 8Gi, 512M,
// 1.5e9, 8589934592.
func parseQuantity(s string) (float64, bool) {
	units := map[string]float64{"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
		"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "m": 1e-3}
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') && s[i-1] != '.' {
		i--
	}
	mult, ok := units[s[i:]]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return 0, false
	}
	return v * mult, true
}

func yPos(v, lo, hi float64) float64 {
	if hi <= lo {
		return chartTop + chartPlotH/2
	}
	return chartTop + chartPlotH*(1-(v-lo)/(hi-lo))
}

func seriesMax(s analyze.SeriesHistory) float64 {
	m := math.Inf(-1)
	for _, p := range s.Points {
		m = max(m, p.V)
	}
	return m
}

// seriesLabels names each series by the labels that tell it apart from
// the others; a lone series by its labels, else the signal's name.
func seriesLabels(series []analyze.SeriesHistory, signal string) []string {
	out := make([]string, len(series))
	differ := map[string]bool{}
	for _, se := range series {
		for k, v := range se.Labels {
			for _, o := range series {
				if o.Labels[k] != v {
					differ[k] = true
				}
			}
		}
	}
	for i, se := range series {
		ls := map[string]string{}
		for k, v := range se.Labels {
			if differ[k] || len(series) == 1 {
				ls[k] = v
			}
		}
		out[i] = analyze.ShortLabels(ls)
		if out[i] == "" {
			out[i] = signal
		}
	}
	return out
}

// niceTicks covers [lo, hi] with about n round values and returns them
// and the covered range.
func niceTicks(lo, hi float64, n int) ([]float64, float64, float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi == lo {
		if hi == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
			if lo > 0 && lo < hi/2 {
				lo = 0
			}
		}
	}
	raw := (hi - lo) / float64(n-1)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	var ticks []float64
	for v := start; v <= end+step/2; v += step {
		ticks = append(ticks, math.Round(v/step)*step)
	}
	return ticks, start, end
}

// timeTicks are about n round times between t0 and t1.
func timeTicks(t0, t1 time.Time, n int) []time.Time {
	span := t1.Sub(t0)
	steps := []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= time.Duration(n) {
			step = s
			break
		}
	}
	var out []time.Time
	for t := t0.Truncate(step); !t.After(t1); t = t.Add(step) {
		if !t.Before(t0) {
			out = append(out, t)
		}
	}
	return out
}

// chartValue labels an axis value: SI prefixes, or binary ones for bytes.
func chartValue(v float64, bytesUnit bool) string {
	a := math.Abs(v)
	if bytesUnit && a >= 1024 {
		for i, u := range []string{"Ki", "Mi", "Gi", "Ti", "Pi"} {
			d := math.Pow(1024, float64(i+1))
			if a < d*1024 || u == "Pi" {
				return strconv.FormatFloat(v/d, 'g', 3, 64) + " " + u + "B"
			}
		}
	}
	switch {
	case a == 0:
		return "0"
	case a >= 1e12:
		return strconv.FormatFloat(v/1e12, 'g', 3, 64) + "T"
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	case a < 1e-3:
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// ---- Markdown ----

var (
	mdFenceRE   = lazyre.New("^\\s*(```+|~~~+)\\s*([\\w+-]*)")
	mdHeadingRE = lazyre.New(`^\s*(#{1,6})\s+(.*)$`)
	mdBulletRE  = lazyre.New(`^(\s*)[-*+]\s+(.*)$`)
	mdNumberRE  = lazyre.New(`^(\s*)(\d+)[.)]\s+(.*)$`)
	mdInlineRE  = lazyre.New("(`+)(.+?)(`+)|\\*\\*([^*]+)\\*\\*|\\[([^\\]]+)\\]\\((https?://[^)\\s]+)\\)")
)

// markdownHTML renders the Markdown of a rule's remediation as HTML:
// paragraphs, headings, bullet and numbered lists (whose items may hold
// indented paragraphs and code blocks), fenced code blocks, inline code,
// bold and http(s) links. Every piece of text is escaped; anything else
// shows as the text it is.
func markdownHTML(md string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(sanitizeText(md, true), "\r", ""), "\n")
	var para []string // the paragraph being read, at top level or in a list item
	list := ""        // "ul" or "ol" while in a list
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + mdInline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	closeList := func() {
		flush()
		if list != "" {
			b.WriteString("</li></" + list + ">\n")
			list = ""
		}
	}
	// inItem reports whether line belongs to the open list item: it is
	// indented, or a list item itself.
	inItem := func(line string) bool {
		return list != "" && (indentOf(line) >= 2 || mdBulletRE.Re().MatchString(line) || mdNumberRE.Re().MatchString(line))
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" {
			flush()
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
				j++
			}
			if j == len(lines) || !inItem(lines[j]) {
				closeList()
			}
			continue
		}
		if m := mdFenceRE.Re().FindStringSubmatch(line); m != nil {
			if indentOf(line) >= 2 && list != "" {
				flush()
			} else {
				closeList()
			}
			fence, indent := m[1], indentOf(line)
			var code []string
			for i++; i < len(lines); i++ {
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) {
					break
				}
				l := lines[i]
				l = l[min(indent, indentOf(l)):]
				code = append(code, l)
			}
			class := ""
			if m[2] != "" {
				class = ` class="lang-` + html.EscapeString(m[2]) + `"`
			}
			b.WriteString("<pre><code" + class + ">" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
			continue
		}
		if m := mdHeadingRE.Re().FindStringSubmatch(line); m != nil {
			closeList()
			level := min(len(m[1])+3, 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, mdInline(m[2]), level)
			continue
		}
		kind, item, num := "", "", ""
		if m := mdBulletRE.Re().FindStringSubmatch(line); m != nil {
			kind, item = "ul", m[2]
		} else if m := mdNumberRE.Re().FindStringSubmatch(line); m != nil {
			kind, item, num = "ol", m[3], m[2]
		}
		if kind != "" {
			flush()
			if list != kind {
				closeList()
				if num != "" && num != "1" {
					b.WriteString(`<ol start="` + num + `"><li>`)
				} else {
					b.WriteString("<" + kind + "><li>")
				}
				list = kind
			} else {
				b.WriteString("</li><li>")
			}
			para = append(para, item)
			continue
		}
		if list != "" && indentOf(line) < 2 && len(para) == 0 {
			closeList()
		}
		para = append(para, strings.TrimSpace(line))
	}
	closeList()
	return template.HTML(b.String())
}

// indentOf counts a line's leading spaces (a tab counts as four).
func indentOf(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// mdInline renders inline code, bold and links in escaped text.
func mdInline(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range mdInlineRE.Re().FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(html.EscapeString(s[last:m[0]]))
		switch {
		case m[2] >= 0 && s[m[2]:m[3]] == s[m[6]:m[7]]:
			b.WriteString("<code>" + html.EscapeString(strings.TrimSpace(s[m[4]:m[5]])) + "</code>")
		case m[2] >= 0:
			b.WriteString(html.EscapeString(s[m[0]:m[1]]))
		case m[8] >= 0:
			b.WriteString("<strong>" + html.EscapeString(s[m[8]:m[9]]) + "</strong>")
		default:
			b.WriteString(`<a href="` + html.EscapeString(s[m[12]:m[13]]) + `" rel="noopener noreferrer">` +
				html.EscapeString(s[m[10]:m[11]]) + "</a>")
		}
		last = m[1]
	}
	b.WriteString(html.EscapeString(s[last:]))
	return b.String()
}
