package awaittree

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// knownSections maps the headers of StackTraceResponseOutput's Display
// (src/common/src/util/prost.rs since v1.9.0; risectl's
// src/ctl/src/cmd_impl/trace.rs and await_tree.rs, and the meta's
// diagnose.rs, before) to their kind.
var knownSections = map[string]Kind{
	"Actor Traces":            KindActor,           // every version
	"RPC Traces":              KindRPC,             // every version
	"Compactor Traces":        KindCompaction,      // v1.0.0
	"Inflight Barrier Traces": KindInflightBarrier, // v1.8.0
	"Barrier Worker States":   KindBarrierWorker,   // v1.9.0, always printed
	"JVM Stack Traces":        KindJVM,             // v1.10.0
	"Meta Traces":             KindMeta,            // v2.5.0
	"Stack Trace Errors":      KindErrors,          // v2.8.0
	"Batch Traces":            KindBatch,           // after v3.0.3
}

// entryPrefix is what follows `>> ` at the head of an entry in each section.
var entryPrefix = map[Kind]string{
	KindActor:           "Actor ",
	KindRPC:             "RPC ",
	KindCompaction:      "Compaction Task ",
	KindBatch:           "Batch Task ",
	KindInflightBarrier: "Barrier ",
	KindBarrierWorker:   "Worker ",
	KindJVM:             "Worker ",
	KindErrors:          "Worker ",
	KindMeta:            "",
}

// dashboardHeaders are the entry headers the meta dashboard's Await Tree
// page renders (dashboard/pages/await_tree.tsx: 65-69 at v1.0.0, 75-95
// since v1.10.0), longest first.
var dashboardHeaders = []struct {
	prefix, suffix string
	kind           Kind
}{
	{"[BarrierWorkerState (Worker ", ")]", KindBarrierWorker},
	{"[JVM (Worker ", ")]", KindJVM},
	{"[Compaction ", "]", KindCompaction},
	{"[Barrier ", "]", KindInflightBarrier},
	{"[Actor ", "]", KindActor},
	{"[RPC ", "]", KindRPC},
}

// diagnoseEpilogue is the first line after the await-tree part of a
// diagnose report from v1.6.0 to v2.7.x, where the event logs follow it
// (src/meta/src/manager/diagnose.rs write_event_logs).
const diagnoseEpilogue = "latest barrier completions"

// entry takes the lines of one `>> …` entry.
type entry interface {
	feed(line int, s string)
	finish()
}

type textParser struct {
	*parser
	diagnose  bool
	preamble  bool // in a diagnose report, before the await-tree part
	epilogue  bool // in a diagnose report, after it
	dashboard bool
	sec       int // index of the current section in d.Sections, -1 for none
	kind      Kind
	known     bool // the current section is one this package parses
	dashSecs  map[Kind]int
	ent       entry
}

func (p *parser) parseText(br *bufio.Reader) error {
	tp := &textParser{parser: p, sec: -1}
	lr := &lineReader{br: br, max: p.lim.MaxLineBytes, budget: p.lim.MaxInputBytes}
	for {
		s, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if lr.cut {
			p.unknown(lr.n, s, fmt.Sprintf("line longer than %d bytes; cut", p.lim.MaxLineBytes))
		}
		tp.line(lr.n, s)
	}
	tp.endEntry()
	p.d.Stats.Lines = lr.n
	if lr.stopped {
		p.d.Stats.Truncated = true
		p.unknown(lr.n, "", fmt.Sprintf("input longer than %d bytes; the rest was not read", p.lim.MaxInputBytes))
	}
	switch {
	case tp.diagnose:
		p.d.Format = FormatDiagnose
		if tp.preamble {
			p.unknown(1, "report created at: …", "diagnose report without an await-tree part")
		}
	case tp.dashboard:
		p.d.Format = FormatDashboardText
	case p.d.Understood():
		p.d.Format = FormatText
	}
	return nil
}

func (tp *textParser) line(n int, s string) {
	switch {
	case tp.epilogue:
		tp.d.Stats.SkippedLines++
		return
	case n == 1 && strings.HasPrefix(s, "report created at: "):
		tp.diagnose, tp.preamble = true, true
		tp.d.Stats.SkippedLines++
		return
	}
	if name, ok := sectionHeader(s); ok {
		kind, known := knownSections[name]
		if tp.preamble {
			if !known {
				tp.d.Stats.SkippedLines++
				return
			}
			tp.preamble = false
		}
		tp.endEntry()
		if !known {
			kind = KindUnknown
			tp.unknown(n, s, "unrecognised section header")
		}
		tp.sec = len(tp.d.Sections)
		tp.addSection(name, kind, n, known)
		tp.kind, tp.known = kind, known
		return
	}
	if tp.preamble {
		tp.d.Stats.SkippedLines++
		return
	}
	if tp.diagnose && s == diagnoseEpilogue {
		tp.endEntry()
		tp.epilogue = true
		tp.d.Stats.SkippedLines++
		return
	}
	if rest, ok := strings.CutPrefix(s, ">> "); ok && tp.entryHeader(n, s, rest) {
		return
	}
	if tp.sec < 0 || tp.dashboard {
		if tp.dashboardLine(n, s) {
			return
		}
	}
	if tp.sec < 0 && tp.ent == nil && isNotice(s) {
		tp.addSection(s, KindNotice, n, true)
		return
	}
	if tp.ent != nil {
		tp.ent.feed(n, s)
		return
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	switch {
	case tp.sec >= 0 && !tp.known:
		tp.unknown(n, s, fmt.Sprintf("in unrecognised section %q", tp.d.Sections[tp.sec].Name))
	case tp.sec >= 0:
		tp.unknown(n, s, fmt.Sprintf("before the first entry of section %q", tp.d.Sections[tp.sec].Name))
	default:
		tp.unknown(n, s, "outside any await-tree section")
	}
}

// entryHeader handles a `>> …` line; false when it is not an entry header
// here (then it is fed to the current entry, or reported).
func (tp *textParser) entryHeader(n int, s, rest string) bool {
	kind := tp.kind
	if tp.sec < 0 && !tp.dashboard {
		// A compute node's own print-out (stream_manager.rs
		// spawn_print_trace) has `>> Actor N` entries and no section header.
		if !strings.HasPrefix(rest, "Actor ") {
			return false
		}
		kind = KindActor
		tp.kind, tp.known = KindActor, true
	}
	if tp.sec >= 0 && !tp.known {
		return false
	}
	if tp.dashboard {
		return false // the page's entries are `[Kind key]`; `>> ` is content there
	}
	tp.endEntry()
	prefix := entryPrefix[kind]
	key, ok := strings.CutPrefix(rest, prefix)
	if !ok || key == "" {
		tp.unknown(n, s, fmt.Sprintf("entry header not expected in %s traces", kind))
		tp.ent = &skipEntry{p: tp.parser, reason: "in an entry with an unexpected header"}
		return true
	}
	tp.startEntry(n, s, kind, key)
	return true
}

func (tp *textParser) startEntry(n int, s string, kind Kind, key string) {
	e, reason := tp.newEntry(kind, key, n)
	if e == nil {
		tp.unknown(n, s, reason)
		tp.ent = &skipEntry{p: tp.parser, reason: "in an entry with an unreadable header"}
		return
	}
	if tp.sec >= 0 {
		tp.d.Sections[tp.sec].Entries++
	}
	tp.ent = e
}

// dashboardLine handles the dashboard page's title, `[Kind key]` headers
// and ERROR line.
func (tp *textParser) dashboardLine(n int, s string) bool {
	if strings.HasPrefix(s, "Await-Tree Dump of ") && strings.HasSuffix(s, ":") {
		tp.endEntry()
		tp.dashboard = true
		tp.addSection(s, KindTitle, n, true)
		return true
	}
	if rest, ok := strings.CutPrefix(s, "ERROR: "); ok && tp.dashboard {
		tp.endEntry()
		tp.ent = &textEntry{p: tp.parser, kind: KindErrors, line: n, text: []byte(rest)}
		return true
	}
	if !strings.HasPrefix(s, "[") || isDetachedMarker(s) {
		return false
	}
	if _, ok := parseCaptured(s); ok {
		return false
	}
	for _, h := range dashboardHeaders {
		rest, ok := strings.CutPrefix(s, h.prefix)
		if !ok {
			continue
		}
		key, ok := strings.CutSuffix(rest, h.suffix)
		if !ok || key == "" || (h.kind != KindRPC && h.kind != KindCompaction && !allDigits(key)) {
			continue
		}
		tp.endEntry()
		tp.dashboard = true
		if tp.dashSecs == nil {
			tp.dashSecs = map[Kind]int{}
		}
		idx, seen := tp.dashSecs[h.kind]
		if !seen {
			idx = len(tp.d.Sections)
			tp.dashSecs[h.kind] = idx
			tp.addSection(strings.TrimSpace(h.prefix)+h.suffix[:len(h.suffix)-1]+"]", h.kind, n, true)
		}
		tp.sec, tp.kind, tp.known = idx, h.kind, true
		tp.startEntry(n, s, h.kind, key)
		return true
	}
	return false
}

func (tp *textParser) endEntry() {
	if tp.ent != nil {
		tp.ent.finish()
		tp.ent = nil
	}
}

// sectionHeader matches `--- Name ---`. v2.0–v2.7 barrier worker states
// hold `--- Partial Group N` lines, which lack the closing dashes.
func sectionHeader(s string) (string, bool) {
	inner, ok := strings.CutPrefix(s, "--- ")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, " ---")
	if !ok || strings.TrimSpace(inner) == "" || strings.HasPrefix(inner, "-") || strings.HasSuffix(inner, "-") {
		return "", false
	}
	return inner, true
}

// isNotice matches what risectl prints for an empty dump: "No traces found.
// No actors are running, or `--async-stack-trace` not set?" to stdout up to
// v2.3, "No actors are running, or `--async-stack-trace` not set?" to
// stderr since.
func isNotice(s string) bool {
	return strings.HasPrefix(s, "No traces found.") || strings.HasPrefix(s, "No actors are running, or `--async-stack-trace` not set?")
}

// newEntry makes the entry for one `>> …` header, or says why it cannot.
func (p *parser) newEntry(kind Kind, key string, line int) (entry, string) {
	switch kind {
	case KindActor:
		id, err := strconv.ParseUint(key, 10, 64)
		if err != nil {
			return nil, "actor id is not a number"
		}
		return newTraceEntry(p, Trace{Kind: kind, ActorID: id, Key: key, Line: line}, &p.d.Actors), ""
	case KindRPC:
		return newTraceEntry(p, Trace{Kind: kind, Key: key, Line: line}, &p.d.RPC), ""
	case KindCompaction, KindBatch, KindMeta, KindInflightBarrier:
		return newTraceEntry(p, Trace{Kind: kind, Key: key, Line: line}, &p.d.Other), ""
	case KindBarrierWorker, KindJVM, KindErrors:
		id, err := strconv.ParseUint(key, 10, 64)
		if err != nil {
			return nil, "worker id is not a number"
		}
		if kind == KindBarrierWorker {
			return &workerEntry{p: p, w: WorkerState{WorkerID: id, Line: line}, graph: -1, dbg: debugState{epoch: -1}}, ""
		}
		return &textEntry{p: p, kind: kind, worker: id, key: key, line: line}, ""
	}
	return nil, "no entries expected here"
}

// traceEntry collects one trace, rendered as text or serde JSON.
type traceEntry struct {
	p       *parser
	t       Trace
	dest    *[]Trace
	b       treeBuilder
	started bool
	json    bool
	buf     []byte
	bufLine int
	tooBig  bool
}

func newTraceEntry(p *parser, t Trace, dest *[]Trace) *traceEntry {
	e := &traceEntry{p: p, t: t, dest: dest}
	e.b = treeBuilder{p: p, t: &e.t}
	return e
}

func (e *traceEntry) feed(n int, s string) {
	if !e.started {
		if strings.TrimSpace(s) == "" {
			return
		}
		e.started = true
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			e.json, e.bufLine = true, n
		}
	}
	if !e.json {
		e.b.feed(n, s)
		return
	}
	if e.tooBig {
		return
	}
	if int64(len(e.buf)+len(s)+1) > e.p.lim.MaxJSONBytes {
		e.tooBig = true
		e.p.unknown(e.bufLine, "", fmt.Sprintf("JSON trace larger than %d bytes; not parsed", e.p.lim.MaxJSONBytes))
		e.buf = nil
		return
	}
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, '\n')
}

func (e *traceEntry) finish() {
	if e.json {
		if !e.tooBig {
			e.p.parseTraceJSON(&e.t, e.buf, e.bufLine)
		}
	} else {
		e.b.finish()
	}
	if e.t.Root == nil && len(e.t.Detached) == 0 && !e.tooBig {
		e.p.unknown(e.t.Line, e.t.Key, "entry without a trace")
	}
	*e.dest = append(*e.dest, e.t)
}

// textEntry keeps an entry's text: a JVM stack trace or a node's error.
type textEntry struct {
	p      *parser
	kind   Kind
	worker uint64
	key    string
	line   int
	text   []byte
}

func (e *textEntry) feed(n int, s string) {
	if e.kind == KindJVM {
		e.p.d.Stats.OpaqueLines++
	}
	if len(e.text) == 0 && strings.TrimSpace(s) == "" {
		return
	}
	// Past MaxTextBytes the text is dropped; the trace is there, its
	// content is not what rules read.
	if room := e.p.lim.MaxTextBytes - len(e.text); room > 0 {
		if len(e.text) > 0 {
			e.text = append(e.text, '\n')
		}
		e.text = append(e.text, clip(s, room)...)
	}
}

func (e *textEntry) finish() {
	text := strings.TrimRight(clip(string(e.text), e.p.lim.MaxTextBytes), "\n ")
	if e.kind == KindJVM {
		e.p.d.Other = append(e.p.d.Other, Trace{Kind: KindJVM, Key: e.key, Line: e.line, Text: text})
		return
	}
	e.p.d.NodeErrors = append(e.p.d.NodeErrors, NodeError{WorkerID: e.worker, Text: text, Line: e.line})
}

// skipEntry reports every line of an entry this package cannot read.
type skipEntry struct {
	p      *parser
	reason string
}

func (e *skipEntry) feed(n int, s string) {
	if strings.TrimSpace(s) != "" {
		e.p.unknown(n, s, e.reason)
	}
}

func (e *skipEntry) finish() {}
