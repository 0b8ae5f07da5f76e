package logs

import (
	"bytes"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// An event is a head line and the continuation lines after it. A head is a
// line that has its own timestamp or a level (text, pretty, log4j, pasted
// "ERROR target: ..."), a JSON line, or a Rust panic's header ("thread 'x'
// panicked at"); any other line continues the event above it: the rest of
// an error report with newlines ("  backtrace of ...", "Backtrace:" and its
// frames), the pretty format's "    at file:line", "    in span with .."
// and blank lines, a panic's message, backtrace and await-tree dump, a
// JSON object printed over several lines.
//
// A JSON line on its own is a whole event: the lines after it that are no
// heads stand alone.
//
// maxEventBytes bounds an event: continuation lines join it while it is at
// most this long, each line counting its bytes and one for its line
// ending; the lines after that, and those before a file's first head, are
// events of their own, with no level. The bound keeps what an event holds
// in memory small, and lets the block scanner find every event whole in
// its block (see logblock.go).
const maxEventBytes = 64 << 10

// Event is one log event of a file, parsed: a head line and its
// continuation lines.
type Event struct {
	Line
	// First and Last are the line numbers (from 1) of its head and of its
	// last line.
	First, Last int
}

// ParseEvent parses an event's lines, its head first (see Event). prev is
// the time of the nearest line before the event that has one, which a
// panic, printed without a time, takes (unless the kubectl prefix gives it
// one).
//
// What the continuation lines add: the pretty format's location ("at"),
// thread ("on") and spans ("in .. with .."), and the lines before them;
// a panic's message (the lines after its header, up to "note:" or "stack
// backtrace:"); a JSON object printed over several lines. Other
// continuation lines go, joined by "\n", to the value of the event's last
// field (an error report's backtrace), or to its message when it has no
// field, as the JSON format holds them.
func ParseEvent(lines [][]byte, prev time.Time) Line {
	if len(lines) == 0 {
		return Line{}
	}
	ll := ParseLine(lines[0])
	if ll.Panic && ll.Time.IsZero() {
		ll.Time = prev
	}
	if len(lines) == 1 {
		return ll
	}
	bodies := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		h := scanHead(l)
		bodies = append(bodies, string(l[h.body:]))
	}
	switch {
	case ll.Panic:
		panicEvent(&ll, bodies)
	case ll.JSON:
		// A JSON line holds its whole event; what follows is stray output.
	case strings.TrimSpace(ll.Text) == "{":
		if jl, ok := multiLineJSON(ll.Text, bodies); ok {
			if jl.Time.IsZero() {
				jl.Time = ll.Time
			}
			return jl
		}
		appendContinuation(&ll, bodies)
	case ll.form == formPretty:
		prettyEvent(&ll, bodies)
	default:
		appendContinuation(&ll, bodies)
	}
	return ll
}

// parseEventText parses an event held as its lines joined by "\n", with
// prevLine the nearest line before it that has a time (or nil).
func parseEventText(ev []byte, prevLine []byte) Line {
	var lines [][]byte
	for {
		i := bytes.IndexByte(ev, '\n')
		if i < 0 {
			lines = append(lines, ev)
			break
		}
		lines = append(lines, ev[:i])
		ev = ev[i+1:]
	}
	var prev time.Time
	if prevLine != nil {
		prev = lineTime(prevLine)
	}
	return ParseEvent(lines, prev)
}

// lineTime is the time of a line: its own, a JSON line's, the kubectl
// prefix's.
func lineTime(raw []byte) time.Time {
	h := scanHead(raw)
	if h.json {
		if t, err := time.Parse(time.RFC3339Nano, gjson.GetBytes(raw[h.body:], "timestamp").String()); err == nil {
			return t
		}
	}
	return ParseLine(raw).Time
}

// trimBlank drops the blank lines at the end.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// materialize fixes a Line's fields and spans so that they can be changed.
func (l *Line) materialize() {
	if l.form == formEvent {
		return
	}
	l.evFields = append([]Field(nil), l.Fields()...)
	l.evSpans = l.Spans()
	l.form = formEvent
}

// appendContinuation adds continuation lines to the last field's value,
// or to the message.
func appendContinuation(ll *Line, bodies []string) {
	bodies = trimBlank(bodies)
	if len(bodies) == 0 {
		return
	}
	more := "\n" + strings.Join(bodies, "\n")
	ll.materialize()
	if n := len(ll.evFields); n > 0 {
		ll.evFields[n-1].Value += more
		return
	}
	ll.Message += more
}

// prettyEvent reads the pretty format's lines after the first: the rest of
// the last value, then "    at file:line[ on thread]", "    in
// target::span[ with k: v, ..]" (innermost first) and a blank line.
func prettyEvent(ll *Line, bodies []string) {
	i := 0
	hasAt := false
	for _, b := range bodies {
		if strings.HasPrefix(b, "    at ") || strings.HasPrefix(b, "    on ") || strings.HasPrefix(b, "    in ") {
			hasAt = true
			break
		}
	}
	for i < len(bodies) && !strings.HasPrefix(bodies[i], "    at ") && !strings.HasPrefix(bodies[i], "    on ") &&
		!strings.HasPrefix(bodies[i], "    in ") && (hasAt || bodies[i] != "") {
		i++
	}
	appendContinuation(ll, bodies[:i])
	ll.materialize()
	var spans []Span
	for _, b := range bodies[i:] {
		switch {
		case strings.HasPrefix(b, "    at "):
			loc := b[len("    at "):]
			if l, thread, ok := strings.Cut(loc, " on "); ok {
				loc, ll.Thread = l, thread
			}
			ll.Location = loc
		case strings.HasPrefix(b, "    on "):
			ll.Thread = b[len("    on "):]
		case strings.HasPrefix(b, "    in "):
			name, fields, _ := strings.Cut(b[len("    in "):], " with ")
			if j := strings.LastIndex(name, "::"); j >= 0 {
				name = name[j+2:]
			}
			spans = append(spans, Span{Name: name, Fields: parseFieldList(fields, prettyFields)})
		}
	}
	for l, r := 0, len(spans)-1; l < r; l, r = l+1, r-1 {
		spans[l], spans[r] = spans[r], spans[l]
	}
	if len(spans) > 0 {
		ll.evSpans = spans
	}
}

// panicEvent reads a panic's message from the lines after its header:
// Rust 1.73+ prints it on the lines after "panicked at FILE:L:C:", up to
// "note: run with `RUST_BACKTRACE=1`" or "stack backtrace:"; before, it
// was quoted on the header line, and continued on the next lines when it
// had newlines, up to "', FILE:L:C".
func panicEvent(ll *Line, bodies []string) {
	if ll.Location != "" && ll.Message != "" {
		return
	}
	if ll.Location == "" { // the one-line format with a message of several lines
		msg := []string{ll.Message}
		for _, b := range bodies {
			if j := strings.LastIndex(b, "', "); j >= 0 && isLocation(b[j+3:]) {
				ll.Message = strings.Join(append(msg, b[:j]), "\n")
				ll.Location = b[j+3:]
				return
			}
			msg = append(msg, b)
		}
		return
	}
	var msg []string
	for _, b := range bodies {
		if strings.HasPrefix(b, "note: ") || b == "stack backtrace:" || strings.HasPrefix(b, "*** ") {
			break
		}
		msg = append(msg, b)
	}
	ll.Message = strings.Join(trimBlank(msg), "\n")
}

// multiLineJSON parses a JSON object printed over several lines.
func multiLineJSON(head string, bodies []string) (Line, bool) {
	var b strings.Builder
	b.WriteString(head)
	for _, l := range bodies {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return parseJSONLine([]byte(b.String()))
}

// tracker follows the events of a file whose lines it is given in order,
// as Events and the scanner's line-by-line path need.
type tracker struct {
	buf         []byte // the current event's kept lines, joined by "\n"
	first, last int    // line numbers; first == 0: no event yet
	weight      int
	full        bool // no line joins it any more: the bound, or a line of its own
	keep        bool // its lines are kept
	level       int
	prev        []byte // the line with a time before the current event's head
	lastTS      []byte // the last line that has a time
}

// joins reports whether a line, of head h and weight w, continues the
// current event.
func (t *tracker) joins(h *lineHead, w int) bool {
	return !h.head() && t.first > 0 && !t.full && t.weight+w <= maxEventBytes
}

// add takes line n: it continues the current event, or starts one (a head,
// or a line of its own). keepLevel decides, for the line that starts an
// event, its level and whether the event's lines are kept.
func (t *tracker) add(raw []byte, n int, h *lineHead, keepLevel func(h *lineHead, raw []byte) (level int, keep bool)) {
	w := len(raw) + 1
	if t.joins(h, w) {
		t.weight += w
		t.last = n
		if t.keep {
			t.buf = append(append(t.buf, '\n'), raw...)
		}
	} else {
		// A head, or a line of its own: before the first head, or past the
		// bound.
		t.first, t.last, t.weight, t.full = n, n, w, !h.head() || h.closed(raw)
		t.level, t.keep = keepLevel(h, raw)
		if t.keep {
			t.buf = append(t.buf[:0], raw...)
			t.prev = t.prev[:0]
			if h.panic && t.lastTS != nil {
				t.prev = append(t.prev, t.lastTS...)
			}
		}
	}
	if h.hasTime(raw) {
		t.lastTS = append(t.lastTS[:0], raw...)
	}
}

// event parses the current event.
func (t *tracker) event() Event {
	var prev []byte
	if len(t.prev) > 0 {
		prev = t.prev
	}
	return Event{Line: parseEventText(t.buf, prev), First: t.first, Last: t.last}
}

// Events groups the lines of one log file, given in order, into events
// (see Event) and parses those at or above MinLevel. It keeps one event's
// lines (at most 64 KiB) and the last line that has a time; lines of
// events below MinLevel are only looked at. The zero value takes every
// event, those that state no level included.
type Events struct {
	// MinLevel, a rank as ParseLevel returns, leaves out the events below
	// it and, when set, those that state no level.
	MinLevel int
	t        tracker
}

// Add takes line n (from 1) of the file, without its line ending. When the
// line starts an event, the one before it is complete: Add returns it,
// when it is at or above MinLevel.
func (e *Events) Add(raw []byte, n int) (Event, bool) {
	h := scanHead(raw)
	var ev Event
	ok := false
	if e.t.first > 0 && e.t.keep && !e.t.joins(&h, len(raw)+1) {
		ev, ok = e.t.event(), true
	}
	e.t.add(raw, n, &h, e.keep)
	return ev, ok
}

// keep is the tracker's keepLevel for MinLevel.
func (e *Events) keep(h *lineHead, raw []byte) (int, bool) {
	level := h.level
	if h.json {
		level = LineLevel(raw)
	}
	if e.MinLevel == levelNone {
		return level, true
	}
	return level, level != levelNone && level >= e.MinLevel
}

// Flush returns the event the last line belongs to, when it is at or above
// MinLevel, and forgets it.
func (e *Events) Flush() (Event, bool) {
	if e.t.first == 0 || !e.t.keep {
		e.t = tracker{}
		return Event{}, false
	}
	ev := e.t.event()
	e.t = tracker{}
	return ev, true
}
