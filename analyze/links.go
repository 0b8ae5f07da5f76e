package analyze

import (
	"slices"
	"strings"
	"time"
)

// linkFindings links the firing findings of rules that name each other in
// caused_by: the effect gets a "caused-by" link to each firing finding of a
// cause rule that began no later than the effect's latest evidence, and that
// finding an "explains" link back. Findings whose evidence has no time are
// linked on co-occurrence alone.
func linkFindings(fs []Finding, rules []*Rule) {
	causes := map[string][]string{}
	byPod := map[string]bool{}
	for _, r := range rules {
		if len(r.CausedBy) > 0 {
			causes[r.ID] = r.CausedBy
			byPod[r.ID] = r.CausedByMatch == "pod"
		}
	}
	if len(causes) == 0 {
		return
	}
	for i := range fs {
		effect := &fs[i]
		if effect.Status != StatusFiring {
			continue
		}
		for _, causeRule := range causes[effect.Rule] {
			for j := range fs {
				cause := &fs[j]
				if i == j || cause.Rule != causeRule || cause.Status != StatusFiring {
					continue
				}
				if byPod[effect.Rule] && effect.SubjectKind == "pod" && effect.Subject != "cluster" && !namesPod(cause, effect.Subject) {
					continue // the cause is about other pods
				}
				first, _ := evidenceSpan(cause.Evidence)
				_, last := evidenceSpan(effect.Evidence)
				if !first.IsZero() && !last.IsZero() && first.After(last) {
					continue // the "cause" began after all the effect's evidence
				}
				effect.Links = append(effect.Links, Link{Relation: "caused-by", Rule: cause.Rule, Subject: cause.Subject, Fingerprint: cause.Fingerprint})
				cause.Links = append(cause.Links, Link{Relation: "explains", Rule: effect.Rule, Subject: effect.Subject, Fingerprint: effect.Fingerprint})
			}
		}
	}
}

// evidenceSpan is the earliest and latest time of the evidence that has one.
func evidenceSpan(es []Evidence) (first, last time.Time) {
	for _, e := range es {
		if e.Time.IsZero() {
			continue
		}
		if first.IsZero() || e.Time.Before(first) {
			first = e.Time
		}
		if e.Time.After(last) {
			last = e.Time
		}
	}
	return first, last
}

// chainEntries are the timeline's chain entries: one per firing finding
// that another firing finding likely caused, at the moment the effect
// began (its condition first held, from hist, else its earliest evidence),
// reading "offset replay (src) <- likely caused by meta restart (meta-0)
// <- likely caused by meta store (meta-0)". Each step follows the first
// caused-by link; a finding seen twice ends the chain.
func chainEntries(fs []Finding, hist map[string]*MetricHistory) []TimelineEntry {
	byFP := map[string]*Finding{}
	for i := range fs {
		if fs[i].Fingerprint != "" {
			byFP[fs[i].Fingerprint] = &fs[i]
		}
	}
	var out []TimelineEntry
	for i := range fs {
		f := &fs[i]
		if f.Status != StatusFiring || !hasCause(f) {
			continue
		}
		at, _ := evidenceSpan(f.Evidence)
		h := hist[f.Fingerprint]
		if h != nil && !h.FirstHeld.IsZero() {
			at = h.FirstHeld
		}
		if at.IsZero() {
			continue
		}
		e := TimelineEntry{Time: at, Source: SourceChain, Level: severityLevel(f.Severity), Rule: f.Rule, Fingerprint: f.Fingerprint}
		if f.SubjectKind == "pod" && f.Subject != "cluster" {
			e.Pod = f.Subject
		}
		var b strings.Builder
		b.WriteString(f.Rule + " (" + f.Subject + ")")
		seen := map[string]bool{f.Fingerprint: true}
		for cur := f; cur != nil; {
			var next *Finding
			for _, l := range cur.Links {
				if l.Relation != "caused-by" {
					continue
				}
				b.WriteString(" <- likely caused by " + l.Rule + " (" + l.Subject + ")")
				e.CausedBy = append(e.CausedBy, l.Fingerprint)
				if c := byFP[l.Fingerprint]; c != nil && !seen[l.Fingerprint] {
					seen[l.Fingerprint] = true
					next = c
				}
				break
			}
			cur = next
		}
		e.Text = b.String()
		switch ev := firstTimedEvidence(f.Evidence); {
		case h != nil && !h.FirstHeld.IsZero() && h.FirstPath != "":
			e.Path = h.FirstPath // the scrape behind the moment it first held
		case ev != nil:
			e.Path, e.Line = ev.Path, ev.Line
		default:
			for _, ev := range f.Evidence {
				if ev.Path != "" {
					e.Path, e.Line = ev.Path, ev.Line
					break
				}
			}
		}
		out = append(out, e)
	}
	return out
}

func hasCause(f *Finding) bool {
	for _, l := range f.Links {
		if l.Relation == "caused-by" {
			return true
		}
	}
	return false
}

// firstTimedEvidence is the earliest evidence item that has a time and
// a path (a metric aggregated over pods has none).
func firstTimedEvidence(es []Evidence) *Evidence {
	var first *Evidence
	for i := range es {
		if es[i].Time.IsZero() || es[i].Path == "" {
			continue
		}
		if first == nil || es[i].Time.Before(first.Time) {
			first = &es[i]
		}
	}
	return first
}

// namesPod reports whether a finding is about pod: its subject, or a path,
// text or series of its evidence, names it as a whole word ("rw-compute-1"
// is not named by "rw-compute-10").
func namesPod(f *Finding, pod string) bool {
	if containsName(f.Subject, pod) {
		return true
	}
	for _, e := range f.Evidence {
		if containsName(e.Path, pod) || containsName(e.Text, pod) || containsName(e.Series, pod) {
			return true
		}
	}
	return false
}

// containsName reports whether s holds name with no letter, digit, '-' or
// '_' either side of it (a '.' may follow: "rw-compute-1.rw-headless" is
// that pod's host name).
func containsName(s, name string) bool {
	if name == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameByte(s[start-1])) && (end == len(s) || !nameByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// deferFindings lowers one step the severity of each firing finding linked
// as caused by a finding of a rule its own rule defers to (defer_to), and
// marks that link Deferred: the cause is what to fix first. A finding is
// lowered once, however many causes it defers to; info stays info.
func deferFindings(fs []Finding, rules []*Rule) {
	deferTo := map[string][]string{}
	for _, r := range rules {
		if len(r.DeferTo) > 0 {
			deferTo[r.ID] = r.DeferTo
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Status != StatusFiring || deferTo[f.Rule] == nil {
			continue
		}
		lowered := false
		for j := range f.Links {
			l := &f.Links[j]
			if l.Relation != "caused-by" || !slices.Contains(deferTo[f.Rule], l.Rule) {
				continue
			}
			l.Deferred = true
			if !lowered && f.Severity > SeverityInfo {
				f.Severity--
			}
			lowered = true
		}
	}
}
