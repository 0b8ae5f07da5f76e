// Command logregex prints the union of the built-in rules' log regular
// expressions, the ones rwdiag runs over container logs, as one POSIX
// extended regular expression for grep -E: the by-hand baseline of
// bench/analyze.sh until issue 14 (docs/performance.md keeps its figures).
// Since two rules read any line of a meta pod's previous log ('\S'), the
// union matches nearly every line that is not blank.
//
//	go run ./bench/logregex            # ERE, for grep -E
//	go run ./bench/logregex -re2       # as the rules write them, joined with |
//
// RE2 syntax that ERE lacks is rewritten to what matches the same lines:
// (?P<name>x) and (?:x) become (x), \d becomes [0-9], a lazy x*? becomes x*
// (a line matches either way), a case-folded letter becomes [aA]; \b and
// \B stay, as GNU grep -E reads them (POSIX ERE has no word boundary).
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

func main() {
	re2 := flag.Bool("re2", false, "print the expressions as written, joined with |")
	flag.Parse()
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "logregex:", err)
		os.Exit(1)
	}
	var exprs []string
	for _, r := range rs {
		for _, s := range r.Signals {
			q := s.Log
			if s.Kind != analyze.SignalLog || q == nil || q.Expr() == "" || !readsLogs(q) {
				continue
			}
			e := q.Expr() // the built-in rules' expressions are compiled only when needed
			if !*re2 {
				if e, err = ere(e); err != nil {
					fmt.Fprintf(os.Stderr, "logregex: %s: %v\n", q.Name, err)
					os.Exit(1)
				}
			}
			if !slices.Contains(exprs, e) {
				exprs = append(exprs, e)
			}
		}
	}
	fmt.Println(strings.Join(exprs, "|"))
}

// readsLogs reports whether a query reads container logs.
func readsLogs(q *logs.Query) bool {
	return len(q.Kinds) == 0 || slices.Contains(q.Kinds, bundle.KindLog) || slices.Contains(q.Kinds, bundle.KindPreviousLog)
}

// ere rewrites an RE2 expression as a POSIX ERE that matches the same lines.
func ere(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := write(&b, re.Simplify()); err != nil {
		return "", err
	}
	return b.String(), nil
}

func write(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpEmptyMatch:
		b.WriteString("()")
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && strings.ToLower(string(r)) != strings.ToUpper(string(r)) {
				b.WriteString("[" + strings.ToLower(string(r)) + strings.ToUpper(string(r)) + "]")
				continue
			}
			if strings.ContainsRune(`.[]()*+?{}|^$\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		writeClass(b, re.Rune)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('.')
	case syntax.OpBeginLine, syntax.OpBeginText:
		b.WriteByte('^')
	case syntax.OpEndLine, syntax.OpEndText:
		b.WriteByte('$')
	case syntax.OpCapture:
		b.WriteByte('(')
		if err := write(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub := re.Sub[0]
		single := sub.Op == syntax.OpCharClass || sub.Op == syntax.OpAnyChar || sub.Op == syntax.OpAnyCharNotNL ||
			sub.Op == syntax.OpLiteral && len(sub.Rune) == 1 && sub.Flags&syntax.FoldCase == 0
		if !single {
			b.WriteByte('(')
		}
		if err := write(b, sub); err != nil {
			return err
		}
		if !single {
			b.WriteByte(')')
		}
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			b.WriteString("{" + strconv.Itoa(re.Min) + ",")
			if re.Max >= 0 {
				b.WriteString(strconv.Itoa(re.Max))
			}
			b.WriteByte('}')
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := write(b, s); err != nil {
				return err
			}
		}
	case syntax.OpWordBoundary:
		b.WriteString(`\b`) // GNU grep -E's, as POSIX has none
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpAlternate:
		b.WriteByte('(')
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			if err := write(b, s); err != nil {
				return err
			}
		}
		b.WriteByte(')')
	default:
		return fmt.Errorf("%s has no POSIX ERE form", re)
	}
	return nil
}

// writeClass writes a character class; "]", "^" and "-" are placed where
// ERE reads them as themselves.
func writeClass(b *strings.Builder, ranges []rune) {
	if len(ranges) == 2 && ranges[0] == 0 && ranges[1] == 0x10ffff {
		b.WriteByte('.')
		return
	}
	// A class that is most of the code points is written negated.
	if len(ranges) >= 2 && ranges[0] == 0 && ranges[len(ranges)-1] == 0x10ffff {
		var neg []rune
		for i := 1; i+1 < len(ranges); i += 2 {
			neg = append(neg, ranges[i]+1, ranges[i+1]-1)
		}
		b.WriteString("[^")
		writeRanges(b, neg)
		b.WriteByte(']')
		return
	}
	b.WriteByte('[')
	writeRanges(b, ranges)
	b.WriteByte(']')
}

func writeRanges(b *strings.Builder, ranges []rune) {
	// grep reads its pattern, and the logs, a line at a time: no line holds
	// a newline, so one in a class (\s, [^x] negated) is left out, and
	// would end the pattern if written.
	var noNL []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				noNL = append(noNL, lo, '\n'-1)
			}
			if hi > '\n' {
				noNL = append(noNL, '\n'+1, hi)
			}
			continue
		}
		noNL = append(noNL, lo, hi)
	}
	ranges = noNL
	var tail string
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo == ']' && hi == ']' {
			b.WriteString("]") // a class of just "]" is "[]]"; elsewhere ERE is fine first only
			continue
		}
		if lo == '-' && hi == '-' {
			tail = "-"
			continue
		}
		b.WriteRune(lo)
		if hi != lo {
			b.WriteByte('-')
			b.WriteRune(hi)
		}
	}
	b.WriteString(tail)
}
