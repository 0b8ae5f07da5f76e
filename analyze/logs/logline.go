package logs

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// Line is one log line, normalised so that one regular expression matches
// RisingWave's text and JSON logs alike, with or without the timestamp prefix
// `kubectl logs --timestamps` adds.
type Line struct {
	// Text is what regular expressions see: the line without the kubectl
	// prefix. A JSON line is rendered as its text-format equivalent,
	// "<timestamp> <LEVEL> <spans>: <target>: <message> k=v ...", so that a
	// regular expression written against the text format matches both.
	Text string
	// Time is RisingWave's own timestamp when the line has one, else the
	// kubectl prefix's, else zero.
	Time time.Time
	// Level is "TRACE", "DEBUG", "INFO", "WARN", "ERROR" or "".
	Level string
	// Target is the tracing target ("risingwave_stream::task::barrier_manager"),
	// or a Java connector line's class; "" when the line names none.
	Target string
	// Message is the message part; the whole text when the line has no
	// recognisable structure (continuation lines, Memory outline blocks).
	Message string
	// JSON is true for a line in RisingWave's JSON log format.
	JSON bool
}

// Log levels, lowest first. levelNone is a line that states none.
const (
	levelNone = iota
	levelTrace
	levelDebug
	levelInfo
	levelWarn
	levelError
)

var levelNames = [...]string{levelNone: "", levelTrace: "TRACE", levelDebug: "DEBUG", levelInfo: "INFO", levelWarn: "WARN", levelError: "ERROR"}

// ParseLevel maps a level name (any case) to its rank, lowest first, and ""
// or an unknown name to 0, a line that states no level.
func ParseLevel(s string) int {
	switch strings.ToUpper(s) {
	case "TRACE":
		return levelTrace
	case "DEBUG":
		return levelDebug
	case "INFO":
		return levelInfo
	case "WARN", "WARNING":
		return levelWarn
	case "ERROR", "FATAL":
		return levelError
	}
	return levelNone
}

// LevelName is the name of a level's rank (ParseLevel's result): "TRACE",
// "DEBUG", "INFO", "WARN", "ERROR", or "" for a line that states none.
func LevelName(rank int) string {
	if rank < 0 || rank >= len(levelNames) {
		return ""
	}
	return levelNames[rank]
}

// LineLevel is the rank of the level a raw line states (its text head, or
// a JSON line's "level" field), without parsing the rest of the line.
func LineLevel(raw []byte) int {
	h := scanHead(raw)
	if h.json {
		return ParseLevel(gjson.GetBytes(raw[h.body:], "level").String())
	}
	return h.level
}

// EntryText is a parsed line as a timeline shows it: without the
// timestamps and the level (of rank level), which an entry has as fields,
// and cut to the length of a row's "text".
func EntryText(ll Line, level int) string {
	b := []byte(ll.Text)
	if n := rfc3339Len(b); n > 0 {
		b = b[n:]
	} else if n := log4jTimeLen(b); n > 0 {
		b = b[n:]
	}
	s := strings.TrimLeft(string(b), " ")
	if w := levelNames[level]; w != "" && strings.HasPrefix(s, w+" ") {
		s = strings.TrimLeft(s[len(w):], " ")
	}
	return evidence.CutUTF8(s, maxLogTextBytes)
}

// levelWord recognises an upper-case level word at the start of b, as text
// and log4j lines print it. It returns the level and the word's length.
func levelWord(b []byte) (int, int) {
	if len(b) < 4 {
		return levelNone, 0
	}
	switch b[0] {
	case 'I':
		if bytes.HasPrefix(b, []byte("INFO")) {
			return levelInfo, 4
		}
	case 'W':
		if bytes.HasPrefix(b, []byte("WARN")) {
			return levelWarn, 4
		}
	case 'E':
		if bytes.HasPrefix(b, []byte("ERROR")) {
			return levelError, 5
		}
	case 'D':
		if bytes.HasPrefix(b, []byte("DEBUG")) {
			return levelDebug, 5
		}
	case 'T':
		if bytes.HasPrefix(b, []byte("TRACE")) {
			return levelTrace, 5
		}
	case 'F':
		if bytes.HasPrefix(b, []byte("FATAL")) {
			return levelError, 5
		}
	}
	return levelNone, 0
}

// lineHead is what a cheap look at the start of a raw line tells: where the
// kubectl prefix ends, which timestamp the line carries, its level and where
// the rest starts. Offsets index the raw line. It is computed without
// allocating, for every line the scanner reads.
type lineHead struct {
	body           int // start of the text after the kubectl prefix
	prefixEnd      int // end of the kubectl prefix timestamp; 0 when none
	tsStart, tsEnd int // the line's own timestamp; tsEnd == 0 when none
	log4j          bool
	json           bool
	level          int
	rest           int // start of what follows the timestamp and level
}

// scanHead splits a raw line's head.
//
// The kubectl prefix is recognised thus: a leading RFC 3339 timestamp in UTC
// ("Z") followed by one space is the prefix unless a level word follows it
// (then it is RisingWave's own timestamp on a text line without the prefix).
// So a prefixed continuation line ("<ts> > total_memory: 8 GiB") loses its
// prefix too, and only the second timestamp of a prefixed text line counts as
// RisingWave's. RisingWave's own timestamps with a "+08:00" offset are never
// taken for the prefix, which kubectl always writes in UTC.
func scanHead(raw []byte) lineHead {
	var h lineHead
	if n := rfc3339Len(raw); n > 0 && n < len(raw) && raw[n] == ' ' && raw[n-1] == 'Z' {
		if lvl, _ := levelAfter(raw, n); lvl == levelNone {
			h.prefixEnd, h.body = n, n+1
		}
	}
	o := h.body
	b := raw[o:]
	if len(b) == 0 {
		h.rest = o
		return h
	}
	if b[0] == '{' {
		h.json = true
		h.rest = o
		return h
	}
	if n := rfc3339Len(b); n > 0 {
		h.tsStart, h.tsEnd = o, o+n
		h.level, h.rest = levelAfter(raw, o+n)
		if h.level == levelNone {
			h.rest = skipSpaces(raw, o+n)
		}
		return h
	}
	if n := log4jTimeLen(b); n > 0 {
		h.tsStart, h.tsEnd, h.log4j = o, o+n, true
		h.level, h.rest = levelAfter(raw, o+n)
		if h.level == levelNone {
			h.rest = skipSpaces(raw, o+n)
		}
		return h
	}
	h.rest = o
	return h
}

// levelAfter reads spaces then a level word followed by a space or the end,
// starting at raw[i]. It returns the level and the offset of what follows the
// word and its spaces, or levelNone.
func levelAfter(raw []byte, i int) (int, int) {
	j := skipSpaces(raw, i)
	if j == i || j-i > 6 {
		return levelNone, i
	}
	lvl, n := levelWord(raw[j:])
	if lvl == levelNone {
		return levelNone, i
	}
	j += n
	if j < len(raw) && raw[j] != ' ' {
		return levelNone, i
	}
	return lvl, skipSpaces(raw, j)
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsAt reports whether b[i:i+n] are all digits.
func digitsAt(b []byte, i, n int) bool {
	if i+n > len(b) {
		return false
	}
	for _, c := range b[i : i+n] {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// dateTimeLen checks "YYYY-MM-DD?hh:mm:ss" with sep at position 10 and
// returns 19, or 0.
func dateTimeLen(b []byte, sep byte) int {
	if len(b) < 19 || !digitsAt(b, 0, 4) || b[4] != '-' || !digitsAt(b, 5, 2) || b[7] != '-' ||
		!digitsAt(b, 8, 2) || b[10] != sep || !digitsAt(b, 11, 2) || b[13] != ':' ||
		!digitsAt(b, 14, 2) || b[16] != ':' || !digitsAt(b, 17, 2) {
		return 0
	}
	return 19
}

// rfc3339Len returns the length of an RFC 3339 timestamp at the start of b
// ("2026-11-29T20:41:07.123456789Z", "...+08:00"), or 0. It checks the shape
// only; time.Parse checks the ranges when the time is wanted.
func rfc3339Len(b []byte) int {
	i := dateTimeLen(b, 'T')
	if i == 0 {
		return 0
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i >= len(b) {
		return 0
	}
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if !digitsAt(b, i+1, 2) || i+3 >= len(b) || b[i+3] != ':' || !digitsAt(b, i+4, 2) {
			return 0
		}
		i += 6
	default:
		return 0
	}
	if i < len(b) && b[i] != ' ' {
		return 0
	}
	return i
}

// log4jTimeLen returns the length of a log4j timestamp
// "2026-11-29 20:41:07,123" at the start of b, or 0.
func log4jTimeLen(b []byte) int {
	i := dateTimeLen(b, ' ')
	if i == 0 {
		return 0
	}
	if i < len(b) && (b[i] == ',' || b[i] == '.') {
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i < len(b) && b[i] != ' ' {
		return 0
	}
	return i
}

// parseTime parses a timestamp rfc3339Len or log4jTimeLen accepted; log4j
// times, which carry no zone, are taken as UTC. It returns zero on failure.
func parseTime(b []byte, log4j bool) time.Time {
	if log4j {
		s := string(b)
		if len(s) > 19 && s[19] == ',' {
			s = s[:19] + "." + s[20:]
		}
		t, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			return time.Time{}
		}
		return t
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
}

// ParseLine normalises one raw log line (without its line ending). It
// accepts RisingWave's text ("full") and JSON formats, either with the
// `kubectl logs --timestamps` prefix, Java connector log4j lines, and lines
// with no structure at all, and never fails: what it cannot recognise ends up
// whole in Text and Message.
func ParseLine(raw []byte) Line {
	h := scanHead(raw)
	var ll Line
	var prefixTime time.Time
	if h.prefixEnd > 0 {
		prefixTime = parseTime(raw[:h.prefixEnd], false)
	}
	if h.json {
		if buf, f, ok := renderJSONLine(nil, raw[h.body:]); ok {
			ll = Line{Text: string(buf), Level: levelNames[f.level], Target: f.target, Message: f.message, JSON: true}
			if f.timestamp != "" {
				ll.Time, _ = time.Parse(time.RFC3339Nano, f.timestamp)
			}
			if ll.Time.IsZero() {
				ll.Time = prefixTime
			}
			return ll
		}
	}
	ll.Text = string(raw[h.body:])
	ll.Level = levelNames[h.level]
	if h.tsEnd > 0 {
		ll.Time = parseTime(raw[h.tsStart:h.tsEnd], h.log4j)
		if h.log4j && !prefixTime.IsZero() {
			ll.Time = prefixTime // the prefix has a zone; log4j's has none
		}
	}
	if ll.Time.IsZero() {
		ll.Time = prefixTime
	}
	rest := raw[h.rest:]
	switch {
	case h.level != levelNone && h.log4j:
		ll.Target, ll.Message = splitLog4j(rest)
	case h.level != levelNone:
		t, m := splitTarget(rest)
		ll.Target, ll.Message = string(t), string(m)
	case h.tsEnd > 0:
		ll.Message = string(rest)
	default:
		ll.Message = ll.Text
	}
	return ll
}

// splitLog4j splits "[thread] class:12 - message" into the class and the
// message.
func splitLog4j(b []byte) (target, message string) {
	s := string(b)
	head, msg, ok := strings.Cut(s, " - ")
	if !ok {
		return "", s
	}
	if strings.HasPrefix(head, "[") {
		if i := strings.Index(head, "] "); i >= 0 {
			head = head[i+2:]
		}
	}
	if i := strings.LastIndexByte(head, ':'); i > 0 && isAllDigits(head[i+1:]) {
		head = head[:i]
	}
	if strings.ContainsAny(head, " []") {
		return "", msg
	}
	return head, msg
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// splitTarget splits what follows the level of a text line,
// "[spans: ]target: message", into the target and the message.
//
// Spans print as "name{fields}:" or "name:" each, the last followed by a
// space, so "actor{actor_id=1}:executor{...}: risingwave_stream::x: msg".
// A span chain is told from a target by its braces or single colons (targets
// are Rust paths with "::"); a lone field-less span ("recovery_attempt:
// risingwave_meta::barrier::worker: msg") by the "::" target following it.
func splitTarget(b []byte) (target, message []byte) {
	seg, after, ok := pathSegment(b)
	if !ok {
		return nil, b
	}
	if isSpanChain(seg) {
		t, rest, ok := pathSegment(after)
		if !ok || isSpanChain(t) {
			return nil, after
		}
		return t, rest
	}
	if !bytes.Contains(seg, []byte("::")) {
		if t, rest, ok := pathSegment(after); ok && !isSpanChain(t) && bytes.Contains(t, []byte("::")) {
			return t, rest
		}
	}
	return seg, after
}

// pathSegment reads a run of identifier bytes, colons and {...} groups
// (quoted strings inside braces may hold anything) ending with ": ", and
// returns it without the ": " and what follows.
func pathSegment(b []byte) (seg, rest []byte, ok bool) {
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case isIdentByte(c) || c == '.' || c == '-':
			i++
		case c == ':':
			if i+1 < len(b) && b[i+1] == ' ' {
				if i == 0 {
					return nil, nil, false
				}
				return b[:i], b[i+2:], true
			}
			if i+1 == len(b) {
				if i == 0 {
					return nil, nil, false
				}
				return b[:i], nil, true
			}
			i++
		case c == '{':
			j := skipBraces(b, i)
			if j < 0 {
				return nil, nil, false
			}
			i = j
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// skipBraces returns the offset after the "}" closing the "{" at b[i], or -1.
func skipBraces(b []byte, i int) int {
	depth, quoted := 0, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// isSpanChain reports whether a segment is a chain of spans rather than a
// target: it has braces, or a colon that is not part of "::", or ends in ":".
func isSpanChain(seg []byte) bool {
	if bytes.IndexByte(seg, '{') >= 0 {
		return true
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] != ':' {
			continue
		}
		if i+1 < len(seg) && seg[i+1] == ':' {
			i++
			continue
		}
		return true
	}
	return false
}

// jsonFields are the parts of a JSON log line besides its rendering.
type jsonFields struct {
	timestamp, target, message string
	level                      int
}

// jsonMetaKeys are top-level keys of tracing-subscriber's JSON format that
// are not event fields and so are not rendered as k=v.
var jsonMetaKeys = map[string]bool{
	"timestamp": true, "level": true, "target": true, "fields": true, "message": true,
	"spans": true, "span": true, "filename": true, "line_number": true, "threadName": true, "threadId": true,
}

// renderJSONLine renders a JSON log line as its text-format equivalent,
// appended to dst:
//
//	<timestamp> <LEVEL, right-aligned to 5> <span{k=v}:...: ><target>: <message> <k=v ...>
//
// Event fields follow the message in the order the line holds them (those of
// "fields", then unknown top-level keys, as a flattened event has them);
// strings are unquoted when they hold no space, quote, backslash or "=",
// other values are written as their JSON. ok is false when b is not a JSON
// object.
//
// The rendering introduces no byte other than spaces, ':', '=', '{', '}' and
// '"', and changes no byte of the line's values but the level's case. The
// scanner's JSON prefilter relies on this.
func renderJSONLine(dst, b []byte) ([]byte, jsonFields, bool) {
	var f jsonFields
	if !gjson.ValidBytes(b) {
		return dst, f, false
	}
	doc := gjson.ParseBytes(b)
	if !doc.IsObject() {
		return dst, f, false
	}
	var fields, spans, span gjson.Result
	var extra []gjson.Result // key, value pairs
	var levelRaw string
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "timestamp":
			f.timestamp = v.String()
		case "level":
			levelRaw = v.String()
		case "target":
			f.target = v.String()
		case "fields":
			fields = v
		case "message":
			if f.message == "" {
				f.message = v.String()
			}
		case "spans":
			spans = v
		case "span":
			span = v
		default:
			if !jsonMetaKeys[k.Str] {
				extra = append(extra, k, v)
			}
		}
		return true
	})
	if fields.IsObject() {
		if m := fields.Get("message"); m.Exists() {
			f.message = m.String()
		}
	}
	f.level = ParseLevel(levelRaw)
	sep := false
	if f.timestamp != "" {
		dst = append(dst, f.timestamp...)
		sep = true
	}
	if levelRaw != "" {
		if sep {
			dst = append(dst, ' ')
		}
		name := levelRaw
		if f.level != levelNone && strings.EqualFold(levelRaw, levelNames[f.level]) {
			name = levelNames[f.level]
		}
		for n := len(name); n < 5; n++ {
			dst = append(dst, ' ')
		}
		dst = append(dst, name...)
		sep = true
	}
	if !spans.IsArray() && span.IsObject() {
		spans = gjson.Parse("[" + span.Raw + "]")
	}
	if spans.IsArray() {
		n := 0
		spans.ForEach(func(_, s gjson.Result) bool {
			if !s.IsObject() {
				return true
			}
			if n == 0 && sep {
				dst = append(dst, ' ')
			}
			n++
			dst = append(dst, s.Get("name").String()...)
			first := true
			s.ForEach(func(k, v gjson.Result) bool {
				if k.Str == "name" {
					return true
				}
				if first {
					dst = append(dst, '{')
					first = false
				} else {
					dst = append(dst, ' ')
				}
				dst = appendField(dst, k.Str, v)
				return true
			})
			if !first {
				dst = append(dst, '}')
			}
			dst = append(dst, ':')
			return true
		})
		if n > 0 {
			sep = true
		}
	}
	if f.target != "" {
		if sep {
			dst = append(dst, ' ')
		}
		dst = append(dst, f.target...)
		dst = append(dst, ':')
		sep = true
	}
	if sep {
		dst = append(dst, ' ')
	}
	dst = append(dst, f.message...)
	if fields.IsObject() {
		fields.ForEach(func(k, v gjson.Result) bool {
			if k.Str != "message" {
				dst = append(dst, ' ')
				dst = appendField(dst, k.Str, v)
			}
			return true
		})
	}
	for i := 0; i+1 < len(extra); i += 2 {
		dst = append(dst, ' ')
		dst = appendField(dst, extra[i].Str, extra[i+1])
	}
	return dst, f, true
}

// appendField appends "k=v" the way the text format prints a field.
func appendField(dst []byte, k string, v gjson.Result) []byte {
	dst = append(dst, k...)
	dst = append(dst, '=')
	if v.Type != gjson.String {
		return append(dst, v.Raw...)
	}
	if simpleValue(v.Str) {
		return append(dst, v.Str...)
	}
	return appendQuoted(dst, v.Str)
}

// simpleValue reports whether a string field prints unquoted.
func simpleValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ', c == '"', c == '\\', c == '=', c == 0x7f:
			return false
		}
	}
	return true
}

// appendQuoted quotes s, escaping only quotes, backslashes and control
// bytes; unlike strconv.Quote it leaves other bytes alone, so the rendering
// adds nothing to a value that has none of those.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < ' ' || c == 0x7f:
			dst = append(dst, '\\', 'x')
			dst = strconv.AppendUint(dst, uint64(c)>>4, 16)
			dst = strconv.AppendUint(dst, uint64(c)&15, 16)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
