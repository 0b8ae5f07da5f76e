package awaittree

import "time"

// Format is the shape Parse recognised the input as.
type Format string

const (
	// FormatNone: nothing in the input was recognised.
	FormatNone Format = ""
	// FormatText is the sectioned text of risectl `await-tree dump` and of
	// StackTraceResponseOutput's Display (`--- Actor Traces ---`, `>> Actor 12`).
	FormatText Format = "text"
	// FormatDiagnose is a whole diagnose report with the sectioned text
	// inside it (in the middle before v2.8.0, at the end since).
	FormatDiagnose Format = "diagnose-report"
	// FormatDashboardText is the text the meta dashboard's Await Tree page
	// renders (`Await-Tree Dump of …:`, `[Actor 12]`), pasted into a file.
	FormatDashboardText Format = "dashboard-text"
	// FormatPBJSON is the meta dashboard's /api/monitor/await_tree/ answer, a
	// pbjson StackTraceResponse whose map values are rendered text or JSON.
	FormatPBJSON Format = "pbjson"
	// FormatTreeJSON is one await-tree serialised by serde
	// ({"current","tree","detached"}).
	FormatTreeJSON Format = "tree-json"
)

// Kind says what a section, and a trace in it, is about.
type Kind string

const (
	KindActor           Kind = "actor"            // --- Actor Traces --- / actorTraces
	KindRPC             Kind = "rpc"              // --- RPC Traces --- / rpcTraces
	KindCompaction      Kind = "compaction"       // --- Compactor Traces --- / compactionTaskTraces
	KindBatch           Kind = "batch"            // --- Batch Traces --- / batchTraces
	KindInflightBarrier Kind = "inflight-barrier" // --- Inflight Barrier Traces --- / inflightBarrierTraces
	KindBarrierWorker   Kind = "barrier-worker"   // --- Barrier Worker States --- / barrierWorkerState
	KindJVM             Kind = "jvm"              // --- JVM Stack Traces --- / jvmStackTraces
	KindMeta            Kind = "meta"             // --- Meta Traces --- / metaTraces
	KindErrors          Kind = "errors"           // --- Stack Trace Errors --- / nodeErrors
	KindTitle           Kind = "title"            // the dashboard page's `Await-Tree Dump of …:` line
	KindNotice          Kind = "notice"           // "No traces found…", or an empty StackTraceResponse
	KindTree            Kind = "tree"             // a bare serde await-tree
	KindUnknown         Kind = "unknown"          // a header this package does not know
)

// Dump is what Parse found in one await-tree dump.
type Dump struct {
	Format Format

	// Sections lists every section header found, in input order, known or
	// not. In the dashboard text and pbjson shapes a section is the first
	// entry of its kind or the map field.
	Sections []Section

	Actors []Trace // actor traces; ActorID set
	RPC    []Trace // RPC traces; Key is the text after `>> RPC `
	// Other holds inflight-barrier, compaction, batch and meta traces, and
	// JVM stack traces (Kind says which; JVM traces carry Text, no Root).
	Other []Trace

	Workers    []WorkerState // Barrier Worker States, one per `>> Worker N`
	NodeErrors []NodeError   // Stack Trace Errors, and the dashboard page's ERROR lines

	// Unknown holds what was not understood, in input order, up to
	// Limits.MaxUnknown entries; Stats.UnknownDropped counts the rest.
	Unknown []Unparsed

	Stats Stats
}

// Section is one section header.
type Section struct {
	Name       string // as written: "Actor Traces", "[Actor]", "actorTraces"
	Kind       Kind
	Line       int  // 1-based input line
	Understood bool // a section this package parses
	Entries    int  // entries (`>> …` headers or map keys) in it
}

// Trace is one await-tree: an actor's, an RPC's, a barrier's….
type Trace struct {
	Kind    Kind
	ActorID uint64 // actor traces
	Key     string // the entry header's text: "12", "10.0.0.7:5688 - 33", "DDL Command 4"
	Line    int    // line of the entry header (for pbjson, of the map key)

	// Captured is the age of the snapshot that pre-v1.0 dumps print as
	// `[captured 121ms ago]`; zero when absent.
	Captured time.Duration
	JSON     bool // the trace was a serde JSON tree, not rendered text

	Root     *Span
	Detached []*Span // `[Detached N]` subtrees, and JSON "detached"

	Text string // JVM stack traces: the text, up to Limits.MaxTextBytes
}

// Span is one node of an await-tree.
type Span struct {
	Name    string // may hold newlines (a multi-line SQL definition in an actor's root)
	Elapsed time.Duration
	// Slow: rendered with `!!! ` or, in JSON, not long-running and lasting at
	// least 10 s (the rule of await-tree 0.3). Text dumps from before v2.4.0
	// never mark a root; those before v1.0 mark from 1 s.
	Slow    bool
	Current bool // `<== current`, or the JSON "current" id (roots excepted, as Display does)
	// LongRunning and Verbose are exact in JSON. In text LongRunning is
	// inferred for a non-root span of at least 10 s not marked `!!!`, which
	// only await-tree 0.3 (v2.4.0+) renders; Verbose is never printed.
	LongRunning bool
	Verbose     bool
	Depth       int // 0 for a root (detached roots included)
	Line        int
	Children    []*Span

	parent *Span
}

// Parent returns the span sp is a child of; nil for a root.
func (sp *Span) Parent() *Span { return sp.parent }

// WorkerState is one compute node's entry in `--- Barrier Worker States ---`.
type WorkerState struct {
	WorkerID uint64
	Line     int
	// Layout names the rendering, by the first tag that prints it:
	// "debug-v1.9" ({:#?} of LocalBarrierWorkerDebugInfo), "v2.0",
	// "v2.1", "database-v2.2", "partial-graph-v2.8".
	Layout        string
	Connected     *bool    // has_control_stream_connected; nil when not printed
	RunningActors []uint64 // every running_actors list, in order
	Graphs        []GraphState
	Epochs        []EpochState
	Progress      []BackfillProgress // `Create MView Progress:`
}

// GraphState is one partial graph (v2.8+), database (v2.2–v2.7) or partial
// group (v2.0–v2.7) of a worker.
type GraphState struct {
	Kind          string // "partial graph", "database", "partial group"
	ID            string
	Database      string // for a partial group inside a database (v2.2–v2.7)
	Status        string // "running", "resetting", "suspended: …", "ReceivedExchangeRequest"
	RunningActors []uint64
	Line          int
}

// EpochState is one `> Epoch N: …` line (or one BarrierState in the v1.9
// Debug rendering).
type EpochState struct {
	Graph string // "partial graph 1", "database 1/partial group 0", "partial group 0", ""
	Epoch uint64
	State string // "Issued", "AllCollected", "Completed", "Stashed"
	Kind  string // "Checkpoint", "Barrier", "Initial" (Issued only; debug layout always)
	// Remaining lists the actors printed as not yet collected. When the
	// previous epoch is Issued too, RisingWave prints only the actors not
	// pending there and counts the others in PrevEpochPending
	// (`...and N actors in prev epoch`).
	Remaining        []uint64
	PrevEpochPending int
	Line             int
}

// BackfillProgress is one `>> Actor N: STATE` of `Create MView Progress:`.
type BackfillProgress struct {
	Graph   string
	Epoch   uint64
	ActorID uint64
	State   string // "ConsumingUpstreamTable(epoch: 1, rows: 2, buffered: 0)", "Done(rows: 9)"
	Line    int
}

// NodeError is a worker's error instead of its traces.
type NodeError struct {
	WorkerID uint64 // 0 when the text names none (the dashboard page's ERROR line)
	Text     string
	Line     int
}

// Unparsed is input this package did not understand.
type Unparsed struct {
	Line   int
	Text   string // up to Limits.MaxUnknownText bytes
	Reason string
}

// Stats counts what was read, skipped and dropped.
type Stats struct {
	Lines          int  // lines read
	Spans          int  // spans kept
	SpansDropped   int  // spans past Limits.MaxSpans
	UnknownDropped int  // unknown lines past Limits.MaxUnknown
	SkippedLines   int  // diagnose-report lines around the await-tree part
	OpaqueLines    int  // lines understood as a whole, not one by one (v1.9 Debug layout, JVM text)
	Truncated      bool // the input went past Limits.MaxInputBytes; the rest was not read
}

// Understood reports whether at least one section or trace was understood.
func (d *Dump) Understood() bool {
	if len(d.Actors)+len(d.RPC)+len(d.Other)+len(d.Workers)+len(d.NodeErrors) > 0 {
		return true
	}
	for _, s := range d.Sections {
		if s.Understood {
			return true
		}
	}
	return false
}

// Limits bound the memory Parse uses on any input. A zero field takes its
// default.
type Limits struct {
	MaxInputBytes  int64 // text read past this is ignored (Stats.Truncated)
	MaxJSONBytes   int64 // a JSON document, or one JSON trace in text, larger than this is not parsed
	MaxLineBytes   int   // longer lines are cut here
	MaxSpans       int   // spans kept over the whole dump
	MaxDepth       int   // span nesting kept; deeper spans are dropped
	MaxUnknown     int   // Unparsed entries kept
	MaxUnknownText int   // bytes of each Unparsed.Text
	MaxTextBytes   int   // bytes kept of a JVM trace or node error
	MaxEpochs      int   // EpochState and BackfillProgress entries kept per worker
	MaxNameLines   int   // lines a multi-line root span name may span
}

// DefaultLimits are the limits Parse uses: at most 256 MiB of text and
// 64 MiB of JSON read, 200,000 spans, nesting 256 deep, 1,000 unknown lines
// of 256 bytes each, 64 KiB per JVM trace or error, 100,000 epochs per
// worker, 16 MiB per line and 200 lines per multi-line root name.
func DefaultLimits() Limits {
	return Limits{
		MaxInputBytes:  256 << 20,
		MaxJSONBytes:   64 << 20,
		MaxLineBytes:   16 << 20,
		MaxSpans:       200_000,
		MaxDepth:       256,
		MaxUnknown:     1000,
		MaxUnknownText: 256,
		MaxTextBytes:   64 << 10,
		MaxEpochs:      100_000,
		MaxNameLines:   200,
	}
}
