package analyze

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/rwdiag/rwdiag/analyze/metrics"
)

// LintPaths loads rule files as LoadPaths does and returns every problem
// (the rules that have one are not loaded) and every warning (the rule
// loads and runs within its budget, but something in it is likely to cost
// far more than it should), in file order.
func LintPaths(paths []string) ([]*Rule, Problems) {
	rules, probs, warns := loadPaths(paths)
	return rules, inFileOrder(append(probs, warns...))
}

// inFileOrder sorts problems by file, line and column.
func inFileOrder(ps Problems) Problems {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return ps
}

// LintFS is LintPaths over a file system, such as the built-in rules.
func LintFS(fsys fs.FS, prefix string) ([]*Rule, Problems) {
	rules, probs, warns := loadFS(fsys, prefix)
	return rules, inFileOrder(append(probs, warns...))
}

// lintPromQL checks a PromQL query that parses for what would be costly
// (metrics.CheckQuery): a subquery or range function over more steps or
// samples than the store's limits allow is an error (the store would refuse
// it); a subquery step under the scrape interval a warning.
func lintPromQL(query string) []lintNote {
	var notes []lintNote
	for _, err := range metrics.CheckQuery(query, 0) {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("query %q: ", query))
		notes = append(notes, lintNote{msg: msg, err: errors.Is(err, metrics.ErrLimit)})
	}
	return notes
}

type lintNote struct {
	msg string
	err bool
}

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
