package collect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"

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

// maxRedactLine is the longest line TextStream redacts at once; a longer
// line is redacted in pieces of this size.
const maxRedactLine = 1 << 20

// TextStream is Text for a stream: it copies src to dst redacted, line by
// line, without holding more than a line in memory, and returns how many
// values it replaced.
func (r *Redactor) TextStream(path string, dst io.Writer, src io.Reader) (int, error) {
	if r == nil {
		_, err := io.Copy(dst, src)
		return 0, err
	}
	t := tally{}
	br := bufio.NewReaderSize(src, 64<<10)
	var st textState
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) && len(line) < maxRedactLine {
			continue
		}
		if len(line) > 0 {
			if _, werr := io.WriteString(dst, r.redactLine(string(line), &st, t)); werr != nil {
				return r.commit(path, t), werr
			}
			line = line[:0]
		}
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			err = nil
		}
		return r.commit(path, t), err
	}
}

// textString redacts a string that may hold several lines (a JSON string
// value, an SQL value) and counts into t.
func (r *Redactor) textString(s string, t tally) string {
	if !strings.Contains(s, "\n") {
		var st textState
		return r.redactLine(s, &st, t)
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
	return b.String()
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

// textState carries what a line leaves open for the next: a PEM block.
type textState struct {
	inPEM bool
}

var (
	pemBeginRe  = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemEndRe    = regexp.MustCompile(`-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemInlineRe = regexp.MustCompile(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)(.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)`)
	pemBodyRe   = regexp.MustCompile(`^[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: .*|\[REDACTED:[0-9a-f]{8}\])?[ \t]*\r?\n?$`)
	userinfoRe  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@'"\\\[\]]*:([^\s/?#'"\\]+)@`)
	awsKeyIDRe  = regexp.MustCompile(`\b((?:AKIA|ASIA)[0-9A-Z]{16})\b`)
	bearerRe    = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`)
)

// redactLine redacts one line (with its line ending, if any).
func (r *Redactor) redactLine(line string, st *textState, t tally) string {
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
	if strings.Contains(line, "-----BEGIN") {
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
	if strings.ContainsAny(line, "=:") {
		line = r.redactAssignments(line, t)
	}
	if strings.Contains(line, "://") && strings.Contains(line, "@") {
		line = replaceGroup(line, userinfoRe, 1, func(v string) string {
			t.add(ruleUserinfo)
			return r.Token(v)
		})
	}
	if strings.Contains(line, "AKIA") || strings.Contains(line, "ASIA") {
		line = replaceGroup(line, awsKeyIDRe, 1, func(v string) string {
			t.add(ruleAWSKeyID)
			return r.Token(v)
		})
	}
	if strings.Contains(line, "earer") || strings.Contains(line, "EARER") {
		line = replaceGroup(line, bearerRe, 1, func(v string) string {
			t.add(ruleBearer)
			return r.Token(v)
		})
	}
	return line
}

// secretHints are the lower-case fragments that every built-in secret name
// holds; a line with none of them has no secret assignment to look for.
var secretHints = []string{"pass", "pwd", "secret", "token", "cred", "key", "auth", "sas", "cookie", "dsn", "conn"}

func hasSecretHint(line string) bool {
	for _, h := range secretHints {
		if containsFold(line, h) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII needle,
// ignoring ASCII case, without allocating.
func containsFold(s, needle string) bool {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
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
func (r *Redactor) redactAssignments(line string, t tally) string {
	var b strings.Builder
	last := 0 // line[:last] is written or consumed
	for _, a := range findAssignments(line) {
		if a.start < last {
			continue // inside a value already replaced
		}
		key := line[a.keyStart:a.keyEnd]
		if len(r.keys) == 0 && !hasSecretHint(key) {
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
		b.WriteString(r.Token(v))
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
	sep              string
	value            int // where the value starts, after the separator and blanks
}

// findAssignments finds the assignments of a line, left to right, in one
// pass: each separator is walked back from to its key. It takes the place
// of a regular expression, which backtracked too much on long log lines.
func findAssignments(line string) []assignment {
	var out []assignment
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
			quote = line[j : j+1]
			j--
			if quote == `"` && j >= 0 && line[j] == '\\' {
				quote = `\"`
				j--
			}
		}
		keyEnd := j + 1
		for j >= 0 && isKeyByte(line[j]) {
			j--
		}
		keyStart := j + 1
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
		out = append(out, assignment{start: start, keyStart: keyStart, keyEnd: keyEnd, quoted: quote != "", sep: sep, value: v})
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
	case strings.HasPrefix(s[i:], `\"`):
		end := strings.Index(s[i+2:], `\"`)
		if end < 0 {
			return 0, 0, false
		}
		return i + 2, i + 2 + end, end > 0
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
// secret: placeholders, references and literals.
func skipValue(v string) bool {
	if isToken(v) {
		return true
	}
	switch strings.ToLower(v) {
	case "", "true", "false", "null", "none", "nil", "<none>", "''", `""`, "***", "******", "<redacted>", "redacted":
		return true
	}
	if strings.HasPrefix(v, "<") || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") {
		return true // <set to the key 'password' in secret 'pg'>, ${VAR}, $(VAR), %s
	}
	if l := strings.ToLower(v); strings.HasPrefix(l, "secret ") {
		return true // password: SECRET my_secret, a reference
	}
	return false
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
