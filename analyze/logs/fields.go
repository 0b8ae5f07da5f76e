package logs

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field is one structured field of an event: "actor_id=7" in the text
// format, "actor: 7" in the pretty one, "actor_id":7 in a JSON line's
// "fields". Value is the field's text: a quoted string unquoted, a JSON
// number or other non-string JSON value as written.
type Field struct{ Key, Value string }

// Span is one span of an event's span chain ("actor{actor_id=7}").
type Span struct {
	Name   string
	Fields []Field
}

// fieldSyntax is how a format writes fields: tracing-subscriber's default
// fields (" k=v", the "full" format and span fields in it) or its pretty
// fields (", k: v").
type fieldSyntax struct {
	sep string // before a field
	kv  string // between key and value
}

var (
	textFields   = fieldSyntax{sep: " ", kv: "="}
	prettyFields = fieldSyntax{sep: ", ", kv: ": "}
)

// maxFieldCandidates bounds the " k=" candidates of a line that are
// weighed, so that a line of thousands of "=" costs little.
const maxFieldCandidates = 128

// freeTextKey reports whether a field's value may be free text with
// spaces that runs on to the next field: an error report, a SQL text, a
// reason. Other values are one token, a quoted string or a bracketed
// Debug value, so a " k=" after a token that is followed by more words is
// part of the message or of a free-text value, not a field
// ("Delivery future buffer size=65536. Await and retry #0" is a message;
// "error=Sink error: sink_id=5, error: ..." one error).
func freeTextKey(k string) bool {
	switch k {
	case "error", "err", "e", "reason", "cause", "msg", "message", "sql", "query", "statement", "stmt",
		"backtrace", "detail", "details", "description", "error.sources":
		return true
	}
	return strings.HasSuffix(k, "error") || strings.HasSuffix(k, "_err") || strings.HasSuffix(k, "_msg") || strings.HasSuffix(k, "_reason")
}

func isKeyStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isKeyByte(c byte) bool  { return isIdentByte(c) || c == '.' || c == '#' }

// fieldCand is a place where a field may start: its key at s[k:eq], its
// value at s[v:].
type fieldCand struct {
	k, eq, v int
	// Filled in by weighing: whether a field really starts here, where its
	// value ends, an unnamed value after it (a second "message", printed
	// without its name) and the next field (an index into the candidates;
	// -1: none).
	ok             bool
	end            int
	unnamedAt, unE int
	next           int
}

// fieldCands finds the candidates in s: a key of field-name shape
// preceded by syn.sep (or at s[0] when atStart) and followed by syn.kv.
func fieldCands(dst []fieldCand, s string, syn fieldSyntax, atStart bool) []fieldCand {
	kv0 := syn.kv[0]
	for i := 0; i < len(s) && len(dst) < maxFieldCandidates; {
		j := strings.IndexByte(s[i:], kv0)
		if j < 0 {
			break
		}
		eq := i + j
		i = eq + 1
		if !strings.HasPrefix(s[eq:], syn.kv) {
			continue
		}
		k := eq
		for k > 0 && isKeyByte(s[k-1]) {
			k--
		}
		if k == eq || !isKeyStart(s[k]) {
			continue
		}
		if k == 0 && !atStart || k > 0 && !strings.HasSuffix(s[:k], syn.sep) {
			continue
		}
		dst = append(dst, fieldCand{k: k, eq: eq, v: eq + len(syn.kv), next: -1})
	}
	return dst
}

// weighFields decides which candidates start fields, last first, since a
// field is one when what follows its value is the end or another field.
// It returns the index of the first field, or -1.
func weighFields(s string, cs []fieldCand, syn fieldSyntax) int {
	first := -1
	// nextOK is the first candidate at or after an offset that is a field.
	nextOK := func(from, after int) int {
		for i := from; i < len(cs); i++ {
			if cs[i].ok && cs[i].k-len(syn.sep) >= after {
				return i
			}
		}
		return -1
	}
	for i := len(cs) - 1; i >= 0; i-- {
		c := &cs[i]
		e := valueEnd(s, c.v, syn)
		c.end = e
		switch {
		case e == len(s):
			c.ok = true
		case e < len(s) && strings.HasPrefix(s[e:], syn.sep) && candAt(cs, i+1, e+len(syn.sep)):
			c.ok, c.next = true, candIndex(cs, i+1, e+len(syn.sep))
		case freeTextKey(s[c.k:c.eq]):
			c.ok = true
			if n := nextOK(i+1, e); n >= 0 {
				c.end, c.next = cs[n].k-len(syn.sep), n
			} else {
				c.end = len(s)
			}
		case e > c.v && strings.HasPrefix(s[e:], syn.sep) && strings.IndexByte(")]}\"", s[e-1]) >= 0:
			// "failed_actor=Some(7) recv actor failure err=...": a Debug
			// value, then a second message printed without its name.
			if n := nextOK(i+1, e+len(syn.sep)+1); n >= 0 {
				c.ok, c.next = true, n
				c.unnamedAt, c.unE = e+len(syn.sep), cs[n].k-len(syn.sep)
			}
		}
		if c.ok && (first < 0 || c.k < cs[first].k) {
			first = i
		}
	}
	// The first field is the first candidate that is one; what comes
	// before it is the message.
	for i := range cs {
		if cs[i].ok {
			return i
		}
	}
	return first
}

func candAt(cs []fieldCand, from, k int) bool { return candIndex(cs, from, k) >= 0 }

// candIndex is the index of the candidate whose key starts at k and that
// is a field, or -1.
func candIndex(cs []fieldCand, from, k int) int {
	for i := from; i < len(cs) && cs[i].k <= k; i++ {
		if cs[i].k == k && cs[i].ok {
			return i
		}
	}
	return -1
}

// valueEnd returns where a value starting at s[v] ends when it is one
// token: a quoted string, or bytes up to the separator outside brackets
// and quotes, with a Debug struct's " { .. }" after a name ("WorkerNode {
// id: 2 }") taken in.
func valueEnd(s string, v int, syn fieldSyntax) int {
	stop := syn.sep[0]
	if v < len(s) && s[v] == '"' {
		if e := quotedEnd(s, v); e > 0 {
			return e
		}
	}
	depth, i := 0, v
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			if e := quotedEnd(s, i); e > 0 {
				i = e
				continue
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == stop && depth == 0:
			if strings.HasPrefix(s[i:], " {") && isIdentToken(s[v:i]) {
				if e := SkipBraces(s[i+1:], 0); e > 0 {
					i += 1 + e
					continue
				}
			}
			return i
		}
		i++
	}
	return len(s)
}

func isIdentToken(s string) bool {
	if s == "" || !isKeyStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) && s[i] != ':' {
			return false
		}
	}
	return true
}

// quotedEnd returns the offset after the quoted string that starts at
// s[i], or 0 when it does not close.
func quotedEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return 0
}

// splitFields splits text into the message and the fields after it.
func splitFields(s string, syn fieldSyntax) (message string, fields []Field) {
	var buf [16]fieldCand
	cs := fieldCands(buf[:0], s, syn, false)
	first := weighFields(s, cs, syn)
	if first < 0 {
		return s, nil
	}
	return s[:cs[first].k-len(syn.sep)], collectFields(s, cs, first, syn, nil)
}

// messageEnd is where the message of s ends: before its first field.
func messageEnd(s string, syn fieldSyntax) int {
	if !strings.Contains(s, syn.kv) {
		return len(s)
	}
	var buf [16]fieldCand
	cs := fieldCands(buf[:0], s, syn, false)
	if first := weighFields(s, cs, syn); first >= 0 {
		return cs[first].k - len(syn.sep)
	}
	return len(s)
}

// parseFieldList reads a list that starts with a field: a span's fields.
func parseFieldList(s string, syn fieldSyntax) []Field {
	var buf [16]fieldCand
	cs := fieldCands(buf[:0], s, syn, true)
	first := weighFields(s, cs, syn)
	if first < 0 {
		return nil
	}
	return collectFields(s, cs, first, syn, nil)
}

func collectFields(s string, cs []fieldCand, i int, syn fieldSyntax, dst []Field) []Field {
	for i >= 0 {
		c := cs[i]
		dst = append(dst, Field{Key: strings.TrimPrefix(s[c.k:c.eq], "r#"), Value: fieldValue(s[c.v:c.end])})
		if c.unE > c.unnamedAt {
			dst = append(dst, Field{Key: "message", Value: s[c.unnamedAt:c.unE]})
		}
		i = c.next
	}
	return dst
}

// fieldValue unquotes a value printed as a Rust Debug string.
func fieldValue(v string) string {
	if len(v) < 2 || v[0] != '"' || quotedEnd(v, 0) != len(v) {
		return v
	}
	return unquoteDebug(v[1 : len(v)-1])
}

// unquoteDebug undoes Rust's Debug escaping of a string's inside.
func unquoteDebug(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'u':
			if i+1 < len(s) && s[i+1] == '{' {
				if j := strings.IndexByte(s[i:], '}'); j > 0 {
					if r, err := strconv.ParseUint(s[i+2:i+j], 16, 32); err == nil && utf8.ValidRune(rune(r)) {
						b.WriteRune(rune(r))
						i += j
						continue
					}
				}
			}
			b.WriteString(`\u`)
		default:
			b.WriteByte(s[i]) // \" \\ \'
		}
	}
	return b.String()
}

// parseSpans reads a text-format span chain, "a{k=v}:b:c{k=v}".
func parseSpans(s string) []Span {
	var out []Span
	for s != "" {
		i := 0
		for i < len(s) && s[i] != '{' && s[i] != ':' {
			i++
		}
		sp := Span{Name: s[:i]}
		if i < len(s) && s[i] == '{' {
			e := SkipBraces(s, i)
			if e < 0 {
				e = len(s)
			}
			inner := s[i+1 : max(e-1, i+1)]
			sp.Fields = parseFieldList(inner, textFields)
			i = e
		}
		out = append(out, sp)
		s = strings.TrimPrefix(s[min(i, len(s)):], ":")
	}
	return out
}

// Fields returns the event's fields after its message, in the order they
// are printed. A second "message" field, which the text format prints
// without its name, is a Field named "message". A text line is split by
// the shapes values have (see freeTextKey); that is a guess where a
// message itself holds " k=v" or, in the pretty format, ", k: v".
func (l Line) Fields() []Field {
	if l.evFields != nil || l.form == formEvent {
		return l.evFields
	}
	switch l.form {
	case formJSON:
		return jsonEventFields(l.jsonRaw)
	case formText:
		return parseFieldList(l.fieldText, textFields)
	case formPretty:
		return parseFieldList(l.fieldText, prettyFields)
	}
	return nil
}

// Spans returns the event's span chain, outermost first.
func (l Line) Spans() []Span {
	if l.evSpans != nil || l.form == formEvent {
		return l.evSpans
	}
	switch l.form {
	case formJSON:
		return jsonEventSpans(l.jsonRaw)
	case formText:
		if l.spanText != "" {
			return parseSpans(l.spanText)
		}
	}
	return nil
}

// Field returns the value of the event's field key, or else of the
// innermost span's field key that has one.
func (l Line) Field(key string) (string, bool) {
	for _, f := range l.Fields() {
		if f.Key == key {
			return f.Value, true
		}
	}
	spans := l.Spans()
	for i := len(spans) - 1; i >= 0; i-- {
		for _, f := range spans[i].Fields {
			if f.Key == key {
				return f.Value, true
			}
		}
	}
	return "", false
}
