package logs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// tdModel is the kernel's contract, done byte by byte: the candidates
// among the positions it searches, which are the 32-byte steps from 0
// while the step's last position plus teddyPos fits in b, and while out
// has room for 32 more.
func tdModel(m *teddyMasks, b []byte, outLen, step int) (cands []uint32, next int) {
	for next+step+teddyPos-1 <= len(b) && len(cands)+step <= outLen {
		for p := next; p < next+step; p++ {
			if m.bits(b, p) != 0 {
				cands = append(cands, uint32(p))
			}
		}
		next += step
	}
	return cands, next
}

// tdKernels are the kernels this machine runs, and their steps.
func tdKernels() (names []string, steps []int, run []func(m *teddyMasks, b []byte, out []uint32) (int, int)) {
	if haveTeddy {
		names, steps = append(names, "avx2"), append(steps, 32)
		run = append(run, teddyCandidates)
	}
	return names, steps, run
}

// tdRandomMasks fills masks with bucket bits: each table byte has each bit
// set with probability 1/density.
func tdRandomMasks(r *rand.Rand, density int) *teddyMasks {
	m := &teddyMasks{}
	for k := range teddyPos {
		for n := range 16 {
			for j := range 8 {
				if r.IntN(density) == 0 {
					m.lo[k][n] |= 1 << j
				}
				if r.IntN(density) == 0 {
					m.hi[k][n] |= 1 << j
				}
			}
			m.lo[k][n+16], m.hi[k][n+16] = m.lo[k][n], m.hi[k][n]
		}
	}
	for i := range m.nib {
		m.nib[i] = 0x0f
	}
	return m
}

// The kernel finds exactly the model's candidates, at every alignment of
// the input and every length to 100, with outputs too small for all.
func TestTeddyKernel(t *testing.T) {
	names, steps, kernels := tdKernels()
	if len(kernels) == 0 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for _, density := range []int{1, 2, 3, 8} {
		m := tdRandomMasks(r, density)
		for round := range 4 {
			for i := range buf {
				if round%2 == 0 {
					buf[i] = byte(r.IntN(256))
				} else {
					buf[i] = "abcXYZ{} \n"[r.IntN(10)]
				}
			}
			for ki, kernel := range kernels {
				for align := range 64 {
					for n := 0; n <= 200; n++ {
						if n > 100 && align%7 != 0 {
							continue
						}
						b := buf[align : align+n]
						for _, outLen := range []int{64, 70, 128, 300} {
							out := make([]uint32, outLen)
							got, next := kernel(m, b, out)
							want, wantNext := tdModel(m, b, outLen, steps[ki])
							if next != wantNext || !slices.Equal(out[:got], want) {
								t.Fatalf("%s: density %d align %d len %d out %d: got %v next %d, want %v next %d",
									names[ki], density, align, n, outLen, out[:got], next, want, wantNext)
							}
						}
					}
				}
			}
		}
	}
}

// A single fingerprint in one bucket is found at the chunks' edges (31,
// 32, 63, 64) and at the last position the kernel searches, and nowhere
// else.
func TestTeddyKernelEdges(t *testing.T) {
	names, steps, kernels := tdKernels()
	if len(kernels) == 0 {
		t.Skip("no AVX2")
	}
	var f byteFreq
	tg := f.teddyPlan([]lit{{s: []byte("WXYZ")}})
	for ki, kernel := range kernels {
		step := steps[ki]
		for n := step + teddyPos - 1; n <= 300; n++ {
			last := (n-step-teddyPos+1)/step*step + step - 1 // the last position searched
			for _, at := range []int{0, 31, 32, 63, 64, 127, 128, last, n - teddyPos} {
				if at < 0 || at+4 > n {
					continue
				}
				b := bytes.Repeat([]byte{'.'}, n)
				copy(b[at:], "WXYZ")
				out := make([]uint32, 64)
				got, next := kernel(&tg.m, b, out)
				var want []uint32
				if at < next {
					want = []uint32{uint32(at)}
				}
				if !slices.Equal(out[:got], want) {
					t.Errorf("%s: len %d, WXYZ at %d: candidates %v next %d, want %v", names[ki], n, at, out[:got], next, want)
				}
				// And the whole search finds its line, wherever it is.
				var cand []uint32
				if sp := tg.lines(nil, b, &cand); len(sp) != 1 || sp[0] != (lineSpan{0, n}) {
					t.Errorf("len %d, WXYZ at %d: lines %v", n, at, sp)
				}
			}
		}
	}
}

// tdLines writes log lines of RisingWave's shape and random bytes, and
// lines of literals from lits.
func tdBlock(r *rand.Rand, size int, lits [][]byte) []byte {
	var b bytes.Buffer
	text := lsBenchLog(64 << 10)
	for b.Len() < size {
		switch k := r.IntN(10); {
		case k < 5:
			i := r.IntN(len(text) - 400)
			j := bytes.IndexByte(text[i:], '\n')
			e := i + j + 1 + bytes.IndexByte(text[i+j+1:], '\n')
			b.Write(text[i+j+1 : e+1])
		case k < 7:
			for range r.IntN(80) {
				b.WriteByte(byte(r.IntN(256)))
			}
		case k < 9 && len(lits) > 0:
			l := lits[r.IntN(len(lits))]
			if r.IntN(3) == 0 {
				l = []byte(strings.ToUpper(string(l)))
			}
			if r.IntN(2) == 0 {
				b.WriteString("INFO x: ")
			}
			b.Write(l)
			if r.IntN(2) == 0 {
				b.WriteByte('\n')
			}
		default:
			b.WriteString([]string{"\n", "\u212A", "\u017F", "\r\n", "{\"level\":\"INFO\"}\n"}[r.IntN(5)])
		}
	}
	out := b.Bytes()
	return out[:min(len(out), size)]
}

// tdGates picks n gates: pieces of block (so that they are found) and of
// RisingWave log text, random bytes, of 1 to 40 bytes, folding or not,
// and the ks gates when a folding gate has "k" or "s".
func tdGates(r *rand.Rand, block []byte, n int, newline bool) []lit {
	var gs []lit
	text := lsBenchLog(8 << 10)
	for range n {
		ln := 1 + r.IntN(40)
		if r.IntN(3) == 0 {
			ln = 1 + r.IntN(5)
		}
		var s []byte
		switch src := r.IntN(4); {
		case src < 2 && len(block) > ln:
			i := r.IntN(len(block) - ln)
			s = slices.Clone(block[i : i+ln])
		case src < 3:
			i := r.IntN(len(text) - ln)
			s = slices.Clone(text[i : i+ln])
		default:
			s = make([]byte, ln)
			for i := range s {
				s[i] = byte(r.IntN(256))
			}
		}
		if !newline {
			s = bytes.ReplaceAll(s, []byte{'\n'}, []byte{' '})
		}
		g := lit{s: s}
		if r.IntN(3) == 0 {
			g.fold = true
			g.s = bytes.ToLower(s) // ASCII only: other bytes stay
			for i, c := range g.s {
				if c >= 'A' && c <= 'Z' {
					g.s[i] = c + ('a' - 'A')
				}
			}
			g.ks = bytes.ContainsAny(g.s, "ks")
		}
		gs = append(gs, g)
	}
	return withKS(weakestLits(dedupLits(gs)))
}

// tdCompare checks the search planned for gs against the IndexByte search
// of gs on block.
func tdCompare(t *testing.T, f *byteFreq, block []byte, gs []lit, jsonLines bool) {
	t.Helper()
	ref := f.groupGates(nil, slices.Clone(gs))
	want := gatedLines(nil, block, ref, jsonLines)
	for _, off := range []bool{false, true} {
		teddyOff = off
		s := f.planSearch(gateSearch{}, slices.Clone(gs), true)
		teddyOff = false
		if !off && haveTeddy && s.t == nil && slices.ContainsFunc(gs, func(g lit) bool { return len(g.s) >= 3 && bytes.IndexByte(g.s, '\n') < 0 }) &&
			!slices.ContainsFunc(gs, func(g lit) bool { return bytes.IndexByte(g.s, '\n') >= 0 }) {
			t.Fatalf("no SIMD search planned for %d gates", len(gs))
		}
		var cand []uint32
		got := s.lines(nil, block, jsonLines, &cand)
		if !slices.Equal(got, want) {
			t.Fatalf("teddyOff %v, %d gates, block of %d: %d lines, want %d\ngot  %v\nwant %v\ngates %q",
				off, len(gs), len(block), len(got), len(want), tdHead(got), tdHead(want), tdLitStrings(gs))
		}
	}
}

func tdHead(s []lineSpan) []lineSpan { return s[:min(len(s), 10)] }

func tdLitStrings(gs []lit) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%q fold=%v", g.s, g.fold))
	}
	return out
}

// The SIMD search finds exactly the lines the IndexByte search finds, in
// the same order, on random blocks and gates: 1 to 120 gates of 1 to 40
// bytes, folding or not, the ks gates, some with newlines (all searched
// by IndexByte then), lines cut at the block's ends, JSON lines or not.
func TestTeddySameAsIndexByte(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for round := range rounds {
		size := r.IntN(5000)
		if round%10 == 0 {
			size = r.IntN(logBlockBytes)
		}
		var lits [][]byte
		for range 5 {
			lits = append(lits, []byte(lsBenchQueries[r.IntN(len(lsBenchQueries))]))
		}
		block := tdBlock(r, size, lits)
		var f byteFreq
		if r.IntN(4) != 0 {
			f.add(block)
		}
		gs := tdGates(r, block, 1+r.IntN(120), r.IntN(10) == 0)
		tdCompare(t, &f, block, gs, r.IntN(3) == 0)
		// Literal-only gates: the lines that hold them are rare.
		var only []lit
		for _, l := range lits {
			only = append(only, lit{s: l, fold: r.IntN(2) == 0})
			if only[len(only)-1].fold {
				only[len(only)-1].s = bytes.ToLower(l)
			}
		}
		tdCompare(t, &f, block, withKS(weakestLits(dedupLits(only))), false)
	}
}

// The built-in rules' gates, on a log of RisingWave's shape: the same
// lines both ways.
func TestTeddyBuiltinGates(t *testing.T) {
	gs := tdBuiltinGates(t)
	text := lsBenchLog(logBlockBytes)
	var f byteFreq
	f.add(text)
	tdCompare(t, &f, text, gs, false)
	tdCompare(t, &f, lbMixed(rand.New(rand.NewPCG(5, 6)), 3000, 10), gs, true)
}

// tdBuiltinGates are the text gates of a compute node's log with the
// built-in rules.
func tdBuiltinGates(t testing.TB) []lit {
	s := NewScanner(builtinQueries(t))
	var want []*scanQuery
	for _, q := range s.queries {
		if q.wants(bundle.Classify("logs/rw-compute-0/compute.log")) {
			want = append(want, q)
		}
	}
	g, ok := fileGates(want)
	if !ok || len(g.text) < 30 {
		t.Fatalf("built-in gates: %d, %v", len(g.text), ok)
	}
	return g.text
}

// FuzzTeddy compares the SIMD search with the IndexByte search on
// arbitrary blocks, with gates drawn from seed.
func FuzzTeddy(f *testing.F) {
	f.Add([]byte("a\nINFO x: Starting compute node"), uint64(1))
	f.Add([]byte("recovery start!\r\n\u212A\u017F\n{\"a\":1}\n"), uint64(2))
	f.Add(bytes.Repeat([]byte("Sink error: sink_id=1\n"), 20), uint64(3))
	f.Fuzz(func(t *testing.T, block []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>32))
		var fr byteFreq
		fr.add(block)
		gs := tdGates(r, block, 1+r.IntN(120), r.IntN(10) == 0)
		tdCompare(t, &fr, block, gs, r.IntN(2) == 0)
	})
}

// BenchmarkGatedLines searches 256 KiB blocks of RisingWave-shaped text
// for the built-in rules' gates: the IndexByte search, and the SIMD one.
func BenchmarkGatedLines(b *testing.B) {
	gs := tdBuiltinGates(b)
	text := lsBenchLog(4 << 20)
	var blocks [][]byte
	for len(text) > logBlockBytes {
		e := bytes.LastIndexByte(text[:logBlockBytes], '\n') + 1
		blocks = append(blocks, text[:e])
		text = text[e:]
	}
	var f byteFreq
	f.add(blocks[0])
	for _, mode := range []string{"indexbyte", "teddy"} {
		b.Run(mode, func(b *testing.B) {
			teddyOff = mode == "indexbyte"
			s := f.planSearch(gateSearch{}, slices.Clone(gs), true)
			teddyOff = false
			if mode == "teddy" && s.t == nil {
				b.Skip("no SIMD search here")
			}
			var spans []lineSpan
			var cand []uint32
			b.SetBytes(int64(logBlockBytes))
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				spans = s.lines(spans[:0], blocks[i%len(blocks)], false, &cand)
			}
		})
	}
}

// BenchmarkTeddyPlan plans the SIMD search of the built-in rules' gates,
// as each log file with other gates than the last, or with twice the
// bytes counted, does.
func BenchmarkTeddyPlan(b *testing.B) {
	gs := tdBuiltinGates(b)
	var f byteFreq
	f.add(lsBenchLog(64 << 10))
	for b.Loop() {
		f.teddyPlan(gs)
	}
}

// A small file is searched with IndexByte unless a plan for its gates was
// made for a big one; a plan is made again once the bytes counted double,
// and the last maxTeddyPlans are kept.
func TestTeddyPlans(t *testing.T) {
	if !haveTeddy {
		t.Skip("no AVX2")
	}
	var f byteFreq
	f.add([]byte("some log text"))
	a := []lit{{s: []byte("recovery start")}, {s: []byte("ab")}}
	b := []lit{{s: []byte("actor exit")}}
	var s gateSearch
	grouped := func(s gateSearch) int {
		n := 0
		for _, g := range s.groups {
			n += len(g.lits)
		}
		return n
	}
	if s = f.planSearch(s, slices.Clone(a), false); s.t != nil || grouped(s) != 2 {
		t.Fatalf("small file, no plan: t %v, %d gates grouped, want IndexByte for both", s.t, grouped(s))
	}
	s = f.planSearch(s, slices.Clone(a), true)
	ta := s.t
	if ta == nil || grouped(s) != 1 {
		t.Fatalf("big file: t %v, %d gates grouped, want a plan and IndexByte for the short gate", ta, grouped(s))
	}
	if s = f.planSearch(s, slices.Clone(b), true); s.t == nil || s.t == ta {
		t.Fatal("other gates: want a plan of their own")
	}
	if s = f.planSearch(s, slices.Clone(a), false); s.t != ta {
		t.Fatal("small file with planned gates: want the plan reused")
	}
	f.add(bytes.Repeat([]byte("more log text "), 10))
	if s = f.planSearch(s, slices.Clone(a), false); s.t != ta {
		t.Fatal("small file after the counts doubled: want the plan reused")
	}
	if s = f.planSearch(s, slices.Clone(a), true); s.t == ta || s.t == nil {
		t.Fatal("big file after the counts doubled: want a new plan")
	}
	for i := range maxTeddyPlans + 3 {
		s = f.planSearch(s, []lit{{s: []byte(fmt.Sprint("gate number ", i))}}, true)
	}
	if len(s.plans) != maxTeddyPlans {
		t.Fatalf("%d plans kept, want %d", len(s.plans), maxTeddyPlans)
	}
}
