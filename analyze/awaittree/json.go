package awaittree

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// pbjsonFields maps the fields of a pbjson StackTraceResponse
// (proto/monitor_service.proto; pbjson writes camelCase and reads both) to
// their kind. pbjson leaves empty maps out.
var pbjsonFields = map[string]Kind{
	"actorTraces":             KindActor,           // v1.0.0
	"actor_traces":            KindActor,           //
	"rpcTraces":               KindRPC,             // v1.0.0
	"rpc_traces":              KindRPC,             //
	"compactionTaskTraces":    KindCompaction,      // v1.0.0
	"compaction_task_traces":  KindCompaction,      //
	"inflightBarrierTraces":   KindInflightBarrier, // v1.8.0
	"inflight_barrier_traces": KindInflightBarrier,
	"barrierWorkerState":      KindBarrierWorker, // v1.9.0
	"barrier_worker_state":    KindBarrierWorker,
	"jvmStackTraces":          KindJVM, // v1.10.0
	"jvm_stack_traces":        KindJVM,
	"metaTraces":              KindMeta, // v2.5.0
	"meta_traces":             KindMeta,
	"nodeErrors":              KindErrors, // v2.8.0
	"node_errors":             KindErrors,
	"batchTraces":             KindBatch, // after v3.0.3
	"batch_traces":            KindBatch,
}

// maxJSONNesting bounds the nesting of a JSON document, checked before any
// parser sees it (encoding/json refuses deeper documents too, and decodes
// recursively; gjson validates recursively).
const maxJSONNesting = 10_000

// parseJSONDocument reads a whole JSON input: a pbjson StackTraceResponse
// or one serde await-tree.
func (p *parser) parseJSONDocument(data []byte) {
	p.d.Stats.Lines = strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		p.d.Stats.Lines++
	}
	if !jsonNestingOK(data) {
		p.unknown(1, clip(string(data), 64), fmt.Sprintf("JSON nested deeper than %d levels; not parsed", maxJSONNesting))
		return
	}
	if !json.Valid(data) {
		p.unknown(1, clip(string(data), 64), "not valid JSON (cut short?)")
		return
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		p.unknown(1, clip(string(data), 64), "JSON document is not an object")
		return
	}
	lineOf := lineIndex(data, 1)
	if root.Get("tree").IsObject() {
		p.d.Format = FormatTreeJSON
		p.addSection("tree", KindTree, 1, true)
		t := Trace{Kind: KindTree, Line: 1}
		p.treeFromJSON(&t, data, 1)
		p.d.Other = append(p.d.Other, t)
		return
	}
	known, fields := false, 0
	root.ForEach(func(k, v gjson.Result) bool {
		fields++
		line := lineOf(k.Index)
		kind, ok := pbjsonFields[k.Str]
		if !ok {
			p.addSection(k.Str, KindUnknown, line, false)
			p.unknown(line, k.Str, "unrecognised StackTraceResponse field")
			return true
		}
		known = true
		sec := len(p.d.Sections)
		p.addSection(k.Str, kind, line, true)
		if !v.IsObject() {
			p.unknown(line, clip(v.Raw, 64), "StackTraceResponse field is not a map")
			return true
		}
		v.ForEach(func(key, val gjson.Result) bool {
			kl := lineOf(key.Index)
			if val.Type != gjson.String {
				p.unknown(kl, clip(val.Raw, 64), "map value is not a string")
				return true
			}
			e, reason := p.newEntry(kind, key.Str, kl)
			if e == nil {
				p.unknown(kl, key.Str, reason)
				return true
			}
			p.d.Sections[sec].Entries++
			// The value is the text a Display would print after the
			// `>> …` header; every line of it is at the key's line.
			for s := range strings.Lines(val.Str) {
				s = strings.TrimRight(s, "\r\n")
				e.feed(kl, strings.TrimRight(s, " \t"))
			}
			e.finish()
			return true
		})
		return true
	})
	switch {
	case known:
		p.d.Format = FormatPBJSON
	case fields == 0:
		// pbjson omits empty maps: `{}` is a StackTraceResponse with nothing in it.
		p.d.Format = FormatPBJSON
		p.addSection("empty StackTraceResponse", KindNotice, 1, true)
	}
}

// parseTraceJSON reads one serde await-tree held in a text entry that
// starts on line.
func (p *parser) parseTraceJSON(t *Trace, buf []byte, line int) {
	t.JSON = true
	switch {
	case !jsonNestingOK(buf):
		p.unknown(line, clip(string(buf), 64), fmt.Sprintf("JSON trace nested deeper than %d levels; not parsed", maxJSONNesting))
	case !json.Valid(buf):
		p.unknown(line, clip(string(buf), 64), "JSON trace is not valid JSON")
	default:
		p.treeFromJSON(t, buf, line)
	}
}

// treeFromJSON reads await-tree's serde form (await-tree 0.3,
// src/context.rs serde_impl; RisingWave v2.4.0+):
//
//	{"current":ID,"tree":NODE,"detached":[NODE…]}
//	NODE = {"id":N,"span":{"name":S,"is_verbose":B,"is_long_running":B},"elapsed_ns":N,"children":[NODE…]}
//
// data must be valid JSON nested at most maxJSONNesting deep. Every span
// gets the line the JSON starts on: serde writes a tree on one line.
func (p *parser) treeFromJSON(t *Trace, data []byte, line int) {
	t.JSON = true
	var jt jsonTree
	if err := json.Unmarshal(data, &jt); err != nil {
		// A field of the wrong type is skipped; the rest is still read.
		p.unknown(line, clip(string(data), 64), "JSON trace: "+err.Error())
	}
	current, err := strconv.ParseInt(string(jt.Current), 10, 64)
	hasCurrent := err == nil
	mark := func(n *jsonNode, sp *Span, root bool) {
		if hasCurrent && !root {
			if v, err := strconv.ParseInt(string(n.ID), 10, 64); err == nil && v == current {
				sp.Current = true
			}
		}
	}
	if jt.Tree == nil && len(jt.Detached) == 0 {
		p.unknown(line, clip(string(data), 64), "JSON trace has no \"tree\" object")
		return
	}
	if jt.Tree != nil {
		t.Root = p.spanFromJSON(jt.Tree, line, func(n *jsonNode, sp *Span) { mark(n, sp, sp.parent == nil) })
	}
	for _, n := range jt.Detached {
		if n == nil {
			continue
		}
		if sp := p.spanFromJSON(n, line, func(n *jsonNode, sp *Span) { mark(n, sp, false) }); sp != nil {
			t.Detached = append(t.Detached, sp)
		}
	}
}

// The numbers are kept raw: a json.Number given a string that is no number
// stops the whole decoding.
type jsonTree struct {
	Current  json.RawMessage `json:"current"`
	Tree     *jsonNode       `json:"tree"`
	Detached []*jsonNode     `json:"detached"`
}

type jsonNode struct {
	ID        json.RawMessage `json:"id"`
	Span      json.RawMessage `json:"span"`
	ElapsedNS json.RawMessage `json:"elapsed_ns"`
	Children  []*jsonNode     `json:"children"`
}

type jsonSpan struct {
	Name          string `json:"name"`
	IsVerbose     bool   `json:"is_verbose"`
	IsLongRunning bool   `json:"is_long_running"`
}

// spanFromJSON converts one decoded node and its subtree, without
// recursion, keeping to MaxDepth and MaxSpans.
func (p *parser) spanFromJSON(root *jsonNode, line int, visit func(*jsonNode, *Span)) *Span {
	type frame struct {
		n      *jsonNode
		parent *Span
		depth  int
	}
	var top *Span
	stack := []frame{{n: root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.n == nil {
			continue
		}
		if f.depth >= p.lim.MaxDepth || !p.takeSpan() {
			if f.depth >= p.lim.MaxDepth {
				p.d.Stats.SpansDropped++
			}
			continue
		}
		sp := &Span{Depth: f.depth, Line: line, Elapsed: jsonNanos(string(f.n.ElapsedNS)), parent: f.parent}
		switch raw := f.n.Span; {
		case len(raw) == 0:
			p.unknown(line, "", "JSON span without a \"span\"")
		case raw[0] == '"':
			_ = json.Unmarshal(raw, &sp.Name)
		default:
			// A field of the wrong type is skipped; the others are kept.
			var js jsonSpan
			err := json.Unmarshal(raw, &js)
			sp.Name, sp.Verbose, sp.LongRunning = js.Name, js.IsVerbose, js.IsLongRunning
			if err != nil {
				p.unknown(line, clip(string(raw), 64), "JSON span: "+err.Error())
			}
		}
		sp.Slow = !sp.LongRunning && sp.Elapsed >= longRunningThreshold
		visit(f.n, sp)
		if f.parent == nil {
			top = sp
		} else {
			f.parent.Children = append(f.parent.Children, sp)
		}
		for i := len(f.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, frame{f.n.Children[i], sp, f.depth + 1})
		}
	}
	return top
}

// jsonNanos reads elapsed_ns, a u128 in serde, saturating.
func jsonNanos(raw string) time.Duration {
	if n, err := strconv.ParseUint(raw, 10, 64); err == nil {
		if n > math.MaxInt64 {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(n)
	}
	f, err := strconv.ParseFloat(raw, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), f <= 0:
		return 0
	case f >= math.MaxInt64:
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(f)
}

// jsonNestingOK reports whether data nests brackets at most maxJSONNesting
// deep, strings aside.
func jsonNestingOK(data []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > maxJSONNesting {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// lineIndex returns a function from a byte offset in data to the input line
// it is on, data's first byte being on line first.
func lineIndex(data []byte, first int) func(int) int {
	var nl []int
	for i, c := range data {
		if c == '\n' {
			nl = append(nl, i)
		}
	}
	return func(off int) int {
		return first + sort.SearchInts(nl, off)
	}
}
