package analyze

import (
	"fmt"
	"io"
	"slices"
	"strings"
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
		Persisting: []DiffItem{}, Undecided: []DiffItem{}}
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

// Write writes the diff in format f: table, json or markdown.
func (d *Diff) Write(w io.Writer, f Format) error {
	return writeFormatted(w, f, "diff", d, d.writeMarkdown, d.writeTable)
}

// diffSections are the diff's lists with their headings, in print order.
func (d *Diff) diffSections() []struct {
	name  string
	items []DiffItem
} {
	return []struct {
		name  string
		items []DiffItem
	}{{"New", d.Added}, {"Resolved", d.Resolved}, {"Persisting", d.Persisting}, {"Undecided", d.Undecided}}
}

// countLine is e.g. "1 new, 1 resolved, 2 persisting, 0 undecided".
func (d *Diff) countLine() string {
	return fmt.Sprintf("%d new, %d resolved, %d persisting, %d undecided", len(d.Added), len(d.Resolved), len(d.Persisting), len(d.Undecided))
}

// notes warn when the bundles name different clusters, or NEW is older.
func (d *Diff) notes() []string {
	var ns []string
	o, n := reportClusterLine(d.Old), reportClusterLine(d.New)
	if o != "" && n != "" && o != n {
		ns = append(ns, fmt.Sprintf("the bundles are of different clusters (%s; %s): fingerprints match only within one", o, n))
	}
	if !d.Old.CollectedAt.IsZero() && d.New.CollectedAt.Before(d.Old.CollectedAt) {
		ns = append(ns, "NEW was collected before OLD: are they the wrong way round?")
	}
	return ns
}

func (d *Diff) writeTable(w io.Writer) error {
	p := &reportPrinter{w: w}
	p.lines("OLD: ", diffBundleLine(d.Old))
	p.lines("NEW: ", diffBundleLine(d.New))
	for _, n := range d.notes() {
		p.lines("Note: ", n)
	}
	for _, s := range d.diffSections() {
		if len(s.items) == 0 {
			continue
		}
		p.printf("\n%s (%d):\n", s.name, len(s.items))
		for _, it := range s.items {
			sev := strings.ToUpper(it.Severity.String())
			if it.OldSeverity != 0 {
				sev = strings.ToUpper(it.OldSeverity.String()) + "->" + sev
			}
			p.lines("  ", fmt.Sprintf("[%s] %s: %s (%s, %s)", sev, it.Title, it.Subject, it.Rule, it.Fingerprint))
			if it.Reason != "" {
				p.lines("      why: ", it.Reason)
			}
			p.lines("      ", truncateRunes(sanitizeText(it.Summary, false), 400, "..."))
		}
	}
	p.printf("\n%s.\n", d.countLine())
	return p.err
}

func diffBundleLine(b BundleInfo) string {
	s := reportBundleLine(b)
	if !b.CollectedAt.IsZero() {
		s += ", collected " + reportTime(b.CollectedAt)
	}
	return s
}

func (d *Diff) writeMarkdown(w io.Writer) error {
	p := &reportPrinter{w: w}
	p.printf("# rwdiag diff\n\n- **Old:** %s\n- **New:** %s\n", mdText(diffBundleLine(d.Old)), mdText(diffBundleLine(d.New)))
	for _, n := range d.notes() {
		p.printf("- **Note:** %s\n", mdText(n))
	}
	p.printf("\n**%s.**\n", d.countLine())
	for _, s := range d.diffSections() {
		if len(s.items) == 0 {
			continue
		}
		p.printf("\n## %s\n\n| Severity | Finding | Subject | Rule | Summary |\n|---|---|---|---|---|\n", s.name)
		for _, it := range s.items {
			sev := it.Severity.String()
			if it.OldSeverity != 0 {
				sev = it.OldSeverity.String() + " → " + sev
			}
			sum := it.Summary
			if it.Reason != "" {
				sum = it.Reason + ". " + sum
			}
			p.printf("| %s | %s | %s | %s | %s |\n", sev, mdText(it.Title), mdCode(it.Subject), mdCode(it.Rule), mdText(sum))
		}
	}
	return p.err
}
