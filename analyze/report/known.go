package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/internal/english"
)

// isKnownResult reports whether a rule result is a known-issue entry's.
// Entries are counted apart from the rules: fifteen entries skipped for
// another version, or not checked for lack of a meta log, are one line
// (knownLine), not fifteen.
func isKnownResult(rr analyze.RuleResult) bool { return rr.Kind == analyze.FindingKindKnownIssue }

// knownLine is e.g. "15 known issues: 1 matched, 9 not matched, 3 not
// checked (no meta logs in the bundle; no metrics in the bundle), 2 outside
// their versions"; "" when the report has none.
func knownLine(r *analyze.Report) string {
	n := 0
	count := map[analyze.RuleStatus]int{}
	var why []string
	for _, rr := range r.Rules {
		if !isKnownResult(rr) {
			continue
		}
		n++
		count[rr.Status]++
		if rr.Status == analyze.RuleInconclusive {
			// "panic: no meta logs in the bundle; ..." -> "no meta logs in the bundle"
			for part := range strings.SplitSeq(rr.Reason, "; ") {
				if _, reason, ok := strings.Cut(part, ": "); ok {
					part = reason
				}
				if part != "" && !slices.Contains(why, part) {
					why = append(why, part)
				}
			}
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, s := range []struct {
		status analyze.RuleStatus
		text   string
	}{{analyze.RuleFired, "matched"}, {analyze.RulePassed, "not matched"}, {analyze.RuleInconclusive, "not checked"},
		{analyze.RuleSkipped, "outside their versions"}, {analyze.RuleError, "failed to evaluate"}} {
		if count[s.status] == 0 {
			continue
		}
		part := fmt.Sprintf("%d %s", count[s.status], s.text)
		if s.status == analyze.RuleInconclusive && len(why) > 0 {
			part += " (" + strings.Join(why, "; ") + ")"
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d known %s: %s", n, english.Plural(n, "issue", "issues"), strings.Join(parts, ", "))
}

// knownIssueText is what a known-issue finding adds to its rule line:
// "risingwavelabs/risingwave#17858, status fixed, upgrade to v2.0.0".
func knownIssueText(f analyze.Finding) string {
	k := f.KnownIssue
	if k == nil {
		return ""
	}
	n := k.Issue
	if n == 0 && len(k.PRs) > 0 {
		n = k.PRs[0]
	}
	s := fmt.Sprintf("risingwavelabs/risingwave#%d, status %s", n, k.Status)
	if k.UpgradeTo != "" {
		s += ", upgrade to " + k.UpgradeTo
	}
	return s
}
