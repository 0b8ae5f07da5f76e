package logs

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
)

// The SIMD gate search ("Teddy", after Hyperscan's and Rust's aho-corasick
// literal search): one pass over a block finds, for all gates at once, the
// offsets where a gate's fingerprint may begin. A fingerprint is 3 or 4
// consecutive bytes of a gate (teddyPos at most), at the offset in the
// gate where they are rarest in the logs seen (byteFreq). The gates are put
// in 8 buckets; for each fingerprint position k, two tables of 16 bytes say
// in which buckets a byte's low and high nibbles may sit there. The kernel
// (teddyCandidates, AVX2) looks both nibbles of 32 bytes up at once
// (VPSHUFB) for each position and ANDs them: a byte left non-zero is an
// offset where every fingerprint byte of some bucket's gate may be. Each
// such candidate is checked in Go: its first 3 bytes against a bitmap of
// the fingerprints' (most candidates are common words that only the mix
// of nibbles lets through), then against its buckets' gates, their
// fingerprint first, then the whole gate; its line is taken as gatedLines
// takes it. A folding gate puts both cases of its letters in the tables;
// the checks fold.
//
// The tables are a superset (nibbles of different gates combine), so the
// candidates are more than the matches; how many more depends on how the
// gates are put in buckets: greedily, each to the bucket whose estimated
// rate of candidates it raises least (teddyPlan).
//
// Gates of fewer than 3 bytes, and every gate when one holds a newline (a
// line is taken at the byte where the search stops, which for a gate over
// two lines depends on the anchor bytes chosen) or when the machine has no
// AVX2, are searched with bytes.IndexByte as before (groupGates); so
// are all gates when teddyOff is set (tests), and those of a file of one
// block when no plan for its gates is at hand (see planSearch).

// teddyPos is the number of fingerprint positions the kernel tests.
const teddyPos = 4

// teddyTail is how many bytes the kernel reads for a step of 32
// positions from i: it takes the step when i+teddyTail <= len(b), and the
// positions after the last step are searched in Go.
const teddyTail = 32 + teddyPos - 1

// teddyOff makes planSearch search with bytes.IndexByte only (tests).
var teddyOff = false

// teddyMasks are the kernel's tables: for fingerprint position k, lo[k][n]
// has bit j set when bucket j has a gate whose byte at k may have low
// nibble n; hi[k] the same for high nibbles. Each table is written twice,
// for both 16-byte lanes of VPSHUFB. nib is 32 bytes of 0x0f.
type teddyMasks struct {
	lo, hi [teddyPos][32]byte
	nib    [32]byte
}

// bits returns the buckets whose fingerprint bytes may begin at b[p]:
// positions past the end of b are not tested.
func (m *teddyMasks) bits(b []byte, p int) byte {
	bits := byte(0xff)
	for k := 0; k < teddyPos && p+k < len(b); k++ {
		c := b[p+k]
		bits &= m.lo[k][c&15] & m.hi[k][c>>4]
	}
	return bits
}

// teddyGate is a gate in a bucket: fp is its fingerprint's bytes as a
// little-endian word, with the letters of a folding gate in upper case,
// and mask the bits of the word to compare (0xdf for those letters).
type teddyGate struct {
	s        []byte
	fold     bool
	off      int // of the fingerprint in s
	fp, mask uint32
}

// teddy is the search of a file's gates of 3 bytes or more.
type teddy struct {
	m       teddyMasks
	buckets [8][]teddyGate
	// first3 has bit fpHash(w) set for the first 3 bytes w of each
	// fingerprint: most candidates are common words that only the tables'
	// mix of nibbles lets through ("coun" for "Conn" and "runn"), and
	// this one test drops them.
	first3 [1 << 16 / 64]uint64
}

// fpHash hashes the first 3 bytes of w, the upper and lower case of a
// letter (and other bytes that differ only in bit 5) alike.
func fpHash(w uint32) uint32 { return (w & 0x00dfdfdf) * 0x9e3779b1 >> 16 }

// gateSearch is how a file's gates are searched: groups, by
// bytes.IndexByte passes (see groupGates), and t, when not nil, by the
// SIMD search.
type gateSearch struct {
	groups []gateGroup
	t      *teddy
	// plans are the last SIMD searches planned, newest last.
	plans []teddyPlanned
}

// teddyPlanned is a SIMD search, its gates and the bytes counted when it
// was planned: a file with the same gates reuses it until twice as many
// bytes are counted.
type teddyPlanned struct {
	gates []lit
	total int
	t     *teddy
}

// maxTeddyPlans is how many plans a scanner keeps: one per kind of log
// (compute, meta, frontend, compactor...), whose queries, so gates, differ.
const maxTeddyPlans = 8

// planSearch chooses how the gates gs are searched. big is whether the
// file has more than one block: a plan costs about 1 ms with the built-in
// rules' gates, the IndexByte search of a 256 KiB block about 0.4 ms more
// than the SIMD one, so a smaller file is searched with IndexByte unless
// a plan for its gates is at hand. gs is the caller's to change.
func (f *byteFreq) planSearch(dst gateSearch, gs []lit, big bool) gateSearch {
	dst.t = nil
	useTeddy := haveTeddy && !teddyOff
	for _, g := range gs {
		if bytes.IndexByte(g.s, '\n') >= 0 {
			useTeddy = false
		}
	}
	var long, short []lit
	for _, g := range gs {
		if len(g.s) >= 3 {
			long = append(long, g)
		} else {
			short = append(short, g)
		}
	}
	if useTeddy && len(long) > 0 {
		i := slices.IndexFunc(dst.plans, func(p teddyPlanned) bool { return sameLits(p.gates, long) })
		switch {
		case i >= 0 && (!big || f.total <= 2*dst.plans[i].total):
			dst.t = dst.plans[i].t
		case big:
			if i >= 0 {
				dst.plans = slices.Delete(dst.plans, i, i+1)
			} else if len(dst.plans) == maxTeddyPlans {
				dst.plans = slices.Delete(dst.plans, 0, 1)
			}
			dst.t = f.teddyPlan(long)
			dst.plans = append(dst.plans, teddyPlanned{gates: long, total: f.total, t: dst.t})
		}
	}
	if dst.t == nil {
		dst.groups = f.groupGates(dst.groups, gs)
	} else {
		dst.groups = f.groupGates(dst.groups, short)
	}
	return dst
}

// sameLits reports whether a and b are the same gates in the same order.
func sameLits(a, b []lit) bool {
	return slices.EqualFunc(a, b, func(x, y lit) bool { return x.fold == y.fold && bytes.Equal(x.s, y.s) })
}

// lines is gatedLines for the search s.
func (s *gateSearch) lines(dst []lineSpan, block []byte, jsonLines bool, cand *[]uint32) []lineSpan {
	if s.t == nil {
		return gatedLines(dst, block, s.groups, jsonLines)
	}
	first := len(dst)
	dst = s.t.lines(dst, block, cand)
	return groupLines(dst, first, block, s.groups, jsonLines, len(s.groups) > 0 || jsonLines)
}

// lines appends to dst, in order, the lines of block that hold one of t's
// gates. cand is a buffer for the kernel's candidates.
func (t *teddy) lines(dst []lineSpan, block []byte, cand *[]uint32) []lineSpan {
	if len(*cand) < 512 {
		*cand = make([]uint32, 512)
	}
	buf := *cand
	skip := 0 // the end of the last line taken, +1
	at := 0
	for at+teddyTail <= len(block) {
		n, next := teddyCandidates(&t.m, block[at:], buf)
		for _, c := range buf[:n] {
			p := at + int(c)
			if p < skip {
				continue
			}
			// t.at's first test, here to save a call: p+4 <= len(block)
			if h := fpHash(binary.LittleEndian.Uint32(block[p:])); t.first3[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
			if t.at(block, p) {
				sp := lineAt(block, p)
				dst = append(dst, sp)
				skip = sp.end + 1
			}
		}
		at += next
	}
	for p := max(at, skip); p < len(block); p++ {
		if t.m.bits(block, p) != 0 && t.at(block, p) {
			sp := lineAt(block, p)
			dst = append(dst, sp)
			p = sp.end
		}
	}
	return dst
}

// at reports whether one of t's gates has its fingerprint at block[p].
func (t *teddy) at(block []byte, p int) bool {
	var w uint32
	switch {
	case p+4 <= len(block):
		w = binary.LittleEndian.Uint32(block[p:])
	case p+3 <= len(block):
		w = uint32(block[p]) | uint32(block[p+1])<<8 | uint32(block[p+2])<<16
	default:
		return false // every fingerprint has 3 bytes or more
	}
	if h := fpHash(w); t.first3[h>>6]&(1<<(h&63)) == 0 {
		return false
	}
	bits := t.m.bits(block, p)
	for bits != 0 {
		j := bitIndex(bits)
		bits &= bits - 1
		for i := range t.buckets[j] {
			g := &t.buckets[j][i]
			if w&g.mask != g.fp {
				continue
			}
			s := p - g.off
			if s < 0 || s+len(g.s) > len(block) {
				continue
			}
			if g.fold && equalFoldASCII(block[s:s+len(g.s)], g.s) || !g.fold && bytes.Equal(block[s:s+len(g.s)], g.s) {
				return true
			}
		}
	}
	return false
}

// bitIndex is the index of b's lowest set bit; b is not 0.
func bitIndex(b byte) int {
	n := 0
	for b&1 == 0 {
		b >>= 1
		n++
	}
	return n
}

// teddyPlan chooses the gates' fingerprints and buckets and fills the
// tables. Every gate has 3 bytes or more.
//
// How often a fingerprint lets a position through is estimated from the
// sampled counts of bytes and of pairs of bytes, as a chain:
// P(x0 in A0) * P(x1 in A1 | x0 in A0) * ...: single bytes alone would
// miss that the letters of "ting" or "very" come together. A bucket's rate
// is estimated the same way, over the wider sets its tables let through.
func (f *byteFreq) teddyPlan(gs []lit) *teddy {
	pairs := f.pairs
	if pairs == nil {
		pairs = new([1 << 16]uint32)
	}
	var p1 [256]float64
	total := float64(f.total) + 128
	for c := range 256 {
		p1[c] = (float64(f.n[c]) + 0.5) / total
	}
	// variants are c, and its upper case for a folding gate.
	variants := func(c byte, fold bool) []byte {
		if fold && c >= 'a' && c <= 'z' {
			return []byte{c, c - ('a' - 'A')}
		}
		return []byte{c}
	}
	// fpRate estimates the share of positions that a fingerprint w of a
	// gate lets through.
	fpRate := func(w []byte, fold bool) float64 {
		ma := variants(w[0], fold)
		x, na := 0.0, 0.0
		for _, a := range ma {
			x += p1[a]
			na += float64(f.n[a])
		}
		for _, c := range w[1:] {
			mb := variants(c, fold)
			pb, nab := 0.0, 0.0
			for _, b := range mb {
				pb += p1[b]
				for _, a := range ma {
					nab += float64(pairs[uint16(a)<<8|uint16(b)])
				}
			}
			x *= (nab + pb) / (na + 1)
			ma, na = mb, 0
			for _, a := range ma {
				na += float64(f.n[a])
			}
		}
		return x
	}
	type nibSets struct{ lo, hi [teddyPos]uint16 }
	// Each gate's fingerprint: the window of teddyPos bytes (3 for a gate
	// of 3) whose bytes are rarest together.
	type fpGate struct {
		g    teddyGate
		nibs nibSets // 0xffff past the fingerprint
		p    float64
	}
	fps := make([]fpGate, 0, len(gs))
	for _, g := range gs {
		n := min(len(g.s), teddyPos)
		best := fpGate{p: math.Inf(1)}
		for off := 0; off+n <= len(g.s); off++ {
			if x := fpRate(g.s[off:off+n], g.fold); x < best.p {
				best = fpGate{g: teddyGate{s: g.s, fold: g.fold, off: off}, p: x}
			}
		}
		for k := range teddyPos {
			if k >= n {
				best.nibs.lo[k], best.nibs.hi[k] = 0xffff, 0xffff
				continue
			}
			c := g.s[best.g.off+k]
			for _, v := range variants(c, g.fold) {
				best.nibs.lo[k] |= 1 << (v & 15)
				best.nibs.hi[k] |= 1 << (v >> 4)
			}
			m := uint32(0xff)
			if g.fold && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
				m = 0xdf
			}
			best.g.fp |= uint32(c) << (8 * k)
			best.g.mask |= m << (8 * k)
		}
		fps = append(fps, best)
	}
	// The buckets: the commonest fingerprints first, each to the bucket
	// whose estimated rate of candidates it raises least. A bucket lets
	// through, at position k, every byte whose low and high nibbles are
	// both those of some gate's byte at k.
	slices.SortStableFunc(fps, func(a, b fpGate) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return 0
	})
	// bucketRate estimates a bucket's rate of candidates, as fpRate does.
	var ma, mb []byte
	bucketRate := func(b *nibSets) float64 {
		members := func(k int, dst []byte) []byte {
			dst = dst[:0]
			for hi := range 16 {
				if b.hi[k]&(1<<hi) == 0 {
					continue
				}
				for lo := range 16 {
					if b.lo[k]&(1<<lo) != 0 {
						dst = append(dst, byte(hi<<4|lo))
					}
				}
			}
			return dst
		}
		ma = members(0, ma)
		x, na := 0.0, 0.0
		for _, a := range ma {
			x += p1[a]
			na += float64(f.n[a])
		}
		for k := 1; k < teddyPos; k++ {
			if b.lo[k] == 0xffff && b.hi[k] == 0xffff {
				break // a fingerprint of 3: no byte at 3
			}
			mb = members(k, mb)
			pb, nab := 0.0, 0.0
			for _, c := range mb {
				pb += p1[c]
				row := pairs[uint16(c):]
				for _, a := range ma {
					nab += float64(row[uint16(a)<<8])
				}
			}
			x *= (nab + pb) / (na + 1)
			ma, mb = mb, ma
			na = 0
			for _, a := range ma {
				na += float64(f.n[a])
			}
		}
		return x
	}
	t := &teddy{}
	var buckets [8]nibSets
	var used [8]bool
	var rates [8]float64
	for i := range fps {
		fg := &fps[i]
		best, bestCost := -1, math.Inf(1)
		var bestSets nibSets
		for j := range buckets {
			nb := buckets[j]
			for k := range teddyPos {
				nb.lo[k] |= fg.nibs.lo[k]
				nb.hi[k] |= fg.nibs.hi[k]
			}
			if cost := bucketRate(&nb) - rates[j]; cost < bestCost {
				best, bestCost, bestSets = j, cost, nb
			}
		}
		buckets[best], used[best] = bestSets, true
		rates[best] += bestCost
		t.buckets[best] = append(t.buckets[best], fg.g)
		h := fpHash(fg.g.fp)
		t.first3[h>>6] |= 1 << (h & 63)
	}
	for j, b := range buckets {
		if !used[j] {
			continue
		}
		for k := range teddyPos {
			for n := range 16 {
				if b.lo[k]&(1<<n) != 0 {
					t.m.lo[k][n] |= 1 << j
					t.m.lo[k][n+16] |= 1 << j
				}
				if b.hi[k]&(1<<n) != 0 {
					t.m.hi[k][n] |= 1 << j
					t.m.hi[k][n+16] |= 1 << j
				}
			}
		}
	}
	for i := range t.m.nib {
		t.m.nib[i] = 0x0f
	}
	return t
}

// byteSet is a set of bytes.
type byteSet [4]uint64

var fullSet = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

func (s *byteSet) full() bool { return *s == fullSet }

// add adds c to s, and its upper case when fold.
func (s *byteSet) add(c byte, fold bool) {
	s[c>>6] |= 1 << (c & 63)
	if fold && c >= 'a' && c <= 'z' {
		u := c - ('a' - 'A')
		s[u>>6] |= 1 << (u & 63)
	}
}
