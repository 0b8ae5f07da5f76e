package analyze

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/bundle"
)

// LogQuery is one rule signal's query over logs and other text files,
// compiled when the rule is loaded.
type LogQuery struct {
	// Name identifies the query: "<rule id>/<signal>".
	Name string
	// Regex is matched against each normalised line (LogLine.Text). Its
	// named captures become row fields.
	Regex *regexp.Regexp
	// Kinds are the files it reads: KindLog, KindPreviousLog, KindDescribe,
	// KindDiagnoseReport, KindAwaitTreeText, KindAwaitTreeJSON,
	// KindKafkaGroups, KindSQLExplain. None means logs and previous logs.
	Kinds []bundle.Kind
	// Container, when set, restricts log files to that container's. Files
	// that belong to no container (describe, diagnose) are not restricted.
	Container string
	// MinLevel, when set, skips lines below that level; lines that state no
	// level (continuation lines, other files) are kept.
	MinLevel string
	// MaxRows bounds the rows kept (0 means DefaultLogMaxRows): the first
	// half and the last half of the matches. Count stays exact.
	MaxRows int
	// Section, when set, marks section headers: the named captures of the
	// last header line above a match (in the same file) join its row, so a
	// match can be attributed to, say, the ">> Worker 2" it sits under.
	Section *regexp.Regexp
}

// DefaultLogMaxRows is the rows a LogQuery keeps when its MaxRows is 0.
const DefaultLogMaxRows = 1000

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

// logQueryKinds are the kinds a LogQuery may read.
var logQueryKinds = []bundle.Kind{
	bundle.KindLog, bundle.KindPreviousLog, bundle.KindDescribe, bundle.KindDiagnoseReport,
	bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON, bundle.KindKafkaGroups, bundle.KindSQLExplain,
}

// CheckLogQuery reports what is wrong with a query: no regular expression,
// a named capture that would shadow a row field, a kind that is not text,
// an unknown level.
func CheckLogQuery(q *LogQuery) error {
	if q.Regex == nil {
		return fmt.Errorf("log query %q: no regular expression", q.Name)
	}
	for _, n := range q.Regex.SubexpNames() {
		if slices.Contains(logRowKeys, n) {
			return fmt.Errorf("log query %q: capture name %q is a row field (%s)", q.Name, n, strings.Join(logRowKeys, ", "))
		}
	}
	for _, k := range q.Kinds {
		if !slices.Contains(logQueryKinds, k) {
			return fmt.Errorf("log query %q: %s files are not text a regular expression reads", q.Name, k)
		}
	}
	if q.MinLevel != "" && parseLevel(q.MinLevel) == levelNone {
		return fmt.Errorf("log query %q: unknown level %q (want TRACE, DEBUG, INFO, WARN or ERROR)", q.Name, q.MinLevel)
	}
	if q.MaxRows < 0 {
		return fmt.Errorf("log query %q: max rows must not be negative", q.Name)
	}
	return nil
}

// LogScanner runs the regular expressions of many queries over text files
// in one pass per file, keeping the matches as rows.
//
// It is built for multi-gigabyte logs: a line that no query's literals
// appear in costs a few byte searches and no allocation. Every query gets a
// prefilter (the literal strings any match must contain, read off the
// regular expression's syntax tree), the regular expression runs on the raw
// bytes after the kubectl prefix, and only JSON lines are rendered into text
// first, and only those whose bytes hold the query's literals.
//
// A LogScanner is not safe for concurrent use.
type LogScanner struct {
	queries []*scanQuery
	byName  map[string]*scanQuery
	cut     map[string]int

	// Scratch reused across lines.
	json    []byte // a rendered JSON line
	line    []byte // a synthesized await-tree line
	lower   []byte // the current line, folded, when lowerOK
	lowerOK bool
	ks      ksState // whether the current line may hold a Kelvin sign or long s
}

type ksState int

const (
	ksUnknown ksState = iota
	ksNo
	ksYes
)

// scanQuery is a LogQuery with its compiled state and its matches.
type scanQuery struct {
	q         *LogQuery
	re        *regexp.Regexp
	kinds     uint64
	minLevel  int
	pre       prefilter
	pieces    []lit // required in a JSON line's bytes, see jsonPieces
	jsonAny   bool  // no pieces: every JSON line is rendered
	headCap   int
	tailCap   int
	count     int
	files     int
	head      []Row
	tail      []slot
	tailNext  int
	tailCount int
	section   Row // captures of the current file's last section header
}

// slot holds one of the last matches: the raw line, turned into a row only
// when results are asked for. Long lines are turned into rows at once.
type slot struct {
	raw     []byte
	row     Row
	file    *fileMeta
	line    int
	mode    lineMode
	section Row
}

type fileMeta struct {
	path, pod, container string
	name                 string // the class's name: the relation of an EXPLAIN file
	kind                 bundle.Kind
}

// lineMode says how a line is normalised.
type lineMode int

const (
	modeLog   lineMode = iota // a container log line: ParseLogLine
	modePlain                 // any other text: the line as it is
)

// NewLogScanner compiles the queries' prefilters. Queries without a regular
// expression never match; see CheckLogQuery.
func NewLogScanner(queries []*LogQuery) *LogScanner {
	s := &LogScanner{byName: map[string]*scanQuery{}, cut: map[string]int{}}
	for _, q := range queries {
		if q == nil {
			continue
		}
		limit := q.MaxRows
		if limit <= 0 {
			limit = DefaultLogMaxRows
		}
		sq := &scanQuery{q: q, re: q.Regex, minLevel: parseLevel(q.MinLevel), headCap: (limit + 1) / 2, tailCap: limit / 2}
		kinds := q.Kinds
		if len(kinds) == 0 {
			kinds = []bundle.Kind{bundle.KindLog, bundle.KindPreviousLog}
		}
		for _, k := range kinds {
			if k >= 0 && k < 64 {
				sq.kinds |= 1 << uint(k)
			}
		}
		if sq.re != nil {
			sq.pre = newPrefilter(sq.re.String())
			sq.pieces = jsonPieces(sq.pre)
			sq.jsonAny = len(sq.pieces) == 0
		}
		s.queries = append(s.queries, sq)
		s.byName[q.Name] = sq
	}
	return s
}

func (q *scanQuery) wants(c bundle.Class) bool {
	if q.re == nil || q.kinds&(1<<uint(c.Kind&63)) == 0 || c.Kind < 0 || c.Kind >= 64 {
		return false
	}
	return q.q.Container == "" || c.Container == "" || q.q.Container == c.Container
}

// Wants reports whether any query reads files of this class, so the bundle
// pass can skip the others without reading them.
func (s *LogScanner) Wants(c bundle.Class) bool {
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
// file; the matches before it are kept.
func (s *LogScanner) Scan(p string, c bundle.Class, r io.Reader) error {
	var qs []*scanQuery
	for _, q := range s.queries {
		if q.wants(c) {
			q.files++
			q.section = nil
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	meta := &fileMeta{path: p, pod: c.Pod, container: c.Container, name: c.Name, kind: c.Kind}
	if c.Kind == bundle.KindAwaitTreeJSON {
		return s.scanAwaitTreeJSON(p, r, qs, meta)
	}
	mode := modePlain
	if c.Kind == bundle.KindLog || c.Kind == bundle.KindPreviousLog {
		mode = modeLog
	}
	lr := bundle.NewLineReader(r, bundle.DefaultMaxLineBytes)
	defer func() {
		if n := lr.Cut(); n > 0 {
			s.cut[p] += n
		}
	}()
	for {
		line, n, _, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if mode == modeLog {
			s.scanLogLine(line, n, qs, meta)
		} else {
			s.scanPlainLine(line, n, qs, meta)
		}
	}
}

func (s *LogScanner) scanLogLine(raw []byte, n int, qs []*scanQuery, meta *fileMeta) {
	sectionHeaders(raw, qs)
	h := scanHead(raw)
	text, level := raw[h.body:], h.level
	if h.json {
		if !s.jsonCandidate(text, qs) {
			return
		}
		if out, f, ok := renderJSONLine(s.json[:0], text); ok {
			s.json, text, level = out, out, f.level
		}
	}
	s.lowerOK, s.ks = false, ksUnknown
	for _, q := range qs {
		if q.minLevel != levelNone && level != levelNone && level < q.minLevel {
			continue
		}
		if !q.pre.match(text, s) || !q.re.Match(text) {
			continue
		}
		s.record(q, meta, n, raw, modeLog)
	}
}

// sectionHeaders notes the captures of a section header line for the
// queries that have sections.
func sectionHeaders(raw []byte, qs []*scanQuery) {
	for _, q := range qs {
		re := q.q.Section
		if re == nil {
			continue
		}
		m := re.FindSubmatch(raw)
		if m == nil {
			continue
		}
		sec := Row{}
		for i, name := range re.SubexpNames() {
			if name != "" && m[i] != nil {
				sec[name] = string(m[i])
			}
		}
		q.section = sec
	}
}

func (s *LogScanner) scanPlainLine(raw []byte, n int, qs []*scanQuery, meta *fileMeta) {
	sectionHeaders(raw, qs)
	s.lowerOK, s.ks = false, ksUnknown
	for _, q := range qs {
		if q.pre.match(raw, s) && q.re.Match(raw) {
			s.record(q, meta, n, raw, modePlain)
		}
	}
}

// jsonCandidate reports whether some query may match the rendering of a
// JSON line, judging by the line's bytes (see jsonPieces).
func (s *LogScanner) jsonCandidate(b []byte, qs []*scanQuery) bool {
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

func (s *LogScanner) scanAwaitTreeJSON(p string, r io.Reader, qs []*scanQuery, meta *fileMeta) error {
	data, err := io.ReadAll(io.LimitReader(r, maxAwaitTreeBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > maxAwaitTreeBytes {
		return fmt.Errorf("%s: larger than %d bytes; not read", p, maxAwaitTreeBytes)
	}
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("%s: invalid JSON", p)
	}
	walkStrings(gjson.ParseBytes(data), "", func(key, v string) {
		for v != "" {
			var l string
			l, v, _ = strings.Cut(v, "\n")
			l = strings.TrimSuffix(l, "\r")
			s.line = append(append(append(s.line[:0], key...), ": "...), l...)
			s.scanPlainLine(s.line, 0, qs, meta)
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
			walkStrings(e, joinKey(path, strconv.Itoa(i)), fn)
			i++
			return true
		})
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			walkStrings(e, joinKey(path, k.Str), fn)
			return true
		})
	}
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// record counts a match and keeps it when it falls in the first or the
// last half of the query's rows.
func (s *LogScanner) record(q *scanQuery, meta *fileMeta, n int, raw []byte, mode lineMode) {
	q.count++
	if len(q.head) < q.headCap {
		q.head = append(q.head, q.row(meta, n, raw, mode, q.section))
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
	sl.file, sl.line, sl.mode, sl.section = meta, n, mode, q.section
	if len(raw) > maxSlotBytes {
		sl.raw, sl.row = sl.raw[:0], q.row(meta, n, raw, mode, q.section)
		return
	}
	sl.raw, sl.row = append(sl.raw[:0], raw...), nil
}

// row turns a matched line into its row.
func (q *scanQuery) row(meta *fileMeta, n int, raw []byte, mode lineMode, section Row) Row {
	var ll LogLine
	if mode == modeLog {
		ll = ParseLogLine(raw)
	} else {
		ll = LogLine{Text: string(raw)}
		ll.Message = ll.Text
	}
	r := Row{}
	for k, v := range section {
		r[k] = v
	}
	if m := q.re.FindStringSubmatchIndex(ll.Text); m != nil {
		for i, name := range q.re.SubexpNames() {
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
	r["line"] = n
	r["time"] = ll.Time
	r["text"] = cutUTF8(ll.Text, maxLogTextBytes)
	r["message"] = cutUTF8(ll.Message, maxLogMessageBytes)
	r["level"] = ll.Level
	r["target"] = ll.Target
	r["previous"] = meta.kind == bundle.KindPreviousLog
	r["kind"] = meta.kind.String()
	if meta.name != "" {
		r["name"] = meta.name
	}
	return r
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Results returns the rows kept for a query (the first and the last
// matches, in scan order), the exact number of matches, and how many files
// the query read: 0 means its input is absent from the bundle. The rows are
// the caller's to change.
func (s *LogScanner) Results(name string) (rows []Row, count int, files int) {
	q := s.byName[name]
	if q == nil {
		return nil, 0, 0
	}
	rows = make([]Row, 0, len(q.head)+q.tailCount)
	for _, r := range q.head {
		rows = append(rows, maps.Clone(r))
	}
	start := (q.tailNext - q.tailCount + q.tailCap) % max(q.tailCap, 1)
	for i := 0; i < q.tailCount; i++ {
		sl := &q.tail[(start+i)%q.tailCap]
		if sl.row != nil {
			rows = append(rows, maps.Clone(sl.row))
		} else {
			rows = append(rows, q.row(sl.file, sl.line, sl.raw, sl.mode, sl.section))
		}
	}
	return rows, q.count, q.files
}

// CutLines returns how many over-long lines were cut, per bundle path.
func (s *LogScanner) CutLines() map[string]int { return maps.Clone(s.cut) }

// lowered returns the current line folded for the case-insensitive
// literals, computing it once per line: ASCII letters lowercased, and the
// only non-ASCII runes whose case folds reach ASCII, the Kelvin sign (K) and
// the long s (ſ), replaced by "k" and "s".
func (s *LogScanner) lowered(line []byte) []byte {
	if s.lowerOK {
		return s.lower
	}
	s.lower = foldBytes(s.lower[:0], line)
	s.lowerOK = true
	return s.lower
}

// containsFold reports whether the folded line contains the folding literal
// l. It searches the line itself for both cases of l's rarest letter and
// compares around each; only a line that may hold a Kelvin sign or a long s
// is folded whole first.
func (s *LogScanner) containsFold(line []byte, l lit) bool {
	if l.ks && s.mayHoldKS(line) {
		return bytes.Contains(s.lowered(line), l.s)
	}
	n := len(l.s)
	if n == 0 {
		return true
	}
	lo := l.s[l.anchor]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	end := len(line) - n + l.anchor + 1 // anchors at or past end cannot start a match
	for i := l.anchor; i < end; {
		b := line[i:end]
		j := bytes.IndexByte(b, lo)
		if up != lo {
			lim := b
			if j >= 0 {
				lim = b[:j]
			}
			if k := bytes.IndexByte(lim, up); k >= 0 {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		p := i + j - l.anchor
		if equalFoldASCII(line[p:p+n], l.s) {
			return true
		}
		i += j + 1
	}
	return false
}

// equalFoldASCII reports whether a, ASCII-lowercased, equals lower.
func equalFoldASCII(a, lower []byte) bool {
	for i, c := range a {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// mayHoldKS reports, once per line, whether it has a lead byte of the
// Kelvin sign or the long s.
func (s *LogScanner) mayHoldKS(line []byte) bool {
	if s.ks == ksUnknown {
		s.ks = ksNo
		if bytes.IndexByte(line, 0xe2) >= 0 || bytes.IndexByte(line, 0xc5) >= 0 {
			s.ks = ksYes
		}
	}
	return s.ks == ksYes
}

// containsLit is bytes.Contains(line, l.s), searching for the literal's
// rarest byte rather than its first: log lines are full of the letters
// literals start with. After too many false candidates it leaves the rest to
// bytes.Index.
func containsLit(line []byte, l lit) bool {
	n := len(l.s)
	if n == 0 {
		return true
	}
	if len(line) <= 64 || n == 1 {
		return bytes.Contains(line, l.s)
	}
	c := l.s[l.anchor]
	end := len(line) - n + l.anchor + 1
	fails := 0
	for i := l.anchor; i < end; {
		j := bytes.IndexByte(line[i:end], c)
		if j < 0 {
			return false
		}
		p := i + j - l.anchor
		if bytes.Equal(line[p:p+n], l.s) {
			return true
		}
		i += j + 1
		if fails++; fails > 4+(i>>4) {
			return bytes.Contains(line[p+1:], l.s)
		}
	}
	return false
}

// letterRarity ranks lowercase letters, commonest first, roughly as in
// English text and log messages.
const letterRarity = "etaoinsrhldcumfpgwybvkxjqz"

// byteRarity guesses how rare a byte is in RisingWave logs: higher is
// rarer. Spaces and digits (timestamps, ids) are commonest, then the
// punctuation of fields and paths, then lowercase letters by English
// frequency; the capitals of levels and timestamps are common, other
// capitals and other punctuation rare.
func byteRarity(c byte) int {
	switch {
	case c == ' ' || isDigit(c):
		return 0
	case c >= 'a' && c <= 'z':
		return 10 + strings.IndexByte(letterRarity, c)
	case c >= 'A' && c <= 'Z':
		if strings.IndexByte("TZINFOWARERDBUGC", c) >= 0 {
			return 8
		}
		return 30 + strings.IndexByte(letterRarity, c+'a'-'A')/2
	case strings.IndexByte(`:._-=/,"{}()`, c) >= 0:
		return 5
	case c >= utf8.RuneSelf:
		return 45
	}
	return 40
}

// rarestByte is the offset of the byte of s to search for first.
func rarestByte(s []byte) int {
	best, score := 0, -1
	for i, c := range s {
		if sc := byteRarity(c); sc > score {
			best, score = i, sc
		}
	}
	return best
}

// foldBytes appends b folded to dst: ASCII letters lowercased, the Kelvin
// sign and the long s replaced by "k" and "s". Lines and folding literals
// are folded alike.
func foldBytes(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xe2 && i+2 < len(b) && b[i+1] == 0x84 && b[i+2] == 0xaa: // U+212A
			c, i = 'k', i+2
		case c == 0xc5 && i+1 < len(b) && b[i+1] == 0xbf: // U+017F
			c, i = 's', i+1
		}
		dst = append(dst, c)
	}
	return dst
}

// A prefilter is a necessary condition for a regular expression to match a
// line: every clause must have one of its literals in the line. It is read
// off the syntax tree (see litInfo), so it never rejects a line the
// expression matches.
type prefilter struct {
	clauses [][]lit
}

// lit is a literal string. A folding literal, from a case-insensitive
// expression, is ASCII-lowercased and looked for in the folded line (see
// lowered).
type lit struct {
	s    []byte
	fold bool
	// anchor is the offset of the byte searched for first, the rarest (see
	// byteRarity); ks, for a folding literal, whether s holds "k" or "s",
	// whose folds include non-ASCII runes.
	anchor int
	ks     bool
}

// Bounds on the literal analysis.
const (
	maxExactStrings = 16 // strings of an exact set
	maxClauseLits   = 32 // alternatives in one clause
	maxClauses      = 3  // clauses kept, the most selective
	maxClassRunes   = 8  // a character class larger than this is not expanded
)

func (p *prefilter) match(line []byte, s *LogScanner) bool {
	for _, c := range p.clauses {
		found := false
		for _, l := range c {
			if l.fold {
				if s.containsFold(line, l) {
					found = true
					break
				}
			} else if containsLit(line, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// newPrefilter analyses a regular expression's source. An expression it
// cannot parse gets no prefilter.
func newPrefilter(expr string) prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	info := analyzeLits(re.Simplify())
	clauses := info.clauses
	if c := exactClause(info.exact); c != nil {
		clauses = append(clauses, c)
	}
	for i, c := range clauses {
		c = weakestLits(c)
		for j := range c {
			c[j].anchor = rarestByte(c[j].s)
			c[j].ks = c[j].fold && bytes.ContainsAny(c[j].s, "ks")
		}
		clauses[i] = c
	}
	// The most selective first: the longest shortest literal, then the
	// fewest alternatives.
	slices.SortStableFunc(clauses, func(a, b []lit) int {
		if d := clauseScore(b) - clauseScore(a); d != 0 {
			return d
		}
		return len(a) - len(b)
	})
	var keep [][]lit
	for _, c := range clauses {
		if len(keep) == maxClauses {
			break
		}
		if !slices.ContainsFunc(keep, func(k []lit) bool { return sameClause(k, c) }) {
			keep = append(keep, c)
		}
	}
	return prefilter{clauses: keep}
}

// weakestLits drops the literals of a clause that contain another of its
// literals: "low: -" or "low: " is just "low: ".
func weakestLits(c []lit) []lit {
	out := make([]lit, 0, len(c))
	for i, l := range c {
		implied := false
		for j, o := range c {
			if i != j && o.fold == l.fold && bytes.Contains(l.s, o.s) && (len(o.s) < len(l.s) || j < i) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, l)
		}
	}
	return out
}

func sameClause(a, b []lit) bool {
	return slices.EqualFunc(a, b, func(x, y lit) bool { return x.fold == y.fold && bytes.Equal(x.s, y.s) })
}

// clauseScore is the length of a clause's shortest literal.
func clauseScore(c []lit) int {
	m := -1
	for _, l := range c {
		if m < 0 || len(l.s) < m {
			m = len(l.s)
		}
	}
	return m
}

// litInfo is what the literal analysis knows of a subexpression.
type litInfo struct {
	// exact, when not nil, is every string the subexpression can match (it
	// may hold the empty string).
	exact []lit
	// clauses must all hold of any match: each names literals one of which
	// the match contains.
	clauses [][]lit
}

// exactClause turns an exact set into a clause, or nil when it holds the
// empty string (and so requires nothing).
func exactClause(exact []lit) []lit {
	if exact == nil {
		return nil
	}
	for _, l := range exact {
		if len(l.s) == 0 {
			return nil
		}
	}
	return slices.Clone(exact)
}

var emptyExact = []lit{{s: []byte{}}}

func analyzeLits(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: emptyExact}
	case syntax.OpLiteral:
		return literalInfo(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > maxClassRunes {
				return litInfo{}
			}
		}
		var exact []lit
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r == utf8.RuneError || r > unicode.MaxRune {
					return litInfo{}
				}
				exact = append(exact, lit{s: utf8.AppendRune(nil, r)})
			}
		}
		if len(exact) == 0 {
			return litInfo{}
		}
		return litInfo{exact: exact}
	case syntax.OpCapture:
		return analyzeLits(re.Sub[0])
	case syntax.OpQuest:
		sub := analyzeLits(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxExactStrings {
			return litInfo{exact: dedupLits(append(slices.Clone(sub.exact), emptyExact...))}
		}
		return litInfo{}
	case syntax.OpPlus:
		return required(analyzeLits(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(analyzeLits(re.Sub[0]))
		}
		return litInfo{}
	case syntax.OpConcat:
		infos := make([]litInfo, len(re.Sub))
		for i, sub := range re.Sub {
			infos[i] = analyzeLits(sub)
		}
		return concatLits(infos)
	case syntax.OpAlternate:
		return alternateLits(re.Sub)
	}
	// AnyChar, AnyCharNotNL, Star, NoMatch: nothing known.
	return litInfo{}
}

// required keeps only what a subexpression requires, for x+ and x{n,}.
func required(in litInfo) litInfo {
	out := litInfo{clauses: in.clauses}
	if c := exactClause(in.exact); c != nil {
		out.clauses = append(slices.Clone(out.clauses), c)
	}
	return out
}

// literalInfo analyses a literal string. A case-folding literal is
// lowercased; its non-ASCII letters, whose folds are not plain bytes, break
// it into pieces.
func literalInfo(runes []rune, fold bool) litInfo {
	var parts []litInfo
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, litInfo{exact: []lit{{s: cur, fold: fold}}})
			cur = nil
		}
	}
	for _, r := range runes {
		switch {
		case r == utf8.RuneError:
			// Matches any invalid byte too: not a literal byte string.
			flush()
			parts = append(parts, litInfo{})
		case fold && r < utf8.RuneSelf:
			cur = append(cur, byte(unicode.ToLower(r)))
		case fold && unicode.SimpleFold(r) != r:
			flush()
			parts = append(parts, litInfo{})
		default:
			cur = utf8.AppendRune(cur, r)
		}
	}
	flush()
	if len(parts) == 0 {
		return litInfo{exact: emptyExact}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return concatLits(parts)
}

// concatLits combines a concatenation: runs of exact parts are multiplied
// out while the sets stay small; the rest become clauses.
func concatLits(infos []litInfo) litInfo {
	var out litInfo
	run := emptyExact
	exact := true
	for _, in := range infos {
		out.clauses = append(out.clauses, in.clauses...)
		if in.exact == nil {
			if c := exactClause(run); c != nil {
				out.clauses = append(out.clauses, c)
			}
			run, exact = emptyExact, false
			continue
		}
		if p := crossLits(run, in.exact); p != nil {
			run = p
			continue
		}
		if c := exactClause(run); c != nil {
			out.clauses = append(out.clauses, c)
		}
		run, exact = in.exact, false
	}
	if exact {
		out.exact = run
		return out
	}
	if c := exactClause(run); c != nil {
		out.clauses = append(out.clauses, c)
	}
	return out
}

// crossLits is every a followed by every b, or nil when that is too many.
func crossLits(a, b []lit) []lit {
	if len(a)*len(b) > maxExactStrings {
		return nil
	}
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			fold := x.fold || y.fold
			s := make([]byte, 0, len(x.s)+len(y.s))
			s = append(append(s, x.s...), y.s...)
			if fold {
				s = foldBytes(s[:0:0], s)
			}
			out = append(out, lit{s: s, fold: fold})
		}
	}
	return dedupLits(out)
}

func dedupLits(ls []lit) []lit {
	out := ls[:0:0]
	for _, l := range ls {
		if !slices.ContainsFunc(out, func(o lit) bool { return o.fold == l.fold && bytes.Equal(o.s, l.s) }) {
			out = append(out, l)
		}
	}
	return out
}

// alternateLits combines an alternation: the union of exact sets while
// small, else one clause holding the best clause of every branch.
func alternateLits(subs []*syntax.Regexp) litInfo {
	infos := make([]litInfo, len(subs))
	var union []lit
	allExact := true
	for i, sub := range subs {
		infos[i] = analyzeLits(sub)
		if infos[i].exact == nil {
			allExact = false
		} else {
			union = append(union, infos[i].exact...)
		}
	}
	if allExact {
		if union = dedupLits(union); len(union) <= maxExactStrings {
			return litInfo{exact: union}
		}
	}
	var clause []lit
	for _, in := range infos {
		best := exactClause(in.exact)
		for _, c := range in.clauses {
			if best == nil || clauseScore(c) > clauseScore(best) || (clauseScore(c) == clauseScore(best) && len(c) < len(best)) {
				best = c
			}
		}
		if best == nil {
			return litInfo{}
		}
		clause = append(clause, best...)
	}
	if clause = dedupLits(clause); len(clause) > maxClauseLits {
		return litInfo{}
	}
	return litInfo{clauses: [][]lit{clause}}
}

// jsonPieces returns literals that the bytes of a JSON log line must
// contain for the prefilter to pass on its rendering: the runs of "safe"
// bytes of the prefilter's single-literal clauses.
//
// renderJSONLine adds only spaces, ':', '=', '{', '}' and '"' and copies the
// line's values unchanged, the level's case apart; so a run without those
// bytes that is in the rendering is in the line's bytes, provided the line
// has no escape that decodes to a byte a run may hold (hasHardEscape) and a
// case-sensitive run is not part of a level word (dropped here). Control and non-ASCII bytes are excluded
// for good measure.
func jsonPieces(p prefilter) []lit {
	var out []lit
	for _, c := range p.clauses {
		if len(c) != 1 {
			continue
		}
		s := c[0].s
		for len(s) > 0 {
			i := 0
			for i < len(s) && jsonSafe(s[i]) {
				i++
			}
			if i > 0 && (c[0].fold || !inLevelWord(s[:i])) {
				piece := lit{s: s[:i], fold: c[0].fold, anchor: rarestByte(s[:i])}
				piece.ks = piece.fold && bytes.ContainsAny(piece.s, "ks")
				out = append(out, piece)
			}
			if i < len(s) {
				i++
			}
			s = s[i:]
		}
	}
	return out
}

func jsonSafe(c byte) bool {
	switch c {
	case ' ', ':', '=', '{', '}', '"', '\\':
		return false
	}
	return c > ' ' && c < utf8.RuneSelf && c != 0x7f
}

// inLevelWord reports whether b, lowercased, is part of a level name, which
// the rendering may upper-case.
func inLevelWord(b []byte) bool {
	l := strings.ToLower(string(b))
	for _, w := range []string{"trace", "debug", "info", "warn", "error"} {
		if strings.Contains(w, l) {
			return true
		}
	}
	return false
}
