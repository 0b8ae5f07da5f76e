package awaittree

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Traces returns every trace with spans: actors, then RPCs, then the rest.
func (d *Dump) Traces() []*Trace {
	out := make([]*Trace, 0, len(d.Actors)+len(d.RPC)+len(d.Other))
	for _, ts := range [][]Trace{d.Actors, d.RPC, d.Other} {
		for i := range ts {
			out = append(out, &ts[i])
		}
	}
	return out
}

// Walk calls fn for every span of t, root and detached subtrees included,
// depth first in order, with the path from the span's root to it. When fn
// returns false the span's children are skipped. The path is reused: copy
// it to keep it.
func (t *Trace) Walk(fn func(path []*Span) bool) {
	roots := make([]*Span, 0, 1+len(t.Detached))
	if t.Root != nil {
		roots = append(roots, t.Root)
	}
	roots = append(roots, t.Detached...)
	type frame struct {
		sp    *Span
		depth int
	}
	var path []*Span
	for _, r := range roots {
		stack := []frame{{r, 0}}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			path = append(path[:f.depth], f.sp)
			if !fn(path) {
				continue
			}
			for i := len(f.sp.Children) - 1; i >= 0; i-- {
				stack = append(stack, frame{f.sp.Children[i], f.depth + 1})
			}
		}
	}
}

// SpanRef locates one span in a dump.
type SpanRef struct {
	Kind    Kind
	ActorID uint64 // actor traces
	Key     string // the trace's entry key
	Span    *Span
	Seconds float64
	Line    int
	// Leaf: no other span returned by the same query lies below this one,
	// so this is where the wait is rather than a parent waiting on it.
	Leaf bool
}

// Path returns the names of the spans from the root down to r.Span.
func (r SpanRef) Path() []string {
	var names []string
	for sp := r.Span; sp != nil; sp = sp.parent {
		names = append(names, sp.Name)
	}
	slices.Reverse(names)
	return names
}

// SlowSpans returns the spans marked slow that have lasted at least min,
// trace by trace in input order. The root of each trace is left out: since
// await-tree 0.3 (v2.4.0) an actor's root is marked once the actor has run
// for 10 s, which is its lifetime, not a wait. Detached roots are kept.
func (d *Dump) SlowSpans(min time.Duration) []SpanRef {
	var refs []SpanRef
	above := map[*Span]bool{}
	for _, t := range d.Traces() {
		t.Walk(func(path []*Span) bool {
			sp := path[len(path)-1]
			if sp == t.Root || !sp.Slow || sp.Elapsed < min {
				return true
			}
			// Mark the ancestors, stopping at one already marked: each
			// span is marked once, whatever the depth.
			for a := sp.parent; a != nil && !above[a]; a = a.parent {
				above[a] = true
			}
			refs = append(refs, SpanRef{
				Kind: t.Kind, ActorID: t.ActorID, Key: t.Key,
				Span: sp, Seconds: sp.Elapsed.Seconds(), Line: sp.Line,
			})
			return true
		})
	}
	for i := range refs {
		refs[i].Leaf = !above[refs[i].Span]
	}
	return refs
}

// Remaining is one Issued epoch with actors that have not collected it.
type Remaining struct {
	WorkerID         uint64
	Graph            string
	Epoch            uint64
	Kind             string
	Actors           []uint64
	PrevEpochPending int // more actors, pending since the previous epoch (see EpochState)
	Line             int
}

// Remaining returns, worker by worker, every Issued epoch still waiting on
// some actor.
func (d *Dump) Remaining() []Remaining {
	var out []Remaining
	for _, w := range d.Workers {
		for _, e := range w.Epochs {
			if e.State != "Issued" || len(e.Remaining) == 0 && e.PrevEpochPending == 0 {
				continue
			}
			out = append(out, Remaining{
				WorkerID: w.WorkerID, Graph: e.Graph, Epoch: e.Epoch, Kind: e.Kind,
				Actors: e.Remaining, PrevEpochPending: e.PrevEpochPending, Line: e.Line,
			})
		}
	}
	return out
}

// EpochWait is a span that waits on one epoch: `collect_barrier (epoch N)`
// and `sync_epoch (epoch N)` under a BarrierComplete RPC (v1.0–v1.7), and
// an inflight barrier's `SyncEpoch(N)` (v1.8+).
type EpochWait struct {
	Name    string // "collect_barrier", "sync_epoch", "SyncEpoch"
	Key     string // the trace's key: the RPC's, or the barrier's prev epoch
	Epoch   uint64
	Elapsed time.Duration
	Slow    bool
	Line    int
}

// EpochWaits returns the spans waiting on an epoch, in input order.
func (d *Dump) EpochWaits() []EpochWait {
	var out []EpochWait
	for _, t := range d.Traces() {
		if t.Kind == KindActor {
			continue
		}
		t.Walk(func(path []*Span) bool {
			sp := path[len(path)-1]
			if name, epoch, ok := epochSpan(sp.Name); ok {
				out = append(out, EpochWait{Name: name, Key: t.Key, Epoch: epoch, Elapsed: sp.Elapsed, Slow: sp.Slow, Line: sp.Line})
			}
			return true
		})
	}
	return out
}

func epochSpan(name string) (string, uint64, bool) {
	for _, f := range []struct{ prefix, suffix, name string }{
		{"collect_barrier (epoch ", ")", "collect_barrier"},
		{"sync_epoch (epoch ", ")", "sync_epoch"},
		{"SyncEpoch(", ")", "SyncEpoch"},
	} {
		rest, ok := strings.CutPrefix(name, f.prefix)
		if !ok {
			continue
		}
		rest, ok = strings.CutSuffix(rest, f.suffix)
		if !ok {
			continue
		}
		if v, err := strconv.ParseUint(rest, 10, 64); err == nil {
			return f.name, v, true
		}
	}
	return "", 0, false
}

// SinkSpan is a sink actor's `consume_log (sink_id N)` span (v1.10.0+,
// src/stream/src/executor/sink.rs; long-running since v2.4.0).
type SinkSpan struct {
	ActorID uint64
	SinkID  uint64
	Elapsed time.Duration
	Slow    bool
	Line    int
	// Waiting is the chain of spans below it, following the current one
	// where marked, else the longest-running child.
	Waiting []string
}

// Sinks returns the sink spans of the actor traces.
func (d *Dump) Sinks() []SinkSpan {
	var out []SinkSpan
	for i := range d.Actors {
		t := &d.Actors[i]
		t.Walk(func(path []*Span) bool {
			sp := path[len(path)-1]
			rest, ok := strings.CutPrefix(sp.Name, "consume_log (sink_id ")
			if !ok {
				return true
			}
			id, err := strconv.ParseUint(strings.TrimSuffix(rest, ")"), 10, 64)
			if err != nil || !strings.HasSuffix(rest, ")") {
				return true
			}
			s := SinkSpan{ActorID: t.ActorID, SinkID: id, Elapsed: sp.Elapsed, Slow: sp.Slow, Line: sp.Line}
			for c := waitingChild(sp); c != nil; c = waitingChild(c) {
				s.Waiting = append(s.Waiting, c.Name)
			}
			out = append(out, s)
			return false
		})
	}
	return out
}

func waitingChild(sp *Span) *Span {
	var best *Span
	for _, c := range sp.Children {
		if c.Current || hasCurrent(c) {
			return c
		}
		if best == nil || c.Elapsed > best.Elapsed {
			best = c
		}
	}
	return best
}

func hasCurrent(sp *Span) bool {
	found := false
	t := Trace{Root: sp}
	t.Walk(func(path []*Span) bool {
		if path[len(path)-1].Current {
			found = true
		}
		return !found
	})
	return found
}
