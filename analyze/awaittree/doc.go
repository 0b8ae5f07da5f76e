// Package awaittree reads RisingWave await-tree dumps, in every shape
// RisingWave has produced from v1.0.0 to today (and the pre-1.0 one), and
// reports what it did not understand.
//
// An await-tree is the tree of futures an actor, RPC or barrier is awaiting,
// each with how long it has lasted, rendered by the await-tree crate:
//
//	Actor 12: `mv_orders` [1832.204s]
//	  Epoch 7123456789012480 [!!! 14.112s]
//	    HashAgg 1C00000003 [!!! 14.111s]
//	      store_get [!!! 14.109s]  <== current
//	[Detached 9]
//	  fetch_block [2.001s]
//
// Parse takes one dump, sniffs its shape and returns a Dump: actor, RPC and
// other traces as span trees, every compute node's barrier state (the epochs
// in flight and the actors each still waits on), node errors, every section
// header met, and the lines it could not read (Dump.Unknown), never dropped
// silently. A file with nothing understood gives Understood() == false.
//
// # Shapes
//
// Sectioned text (Format "text"): risectl `await-tree dump` (`trace` before
// v1.4), and StackTraceResponseOutput's Display
// (src/common/src/util/prost.rs since v1.9.0). `--- Name ---` headers, then
// `>> Kind key` entries. Sections, by the tag that first prints them:
//
//	Actor Traces              >> Actor N                every version
//	RPC Traces                >> RPC key                every version (key `host (id)` to v1.3, `authority - id` since)
//	Compactor Traces          >> Compaction Task key    v1.0.0
//	Inflight Barrier Traces   >> Barrier prev_epoch     v1.8.0
//	Barrier Worker States     >> Worker N               v1.9.0 (always printed)
//	JVM Stack Traces          >> Worker N               v1.10.0 (text, kept whole)
//	Meta Traces               >> key                    v2.5.0
//	Stack Trace Errors        >> Worker N               v2.8.0
//	Batch Traces              >> Batch Task q-s-t       after v3.0.3
//
// Span rendering, by await-tree version: RisingWave's own
// async_stack_trace up to v0.1.17 prints `[captured 121ms ago]` before each
// tree, durations as Rust `{:?}` ("11.520000098s") and `!!!` from 1 s; the
// crate 0.1.1 (v0.18–v1.8) and 0.2.1 (v1.9–v2.3) print `{:.3?}` and `!!!`
// from 10 s on non-roots; 0.3 (v2.4.0+) marks any span, root included,
// unless it is long-running, and adds the serde JSON form.
//
// Actor traces as serde JSON: since v2.4.0 risectl asks for JSON by default,
// so each `>> Actor N` is followed by one line of
// {"current":ID,"tree":{"id","span":{"name","is_verbose","is_long_running"},
// "elapsed_ns","children"},"detached":[…]}.
//
// Barrier Worker States: {:#?} of LocalBarrierWorkerDebugInfo in v1.9–v1.10;
// then Display lines (v2.0 running_actors/actor_to_send/creating_actors and
// `--- Partial Group N`; v2.1 without the two middle lists; v2.2–v2.7
// `database N status: S managed_barrier_state:`; v2.8+ `partial graph N
// status: S …`), with `> Epoch N: Issued [Checkpoint]. Remaining actors:
// [12, …and 3 actors in prev epoch]`, `has_control_stream_connected`, and
// `Create MView Progress:`. WorkerState.Layout names which.
//
// Diagnose report (Format "diagnose-report"): the meta's
// /api/monitor/diagnose/ text (v1.6.0+), which starts `report created at:`
// and holds the sectioned text: before the event logs up to v2.7.x, at the
// end since v2.8.0. The lines around it count in Stats.SkippedLines.
//
// Dashboard page text (Format "dashboard-text"): what the meta dashboard's
// Await Tree page shows, `Await-Tree Dump of …:` then `[Actor N]`,
// `[RPC key]`, `[Compaction key]`, `[Barrier N]`,
// `[BarrierWorkerState (Worker N)]`, `[JVM (Worker N)]` entries.
//
// pbjson (Format "pbjson"): /api/monitor/await_tree/, a StackTraceResponse
// whose maps (actorTraces, rpcTraces, compactionTaskTraces,
// inflightBarrierTraces, barrierWorkerState, jvmStackTraces, metaTraces,
// nodeErrors, batchTraces; snake_case accepted) hold the text each entry
// would print, or serde JSON for actors with ?format=json. A bare serde tree
// is Format "tree-json".
//
// # Lines
//
// Line numbers are 1-based input lines: of the span line in text, of the
// first line of a multi-line root name, of the line a JSON trace starts on
// (serde writes it on one line), and, in pbjson, of the map key.
//
// # Limits
//
// DefaultLimits bounds memory on any input: 256 MiB of text read, 64 MiB of
// JSON, 16 MiB per line, 200,000 spans, nesting 256 deep, 1,000 unknown
// lines of 256 bytes, 64 KiB per JVM trace or error, 100,000 epochs and
// progress entries per worker, 200 lines per root name. What is cut is
// counted in Stats (SpansDropped counts a JSON subtree cut at the depth limit
// as one) and, for input, lines and epochs, noted in Unknown. JSON nested
// more than 10,000 deep is refused before any parser sees it. FuzzParse
// checks that no input panics or breaks the limits.
//
// # Queries
//
// SlowSpans, Remaining, EpochWaits and Sinks answer what the rules ask:
// which spans are marked slow (roots aside) and which of them is the leaf of
// a slow chain; which actors each worker's in-flight epochs wait on; which
// RPCs wait on collect_barrier or sync_epoch; what each sink's consume_log
// span awaits.
//
// This package imports nothing of rwdiag's; its only dependency is gjson.
// Fixtures, one per version and shape, are in
// analyze/testdata/shapes/awaittree with their sources in SOURCES.md.
package awaittree
