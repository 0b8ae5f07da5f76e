package logs

import (
	"bytes"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// fileScan is the scan of one file: its queries, the matches of the event
// being read, and its statistics.
//
// In a log, a match is the event's, not the line's (see Event): a query
// matches each line's text, and a line that matches gives the row of the
// event it belongs to (its time, level, target and message) and counts
// once per event. Reading line by line, the tracker follows the events
// and the matches of the current one wait for its end. Reading in blocks
// (logblock.go), a matching line's event is looked up around it in the
// block, which is cut before its last event so that every event it holds
// is whole: see cutBlock.
type fileScan struct {
	s    *Scanner
	meta *fileMeta
	qs   []*scanQuery
	log  bool // a container log: lines are parsed and grouped into events
	st   *FileStats
	smp  sampler

	// Reading line by line.
	t       tracker
	pending []pendingHit

	// Reading in blocks: the last line that has a time before the block.
	lastTS []byte
	ev     []byte // scratch: an event's lines
}

// pendingHit is a match in the current event, read line by line.
type pendingHit struct {
	q       *scanQuery
	n       int
	raw     []byte
	section evidence.Row
}

// hit is a match: the line and the event it belongs to.
type hit struct {
	raw  []byte // the line that matched
	n    int    // its number
	ev   []byte // its event's lines, joined by "\n"; nil outside logs
	prev []byte // for a panic, the nearest line before it that has a time
}

// judge runs the queries over one line with its head h, and calls found
// with each query that matches it. A head below a query's level is
// skipped; other lines are judged by their event's level, later.
func (f *fileScan) judge(raw []byte, h *lineHead, found func(q *scanQuery)) {
	s := f.s
	if !f.log {
		sectionHeaders(raw, f.qs)
		s.lowerOK, s.ks = false, ksUnknown
		for _, q := range f.qs {
			if q.pre.match(raw, s) && q.regexp().Match(raw) {
				found(q)
			}
		}
		return
	}
	sectionHeaders(raw, f.qs)
	text, level := raw[h.body:], h.level
	if h.json {
		if !s.jsonCandidate(text, f.qs) {
			return
		}
		if out, jf, ok := renderJSONLine(s.json[:0], text); ok {
			s.json, text, level = out, out, jf.level
		}
	}
	s.lowerOK, s.ks = false, ksUnknown
	for _, q := range f.qs {
		if q.minLevel != levelNone && level != levelNone && level < q.minLevel {
			continue
		}
		if !q.pre.match(text, s) || !q.regexp().Match(text) {
			continue
		}
		found(q)
	}
}

// below reports whether an event whose head is raw is below q's level.
func (q *scanQuery) below(head []byte) bool {
	if q.minLevel == levelNone {
		return false
	}
	level := LineLevel(head)
	return level != levelNone && level < q.minLevel
}

// line takes line n when reading line by line.
func (f *fileScan) line(raw []byte, n int) {
	if !f.smp.done() && f.log {
		f.smp.observe(raw)
	}
	f.st.Lines = n
	if !f.log {
		f.judge(raw, nil, func(q *scanQuery) { f.s.record(q, f.meta, hit{raw: raw, n: n}, q.section) })
		return
	}
	h := scanHead(raw)
	if f.t.first > 0 && !f.t.joins(&h, len(raw)+1) {
		f.flush()
	}
	f.t.add(raw, n, &h, keepAll)
	f.judge(raw, &h, func(q *scanQuery) {
		if q.lastHead == f.t.first {
			return // the event matched already
		}
		if n != f.t.first && q.below(f.t.buf[:headLen(f.t.buf)]) {
			return
		}
		q.lastHead = f.t.first
		f.pending = append(f.pending, pendingHit{q: q, n: n, raw: bytes.Clone(raw), section: q.section})
	})
}

func keepAll(h *lineHead, _ []byte) (int, bool) { return h.level, true }

// headLen is the length of an event's head line.
func headLen(ev []byte) int {
	if i := bytes.IndexByte(ev, '\n'); i >= 0 {
		return i
	}
	return len(ev)
}

// flush records the matches of the event that ended.
func (f *fileScan) flush() {
	var prev []byte
	if len(f.t.prev) > 0 {
		prev = f.t.prev
	}
	for _, p := range f.pending {
		f.s.record(p.q, f.meta, hit{raw: p.raw, n: p.n, ev: f.t.buf, prev: prev}, p.section)
	}
	f.pending = f.pending[:0]
}

// finish ends the file.
func (f *fileScan) finish() {
	if f.log {
		f.flush()
		if f.lastTS == nil {
			f.lastTS = f.t.lastTS
		}
		if f.lastTS != nil {
			f.st.Last = lineTime(f.lastTS)
		}
	}
}

// toLines hands the block path's state to the line-by-line path, which
// takes over after a line longer than a block. The block was cut where
// no event was open within maxEventBytes (see cutBlock), so the lines
// that follow start events or stand alone.
func (f *fileScan) toLines() {
	f.t = tracker{lastTS: f.lastTS}
	f.lastTS = nil
}

// blockLine judges a line of a block, block[start:end].
func (f *fileScan) blockLine(block []byte, start, end, n int) {
	line := lineContent(block, start, end)
	if !f.log {
		f.judge(line, nil, func(q *scanQuery) { f.s.record(q, f.meta, hit{raw: line, n: n}, q.section) })
		return
	}
	h := scanHead(line)
	resolved, orphan := false, false
	var hs, headN int
	var head lineHead // the event's head's
	f.judge(line, &h, func(q *scanQuery) {
		if !resolved {
			resolved = true
			hs, headN, head = start, n, h
			if !h.head() {
				if s, hh, ok := findHead(block, start, len(line)+1); ok {
					hs, head = s, hh
					headN = n - bytes.Count(block[hs:start], nl)
				} else {
					orphan = true
				}
			}
		}
		if q.lastHead == headN {
			return
		}
		if !orphan && headN != n && q.below(lineContent(block, hs, lineEnd(block, hs))) {
			return
		}
		q.lastHead = headN
		ht := hit{raw: line, n: n}
		switch {
		case orphan || headN == n && oneLine(block, end, &h, line):
			ht.ev = line
		default:
			f.ev = eventLines(f.ev[:0], block, hs)
			ht.ev = f.ev
		}
		if !orphan && head.panic {
			ht.prev = f.timeBefore(block, hs)
		}
		f.s.record(q, f.meta, ht, q.section)
	})
}

// oneLine reports whether the event whose head h is the line ending at
// block[end] has no other line.
func oneLine(block []byte, end int, h *lineHead, line []byte) bool {
	if end >= len(block) || h.closed(line) {
		return true
	}
	s := end + 1
	if s >= len(block) {
		return true
	}
	c := lineContent(block, s, lineEnd(block, s))
	nh := scanHead(c)
	return nh.head() || len(line)+len(c)+2 > maxEventBytes
}

// lineContent is the line block[start:end] as a line reader hands it out:
// without the "\r" of a "\r\n".
func lineContent(block []byte, start, end int) []byte {
	l := block[start:end]
	if n := len(l); n > 0 && l[n-1] == '\r' && end < len(block) {
		l = l[:n-1]
	}
	return l
}

// lineEnd is the end of the line that starts at block[start].
func lineEnd(block []byte, start int) int {
	if e := bytes.IndexByte(block[start:], '\n'); e >= 0 {
		return start + e
	}
	return len(block)
}

// lineBefore returns the start of the line that ends just before s, a
// line's start after the first.
func lineBefore(block []byte, s int) int {
	return bytes.LastIndexByte(block[:s-1], '\n') + 1
}

// findHead looks for the head of the event the line at block[start:]
// (of weight w) belongs to: the nearest head above it, when the event up
// to this line is within maxEventBytes and the head is not a whole JSON
// line. A line with none stands alone.
func findHead(block []byte, start, w int) (int, lineHead, bool) {
	cum := w
	for s := start; s > 0; {
		ps := lineBefore(block, s)
		c := lineContent(block, ps, s-1)
		if cum += len(c) + 1; cum > maxEventBytes {
			return 0, lineHead{}, false
		}
		if h := scanHead(c); h.head() {
			return ps, h, !h.closed(c)
		}
		s = ps
	}
	return 0, lineHead{}, false
}

// eventLines appends the lines of the event whose head starts at
// block[hs], joined by "\n": the head, and the lines after it up to the
// next head, within maxEventBytes (as the tracker keeps them).
func eventLines(dst, block []byte, hs int) []byte {
	e := lineEnd(block, hs)
	c := lineContent(block, hs, e)
	dst = append(dst, c...)
	if h := scanHead(c); h.closed(c) {
		return dst
	}
	cum := len(c) + 1
	for s := e + 1; e < len(block) && s < len(block); s = e + 1 {
		e = lineEnd(block, s)
		c = lineContent(block, s, e)
		if h := scanHead(c); h.head() || cum+len(c)+1 > maxEventBytes {
			break
		}
		cum += len(c) + 1
		dst = append(append(dst, '\n'), c...)
	}
	return dst
}

// timeBefore returns the nearest line before block[hs] that has a time.
func (f *fileScan) timeBefore(block []byte, hs int) []byte {
	for s := hs; s > 0; {
		ps := lineBefore(block, s)
		c := lineContent(block, ps, s-1)
		if h := scanHead(c); h.hasTime(c) {
			return c
		}
		s = ps
	}
	return f.lastTS
}

// cutBlock returns where to end a block of a log whose complete lines are
// data[:lastNL]: at the start of its last event, so that the next block
// starts with it, when that event is within maxEventBytes of the end.
// Otherwise every event that starts in the block is whole in it as far as
// it is kept (maxEventBytes), and the lines after it stand alone wherever
// the block ends, so it ends after its last complete line.
func cutBlock(data []byte, lastNL int) int {
	cum := 0
	for s := lastNL; s > 0; {
		ps := lineBefore(data, s)
		c := lineContent(data, ps, s-1)
		if cum += len(c) + 1; cum > maxEventBytes {
			return lastNL
		}
		if h := scanHead(c); h.head() {
			if ps > 0 {
				return ps
			}
			return lastNL
		}
		s = ps
	}
	return lastNL
}

// blockDone notes, for a block of a log, the first lines for the
// statistics and the last line that has a time.
func (f *fileScan) blockDone(block []byte) {
	for s := 0; s < len(block) && !f.smp.done(); {
		e := lineEnd(block, s)
		f.smp.observe(lineContent(block, s, e))
		s = e + 1
	}
	e := len(block)
	if e > 0 && block[e-1] == '\n' {
		e--
	}
	for e >= 0 && len(block) > 0 {
		s := bytes.LastIndexByte(block[:e], '\n') + 1
		c := lineContent(block, s, e)
		if h := scanHead(c); h.hasTime(c) {
			f.lastTS = append(f.lastTS[:0], c...)
			return
		}
		if s == 0 {
			return
		}
		e = s - 1
	}
}
