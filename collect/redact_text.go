package collect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"unsafe"

	"github.com/rwdiag/rwdiag/bundle"
)

// Text redacts text: logs, describe output, the diagnose report, the
// await-tree dump, EXPLAIN output. It works line by line and replaces
//
//   - the password of URL userinfo: scheme://user:[REDACTED:…]@host;
//   - the value of an assignment whose key looks secret, in the shapes
//     password=…, "password": "…", 'properties.sasl.password' = '…',
//     s3.secret.key = '…' (WITH options of CREATE SOURCE/SINK/CONNECTION),
//     ?user=u&password=… (JDBC URLs), `RW_POSTGRES_PASSWORD:  …` (the
//     Environment: lines of kubectl describe, YAML, TOML);
//   - AWS access key ids (AKIA…, ASIA…), bearer tokens, and the body of PEM
//     private key blocks, also across lines;
//   - what the --redact-config Value patterns match.
//
// It returns the redacted text and how many values it replaced. path is the
// bundle path the text is for; it is not used to choose rules today.
func (r *Redactor) Text(path string, data []byte) ([]byte, int) {
	if r == nil {
		return data, 0
	}
	var out bytes.Buffer
	out.Grow(len(data))
	n, _ := r.TextStream(path, &out, bytes.NewReader(data))
	return out.Bytes(), n
}

// maxRedactLine is the most of one line redacted at once; a longer line is
// redacted whole all the same, in overlapping windows of this size (see
// redactLongLine).
const maxRedactLine = 1 << 20

// leakBatch is how much text (whole lines) gitleaks scans at once: large
// enough that its fixed cost per call vanishes, small enough to stay in
// cache.
const leakBatch = 64 << 10

// TextStream is Text for a stream: it copies src to dst redacted, line by
// line, holding at most a batch of lines and one window of a long line in
// memory, and returns how many values it replaced. A line of any length is
// redacted whole: no secret is cut in half.
func (r *Redactor) TextStream(path string, dst io.Writer, src io.Reader) (int, error) {
	if r == nil {
		_, err := io.Copy(dst, src)
		return 0, err
	}
	t := tally{}
	br := bufio.NewReaderSize(src, min(64<<10, r.lineCap))
	var st textState
	var line []byte
	batch := make([]byte, 0, leakBatch+4<<10)
	var leaks []span // the batch's lines gitleaks must see
	var gs *leakState
	if _, err := leakDetector(); err == nil {
		gs = leakSc.newState()
	}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var err error
		if len(leaks) == 0 {
			_, err = dst.Write(batch)
		} else {
			_, err = io.WriteString(dst, r.redactLeaksIn(string(batch), leaks, t))
		}
		batch, leaks = batch[:0], leaks[:0]
		return err
	}
	for {
		frag, err := br.ReadSlice('\n')
		whole := frag // the line, when it came in one piece
		if len(line) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			line = append(line, frag...)
			whole = line
		}
		if errors.Is(err, bufio.ErrBufferFull) && len(line) < r.lineCap {
			continue
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			// a line longer than lineCap: redact it in windows
			if werr := flush(); werr != nil {
				return r.commit(path, t), werr
			}
			rerr := r.redactLongLine(dst, br, line, &st, t)
			line = line[:0]
			if rerr == nil {
				continue
			}
			if rerr == io.EOF {
				return r.commit(path, t), nil
			}
			return r.commit(path, t), rerr
		}
		if len(whole) > 0 {
			// in is the reader's buffer (or line) seen as a string: it
			// and what redactLineHints returns are read only until the
			// line is copied into the batch, before the next read.
			in := unsafe.String(&whole[0], len(whole))
			// one pass finds the line's hints and tells whether gitleaks
			// may find something in it; when rwdiag's rules changed the
			// line, gitleaks' part is asked again of what they left
			var h uint64
			leak := false
			if gs != nil {
				h, leak = leakSc.scanLine(in, gs)
			} else {
				h = lineHints(in)
			}
			out := r.redactLineHints(in, h, &st, t)
			if out != in && gs != nil {
				leak = leakSc.mayLeak(out, gs)
			}
			if leak {
				leaks = append(leaks, span{len(batch), len(batch) + len(out)})
			}
			batch = append(batch, out...)
			line = line[:0]
			if len(batch) >= leakBatch {
				if werr := flush(); werr != nil {
					return r.commit(path, t), werr
				}
			}
		}
		if err == nil {
			continue
		}
		if werr := flush(); werr != nil {
			return r.commit(path, t), werr
		}
		if err == io.EOF {
			err = nil
		}
		return r.commit(path, t), err
	}
}

// redactLongLine redacts a line longer than lineCap, of which head is read,
// the rest to come from br up to its line feed, in windows of lineCap bytes
// that overlap by a quarter: a window is redacted whole, its first three
// quarters are written, moved back so that no replaced value is cut, and
// the rest starts the next window. A secret with its context (key,
// separator, quotes) shorter than the overlap lies whole in some window;
// one found before the cut whose context the next window lacks is still
// replaced there, as every value found in a window's overlap is replaced
// wherever it occurs in the next. It returns io.EOF when src ended with
// the line, another error when reading or writing failed.
func (r *Redactor) redactLongLine(dst io.Writer, br *bufio.Reader, head []byte, st *textState, t tally) error {
	window := string(head)
	var known []string // values found in the previous window's overlap
	overlap := max(r.lineCap/4, 1)
	for {
		// fill the window up to lineCap, or to the line's end
		var rerr error
		done := false
		for len(window) < r.lineCap && !done {
			frag, err := br.ReadSlice('\n')
			window += string(frag)
			switch {
			case err == nil:
				done = true
			case errors.Is(err, bufio.ErrBufferFull):
			default:
				rerr, done = err, true
			}
		}
		if !done && strings.HasSuffix(window, "\n") {
			done = true
		}
		// what the previous window found, its context now gone
		for _, v := range known {
			window = replaceAllOutsideTokens(window, v, func() string {
				t.add(ruleLongLine)
				return r.Token(v)
			})
		}
		known = known[:0]
		out := r.redactLeaks(r.redactLine(window, st, t), t)
		if done {
			if _, err := io.WriteString(dst, out); err != nil {
				return err
			}
			return rerr
		}
		cut := len(window) - overlap
		segs, ok := r.alignRedacted(window, out)
		if !ok {
			// cannot tell where values lie: write the window whole
			if _, err := io.WriteString(dst, out); err != nil {
				return err
			}
			window = ""
			continue
		}
		// a value reaching the window's end may be cut short there: cut
		// before it and its context, so the next window sees it whole
		for _, sg := range segs {
			if sg.value && sg.rawEnd >= len(strings.TrimRight(window, "\r\n"))-1 {
				cut = min(cut, max(0, sg.rawStart-overlap/4))
			}
		}
		outCut := -1
		for outCut < 0 {
			outCut = cutOffset(segs, cut)
			if outCut < 0 {
				cut = -outCut - 1 // inside a value: cut before it
				outCut = -1
				if cut == 0 {
					outCut = 0
				}
			}
		}
		for _, sg := range segs {
			if sg.value && sg.rawEnd > cut && !isToken(window[sg.rawStart:sg.rawEnd]) && sg.rawEnd < len(window)-1 {
				known = append(known, window[sg.rawStart:sg.rawEnd])
			}
		}
		if cut == 0 {
			// one value fills the window: write it all
			if _, err := io.WriteString(dst, out); err != nil {
				return err
			}
			window = ""
			continue
		}
		if _, err := io.WriteString(dst, out[:outCut]); err != nil {
			return err
		}
		window = window[cut:]
	}
}

// ruleLongLine counts a value replaced in a long line's window because an
// earlier window found it.
const ruleLongLine = "long-line-carry"

// alignSeg is a stretch of a redacted text and of the raw text it came
// from: the same bytes (value false), or a token and the value it replaced.
type alignSeg struct {
	rawStart, rawEnd int
	outStart, outEnd int
	value            bool
}

// alignRedacted matches out, the redaction of raw, back to raw: every
// token in out stands for a value of raw, found by its HMAC. ok is false
// when it cannot be done.
func (r *Redactor) alignRedacted(raw, out string) ([]alignSeg, bool) {
	var segs []alignSeg
	toks := tokenSpans(out)
	ri, oi := 0, 0
	for k, tk := range toks {
		lit := out[oi:tk[0]]
		if !strings.HasPrefix(raw[ri:], lit) {
			return nil, false
		}
		if len(lit) > 0 {
			segs = append(segs, alignSeg{ri, ri + len(lit), oi, tk[0], false})
		}
		ri += len(lit)
		tok := out[tk[0]:tk[1]]
		// the literal after the token: the value ends where it starts
		nextEnd := len(out)
		if k+1 < len(toks) {
			nextEnd = toks[k+1][0]
		}
		next := out[tk[1]:nextEnd]
		found := -1
		if k+1 == len(toks) {
			if e := len(raw) - len(next); e >= ri && strings.HasSuffix(raw, next) && r.Token(raw[ri:e]) == tok {
				found = e
			}
		}
		for off, tries := ri, 0; found < 0 && tries < 256; tries++ {
			i := strings.Index(raw[off:], next)
			if i < 0 {
				break
			}
			if e := off + i; e > ri && r.Token(raw[ri:e]) == tok {
				found = e
				break
			}
			off += i + 1
			if off > len(raw) {
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		segs = append(segs, alignSeg{ri, found, tk[0], tk[1], true})
		ri, oi = found, tk[1]
	}
	if raw[ri:] != out[oi:] {
		return nil, false
	}
	if ri < len(raw) {
		segs = append(segs, alignSeg{ri, len(raw), oi, len(out), false})
	}
	return segs, true
}

// cutOffset maps the raw offset cut to an offset of the redacted text, or,
// when cut falls inside a replaced value, returns -(value's raw start)-1.
func cutOffset(segs []alignSeg, cut int) int {
	for _, sg := range segs {
		if cut < sg.rawStart || cut >= sg.rawEnd {
			continue
		}
		if sg.value {
			if cut == sg.rawStart {
				return sg.outStart
			}
			return -sg.rawStart - 1
		}
		return sg.outStart + (cut - sg.rawStart)
	}
	if len(segs) > 0 {
		return segs[len(segs)-1].outEnd
	}
	return 0
}

// textString redacts a string that may hold several lines (a JSON string
// value, an SQL value) and counts into t.
func (r *Redactor) textString(s string, t tally) string {
	if !strings.Contains(s, "\n") {
		var st textState
		return r.redactLeaks(r.redactLine(s, &st, t), t)
	}
	var b strings.Builder
	var st textState
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		line := s
		if i >= 0 {
			line, s = s[:i+1], s[i+1:]
		} else {
			s = ""
		}
		b.WriteString(r.redactLine(line, &st, t))
	}
	return r.redactLeaks(b.String(), t)
}

// textLine redacts a one-line message (an error) and counts what it replaced
// in the run's report.
func (r *Redactor) textLine(s string) string {
	if r == nil {
		return s
	}
	t := tally{}
	out := r.textString(s, t)
	r.commit("", t)
	return out
}

// textState carries what a line leaves open for the next: a PEM block, a
// secret env name whose value comes on a later line.
type textState struct {
	inPEM     bool
	pairName  bool
	pairLines int
	flagLine  bool // the line was a secret flag alone (kubectl describe's Args:)

	asg []assignment // scratch for findAssignments
}

var (
	pemBeginRe  = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemEndRe    = regexp.MustCompile(`-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemInlineRe = regexp.MustCompile(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)(.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)`)
	pemBodyRe   = regexp.MustCompile(`^[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: .*|\[REDACTED:[0-9a-f]{8}\])?[ \t]*\r?\n?$`)
	userinfoRe  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@'"\\\[\]]*:([^\s?#'"\\]+)@[A-Za-z0-9\[]`)
	awsKeyIDRe  = regexp.MustCompile(`\b((?:AKIA|ASIA)[0-9A-Z]{16})\b`)
	bearerRe    = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`)
)

// redactLine redacts one line (with its line ending, if any).
func (r *Redactor) redactLine(line string, st *textState, t tally) string {
	return r.redactLineHints(line, lineHints(line), st, t)
}

// redactLineHints is redactLine when the line's hints are known.
func (r *Redactor) redactLineHints(line string, h uint64, st *textState, t tally) string {
	if st.inPEM {
		if loc := pemEndRe.FindStringIndex(line); loc != nil {
			st.inPEM = false
			return r.tokenCount(line[:loc[0]], rulePrivateKey, t) + line[loc[0]:loc[1]] + r.redactLine(line[loc[1]:], st, t)
		}
		if pemBodyRe.MatchString(line) {
			return r.tokenCount(line, rulePrivateKey, t)
		}
		// Not base64: the block was cut short; this line is ordinary text.
		st.inPEM = false
	}
	if h&hintBegin != 0 && strings.Contains(line, "-----BEGIN") {
		if pemInlineRe.MatchString(line) {
			line = replaceGroup(line, pemInlineRe, 3, func(v string) string {
				return r.tokenCount(v, rulePrivateKey, t)
			})
		} else if loc := pemBeginRe.FindStringIndex(line); loc != nil {
			st.inPEM = true
			return r.redactLine(line[:loc[0]], &textState{}, t) + line[loc[0]:loc[1]] + r.tokenCount(line[loc[1]:], rulePrivateKey, t)
		}
	}
	// --redact-config patterns first: what they catch is counted under
	// their names.
	for _, p := range r.values {
		group := 0
		if p.re.NumSubexp() > 0 {
			group = 1
		}
		line = replaceGroup(line, p.re, group, func(v string) string {
			if v == "" || isToken(v) {
				return v
			}
			t.add(p.name)
			return r.Token(v)
		})
	}
	line = r.redactFlagLines(line, st, t)
	if st.pairName || h&hintName != 0 {
		line = r.redactEnvPair(line, st, t)
	}
	if h&hintWebhook != 0 {
		line = r.redactWebhooks(line, t)
	}
	if h&hintURL != 0 && strings.Contains(line, "@") {
		line = replaceGroup(line, userinfoRe, 1, func(v string) string {
			// host:8080/path@x is a port and a path, not a password
			if i := strings.IndexByte(v, '/'); i >= 0 && allDigits(v[:i]) {
				return v
			}
			if isToken(v) {
				return v
			}
			t.add(ruleUserinfo)
			return r.Token(v)
		})
	}
	// a key that looks secret holds a hint, so a line without one has no
	// such assignment (unless a --redact-config key pattern names one)
	if (h&secretHintMask != 0 || len(r.keys) > 0) && strings.ContainsAny(line, "=:") {
		st.asg = findAssignments(line, st.asg[:0])
		line = r.redactAssignments(line, st.asg, t)
	}
	if h&secretHintMask != 0 {
		line = r.redactSQL(line, h, t)
		if strings.Contains(line, "-") {
			line = r.redactFlags(line, t)
		}
		if h&freeTextHintMask != 0 {
			line = r.redactFreeText(line, t)
		}
		if len(line) < 512 && strings.Count(strings.TrimSpace(line), " ") <= 8 {
			line = r.redactNameSpaceValue(line, t)
		}
	}
	if h&(hintAKIA|hintASIA) != 0 && (strings.Contains(line, "AKIA") || strings.Contains(line, "ASIA")) {
		line = replaceGroup(line, awsKeyIDRe, 1, func(v string) string {
			t.add(ruleAWSKeyID)
			return r.Token(v)
		})
	}
	if h&hintEarer != 0 {
		line = replaceGroup(line, bearerRe, 1, func(v string) string {
			t.add(ruleBearer)
			return r.Token(v)
		})
	}
	return line
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	for j := 0; j < len(prefix); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[j] {
			return false
		}
	}
	return true
}

// replaceGroup replaces capture group g (0: the whole match) of every match
// of re in s with f of it. Matches that overlap a token are left alone, so a
// pattern never redacts inside a token.
func replaceGroup(s string, re *regexp.Regexp, g int, f func(string) string) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	tokens := tokenSpans(s)
	var b strings.Builder
	last := 0
	for _, m := range matches {
		start, end := m[2*g], m[2*g+1]
		if start < 0 || start < last || overlaps(tokens, start, end) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(f(s[start:end]))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// tokenSpans returns the [start, end) of every token in s.
func tokenSpans(s string) [][2]int {
	var spans [][2]int
	for off := 0; ; {
		i := strings.Index(s[off:], tokenPrefix)
		if i < 0 {
			return spans
		}
		i += off
		if i+tokenLen <= len(s) && isToken(s[i:i+tokenLen]) {
			spans = append(spans, [2]int{i, i + tokenLen})
		}
		off = i + len(tokenPrefix)
	}
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}

// tokenCount is tokenKeepSpace, counting under rule when it replaced anything.
func (r *Redactor) tokenCount(s, rule string, t tally) string {
	out := r.tokenKeepSpace(s)
	if out != s {
		t.add(rule)
	}
	return out
}

// tokenKeepSpace replaces s with its token, keeping the white space (and
// line ending) around it; blank s and tokens stay as they are.
func (r *Redactor) tokenKeepSpace(s string) string {
	v := strings.TrimSpace(s)
	if v == "" || isToken(v) {
		return s
	}
	i := strings.Index(s, v)
	return s[:i] + r.Token(v) + s[i+len(v):]
}

// redactAssignments replaces the values of assignments whose key looks
// secret.
// as are line's assignments (findAssignments).
func (r *Redactor) redactAssignments(line string, as []assignment, t tally) string {
	var b strings.Builder
	last := 0 // line[:last] is written or consumed
	for _, a := range as {
		if a.start < last {
			continue // inside a value already replaced
		}
		key := line[a.keyStart:a.keyEnd]
		if len(r.keys) == 0 && lineHints(key)&secretHintMask == 0 {
			continue // cheap: most keys hold no hint of a secret
		}
		secret, rule := r.secretName(key)
		if !secret {
			continue
		}
		if rule == "" {
			rule = ruleAssignment
		}
		atLineStart := strings.TrimLeft(line[:a.start], " \t") == ""
		vs, ve, ok := assignmentValue(line, a.value, a.sep == ":" && atLineStart && !a.quoted)
		if !ok {
			continue
		}
		v := line[vs:ve]
		if skipValue(v) || strings.EqualFold(v, "secret") || strings.Contains(v, tokenPrefix) {
			continue // password = SECRET my_secret: a reference, not the secret
		}
		b.WriteString(line[last:vs])
		if strings.HasSuffix(a.quote, `"`) && vs == a.value && !strings.HasSuffix(line[:vs], `"`) {
			// {"password": 5555123456789}: a JSON number becomes a JSON
			// string, so the document stays JSON
			b.WriteString(a.quote + r.Token(v) + a.quote)
		} else {
			b.WriteString(r.Token(v))
		}
		t.add(rule)
		last = ve
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// assignment is a key and its separator found in a line: key, 'key', "key"
// or \"key\" (inside a JSON string), then =, => or :, then the value.
type assignment struct {
	start            int // where the key starts, its opening quote included
	keyStart, keyEnd int
	quoted           bool
	quote            string // the key's closing quote: ', ", \" or \\\"
	sep              string
	value            int // where the value starts, after the separator and blanks
}

// findAssignments finds the assignments of a line, left to right, in one
// pass: each separator is walked back from to its key. It takes the place
// of a regular expression, which backtracked too much on long log lines.
// They are appended to out.
func findAssignments(line string, out []assignment) []assignment {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '=' && c != ':' {
			continue
		}
		sep := line[i : i+1]
		next := byte(0)
		if i+1 < len(line) {
			next = line[i+1]
		}
		prev := byte(0)
		if i > 0 {
			prev = line[i-1]
		}
		switch {
		case c == ':' && (next == ':' || prev == ':'):
			continue // a Rust path, risingwave_meta::barrier
		case c == ':' && next == '/' && i+2 < len(line) && line[i+2] == '/':
			continue // a URL's scheme
		case c == '=' && (prev == '=' || prev == '!' || prev == '<' || prev == '>' || next == '='):
			continue // a comparison
		case c == '=' && next == '>':
			sep = "=>"
		}
		// back over blanks, a closing quote, the key, its opening quote
		j := i - 1
		for j >= 0 && (line[j] == ' ' || line[j] == '\t') {
			j--
		}
		var quote string
		if j >= 0 && (line[j] == '"' || line[j] == '\'') {
			qe := j + 1
			j--
			if line[qe-1] == '"' {
				// \"key\" inside a JSON string, \\\"key\\\" inside one inside another
				for j >= 0 && line[j] == '\\' {
					j--
				}
			}
			quote = line[j+1 : qe]
		}
		keyEnd := j + 1
		for j >= 0 && isKeyByte(line[j]) {
			j--
		}
		keyStart := j + 1
		for keyStart < keyEnd && line[keyStart] == '-' {
			keyStart++ // --sql-password=X: the flag's name
		}
		if keyStart == keyEnd || !(isLetter(line[keyStart]) || line[keyStart] == '_') {
			continue
		}
		start := keyStart
		if quote != "" {
			if keyStart < len(quote) || line[keyStart-len(quote):keyStart] != quote {
				continue // "key' or key": not a quoted key
			}
			start -= len(quote)
		}
		v := i + len(sep)
		for v < len(line) && (line[v] == ' ' || line[v] == '\t') {
			v++
		}
		out = append(out, assignment{start: start, keyStart: keyStart, keyEnd: keyEnd, quoted: quote != "", quote: quote, sep: sep, value: v})
		i = v - 1
	}
	return out
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// assignmentValue finds the value that starts at i: a quoted string
// (single-quoted with the quote doubled inside, double-quoted with \" inside,
// or \"…\" inside a JSON string),
// the rest of the line when restOfLine (a `NAME: value` line), or a bare
// word. It returns the value's bounds, without quotes.
func assignmentValue(s string, i int, restOfLine bool) (int, int, bool) {
	if i >= len(s) {
		return 0, 0, false
	}
	switch {
	case s[i] == '\'':
		for j := i + 1; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					j++
					continue
				}
				return i + 1, j, j > i+1
			}
		}
		return i + 1, len(strings.TrimRight(s, "\r\n")), true
	case s[i] == '\\':
		// \"value\" inside a JSON string, \\\"value\\\" one level deeper
		k := i
		for k < len(s) && s[k] == '\\' {
			k++
		}
		if k >= len(s) || s[k] != '"' {
			break
		}
		closing := s[i : k+1]
		end := strings.Index(s[k+1:], closing)
		if end < 0 {
			return 0, 0, false
		}
		return k + 1, k + 1 + end, end > 0
	case s[i] == '"':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				return i + 1, j, j > i+1
			}
		}
		return i + 1, len(strings.TrimRight(s, "\r\n")), true
	case s[i] == '[' && i+1 < len(s) && !strings.ContainsRune(`"'{[]`, rune(s[i+1])) && !strings.HasPrefix(s[i:], tokenPrefix):
		// a Go map's []string: map[Authorization:[Basic dXNlcjpwYXNz]]
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			return 0, 0, false
		}
		vs, ve := i+1, i+end
		if sp := strings.IndexByte(s[vs:ve], ' '); sp > 0 && authSchemes[strings.ToLower(s[vs:vs+sp])] {
			vs += sp + 1
		}
		return vs, ve, ve > vs
	case s[i] == '{' || s[i] == '[':
		return 0, 0, false // a nested structure: the JSON rules handle it
	}
	end := len(strings.TrimRight(s, "\r\n"))
	if restOfLine {
		v := strings.TrimRight(s[i:end], " \t")
		return i, i + len(v), len(v) > 0
	}
	j := bareEnd(s, i, end)
	// Authorization: Bearer <credential>, Basic <credential>: keep the
	// scheme, redact the credential.
	if j < end && s[j] == ' ' && authSchemes[strings.ToLower(s[i:j])] {
		k := j
		for k < end && s[k] == ' ' {
			k++
		}
		if e := bareEnd(s, k, end); e > k {
			return k, e, true
		}
	}
	return i, j, j > i
}

var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true, "negotiate": true}

// bareEnd returns where an unquoted value starting at i ends: at white space
// or punctuation that ends a value in a log line, a URL or a WITH list. A
// token inside makes the whole value end there unredacted (it is redacted
// already), so the caller sees a value with a token and leaves it.
func bareEnd(s string, i, end int) int {
	j := i
	for j < end {
		if s[j] == '[' && strings.HasPrefix(s[j:], tokenPrefix) && j+tokenLen <= end && isToken(s[j:j+tokenLen]) {
			j += tokenLen
			continue
		}
		if strings.ContainsRune(" \t,;&'\"<>(){}[]\\", rune(s[j])) {
			break
		}
		j++
	}
	return j
}

// skipValue tells values that are not secrets although their key looks
// secret: placeholders, references and literals. A value that only starts
// like a reference ($, <, %) is a secret all the same: "$ecr3t!" is a
// password, "${DB_PASSWORD}" is not.
func skipValue(v string) bool {
	if isToken(v) {
		return true
	}
	switch strings.ToLower(v) {
	case "", "true", "false", "null", "none", "nil", "<none>", "''", `""`, "***", "******", "<redacted>", "redacted":
		return true
	}
	if (v[0] == '$' || v[0] == '%' || v[0] == '{') && referenceRe.MatchString(v) {
		return true // ${VAR}, $(VAR), $VAR, {{ .Values.pw }}, %s
	}
	if v[0] == '<' && placeholderRe.MatchString(v) {
		return true // <set to the key 'password' in secret 'pg'>, <none>
	}
	if l := strings.ToLower(v); strings.HasPrefix(l, "secret ") {
		return true // password: SECRET my_secret, a reference
	}
	if strings.Trim(v, "*•") == "" {
		return true // a mask
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String redacts one string of the manifest: field names it
// ("files.source", "incomplete_reason", "errors.target", "errors.message",
// "files.error") for the caller's sake; every field gets the Text rules, a
// multi-line string line by line. What it replaces is counted under
// manifest.json in the report.
func (r *Redactor) String(field, s string) string {
	if r == nil || s == "" {
		return s
	}
	t := tally{}
	out := r.textString(s, t)
	r.commit(bundle.ManifestPath, t)
	return out
}
