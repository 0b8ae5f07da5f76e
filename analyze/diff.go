package analyze

import (
	"fmt"
	"slices"
)

// Diff compares the findings of two reports of the same cluster, by
// fingerprint (rule and subject).
type Diff struct {
	Old BundleInfo `json:"old_bundle"`
	New BundleInfo `json:"new_bundle"`
	// Added are firing in NEW and not in OLD.
	Added []DiffItem `json:"added"`
	// Resolved were firing in OLD; in NEW their rule ran and they did not fire.
	Resolved []DiffItem `json:"resolved"`
	// Persisting are firing in both.
	Persisting []DiffItem `json:"persisting"`
	// Undecided were firing in OLD, but NEW could not decide their rule
	// (inconclusive, skipped or failed): not evidence that they are gone.
	Undecided []DiffItem `json:"undecided"`
	// Notes warn of what makes the comparison doubtful: bundles of
	// different clusters, NEW collected before OLD.
	Notes []string `json:"notes"`
}

// DiffNotes are the warnings a diff of old and new carries: bundles of
// different clusters (fingerprints match only within one), NEW collected
// before OLD (only when both times are known).
func DiffNotes(old, new BundleInfo) []string {
	ns := []string{}
	where := func(b BundleInfo) string {
		switch {
		case b.Cluster != "" && b.Namespace != "":
			return b.Cluster + ", namespace " + b.Namespace
		case b.Namespace != "":
			return "namespace " + b.Namespace
		}
		return b.Cluster
	}
	if o, n := where(old), where(new); o != "" && n != "" && o != n {
		ns = append(ns, fmt.Sprintf("the bundles are of different clusters (%s; %s): fingerprints match only within one", o, n))
	}
	if !old.CollectedAt.IsZero() && !new.CollectedAt.IsZero() && new.CollectedAt.Before(old.CollectedAt) {
		ns = append(ns, "NEW was collected before OLD: are they the wrong way round?")
	}
	return ns
}

// DiffItem is one finding in a diff.
type DiffItem struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	Pattern     string `json:"pattern"`
	// Severity is the finding's in NEW (in OLD for resolved and undecided).
	Severity Severity `json:"severity"`
	// OldSeverity is set on a persisting finding whose severity changed.
	OldSeverity Severity `json:"old_severity,omitempty"`
	Title       string   `json:"title"`
	Subject     string   `json:"subject"`
	SubjectKind string   `json:"subject_kind"`
	// Summary is NEW's (OLD's for resolved and undecided); OldSummary is
	// OLD's for a persisting finding.
	Summary    string `json:"summary"`
	OldSummary string `json:"old_summary,omitempty"`
	// Reason says why NEW could not decide an undecided finding's rule.
	Reason string `json:"reason,omitempty"`
}

// CompareReports diffs the firing findings of old and new.
func CompareReports(old, new *Report) *Diff {
	d := &Diff{Old: old.Bundle, New: new.Bundle, Added: []DiffItem{}, Resolved: []DiffItem{},
		Persisting: []DiffItem{}, Undecided: []DiffItem{}, Notes: DiffNotes(old.Bundle, new.Bundle)}
	firing := func(r *Report) map[string]Finding {
		m := map[string]Finding{}
		for _, f := range r.Findings {
			if f.Status == StatusFiring {
				m[f.Fingerprint] = f
			}
		}
		return m
	}
	before, after := firing(old), firing(new)
	ruleIn := map[string]RuleResult{}
	for _, rr := range new.Rules {
		ruleIn[rr.ID] = rr
	}
	for _, f := range sortedFindings(after) {
		o, ok := before[f.Fingerprint]
		if !ok {
			d.Added = append(d.Added, diffItem(f))
			continue
		}
		it := diffItem(f)
		if o.Severity != f.Severity {
			it.OldSeverity = o.Severity
		}
		if o.Summary != f.Summary {
			it.OldSummary = o.Summary
		}
		d.Persisting = append(d.Persisting, it)
	}
	for _, f := range sortedFindings(before) {
		if _, ok := after[f.Fingerprint]; ok {
			continue
		}
		it := diffItem(f)
		rr, ran := ruleIn[f.Rule]
		switch {
		case !ran:
			it.Reason = "the rule was not loaded for NEW"
			d.Undecided = append(d.Undecided, it)
		case rr.Status == RulePassed || rr.Status == RuleFired:
			d.Resolved = append(d.Resolved, it)
		default:
			it.Reason = fmt.Sprintf("the rule was %s on NEW", rr.Status)
			if rr.Reason != "" {
				it.Reason += ": " + rr.Reason
			}
			d.Undecided = append(d.Undecided, it)
		}
	}
	return d
}

func sortedFindings(m map[string]Finding) []Finding {
	fs := make([]Finding, 0, len(m))
	for _, f := range m {
		fs = append(fs, f)
	}
	slices.SortFunc(fs, compareFindings)
	return fs
}

func diffItem(f Finding) DiffItem {
	return DiffItem{Fingerprint: f.Fingerprint, Rule: f.Rule, Pattern: f.Pattern, Severity: f.Severity, Title: f.Title,
		Subject: f.Subject, SubjectKind: f.SubjectKind, Summary: f.Summary}
}

// AddedAtOrAbove reports whether a new finding is at or above threshold.
func (d *Diff) AddedAtOrAbove(threshold Severity) bool {
	return slices.ContainsFunc(d.Added, func(it DiffItem) bool { return it.Severity >= threshold })
}
