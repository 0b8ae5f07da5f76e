package awaittree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const fixtureDir = "../testdata/shapes/awaittree"

// want is what one fixture must parse to. Each field lists one line per
// item in the compact form its summariser below prints; nil means none.
type want struct {
	format     Format
	understood bool
	sections   []string // name|kind|line|understood|entries
	traces     []string // kind actor/key @line [json] [captured] [detached N]
	slow       []string // SlowSpans(0): owner name seconds Lline [leaf]
	workers    []string // wID Lline layout conn=… running=[…]
	epochs     []string // wID graph epoch state kind remaining+prev Lline
	progress   []string // wID graph epoch actor state Lline
	remaining  []string // Remaining(): wID graph epoch actors+prev Lline
	waits      []string // EpochWaits(): name epoch seconds slow Lline
	sinks      []string // Sinks(): actor sink seconds slow Lline waiting
	errors     []string // NodeErrors: wID Lline text (first 40 bytes)
	unknown    []string // Lline reason
	skipped    int      // Stats.SkippedLines
}

var fixtures = map[string]want{
	"v0.1.17-text-captured.txt": {
		format: FormatText, understood: true,
		sections: []string{"Actor Traces|actor|1|true|2", "RPC Traces|rpc|17|true|2"},
		traces: []string{
			"actor 21 @2 captured=83.402117ms", "actor 22 @11 captured=1.9044ms",
			"rpc 10.0.3.7:5688 (57) @18 captured=12.33ms", "rpc 10.0.3.7:5688 (59) @23 captured=640.0021ms",
		},
		slow: []string{
			"21 Epoch 5120334456832000 8.210 L5",
			"21 HashAggExecutor 1500000004 (actor 21, executor 4) 8.210 L6",
			"21 ProjectExecutor 1500000002 (actor 21, executor 2) 8.209 L7",
			"21 SourceExecutor 1500000001 (actor 21, executor 1) 8.209 L8",
			"21 source_recv_barrier 8.209 L9 leaf",
			"10.0.3.7:5688 (57) collect_barrier (epoch 5120329211904000) 74.300 L21 leaf",
			"10.0.3.7:5688 (59) collect_barrier (epoch 5120329736192000) 66.000 L26 leaf",
		},
		waits: []string{
			"collect_barrier 5120329211904000 74.300 slow L21",
			"collect_barrier 5120329736192000 66.000 slow L26",
		},
	},
	"v1.0.0-text-rpc-collect-barrier.txt": {
		format: FormatText, understood: true,
		sections: []string{"Actor Traces|actor|1|true|2", "RPC Traces|rpc|15|true|2", "Compactor Traces|compaction|23|true|1"},
		traces: []string{
			"actor 3 @2 detached=1", "actor 4 @10",
			"rpc 10.0.3.8:5688 (211) @16", "rpc 10.0.3.8:5688 (212) @20",
			"compaction 88 @24",
		},
		slow: []string{
			"3 Epoch 4410231214080000 41.870 L4",
			"3 HashJoinExecutor 300000007 (actor 3, operator 7) 41.869 L5",
			"3 store_get 41.802 L6 leaf",
			"3 fetch_block 41.790 L8 leaf",
			"10.0.3.8:5688 (211) collect_barrier (epoch 4410231214080000) 42.311 L18 leaf",
		},
		waits: []string{"collect_barrier 4410231214080000 42.311 slow L18"},
	},
	"v1.5.0-text-no-worker-states.txt": {
		format: FormatText, understood: true,
		sections: []string{"Actor Traces|actor|1|true|2", "RPC Traces|rpc|16|true|1"},
		traces:   []string{"actor 1001 @2", "actor 1002 @9", "rpc 10.0.4.12:5688 - 1933 @17"},
		slow: []string{
			"1001 Epoch 4870012345139200 27.554 L4",
			"1001 HashAgg 3E900000004 (actor 1001) 27.553 L5",
			"1001 store_get 27.550 L6",
			"1001 fetch_block 27.549 L7 leaf",
			"10.0.4.12:5688 - 1933 collect_barrier (epoch 4870012345139200) 27.556 L19 leaf",
		},
		waits: []string{"collect_barrier 4870012345139200 27.556 slow L19"},
	},
	"v1.10.0-text-debug-worker-state.txt": {
		format: FormatText, understood: true,
		sections: []string{
			"Actor Traces|actor|1|true|2", "Inflight Barrier Traces|inflight-barrier|16|true|1",
			"Barrier Worker States|barrier-worker|23|true|1", "JVM Stack Traces|jvm|63|true|1",
		},
		traces: []string{"actor 52 @2", "actor 53 @10", "inflight-barrier 6801110584934400 @17", "jvm 3 @64 text"},
		slow: []string{
			"52 Epoch 6801112223334400 25.102 L4",
			"52 Sink 3400000002 25.101 L5",
			"52 consume_log (sink_id 9) 4102.540 L6",
			"52 log_reader_next_item 25.100 L7",
			"52 Wait Next Item from Buffer 25.100 L8 leaf",
			"6801110584934400 sync_epoch (epoch 6801110584934400) 31.003 L19 leaf",
		},
		workers: []string{"w3 L24 debug-v1.9 conn=true running=[52 53]"},
		epochs: []string{
			"w3  6801110584934400 AllCollected Checkpoint []+0 L37",
			"w3  6801112223334400 Issued Checkpoint [52]+0 L42",
		},
		remaining: []string{"w3  6801112223334400 [52]+0 L42"},
		waits: []string{
			"SyncEpoch 6801110584934400 31.004 slow L18",
			"sync_epoch 6801110584934400 31.003 slow L19",
		},
		sinks: []string{"a52 sink9 4102.540 slow L6 [log_reader_next_item Wait Next Item from Buffer]"},
	},
	"v1.10.0-dashboard-text.txt": {
		format: FormatDashboardText, understood: true,
		sections: []string{
			"Await-Tree Dump of All Compute Nodes:|title|1|true|0", "[Actor]|actor|3|true|2", "[RPC]|rpc|14|true|1",
			"[Barrier]|inflight-barrier|18|true|1", "[BarrierWorkerState (Worker)]|barrier-worker|21|true|1",
		},
		traces: []string{"actor 81 @3", "actor 82 @9", "rpc 10.0.9.1:5688 - 4 @14", "inflight-barrier 6800004444442624 @18"},
		slow: []string{
			"81 Epoch 6800004444442624 19.870 L5",
			"81 HashAgg 5100000004 19.869 L6",
			"81 store_get 19.860 L7 leaf",
		},
		workers:   []string{"w1 L21 debug-v1.9 conn=true running=[81 82]"},
		epochs:    []string{"w1  6800004444442624 Issued Checkpoint [81]+0 L34"},
		remaining: []string{"w1  6800004444442624 [81]+0 L34"},
		waits:     []string{"SyncEpoch 6800004444442624 19.900 slow L19"},
	},
	"v2.0.1-text-partial-group.txt": {
		format: FormatText, understood: true,
		sections: []string{"Actor Traces|actor|1|true|2", "Barrier Worker States|barrier-worker|15|true|1"},
		traces:   []string{"actor 61 @2", "actor 63 @8"},
		slow: []string{
			"61 Epoch 7012225110016000 18.310 L4",
			"61 HashJoin 3D00000005 18.309 L5",
			"61 store_get 18.300 L6 leaf",
			"63 Epoch 7012225764352000 12.849 L10",
			"63 StreamScan 3F00000002 12.848 L11 leaf",
		},
		workers: []string{"w4 L16 v2.0 conn=true running=[61 62 63 70]"},
		epochs: []string{
			"w4 partial group 0 7012224455680000 Completed  []+0 L23",
			"w4 partial group 0 7012225110016000 Issued Checkpoint [61]+0 L24",
			"w4 partial group 0 7012225764352000 Issued Barrier [63]+1 L25",
			"w4 partial group 2 7012225764352000 Issued Checkpoint [70]+0 L28",
		},
		progress: []string{"w4 partial group 0 7012225764352000 a63 ConsumingUpstream(epoch: 7012224455680000, rows: 81920) L27"},
		remaining: []string{
			"w4 partial group 0 7012225110016000 [61]+0 L24",
			"w4 partial group 0 7012225764352000 [63]+1 L25",
			"w4 partial group 2 7012225764352000 [70]+0 L28",
		},
	},
	"v2.3.0-diagnose-report.txt": {
		format: FormatDiagnose, understood: true, skipped: 25 + 12,
		sections: []string{"Actor Traces|actor|26|true|3", "RPC Traces|rpc|44|true|1", "Barrier Worker States|barrier-worker|50|true|2"},
		traces:   []string{"actor 13 @27", "actor 14 @33", "actor 21 @39", "rpc 10.0.6.20:5688 - 3 @45"},
		slow: []string{
			"13 Epoch 7300000065536000 44.019 L29",
			"13 HashAgg 900000004 44.018 L30",
			"13 store_get 44.010 L31 leaf",
			"14 Epoch 7300000065536000 44.017 L35",
			"14 HashAgg 900000004 44.016 L36",
			"14 Merge 900000001 44.015 L37 leaf",
		},
		workers: []string{
			"w1 L51 database-v2.2 conn=true running=[11 12 13 14]",
			"w2 L64 database-v2.2 conn=false running=[21 22]",
		},
		epochs: []string{
			"w1 database 1/partial group 0 7300000000000000 AllCollected  []+0 L56",
			"w1 database 1/partial group 0 7300000065536000 Issued Checkpoint [13 14]+0 L57",
			"w1 database 1/partial group 0 7300000131072000 Issued Barrier []+2 L58",
			"w2 database 1/partial group 0 7300000065536000 AllCollected  []+0 L69",
			"w2 database 1/partial group 0 7300000131072000 AllCollected  []+0 L70",
		},
		remaining: []string{
			"w1 database 1/partial group 0 7300000065536000 [13 14]+0 L57",
			"w1 database 1/partial group 0 7300000131072000 []+2 L58",
		},
	},
	"v2.4.0-dashboard-pbjson-json-format.json": {
		format: FormatPBJSON, understood: true,
		sections: []string{"actorTraces|actor|2|true|2", "barrierWorkerState|barrier-worker|6|true|1", "jvmStackTraces|jvm|9|true|1"},
		traces:   []string{"actor 501 @3 json", "actor 502 @4 json", "jvm 3 @10 text"},
		slow: []string{
			"501 Epoch 7200011111111680 22.501 L3",
			"501 HashAgg 1F500000003 22.500 L3",
			"501 store_get 22.499 L3 leaf",
		},
		workers:   []string{"w3 L7 database-v2.2 conn=true running=[501 502]"},
		epochs:    []string{"w3 database 1/partial group 0 7200011111111680 Issued Checkpoint [501]+0 L7"},
		remaining: []string{"w3 database 1/partial group 0 7200011111111680 [501]+0 L7"},
		sinks:     []string{"a502 sink44 1800.230 - L4 []"},
	},
	"v2.6.0-risectl-json.txt": {
		format: FormatText, understood: true,
		sections: []string{
			"Actor Traces|actor|1|true|2", "RPC Traces|rpc|6|true|1", "Inflight Barrier Traces|inflight-barrier|10|true|1",
			"Barrier Worker States|barrier-worker|17|true|1", "Meta Traces|meta|29|true|2",
		},
		traces: []string{
			"actor 120 @2 json", "actor 121 @4 json detached=1", "rpc 10.0.5.3:5688 - 7 @7",
			"inflight-barrier 7400120266620928 @11", "meta DDL Command 3 @30", "meta Global Barrier Worker @35",
		},
		slow: []string{
			"120 Epoch 7400123412344832 48.212 L3",
			"120 Sink 7800000003 48.211 L3",
			"120 log_reader_next_item 48.210 L3",
			"120 Wait Next Item from Buffer 48.209 L3 leaf",
			"DDL Command 3 wait_streaming_job_finish 40.300 L32 leaf",
		},
		workers:   []string{"w2 L18 database-v2.2 conn=true running=[120 121]"},
		epochs:    []string{"w2 database 1/partial group 0 7400120266620928 AllCollected  []+0 L23", "w2 database 1/partial group 0 7400123412344832 Issued Checkpoint [120]+0 L24"},
		remaining: []string{"w2 database 1/partial group 0 7400123412344832 [120]+0 L24"},
		waits: []string{
			"SyncEpoch 7400120266620928 1.201 - L12",
			"sync_epoch 7400120266620928 1.200 - L13",
		},
		sinks: []string{"a120 sink17 7201.540 - L3 [log_reader_next_item Wait Next Item from Buffer]"},
	},
	"v2.6.0-near-miss-analyze-summary.txt": {
		format: FormatNone, understood: false,
		sections: []string{"Actor Elapsed Time Distribution|unknown|4|false|0"},
		unknown: []string{
			"L1 outside any await-tree section",
			"L2 outside any await-tree section",
			"L4 unrecognised section header",
			`L5 in unrecognised section "Actor Elapsed Time Distribution"`,
			`L6 in unrecognised section "Actor Elapsed Time Distribution"`,
			`L7 in unrecognised section "Actor Elapsed Time Distribution"`,
			`L8 in unrecognised section "Actor Elapsed Time Distribution"`,
		},
	},
	"v2.8.0-text-partial-graph.txt": {
		format: FormatText, understood: true,
		sections: []string{
			"Stack Trace Errors|errors|1|true|1", "Actor Traces|actor|5|true|2", "RPC Traces|rpc|18|true|1",
			"Barrier Worker States|barrier-worker|24|true|1",
		},
		traces: []string{"actor 201 @6", "actor 202 @13", "rpc 10.0.7.2:5688 - 12 @19"},
		slow: []string{
			"201 Epoch 7500012345671680 61.004 L8",
			"201 Sink 8100000002 61.003 L9",
			"201 write_batch 61.001 L11 leaf",
		},
		workers: []string{"w5 L25 partial-graph-v2.8 conn=false running=[201 202]"},
		epochs: []string{
			"w5 partial graph 1 7500012345671680 Issued Checkpoint [201]+0 L30",
			"w5 partial graph 1 7500016277831680 Issued Checkpoint [202]+1 L31",
		},
		progress: []string{
			"w5 partial graph 1 7500012345671680 a202 ConsumingUpstreamTable(epoch: 7500009199943680, rows: 40960, buffered: 0) L33",
			"w5 partial graph 1 7500016277831680 a202 ConsumingUpstreamTable(epoch: 7500009199943680, rows: 52224, buffered: 128) L33",
		},
		remaining: []string{
			"w5 partial graph 1 7500012345671680 [201]+0 L30",
			"w5 partial graph 1 7500016277831680 [202]+1 L31",
		},
		sinks:  []string{"a201 sink31 903.110 - L10 [write_batch]"},
		errors: []string{"w6 L2 failed to collect stack trace: gRPC requ"},
	},
	"v3.0.0-dashboard-pbjson.json": {
		format: FormatPBJSON, understood: true,
		sections: []string{
			"actorTraces|actor|1|true|2", "rpcTraces|rpc|1|true|1", "inflightBarrierTraces|inflight-barrier|1|true|1",
			"barrierWorkerState|barrier-worker|1|true|1", "metaTraces|meta|1|true|1", "nodeErrors|errors|1|true|1",
		},
		traces: []string{
			"actor 301 @1", "actor 302 @1", "rpc 10.0.8.4:5688 - 2 @1",
			"inflight-barrier 7600001234567168 @1", "meta Global Barrier Worker @1",
		},
		slow: []string{
			"301 Epoch 7600001234567168 15.203 L1",
			"301 TopN 12D00000004 15.202 L1",
			"301 store_iter 15.201 L1 leaf",
			"7600001234567168 sync_epoch (epoch 7600001234567168) 15.099 L1 leaf",
		},
		workers: []string{"w7 L1 partial-graph-v2.8 conn=true running=[301 302]"},
		epochs: []string{
			"w7 partial graph 1 7600001234567168 Issued Checkpoint [301]+0 L1",
			"w7 partial graph 1 7600002220228608 AllCollected  []+0 L1",
		},
		remaining: []string{"w7 partial graph 1 7600001234567168 [301]+0 L1"},
		waits: []string{
			"SyncEpoch 7600001234567168 15.100 slow L1",
			"sync_epoch 7600001234567168 15.099 slow L1",
		},
		errors: []string{"w9 L1 failed to connect: gRPC request to monit"},
	},
	"HEAD-diagnose-report.txt": {
		format: FormatDiagnose, understood: true, skipped: 53,
		sections: []string{
			"Actor Traces|actor|54|true|1", "Batch Traces|batch|62|true|1", "Compactor Traces|compaction|67|true|1",
			"Barrier Worker States|barrier-worker|73|true|1", "Meta Traces|meta|86|true|1",
		},
		traces: []string{
			"actor 401 @55", "batch 6d0f3e62-8b1a-4c55-9a0e-2f1e4d9b7c10-1-0 @63",
			"compaction SpawnUploadTask { id: 14 } @68", "meta DDL Command 12 @87",
		},
		slow: []string{
			"401 Epoch 7800000131072000 33.412 L58",
			"401 HashJoin 19100000005 33.411 L59",
			"401 store_get 33.400 L60 leaf",
			"DDL Command 12 wait_streaming_job_finish 612.000 L89 leaf",
		},
		workers: []string{"w11 L74 partial-graph-v2.8 conn=true running=[401 402]"},
		epochs: []string{
			"w11 partial graph 1 7800000065536000 AllCollected  []+0 L79",
			"w11 partial graph 1 7800000131072000 Issued Checkpoint [401]+0 L80",
		},
		remaining: []string{"w11 partial graph 1 7800000131072000 [401]+0 L80"},
	},
	"HEAD-tree-json.json": {
		format: FormatTreeJSON, understood: true,
		sections: []string{"tree|tree|1|true|0"},
		traces:   []string{"tree  @1 json detached=1"},
		slow: []string{
			" Epoch 7700000065536000 11.250 L1",
			" Source 4D00000001 11.249 L1 leaf",
		},
	},
}

func TestFixtures(t *testing.T) {
	for name, w := range fixtures {
		t.Run(name, func(t *testing.T) {
			d := parseFixture(t, name)
			if d.Format != w.format {
				t.Errorf("format = %q, want %q", d.Format, w.format)
			}
			if d.Understood() != w.understood {
				t.Errorf("Understood() = %v, want %v", d.Understood(), w.understood)
			}
			if d.Stats.SkippedLines != w.skipped {
				t.Errorf("SkippedLines = %d, want %d", d.Stats.SkippedLines, w.skipped)
			}
			if d.Stats.SpansDropped != 0 || d.Stats.UnknownDropped != 0 || d.Stats.Truncated {
				t.Errorf("stats = %+v, want nothing dropped", d.Stats)
			}
			check(t, "sections", sumSections(d), w.sections)
			check(t, "traces", sumTraces(d), w.traces)
			check(t, "slow spans", sumSlow(d), w.slow)
			check(t, "workers", sumWorkers(d), w.workers)
			check(t, "epochs", sumEpochs(d), w.epochs)
			check(t, "progress", sumProgress(d), w.progress)
			check(t, "remaining", sumRemaining(d), w.remaining)
			check(t, "epoch waits", sumWaits(d), w.waits)
			check(t, "sinks", sumSinks(d), w.sinks)
			check(t, "node errors", sumErrors(d), w.errors)
			check(t, "unknown", sumUnknown(d), w.unknown)
		})
	}
}

// Every fixture in the directory has a table entry, and every entry a file.
func TestFixturesAllTested(t *testing.T) {
	for _, f := range fixtureFiles(t) {
		if _, ok := fixtures[f]; !ok {
			t.Errorf("fixture %s has no entry in the fixtures table", f)
		}
	}
	for name := range fixtures {
		if _, err := os.Stat(filepath.Join(fixtureDir, name)); err != nil {
			t.Errorf("fixtures table names %s: %v", name, err)
		}
	}
}

func parseFixture(t *testing.T, name string) *Dump {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

func fixtureFiles(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && e.Name() != "SOURCES.md" {
			out = append(out, e.Name())
		}
	}
	return out
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func sumSections(d *Dump) []string {
	var out []string
	for _, s := range d.Sections {
		out = append(out, fmt.Sprintf("%s|%s|%d|%v|%d", s.Name, s.Kind, s.Line, s.Understood, s.Entries))
	}
	return out
}

func sumTraces(d *Dump) []string {
	var out []string
	for _, t := range d.Traces() {
		s := fmt.Sprintf("%s %s @%d", t.Kind, t.Key, t.Line)
		if t.JSON {
			s += " json"
		}
		if t.Captured > 0 {
			s += " captured=" + t.Captured.String()
		}
		if len(t.Detached) > 0 {
			s += fmt.Sprintf(" detached=%d", len(t.Detached))
		}
		if t.Text != "" {
			s += " text"
		}
		out = append(out, s)
	}
	return out
}

func sumSlow(d *Dump) []string {
	var out []string
	for _, r := range d.SlowSpans(0) {
		s := fmt.Sprintf("%s %s %.3f L%d", r.Key, r.Span.Name, r.Seconds, r.Line)
		if r.Leaf {
			s += " leaf"
		}
		out = append(out, s)
	}
	return out
}

func sumWorkers(d *Dump) []string {
	var out []string
	for _, w := range d.Workers {
		c := "nil"
		if w.Connected != nil {
			c = fmt.Sprint(*w.Connected)
		}
		out = append(out, fmt.Sprintf("w%d L%d %s conn=%s running=%v", w.WorkerID, w.Line, w.Layout, c, w.RunningActors))
	}
	return out
}

func sumEpochs(d *Dump) []string {
	var out []string
	for _, w := range d.Workers {
		for _, e := range w.Epochs {
			out = append(out, fmt.Sprintf("w%d %s %d %s %s %v+%d L%d", w.WorkerID, e.Graph, e.Epoch, e.State, e.Kind, ids(e.Remaining), e.PrevEpochPending, e.Line))
		}
	}
	return out
}

func sumProgress(d *Dump) []string {
	var out []string
	for _, w := range d.Workers {
		for _, p := range w.Progress {
			out = append(out, fmt.Sprintf("w%d %s %d a%d %s L%d", w.WorkerID, p.Graph, p.Epoch, p.ActorID, p.State, p.Line))
		}
	}
	return out
}

func sumRemaining(d *Dump) []string {
	var out []string
	for _, r := range d.Remaining() {
		out = append(out, fmt.Sprintf("w%d %s %d %v+%d L%d", r.WorkerID, r.Graph, r.Epoch, ids(r.Actors), r.PrevEpochPending, r.Line))
	}
	return out
}

func sumWaits(d *Dump) []string {
	var out []string
	for _, w := range d.EpochWaits() {
		out = append(out, fmt.Sprintf("%s %d %.3f %s L%d", w.Name, w.Epoch, w.Elapsed.Seconds(), slowMark(w.Slow), w.Line))
	}
	return out
}

func sumSinks(d *Dump) []string {
	var out []string
	for _, s := range d.Sinks() {
		out = append(out, fmt.Sprintf("a%d sink%d %.3f %s L%d %v", s.ActorID, s.SinkID, s.Elapsed.Seconds(), slowMark(s.Slow), s.Line, ids2(s.Waiting)))
	}
	return out
}

func sumErrors(d *Dump) []string {
	var out []string
	for _, e := range d.NodeErrors {
		out = append(out, fmt.Sprintf("w%d L%d %s", e.WorkerID, e.Line, clip(e.Text, 40)))
	}
	return out
}

func sumUnknown(d *Dump) []string {
	var out []string
	for _, u := range d.Unknown {
		out = append(out, fmt.Sprintf("L%d %s", u.Line, u.Reason))
	}
	return out
}

func slowMark(b bool) string {
	if b {
		return "slow"
	}
	return "-"
}

// ids prints nil and empty lists alike.
func ids(v []uint64) []uint64 {
	if v == nil {
		return []uint64{}
	}
	return v
}

func ids2(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
