package collect

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
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
				return r.commit(t), werr
			}
			line = line[:0]
		}
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			err = nil
		}
		return r.commit(t), err
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

// textState carries what a line leaves open for the next: a PEM block.
type textState struct {
	inPEM bool
}

var (
	pemBeginRe  = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemEndRe    = regexp.MustCompile(`-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	pemInlineRe = regexp.MustCompile(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)(.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)`)
	userinfoRe  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@'"\\\[\]]*:([^\s/?#'"\\]+)@`)
	awsKeyIDRe  = regexp.MustCompile(`\b((?:AKIA|ASIA)[0-9A-Z]{16})\b`)
	bearerRe    = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`)
	// keySepRe finds a key and its separator; the value is parsed by hand
	// so that a key that is not secret leaves its value to be scanned (a
	// JDBC URL holding password=…).
	keySepRe = regexp.MustCompile(`(\\?["'])?([A-Za-z_][A-Za-z0-9_.\-]*)(\\?["'])?[ \t]*(=>|=|:)[ \t]*`)
)

// redactLine redacts one line (with its line ending, if any).
func (r *Redactor) redactLine(line string, st *textState, t tally) string {
	if st.inPEM {
		loc := pemEndRe.FindStringIndex(line)
		if loc == nil {
			return r.tokenKeepSpace(line)
		}
		st.inPEM = false
		return r.tokenKeepSpace(line[:loc[0]]) + line[loc[0]:loc[1]] + r.redactLine(line[loc[1]:], st, t)
	}
	if strings.Contains(line, "-----BEGIN") {
		if pemInlineRe.MatchString(line) {
			line = replaceGroup(line, pemInlineRe, 3, func(v string) string {
				if strings.TrimSpace(v) == "" {
					return v
				}
				t.add(rulePrivateKey)
				return r.tokenKeepSpace(v)
			})
		} else if loc := pemBeginRe.FindStringIndex(line); loc != nil {
			st.inPEM = true
			t.add(rulePrivateKey)
			return r.redactLine(line[:loc[0]], &textState{}, t) + line[loc[0]:loc[1]] + r.tokenKeepSpace(line[loc[1]:])
		}
	}
	if strings.Contains(line, "://") && strings.Contains(line, "@") {
		line = replaceGroup(line, userinfoRe, 1, func(v string) string {
			if isToken(v) {
				return v
			}
			t.add(ruleUserinfo)
			return r.Token(v)
		})
	}
	if len(r.keys) > 0 || hasSecretHint(line) {
		line = r.redactAssignments(line, t)
	}
	if strings.Contains(line, "AKIA") || strings.Contains(line, "ASIA") {
		line = replaceGroup(line, awsKeyIDRe, 1, func(v string) string {
			t.add(ruleAWSKeyID)
			return r.Token(v)
		})
	}
	if containsFold(line, "bearer") {
		line = replaceGroup(line, bearerRe, 1, func(v string) string {
			if isToken(v) {
				return v
			}
			t.add(ruleBearer)
			return r.Token(v)
		})
	}
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
	matches := keySepRe.FindAllStringSubmatchIndex(line, -1)
	if matches == nil {
		return line
	}
	var b strings.Builder
	last := 0 // line[:last] is written or consumed
	for _, m := range matches {
		if m[0] < last {
			continue // inside a value already replaced
		}
		openQ, closeQ := group(line, m, 1), group(line, m, 3)
		if openQ != closeQ {
			continue // "key' or key": not a key
		}
		keyStart := m[4]
		if keyStart > 0 && isKeyByte(line[keyStart-1]) {
			continue // the middle of a longer word, e.g. after a '-' run
		}
		key, sep := line[m[4]:m[5]], group(line, m, 4)
		secret, rule := r.secretName(key)
		if !secret {
			continue
		}
		if rule == "" {
			rule = ruleAssignment
		}
		vStart := m[1]
		atLineStart := strings.TrimLeft(line[:m[0]], " \t") == ""
		vs, ve, ok := assignmentValue(line, vStart, sep == ":" && atLineStart && openQ == "")
		if !ok {
			continue
		}
		v := line[vs:ve]
		if skipValue(v) || strings.EqualFold(v, "secret") {
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

func group(s string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// assignmentValue finds the value that starts at i: a quoted string
// ('…' with '' inside, "…" with \" inside, or \"…\" inside a JSON string),
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
	j := i
	for j < end && !strings.ContainsRune(" \t,;&'\"<>(){}[]\\", rune(s[j])) {
		j++
	}
	return i, j, j > i
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
