package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// baseTime is the fixed origin every sample's timeline is placed against.
var baseTime = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// rwEpochOrigin is RisingWave's epoch origin, 2021-04-01T00:00:00Z, in Unix ms.
const rwEpochOrigin = 1617235200000

// epochAt is the RisingWave epoch of a wall-clock time:
// (unix_ms − 1617235200000) << 16.
func epochAt(t time.Time) uint64 {
	return uint64(t.UnixMilli()-rwEpochOrigin) << 16
}

// newRand returns a generator seeded by the scenario's seed and a stream
// name, so that what one file draws never shifts what another draws.
func newRand(seed uint64, stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// hexID is n lowercase hex digits derived from key, for container ids,
// image digests and the like.
func hexID(key string, n int) string {
	var out strings.Builder
	for i := 0; out.Len() < n; i++ {
		s := sha256.Sum256([]byte(key + "#" + strconv.Itoa(i)))
		out.WriteString(hex.EncodeToString(s[:]))
	}
	return out.String()[:n]
}

// uuidFor is a version-4-shaped UUID derived from key.
func uuidFor(key string) string {
	h := hexID("uuid:"+key, 32)
	b := []byte(h)
	b[12] = '4'
	b[16] = "89ab"[int(b[16])%4]
	return fmt.Sprintf("%s-%s-%s-%s-%s", b[0:8], b[8:12], b[12:16], b[16:20], b[20:32])
}

// alnum5 is the 5-character suffix Kubernetes gives ReplicaSet pods.
func alnum5(key string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	h := sha256.Sum256([]byte("pod:" + key))
	out := make([]byte, 5)
	for i := range out {
		out[i] = alphabet[int(h[i])%len(alphabet)]
	}
	return string(out)
}

// podTemplateHash is the 9-10 character hash of a ReplicaSet.
func podTemplateHash(key string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	h := sha256.Sum256([]byte("rs:" + key))
	out := make([]byte, 10)
	for i := range out {
		out[i] = alphabet[int(h[i])%len(alphabet)]
	}
	return string(out)
}

// Time formats.

// k8sTime is how Kubernetes objects print times.
func k8sTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// pgTime is how RisingWave prints a timestamptz in psql output.
func pgTime(t time.Time) string {
	s := t.UTC().Format("2006-01-02 15:04:05.000")
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s + "+00:00"
}

// describeTime is how kubectl describe prints a time.
func describeTime(t time.Time) string { return t.UTC().Format("Mon, 02 Jan 2006 15:04:05 -0700") }

// age is kubectl's short duration ("3m36s", "27m", "2d3h").
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	switch {
	case s < 120:
		return fmt.Sprintf("%ds", s)
	case s < 600:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	case s < 3*3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 8*3600:
		if (s/60)%60 == 0 {
			return fmt.Sprintf("%dh", s/3600)
		}
		return fmt.Sprintf("%dh%dm", s/3600, (s/60)%60)
	case s < 48*3600:
		return fmt.Sprintf("%dh", s/3600)
	default:
		if (s/3600)%24 == 0 {
			return fmt.Sprintf("%dd", s/86400)
		}
		return fmt.Sprintf("%dd%dh", s/86400, (s/3600)%24)
	}
}

// fmtFloat prints a float the way RisingWave's Prometheus exporter (Rust's
// Display for f64) does: shortest round-trip digits, never an exponent.
func fmtFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Curves: values as functions of time, for metrics knobs.

// pt is one point of a curve.
type pt struct {
	at time.Time
	v  float64
}

// step is a piecewise-constant curve: the value of the last point at or
// before t (the first point's value before it). Used for rates, so that a
// counter is its exact integral.
type step []pt

func (s step) at(t time.Time) float64 {
	if len(s) == 0 {
		return 0
	}
	v := s[0].v
	for _, p := range s {
		if p.at.After(t) {
			break
		}
		v = p.v
	}
	return v
}

// integral is ∫ s over [from, to], in value·seconds.
func (s step) integral(from, to time.Time) float64 {
	if !to.After(from) || len(s) == 0 {
		return 0
	}
	total := 0.0
	cur := from
	v := s.at(from)
	for _, p := range s {
		if !p.at.After(cur) {
			continue
		}
		if !p.at.Before(to) {
			break
		}
		total += v * p.at.Sub(cur).Seconds()
		cur, v = p.at, p.v
	}
	return total + v*to.Sub(cur).Seconds()
}

// flat is a constant step.
func flat(v float64) step { return step{{baseTime, v}} }

// lin is a piecewise-linear curve, clamped to its end values outside its
// points. Used for gauges and latencies.
type lin []pt

func (l lin) at(t time.Time) float64 {
	if len(l) == 0 {
		return 0
	}
	if !t.After(l[0].at) {
		return l[0].v
	}
	for i := 1; i < len(l); i++ {
		if !t.After(l[i].at) {
			a, b := l[i-1], l[i]
			span := b.at.Sub(a.at).Seconds()
			if span <= 0 {
				return b.v
			}
			f := t.Sub(a.at).Seconds() / span
			return a.v + (b.v-a.v)*f
		}
	}
	return l[len(l)-1].v
}

// constant is a flat lin.
func constant(v float64) lin { return lin{{baseTime, v}} }

// histModel describes what a Prometheus histogram observes over time: rate
// observations per second, each of latency lat seconds, spread over a few
// neighbouring values so that several buckets fill.
type histModel struct {
	rate step
	lat  lin
}

// histSpread spreads observations around their latency: observation j
// of a series takes latency × histSpread[j mod len].
var histSpread = [...]float64{1.0, 0.75, 1.3, 1.0, 0.55, 1.0, 1.3, 0.75, 1.7, 1.0, 1.0, 0.8}

// histogram is the cumulative state of a histModel over [from, to]:
// per-bucket counts (cumulative, as exposed), the count and the sum.
type histogram struct {
	buckets []float64 // upper bounds, without +Inf
	counts  []uint64  // cumulative, len(buckets)+1 (the last is +Inf)
	sum     float64
}

// observe integrates m over [from, to] into whole observations. Before the
// earliest point of either curve the model is constant, so that part is
// counted in one piece; the rest in 5-second steps.
func (m histModel) observe(buckets []float64, from, to time.Time) histogram {
	h := histogram{buckets: buckets, counts: make([]uint64, len(buckets)+1)}
	if !to.After(from) {
		return h
	}
	per := make([]uint64, len(buckets)+1)
	var carry float64
	next := 0 // index into histSpread of the next observation
	add := func(n, lat float64) {
		carry += n
		k := uint64(math.Floor(carry + 1e-9))
		carry -= float64(k)
		if k == 0 {
			return
		}
		full, rem := k/uint64(len(histSpread)), k%uint64(len(histSpread))
		for i, mul := range histSpread {
			cnt := full
			if uint64((i-next+len(histSpread))%len(histSpread)) < rem {
				cnt++
			}
			if cnt == 0 {
				continue
			}
			v := lat * mul
			idx, _ := slices.BinarySearch(buckets, v)
			per[idx] += cnt
			h.sum += float64(cnt) * v
		}
		next = (next + int(k%uint64(len(histSpread)))) % len(histSpread)
	}
	dyn := to
	for _, p := range m.rate {
		if p.at.Before(dyn) {
			dyn = p.at
		}
	}
	for _, p := range m.lat {
		if p.at.Before(dyn) {
			dyn = p.at
		}
	}
	dyn = dyn.Add(-time.Minute)
	if dyn.After(from) {
		add(m.rate.integral(from, dyn), m.lat.at(dyn))
		from = dyn
	}
	const stepLen = 5 * time.Second
	for t := from; t.Before(to); t = t.Add(stepLen) {
		end := t.Add(stepLen)
		if end.After(to) {
			end = to
		}
		mid := t.Add(end.Sub(t) / 2)
		add(m.rate.integral(t, end), m.lat.at(mid))
	}
	var cum uint64
	for i, n := range per {
		cum += n
		h.counts[i] = cum
	}
	return h
}

// expBuckets is Prometheus's exponential_buckets(start, factor, count),
// computed the same way (successive multiplication), so the bounds print as
// RisingWave prints them (0.15000000000000002 and all).
func expBuckets(start, factor float64, count int) []float64 {
	b := make([]float64, count)
	v := start
	for i := range b {
		b[i] = v
		v *= factor
	}
	return b
}

// latencyBuckets is RisingWave's latency_buckets(max, count): exponential
// from 0.1 to max, the last bound set to max exactly.
func latencyBuckets(max float64, count int) []float64 {
	factor := math.Pow(max/0.1, 1/float64(count-1))
	b := expBuckets(0.1, factor, count)
	b[len(b)-1] = max
	return b
}

// gib is n GiB in bytes.
func gib(n float64) float64 { return n * (1 << 30) }
