package awaittree

import (
	"math"
	"strings"
	"time"
)

// spanLine is one rendered span:
//
//	<2×depth spaces><name> [<"!!! "><duration>][  <== current]
//
// (await-tree's Display: context.rs fmt_node in every version; RisingWave's
// own async_stack_trace before v1.0 rendered the same line.)
type spanLine struct {
	indent  int
	name    string
	elapsed time.Duration
	slow    bool
	current bool
}

const currentMark = "  <== current"

// parseSpanLine reads s as a span line. The bracket is the last one on the
// line, so a name may hold brackets of its own.
func parseSpanLine(s string) (spanLine, bool) {
	var sl spanLine
	if rest, ok := strings.CutSuffix(s, currentMark); ok {
		s, sl.current = rest, true
	}
	if !strings.HasSuffix(s, "]") {
		return sl, false
	}
	open := strings.LastIndex(s, " [")
	if open < 0 {
		return sl, false
	}
	inner := s[open+2 : len(s)-1]
	if rest, ok := strings.CutPrefix(inner, "!!! "); ok {
		inner, sl.slow = rest, true
	}
	d, ok := parseRustDuration(inner)
	if !ok {
		return sl, false
	}
	sl.elapsed = d
	head := s[:open]
	for sl.indent < len(head) && head[sl.indent] == ' ' {
		sl.indent++
	}
	sl.name = head[sl.indent:]
	return sl, true
}

// parseRustDuration reads Rust's Debug rendering of a Duration, with or
// without a precision: "21.283s", "11.520000098s", "440.000005ms",
// "1.5µs", "100.000ns". It is exact to the nanosecond and saturates.
func parseRustDuration(s string) (time.Duration, bool) {
	var unit int64
	switch {
	case strings.HasSuffix(s, "ms"):
		unit, s = int64(time.Millisecond), s[:len(s)-2]
	case strings.HasSuffix(s, "µs"): // U+00B5, what Rust prints
		unit, s = int64(time.Microsecond), s[:len(s)-len("µs")]
	case strings.HasSuffix(s, "μs"): // U+03BC
		unit, s = int64(time.Microsecond), s[:len(s)-len("μs")]
	case strings.HasSuffix(s, "us"):
		unit, s = int64(time.Microsecond), s[:len(s)-2]
	case strings.HasSuffix(s, "ns"):
		unit, s = 1, s[:len(s)-2]
	case strings.HasSuffix(s, "s"):
		unit, s = int64(time.Second), s[:len(s)-1]
	default:
		return 0, false
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return 0, false
	}
	var whole int64
	for _, c := range intPart {
		whole = whole*10 + int64(c-'0')
		if whole > math.MaxInt64/unit {
			return time.Duration(math.MaxInt64), true
		}
	}
	total := whole * unit
	// The fraction, to the nanosecond; further digits are dropped.
	scale := unit
	for _, c := range frac {
		if scale < 10 {
			break
		}
		scale /= 10
		total += int64(c-'0') * scale
	}
	if total < 0 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(total), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// longRunningThreshold is await-tree's: a span lasting this long is marked
// `!!!` unless it is long-running (0.3) or a root (before 0.3).
const longRunningThreshold = 10 * time.Second

// treeBuilder turns the lines of one rendered trace into spans.
type treeBuilder struct {
	p        *parser
	t        *Trace
	stack    []*Span // stack[i] is the open span at depth i of the current tree
	detached bool    // after a `[Detached N]` line, depth counts from 1
	pending  []pendingLine
	sawLine  bool
}

type pendingLine struct {
	line int
	text string
}

func (b *treeBuilder) feed(n int, s string) {
	if strings.TrimSpace(s) == "" {
		b.flushPending("blank line inside a span name")
		return
	}
	if !b.sawLine {
		if d, ok := parseCaptured(s); ok {
			b.t.Captured = d
			return
		}
	}
	first := !b.sawLine
	b.sawLine = true
	if isDetachedMarker(s) {
		b.flushPending("span name without a duration")
		b.detached = true
		b.stack = b.stack[:0]
		return
	}
	sl, ok := parseSpanLine(s)
	if !ok {
		// A root span's name may run over several lines: an actor's root
		// is "Actor N: `<definition>`" and a definition may hold newlines.
		if b.t.Root == nil && !b.detached && (first || len(b.pending) > 0) && len(b.pending) < b.p.lim.MaxNameLines {
			b.pending = append(b.pending, pendingLine{n, s})
			return
		}
		b.flushPending("span name without a duration")
		b.p.unknown(n, s, "not a span line (expected `name [1.234s]`)")
		return
	}
	depth := sl.indent / 2
	line := n
	if len(b.pending) > 0 {
		// The span started on the first pending line.
		var sb strings.Builder
		head := b.pending[0].text
		indent := len(head) - len(strings.TrimLeft(head, " "))
		depth = indent / 2
		line = b.pending[0].line
		sb.WriteString(head[indent:])
		for _, pl := range b.pending[1:] {
			sb.WriteByte('\n')
			sb.WriteString(pl.text)
		}
		sb.WriteByte('\n')
		sb.WriteString(s[:sl.indent])
		sb.WriteString(sl.name)
		sl.name = sb.String()
		b.pending = b.pending[:0]
	}
	if b.detached && depth > 0 {
		depth--
	}
	sp := &Span{
		Name:    sl.name,
		Elapsed: sl.elapsed,
		Slow:    sl.slow,
		Current: sl.current,
		Line:    line,
	}
	b.attach(n, s, sp, depth)
}

func (b *treeBuilder) attach(n int, s string, sp *Span, depth int) {
	if depth == 0 || len(b.stack) == 0 {
		if depth > 0 {
			b.p.unknown(n, s, "indented span with no parent; kept as a root")
		}
		if !b.p.takeSpan() {
			return
		}
		sp.Depth = 0
		switch {
		case b.detached:
			b.t.Detached = append(b.t.Detached, sp)
		case b.t.Root == nil:
			b.t.Root = sp
		default:
			b.p.unknown(n, s, "second root span in one trace; kept as detached")
			b.t.Detached = append(b.t.Detached, sp)
		}
		b.stack = append(b.stack[:0], sp)
		return
	}
	if depth > len(b.stack) {
		depth = len(b.stack) // a skipped indentation level: attach to the deepest open span
	}
	if depth >= b.p.lim.MaxDepth {
		b.p.d.Stats.SpansDropped++
		return
	}
	if !b.p.takeSpan() {
		return
	}
	parent := b.stack[depth-1]
	sp.Depth = depth
	sp.parent = parent
	if !sp.Slow && sp.Elapsed >= longRunningThreshold {
		sp.LongRunning = true
	}
	parent.Children = append(parent.Children, sp)
	b.stack = append(b.stack[:depth], sp)
}

func (b *treeBuilder) flushPending(reason string) {
	for _, pl := range b.pending {
		b.p.unknown(pl.line, pl.text, reason)
	}
	b.pending = b.pending[:0]
}

func (b *treeBuilder) finish() {
	b.flushPending("span name without a duration")
}

// parseCaptured reads the `[captured 121.743801ms ago]` line that
// RisingWave's own async_stack_trace printed before each trace up to v0.1.17
// (src/utils/async_stack_trace/src/manager.rs:46-55).
func parseCaptured(s string) (time.Duration, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(s), "[captured ")
	if !ok {
		return 0, false
	}
	inner, ok = strings.CutSuffix(inner, " ago]")
	if !ok {
		return 0, false
	}
	return parseRustDuration(inner)
}

// isDetachedMarker matches `[Detached 5]`, written at column 0 before each
// detached subtree (await-tree context.rs, every version).
func isDetachedMarker(s string) bool {
	inner, ok := strings.CutPrefix(s, "[Detached ")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "]")
	return ok && inner != "" && allDigits(inner)
}
