package analyze

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/internal/english"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/bundle"
)

// TimelineSource says where a timeline entry comes from.
type TimelineSource string

// Timeline sources.
const (
	// SourceLog: a log line at or above the timeline's level, of a current
	// or a previous (crashed) container instance.
	SourceLog TimelineSource = "log"
	// SourceEvent: a Kubernetes event, at the first and at the last time it
	// was seen.
	SourceEvent TimelineSource = "event"
	// SourceTermination: a container's end, from lastState.terminated (or
	// state.terminated) in pods.json.
	SourceTermination TimelineSource = "termination"
	// SourceRestart: a restarted container's current instance starting.
	SourceRestart TimelineSource = "restart"
	// SourceEventLog: a row of RisingWave's event log, rw_event_logs.
	SourceEventLog TimelineSource = "event-log"
	// SourceDDL: a streaming job being created began, and with it its
	// backfill (rw_ddl_progress.initialized_at).
	SourceDDL TimelineSource = "ddl"
	// SourceMetric: the first scrape at which a firing rule's condition held.
	SourceMetric TimelineSource = "metric"
	// SourceChain: a firing finding that another firing finding likely
	// caused, with the whole chain of causes, at the moment the effect
	// began (its condition first held, else its earliest evidence).
	SourceChain TimelineSource = "chain"
)

// TimelineEntry is one moment on the timeline.
type TimelineEntry struct {
	// Time is in UTC. For a log line it is RisingWave's own timestamp, else
	// kubectl's prefix.
	Time   time.Time      `json:"time"`
	Source TimelineSource `json:"source"`
	// Level is ERROR, WARN or INFO: a log line's own level; WARN for a
	// Kubernetes Warning event, INFO for a Normal one; ERROR for a container
	// that ended in failure; the rule's severity for a metric entry.
	Level     string `json:"level"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
	// Path and Line are where in the bundle it comes from (Line 0: none).
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text"`
	// Rule and Fingerprint name the finding of a metric or chain entry.
	Rule        string `json:"rule,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// CausedBy are the fingerprints of a chain entry's causes, nearest
	// first.
	CausedBy []string `json:"caused_by,omitempty"`

	previous bool      // a line of a previous instance's log
	order    time.Time // where it sorts; Time, unless it must follow the log of the instance it ended
}

// TimelineOptions choose what goes on a timeline.
type TimelineOptions struct {
	// MinLevel leaves out log lines below it (and those that state no
	// level): TRACE, DEBUG, INFO, WARN (the default) or ERROR. Entries of
	// other sources are always kept.
	MinLevel string
	// Since and Until, when set, bound the entries' times (inclusive).
	Since, Until time.Time
	// Pod, when set, keeps the entries about pods whose name matches this
	// shell pattern (path.Match: "rw-compute-*"); entries about no pod go.
	Pod string
}

// Timeline is a bundle's evidence on one line of time.
type Timeline struct {
	Bundle  string          `json:"bundle"`
	Entries []TimelineEntry `json:"entries"`
	// Notes say what was left out and why.
	Notes []string `json:"notes"`
}

// MarshalJSON keeps empty lists as [].
func (tl Timeline) MarshalJSON() ([]byte, error) {
	type plain Timeline
	p := plain(tl)
	if p.Entries == nil {
		p.Entries = []TimelineEntry{}
	}
	if p.Notes == nil {
		p.Notes = []string{}
	}
	return json.Marshal(p)
}

// Forensics is what the Markdown and HTML reports add to the findings: the
// timeline, to show what happened around each finding, and the history of
// each firing finding's metrics, for charts.
type Forensics struct {
	Timeline *Timeline
	// History is keyed by finding fingerprint.
	History map[string]*MetricHistory
	// MemoryLimits are the pods' container memory limits in bytes
	// (resources.limits.memory of the compute or standalone container, else
	// of the pod's only container), from kubernetes/pods.json or `kubectl
	// describe pod` text, by pod name. Nil when the bundle has none.
	MemoryLimits map[string]float64
}

// Investigate reads the bundle once, evaluates the rules and works out the
// forensics: the timeline (with opts) and the findings' metric histories.
func Investigate(ctx context.Context, path string, rules []*Rule, opts bundle.Options, topts TimelineOptions) (*Report, *Forensics, error) {
	ev, err := GatherWith(ctx, path, rules, opts, GatherOptions{Timeline: &topts})
	if err != nil {
		return nil, nil, err
	}
	defer ev.Close()
	rep := Evaluate(ctx, ev, rules)
	hist := ev.MetricHistories(ctx, rules, rep)
	return rep, &Forensics{Timeline: ev.BuildTimeline(hist, rep.Findings), History: hist, MemoryLimits: ev.MemoryLimits()}, nil
}

// MemoryLimits are the pods' container memory limits in bytes, by pod: the
// compute or standalone container's, else the pod's only container's. Nil
// when no pod states one.
func (ev *Gathered) MemoryLimits() map[string]float64 {
	if ev.Kube == nil || !ev.Kube.Has("pods") {
		return nil
	}
	rows, err := ev.Kube.Query(kube.Query{Resource: "pods", Path: "spec.containers",
		Fields: map[string]string{"container": "name", "memory_limit": "resources.limits.memory"}})
	if err != nil {
		return nil
	}
	type pick struct {
		limit       float64
		main        bool
		n           int // containers seen
		onlyOrFirst float64
	}
	by := map[string]*pick{}
	var order []string
	for _, row := range rows {
		pod, _ := row["pod"].(string)
		if pod == "" {
			continue
		}
		p := by[pod]
		if p == nil {
			p = &pick{}
			by[pod] = p
			order = append(order, pod)
		}
		p.n++
		limit := parseBytes(row["memory_limit"])
		if row["memory_limit"] == nil || math.IsNaN(limit) || limit <= 0 {
			continue
		}
		name, _ := row["container"].(string)
		if name == "compute" || name == "standalone" || strings.HasPrefix(name, "compute") {
			p.limit, p.main = limit, true
		} else if p.n == 1 {
			p.onlyOrFirst = limit
		}
	}
	out := map[string]float64{}
	for _, pod := range order {
		switch p := by[pod]; {
		case p.main:
			out[pod] = p.limit
		case p.n == 1 && p.onlyOrFirst > 0:
			out[pod] = p.onlyOrFirst
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// BuildTimeline puts what the pass gathered on one line of time: the log
// lines, Kubernetes events, container terminations and restarts, the
// rw_event_logs rows, the creation of streaming jobs, and the moments the
// firing findings' metric conditions first held (from hist, which may be
// nil), and the chains of cause and effect between the findings (fs, which
// may be nil). ev must come from GatherWith with a Timeline; from Gather,
// the timeline has no log lines and no SQL rows.
func (ev *Gathered) BuildTimeline(hist map[string]*MetricHistory, fs []Finding) *Timeline {
	tl := &Timeline{Bundle: ev.Info.Path, Entries: []TimelineEntry{}, Notes: []string{}}
	var opts TimelineOptions
	tap := ev.tap
	if tap != nil {
		opts = tap.opts
		tl.Entries = append(tl.Entries, tap.logs...)
		tl.Notes = append(tl.Notes, tap.notes...)
	} else {
		tl.Notes = append(tl.Notes, "log lines and SQL rows were not gathered")
	}
	tl.Entries = append(tl.Entries, ev.kubeEvents()...)
	tl.Entries = append(tl.Entries, ev.containerLives()...)
	if tap != nil {
		tl.Entries = append(tl.Entries, tap.eventLogs()...)
		tl.Entries = append(tl.Entries, tap.ddl()...)
	}
	for _, h := range hist {
		if e, ok := h.entry(); ok {
			tl.Entries = append(tl.Entries, e)
		}
	}
	tl.Entries = append(tl.Entries, chainEntries(fs, hist)...)
	kept := tl.Entries[:0]
	for _, e := range tl.Entries {
		if e.Time.IsZero() || !opts.inWindow(e.Time) {
			continue
		}
		if opts.Pod != "" && (e.Pod == "" || !opts.podMatches(e.Pod)) {
			continue
		}
		e.Time = e.Time.UTC()
		kept = append(kept, e)
	}
	tl.Entries = dedupeLogs(kept)
	orderTimeline(tl.Entries)
	return tl
}

// dedupeLogs drops the lines of a current log that its previous log also
// holds: while a container waits in CrashLoopBackOff, `kubectl logs` and
// `kubectl logs --previous` both return the last terminated instance.
func dedupeLogs(es []TimelineEntry) []TimelineEntry {
	type key struct {
		pod, container, text string
		t                    int64
	}
	prev := map[key]bool{}
	for _, e := range es {
		if e.Source == SourceLog && e.previous {
			prev[key{e.Pod, e.Container, e.Text, e.Time.UnixNano()}] = true
		}
	}
	if len(prev) == 0 {
		return es
	}
	out := es[:0]
	for _, e := range es {
		if e.Source == SourceLog && !e.previous && prev[key{e.Pod, e.Container, e.Text, e.Time.UnixNano()}] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// orderTimeline sorts entries by time. A container's termination sorts
// after the last line of the previous log it ended, and its restart after
// that, even when Kubernetes' whole-second times say otherwise; at equal
// times a previous log's lines come first, then terminations, restarts and
// the rest.
func orderTimeline(es []TimelineEntry) {
	type podContainer struct{ pod, container string }
	lastPrev := map[podContainer]time.Time{}
	for _, e := range es {
		if e.Source == SourceLog && e.previous {
			k := podContainer{e.Pod, e.Container}
			if e.Time.After(lastPrev[k]) {
				lastPrev[k] = e.Time
			}
		}
	}
	ended := map[podContainer]time.Time{}
	for i := range es {
		e := &es[i]
		e.order = e.Time
		if e.Source == SourceTermination {
			k := podContainer{e.Pod, e.Container}
			if lp := lastPrev[k]; lp.After(e.order) {
				e.order = lp
			}
			if e.order.After(ended[k]) {
				ended[k] = e.order
			}
		}
	}
	for i := range es {
		e := &es[i]
		if e.Source == SourceRestart {
			if t := ended[podContainer{e.Pod, e.Container}]; t.After(e.order) {
				e.order = t
			}
		}
	}
	slices.SortStableFunc(es, func(a, b TimelineEntry) int {
		return cmp.Or(a.order.Compare(b.order), cmp.Compare(sourceRank(a), sourceRank(b)),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Text, b.Text))
	})
}

func sourceRank(e TimelineEntry) int {
	switch {
	case e.Source == SourceLog && e.previous:
		return 0
	case e.Source == SourceTermination:
		return 1
	case e.Source == SourceRestart:
		return 2
	}
	return 3
}

// lineIndex maps byte offsets of a document to 1-based line numbers.
type lineIndex []int

func newLineIndex(s string) lineIndex {
	var li lineIndex
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			li = append(li, i)
		}
	}
	return li
}

func (li lineIndex) line(off int) int { return sort.SearchInts(li, off) + 1 }

// kubeEvents are the Kubernetes events: each at the first time it was seen
// and, when it repeated, at the last.
func (ev *Gathered) kubeEvents() []TimelineEntry {
	var out []TimelineEntry
	for _, d := range ev.Kube.Docs("events") {
		li := newLineIndex(d.JSON)
		for _, obj := range kube.Items(gjson.Parse(d.JSON)) {
			first := eventTimeOf(obj, "firstTimestamp", "eventTime", "deprecatedFirstTimestamp")
			last := eventTimeOf(obj, "lastTimestamp", "series.lastObservedTime", "deprecatedLastTimestamp")
			if first.IsZero() {
				first = last
			}
			if first.IsZero() {
				continue
			}
			count := kube.EventField(obj, "count", "deprecatedCount", "series.count").Int()
			inv := kube.EventField(obj, "involvedObject", "regarding")
			e := TimelineEntry{Source: SourceEvent, Level: "INFO", Path: d.Path, Line: li.line(obj.Index)}
			if obj.Get("type").String() == "Warning" {
				e.Level = "WARN"
			}
			if inv.Get("kind").String() == "Pod" {
				e.Pod = inv.Get("name").String()
				e.Container = fieldPathContainer(inv.Get("fieldPath").String())
			}
			text := eventText(obj, inv)
			if count <= 1 || last.IsZero() || !last.After(first) {
				e.Time, e.Text = first, text
				if count > 1 {
					e.Text += fmt.Sprintf(" (x%d)", count)
				}
				out = append(out, e)
				continue
			}
			e.Time, e.Text = first, fmt.Sprintf("%s (first of %d; last at %s)", text, count, shortTime(last))
			out = append(out, e)
			e.Time, e.Text = last, fmt.Sprintf("%s (last of %d; first at %s)", text, count, shortTime(first))
			out = append(out, e)
		}
	}
	return out
}

func eventTimeOf(obj gjson.Result, paths ...string) time.Time {
	for _, p := range paths {
		if v := obj.Get(p); v.Type == gjson.String && v.Str != "" {
			if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

var fieldPathContainerRE = regexp.MustCompile(`^spec\.(?:init)?[cC]ontainers\{([^}]+)\}$`)

// fieldPathContainer reads the container out of an event's fieldPath,
// "spec.containers{compute}".
func fieldPathContainer(fp string) string {
	if m := fieldPathContainerRE.FindStringSubmatch(fp); m != nil {
		return m[1]
	}
	return ""
}

// eventText is "Warning BackOff pod/rw-compute-0: Back-off restarting ...".
func eventText(obj, inv gjson.Result) string {
	var parts []string
	for _, p := range []string{"type", "reason"} {
		if v := obj.Get(p).String(); v != "" {
			parts = append(parts, v)
		}
	}
	if n := inv.Get("name").String(); n != "" {
		parts = append(parts, strings.ToLower(inv.Get("kind").String())+"/"+n)
	}
	s := strings.Join(parts, " ")
	if m := kube.EventField(obj, "message", "note").String(); m != "" {
		s += ": " + evidence.CutUTF8(strings.Join(strings.Fields(m), " "), 300)
	}
	return s
}

func shortTime(t time.Time) string { return t.UTC().Format("15:04:05Z") }

// containerLives are the containers' terminations and restarts, from
// pods.json: lastState.terminated (the instance before the current one),
// state.terminated, and the current instance's start when it is a restart.
func (ev *Gathered) containerLives() []TimelineEntry {
	var out []TimelineEntry
	for _, d := range ev.Kube.Docs("pods") {
		li := newLineIndex(d.JSON)
		for _, pod := range kube.Items(gjson.Parse(d.JSON)) {
			name := pod.Get("metadata.name").String()
			for _, cs := range pod.Get("status.containerStatuses").Array() {
				c := cs.Get("name").String()
				restarts := cs.Get("restartCount").Int()
				waiting := cs.Get("state.waiting.reason").String()
				for _, st := range []string{"lastState.terminated", "state.terminated"} {
					term := cs.Get(st)
					if !term.IsObject() {
						continue
					}
					end := eventTimeOf(term, "finishedAt")
					if end.IsZero() {
						continue
					}
					e := TimelineEntry{Time: end, Source: SourceTermination, Level: "ERROR", Pod: name, Container: c,
						Path: d.Path, Line: li.line(term.Index), Text: terminationText(c, term)}
					if term.Get("reason").String() == "Completed" && term.Get("exitCode").Int() == 0 {
						e.Level = "INFO"
					}
					if st == "lastState.terminated" {
						if restarts > 0 {
							e.Text += fmt.Sprintf("; restarted %d %s in all", restarts, english.Plural(int(restarts), "time", "times"))
						}
						if waiting != "" {
							e.Text += "; now waiting: " + waiting
						}
					}
					out = append(out, e)
				}
				if run := cs.Get("state.running"); run.IsObject() && restarts > 0 {
					if start := eventTimeOf(run, "startedAt"); !start.IsZero() {
						out = append(out, TimelineEntry{Time: start, Source: SourceRestart, Level: "WARN", Pod: name, Container: c,
							Path: d.Path, Line: li.line(run.Index),
							Text: fmt.Sprintf("container %s started again (restart %d)", c, restarts)})
					}
				}
			}
		}
	}
	return out
}

// terminationText is "container compute terminated: OOMKilled, exit code
// 137 (it had started at 20:41:07Z)".
func terminationText(c string, term gjson.Result) string {
	s := "container " + c + " terminated"
	var why []string
	if r := term.Get("reason").String(); r != "" {
		why = append(why, r)
	}
	if x := term.Get("exitCode"); x.Exists() {
		why = append(why, "exit code "+x.String())
	}
	if sig := term.Get("signal").Int(); sig != 0 {
		why = append(why, "signal "+strconv.FormatInt(sig, 10))
	}
	if len(why) > 0 {
		s += ": " + strings.Join(why, ", ")
	}
	if start := eventTimeOf(term, "startedAt"); !start.IsZero() {
		s += " (it had started at " + shortTime(start) + ")"
	}
	if m := term.Get("message").String(); m != "" {
		s += ": " + evidence.CutUTF8(strings.Join(strings.Fields(m), " "), 200)
	}
	return s
}

// eventLogs are the rows of rw_event_logs.
func (t *timelineTap) eventLogs() []TimelineEntry {
	var out []TimelineEntry
	p := t.paths["rw_event_logs"]
	for _, r := range t.tables["rw_event_logs"] {
		at, ok := parsePGTime(r.fields["timestamp"])
		if !ok {
			continue
		}
		typ := r.fields["event_type"]
		text := typ
		if info := eventInfoText(r.fields["info"]); info != "" {
			text += ": " + info
		}
		out = append(out, TimelineEntry{Time: at, Source: SourceEventLog, Level: eventLogLevel(typ), Path: p, Line: r.line, Text: text})
	}
	return out
}

func eventLogLevel(typ string) string {
	switch {
	case strings.Contains(typ, "FAIL"), strings.Contains(typ, "PANIC"):
		return "ERROR"
	case strings.HasSuffix(typ, "RECOVERY_START"), strings.Contains(typ, "DIRTY"):
		return "WARN"
	}
	return "INFO"
}

// eventInfoText renders an event's info JSON as "key=value ...", its one
// top-level key (which repeats the event type) left out.
func eventInfoText(info string) string {
	if !gjson.Valid(info) {
		return evidence.CutUTF8(info, 300)
	}
	v := gjson.Parse(info)
	if m := v.Map(); len(m) == 1 {
		for _, inner := range m {
			v = inner
		}
	}
	var parts []string
	var walk func(prefix string, r gjson.Result)
	walk = func(prefix string, r gjson.Result) {
		if r.IsObject() {
			r.ForEach(func(k, x gjson.Result) bool {
				walk(evidence.JoinKey(prefix, k.String()), x)
				return true
			})
			return
		}
		val := r.String()
		if r.IsArray() {
			val = r.Raw
		}
		if prefix == "" {
			parts = append(parts, val)
		} else {
			parts = append(parts, prefix+"="+val)
		}
	}
	walk("", v)
	return evidence.CutUTF8(strings.Join(parts, " "), 400)
}

var ddlNameRE = regexp.MustCompile(`(?i)^\s*CREATE\s+(MATERIALIZED\s+VIEW|TABLE|SINK|INDEX|SOURCE)\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)`)

// ddl are the streaming jobs being created: rw_ddl_progress rows at their
// initialized_at, when the creation and its backfill began; failing that,
// the materialized views with status Creating.
func (t *timelineTap) ddl() []TimelineEntry {
	var out []TimelineEntry
	seen := map[string]bool{}
	p := t.paths["rw_ddl_progress"]
	for _, r := range t.tables["rw_ddl_progress"] {
		at, ok := parsePGTime(r.fields["initialized_at"])
		if !ok {
			continue
		}
		stmt := strings.Join(strings.Fields(r.fields["ddl_statement"]), " ")
		what := "a streaming job"
		if m := ddlNameRE.FindStringSubmatch(stmt); m != nil {
			what = strings.ToLower(strings.Join(strings.Fields(m[1]), " ")) + " " + m[2]
			seen[strings.ToLower(m[2])] = true
		}
		text := fmt.Sprintf("creation of %s began (its backfill started)", what)
		if prog := r.fields["progress"]; prog != "" {
			text += "; progress when collected: " + prog
		}
		if stmt != "" {
			text += ": " + evidence.CutUTF8(stmt, 200)
		}
		out = append(out, TimelineEntry{Time: at, Source: SourceDDL, Level: "INFO", Path: p, Line: r.line, Text: text})
	}
	p = t.paths["rw_materialized_views"]
	for _, r := range t.tables["rw_materialized_views"] {
		name := r.fields["name"]
		if !strings.EqualFold(r.fields["status"], "creating") || seen[strings.ToLower(name)] {
			continue
		}
		at, ok := parsePGTime(r.fields["initialized_at"])
		if !ok {
			continue
		}
		out = append(out, TimelineEntry{Time: at, Source: SourceDDL, Level: "INFO", Path: p, Line: r.line,
			Text: fmt.Sprintf("creation of materialized view %s began (its backfill started); status when collected: %s", name, r.fields["status"])})
	}
	return out
}

// parsePGTime parses a timestamp as psql prints it ("2026-11-29
// 20:43:58.123+00:00", "...+00", no zone: UTC) or in RFC 3339.
func parsePGTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05-07", "2006-01-02 15:04:05", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// ---- excerpts around findings ----

// ExcerptWindow is how far before and after a finding's evidence the
// Markdown and HTML reports look on the timeline.
const ExcerptWindow = 5 * time.Minute

// Excerpt is the part of the timeline around a finding.
type Excerpt struct {
	From, To time.Time
	Entries  []TimelineEntry
	// More counts the entries in the window left out to keep it short.
	More int
}

// Excerpt returns at most n timeline entries around finding f: within
// ExcerptWindow of its timestamped evidence and of the moment its metric
// condition first held. When the window holds more, it keeps the finding's
// own metric entry and evidence lines, then other sources than logs, then
// errors, entries about the subject and warnings, nearest first. ok is false
// when f has no time to put it on the timeline.
func (x *Forensics) Excerpt(f Finding, n int) (Excerpt, bool) {
	if x == nil || x.Timeline == nil {
		return Excerpt{}, false
	}
	var lo, hi time.Time
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	for _, e := range f.Evidence {
		see(e.Time)
	}
	own := OwnEntries(f)
	if h := x.History[f.Fingerprint]; h != nil {
		see(h.FirstHeld)
	}
	if lo.IsZero() {
		return Excerpt{}, false
	}
	ex := Excerpt{From: lo.Add(-ExcerptWindow), To: hi.Add(ExcerptWindow)}
	type cand struct {
		i     int
		score int
		dist  time.Duration
	}
	var cands []cand
	for i, e := range x.Timeline.Entries {
		if e.Time.Before(ex.From) || e.Time.After(ex.To) {
			continue
		}
		c := cand{i: i}
		switch {
		case e.Fingerprint == f.Fingerprint && e.Fingerprint != "":
			c.score += 100
		case own(e):
			c.score += 60
		}
		if e.Source != SourceLog {
			c.score += 30
		}
		switch e.Level {
		case "ERROR":
			c.score += 20
		case "WARN":
			c.score += 10
		}
		if e.Pod != "" && e.Pod == f.Subject {
			c.score += 15
		}
		c.dist = min(absDuration(e.Time.Sub(lo)), absDuration(e.Time.Sub(hi)))
		cands = append(cands, c)
	}
	if len(cands) > n {
		slices.SortStableFunc(cands, func(a, b cand) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.dist, b.dist), cmp.Compare(a.i, b.i))
		})
		ex.More = len(cands) - n
		cands = cands[:n]
		slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(a.i, b.i) })
	}
	for _, c := range cands {
		ex.Entries = append(ex.Entries, x.Timeline.Entries[c.i])
	}
	return ex, true
}

// OwnEntries tells the entries that are a finding's own: its metric moment,
// the lines its evidence cites, and, for evidence without a line (a pod's
// status in pods.json), the entries of that file about its subject.
func OwnEntries(f Finding) func(TimelineEntry) bool {
	lines, files := map[string]bool{}, map[string]bool{}
	for _, e := range f.Evidence {
		if e.Line > 0 {
			lines[e.Location()] = true
		} else if e.Path != "" {
			files[e.Path] = true
		}
	}
	return func(e TimelineEntry) bool {
		switch {
		case e.Fingerprint != "":
			return e.Fingerprint == f.Fingerprint
		case e.Line > 0 && lines[e.Location()]:
			return true
		}
		return files[e.Path] && e.Pod != "" && e.Pod == f.Subject
	}
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Location is where in the bundle the entry comes from: "path:line", or
// the path when it has no line.
func (e TimelineEntry) Location() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return e.Path
}
