package collect

import (
	"regexp"
	"strings"
)

// Rule names of the text rules added for issue 11, as the report counts them.
const (
	ruleFlag       = "secret-flag"       // --password X, "--password", "X", --sql-password X
	ruleSQL        = "sql-password"      // CREATE/ALTER USER ... PASSWORD '...', CREATE SECRET ... AS '...'
	ruleFreeText   = "secret-free-text"  // "password is X", "with password X", "sasl password X"
	ruleEnvPair    = "env-secret-name"   // {"name": SECRET_NAME, "value": V} in text, and its YAML form
	ruleHeaderMap  = "secret-assignment" // map[Authorization:[Basic ...]] counts as an assignment
	ruleSecureComp = "sql-password"      // secure_compare(..., '<literal>') of a webhook source
	ruleWebhook    = "webhook-url"       // Discord and Teams webhook URLs
)

var (
	// PASSWORD '...' after CREATE USER / ALTER USER (WITH, ENCRYPTED or not).
	sqlPasswordRe = regexp.MustCompile(`(?i)\bPASSWORD\s+'((?:[^']|'')*)'`)
	// CREATE SECRET name [WITH (backend = 'meta')] AS '...', ALTER SECRET likewise.
	sqlSecretAsRe = regexp.MustCompile(`(?i)\bSECRET\s+[\w."]+\s+(?:WITH\s*\([^)]*\)\s*)?AS\s+'((?:[^']|'')*)'`)
	// VALIDATE AS secure_compare(headers->>'x-sig', '<literal secret>')
	secureCompareRe = regexp.MustCompile(`(?i)secure_compare\s*\([^)]*?,\s*'((?:[^']|'')*)'\s*\)`)
	// SET license_key TO '...' (ALTER SYSTEM SET, SET)
	sqlSetRe = regexp.MustCompile(`(?i)\bSET\s+([\w.]+)\s+(?:TO|=)\s+'((?:[^']|'')*)'`)
	// free text: "password is X", "with password X", "sasl password X",
	// "admin password for rw is X", "api key X"
	freeTextRe = regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|pwd|token|api[ _-]?key)(?:\s+(?:is|was|set to|(?:of|for)\s+\S+\s+is))?\s*:?\s+([^\s'"\x60]{6,})`)
	// {"name": "PGPASSWORD", "value": "..."} written out as text, also
	// with escaped quotes, and the YAML form "- name: PGPASSWORD" then
	// "value: ...".
	pairNameRe  = regexp.MustCompile(`\\*"name\\*"\s*:\s*\\*"([^"\\]*)\\*"`)
	pairValueRe = regexp.MustCompile(`(\\*)"value\\*"\s*:\s*\\*"((?:[^"\\]|\\[^"])*)\\*"`)
	yamlNameRe  = regexp.MustCompile(`^\s*(?:-\s+)?name:\s*["']?([\w.\-]+)["']?\s*$`)
	yamlValueRe = regexp.MustCompile(`^\s*value:\s*(.*?)\s*$`)
	// Discord and Microsoft Teams webhook URLs: the path is the credential
	webhookRe = regexp.MustCompile(`(?:discord(?:app)?\.com/api/webhooks/\d+/|\.webhook\.office\.com/webhookb2/)([\w@/-]{16,})`)
	// a config file's "NAME VALUE" line: redis.conf requirepass, masterauth
	nameSpaceValueRe = regexp.MustCompile(`^\s*([A-Za-z][\w.-]*)[ \t]+([^\s#;]+)\s*$`)
)

// redactSQL replaces the passwords and secrets SQL statements carry.
// h is the line's hints (lineHints).
func (r *Redactor) redactSQL(line string, h uint64, t tally) string {
	hasPw, hasSecret := h&hintPassword != 0, h&hintSecret != 0
	if hasPw {
		line = replaceGroup(line, sqlPasswordRe, 1, func(v string) string { return r.tokenIfSecret(v, ruleSQL, t) })
	}
	if hasSecret {
		line = replaceGroup(line, sqlSecretAsRe, 1, func(v string) string { return r.tokenIfSecret(v, ruleSQL, t) })
	}
	if h&hintSecureCompare != 0 {
		line = replaceGroup(line, secureCompareRe, 1, func(v string) string { return r.tokenIfSecret(v, ruleSecureComp, t) })
	}
	if (hasPw || hasSecret || h&hintLicense != 0) && h&hintSet != 0 {
		for _, m := range sqlSetRe.FindAllStringSubmatchIndex(line, -1) {
			if ok, _ := r.secretName(line[m[2]:m[3]]); ok {
				v := line[m[4]:m[5]]
				if out := r.tokenIfSecret(v, ruleSQL, t); out != v {
					line = line[:m[4]] + out + line[m[5]:]
					break // offsets moved; one per line is the real shape
				}
			}
		}
	}
	return line
}

// tokenIfSecret returns v's token, counted under rule, unless v is a
// placeholder or a reference.
func (r *Redactor) tokenIfSecret(v, rule string, t tally) string {
	if skipValue(v) || strings.Contains(v, tokenPrefix) {
		return v
	}
	t.add(rule)
	return r.Token(v)
}

// redactWebhooks replaces the credential part of webhook URLs that gitleaks
// has no rule for (Slack's it has).
func (r *Redactor) redactWebhooks(line string, t tally) string {
	if !strings.Contains(line, "webhook") {
		return line
	}
	return replaceGroup(line, webhookRe, 1, func(v string) string { return r.tokenIfSecret(v, ruleWebhook, t) })
}

// redactFreeText replaces what follows password, token, passphrase or api
// key in prose, when it looks like a secret (letters and digits, or
// symbols) rather than a word ("password authentication failed").
func (r *Redactor) redactFreeText(line string, t tally) string {
	return replaceGroup(line, freeTextRe, 1, func(v string) string {
		v2 := strings.TrimRight(v, ".,;)]}>")
		if !secretLikeWord(v2) || skipValue(v2) || strings.Contains(v2, tokenPrefix) {
			return v
		}
		t.add(ruleFreeText)
		return r.Token(v2) + v[len(v2):]
	})
}

// secretLikeWord tells a secret from a word: it holds a digit and a
// letter, or a symbol, and is not a path, a URL or an assignment.
func secretLikeWord(v string) bool {
	if len(v) < 6 || strings.ContainsAny(v, "=") || strings.Contains(v, "://") || strings.HasPrefix(v, "/") {
		return false
	}
	var letter, digit, symbol bool
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		case '0' <= c && c <= '9':
			digit = true
		case c == '-' || c == '_' || c == '.':
		default:
			symbol = true
		}
	}
	return letter && (digit || symbol)
}

// redactFlags replaces the value of a command-line flag whose name looks
// secret when the value is a separate argument: --password X, -password X,
// and "--password", "X" in a JSON or Go list. (--password=X is an
// assignment.)
func (r *Redactor) redactFlags(line string, t tally) string {
	var b strings.Builder
	last := 0
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '-' || (i > 0 && !strings.ContainsRune(" \t\"'[,(", rune(line[i-1]))) {
			continue
		}
		j := i + 1
		if line[j] == '-' {
			j++
		}
		ns := j
		for j < len(line) && isKeyByte(line[j]) {
			j++
		}
		name := line[ns:j]
		if len(name) < 2 || !isLetter(name[0]) {
			i = j
			continue
		}
		if ok, _ := r.secretName(name); !ok {
			i = j
			continue
		}
		// the separator: a closing quote, a comma, blanks, an opening quote
		k := j
		var quote byte
		if i > 0 && (line[i-1] == '"' || line[i-1] == '\'') {
			quote = line[i-1]
			if k >= len(line) || line[k] != quote {
				i = j
				continue
			}
			k++
		}
		sepStart := k
		if k < len(line) && line[k] == ',' {
			k++
		}
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		if k == sepStart || k >= len(line) {
			i = j
			continue
		}
		vs := k
		var ve int
		if line[k] == '"' || line[k] == '\'' {
			q := line[k]
			vs = k + 1
			e := strings.IndexByte(line[vs:], q)
			if e < 0 {
				i = j
				continue
			}
			ve = vs + e
		} else {
			ve = bareEnd(line, vs, len(strings.TrimRight(line, "\r\n")))
		}
		v := line[vs:ve]
		if v == "" || v[0] == '-' || skipValue(v) || strings.Contains(v, tokenPrefix) {
			i = j
			continue
		}
		b.WriteString(line[last:vs])
		b.WriteString(r.Token(v))
		t.add(ruleFlag)
		last = ve
		i = ve
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// redactEnvPair replaces the value of a {"name": N, "value": V} pair whose
// name looks secret, written as text (a pods.json cut short, a log line),
// on one line or with "value" on a later line; and the YAML form. st
// carries a secret name seen on an earlier line.
func (r *Redactor) redactEnvPair(line string, st *textState, t tally) string {
	if !st.pairName && !strings.Contains(line, "name") {
		return line
	}
	if !st.pairName && !strings.Contains(line, `name"`) && !strings.Contains(line, `name\"`) && !strings.Contains(line, "name:") {
		return line
	}
	if name, ok := quotedName(line); ok && !strings.Contains(name, " ") {
		secret, _ := r.secretName(name)
		st.pairName = secret
	} else if m := pairNameRe.FindStringSubmatch(line); m != nil {
		ok, _ := r.secretName(m[1])
		st.pairName = ok
	} else if m := yamlNameRe.FindStringSubmatch(line); strings.Contains(line, "name:") && m != nil {
		ok, _ := r.secretName(m[1])
		st.pairName = ok
		st.pairLines = 0
		return line
	}
	if !st.pairName {
		return line
	}
	if loc := pairValueRe.FindStringSubmatchIndex(line); loc != nil {
		st.pairName = false
		v := line[loc[4]:loc[5]]
		if skipValue(v) || strings.Contains(v, tokenPrefix) {
			return line
		}
		t.add(ruleEnvPair)
		return line[:loc[4]] + r.Token(v) + line[loc[5]:]
	}
	if m := yamlValueRe.FindStringSubmatchIndex(line); m != nil {
		st.pairName = false
		vs, ve := m[2], m[3]
		if ve-vs >= 2 && (line[vs] == '"' || line[vs] == '\'') && line[ve-1] == line[vs] {
			vs, ve = vs+1, ve-1
		}
		v := line[vs:ve]
		if skipValue(v) || strings.Contains(v, tokenPrefix) {
			return line
		}
		t.add(ruleEnvPair)
		return line[:vs] + r.Token(v) + line[ve:]
	}
	// the value comes within a few lines of its name, or not at all
	if st.pairLines++; st.pairLines > 3 {
		st.pairName = false
		st.pairLines = 0
	}
	return line
}

// referenceRe is a value that only refers to a secret kept elsewhere:
// ${VAR} and $(VAR) (shell, Kubernetes env expansion), $VAR in capitals,
// {{ .Values.x }} (Helm), %s and %(name)s (printf templates).
var referenceRe = regexp.MustCompile(`^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$\([A-Za-z_][A-Za-z0-9_]*\)|\$[A-Z_][A-Z0-9_]*|\{\{[^{}]*\}\}|%[sdvq]|%\([A-Za-z_][A-Za-z0-9_]*\)s)$`)

// placeholderRe is a value in angle brackets that holds no secret:
// kubectl describe's "<set to the key 'password' in secret 'pg'>" and
// "<set to the key 'k' of config map 'c'>", "<none>", "<redacted>",
// "<your-password>".
var placeholderRe = regexp.MustCompile(`^(?:<set to the key '[^']*' (?:in secret|of config map) '[^']*'>(?:\s.*)?|<[A-Za-z][A-Za-z _-]*>)$`)

// redactNameSpaceValue replaces VALUE in a whole line "NAME VALUE" whose
// name looks secret, the shape of redis.conf (requirepass, masterauth) and
// other space-separated configuration files.
func (r *Redactor) redactNameSpaceValue(line string, t tally) string {
	m := nameSpaceValueRe.FindStringSubmatchIndex(line)
	if m == nil {
		return line
	}
	if ok, _ := r.secretName(line[m[2]:m[3]]); !ok {
		return line
	}
	v := line[m[4]:m[5]]
	if skipValue(v) || strings.Contains(v, tokenPrefix) {
		return line
	}
	t.add(ruleAssignment)
	return line[:m[4]] + r.Token(v) + line[m[5]:]
}

// quotedName finds `"name": "X"` (quotes possibly escaped) in line without
// a regular expression and returns X.
func quotedName(line string) (string, bool) {
	for off := 0; ; {
		i := strings.Index(line[off:], "name")
		if i < 0 {
			return "", false
		}
		j := off + i + 4
		off = j
		for j < len(line) && line[j] == '\\' {
			j++
		}
		if j >= len(line) || line[j] != '"' {
			continue
		}
		j++
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j >= len(line) || line[j] != ':' {
			continue
		}
		j++
		for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\\') {
			j++
		}
		if j >= len(line) || line[j] != '"' {
			continue
		}
		j++
		e := strings.IndexAny(line[j:], `"\`)
		if e < 0 {
			return "", false
		}
		return line[j : j+e], true
	}
}

// redactFlagLines handles kubectl describe's Args: and Command: blocks,
// one argument a line: a line that is a secret flag alone ("--password")
// makes the next line, its value, redacted whole.
func (r *Redactor) redactFlagLines(line string, st *textState, t tally) string {
	v := strings.TrimSpace(line)
	if st.flagLine {
		st.flagLine = false
		if v != "" && v[0] != '-' && !strings.Contains(v, " ") && !skipValue(v) && !strings.Contains(v, tokenPrefix) {
			t.add(ruleFlag)
			return r.tokenKeepSpace(line)
		}
	}
	if len(v) > 2 && v[0] == '-' && len(v) < 64 && !strings.ContainsAny(v, " =\t") {
		name := strings.TrimLeft(v, "-")
		if len(v)-len(name) <= 2 && len(name) > 1 && isLetter(name[0]) {
			ok, _ := r.secretName(name)
			st.flagLine = ok
		}
	}
	return line
}
