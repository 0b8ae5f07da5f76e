package logs

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// Query is one rule signal's query over logs and other text files,
// compiled when the rule is loaded, or, for expressions known to compile
// (the built-in rules'), when first needed: see Source.
//
// A Query must not be copied after first use.
type Query struct {
	// Name identifies the query: "<rule id>/<signal>".
	Name string
	// Regex is matched against each normalised line (Line.Text). Its
	// named captures become row fields.
	Regex *regexp.Regexp
	// Source, when Regex is nil, is Regex's source: the expression is
	// compiled when the query first needs it (Regexp), that is when a
	// line first passes its prefilter, or its captures are asked for. It
	// must compile, or Regexp panics; CheckQuery says whether it does. It
	// is for expressions checked ahead, such as the built-in rules', so
	// that those no line comes near are never compiled: a user's rule is
	// compiled, and checked, when loaded.
	Source string
	// Kinds are the files it reads: KindLog, KindPreviousLog, KindDescribe,
	// KindDiagnoseReport, KindAwaitTreeText, KindAwaitTreeJSON,
	// KindKafkaGroups, KindSQLExplain. None means logs and previous logs.
	Kinds []bundle.Kind
	// Container, when set, restricts log files to that container's. Files
	// that belong to no container (describe, diagnose) are not restricted.
	Container string
	// MinLevel, when set, skips events below that level: a log line is
	// judged by its event's level (a continuation line by its head's, a
	// panic is an ERROR); lines that belong to no event with a level (the
	// lines before a log's first head, other files) are kept.
	MinLevel string
	// MaxRows bounds the rows kept (0 means DefaultMaxRows): the first
	// half and the last half of the matches. Count stays exact.
	MaxRows int
	// Section, when set, marks section headers: the named captures of the
	// last header line above a match (in the same file) join its row, so a
	// match can be attributed to, say, the ">> Worker 2" it sits under.
	Section *regexp.Regexp
	// SectionSource, when Section is nil, is Section's source, compiled
	// when first needed (SectionRegexp), as Source is.
	SectionSource string

	re, section lazyRegexp // Source and SectionSource, compiled
}

// lazyRegexp is an expression compiled once, when first needed, by
// whichever goroutine needs it first.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
	err  error
}

// compiledHook, when set (by tests), is called with each expression
// compiled from a Query's Source or SectionSource.
var compiledHook func(expr string)

func (l *lazyRegexp) get(expr string) (*regexp.Regexp, error) {
	l.once.Do(func() {
		l.re, l.err = regexp.Compile(expr)
		if compiledHook != nil {
			compiledHook(expr)
		}
	})
	return l.re, l.err
}

// Expr returns the query's regular expression's source: Regex's, or
// Source; "" when it has none.
func (q *Query) Expr() string {
	if q.Regex != nil {
		return q.Regex.String()
	}
	return q.Source
}

// Regexp returns the query's regular expression: Regex, or Source
// compiled (once; it is safe for concurrent use); nil when it has none.
// It panics when Source does not compile.
func (q *Query) Regexp() *regexp.Regexp { return q.compiled(q.Regex, q.Source, &q.re, "") }

// SectionRegexp returns the query's section expression: Section, or
// SectionSource compiled, as Regexp does; nil when it has none.
func (q *Query) SectionRegexp() *regexp.Regexp {
	return q.compiled(q.Section, q.SectionSource, &q.section, "section: ")
}

// compiled is re, or src compiled once through l; nil when neither is set.
func (q *Query) compiled(re *regexp.Regexp, src string, l *lazyRegexp, what string) *regexp.Regexp {
	if re != nil || src == "" {
		return re
	}
	c, err := l.get(src)
	if err != nil {
		panic(fmt.Sprintf("log query %q: %s%v", q.Name, what, err))
	}
	return c
}

// hasSection reports whether the query has a section expression.
func (q *Query) hasSection() bool { return q.Section != nil || q.SectionSource != "" }

// DefaultMaxRows is the rows a Query keeps when its MaxRows is 0.
const DefaultMaxRows = 1000

// Bounds on what a matched line contributes to its row.
const (
	maxLogTextBytes    = 500     // the "text" field
	maxLogMessageBytes = 8 << 10 // the "message" field
	maxSlotBytes       = 64 << 10
	maxAwaitTreeBytes  = 256 << 20
)

// logRowKeys are the fields every log row has; named captures may not use
// them. "component" is added by the engine.
var logRowKeys = []string{"pod", "container", "path", "line", "time", "text", "message", "level", "target", "previous", "kind", "component", "name"}

// logQueryKinds are the kinds a Query may read.
var logQueryKinds = []bundle.Kind{
	bundle.KindLog, bundle.KindPreviousLog, bundle.KindDescribe, bundle.KindDiagnoseReport,
	bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON, bundle.KindKafkaGroups, bundle.KindSQLExplain,
}

// CheckQuery reports what is wrong with a query: no regular expression,
// a named capture that would shadow a row field, a kind that is not text,
// an unknown level.
//
// A query given by Source (or SectionSource) has it compiled here, and
// CheckQuery reports when it does not compile.
func CheckQuery(q *Query) error {
	re := q.Regex
	if re == nil && q.Source != "" {
		var err error
		if re, err = q.re.get(q.Source); err != nil {
			return fmt.Errorf("log query %q: %v", q.Name, err)
		}
	}
	if re == nil {
		return fmt.Errorf("log query %q: no regular expression", q.Name)
	}
	if q.Section == nil && q.SectionSource != "" {
		if _, err := q.section.get(q.SectionSource); err != nil {
			return fmt.Errorf("log query %q: section: %v", q.Name, err)
		}
	}
	for _, n := range re.SubexpNames() {
		if slices.Contains(logRowKeys, n) {
			return fmt.Errorf("log query %q: capture name %q is a row field (%s)", q.Name, n, strings.Join(logRowKeys, ", "))
		}
	}
	for _, k := range q.Kinds {
		if !slices.Contains(logQueryKinds, k) {
			return fmt.Errorf("log query %q: %s files are not text a regular expression reads", q.Name, k)
		}
	}
	if q.MinLevel != "" && ParseLevel(q.MinLevel) == levelNone {
		return fmt.Errorf("log query %q: unknown level %q (want TRACE, DEBUG, INFO, WARN or ERROR)", q.Name, q.MinLevel)
	}
	if q.MaxRows < 0 {
		return fmt.Errorf("log query %q: max rows must not be negative", q.Name)
	}
	return nil
}

// Scanner runs the regular expressions of many queries over text files
// in one pass per file, keeping the matches as rows.
//
// It is built for multi-gigabyte logs: a line that no query's literals
// appear in is not even split out of its file, which is searched a block at
// a time for the literals of all queries at once (see logblock.go). Every
// query gets a prefilter (the literal strings any match must contain, read
// off the regular expression's syntax tree), the regular expression runs on
// the raw bytes after the kubectl prefix, and only JSON lines are rendered
// into text first, and only those whose bytes hold the query's literals.
//
// A Scanner is not safe for concurrent use.
type Scanner struct {
	queries []*scanQuery
	byName  map[string]*scanQuery
	cut     map[string]int

	// Scratch reused across lines.
	json    []byte // a rendered JSON line
	line    []byte // a synthesized await-tree line
	lower   []byte // the current line, folded, when lowerOK
	lowerOK bool
	ks      ksState // whether the current line may hold a Kelvin sign or long s

	files []FileStats // see Files

	// Block scanning (see logblock.go).
	jobsMade []*blockJob // at most pipelineBlocks, reused from file to file
	freeJobs []*blockJob // those not in flight
	search   gateSearch
	freq     byteFreq
}

type ksState int

const (
	ksUnknown ksState = iota
	ksNo
	ksYes
)

// scanQuery is a Query with its compiled state and its matches.
type scanQuery struct {
	q         *Query
	expr      string         // q.Expr(); "" when q has no expression and never matches
	re        *regexp.Regexp // q.Regexp(), once regexp has been called
	sec       *regexp.Regexp // q.SectionRegexp(), once sectionRegexp has been called
	kinds     uint64
	minLevel  int
	pre       prefilter
	pieces    []lit // required in a JSON line's bytes, see jsonPieces
	jsonAny   bool  // no pieces: every JSON line is rendered
	gates     gates // one of them is in the bytes of any line it may match, see queryGates
	gated     bool
	headCap   int
	tailCap   int
	count     int
	files     int
	head      []evidence.Row
	tail      []slot
	tailNext  int
	tailCount int
	section   evidence.Row // captures of the current file's last section header
	lastHead  int          // the head line of the current file's event it last matched
}

// slot holds one of the last matches: the raw line and its event, turned
// into a row only when results are asked for. Long events are turned into
// rows at once.
type slot struct {
	raw, ev, prev []byte
	hasEv         bool
	single        bool // ev is raw: the match's event is its one line
	row           evidence.Row
	file          *fileMeta
	line          int
	section       evidence.Row
}

type fileMeta struct {
	path, pod, container string
	name                 string // the class's name: the relation of an EXPLAIN file
	kind                 bundle.Kind
	log                  bool // a container log, read as log lines and events
}

// NewScanner compiles the queries' prefilters. Queries without a regular
// expression never match; see CheckQuery.
func NewScanner(queries []*Query) *Scanner {
	s := &Scanner{byName: map[string]*scanQuery{}, cut: map[string]int{}}
	for _, q := range queries {
		if q == nil {
			continue
		}
		limit := q.MaxRows
		if limit <= 0 {
			limit = DefaultMaxRows
		}
		sq := &scanQuery{q: q, expr: q.Expr(), minLevel: ParseLevel(q.MinLevel), headCap: (limit + 1) / 2, tailCap: limit / 2}
		kinds := q.Kinds
		if len(kinds) == 0 {
			kinds = []bundle.Kind{bundle.KindLog, bundle.KindPreviousLog}
		}
		for _, k := range kinds {
			if k >= 0 && k < 64 {
				sq.kinds |= 1 << uint(k)
			}
		}
		if sq.expr != "" {
			sq.pre = newPrefilter(sq.expr)
			sq.pieces = jsonPieces(sq.pre)
			sq.jsonAny = len(sq.pieces) == 0
			sq.gates, sq.gated = queryGates(sq)
		}
		s.queries = append(s.queries, sq)
		s.byName[q.Name] = sq
	}
	return s
}

// regexp returns the query's regular expression, compiling it when the
// query is given by Source and this is its first use. Only the scanning
// goroutine calls it: Results, which rules may call at once, reads q.q.
func (q *scanQuery) regexp() *regexp.Regexp {
	if q.re == nil {
		q.re = q.q.Regexp()
	}
	return q.re
}

// sectionRegexp is regexp for the section expression; nil when there is
// none.
func (q *scanQuery) sectionRegexp() *regexp.Regexp {
	if q.sec == nil {
		q.sec = q.q.SectionRegexp()
	}
	return q.sec
}

func (q *scanQuery) wants(c bundle.Class) bool {
	if q.expr == "" || q.kinds&(1<<uint(c.Kind&63)) == 0 || c.Kind < 0 || c.Kind >= 64 {
		return false
	}
	return q.q.Container == "" || c.Container == "" || q.q.Container == c.Container
}

// Wants reports whether any query reads files of this class, so the bundle
// pass can skip the others without reading them.
func (s *Scanner) Wants(c bundle.Class) bool {
	for _, q := range s.queries {
		if q.wants(c) {
			return true
		}
	}
	return false
}

// Scan reads one file, bundle path p of class c, and runs every query that
// wants it over each line in one pass. Lines longer than
// bundle.DefaultMaxLineBytes are cut and counted (see CutLines). An
// await-tree JSON file is read whole: each line of each string value in it is
// scanned as "<key path>: <line>", with line number 0. A read error ends the
// file; the matches before it are kept. A file that no query wants is read
// for its statistics only (see Files).
//
// In a container log, a query matches the lines of an event (see Event):
// its rows have the event's time, level, target and message, the text and
// number of the line that matched, and an event counts once however many
// of its lines match.
func (s *Scanner) Scan(p string, c bundle.Class, r io.Reader) error {
	var qs []*scanQuery
	for _, q := range s.queries {
		if q.wants(c) {
			q.files++
			q.section = nil
			q.lastHead = 0
			qs = append(qs, q)
		}
	}
	meta := &fileMeta{path: p, pod: c.Pod, container: c.Container, name: c.Name, kind: c.Kind,
		log: c.Kind == bundle.KindLog || c.Kind == bundle.KindPreviousLog}
	st := FileStats{Path: p, Pod: c.Pod, Container: c.Container, Kind: c.Kind}
	defer func() { s.files = append(s.files, st) }()
	f := &fileScan{s: s, meta: meta, qs: qs, log: meta.log, st: &st}
	f.smp.st = &st
	if c.Kind == bundle.KindAwaitTreeJSON && len(qs) > 0 {
		return s.scanAwaitTreeJSON(p, r, qs, meta, &st)
	}
	var err error
	if g, ok := fileGates(qs); ok {
		err = f.scanBlocks(p, r, g)
	} else {
		err = f.scanLines(p, r, 0)
	}
	f.finish()
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// sectionHeaders notes the captures of a section header line for the
// queries that have sections.
func sectionHeaders(raw []byte, qs []*scanQuery) {
	for _, q := range qs {
		if !q.q.hasSection() {
			continue
		}
		re := q.sectionRegexp()
		m := re.FindSubmatch(raw)
		if m == nil {
			continue
		}
		sec := evidence.Row{}
		for i, name := range re.SubexpNames() {
			if name != "" && m[i] != nil {
				sec[name] = string(m[i])
			}
		}
		q.section = sec
	}
}

// jsonCandidate reports whether some query may match the rendering of a
// JSON line, judging by the line's bytes (see jsonPieces).
func (s *Scanner) jsonCandidate(b []byte, qs []*scanQuery) bool {
	if hasHardEscape(b) {
		return true // the rendering may hold what the bytes do not
	}
	s.lowerOK, s.ks = false, ksUnknown
	for _, q := range qs {
		if q.jsonAny {
			return true
		}
		all := true
		for _, p := range q.pieces {
			if p.fold && !s.containsFold(b, p) || !p.fold && !containsLit(b, p) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// hasHardEscape reports whether a JSON line has an escape that decodes to a
// byte jsonPieces may hold: "\u" (any character) or "\/". The others
// decode to quotes, backslashes and control bytes, which no piece holds.
func hasHardEscape(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+1 >= len(b) {
			return false
		}
		if c := b[i+1]; c == 'u' || c == '/' {
			return true
		}
		b = b[i+2:]
	}
}

func (s *Scanner) scanAwaitTreeJSON(p string, r io.Reader, qs []*scanQuery, meta *fileMeta, st *FileStats) error {
	data, err := io.ReadAll(io.LimitReader(r, maxAwaitTreeBytes+1))
	st.Lines = bytes.Count(data, nl)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		st.Lines++
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > maxAwaitTreeBytes {
		return fmt.Errorf("%s: larger than %d bytes; not read", p, maxAwaitTreeBytes)
	}
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("%s: invalid JSON", p)
	}
	f := &fileScan{s: s, meta: meta, qs: qs}
	walkStrings(gjson.ParseBytes(data), "", func(key, v string) {
		for v != "" {
			var l string
			l, v, _ = strings.Cut(v, "\n")
			l = strings.TrimSuffix(l, "\r")
			s.line = append(append(append(s.line[:0], key...), ": "...), l...)
			f.judge(s.line, nil, func(q *scanQuery) { s.record(q, meta, hit{raw: s.line, n: 0}, q.section) })
		}
	})
	return nil
}

// walkStrings calls fn with the key path ("actorTraces.132") and value of
// every string in v, in document order.
func walkStrings(v gjson.Result, path string, fn func(path, s string)) {
	switch {
	case v.Type == gjson.String:
		fn(path, v.Str)
	case v.IsArray():
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			walkStrings(e, evidence.JoinKey(path, strconv.Itoa(i)), fn)
			i++
			return true
		})
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			walkStrings(e, evidence.JoinKey(path, k.Str), fn)
			return true
		})
	}
}

// record counts a match and keeps it when it falls in the first or the
// last half of the query's rows.
func (s *Scanner) record(q *scanQuery, meta *fileMeta, h hit, section evidence.Row) {
	q.count++
	if len(q.head) < q.headCap {
		q.head = append(q.head, q.row(meta, h, section))
		return
	}
	if q.tailCap == 0 {
		return
	}
	if q.tail == nil {
		q.tail = make([]slot, q.tailCap)
	}
	sl := &q.tail[q.tailNext]
	q.tailNext = (q.tailNext + 1) % q.tailCap
	q.tailCount = min(q.tailCount+1, q.tailCap)
	sl.file, sl.line, sl.section = meta, h.n, section
	if len(h.raw)+len(h.ev) > maxSlotBytes {
		sl.raw, sl.ev, sl.prev, sl.row = sl.raw[:0], sl.ev[:0], sl.prev[:0], q.row(meta, h, section)
		return
	}
	sl.raw, sl.prev, sl.row = append(sl.raw[:0], h.raw...), append(sl.prev[:0], h.prev...), nil
	sl.hasEv, sl.single = h.ev != nil, len(h.ev) == len(h.raw) && (len(h.ev) == 0 || &h.ev[0] == &h.raw[0])
	if !sl.single {
		sl.ev = append(sl.ev[:0], h.ev...)
	}
}

// row turns a match into its row.
func (q *scanQuery) row(meta *fileMeta, h hit, section evidence.Row) evidence.Row {
	var ll, ev Line
	switch {
	case !meta.log:
		ll = Line{Text: string(h.raw)}
		ll.Message = ll.Text
		ev = ll
	case h.ev == nil || bytes.Equal(h.ev, h.raw) && len(h.prev) == 0:
		ll = ParseLine(h.raw)
		ev = ll
	default:
		ll = ParseLine(h.raw)
		var prev []byte
		if len(h.prev) > 0 {
			prev = h.prev
		}
		ev = parseEventText(h.ev, prev)
	}
	r := evidence.Row{}
	for k, v := range section {
		r[k] = v
	}
	re := q.q.Regexp() // not q.regexp: Results may run on several goroutines
	if m := re.FindStringSubmatchIndex(ll.Text); m != nil {
		for i, name := range re.SubexpNames() {
			if name != "" && 2*i+1 < len(m) {
				if m[2*i] >= 0 {
					r[name] = ll.Text[m[2*i]:m[2*i+1]]
				} else if _, set := r[name]; !set {
					r[name] = ""
				}
			}
		}
	}
	r["pod"] = meta.pod
	r["container"] = meta.container
	r["path"] = meta.path
	r["line"] = h.n
	r["time"] = ev.Time
	r["text"] = evidence.CutUTF8(ll.Text, maxLogTextBytes)
	r["message"] = evidence.CutUTF8(ev.Message, maxLogMessageBytes)
	r["level"] = ev.Level
	r["target"] = ev.Target
	r["previous"] = meta.kind == bundle.KindPreviousLog
	r["kind"] = meta.kind.String()
	if meta.name != "" {
		r["name"] = meta.name
	}
	return r
}

// Results returns the rows kept for a query (the first and the last
// matches, in scan order), the exact number of matches, and how many files
// the query read: 0 means its input is absent from the bundle. The rows are
// the caller's to change.
func (s *Scanner) Results(name string) (rows []evidence.Row, count int, files int) {
	q := s.byName[name]
	if q == nil {
		return nil, 0, 0
	}
	rows = make([]evidence.Row, 0, len(q.head)+q.tailCount)
	for _, r := range q.head {
		rows = append(rows, maps.Clone(r))
	}
	start := (q.tailNext - q.tailCount + q.tailCap) % max(q.tailCap, 1)
	for i := 0; i < q.tailCount; i++ {
		sl := &q.tail[(start+i)%q.tailCap]
		if sl.row != nil {
			rows = append(rows, maps.Clone(sl.row))
		} else {
			h := hit{raw: sl.raw, n: sl.line, prev: sl.prev}
			switch {
			case sl.hasEv && sl.single:
				h.ev = sl.raw
			case sl.hasEv:
				h.ev = sl.ev
			}
			rows = append(rows, q.row(sl.file, h, sl.section))
		}
	}
	return rows, q.count, q.files
}

// CutLines returns how many over-long lines were cut, per bundle path.
func (s *Scanner) CutLines() map[string]int { return maps.Clone(s.cut) }
