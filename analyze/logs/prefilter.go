package logs

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The prefilter: the literal strings every match of a regular expression
// must contain, read off its syntax tree, searched for before the regular
// expression runs. Most log lines match no rule; for them a few byte
// searches decide, with no allocation.

// lowered returns the current line folded for the case-insensitive
// literals, computing it once per line: ASCII letters lowercased, and the
// only non-ASCII runes whose case folds reach ASCII, the Kelvin sign (K) and
// the long s (ſ), replaced by "k" and "s".
func (s *Scanner) lowered(line []byte) []byte {
	if s.lowerOK {
		return s.lower
	}
	s.lower = foldBytes(s.lower[:0], line)
	s.lowerOK = true
	return s.lower
}

// containsFold reports whether the folded line contains the folding literal
// l. It searches the line itself for both cases of l's rarest letter and
// compares around each; only a line that may hold a Kelvin sign or a long s
// is folded whole first.
func (s *Scanner) containsFold(line []byte, l lit) bool {
	if l.ks && s.mayHoldKS(line) {
		return bytes.Contains(s.lowered(line), l.s)
	}
	n := len(l.s)
	if n == 0 {
		return true
	}
	lo := l.s[l.anchor]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	end := len(line) - n + l.anchor + 1 // anchors at or past end cannot start a match
	for i := l.anchor; i < end; {
		b := line[i:end]
		j := bytes.IndexByte(b, lo)
		if up != lo {
			lim := b
			if j >= 0 {
				lim = b[:j]
			}
			if k := bytes.IndexByte(lim, up); k >= 0 {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		p := i + j - l.anchor
		if equalFoldASCII(line[p:p+n], l.s) {
			return true
		}
		i += j + 1
	}
	return false
}

// equalFoldASCII reports whether a, ASCII-lowercased, equals lower.
func equalFoldASCII(a, lower []byte) bool {
	for i, c := range a {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// mayHoldKS reports, once per line, whether it has a lead byte of the
// Kelvin sign or the long s.
func (s *Scanner) mayHoldKS(line []byte) bool {
	if s.ks == ksUnknown {
		s.ks = ksNo
		if bytes.IndexByte(line, 0xe2) >= 0 || bytes.IndexByte(line, 0xc5) >= 0 {
			s.ks = ksYes
		}
	}
	return s.ks == ksYes
}

// containsLit is bytes.Contains(line, l.s), searching for the literal's
// rarest byte rather than its first: log lines are full of the letters
// literals start with. After too many false candidates it leaves the rest to
// bytes.Index.
func containsLit(line []byte, l lit) bool {
	n := len(l.s)
	if n == 0 {
		return true
	}
	if len(line) <= 64 || n == 1 {
		return bytes.Contains(line, l.s)
	}
	c := l.s[l.anchor]
	end := len(line) - n + l.anchor + 1
	fails := 0
	for i := l.anchor; i < end; {
		j := bytes.IndexByte(line[i:end], c)
		if j < 0 {
			return false
		}
		p := i + j - l.anchor
		if bytes.Equal(line[p:p+n], l.s) {
			return true
		}
		i += j + 1
		if fails++; fails > 4+(i>>4) {
			return bytes.Contains(line[p+1:], l.s)
		}
	}
	return false
}

// letterRarity ranks lowercase letters, commonest first, roughly as in
// English text and log messages.
const letterRarity = "etaoinsrhldcumfpgwybvkxjqz"

// byteRarity guesses how rare a byte is in RisingWave logs: higher is
// rarer. Spaces and digits (timestamps, ids) are commonest, then the
// punctuation of fields and paths, then lowercase letters by English
// frequency; the capitals of levels and timestamps are common, other
// capitals and other punctuation rare.
func byteRarity(c byte) int {
	switch {
	case c == ' ' || isDigit(c):
		return 0
	case c >= 'a' && c <= 'z':
		return 10 + strings.IndexByte(letterRarity, c)
	case c >= 'A' && c <= 'Z':
		if strings.IndexByte("TZINFOWARERDBUGC", c) >= 0 {
			return 8
		}
		return 30 + strings.IndexByte(letterRarity, c+'a'-'A')/2
	case strings.IndexByte(`:._-=/,"{}()`, c) >= 0:
		return 5
	case c >= utf8.RuneSelf:
		return 45
	}
	return 40
}

// rarestByte is the offset of the byte of s to search for first.
func rarestByte(s []byte) int {
	best, score := 0, -1
	for i, c := range s {
		if sc := byteRarity(c); sc > score {
			best, score = i, sc
		}
	}
	return best
}

// foldBytes appends b folded to dst: ASCII letters lowercased, the Kelvin
// sign and the long s replaced by "k" and "s". Lines and folding literals
// are folded alike.
func foldBytes(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xe2 && i+2 < len(b) && b[i+1] == 0x84 && b[i+2] == 0xaa: // U+212A
			c, i = 'k', i+2
		case c == 0xc5 && i+1 < len(b) && b[i+1] == 0xbf: // U+017F
			c, i = 's', i+1
		}
		dst = append(dst, c)
	}
	return dst
}

// A prefilter is a necessary condition for a regular expression to match a
// line: every clause must have one of its literals in the line. It is read
// off the syntax tree (see litInfo), so it never rejects a line the
// expression matches.
type prefilter struct {
	clauses [][]lit
}

// lit is a literal string. A folding literal, from a case-insensitive
// expression, is ASCII-lowercased and looked for in the folded line (see
// lowered).
type lit struct {
	s    []byte
	fold bool
	// anchor is the offset of the byte searched for first, the rarest (see
	// byteRarity); ks, for a folding literal, whether s holds "k" or "s",
	// whose folds include non-ASCII runes.
	anchor int
	ks     bool
}

// Bounds on the literal analysis.
const (
	maxExactStrings = 16 // strings of an exact set
	maxClauseLits   = 32 // alternatives in one clause
	maxClauses      = 3  // clauses kept, the most selective
	maxClassRunes   = 8  // a character class larger than this is not expanded
)

func (p *prefilter) match(line []byte, s *Scanner) bool {
	for _, c := range p.clauses {
		found := false
		for _, l := range c {
			if l.fold {
				if s.containsFold(line, l) {
					found = true
					break
				}
			} else if containsLit(line, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// newPrefilter analyses a regular expression's source. An expression it
// cannot parse gets no prefilter.
func newPrefilter(expr string) prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	info := analyzeLits(re.Simplify())
	clauses := info.clauses
	if c := exactClause(info.exact); c != nil {
		clauses = append(clauses, c)
	}
	for i, c := range clauses {
		c = weakestLits(c)
		for j := range c {
			c[j].anchor = rarestByte(c[j].s)
			c[j].ks = c[j].fold && bytes.ContainsAny(c[j].s, "ks")
		}
		clauses[i] = c
	}
	// The most selective first: the longest shortest literal, then the
	// fewest alternatives.
	slices.SortStableFunc(clauses, func(a, b []lit) int {
		if d := clauseScore(b) - clauseScore(a); d != 0 {
			return d
		}
		return len(a) - len(b)
	})
	var keep [][]lit
	for _, c := range clauses {
		if len(keep) == maxClauses {
			break
		}
		if !slices.ContainsFunc(keep, func(k []lit) bool { return sameClause(k, c) }) {
			keep = append(keep, c)
		}
	}
	return prefilter{clauses: keep}
}

// weakestLits drops the literals of a clause that contain another of its
// literals: "low: -" or "low: " is just "low: ".
func weakestLits(c []lit) []lit {
	out := make([]lit, 0, len(c))
	for i, l := range c {
		implied := false
		for j, o := range c {
			if i != j && o.fold == l.fold && bytes.Contains(l.s, o.s) && (len(o.s) < len(l.s) || j < i) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, l)
		}
	}
	return out
}

func sameClause(a, b []lit) bool {
	return slices.EqualFunc(a, b, func(x, y lit) bool { return x.fold == y.fold && bytes.Equal(x.s, y.s) })
}

// clauseScore is the length of a clause's shortest literal.
func clauseScore(c []lit) int {
	m := -1
	for _, l := range c {
		if m < 0 || len(l.s) < m {
			m = len(l.s)
		}
	}
	return m
}

// litInfo is what the literal analysis knows of a subexpression.
type litInfo struct {
	// exact, when not nil, is every string the subexpression can match (it
	// may hold the empty string).
	exact []lit
	// clauses must all hold of any match: each names literals one of which
	// the match contains.
	clauses [][]lit
}

// exactClause turns an exact set into a clause, or nil when it holds the
// empty string (and so requires nothing).
func exactClause(exact []lit) []lit {
	if exact == nil {
		return nil
	}
	for _, l := range exact {
		if len(l.s) == 0 {
			return nil
		}
	}
	return slices.Clone(exact)
}

var emptyExact = []lit{{s: []byte{}}}

func analyzeLits(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: emptyExact}
	case syntax.OpLiteral:
		return literalInfo(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > maxClassRunes {
				return litInfo{}
			}
		}
		var exact []lit
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r == utf8.RuneError || r > unicode.MaxRune {
					return litInfo{}
				}
				exact = append(exact, lit{s: utf8.AppendRune(nil, r)})
			}
		}
		if len(exact) == 0 {
			return litInfo{}
		}
		return litInfo{exact: exact}
	case syntax.OpCapture:
		return analyzeLits(re.Sub[0])
	case syntax.OpQuest:
		sub := analyzeLits(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxExactStrings {
			return litInfo{exact: dedupLits(append(slices.Clone(sub.exact), emptyExact...))}
		}
		return litInfo{}
	case syntax.OpPlus:
		return required(analyzeLits(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(analyzeLits(re.Sub[0]))
		}
		return litInfo{}
	case syntax.OpConcat:
		infos := make([]litInfo, len(re.Sub))
		for i, sub := range re.Sub {
			infos[i] = analyzeLits(sub)
		}
		return concatLits(infos)
	case syntax.OpAlternate:
		return alternateLits(re.Sub)
	}
	// AnyChar, AnyCharNotNL, Star, NoMatch: nothing known.
	return litInfo{}
}

// required keeps only what a subexpression requires, for x+ and x{n,}.
func required(in litInfo) litInfo {
	out := litInfo{clauses: in.clauses}
	if c := exactClause(in.exact); c != nil {
		out.clauses = append(slices.Clone(out.clauses), c)
	}
	return out
}

// literalInfo analyses a literal string. A case-folding literal is
// lowercased; its non-ASCII letters, whose folds are not plain bytes, break
// it into pieces.
func literalInfo(runes []rune, fold bool) litInfo {
	var parts []litInfo
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, litInfo{exact: []lit{{s: cur, fold: fold}}})
			cur = nil
		}
	}
	for _, r := range runes {
		switch {
		case r == utf8.RuneError:
			// Matches any invalid byte too: not a literal byte string.
			flush()
			parts = append(parts, litInfo{})
		case fold && r < utf8.RuneSelf:
			cur = append(cur, byte(unicode.ToLower(r)))
		case fold && unicode.SimpleFold(r) != r:
			flush()
			parts = append(parts, litInfo{})
		default:
			cur = utf8.AppendRune(cur, r)
		}
	}
	flush()
	if len(parts) == 0 {
		return litInfo{exact: emptyExact}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return concatLits(parts)
}

// concatLits combines a concatenation: runs of exact parts are multiplied
// out while the sets stay small; the rest become clauses.
func concatLits(infos []litInfo) litInfo {
	var out litInfo
	run := emptyExact
	exact := true
	for _, in := range infos {
		out.clauses = append(out.clauses, in.clauses...)
		if in.exact == nil {
			if c := exactClause(run); c != nil {
				out.clauses = append(out.clauses, c)
			}
			run, exact = emptyExact, false
			continue
		}
		if p := crossLits(run, in.exact); p != nil {
			run = p
			continue
		}
		if c := exactClause(run); c != nil {
			out.clauses = append(out.clauses, c)
		}
		run, exact = in.exact, false
	}
	if exact {
		out.exact = run
		return out
	}
	if c := exactClause(run); c != nil {
		out.clauses = append(out.clauses, c)
	}
	return out
}

// crossLits is every a followed by every b, or nil when that is too many.
func crossLits(a, b []lit) []lit {
	if len(a)*len(b) > maxExactStrings {
		return nil
	}
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			fold := x.fold || y.fold
			s := make([]byte, 0, len(x.s)+len(y.s))
			s = append(append(s, x.s...), y.s...)
			if fold {
				s = foldBytes(s[:0:0], s)
			}
			out = append(out, lit{s: s, fold: fold})
		}
	}
	return dedupLits(out)
}

func dedupLits(ls []lit) []lit {
	out := ls[:0:0]
	for _, l := range ls {
		if !slices.ContainsFunc(out, func(o lit) bool { return o.fold == l.fold && bytes.Equal(o.s, l.s) }) {
			out = append(out, l)
		}
	}
	return out
}

// alternateLits combines an alternation: the union of exact sets while
// small, else one clause holding the best clause of every branch.
func alternateLits(subs []*syntax.Regexp) litInfo {
	infos := make([]litInfo, len(subs))
	var union []lit
	allExact := true
	for i, sub := range subs {
		infos[i] = analyzeLits(sub)
		if infos[i].exact == nil {
			allExact = false
		} else {
			union = append(union, infos[i].exact...)
		}
	}
	if allExact {
		if union = dedupLits(union); len(union) <= maxExactStrings {
			return litInfo{exact: union}
		}
	}
	var clause []lit
	for _, in := range infos {
		best := exactClause(in.exact)
		for _, c := range in.clauses {
			if best == nil || clauseScore(c) > clauseScore(best) || (clauseScore(c) == clauseScore(best) && len(c) < len(best)) {
				best = c
			}
		}
		if best == nil {
			return litInfo{}
		}
		clause = append(clause, best...)
	}
	if clause = dedupLits(clause); len(clause) > maxClauseLits {
		return litInfo{}
	}
	return litInfo{clauses: [][]lit{clause}}
}

// jsonPieces returns literals that the bytes of a JSON log line must
// contain for the prefilter to pass on its rendering: the runs of "safe"
// bytes of the prefilter's single-literal clauses.
//
// renderJSONLine adds only spaces, ':', '=', '{', '}' and '"' and copies the
// line's values unchanged, the level's case apart; so a run without those
// bytes that is in the rendering is in the line's bytes, provided the line
// has no escape that decodes to a byte a run may hold (hasHardEscape) and a
// case-sensitive run is not part of a level word (dropped here). Control and non-ASCII bytes are excluded
// for good measure.
func jsonPieces(p prefilter) []lit {
	var out []lit
	for _, c := range p.clauses {
		if len(c) != 1 {
			continue
		}
		s := c[0].s
		for len(s) > 0 {
			i := 0
			for i < len(s) && jsonSafe(s[i]) {
				i++
			}
			if i > 0 && (c[0].fold || !inLevelWord(s[:i])) {
				piece := lit{s: s[:i], fold: c[0].fold, anchor: rarestByte(s[:i])}
				piece.ks = piece.fold && bytes.ContainsAny(piece.s, "ks")
				out = append(out, piece)
			}
			if i < len(s) {
				i++
			}
			s = s[i:]
		}
	}
	return out
}

func jsonSafe(c byte) bool {
	switch c {
	case ' ', ':', '=', '{', '}', '"', '\\':
		return false
	}
	return c > ' ' && c < utf8.RuneSelf && c != 0x7f
}

// inLevelWord reports whether b, lowercased, is part of a level name, which
// the rendering may upper-case.
func inLevelWord(b []byte) bool {
	l := strings.ToLower(string(b))
	for _, w := range []string{"trace", "debug", "info", "warn", "error"} {
		if strings.Contains(w, l) {
			return true
		}
	}
	return false
}
