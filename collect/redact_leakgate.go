package collect

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
)

// leakScanner decides which lines gitleaks must see, without changing what
// it finds. gitleaks runs a rule's expression on text that holds one of the
// rule's keywords (its prefilter); many keywords are common in RisingWave's
// logs (Twilio's "sk" in every "::task::" module path, the generic rule's
// "key" in total_key_count, "token", "auth", "access"), and the generic
// rule's expression, which starts with up to 50 characters of context,
// costs a tenth of a millisecond a line. So before a line goes to gitleaks:
//
//  1. one pass of an Aho-Corasick automaton (kwMatcher) finds the
//     keywords of every rule, exactly as gitleaks' lower-cased prefilter
//     does (lines holding a character that lower-cases into ASCII, such as
//     the Kelvin sign, are lower-cased first, as gitleaks does, and their
//     gates are not anchored: asciiLookalikes);
//  2. for each rule whose keyword is there, a gate: the rule's expression
//     without its leading optional context (a match of the whole
//     expression holds a match of the rest, so the gate passes wherever the
//     rule can match); when every match of that rest starts with one of the
//     rule's keywords, it is tried only where the keyword was found,
//     anchored there after a check of its literal prefix, which costs a
//     few characters' work;
//  3. only a line on which some rule's gate passed goes to gitleaks, whole,
//     which then finds (and filters: entropy, allowlists, stop words)
//     exactly what it found before.
//
// A line that gitleaks would report has a rule whose keyword it holds and
// whose expression matches it, so its gate passes: nothing gitleaks finds is
// lost (TestLeakGateSound checks it on lines made from every rule's
// expression).
type leakScanner struct {
	m *kwMatcher
	// both: hintWords then m's words, for scanLine's single pass
	both    *kwMatcher
	kwRules [][]int32 // keyword id -> rules holding it
	gates   []leakGate
	always  []int32 // rules with an expression and no keyword: gitleaks runs them on everything
	maxWord int     // the longest word of both's automaton (its cut)
	// skipStamp: no word is made of timestamp bytes alone, so the
	// timestamps a log line starts with need no scan (isStampByte)
	skipStamp bool
	// foldAll: some keyword is not ASCII, so lines with any non-ASCII
	// byte are lower-cased before the keyword scan.
	foldAll bool
}

// leakGate is one rule's gate, compiled on first use.
type leakGate struct {
	src      string
	kws      []string
	once     sync.Once
	whole    *regexp.Regexp // the expression without its leading optional context
	anchored *regexp.Regexp // whole anchored at its start; nil unless every match starts with a keyword
	// prefixes: every match of anchored starts with one of them (ASCII
	// case ignored when fold), a check cheaper than the expression
	prefixes []litPrefix
}

func (g *leakGate) init() {
	g.once.Do(func() { g.whole, g.anchored, g.prefixes = compileLeakGate(g.src, g.kws) })
}

// startsRight tells whether s starts with one of the gate's prefixes.
func (g *leakGate) startsRight(s string) bool {
	for _, p := range g.prefixes {
		if len(s) < len(p.s) {
			continue
		}
		if p.fold && hasPrefixFold(s, p.s) || !p.fold && strings.HasPrefix(s, p.s) {
			return true
		}
	}
	return false
}

// leakState is a caller's scratch: which rules' unanchored gates a line
// already tried.
type leakState struct {
	tried []uint32
	gen   uint32
}

func newLeakScanner(rules map[string]config.Rule) *leakScanner {
	ls := &leakScanner{}
	ids := sortedKeys(rules)
	kwIndex := map[string]int{}
	var words []string
	type pair struct{ kw, rule int }
	var pairs []pair
	for _, id := range ids {
		r := rules[id]
		if r.Regex == nil || r.SkipReport {
			continue // a path-only rule finds nothing in text; a skipped one reports nothing
		}
		ri := len(ls.gates)
		var kws []string
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if k == "" {
				continue
			}
			kws = append(kws, k)
			for i := 0; i < len(k); i++ {
				if k[i] >= utf8.RuneSelf {
					ls.foldAll = true
				}
			}
			if _, ok := kwIndex[k]; !ok {
				kwIndex[k] = len(words)
				words = append(words, k)
			}
			pairs = append(pairs, pair{kwIndex[k], ri})
		}
		ls.gates = append(ls.gates, leakGate{src: r.Regex.String(), kws: kws})
		if len(kws) == 0 {
			ls.always = append(ls.always, int32(ri))
		}
	}
	ls.m = newKWMatcher(words)
	ls.both = newKWMatcherCut(append(slices.Clone(hintWords), words...), bothCut)
	ls.skipStamp = true
	for _, w := range ls.both.words {
		ls.maxWord = max(ls.maxWord, min(len(w), bothCut))
		if w != "" && strings.Trim(w, stampBytes) == "" {
			ls.skipStamp = false
		}
	}
	// newKWMatcher keeps the words' order: ids are the same
	ls.kwRules = make([][]int32, len(words))
	for _, p := range pairs {
		ls.kwRules[p.kw] = append(ls.kwRules[p.kw], int32(p.rule))
	}
	return ls
}

func (ls *leakScanner) newState() *leakState {
	return &leakState{tried: make([]uint32, len(ls.gates))}
}

// asciiLookalikes are the characters that strings.ToLower turns into ASCII
// letters (the Kelvin sign into k, the capital I with a dot above into i)
// or that a case-insensitive expression takes for one (the long s for s).
// On a line holding one, keywords are found in the lower-cased line, as
// gitleaks finds them, and no gate is anchored, since a match may start at
// the look-alike. (TestASCIILookalikes checks that there are no others.)
var asciiLookalikes = []string{"\u212a", "\u0130", "\u017f"}

// mayLeak tells whether gitleaks could find anything in line.
func (ls *leakScanner) mayLeak(line string, st *leakState) bool {
	st.gen++
	if st.gen == 0 {
		clear(st.tried)
		st.gen = 1
	}
	text, shifted := line, false
	if ls.needsFold(line) {
		text, shifted = strings.ToLower(line), true
	}
	found := false
	ls.m.scan(text, func(id, end int) bool {
		found = ls.hit(line, id, end, shifted, st)
		return !found
	})
	return found || ls.alwaysGates(line)
}

// hit tells whether a gate of a rule with keyword id, found in line
// ending at end, passes; shifted: the line was lower-cased for the scan,
// so end is no offset in line.
func (ls *leakScanner) hit(line string, id, end int, shifted bool, st *leakState) bool {
	for _, ri := range ls.kwRules[id] {
		g := &ls.gates[ri]
		g.init()
		if g.anchored != nil && !shifted {
			at := line[end-len(ls.m.words[id]):]
			if g.startsRight(at) && g.anchored.MatchString(at) {
				return true
			}
			continue
		}
		if st.tried[ri] == st.gen {
			continue
		}
		st.tried[ri] = st.gen
		if g.whole.MatchString(line) {
			return true
		}
	}
	return false
}

// alwaysGates tells whether a rule without keywords may match line.
func (ls *leakScanner) alwaysGates(line string) bool {
	for _, ri := range ls.always {
		g := &ls.gates[ri]
		g.init()
		if g.whole.MatchString(line) {
			return true
		}
	}
	return false
}

// needsFold tells whether line's keywords must be found in its lower-cased
// form, as gitleaks finds them: it holds an ASCII look-alike (or some
// keyword is not ASCII and the line is not either).
func (ls *leakScanner) needsFold(line string) bool {
	if !hasNonASCII(line) {
		return false
	}
	if ls.foldAll {
		return true
	}
	for _, f := range asciiLookalikes {
		if strings.Contains(line, f) {
			return true
		}
	}
	return false
}

// stampBytes are the bytes of the timestamps kubectl logs --timestamps and
// RisingWave put first on a line (2026-11-29T20:41:07.123456789Z, +02:00),
// lower case as the automaton's words are.
const stampBytes = "0123456789-:.tz+ "

var isStampByte = func() (t [256]bool) {
	for _, c := range []byte(stampBytes) {
		t[c] = true
		if 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] = true
		}
	}
	return
}()

// bothCut is how much of each word scanLine's automaton holds: the rest
// is checked on a hit.
const bothCut = 8

// scanLine is lineHints and mayLeak in one pass over line.
//
// The automaton's next state depends on the last, so one scan waits for
// each table look-up in turn; a line of some length is scanned as four
// quarters at once (each but the first starting early by the automaton's
// longest word less one, so that every word ending in it is found, and
// reporting only those that end past the quarter before), which keeps four
// look-ups in flight.
func (ls *leakScanner) scanLine(line string, st *leakState) (hints uint64, leak bool) {
	st.gen++
	if st.gen == 0 {
		clear(st.tried)
		st.gen = 1
	}
	m := ls.both
	delta, class := m.delta, &m.class
	var high byte // every byte ORed: is the line ASCII?
	// a line's leading timestamps hold no word: the scan starts where a
	// word ending past them may start
	from := 0
	if ls.skipStamp {
		for from < len(line) && isStampByte[line[from]] {
			from++
		}
		from = max(0, from-(ls.maxWord-1))
	}
	start := from
	if n := len(line) - from; n >= 8*ls.maxWord {
		q := n / 4
		ov := ls.maxWord - 1
		b1, b2, b3 := from+q, from+2*q, from+3*q
		s1, s2, s3 := b1-ov, b2-ov, b3-ov
		var st0, st1, st2, st3 uint32
		for i := range q {
			c0, c1, c2, c3 := line[from+i], line[s1+i], line[s2+i], line[s3+i]
			high |= c0 | c1 | c2 | c3
			x0 := delta[st0+uint32(class[c0])]
			x1 := delta[st1+uint32(class[c1])]
			x2 := delta[st2+uint32(class[c2])]
			x3 := delta[st3+uint32(class[c3])]
			st0, st1, st2, st3 = x0&^kwOut, x1&^kwOut, x2&^kwOut, x3&^kwOut
			if (x0|x1|x2|x3)&kwOut == 0 {
				continue
			}
			if x0&kwOut != 0 {
				hints, leak = ls.scanHit(line, st0, from+i+1, hints, leak, st)
			}
			if x1&kwOut != 0 && s1+i >= b1 {
				hints, leak = ls.scanHit(line, st1, s1+i+1, hints, leak, st)
			}
			if x2&kwOut != 0 && s2+i >= b2 {
				hints, leak = ls.scanHit(line, st2, s2+i+1, hints, leak, st)
			}
			if x3&kwOut != 0 && s3+i >= b3 {
				hints, leak = ls.scanHit(line, st3, s3+i+1, hints, leak, st)
			}
		}
		// each quarter's rest, alone
		for _, r := range [3]struct {
			state    uint32
			from, to int
		}{{st1, s1 + q, b2}, {st2, s2 + q, b3}, {st3, s3 + q, len(line)}} {
			state := r.state
			for i := r.from; i < r.to; i++ {
				c := line[i]
				high |= c
				x := delta[state+uint32(class[c])]
				state = x &^ kwOut
				if x&kwOut != 0 {
					hints, leak = ls.scanHit(line, state, i+1, hints, leak, st)
				}
			}
		}
		start = len(line)
	}
	var state uint32
	for i := start; i < len(line); i++ {
		c := line[i]
		high |= c
		x := delta[state+uint32(class[c])]
		state = x &^ kwOut
		if x&kwOut != 0 {
			hints, leak = ls.scanHit(line, state, i+1, hints, leak, st)
		}
	}
	if high >= utf8.RuneSelf && ls.needsFold(line) {
		return hints, ls.mayLeak(line, st)
	}
	return hints, leak || ls.alwaysGates(line)
}

// scanHit takes the words whose automaton prefixes end at end in state of
// the combined automaton: a hint sets its bit, a gitleaks keyword tries
// its rules' gates until one passes.
func (ls *leakScanner) scanHit(line string, state uint32, end int, hints uint64, leak bool, st *leakState) (uint64, bool) {
	nh := len(hintWords)
	for _, id := range ls.both.out[state/ls.both.nclass] {
		if int(id) >= nh && leak {
			continue
		}
		wend, ok := ls.both.fullWordAt(line, int(id), end)
		if !ok {
			continue
		}
		if int(id) < nh {
			hints |= hintBits[id]
		} else {
			leak = ls.hit(line, int(id)-nh, wend, false, st)
		}
	}
	return hints, leak
}

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// compileLeakGate compiles a rule's gate from its expression src: whole is
// src without its leading assertions and optional parts (or src itself
// when it has none); anchored is whole anchored at the start, when every
// match of whole starts with one of kws (ASCII case ignored), else nil.
// Anything it cannot analyse gives whole = src, anchored = nil: always
// correct, only slower.
func compileLeakGate(src string, kws []string) (whole, anchored *regexp.Regexp, prefixes []litPrefix) {
	full := regexp.MustCompile(src) // gitleaks compiled it already
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return full, nil, nil
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	i := 0
	for i < len(subs)-1 && droppable(subs[i]) {
		i++
	}
	rest := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs[i:], Flags: re.Flags}
	whole = full
	if i > 0 {
		if w, err := regexp.Compile(rest.String()); err == nil {
			whole = w
		} else {
			rest = re
		}
	} else {
		rest = re
	}
	if len(kws) == 0 {
		return whole, nil, nil
	}
	prefixes, ok := literalPrefixes(rest, 64)
	if !ok || len(prefixes) == 0 {
		return whole, nil, nil
	}
	for i, p := range prefixes {
		if !isASCII(p.s) {
			return whole, nil, nil
		}
		if p.fold {
			prefixes[i].s = strings.ToLower(p.s)
		}
		lp := strings.ToLower(p.s)
		hit := false
		for _, k := range kws {
			if strings.HasPrefix(lp, k) {
				hit = true
				break
			}
		}
		if !hit {
			return whole, nil, nil
		}
	}
	a, err := regexp.Compile(`^(?:` + rest.String() + `)`)
	if err != nil {
		return whole, nil, nil
	}
	return whole, a, prefixes
}

func isASCII(s string) bool { return !hasNonASCII(s) }

// droppable: a leading part of an expression the gate can leave out
// without ever failing where the expression matches: an assertion (\b, ^)
// or something that may match nothing.
func droppable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0
	}
	return false
}

// litPrefix is a string every match of an expression may start with;
// full when the match is that string and nothing more; fold when some of
// it is matched without regard to case.
type litPrefix struct {
	s    string
	full bool
	fold bool
}

// literalPrefixes returns strings such that every match of re starts with
// one of them, or ok false when it cannot tell (or there would be more
// than max of them). A prefix under fold case may stand for any case.
func literalPrefixes(re *syntax.Regexp, max int) ([]litPrefix, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		return []litPrefix{{s, true, re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture:
		return literalPrefixes(re.Sub[0], max)
	case syntax.OpCharClass:
		var out []litPrefix
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if int(hi-lo)+1+len(out) > 4 {
				return nil, false
			}
			for c := lo; c <= hi; c++ {
				out = append(out, litPrefix{string(c), true, false})
			}
		}
		return out, len(out) > 0
	case syntax.OpAlternate:
		var out []litPrefix
		for _, s := range re.Sub {
			p, ok := literalPrefixes(s, max)
			if !ok || len(out)+len(p) > max {
				return nil, false
			}
			out = append(out, p...)
		}
		return out, true
	case syntax.OpPlus:
		p, ok := literalPrefixes(re.Sub[0], max)
		return partial(p), ok
	case syntax.OpQuest, syntax.OpStar:
		// nothing, or what the part starts with: passw(?:or)?d
		p, ok := literalPrefixes(re.Sub[0], max)
		if re.Op == syntax.OpStar {
			p = partial(p)
		}
		return append(p, litPrefix{"", true, false}), ok
	case syntax.OpRepeat:
		p, ok := literalPrefixes(re.Sub[0], max)
		if re.Min == 1 && re.Max == 1 {
			return p, ok
		}
		p = partial(p)
		if re.Min == 0 {
			p = append(p, litPrefix{"", true, false})
		}
		return p, ok
	case syntax.OpConcat:
		cur := []litPrefix{{"", true, false}}
		for _, s := range re.Sub {
			if !anyFull(cur) {
				break
			}
			if longest(cur) >= 16 {
				return partial(cur), true
			}
			p, ok := literalPrefixes(s, max)
			if !ok {
				// what comes next is unknown: the prefixes so far are all
				// there is, if they say anything
				if longest(cur) == 0 {
					return nil, false
				}
				return partial(cur), true
			}
			var next []litPrefix
			for _, c := range cur {
				if !c.full {
					next = append(next, c)
					continue
				}
				for _, q := range p {
					next = append(next, litPrefix{c.s + q.s, q.full, c.fold || q.fold})
				}
			}
			if len(next) > max {
				return nil, false
			}
			cur = next
		}
		return cur, true
	}
	return nil, false
}

func partial(p []litPrefix) []litPrefix {
	out := make([]litPrefix, len(p))
	for i, x := range p {
		out[i] = litPrefix{x.s, false, x.fold}
	}
	return out
}

func anyFull(p []litPrefix) bool {
	for _, x := range p {
		if x.full {
			return true
		}
	}
	return false
}

func longest(p []litPrefix) int {
	n := 0
	for _, x := range p {
		n = max(n, len(x.s))
	}
	return n
}
