package main

// Await-tree dumps and the diagnose report of the variety samples, in the
// layout of each release (analyze/testdata/shapes/awaittree/ has one fixture
// per layout, SOURCES.md there the source of each):
//   - v1.0 `risectl trace` (src/ctl/src/cmd_impl/trace.rs:56-84): actor traces,
//     then `--- RPC Traces ---` keyed `{host}:{port} ({id})` with
//     `collect_barrier (epoch N)` under BarrierComplete; no Barrier Worker
//     States (they first appear in v1.9); await-tree 0.1.1 marks `!!!` from
//     10 s below the root.
//   - v2.0 `risectl await-tree dump` (src/common/src/util/prost.rs:43-90):
//     the worker state of src/stream/src/task/barrier_manager.rs:356-384 with
//     `--- Partial Group N` (barrier_manager/managed_state.rs:169-240).
//   - v2.3 diagnose report (src/meta/src/manager/diagnose.rs:68-90): catalog,
//     workers, streaming, storage, the await tree, then the event logs; the
//     worker state `database N status: S managed_barrier_state:`
//     (barrier_manager.rs:270-290).
//   - v3.0 dashboard /api/monitor/await_tree/ (src/meta/src/dashboard/mod.rs:490-510):
//     one line of pbjson StackTraceResponse whose values are rendered text.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// vdump is what a variety sample's compute nodes report.
type vdump struct {
	actors  map[int]*atNode
	rpcs    map[string]*atNode // by key: "host:port (id)" at v1.0, "host:port - id" later
	workers []vworker
	meta    map[string]*atNode // v3.0 metaTraces
}

// vworker is one worker's barrier state.
type vworker struct {
	id        int
	connected bool
	running   []int
	graph     int // partial group / database id
	epochs    []epochState
	progress  []string // Create MView Progress entries: ">> Actor N: ConsumingUpstream(...), "
	progEpoch uint64
}

// v20State renders a v2.0 LocalBarrierWorkerDebugInfo.
func (w vworker) v20State() string {
	var b strings.Builder
	b.WriteString("running_actors: " + idList(w.running))
	b.WriteString("\nactor_to_send: " + idList(w.running))
	b.WriteString("\ncreating_actors: ")
	fmt.Fprintf(&b, "\nhas_control_stream_connected: %t\n", w.connected)
	b.WriteString("managed_barrier_state:\n")
	fmt.Fprintf(&b, "--- Partial Group %d\n", w.graph)
	b.WriteString(w.epochLines("Completed"))
	b.WriteString("\n")
	return b.String()
}

// epochLines renders a partial graph's epochs (managed_state.rs Display)
// and its Create MView Progress.
func (w vworker) epochLines(done string) string {
	var b strings.Builder
	b.WriteString(epochStates(w.epochs, done))
	if len(w.progress) > 0 {
		b.WriteString("Create MView Progress:\n")
		fmt.Fprintf(&b, "> Epoch %d:", w.progEpoch)
		for _, p := range w.progress {
			b.WriteString(p)
		}
	}
	return b.String()
}

// v23State renders a v2.3 LocalBarrierWorkerDebugInfo (one database).
func (w vworker) v23State() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhas_control_stream_connected: %t\n", w.connected)
	fmt.Fprintf(&b, "database %d status: running managed_barrier_state:\n", w.graph)
	b.WriteString("running_actors: " + idList(w.running))
	b.WriteString("--- Partial Group 0\n")
	b.WriteString(w.epochLines("AllCollected"))
	b.WriteString("\n")
	return b.String()
}

// v30State renders a v3.0 worker state (partial graphs).
func (w vworker) v30State() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nhas_control_stream_connected: %t\n", w.connected)
	fmt.Fprintf(&b, "partial graph %d status: running managed_barrier_state:\n", w.graph)
	b.WriteString("running_actors: " + idList(w.running))
	b.WriteString("graph states\n")
	b.WriteString(w.epochLines("AllCollected"))
	b.WriteString("\n")
	return b.String()
}

// output is StackTraceResponseOutput's Display (v2.x text).
func (d vdump) output(state func(vworker) string) string {
	var b strings.Builder
	d.traces(&b, false)
	b.WriteString("\n\n--- Barrier Worker States ---\n")
	for _, w := range d.workers {
		fmt.Fprintf(&b, ">> Worker %d\n%s\n\n", w.id, state(w))
	}
	return b.String()
}

// v10Trace is v1.0 `risectl trace`.
func (d vdump) v10Trace() string {
	var b strings.Builder
	d.traces(&b, true)
	return b.String()
}

// traces writes the actor traces and then the RPC traces, each section
// left out when empty unless always (v1.0 prints both titles).
func (d vdump) traces(b *strings.Builder, always bool) {
	if always || len(d.actors) > 0 {
		b.WriteString("--- Actor Traces ---\n")
		for _, id := range sortedInts(d.actors) {
			fmt.Fprintf(b, ">> Actor %d\n%s\n", id, treeText(d.actors[id], false))
		}
	}
	if always || len(d.rpcs) > 0 {
		b.WriteString("--- RPC Traces ---\n")
		for _, k := range sortedKeys(d.rpcs) {
			fmt.Fprintf(b, ">> RPC %s\n%s\n", k, treeText(d.rpcs[k], false))
		}
	}
}

// v30JSON is the v3.0 dashboard's pbjson StackTraceResponse: camelCase
// fields in proto order, map keys in order, empty maps left out.
func (d vdump) v30JSON(lf *logFormatter) string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	field := func(name string, keys []string, val func(string) string) {
		if len(keys) == 0 {
			return
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"` + name + `":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(lf.jsonString(k) + ":" + lf.jsonString(val(k)))
		}
		b.WriteByte('}')
	}
	var aks []string
	for _, id := range sortedInts(d.actors) {
		aks = append(aks, strconv.Itoa(id))
	}
	field("actorTraces", aks, func(k string) string { id, _ := strconv.Atoi(k); return treeText(d.actors[id], true) })
	field("rpcTraces", sortedKeys(d.rpcs), func(k string) string { return treeText(d.rpcs[k], true) })
	var wks []string
	ws := map[string]vworker{}
	for _, w := range d.workers {
		wks = append(wks, strconv.Itoa(w.id))
		ws[strconv.Itoa(w.id)] = w
	}
	field("barrierWorkerState", wks, func(k string) string { return ws[k].v30State() })
	field("metaTraces", sortedKeys(d.meta), func(k string) string { return treeText(d.meta[k], true) })
	b.WriteString("}\n")
	return b.String()
}

// chronoTime is a timestamptz as RisingWave's Display prints it
// (%Y-%m-%d %H:%M:%S%.f%:z: 0, 3, 6 or 9 fraction digits).
func chronoTime(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02 15:04:05")
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1e6 == 0:
		s += fmt.Sprintf(".%03d", ns/1e6)
	case ns%1e3 == 0:
		s += fmt.Sprintf(".%06d", ns/1e3)
	default:
		s += fmt.Sprintf(".%09d", ns)
	}
	return s + "+00:00"
}

// writeVarietyDiagnose writes the await-tree dump (or the diagnose report
// holding it) in the release's layout.
func (s *Sim) writeVarietyDiagnose(b *bundleWriter) {
	if s.Shape.Await == awaitNone || s.await == nil {
		return
	}
	meta := s.pod("meta")
	t := s.Done.Add(25 * time.Second)
	exec := "kubectl exec " + meta.Name + " -c meta -n " + s.Namespace + " -- /risingwave/bin/risingwave ctl "
	text := s.await(s)
	switch s.Shape.Await {
	case awaitV1_0Trace:
		b.writeString("diagnose/await-tree.txt", exec+"trace", t, t.Add(1200*time.Millisecond), text)
	case awaitV2_0Text:
		b.writeString("diagnose/await-tree.txt", exec+"await-tree dump", t, t.Add(1200*time.Millisecond), text)
	case awaitV3_0Dashboard:
		b.writeString("diagnose/await-tree.json", "curl -s http://"+meta.IP+":5691/api/monitor/await_tree/", t, t.Add(900*time.Millisecond), text)
	case awaitV2_3Report:
		b.writeString("diagnose/report.txt", "curl -s http://"+meta.IP+":5691/api/monitor/diagnose/", t, t.Add(2400*time.Millisecond), s.v23Report(t, text))
	}
}

// v23Report is the v2.3 diagnose report around an await-tree dump (no
// Prometheus endpoint configured, so the Prometheus-fed parts print their
// titles only).
func (s *Sim) v23Report(t time.Time, tree string) string {
	var r strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&r, format, args...) }
	t = t.Add(time.Duration(s.rnd.IntN(1e9)))
	w("report created at: %s UTC\nversion: %s (%s)\n\n", strings.TrimSuffix(chronoTime(t), "+00:00"), s.Version.Semver, s.Version.GitSHA)
	ntable, nmv, nsink := s.Cat.jobKinds()
	w("number of fragment: %d\nnumber of actor: %d\nnumber of source: %d\nnumber of table: %d\n", len(s.streamingJobs()), len(s.Cat.actors()), len(s.Cat.Sources), ntable)
	w("number of materialized view: %d\nnumber of sink: %d\nnumber of index: 0\nnumber of function: 0\n\n", nmv, nsink)
	counts := s.Cat.actorsPerPod()
	var rows [][]string
	var ws []*Pod
	for _, comp := range []string{"frontend", "compactor", "compute"} {
		ws = append(ws, s.pods(comp)...)
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].WorkerID < ws[j].WorkerID })
	for _, p := range ws {
		port := map[string]int{"frontend": 4567, "compactor": 6660, "compute": 5688}[p.Component]
		typ := map[string]string{"frontend": "WORKER_TYPE_FRONTEND", "compactor": "WORKER_TYPE_COMPACTOR", "compute": "WORKER_TYPE_COMPUTE_NODE"}[p.Component]
		par, st, sv, ac := "", "", "", ""
		if p.Component == "compute" {
			par, st, sv, ac = strconv.Itoa(p.CPU), "true", "true", strconv.Itoa(counts[p])
		} else {
			st, sv = "false", strconv.FormatBool(p.Component == "frontend")
		}
		rows = append(rows, []string{strconv.Itoa(p.WorkerID), fmt.Sprintf("%s:%d", p.host(), port), typ, "RUNNING", par, st, sv, s.Version.Semver,
			strconv.FormatInt(int64(p.totalMemory()), 10), strconv.Itoa(p.CPU), chronoTime(p.current().start.Add(2 * time.Second).Truncate(time.Second)), ac})
	}
	w("%s\n\n", comfyTable([]string{"id", "host", "type", "state", "parallelism", "is_streaming", "is_serving", "rw_version",
		"total_memory_bytes", "total_cpu_cores", "started_at", "actor_count"}, rows))
	w("top sources by throughput (rows/s)\n\ntop materialized views by throughput (rows/s)\n\ntop join executor by matched rows\n\n")
	nsst := 180 + len(s.Cat.fragments())*12
	w("number of SSTables: %d\ntotal size of SSTables (byte): %d\nnumber of compaction groups: 2\n\n", nsst, int64(nsst)*4123457)
	var tomb [][]string
	for i := 0; i < 3; i++ {
		tomb = append(tomb, []string{strconv.Itoa(2 + i%2), strconv.Itoa(88211 + i*733), fmt.Sprintf("%.2f%%", 23.5-float64(i)*4.25)})
	}
	w("top tombstone delete ratio\n%s\n\n\n", comfyTable([]string{"compaction group id", "sstable id", "delete ratio"}, tomb))
	for _, h := range storageTitles {
		w("%s\n\n", h)
	}
	w("\n%s\n", tree)
	evs := s.vRetainedEvents()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].t.After(evs[j].t) })
	for i, sec := range eventSections {
		rows := sec.rows(evs, chronoTime)
		if i > 0 {
			w("\n")
		}
		w("%s\n%s\n", sec.title, comfyTable([]string{"created_at", "info"}, rows))
	}
	return r.String()
}
