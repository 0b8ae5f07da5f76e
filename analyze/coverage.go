package analyze

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/internal/english"

	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/bundle"
)

// Examined is what a rule read of one signal's input, for the report: a
// "passed" is only as good as what was examined.
type Examined struct {
	Signal string `json:"signal"`
	// Kind is the evidence language: promql, sql, kube, log or awaittree.
	Kind string `json:"kind"`
	// Decisive: without this input the rule cannot be decided (it is
	// named in the rule's requires, or the rule has none).
	Decisive bool `json:"decisive"`
	// Read: the input was in the bundle and readable.
	Read bool `json:"read"`
	// Coverage says what was read ("compute logs of 3 of 3 pods,
	// 14:02-14:31") or, when not read, why.
	Coverage string `json:"coverage"`
}

// fileInfo is one entry of the bundle, as classified.
type fileInfo struct {
	path      string
	kind      bundle.Kind
	pod       string
	container string
	// unparsed: a log in which none of the first lines parsed as a log
	// event; it is not counted as read.
	unparsed    bool
	first, last time.Time // a log's first and last event times, when known
}

// noteLogStats takes what the log scanner saw of each file: its time span,
// and whether any line parsed. A log of which no sampled line parsed is a
// bundle problem, and is not counted as read by any log signal.
func (ev *Gathered) noteLogStats() {
	byPath := map[string]*fileInfo{}
	for i := range ev.files {
		byPath[ev.files[i].path] = &ev.files[i]
	}
	for _, st := range ev.Logs.Files() {
		f := byPath[st.Path]
		if f == nil {
			continue
		}
		f.first, f.last = st.First, st.Last
		if st.Sampled > 0 && st.Parsed == 0 && (f.kind == bundle.KindLog || f.kind == bundle.KindPreviousLog) {
			f.unparsed = true
			ev.problem("%s: none of its first %d lines parsed as a log line (no timestamp, level or JSON): not read", st.Path, st.Sampled)
		}
	}
}

// podsOf returns the pods of a component the bundle knows of, from
// pods.json, log and metrics paths and describe files.
func (ev *Gathered) podsOf(component string) []string {
	seen := map[string]bool{}
	for _, p := range ev.Pods {
		seen[p.Name] = true
	}
	for _, f := range ev.files {
		if f.pod != "" {
			seen[f.pod] = true
		}
	}
	var out []string
	for pod := range seen {
		if kube.ComponentMatches(component, ev.Component(pod)) {
			out = append(out, pod)
		}
	}
	sort.Strings(out)
	return out
}

// logFilesOf returns the files of the given kinds whose pod is of the
// component ("" for any; files of no pod always count).
func (ev *Gathered) logFilesOf(kinds []bundle.Kind, component string) []fileInfo {
	var out []fileInfo
	for _, f := range ev.files {
		if !slices.Contains(kinds, f.kind) {
			continue
		}
		if f.pod != "" && !kube.ComponentMatches(component, ev.Component(f.pod)) {
			continue
		}
		if f.unparsed {
			continue
		}
		out = append(out, f)
	}
	return out
}

// unparsedLogsOf are the logs of the component that could not be parsed.
func (ev *Gathered) unparsedLogsOf(component string) []string {
	var out []string
	for _, f := range ev.files {
		if f.unparsed && (f.pod == "" || kube.ComponentMatches(component, ev.Component(f.pod))) {
			out = append(out, f.path)
		}
	}
	return out
}

// logWindow is the span of the files' event times, e.g. "14:02-14:31"
// (with dates when it crosses days).
func logWindow(files []fileInfo) string {
	var first, last time.Time
	for _, f := range files {
		if !f.first.IsZero() && (first.IsZero() || f.first.Before(first)) {
			first = f.first
		}
		if f.last.After(last) {
			last = f.last
		}
	}
	if first.IsZero() || last.IsZero() {
		return ""
	}
	first, last = first.UTC(), last.UTC()
	if first.YearDay() != last.YearDay() || first.Year() != last.Year() {
		return first.Format("2006-01-02 15:04") + " to " + last.Format("2006-01-02 15:04") + " UTC"
	}
	return first.Format("15:04") + "-" + last.Format("15:04") + " UTC"
}

// logCoverage is e.g. "compute logs of 2 of 3 pods (2 previous), 14:02-14:31".
func (ev *Gathered) logCoverage(files []fileInfo, component string) string {
	pods := map[string]bool{}
	var other []string
	prev := 0
	for _, f := range files {
		switch {
		case f.pod != "":
			pods[f.pod] = true
			if f.kind == bundle.KindPreviousLog {
				prev++
			}
		default:
			other = append(other, f.path)
		}
	}
	var parts []string
	if len(pods) > 0 {
		name := component
		if name == "" {
			name = "pod"
		}
		total := max(len(pods), len(ev.podsOf(component)))
		s := fmt.Sprintf("%s logs of %d of %d %s", name, len(pods), total, english.Plural(total, "pod", "pods"))
		if prev > 0 {
			s += fmt.Sprintf(" (%d previous)", prev)
		}
		if w := logWindow(files); w != "" {
			s += ", " + w
		}
		parts = append(parts, s)
	}
	if len(other) > 0 {
		parts = append(parts, strings.Join(other, ", "))
	}
	return strings.Join(parts, "; ")
}

// logComponents names the components whose logs the bundle has, e.g.
// "meta only".
func (ev *Gathered) logComponents(kinds []bundle.Kind) string {
	seen := map[string]bool{}
	for _, f := range ev.logFilesOf(kinds, "") {
		if f.pod == "" {
			continue
		}
		c := ev.Component(f.pod)
		if c == "" {
			c = "unknown-component"
		}
		seen[c] = true
	}
	if len(seen) == 0 {
		return ""
	}
	cs := make([]string, 0, len(seen))
	for c := range seen {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	if len(cs) == 1 {
		return "logs of " + cs[0] + " only"
	}
	return "logs of " + strings.Join(cs, ", ")
}

// metricsCoverageOf is e.g. "metrics of compute (3 pods), 12 scrapes
// 14:00-14:30; meta (rw-meta-0), 4 scrapes 14:00-14:30", restricted to the
// components that the families a query reads came from.
func (ev *Gathered) metricsCoverageOf(query string) string {
	comps := ev.Metrics.Components(query)
	var parts []string
	for _, c := range ev.Metrics.Coverage(ev.Component) {
		if comps[c.Component] || c.Component == "prometheus" {
			parts = append(parts, c.String())
		}
	}
	if len(parts) == 0 {
		return "no metrics"
	}
	return "metrics of " + strings.Join(parts, "; ")
}

// examine lists what a rule's signals read.
func examine(r *Rule, results map[string]*signalResult) []Examined {
	out := make([]Examined, 0, len(r.Signals))
	for _, s := range r.Signals {
		sr := results[s.Name]
		if sr == nil {
			continue
		}
		e := Examined{Signal: s.Name, Kind: string(s.Kind), Read: sr.available,
			Decisive: r.requiresNames == nil || r.requiresNames[s.Name], Coverage: sr.coverage}
		if !sr.available {
			e.Coverage = sr.reason
		}
		out = append(out, e)
	}
	return out
}

// absentFiles says why bundle files are missing: not there, or there but
// unreadable (a pods.json that is not JSON is not "not in the bundle").
func (ev *Gathered) absentFiles(paths []string) string {
	var absent, bad []string
	for _, p := range paths {
		if why, ok := ev.unreadable[p]; ok {
			bad = append(bad, fmt.Sprintf("%s is present but unreadable (%s)", p, strings.TrimPrefix(why, p+": ")))
		} else {
			absent = append(absent, p)
		}
	}
	var parts []string
	switch {
	case len(absent) > 0 && ev.stopped != "":
		// Reading stopped early: a file not met may sit after the damage.
		parts = append(parts, strings.Join(absent, ", ")+" not read: reading stopped before the end of the bundle: "+ev.stopped)
	case len(absent) > 0:
		parts = append(parts, strings.Join(absent, ", ")+" not in the bundle")
	}
	return strings.Join(append(parts, bad...), "; ")
}

// sqlCoverage names the dumps a query read, with their rows.
func (ev *Gathered) sqlCoverage(q string) string {
	rows := map[string]int{}
	for _, t := range ev.SQL.Tables() {
		rows[t.Name] = t.Rows
	}
	var parts []string
	seen := map[string]bool{}
	for _, id := range identRE.FindAllString(q, -1) {
		if n, ok := rows[id]; ok && !seen[id] {
			seen[id] = true
			parts = append(parts, fmt.Sprintf("%s (%d %s)", bundle.SQLPath(id), n, english.Plural(n, "row", "rows")))
		}
	}
	return strings.Join(parts, ", ")
}

// kubeCoverage names the files a Kubernetes resource was read from.
func (ev *Gathered) kubeCoverage(resource string) string {
	var paths []string
	for _, d := range ev.Kube.Docs(resource) {
		paths = append(paths, d.Path)
	}
	return strings.Join(paths, ", ")
}
