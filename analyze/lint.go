package analyze

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
)

// LintPaths loads rule files as LoadPaths does and returns every problem
// (the rules that have one are not loaded) and every warning (the rule
// loads and runs within its budget, but something in it is likely to cost
// far more than it should), in file order.
func LintPaths(paths []string) ([]*Rule, Problems) {
	rules, probs, warns := loadPaths(paths)
	return rules, append(probs, warns...)
}

// LintFS is LintPaths over a file system, such as the built-in rules.
func LintFS(fsys fs.FS, prefix string) ([]*Rule, Problems) {
	rules, probs, warns := loadFS(fsys, prefix)
	return rules, append(probs, warns...)
}

// lintScrapeInterval is the scrape interval lint assumes: RisingWave's
// Grafana dashboards and Helm chart scrape every 15 s, and a subquery step
// under the interval evaluates the same samples again and again.
const lintScrapeInterval = 15 * time.Second

// maxSubquerySteps is the most steps a subquery may have before it is an
// error: a million evaluations of its inner query per evaluation of the
// rule (a 1 ms step over 10 years is 3e11: out of memory at once).
const maxSubquerySteps = 1_000_000

// lintPromQL checks a PromQL query that parses for costly subqueries.
func lintPromQL(query string) []lintNote {
	expr, err := parser.NewParser(parser.Options{}).ParseExpr(lintGrafanaVars.Replace(query))
	if err != nil {
		return nil
	}
	var notes []lintNote
	parser.Inspect(expr, func(n parser.Node, path []parser.Node) error {
		sq, ok := n.(*parser.SubqueryExpr)
		if !ok {
			return nil
		}
		// Steps multiply through nested subqueries.
		steps := 1.0
		for _, p := range append(path, n) {
			if s, ok := p.(*parser.SubqueryExpr); ok && s.Step > 0 {
				steps *= float64(s.Range) / float64(s.Step)
			}
		}
		where := "[" + promDuration(sq.Range) + ":" + stepString(sq.Step) + "]"
		switch {
		case steps > maxSubquerySteps:
			notes = append(notes, lintNote{err: true, msg: fmt.Sprintf(
				"subquery %s evaluates its inner query %.3g times (more than %d): give it a step no finer than the scrape interval (e.g. $__interval) and a range no longer than the bundle ($__range)",
				where, steps, maxSubquerySteps)})
		case sq.Step > 0 && sq.Step < lintScrapeInterval:
			notes = append(notes, lintNote{msg: fmt.Sprintf(
				"subquery %s has a step under the %v scrape interval: each step re-reads the same samples; use $__interval",
				where, lintScrapeInterval)})
		}
		return nil
	})
	return notes
}

type lintNote struct {
	msg string
	err bool
}

// stepString prints a step as PromQL writes it (1ms, 15s); "" for none.
func stepString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return promDuration(d)
}

// promDuration prints a duration as PromQL writes it: 10y, 1d12h, 15s, 1ms.
func promDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	ms := d.Milliseconds()
	for _, u := range []struct {
		name string
		ms   int64
	}{{"y", 365 * 24 * 3600 * 1000}, {"w", 7 * 24 * 3600 * 1000}, {"d", 24 * 3600 * 1000},
		{"h", 3600 * 1000}, {"m", 60 * 1000}, {"s", 1000}, {"ms", 1}} {
		if ms >= u.ms {
			fmt.Fprintf(&b, "%d%s", ms/u.ms, u.name)
			ms %= u.ms
		}
	}
	return b.String()
}

// lintGrafanaVars stands Grafana's interval variables for durations that no
// lint check flags (the store replaces them by the bundle's own).
var lintGrafanaVars = strings.NewReplacer(
	"${__interval_ms}", "15000", "$__interval_ms", "15000",
	"${__range_ms}", "3600000", "$__range_ms", "3600000",
	"${__range_s}", "3600", "$__range_s", "3600",
	"${__rate_interval}", "1m", "$__rate_interval", "1m",
	"${__interval}", "15s", "$__interval", "15s",
	"${__range}", "1h", "$__range", "1h",
)

var recursiveCTE = regexp.MustCompile(`(?i)\bWITH\s+RECURSIVE\b`)

// lintSQL flags a recursive common table expression: nothing bounds its
// recursion but the SQL budget, and one without an end runs until it.
func lintSQL(q string) []lintNote {
	if recursiveCTE.MatchString(stripSQLLiterals(q)) {
		return []lintNote{{msg: "WITH RECURSIVE: a recursive CTE runs until its recursion ends or the SQL budget stops it; bound it (e.g. WHERE depth < 100) or avoid it"}}
	}
	return nil
}

// stripSQLLiterals blanks SQL string literals, quoted identifiers and
// comments, so that only the statement's own words are matched.
func stripSQLLiterals(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); {
		switch {
		case q[i] == '\'' || q[i] == '"':
			quote := q[i]
			j := i + 1
			for j < len(q) {
				if q[j] == quote {
					if j+1 < len(q) && q[j+1] == quote {
						j += 2
						continue
					}
					break
				}
				j++
			}
			b.WriteString(" ")
			i = j + 1
		case strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			b.WriteString(" ")
			i += j + 4
		default:
			b.WriteByte(q[i])
			i++
		}
	}
	return b.String()
}
