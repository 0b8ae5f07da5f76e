package analyze

import "time"

// linkFindings links the firing findings of rules that name each other in
// caused_by: the effect gets a "caused-by" link to each firing finding of a
// cause rule that began no later than the effect's latest evidence, and that
// finding an "explains" link back. Findings whose evidence has no time are
// linked on co-occurrence alone.
func linkFindings(fs []Finding, rules []*Rule) {
	causes := map[string][]string{}
	for _, r := range rules {
		if len(r.CausedBy) > 0 {
			causes[r.ID] = r.CausedBy
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
