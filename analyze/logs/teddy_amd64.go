package logs

import "golang.org/x/sys/cpu"

// haveTeddy is whether this machine runs teddyCandidates (AVX2).
var haveTeddy = cpu.X86.HasAVX2

// teddyCandidates writes to out the offsets in b at which a fingerprint may
// begin: the positions p, from 0, with teddyPos bytes b[p:p+teddyPos] in some
// common bucket of m (see teddyMasks.bits), for p+teddyPos-1+32 <= len(b), in
// steps of 32 bytes, stopping when out has less than 32 places left. It
// returns how many it wrote and where it stopped: the positions from next on
// are not searched. out must hold at least 32.
//
//go:noescape
func teddyCandidates(m *teddyMasks, b []byte, out []uint32) (n int, next int)
