package report

import (
	"fmt"
	"strings"

	"github.com/rwdiag/rwdiag/analyze"
)

// examinedRules are the rules that read something: neither skipped nor
// failed.
func examinedRules(r *analyze.Report) []analyze.RuleResult {
	var out []analyze.RuleResult
	for _, rr := range r.Rules {
		if len(rr.Examined) > 0 && !isKnownResult(rr) { // known issues: see knownLine
			out = append(out, rr)
		}
	}
	return out
}

// examinedLines is one line per rule: what its decisive inputs covered,
// and which were not read, e.g. "barrier-stall-slow-compute-node (passed):
// progress: metrics of compute (3 pods), 12 scrapes 14:00-14:30".
func examinedLines(r *analyze.Report) []string {
	var out []string
	for _, rr := range examinedRules(r) {
		var read, unread []string
		bySame := map[string][]string{} // coverage -> signals that read it
		var order []string
		for _, e := range rr.Examined {
			switch {
			case !e.Decisive:
			case e.Read:
				if bySame[e.Coverage] == nil {
					order = append(order, e.Coverage)
				}
				bySame[e.Coverage] = append(bySame[e.Coverage], e.Signal)
			default:
				unread = append(unread, e.Signal)
			}
		}
		for _, c := range order {
			read = append(read, strings.Join(bySame[c], ", ")+": "+c)
		}
		line := fmt.Sprintf("%s (%s): ", rr.ID, rr.Status)
		if len(read) > 0 {
			line += strings.Join(read, "; ")
		}
		if len(unread) > 0 {
			if len(read) > 0 {
				line += "; "
			}
			line += "not read: " + strings.Join(unread, ", ")
		}
		out = append(out, sanitizeText(line, false))
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
