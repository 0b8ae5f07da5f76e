//go:build !amd64

package logs

// haveTeddy is whether this machine runs teddyCandidates: not on this
// architecture, which searches with bytes.IndexByte alone.
var haveTeddy = false

func teddyCandidates(m *teddyMasks, b []byte, out []uint32) (n int, next int) {
	panic("teddyCandidates: no SIMD search on this architecture")
}
