package collect

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// genMatch writes a random string that re may match (assertions are not
// checked; the caller keeps the lines the rule's expression matches).
func genMatch(rng *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				c = unicode.SimpleFold(c)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		var ascii, all [][2]rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			all = append(all, [2]rune{re.Rune[i], re.Rune[i+1]})
			if re.Rune[i] < utf8.RuneSelf {
				ascii = append(ascii, [2]rune{re.Rune[i], min(re.Rune[i+1], utf8.RuneSelf-1)})
			}
		}
		pick := all
		if len(ascii) > 0 && rng.IntN(20) > 0 {
			pick = ascii
		}
		if len(pick) == 0 {
			return
		}
		r := pick[rng.IntN(len(pick))]
		b.WriteRune(r[0] + rune(rng.IntN(int(min(r[1]-r[0], 500))+1)))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte(byte(' ' + rng.IntN(95)))
	case syntax.OpCapture:
		genMatch(rng, re.Sub[0], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+3 {
				hi = lo + 3
			}
			if rng.IntN(4) == 0 && re.Max > 0 {
				hi = re.Max // sometimes the longest
				lo = re.Max
			}
		}
		n := lo + rng.IntN(hi-lo+1)
		for range n {
			genMatch(rng, re.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			genMatch(rng, s, b)
		}
	case syntax.OpAlternate:
		genMatch(rng, re.Sub[rng.IntN(len(re.Sub))], b)
	}
}

// Every line on which a gitleaks rule can report (a keyword of the rule is
// in it, lower-cased, and the rule's expression matches it) passes the
// scanner's gates: made from each of the default rules' expressions, with
// random case, contexts, and the look-alike letters (Kelvin sign, long s)
// that make gitleaks' lower-cased prefilter and the expressions' case
// folding disagree with ASCII.
func TestLeakGateSound(t *testing.T) {
	d, err := leakDetector()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	contexts := []string{"", " ", "x", "=", `"`, "'", "\t", "password=", "api_key: ", "Key=", "sk",
		"2026-11-29T20:41:07.123456789Z  INFO risingwave_stream::task::actor_manager: ", `{"fields":{"message":"`,
		"ſ", "\u212a", "é", "\\n"}
	checked, matched := 0, map[string]int{}
	st := leakSc.newState()
	for _, id := range sortedKeys(d.Config.Rules) {
		r := d.Config.Rules[id]
		if r.Regex == nil || r.SkipReport {
			continue
		}
		re, err := syntax.Parse(r.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for range 300 {
			var b strings.Builder
			genMatch(rng, re, &b)
			m := b.String()
			switch rng.IntN(6) {
			case 0:
				m = strings.Replace(m, "k", "\u212a", 1)
			case 1:
				m = strings.Replace(m, "s", "ſ", 1)
			}
			line := contexts[rng.IntN(len(contexts))] + m + contexts[rng.IntN(len(contexts))]
			if rng.IntN(2) == 0 {
				line += "\n"
			}
			if !r.Regex.MatchString(line) {
				continue
			}
			lower := strings.ToLower(line)
			hasKW := len(r.Keywords) == 0
			for _, k := range r.Keywords {
				if strings.Contains(lower, strings.ToLower(k)) {
					hasKW = true
				}
			}
			if !hasKW {
				continue
			}
			checked++
			matched[id]++
			if !leakSc.mayLeak(line, st) {
				t.Errorf("rule %s matches %q but its gate does not pass", id, line)
			}
		}
	}
	var none []string
	for _, id := range sortedKeys(d.Config.Rules) {
		if r := d.Config.Rules[id]; r.Regex != nil && !r.SkipReport && matched[id] == 0 {
			none = append(none, id)
		}
	}
	// a few rules' expressions are hard to hit at random; most must be
	if len(none) > len(d.Config.Rules)/10 {
		t.Errorf("only %d lines checked; no line matched %d rules: %v", checked, len(none), none)
	}
	t.Logf("%d lines checked; rules never matched: %v", checked, none)
}

// The gates of the rules that fire on RisingWave's words are anchored at
// their keywords (the cheap case); the generic rule above all.
func TestLeakGatesAnchored(t *testing.T) {
	if _, err := leakDetector(); err != nil {
		t.Fatal(err)
	}
	for _, kw := range []string{"key", "sk", "ey", "password", "token"} {
		for _, ri := range leakSc.kwRules[slices.Index(leakSc.m.words, kw)] {
			g := &leakSc.gates[ri]
			g.init()
			if g.anchored == nil && kw != "password" && kw != "token" && kw != "key" {
				t.Errorf("the gate of a rule with keyword %q is not anchored: %s", kw, g.src)
			}
		}
	}
	generic := -1
	for i := range leakSc.gates {
		if strings.Contains(leakSc.gates[i].src, `(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)`) &&
			strings.HasPrefix(leakSc.gates[i].src, `(?i)[\w.-]{0,50}?`) {
			generic = i
		}
	}
	if generic < 0 {
		t.Fatal("gitleaks' generic-api-key expression not found")
	}
	g := &leakSc.gates[generic]
	g.init()
	if g.anchored == nil {
		t.Errorf("the generic rule's gate is not anchored at its keywords")
	}
}

// asciiLookalikes holds every character that strings.ToLower turns into
// ASCII, or that case folds with an ASCII letter.
func TestASCIILookalikes(t *testing.T) {
	var found []string
	for c := rune(utf8.RuneSelf); c <= unicode.MaxRune; c++ {
		if !utf8.ValidRune(c) {
			continue
		}
		ascii := unicode.ToLower(c) < utf8.RuneSelf
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				ascii = true
			}
		}
		if ascii {
			found = append(found, string(c))
		}
	}
	slices.Sort(found)
	want := slices.Clone(asciiLookalikes)
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Errorf("characters that lower-case or fold into ASCII: %q, asciiLookalikes has %q", found, want)
	}
}

// kwMatcher finds what a naive lower-cased search finds.
func TestKWMatcher(t *testing.T) {
	words := []string{"sk", "task", "key", "ey", "password", "pass", "a", "secret_key", "_key", "he", "she", "his", "hers"}
	m := newKWMatcher(words)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "aAsSkKtTyYeEpPwWdDrRhHiIo_ -:\x80é"
	for range 2000 {
		n := rng.IntN(40)
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		type hit struct{ id, end int }
		var got, want []hit
		m.scan(s, func(id, end int) bool {
			got = append(got, hit{id, end})
			return true
		})
		lower := []byte(s)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for end := 1; end <= len(lower); end++ {
			for id, w := range m.words {
				if end >= len(w) && string(lower[end-len(w):end]) == w {
					want = append(want, hit{id, end})
				}
			}
		}
		slices.SortFunc(got, func(a, b hit) int { return (a.end-b.end)*1000 + a.id - b.id })
		slices.SortFunc(want, func(a, b hit) int { return (a.end-b.end)*1000 + a.id - b.id })
		if !slices.Equal(got, want) {
			t.Fatalf("%q: got %v, want %v", s, got, want)
		}
	}
}

// The hint bits are the words' places in hintWords, and no token
// ([REDACTED:0123abcd]) can make a hint: no hint word holds a bracket, lies
// in "redacted:", is all hex digits, or runs from the colon into them.
func TestHintWords(t *testing.T) {
	if len(hintWords)-len(hintMore) > 64 {
		t.Fatalf("%d hint words: more than a mask holds", len(hintWords))
	}
	if !slices.Equal(hintMatcher.words, hintWords) {
		t.Fatalf("hint words changed order or case: %q", hintMatcher.words)
	}
	const hex = "0123456789abcdef"
	for _, w := range hintWords {
		if strings.ContainsAny(w, "[]") || strings.Contains("redacted:", w) || strings.Trim(w, hex) == "" {
			t.Errorf("hint %q can be made by a token", w)
		}
		if i := strings.IndexByte(w, ':'); i >= 0 && strings.HasSuffix("redacted:", w[:i+1]) && strings.Trim(w[i+1:], hex) == "" {
			t.Errorf("hint %q can be made by a token", w)
		}
	}
	for i, w := range hintWords {
		if h := lineHints("x " + strings.ToUpper(w) + " y"); h&hintBits[i] == 0 {
			t.Errorf("lineHints misses %q", w)
		}
	}
	if h := lineHints("[REDACTED:0123abcd][REDACTED:deadbeef]"); h != 0 {
		t.Errorf("tokens make hints %b", h)
	}
}

// scanLine's single pass says what lineHints and mayLeak say apart.
func TestScanLineAgrees(t *testing.T) {
	if _, err := leakDetector(); err != nil {
		t.Fatal(err)
	}
	st := leakSc.newState()
	lines := strings.SplitAfter(string(genLog(1<<20, 3)), "\n")
	lines = append(lines, "password=hunter2-x9", "SK0123456789abcdef0123456789abcdef", "ghp_0123456789abcdefghijABCDEFGHIJ012345",
		"é api_key: Zx8d7f6g5h4j3k2l1q0w", "\u212aey=Zx8d7f6g5h4j3k2l1q0w", "ſecret: 'Zx8d7f6g5h4j3k2l1q0w'")
	for _, l := range lines {
		h, leak := leakSc.scanLine(l, st)
		if wh, wl := lineHints(l), leakSc.mayLeak(l, st); h != wh || leak != wl {
			t.Errorf("%q: scanLine %b %v, lineHints and mayLeak %b %v", l, h, leak, wh, wl)
		}
	}
}

// A line scanned as two halves loses no keyword at the seam.
func TestScanLineSeam(t *testing.T) {
	if _, err := leakDetector(); err != nil {
		t.Fatal(err)
	}
	st := leakSc.newState()
	longest := ""
	for _, w := range leakSc.m.words {
		if len(w) > len(longest) {
			longest = w
		}
	}
	for _, n := range []int{8 * leakSc.maxWord, 8*leakSc.maxWord + 1, 8*leakSc.maxWord + 2, 8*leakSc.maxWord + 3, 301} {
		for _, w := range []string{"password", "secure_compare", "sk", longest} {
			for at := 0; at+len(w) <= n; at++ {
				line := strings.Repeat("x", at) + w + strings.Repeat("y", n-at-len(w))
				h, leak := leakSc.scanLine(line, st)
				if wh, wl := lineHints(line), leakSc.mayLeak(line, st); h != wh || leak != wl {
					t.Fatalf("%q at %d of %d: scanLine %b %v, lineHints and mayLeak %b %v", w, at, n, h, leak, wh, wl)
				}
				if w == "password" && h&hintPassword == 0 {
					t.Fatalf("%q at %d of %d: not found", w, at, n)
				}
			}
		}
	}
}

// Every name the built-in classifier takes for a secret holds a secret
// hint, so a line whose hints have none holds no secret name: names made
// at random of secret words, their look-alikes and qualifiers, joined in
// every way names are written.
func TestSecretNamesHaveHints(t *testing.T) {
	parts := []string{"password", "passwd", "pass", "pw", "pwd", "passphrase", "passcode", "secret", "secrets", "token",
		"credential", "credentials", "creds", "cred", "api", "key", "apikey", "private", "access", "license", "master",
		"auth", "authorization", "oauth", "basic", "sas", "sig", "cookie", "dsn", "conn", "connection", "connector",
		"string", "str", "jaas", "requirepass", "masterauth", "ssl", "storage", "client", "db", "pg", "mysql", "root",
		"redis", "admin", "user", "name", "id", "file", "url", "kafka", "sasl", "tokenizer", "keyspace", "bypass", "x", "2"}
	seps := []string{"", "_", "-", ".", " "}
	rng := rand.New(rand.NewPCG(5, 6))
	secret := 0
	for range 200000 {
		n := 1 + rng.IntN(4)
		var b strings.Builder
		sep := seps[rng.IntN(len(seps))]
		upper := rng.IntN(3)
		for i := range n {
			p := parts[rng.IntN(len(parts))]
			if i > 0 {
				b.WriteString(sep)
			}
			switch {
			case upper == 0:
				p = strings.ToUpper(p)
			case upper == 1 && i > 0:
				p = strings.ToUpper(p[:1]) + p[1:]
			}
			b.WriteString(p)
		}
		name := b.String()
		if !looksSecret(name) {
			continue
		}
		secret++
		if lineHints(name)&secretHintMask == 0 {
			t.Fatalf("%q is a secret name and holds no secret hint", name)
		}
	}
	if secret < 1000 {
		t.Fatalf("only %d secret names made", secret)
	}
}

// The timestamps a line starts with are not scanned, and no word after them
// is lost: every word of the automaton, right after a stamp or after a
// stamp and a space, is found as a scan from the start finds it.
func TestScanLineAfterStamp(t *testing.T) {
	if _, err := leakDetector(); err != nil {
		t.Fatal(err)
	}
	if !leakSc.skipStamp {
		t.Fatal("a keyword is made of timestamp bytes: the stamp skip is off")
	}
	st := leakSc.newState()
	for _, w := range leakSc.both.words {
		for _, pre := range []string{"2026-11-29T20:41:07.123456789Z 2026-11-29T20:41:07.1+02:00  ", "2026-11-29T20:41:07Z", "1", ""} {
			for _, post := range []string{" x=1", strings.Repeat(" pad", 40)} {
				line := pre + strings.ToUpper(w[:1]) + w[1:] + post
				h, leak := leakSc.scanLine(line, st)
				if wh, wl := lineHints(line), leakSc.mayLeak(line, st); h != wh || leak != wl {
					t.Fatalf("%q: scanLine %b %v, lineHints and mayLeak %b %v", line, h, leak, wh, wl)
				}
			}
		}
	}
}
