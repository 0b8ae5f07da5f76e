package analyze

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/bundle"
)

// GatherOptions asks the bundle pass for more than the rules need. What it
// asks for is gathered in the same single pass.
type GatherOptions struct {
	// Timeline, when set, also keeps what a timeline is made of: the log
	// lines at or above its level (in its window, of its pods) and the rows
	// of sql/rw_event_logs.csv and sql/rw_ddl_progress.csv with their line
	// numbers. See BuildTimeline.
	Timeline *TimelineOptions
}

// GatherWith is Gather that also gathers what extra asks for, in the same
// pass over the bundle.
func GatherWith(ctx context.Context, path string, rules []*Rule, opts bundle.Options, extra GatherOptions) (*Gathered, error) {
	return gather(ctx, path, rules, opts, extra)
}

// Bounds on what the timeline keeps of the bundle.
const (
	// timelineFileLines is how many log lines the timeline keeps per file:
	// the first half and the last half of those at or above its level.
	timelineFileLines = 10000
	// timelineCSVBytes bounds a SQL dump the timeline reads.
	timelineCSVBytes = 64 << 20
)

// timelineTables are the SQL dumps the timeline reads rows of.
var timelineTables = map[string]bool{"rw_event_logs": true, "rw_ddl_progress": true, "rw_materialized_views": true}

// timelineTap receives a copy of the files the timeline is made of while the
// stores read them, so that the bundle is still read once.
type timelineTap struct {
	opts     TimelineOptions
	minLevel int
	logs     []TimelineEntry
	tables   map[string][]csvRecord // by relation
	paths    map[string]string      // relation -> bundle path
	notes    []string
}

// csvRecord is one row of a SQL dump: its fields by column and its line.
type csvRecord struct {
	line   int
	fields map[string]string
}

func newTimelineTap(o *TimelineOptions) *timelineTap {
	if o == nil {
		return nil
	}
	t := &timelineTap{opts: *o, tables: map[string][]csvRecord{}, paths: map[string]string{}}
	t.minLevel = logs.ParseLevel(o.MinLevel)
	if t.minLevel == 0 {
		t.minLevel = logs.ParseLevel("WARN")
	}
	return t
}

func (t *timelineTap) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// wants reports whether the timeline reads files of class c.
func (t *timelineTap) wants(c bundle.Class) bool {
	if t == nil {
		return false
	}
	switch c.Kind {
	case bundle.KindLog, bundle.KindPreviousLog:
		return t.opts.podMatches(c.Pod)
	case bundle.KindSQLTable:
		return timelineTables[c.Name]
	}
	return false
}

// tee returns a reader that reads e and passes a copy to the timeline, and
// a function to call once the stores are done with e: it reads what they
// left unread and finishes the file.
func (t *timelineTap) tee(e *bundle.Entry) (io.Reader, func()) {
	var sink interface {
		io.Writer
		finish()
	}
	if e.Kind == bundle.KindSQLTable {
		sink = &csvTap{t: t, name: e.Name, path: e.Path}
	} else {
		ft := &logFileTap{t: t, path: e.Path, pod: e.Pod, container: e.Container, previous: e.Kind == bundle.KindPreviousLog}
		ft.lines = lineSplitter{fn: ft.line}
		ft.events.MinLevel = t.minLevel
		sink = ft
	}
	r := io.TeeReader(e, sink)
	return r, func() {
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.note("%s: %v; the timeline has the part before", e.Path, err)
		}
		sink.finish()
	}
}

// lineSplitter cuts written bytes into lines numbered from 1, as
// bundle.LineReader does: "\n" or "\r\n" ends a line, a last line without
// one counts, and a line longer than bundle.DefaultMaxLineBytes is cut.
type lineSplitter struct {
	buf []byte
	n   int
	fn  func(line []byte, n int)
}

func (s *lineSplitter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.keep(p)
			break
		}
		s.keep(p[:i])
		s.emit(true)
		p = p[i+1:]
	}
	return total, nil
}

func (s *lineSplitter) keep(p []byte) {
	if room := bundle.DefaultMaxLineBytes + 1 - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(len(p), room)]...)
	}
}

// emit hands out the line kept; newline says a "\n" ended it, so that a
// "\r" before it goes too.
func (s *lineSplitter) emit(newline bool) {
	s.n++
	line := s.buf
	if n := len(line); newline && n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > bundle.DefaultMaxLineBytes {
		line = line[:bundle.DefaultMaxLineBytes]
	}
	s.fn(line, s.n)
	s.buf = s.buf[:0]
}

func (s *lineSplitter) finish() {
	if len(s.buf) > 0 {
		s.emit(false)
	}
}

// logFileTap keeps one log file's events at or above the timeline's level
// (a line and the lines that continue it; a panic is an ERROR event with
// the time of the line before it): the first and the last
// timelineFileLines/2.
type logFileTap struct {
	t                    *timelineTap
	path, pod, container string
	previous             bool
	lines                lineSplitter
	events               logs.Events

	head     []TimelineEntry
	tail     []TimelineEntry // a ring once full
	next     int
	count    int
	untimed  int
	parseErr int
}

func (f *logFileTap) Write(p []byte) (int, error) { return f.lines.Write(p) }

func (f *logFileTap) line(raw []byte, n int) {
	if ev, ok := f.events.Add(raw, n); ok {
		f.event(ev)
	}
}

func (f *logFileTap) event(ev logs.Event) {
	ll, n, level := ev.Line, ev.First, logs.ParseLevel(ev.Level)
	if ll.Time.IsZero() {
		f.untimed++
		return
	}
	at := ll.Time.UTC()
	if !f.t.opts.inWindow(at) {
		return
	}
	e := TimelineEntry{Time: at, Source: SourceLog, Level: logs.LevelName(level), Pod: f.pod, Container: f.container,
		Path: f.path, Line: n, Text: logs.EntryText(ll, level), previous: f.previous}
	f.count++
	const half = timelineFileLines / 2
	if len(f.head) < half {
		f.head = append(f.head, e)
		return
	}
	if len(f.tail) < half {
		f.tail = append(f.tail, e)
		return
	}
	f.tail[f.next] = e
	f.next = (f.next + 1) % half
}

func (f *logFileTap) finish() {
	f.lines.finish()
	if ev, ok := f.events.Flush(); ok {
		f.event(ev)
	}
	f.t.logs = append(f.t.logs, f.head...)
	f.t.logs = append(f.t.logs, f.tail[f.next:]...)
	f.t.logs = append(f.t.logs, f.tail[:f.next]...)
	if dropped := f.count - len(f.head) - len(f.tail); dropped > 0 {
		f.t.note("%s: %d of its %d lines at or above %s are left out (the timeline keeps the first and last %d)",
			f.path, dropped, f.count, logs.LevelName(f.t.minLevel), timelineFileLines/2)
	}
	if f.untimed > 0 {
		f.t.note("%s: %d lines at or above %s carry no time and are left out", f.path, f.untimed, logs.LevelName(f.t.minLevel))
	}
}

// csvTap keeps a SQL dump whole, to read its rows with their line numbers
// once the file ends.
type csvTap struct {
	t          *timelineTap
	name, path string
	buf        bytes.Buffer
	over       bool
}

func (c *csvTap) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > timelineCSVBytes {
		c.over = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *csvTap) finish() {
	if c.over {
		c.t.note("%s: larger than %d bytes; not on the timeline", c.path, timelineCSVBytes)
		return
	}
	cr := csv.NewReader(&c.buf)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return // the SQL store reports a broken dump
	}
	header = append([]string(nil), header...)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	var rows []csvRecord
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			c.t.note("%s: %v; the timeline has the rows before", c.path, err)
			break
		}
		line, _ := cr.FieldPos(0)
		r := csvRecord{line: line, fields: make(map[string]string, len(header))}
		for i, h := range header {
			if i < len(rec) {
				r.fields[h] = rec[i]
			}
		}
		rows = append(rows, r)
	}
	c.t.tables[c.name] = rows
	c.t.paths[c.name] = c.path
}

// podMatches reports whether a pod passes the Pod filter.
func (o TimelineOptions) podMatches(pod string) bool {
	if o.Pod == "" {
		return true
	}
	ok, err := path.Match(o.Pod, pod)
	return ok && err == nil
}

// inWindow reports whether t is within Since and Until.
func (o TimelineOptions) inWindow(t time.Time) bool {
	return (o.Since.IsZero() || !t.Before(o.Since)) && (o.Until.IsZero() || !t.After(o.Until))
}
