package logs

import (
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/rwdiag/rwdiag/bundle"
)

// Block scanning: most lines of a big log match no query, and judging them
// one by one (a line split, a few byte searches per query) costs more than
// decompressing them. So a file is read in blocks of whole lines, and each
// block is searched once for its gates: literals one of which any line a
// query may match holds in its raw bytes. Only the lines that hold a gate
// are split out and judged as before; the others are counted, for line
// numbers, and skipped.
//
// A query's gates are the literals of one clause of its prefilter. A text
// line that matches holds one of them after its kubectl prefix, so in its
// bytes. A JSON line is matched on its rendering, which its bytes need not
// hold; so JSON lines (a '{' where scanHead finds the body) are always
// judged, and judged as before (see jsonCandidate). A file mostly of JSON
// lines is searched instead for one run of each literal, bytes that the
// rendering copies as they are, and for the escapes that may make them
// ("\u", "\/"), as jsonPieces argues. A query with no usable clause, or
// one that reads section headers (it must see every line), makes its files
// be read line by line.
//
// On amd64 with AVX2 the gates of 3 bytes or more are searched for all at
// once, in one SIMD pass over the block (see teddy.go). Otherwise, and for
// shorter gates, the search is bytes.IndexByte for a rare byte of the
// gate, then a comparison around each occurrence. Gates that share a rare
// byte share a pass over the block; which bytes, the sampled counts of the
// logs' bytes decide (see groupGates). That search is also the reference
// the SIMD one is tested against.

// logBlockBytes is the block size: a line longer than this sends the rest
// of its file down the line-by-line path.
const logBlockBytes = 256 << 10

// hardEscapeGates make JSON lines with escapes that may decode to a run's
// bytes candidates (see hasHardEscape).
var hardEscapeGates = []lit{{s: []byte(`\u`)}, {s: []byte(`\/`)}}

// ksGates make lines with a Kelvin sign or a long s candidates, when a
// folding gate holds a "k" or an "s": in other lines, folding is ASCII's,
// which the search does.
var ksGates = []lit{{s: []byte("\u212A")}, {s: []byte("\u017F")}}

// gates are a query's or a file's gates: for text lines, and for files
// mostly of JSON lines (nil when there are none). A JSON gate is any one
// of the runs of a literal: which is chosen when a file's bytes are known
// (see pickRuns).
type gates struct {
	text []lit
	json [][]lit
}

// queryGates returns the gates of a query, or false when it has none.
func queryGates(q *scanQuery) (gates, bool) {
	if q.expr == "" || q.q.hasSection() {
		return gates{}, false
	}
	var g gates
	textScore, jsonScore := -1, -1
	for _, c := range q.pre.clauses {
		if t, ok := textGates(c); ok {
			if sc := gateScore(t); sc > textScore || sc == textScore && len(t) < len(g.text) {
				g.text, textScore = t, sc
			}
		}
		if j, ok := runGates(c); ok {
			sc := -1
			for _, runs := range j {
				if l := len(runs[len(runs)-1].s); sc < 0 || l < sc {
					sc = l
				}
			}
			if sc > jsonScore || sc == jsonScore && len(j) < len(g.json) {
				g.json, jsonScore = j, sc
			}
		}
	}
	return g, g.text != nil
}

// gateScore is the length of the shortest gate: the best clause has the
// longest, then the fewest gates.
func gateScore(gs []lit) int {
	m := -1
	for _, g := range gs {
		if m < 0 || len(g.s) < m {
			m = len(g.s)
		}
	}
	return m
}

// textGates are a clause's literals, unless one is empty.
func textGates(c []lit) ([]lit, bool) {
	out := make([]lit, 0, len(c))
	for _, l := range c {
		if len(l.s) == 0 {
			return nil, false
		}
		out = append(out, lit{s: l.s, fold: l.fold, ks: l.ks})
	}
	return out, len(out) > 0
}

// runGates returns, for each literal of a clause, its runs of bytes that a
// JSON rendering copies as they are (see jsonPieces), the longest last.
func runGates(c []lit) ([][]lit, bool) {
	out := make([][]lit, 0, len(c))
	for _, l := range c {
		var runs []lit
		s := l.s
		for len(s) > 0 {
			i := 0
			for i < len(s) && jsonSafe(s[i]) {
				i++
			}
			if run := s[:i]; len(run) > 0 && (l.fold || !inLevelWord(run)) {
				runs = append(runs, lit{s: run, fold: l.fold, ks: l.fold && bytes.ContainsAny(run, "ks")})
			}
			s = s[min(i+1, len(s)):]
		}
		if len(runs) == 0 {
			return nil, false
		}
		slices.SortStableFunc(runs, func(a, b lit) int { return len(a.s) - len(b.s) })
		out = append(out, runs)
	}
	return out, len(out) > 0
}

// fileGates returns the gates of a file that the queries qs read, or false
// when it must be read line by line. Its json gates are nil when some query
// has none.
func fileGates(qs []*scanQuery) (gates, bool) {
	var g gates
	jsonOK := true
	for _, q := range qs {
		if !q.gated {
			return gates{}, false
		}
		g.text = append(g.text, q.gates.text...)
		g.json = append(g.json, q.gates.json...)
		jsonOK = jsonOK && q.gates.json != nil
	}
	g.text = withKS(weakestLits(dedupLits(g.text)))
	if !jsonOK {
		g.json = nil
	}
	return g, true
}

// pickRuns chooses one run for each literal of a file's JSON gates: the
// one whose rarest byte is rarest in the logs seen, then the longest.
func (f *byteFreq) pickRuns(alts [][]lit) []lit {
	out := make([]lit, 0, len(alts)+len(hardEscapeGates))
	for _, runs := range alts {
		best, bestN := -1, uint64(0)
		for i, r := range runs {
			n := uint64(1<<63 - 1)
			for _, c := range r.s {
				n = min(n, f.count(c, r.fold))
			}
			if best < 0 || n < bestN || n == bestN && len(r.s) >= len(runs[best].s) {
				best, bestN = i, n
			}
		}
		out = append(out, runs[best])
	}
	return withKS(weakestLits(dedupLits(append(out, hardEscapeGates...))))
}

// withKS adds ksGates to gates of which one needs them.
func withKS(gs []lit) []lit {
	for _, g := range gs {
		if g.ks {
			return append(gs, ksGates...)
		}
	}
	return gs
}

// byteFreq counts the bytes of the logs seen so far, sampled, to search for
// each gate's rarest byte.
type byteFreq struct {
	n     [256]uint32
	total int
	// pairs counts the pairs of consecutive bytes, a<<8|b, for the SIMD
	// search's fingerprints (see teddyPlan): allocated on first use.
	pairs *[1 << 16]uint32
}

const (
	freqSampleBytes = 64 << 10 // per file
	freqMaxBytes    = 4 << 20  // in all
)

func (f *byteFreq) add(b []byte) {
	if f.total >= freqMaxBytes {
		return
	}
	b = b[:min(len(b), freqSampleBytes)]
	for _, c := range b {
		f.n[c]++
	}
	if f.pairs == nil {
		f.pairs = new([1 << 16]uint32)
	}
	for i := 1; i < len(b); i++ {
		f.pairs[uint16(b[i-1])<<8|uint16(b[i])]++
	}
	f.total += len(b)
}

// count is how often c was seen; for a folding gate, in either case.
func (f *byteFreq) count(c byte, fold bool) uint64 {
	n := uint64(f.n[c])
	if fold && c >= 'a' && c <= 'z' {
		n += uint64(f.n[c-('a'-'A')])
	}
	return n
}

// gateGroup is the gates searched for by one anchor byte, in one pass.
type gateGroup struct {
	c, up byte // the anchor byte; up, its upper case for folding gates, else c
	fold  bool
	lits  []lit // anchor: the offset of c
	check []int // per gate, the offset of another byte to compare first
	// near, when not zero, is an offset from the anchor (-1 or 1) at
	// which every gate of the group has a byte, and nearSet those bytes: an
	// anchor with another byte there starts no gate.
	near    int
	nearSet [4]uint64
	// byNear lists, for each byte that may sit at near, the gates (indexes
	// into lits) that have it there: byNear[nearAt[c]:nearAt[c+1]]. A stop
	// compares only those, not every gate of the group.
	nearAt [257]uint16
	byNear []uint16
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setNear chooses the neighbour of the anchor byte to try first.
func (gg *gateGroup) setNear() {
	for _, d := range []int{-1, 1} {
		ok := true
		var set [4]uint64
		for _, g := range gg.lits {
			k := g.anchor + d
			if k < 0 || k >= len(g.s) {
				ok = false
				break
			}
			c := g.s[k]
			set[c>>6] |= 1 << (c & 63)
			if gg.fold && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
				set[c>>6] |= 1 << (c & 63)
			}
		}
		if ok {
			gg.near, gg.nearSet = d, set
			gg.bucketNear()
			return
		}
	}
}

// bucketNear fills nearAt and byNear for near's bytes.
func (gg *gateGroup) bucketNear() {
	var count [256]int
	each := func(g *lit, f func(c byte)) {
		c := g.s[g.anchor+gg.near]
		f(c)
		if gg.fold && c >= 'a' && c <= 'z' {
			f(c - ('a' - 'A'))
		}
	}
	for i := range gg.lits {
		each(&gg.lits[i], func(c byte) { count[c]++ })
	}
	at := 0
	for c := range 256 {
		gg.nearAt[c] = uint16(at)
		at += count[c]
	}
	gg.nearAt[256] = uint16(at)
	gg.byNear = make([]uint16, at)
	var fill [256]int
	for i := range gg.lits {
		each(&gg.lits[i], func(c byte) {
			gg.byNear[int(gg.nearAt[c])+fill[c]] = uint16(i)
			fill[c]++
		})
	}
}

// Costs of a pass over a block, in nanoseconds per megabyte: the search
// itself (IndexByte runs at about 25 GB/s) and each anchor byte it stops
// at. A stop costs more than its own compare (about 10 ns): it ends an
// IndexByte call, and its group's gates are tried there. With the built-in
// rules' 90-odd literals, 10 ns made a pass over a byte as common as 'l'
// look cheap, and the stops cost a third of the analysis; 100 ns (more
// passes over rarer bytes) took 20% off the CPU time of the 2 GiB
// benchmark bundle, and 200 ns no more.
const (
	passCost = 40e3
	hitCost  = 100
)

// groupGates chooses the anchor bytes a file's gates are searched for by:
// a few, rare bytes that between them are in every gate. Every pass over a
// block costs, and so does every occurrence of its byte, so it is the
// weighted set cover of the gates by bytes, done greedily: the byte that
// covers the most gates for its cost first. gs is the caller's to change.
func (f *byteFreq) groupGates(dst []gateGroup, gs []lit) []gateGroup {
	dst = dst[:0]
	total := float64(max(f.total, 1))
	cost := func(c byte, fold bool) float64 {
		n := float64(f.count(c, fold)) / total * (1 << 20) * hitCost
		if fold && c >= 'a' && c <= 'z' {
			return 2*passCost + n
		}
		return passCost + n
	}
	done := make([]bool, len(gs))
	for left := len(gs); left > 0; {
		// covers[fold][c] is how many gates left hold c.
		var covers [2][256]int
		for i, g := range gs {
			if done[i] {
				continue
			}
			var seen [256]bool
			for _, c := range g.s {
				if !seen[c] {
					seen[c] = true
					covers[b2i(g.fold)][c]++
				}
			}
		}
		var best struct {
			c     byte
			fold  bool
			ratio float64
		}
		for fi, fold := range []bool{false, true} {
			for c := range 256 {
				n := covers[fi][c]
				if n == 0 {
					continue
				}
				if r := float64(n) / cost(byte(c), fold); r > best.ratio || r == best.ratio && byteRarity(byte(c)) > byteRarity(best.c) {
					best.c, best.fold, best.ratio = byte(c), fold, r
				}
			}
		}
		gg := gateGroup{c: best.c, up: best.c, fold: best.fold}
		if gg.fold && gg.c >= 'a' && gg.c <= 'z' {
			gg.up = gg.c - ('a' - 'A')
		}
		for i := range gs {
			g := &gs[i]
			if done[i] || g.fold != best.fold {
				continue
			}
			if g.anchor = bytes.IndexByte(g.s, best.c); g.anchor < 0 {
				continue
			}
			done[i] = true
			left--
			check := g.anchor
			for k, c := range g.s {
				if k != g.anchor && (check == g.anchor || f.count(c, g.fold) < f.count(g.s[check], g.fold)) {
					check = k
				}
			}
			gg.lits = append(gg.lits, *g)
			gg.check = append(gg.check, check)
		}
		gg.setNear()
		dst = append(dst, gg)
	}
	return dst
}

// next returns the offset of the next anchor byte in b, or -1.
func (gg *gateGroup) next(b []byte) int {
	j := bytes.IndexByte(b, gg.c)
	if gg.up != gg.c {
		lim := b
		if j >= 0 {
			lim = b[:j]
		}
		if k := bytes.IndexByte(lim, gg.up); k >= 0 {
			j = k
		}
	}
	return j
}

// at reports whether one of the group's gates has its anchor at b[p].
func (gg *gateGroup) at(b []byte, p int) bool {
	if gg.near != 0 {
		k := p + gg.near
		if k < 0 || k >= len(b) || gg.nearSet[b[k]>>6]&(1<<(b[k]&63)) == 0 {
			return false
		}
		for _, i := range gg.byNear[gg.nearAt[b[k]]:gg.nearAt[int(b[k])+1]] {
			if gg.litAt(b, p, int(i)) {
				return true
			}
		}
		return false
	}
	for i := range gg.lits {
		if gg.litAt(b, p, i) {
			return true
		}
	}
	return false
}

// litAt reports whether the group's gate i has its anchor at b[p].
func (gg *gateGroup) litAt(b []byte, p, i int) bool {
	g := &gg.lits[i]
	s := p - g.anchor
	if s < 0 || s+len(g.s) > len(b) {
		return false
	}
	k := gg.check[i]
	if c, want := b[s+k], g.s[k]; c != want && !(gg.fold && c >= 'A' && c <= 'Z' && c+('a'-'A') == want) {
		return false
	}
	return gg.fold && equalFoldASCII(b[s:s+len(g.s)], g.s) || !gg.fold && bytes.Equal(b[s:s+len(g.s)], g.s)
}

// lineSpan is a line of a block: [start, end), end at its '\n' or the
// block's end.
type lineSpan struct{ start, end int }

// gatedLines appends to dst, in order, the lines of block that hold a gate
// of one of the groups, and when jsonLines is set the JSON lines too.
func gatedLines(dst []lineSpan, block []byte, groups []gateGroup, jsonLines bool) []lineSpan {
	return groupLines(dst, len(dst), block, groups, jsonLines, len(groups) > 1 || jsonLines)
}

// groupLines is gatedLines after dst[first:], lines found already: when
// sorted is set, the lines found are sorted and repeats dropped.
func groupLines(dst []lineSpan, first int, block []byte, groups []gateGroup, jsonLines, sorted bool) []lineSpan {
	for gi := range groups {
		gg := &groups[gi]
		for i := 0; i < len(block); {
			j := gg.next(block[i:])
			if j < 0 {
				break
			}
			p := i + j
			if !gg.at(block, p) {
				i = p + 1
				continue
			}
			sp := lineAt(block, p)
			dst = append(dst, sp)
			i = sp.end + 1
		}
	}
	if jsonLines {
		// A JSON line has its '{' first, or after a prefix (see jsonStart).
		for i := 0; i < len(block); {
			j := bytes.IndexByte(block[i:], '{')
			if j < 0 {
				break
			}
			p := i + j
			if !jsonStart(block, p) {
				i = p + 1
				continue
			}
			sp := lineAt(block, p)
			if scanHead(block[sp.start:sp.end]).json {
				dst = append(dst, sp)
			}
			i = sp.end + 1
		}
	}
	found := dst[first:]
	if sorted {
		slices.SortFunc(found, func(a, b lineSpan) int { return a.start - b.start })
		found = slices.Compact(found)
	}
	return dst[:first+len(found)]
}

// jsonStart reports whether the '{' at block[p] may start a JSON line's
// body: it is first on its line, or after spaces that follow the line's
// start, a kubectl prefix ("Z ") or a docker-compose prefix ("| ").
func jsonStart(block []byte, p int) bool {
	q := p
	for q > 0 && block[q-1] == ' ' {
		q--
	}
	return q == 0 || block[q-1] == '\n' || q < p && (block[q-1] == 'Z' || block[q-1] == '|')
}

// lineAt returns the line of block that holds b[p].
func lineAt(block []byte, p int) lineSpan {
	sp := lineSpan{start: bytes.LastIndexByte(block[:p], '\n') + 1, end: len(block)}
	if e := bytes.IndexByte(block[p:], '\n'); e >= 0 {
		sp.end = p + e
	}
	return sp
}

// mostlyJSON reports whether most of the first lines of a block are JSON.
func mostlyJSON(block []byte) bool {
	lines, json := 0, 0
	for len(block) > 0 && lines < 100 {
		line, rest, _ := bytes.Cut(block, nl)
		if scanHead(line).json {
			json++
		}
		lines++
		block = rest
	}
	return json*2 > lines
}

// scanBlocks scans a file in blocks (see above), judging each line that
// holds a gate. When a line does not fit in a block it goes on line by line
// from there. A log's block ends before its last event (see cutBlock).
//
// The search of a block for its gates, the bulk of the work, runs in a
// goroutine of its own while the next blocks are read (up to
// pipelineBlocks blocks in flight), so that on two cores the search shares
// the cores with decompression instead of taking turns with the reading
// of the entry. The blocks' lines are judged, counted and noted on this
// goroutine in file order, as they were read; every block is done before
// scanBlocks returns.
func (f *fileScan) scanBlocks(p string, r io.Reader, g gates) error {
	s := f.s
	var pending []*blockJob // dispatched, in file order
	lines := 0
	// finish judges the oldest pending block's lines and frees its buffer.
	finish := func() {
		j := pending[0]
		pending = pending[1:]
		<-j.done
		for i, sp := range j.spans {
			f.blockLine(j.block, sp.start, sp.end, lines+j.before[i]+1)
		}
		lines += j.lines
		if f.log {
			f.blockDone(j.block)
		}
		s.freeJobs = append(s.freeJobs, j)
	}
	drain := func() {
		for len(pending) > 0 {
			finish()
		}
	}
	// job returns a free block; when all are in flight the oldest is
	// finished first.
	job := func() *blockJob {
		if len(s.freeJobs) == 0 && len(s.jobsMade) < pipelineBlocks {
			s.jobsMade = append(s.jobsMade, &blockJob{buf: make([]byte, logBlockBytes)})
			return s.jobsMade[len(s.jobsMade)-1]
		}
		if len(s.freeJobs) == 0 {
			finish()
		}
		j := s.freeJobs[len(s.freeJobs)-1]
		s.freeJobs = s.freeJobs[:len(s.freeJobs)-1]
		return j
	}
	cur := job()
	have := 0
	sampled, jsonLines := false, len(f.qs) > 0
	for {
		buf := cur.buf
		var err error
		for have < len(buf) && err == nil {
			var k int
			k, err = r.Read(buf[have:])
			have += k
		}
		if err != nil && !errors.Is(err, io.EOF) && have == 0 {
			drain()
			s.freeJobs = append(s.freeJobs, cur)
			f.st.Lines = lines
			return err
		}
		data := buf[:have]
		lastNL := bytes.LastIndexByte(data, '\n') + 1
		end := lastNL
		switch {
		case err != nil:
			end = have // the last line, with no line ending
		case end == 0:
			// A line longer than a block: the rest line by line.
			drain()
			rest := io.MultiReader(bytes.NewReader(slices.Clone(data)), r)
			s.freeJobs = append(s.freeJobs, cur)
			f.st.Lines = lines
			f.toLines()
			return f.scanLines(p, rest, lines)
		case f.log:
			end = cutBlock(data, lastNL)
		}
		block := data[:end]
		if !sampled {
			s.freq.add(block)
			gs := g.text
			if g.json != nil && mostlyJSON(block) {
				gs, jsonLines = s.freq.pickRuns(g.json), false
			}
			s.search = s.freq.planSearch(s.search, gs, err == nil)
			sampled = true
		}
		cur.block = block
		cur.done = make(chan struct{})
		pending = append(pending, cur)
		if err != nil {
			if len(pending) == 1 {
				cur.gate(&s.search, jsonLines) // the whole file: no hand-off
			} else {
				go cur.gate(&s.search, jsonLines)
			}
			drain()
			if n := len(block); n > 0 && block[n-1] != '\n' {
				lines++ // the last line, with no line ending
			}
			f.st.Lines = lines
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		go cur.gate(&s.search, jsonLines)
		next := job()
		have = copy(next.buf, data[end:])
		cur = next
	}
}

// pipelineBlocks is how many blocks of a file are read, searched or
// judged at once (see scanBlocks): pipelineBlocks * logBlockBytes of
// buffers.
const pipelineBlocks = 4

// blockJob is a block and, once done is closed, its gated lines.
type blockJob struct {
	buf    []byte // logBlockBytes, reused
	block  []byte // buf[:end]
	done   chan struct{}
	spans  []lineSpan
	before []int    // newlines in block before each span
	lines  int      // newlines in block
	cand   []uint32 // the SIMD search's candidates
}

// gate finds the block's gated lines and counts its newlines, then closes
// done. It reads only the block and the search, which stays unchanged
// until every block of the file is finished.
func (j *blockJob) gate(search *gateSearch, jsonLines bool) {
	j.spans = search.lines(j.spans[:0], j.block, jsonLines, &j.cand)
	j.before = j.before[:0]
	at, n := 0, 0
	for _, sp := range j.spans {
		n += bytes.Count(j.block[at:sp.start], nl)
		at = sp.start
		j.before = append(j.before, n)
	}
	j.lines = n + bytes.Count(j.block[at:], nl)
	close(j.done)
}

var nl = []byte{'\n'}

// scanLines hands every line of r to the file's scan, numbering them after
// the first lines already read.
func (f *fileScan) scanLines(p string, r io.Reader, first int) error {
	lr := bundle.NewLineReader(r, bundle.DefaultMaxLineBytes)
	defer func() {
		if n := lr.Cut(); n > 0 {
			f.s.cut[p] += n
		}
	}()
	for {
		line, n, _, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f.line(line, first+n)
	}
}
