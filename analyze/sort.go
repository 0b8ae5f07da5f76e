package analyze

import (
	"cmp"
	"fmt"
	"slices"
)

// ParseFailOn parses a --fail-on value: "critical", "warning" or "info",
// or "never", for which never is true and threshold is zero.
func ParseFailOn(s string) (threshold Severity, never bool, err error) {
	if s == "never" {
		return 0, true, nil
	}
	threshold, err = ParseSeverity(s)
	if err != nil {
		return 0, false, fmt.Errorf("unknown --fail-on value %q (want critical, warning, info or never)", s)
	}
	return threshold, false, nil
}

// ExceedsFailOn reports whether a firing finding is at or above threshold.
// Inconclusive findings never count.
func (r *Report) ExceedsFailOn(threshold Severity) bool {
	for _, f := range r.Findings {
		if f.Status == StatusFiring && f.Severity >= threshold {
			return true
		}
	}
	return false
}

// Sort puts findings in report order (severity, highest first; firing before
// inconclusive; then pattern, rule and subject) and rules by id, so that the
// same analysis always prints the same report.
func (r *Report) Sort() {
	slices.SortStableFunc(r.Findings, compareFindings)
	slices.SortStableFunc(r.Rules, func(a, b RuleResult) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Status, b.Status), cmp.Compare(a.Reason, b.Reason))
	})
}

func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(b.Severity, a.Severity),
		cmp.Compare(findingStatusRank(a.Status), findingStatusRank(b.Status)),
		cmp.Compare(a.Status, b.Status),
		cmp.Compare(a.Pattern, b.Pattern),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Subject, b.Subject),
		cmp.Compare(a.Fingerprint, b.Fingerprint),
		cmp.Compare(a.Summary, b.Summary),
	)
}

func findingStatusRank(s Status) int {
	switch s {
	case StatusFiring:
		return 0
	case StatusInconclusive:
		return 1
	}
	return 2
}
