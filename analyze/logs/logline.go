package logs

import (
	"bytes"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// Line is one log line, normalised so that one regular expression matches
// RisingWave's text and JSON logs alike, with or without the timestamp prefix
// `kubectl logs --timestamps` adds. A Line is also what an Event is parsed
// into: then Message and the fields hold what its continuation lines add.
type Line struct {
	// Text is what regular expressions see: the line without the kubectl
	// prefix (or a docker-compose "name | " prefix) and, before a timestamp
	// or a level, without leading spaces (the pretty format's indent). A
	// JSON line is rendered as its text-format equivalent,
	// "<timestamp> <LEVEL> <spans>: <target>: <message> k=v ...", so that a
	// regular expression written against the text format matches both.
	Text string
	// Time is RisingWave's own timestamp when the line has one, else the
	// kubectl prefix's, else zero. A panic's is the time of the nearest
	// line before it that has one, when it is parsed as an Event.
	Time time.Time
	// Level is "TRACE", "DEBUG", "INFO", "WARN", "ERROR" or "". A Rust
	// panic ("thread 'x' panicked at") is an ERROR.
	Level string
	// Target is the tracing target ("risingwave_stream::task::barrier_manager"),
	// or a Java connector line's class; "" when the line names none.
	Target string
	// Message is the message part, without the fields after it (see
	// Fields); the whole text when the line has no recognisable structure
	// (continuation lines, Memory outline blocks). A panic's is the panic
	// message.
	Message string
	// JSON is true for a line in RisingWave's JSON log format.
	JSON bool
	// Thread is the thread name a line shows: the column `standalone`
	// prints between level and target, a panic's thread, the pretty
	// format's "on NAME".
	Thread string
	// Location is where the event was logged: the pretty format's
	// "    at src/x.rs:12" line, a panic's "src/x.rs:12:5".
	Location string
	// Panic is true for a Rust panic's header line and the event it opens.
	Panic bool

	form      lineForm
	fieldText string // the fields after the message (formText, formPretty)
	spanText  string // the span chain before the target (formText)
	jsonRaw   string // the JSON object (formJSON)
	evFields  []Field
	evSpans   []Span
}

// lineForm says how a Line's fields are read.
type lineForm uint8

const (
	formNone   lineForm = iota
	formText            // tracing-subscriber's full format: spans, " k=v" fields
	formPretty          // its pretty format: ", k: v" fields, spans on later lines
	formJSON
	formEvent // fields and spans parsed already (evFields, evSpans)
)

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
// and cut to the length of a row's "text". A panic shows its header and
// its message.
func EntryText(ll Line, level int) string {
	if ll.Panic {
		s := ll.Text
		if i := strings.Index(s, " panicked at "); i >= 0 && ll.Message != "" && !strings.Contains(s, ll.Message) {
			head, msg := s[:i+len(" panicked at ")], strings.ReplaceAll(ll.Message, "\n", " ")
			if strings.HasPrefix(s[len(head):], "'") { // the message was quoted on the header line
				s = head + "'" + msg + "', " + ll.Location
			} else {
				s = head + ll.Location + ": " + msg
			}
		}
		return evidence.CutUTF8(s, maxLogTextBytes)
	}
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
	body           int // start of the text after the kubectl prefix (and indent, before a head)
	prefixEnd      int // end of the kubectl prefix timestamp; 0 when none
	tsStart, tsEnd int // the line's own timestamp; tsEnd == 0 when none
	indent         int // spaces before the own timestamp (2: the pretty format)
	log4j          bool
	json           bool
	panic          bool // a Rust panic's header, "thread 'x' panicked at "
	level          int
	rest           int // start of what follows the timestamp and level
}

// head reports whether the line begins an event: it has its own timestamp
// or a level, is JSON, or is a panic's header. Other lines continue the
// event above them (see Event).
func (h *lineHead) head() bool {
	return h.tsEnd > 0 || h.level != levelNone || h.json || h.panic
}

// closed reports whether the line is an event no line continues: a JSON
// object on one line (one that does not end in '}' is printed over
// several). What follows it that is not a head is stray output (stderr).
func (h *lineHead) closed(raw []byte) bool {
	return h.json && bytes.HasSuffix(bytes.TrimRight(raw, " \r\t"), []byte("}"))
}

// hasTime reports whether the line carries a time: its own, the kubectl
// prefix's, or a JSON line's "timestamp".
func (h *lineHead) hasTime(raw []byte) bool {
	return h.tsEnd > 0 || h.prefixEnd > 0 || h.json && bytes.Contains(raw[h.rest:], []byte(`"timestamp"`))
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
//
// After the prefix come, in lines pasted by hand, a docker-compose service
// prefix ("compute-node-0  | ") and spaces (the pretty format indents its
// first line by two). A level with no timestamp counts only when a target
// follows it ("ERROR risingwave_meta::x: ..."), so that a continuation line
// that starts with a level word stays one.
func scanHead(raw []byte) lineHead {
	var h lineHead
	if n := rfc3339Len(raw); n > 0 && n < len(raw) && raw[n] == ' ' && raw[n-1] == 'Z' {
		if lvl, _ := levelAfter(raw, n); lvl == levelNone {
			h.prefixEnd, h.body = n, n+1
		}
	}
	o := h.body
	if o < len(raw) && raw[o] >= 'a' && raw[o] <= 'z' && h.prefixEnd == 0 {
		if n := composePrefixLen(raw[o:]); n > 0 {
			o += n
			h.body = o
		}
	}
	j := skipSpaces(raw, o)
	h.rest = o
	if j == len(raw) {
		return h
	}
	b := raw[j:]
	switch c := b[0]; {
	case c == '{':
		h.json, h.body, h.rest = true, j, j
	case isDigit(c):
		if n := rfc3339Len(b); n > 0 {
			h.tsStart, h.tsEnd, h.indent, h.body = j, j+n, j-o, j
			h.level, h.rest = levelAfter(raw, j+n)
			if h.level == levelNone {
				h.rest = skipSpaces(raw, j+n)
			}
		} else if n := log4jTimeLen(b); n > 0 {
			h.tsStart, h.tsEnd, h.log4j, h.body = j, j+n, true, j
			h.level, h.rest = levelAfter(raw, j+n)
			if h.level == levelNone {
				h.rest = skipSpaces(raw, j+n)
			}
		}
	case c == 't':
		if n := panicHeaderLen(b); n > 0 {
			h.panic, h.level, h.body, h.rest = true, levelError, j, j+n
		}
	default:
		if lvl, n := levelWord(b); lvl != levelNone && n < len(b) && b[n] == ' ' {
			k := skipSpaces(b, n)
			if _, _, _, _, ok := locateTarget(b[k:]); ok {
				h.level, h.body, h.rest = lvl, j, j+k
			}
		}
	}
	return h
}

// composePrefixLen returns the length of a docker-compose service prefix,
// "name   | ", at the start of b, or 0.
func composePrefixLen(b []byte) int {
	i := 0
	for i < len(b) && i < 64 && (isIdentByte(b[i]) || b[i] == '-' || b[i] == '.') {
		i++
	}
	j := skipSpaces(b, i)
	if i == 0 || j == i || j >= len(b) || b[j] != '|' {
		return 0
	}
	if j+1 < len(b) && b[j+1] != ' ' {
		return 0
	}
	return min(j+2, len(b))
}

// panicHeaderLen returns, for a Rust panic's header at the start of b,
// "thread 'NAME' panicked at " or (Rust 1.91+) "thread 'NAME' (TID)
// panicked at ", its length; else 0.
func panicHeaderLen(b []byte) int {
	const lead, tail = "thread '", " panicked at "
	if !bytes.HasPrefix(b, []byte(lead)) {
		return 0
	}
	q := bytes.IndexByte(b[len(lead):], '\'')
	if q < 0 {
		return 0
	}
	i := len(lead) + q + 1
	if bytes.HasPrefix(b[i:], []byte(" (")) {
		k := i + 2
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k == i+2 || k >= len(b) || b[k] != ')' {
			return 0
		}
		i = k + 1
	}
	if !bytes.HasPrefix(b[i:], []byte(tail)) {
		return 0
	}
	return i + len(tail)
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
// accepts RisingWave's text ("full"), pretty and JSON formats, either with
// the `kubectl logs --timestamps` prefix, Java connector log4j lines, a Rust
// panic's header, and lines with no structure at all, and never fails: what
// it cannot recognise ends up whole in Text and Message. It reads one line:
// the continuation lines of a multi-line event (a backtrace, the pretty
// format's "at" and "in" lines, a panic's message in Rust 1.73+) are read
// by ParseEvent and Events.
func ParseLine(raw []byte) Line {
	h := scanHead(raw)
	var ll Line
	var prefixTime time.Time
	if h.prefixEnd > 0 {
		prefixTime = parseTime(raw[:h.prefixEnd], false)
	}
	if h.json {
		if ll, ok := parseJSONLine(raw[h.body:]); ok {
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
	rest := ll.Text[h.rest-h.body:]
	switch {
	case h.panic:
		parsePanicHeader(&ll, rest)
	case h.level != levelNone && h.log4j:
		ll.Target, ll.Message = splitLog4j([]byte(rest))
	case h.level != levelNone:
		b := raw[h.rest:]
		thread := 0
		spanEnd, tStart, tEnd, msg, ok := locateTarget(b)
		if !ok {
			// A thread name column (`standalone`): "rw-main risingwave_x: m".
			if n := threadColumnLen(b); n > 0 {
				if se, ts, te, m, ok2 := locateTarget(b[n:]); ok2 {
					thread, spanEnd, tStart, tEnd, msg, ok = n, se+n, ts+n, te+n, m+n, true
					ll.Thread = strings.TrimRight(rest[:n], " ")
				}
			}
		}
		if !ok {
			ll.Message = rest
			break
		}
		if spanEnd > thread {
			ll.spanText = rest[thread:spanEnd]
		}
		ll.Target = rest[tStart:tEnd]
		m := rest[msg:]
		syn, form := textFields, formText
		if h.indent == 2 && h.tsEnd > 0 {
			syn, form = prettyFields, formPretty
		}
		e := messageEnd(m, syn)
		ll.Message, ll.form = m[:e], form
		if e < len(m) {
			ll.fieldText = m[e+len(syn.sep):]
		}
	case h.tsEnd > 0:
		ll.Message = rest
	default:
		ll.Message = ll.Text
	}
	return ll
}

// threadColumnLen returns the length of a thread name and the spaces after
// it at the start of b, or 0. Thread names RisingWave gives have a '-'
// ("rw-main", "rw-streaming", "tokio-runtime-worker") and targets, Rust
// paths, none.
func threadColumnLen(b []byte) int {
	i := bytes.IndexByte(b, ' ')
	if i <= 0 || !bytes.ContainsAny(b[:i], "-<") || bytes.IndexByte(b[:i], ':') >= 0 {
		return 0
	}
	return skipSpaces(b, i)
}

// parsePanicHeader reads a panic's header line after "thread ": the thread,
// its id, the location and, in the one-line format before Rust 1.73
// ("panicked at 'MSG', src/x.rs:1:2"), the message.
func parsePanicHeader(ll *Line, rest string) {
	ll.Panic = true
	ll.form = formEvent
	head := ll.Text[:len(ll.Text)-len(rest)]
	name := strings.TrimPrefix(head, "thread '")
	if q := strings.IndexByte(name, '\''); q >= 0 {
		ll.Thread = name[:q]
		if tid, ok := strings.CutPrefix(name[q+1:], " ("); ok {
			if e := strings.IndexByte(tid, ')'); e > 0 {
				ll.evFields = []Field{{Key: "thread_id", Value: tid[:e]}}
			}
		}
	}
	if msg, ok := strings.CutPrefix(rest, "'"); ok {
		if i := strings.LastIndex(msg, "', "); i >= 0 && isLocation(msg[i+3:]) {
			ll.Message, ll.Location = msg[:i], msg[i+3:]
			return
		}
		ll.Message = msg // continued on the next lines
		return
	}
	ll.Location = strings.TrimSuffix(rest, ":")
}

// isLocation reports whether s is "path:line:col".
func isLocation(s string) bool {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || !isAllDigits(s[i+1:]) {
		return false
	}
	j := strings.LastIndexByte(s[:i], ':')
	return j > 0 && isAllDigits(s[j+1:i])
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

// locateTarget finds "[spans: ]target: " at the start of b, what follows
// the level of a text line: the span chain b[:spanEnd] (0: none), the
// target b[tStart:tEnd] and the message from b[msg:]. ok is false when b
// does not start so.
//
// Spans print as "name{fields}:" or "name:" each, the last followed by a
// space, so "actor{actor_id=1}:executor{...}: risingwave_stream::x: msg".
// A span chain is told from a target by its braces or single colons (targets
// are Rust paths with "::"); a lone field-less span ("recovery_attempt:
// risingwave_meta::barrier::worker: msg") by the "::" target following it.
// A span chain with no target after it has an empty target.
func locateTarget(b []byte) (spanEnd, tStart, tEnd, msg int, ok bool) {
	segEnd, after, ok := pathSegment(b)
	if !ok {
		return 0, 0, 0, 0, false
	}
	seg := b[:segEnd]
	if isSpanChain(seg) {
		e, rest, ok := pathSegment(b[after:])
		if !ok || isSpanChain(b[after:after+e]) {
			return segEnd, after, after, after, true
		}
		return segEnd, after, after + e, after + rest, true
	}
	if !bytes.Contains(seg, []byte("::")) {
		if e, rest, ok := pathSegment(b[after:]); ok {
			if t := b[after : after+e]; !isSpanChain(t) && bytes.Contains(t, []byte("::")) {
				return segEnd, after, after + e, after + rest, true
			}
		}
	}
	return 0, 0, segEnd, after, true
}

// pathSegment reads a run of identifier bytes, colons and {...} groups
// (quoted strings inside braces may hold anything) ending with ": " (or
// ":" at the end), and returns where it ends, without the ": ", and where
// what follows starts.
func pathSegment(b []byte) (end, rest int, ok bool) {
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case isIdentByte(c) || c == '.' || c == '-':
			i++
		case c == ':':
			if i+1 < len(b) && b[i+1] == ' ' {
				if i == 0 {
					return 0, 0, false
				}
				return i, i + 2, true
			}
			if i+1 == len(b) {
				if i == 0 {
					return 0, 0, false
				}
				return i, i + 1, true
			}
			i++
		case c == '{':
			j := SkipBraces(b, i)
			if j < 0 {
				return 0, 0, false
			}
			i = j
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// SkipBraces returns the offset after the "}" closing the "{" at b[i], or
// -1; braces inside double-quoted strings (with backslash escapes) do not
// count.
func SkipBraces[T ~string | ~[]byte](b T, i int) int {
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
