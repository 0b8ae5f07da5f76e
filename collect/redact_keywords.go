package collect

import (
	"slices"
	"strings"
)

// kwMatcher finds every occurrence of a set of ASCII keywords in text, with
// ASCII letters compared without case, in one pass over the text: an
// Aho-Corasick automaton made into a table indexed by state and byte class.
// It takes the place of lower-casing a line and scanning it once per
// keyword (or once per rule family): on RisingWave logs scan runs at about
// 300 MB/s a core, and leakScanner.scanLine's four-way scan at about 450.
type kwMatcher struct {
	words []string // lower case; a word's id is its index
	// cut: the automaton holds only each word's first cut bytes (0: all),
	// and scan reports where that prefix ends; the caller checks the rest
	// (fullWordAt). A small automaton stays in cache.
	cut    int
	class  [256]byte // byte -> class; 0 is every byte no keyword holds
	nclass uint32
	// delta[state+class] is the next state, premultiplied by nclass, with
	// kwOut set when keywords end there (out[state/nclass]).
	delta []uint32
	out   [][]int32
}

const kwOut = 1 << 31

// newKWMatcher builds a matcher for words (ASCII, lower-cased here; a
// word's id is its index in words, duplicates included).
func newKWMatcher(words []string) *kwMatcher { return newKWMatcherCut(words, 0) }

// newKWMatcherCut builds a matcher of the words' first cut bytes.
func newKWMatcherCut(words []string, cut int) *kwMatcher {
	m := &kwMatcher{cut: cut}
	for _, w := range words {
		m.words = append(m.words, strings.ToLower(w))
	}
	// byte classes: one per distinct byte the words hold
	m.nclass = 1
	for _, w := range m.words {
		for i := 0; i < len(w); i++ {
			if m.class[w[i]] == 0 {
				m.class[w[i]] = byte(m.nclass)
				m.nclass++
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		m.class[c-'a'+'A'] = m.class[c]
	}
	nc := int(m.nclass)
	// the trie
	type node struct {
		next map[byte]int
		fail int
		out  []int32
	}
	nodes := []node{{next: map[byte]int{}}}
	for id, w := range m.words {
		if w == "" {
			continue
		}
		if cut > 0 && len(w) > cut {
			w = w[:cut]
		}
		s := 0
		for i := 0; i < len(w); i++ {
			c := m.class[w[i]]
			n, ok := nodes[s].next[c]
			if !ok {
				n = len(nodes)
				nodes = append(nodes, node{next: map[byte]int{}})
				nodes[s].next[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, int32(id))
	}
	if len(nodes)*nc >= kwOut {
		panic("kwMatcher: too many keywords")
	}
	// breadth first: failure links, outputs and the full table
	next := make([]int, len(nodes)*nc) // unmultiplied
	m.out = make([][]int32, len(nodes))
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nd := &nodes[s]
		if s != 0 {
			nd.out = append(nd.out, nodes[nd.fail].out...)
		}
		m.out[s] = slices.Clip(nd.out)
		for c := 1; c < nc; c++ {
			if n, ok := nd.next[byte(c)]; ok {
				if s != 0 {
					nodes[n].fail = next[nd.fail*nc+c]
				}
				next[s*nc+c] = n
				queue = append(queue, n)
			} else if s != 0 {
				next[s*nc+c] = next[nd.fail*nc+c]
			}
		}
	}
	m.delta = make([]uint32, len(next))
	for i, n := range next {
		m.delta[i] = uint32(n * nc)
		if len(nodes[n].out) > 0 {
			m.delta[i] |= kwOut
		}
	}
	return m
}

// fullWordAt tells whether word id, whose automaton prefix ends at end in
// s, occurs there whole, and where it ends.
func (m *kwMatcher) fullWordAt(s string, id, end int) (int, bool) {
	w := m.words[id]
	if m.cut == 0 || len(w) <= m.cut {
		return end, true
	}
	start := end - m.cut
	if len(s)-start < len(w) || !hasPrefixFold(s[start:], w) {
		return 0, false
	}
	return start + len(w), true
}

// scan calls f with the id of every keyword occurrence in s and the offset
// just past it, left to right; f returns false to stop. (A matcher with a
// cut reports prefixes: see fullWordAt.)
func (m *kwMatcher) scan(s string, f func(id int, end int) bool) {
	var st uint32
	delta, class := m.delta, &m.class
	for i := 0; i < len(s); i++ {
		x := delta[st+uint32(class[s[i]])]
		st = x &^ kwOut
		if x&kwOut != 0 {
			for _, id := range m.out[st/m.nclass] {
				if !f(int(id), i+1) {
					return
				}
			}
		}
	}
}
