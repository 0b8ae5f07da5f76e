package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// atNode is one span of an await tree.
type atNode struct {
	name     string
	elapsed  float64 // seconds
	long     bool    // a long-running span: never marked !!!
	current  bool
	children []*atNode
}

func at(name string, elapsed float64, children ...*atNode) *atNode {
	return &atNode{name: name, elapsed: elapsed, children: children}
}

// fmtElapsed prints a duration the way await-tree does ({:.3?}).
func fmtElapsed(s float64) string {
	if s >= 1 {
		return fmt.Sprintf("%.3fs", s)
	}
	return fmt.Sprintf("%.3fms", s*1000)
}

// render prints an await tree as await-tree does: `{:.3?}` durations,
// `!!!` on a span that is not long-running and has lasted at least 10 s
// (the root only when markRoot: not in await-tree 0.1, as v1.0-v2.x ship it).
func (n *atNode) render(b *strings.Builder, depth int, markRoot bool) {
	b.WriteString(strings.Repeat("  ", depth) + n.name)
	mark := ""
	if n.elapsed >= 10 && !n.long && (depth > 0 || markRoot) {
		mark = "!!! "
	}
	fmt.Fprintf(b, " [%s%s]", mark, fmtElapsed(n.elapsed))
	if n.current {
		b.WriteString("  <== current")
	}
	b.WriteByte('\n')
	for _, c := range n.children {
		c.render(b, depth+1, markRoot)
	}
}

// treeText is an await tree as render prints it.
func treeText(n *atNode, markRoot bool) string {
	var b strings.Builder
	n.render(&b, 0, markRoot)
	return b.String()
}

func sortedInts(m map[int]*atNode) []int {
	ids := make([]int, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

func sortedKeys(m map[string]*atNode) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// actorTree is an actor's await tree: the actor span, its epoch span and the
// executor chain, the innermost marked current.
func actorTree(a *Actor, epoch uint64, elapsed float64, chain []*atNode) *atNode {
	root := at(fmt.Sprintf("Actor %d: `%s`", a.ID, a.Frag.Job.Name), elapsed+0.002)
	ep := at(fmt.Sprintf("Epoch %d", epoch), elapsed)
	root.children = []*atNode{ep}
	parent := ep
	for _, c := range chain {
		parent.children = append(parent.children, c)
		parent = c
	}
	parent.current = true
	return root
}

// workerState is one worker's Barrier Worker States entry.
type workerState struct {
	worker    int
	connected bool
	graph     int
	running   []int
	epochs    []epochState
	progress  []string // Create MView Progress lines
}

type epochState struct {
	epoch     uint64
	collected bool
	remaining []int
	prevMore  int // "...and N actors in prev epoch"
}

// idList prints ids as the worker states' Debug loops do: "1, 2, ".
func idList(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%d, ", id)
	}
	return b.String()
}

// epochStates renders a partial graph's epochs (managed_state.rs Display):
// done is what a collected epoch prints.
func epochStates(epochs []epochState, done string) string {
	var b strings.Builder
	for _, e := range epochs {
		fmt.Fprintf(&b, "> Epoch %d: ", e.epoch)
		if e.collected {
			b.WriteString(done + "\n")
			continue
		}
		b.WriteString("Issued [Checkpoint]. Remaining actors: [" + idList(e.remaining))
		if e.prevMore > 0 {
			fmt.Fprintf(&b, "...and %d actors in prev epoch", e.prevMore)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func (w workerState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "has_control_stream_connected: %t\n", w.connected)
	fmt.Fprintf(&b, "partial graph %d status: running managed_barrier_state:\n", w.graph)
	b.WriteString("running_actors: " + idList(w.running))
	b.WriteString("graph states\n")
	b.WriteString(epochStates(w.epochs, "AllCollected"))
	if len(w.progress) > 0 {
		b.WriteString("Create MView Progress:\n")
		for _, p := range w.progress {
			b.WriteString(p + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// awaitDump is the sectioned text of `risingwave ctl await-tree dump`.
type awaitDump struct {
	actors   map[int]*atNode
	rpcs     map[string]*atNode
	barriers map[string]*atNode
	workers  []workerState
	captured bool // v1.x dumps print "[captured …]" before each trace
	noWorker bool // before Barrier Worker States existed
}

func (d awaitDump) String() string {
	var b strings.Builder
	if len(d.actors) > 0 {
		b.WriteString("--- Actor Traces ---\n")
		for i, id := range sortedInts(d.actors) {
			fmt.Fprintf(&b, ">> Actor %d\n", id)
			if d.captured {
				fmt.Fprintf(&b, "[captured %dms ago]\n", 38+i*3)
			}
			d.actors[id].render(&b, 0, true)
			b.WriteByte('\n')
		}
	}
	section := func(title, prefix string, m map[string]*atNode) {
		if len(m) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, k := range sortedKeys(m) {
			fmt.Fprintf(&b, ">> %s %s\n", prefix, k)
			m[k].render(&b, 0, true)
			b.WriteByte('\n')
		}
	}
	section("--- RPC Traces ---", "RPC", d.rpcs)
	section("--- Inflight Barrier Traces ---", "Barrier", d.barriers)
	if !d.noWorker {
		b.WriteString("\n\n--- Barrier Worker States ---\n")
		for _, w := range d.workers {
			fmt.Fprintf(&b, ">> Worker %d\n%s\n\n", w.worker, w)
		}
	}
	return b.String()
}

// asciiTable renders a comfy_table in ASCII_FULL style with `+` where the
// header's `=` line crosses a column border (the regular samples' shape).
func asciiTable(header []string, rows [][]string) string {
	return boxTable(header, rows, "+")
}

// comfyTable renders a comfy_table in its default ASCII_FULL preset: a
// header line of `=` from edge to edge, rows parted by `|---+---|`.
func comfyTable(header []string, rows [][]string) string {
	return boxTable(header, rows, "=")
}

// boxTable renders a comfy_table: headerCross is what the header's `=` line
// prints where it crosses a column border.
func boxTable(header []string, rows [][]string, headerCross string) string {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	line := func(edge, fill, cross string) string {
		var b strings.Builder
		b.WriteString(edge)
		for i, w := range widths {
			if i > 0 {
				b.WriteString(cross)
			}
			b.WriteString(strings.Repeat(fill, w+2))
		}
		b.WriteString(edge)
		return b.String() + "\n"
	}
	cells := func(r []string) string {
		var b strings.Builder
		b.WriteString("|")
		for i, w := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			b.WriteString(" " + c + strings.Repeat(" ", w-len(c)) + " |")
		}
		return b.String() + "\n"
	}
	var b strings.Builder
	b.WriteString(line("+", "-", "+"))
	b.WriteString(cells(header))
	b.WriteString(line("+", "=", headerCross))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(line("|", "-", "+"))
		}
		b.WriteString(cells(r))
	}
	b.WriteString(line("+", "-", "+"))
	return b.String()
}

// writeDiagnose writes diagnose/report.txt and diagnose/await-tree.txt.
func (s *Sim) writeDiagnose(b *bundleWriter) {
	if s.await == nil && !s.report {
		return
	}
	tree := ""
	if s.await != nil {
		tree = s.await(s)
	}
	meta := s.pod("meta")
	t := s.Done.Add(25 * time.Second)
	if s.await != nil {
		src := "kubectl exec " + meta.Name + " -c meta -n " + s.Namespace + " -- /risingwave/bin/risingwave ctl await-tree dump --actor-traces-format text"
		if !s.Version.atLeast(2, 0) {
			src = "kubectl exec " + meta.Name + " -c meta -n " + s.Namespace + " -- /risingwave/bin/risingwave ctl trace"
		}
		b.writeString("diagnose/await-tree.txt", src, t, t.Add(1200*time.Millisecond), tree)
	}
	if !s.report {
		return
	}
	t = t.Add(2 * time.Second)
	var r strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&r, format, args...) }
	w("report created at: %s\nversion: %s (%s)\n\n", t.UTC().Format("2006-01-02 15:04:05.000000 UTC"), s.Version.Semver, s.Version.GitSHA)
	w("license: none (free tier)\n\n")
	ntable, nmv, nsink := s.Cat.jobKinds()
	nsrc := len(s.Cat.Sources)
	nactor := len(s.Cat.actors())
	w("number of database: 1\nnumber of fragment: %d\nnumber of actor: %d\nnumber of source: %d\nnumber of table: %d\n",
		len(s.Cat.Jobs), nactor, nsrc, ntable)
	w("number of materialized view: %d\nnumber of sink: %d\nnumber of index: 0\nnumber of function: 0\n", nmv, nsink)
	w("DATABASE\n%s", asciiTable([]string{"id", "name", "resource_group", "barrier_interval_ms", "checkpoint_frequency"},
		[][]string{{"1", "dev", "default", "default", "default"}}))
	w("SCHEMA\n%s\n", asciiTable([]string{"id", "database_id", "name"},
		[][]string{{"2", "1", "public"}, {"3", "1", "pg_catalog"}, {"4", "1", "information_schema"}, {"5", "1", "rw_catalog"}}))
	hdr := []string{"id", "host", "hostname", "type", "state", "parallelism", "resource_group", "is_streaming", "is_serving",
		"is_iceberg_compactor", "rw_version", "total_memory_bytes", "total_cpu_cores", "started_at", "actor_count"}
	var rows [][]string
	counts := s.Cat.actorsPerPod()
	for _, comp := range []string{"meta", "frontend", "compactor", "compute"} {
		for _, p := range s.pods(comp) {
			port := map[string]string{"meta": "5690", "frontend": "4567", "compactor": "6660", "compute": "5688"}[comp]
			typ := map[string]string{"meta": "WORKER_TYPE_META", "frontend": "WORKER_TYPE_FRONTEND", "compactor": "WORKER_TYPE_COMPACTOR", "compute": "WORKER_TYPE_COMPUTE_NODE"}[comp]
			par, rg, st, sv, ic, ac := "", "", "", "", "", ""
			switch comp {
			case "compute":
				par, rg, st, sv, ac = strconv.Itoa(p.CPU), "default", "true", "true", strconv.Itoa(counts[p])
			case "compactor":
				ic = "false"
			}
			rows = append(rows, []string{strconv.Itoa(p.WorkerID), p.host() + ":" + port, p.Name, typ, "RUNNING", par, rg, st, sv, ic,
				s.Version.Semver, strconv.FormatInt(int64(p.totalMemory()), 10), strconv.Itoa(p.CPU), pgTime(p.current().start.Add(2 * time.Second).Truncate(time.Second)), ac})
		}
	}
	w("%s\n", asciiTable(hdr, rows))
	for _, h := range []string{"top sources by throughput (rows/s)", "top materialized views by throughput (rows/s)", "top join executor by matched rows"} {
		w("%s\n\n", h)
	}
	nsst := 1800 + len(s.Cat.fragments())*40
	w("\nnumber of SSTables: %d\ntotal size of SSTables (byte): %d\nnumber of compaction groups: 2\n\n", nsst, int64(nsst)*19876543)
	var tomb [][]string
	for i := 0; i < 5; i++ {
		tomb = append(tomb, []string{strconv.Itoa(2 + i%2), strconv.Itoa(880211 + i*1733), fmt.Sprintf("%.2f%%", 41.5-float64(i)*6.25)})
	}
	w("top tombstone delete ratio\n%s\n\n", asciiTable([]string{"compaction group id", "sstable id", "delete ratio"}, tomb))
	for _, h := range storageTitles {
		w("%s\n\n", h)
	}
	w("ICEBERG COMPACTION SCHEDULE\n%s\n", asciiTable([]string{"sink_id", "sink_name", "task_type", "schedule_state", "trigger_interval_sec",
		"trigger_snapshot_count", "pending_commit_count", "next_compaction_after_sec", "is_triggerable"}, nil))
	evs := s.retainedEvents()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].t.After(evs[j].t) })
	for _, sec := range eventSections {
		rows := sec.rows(evs, pgTime)
		w("%s\n%s\n", sec.title, asciiTable([]string{"created_at", "info"}, rows))
	}
	var prow [][]string
	for _, p := range s.params() {
		prow = append(prow, []string{p.name, p.value})
	}
	w("%s\n", asciiTable([]string{"name", "value"}, prow))
	r.WriteString(tree)
	b.writeString("diagnose/report.txt", "curl -s http://"+meta.IP+":5691/api/monitor/diagnose/?actor_traces_format=text", t, t.Add(2400*time.Millisecond), r.String())
}

// storageTitles are the report's Prometheus-fed storage sections, printed
// as their titles alone when meta has no Prometheus endpoint.
var storageTitles = []string{"top Hummock Get by duration (second)", "top Hummock Iter Init by duration (second)", "top table commit flush by size (byte)",
	"object store read throughput (bytes/s)", "object store write throughput (bytes/s)", "object store operation rate", "object store operation duration (second)"}

// eventSection is one of the report's event log tables: the newest limit
// events of one type, the info of each under key.
type eventSection struct {
	title, typ, key string
	limit           int
}

// eventSections are the report's event log tables, in its order.
var eventSections = []eventSection{
	{"latest barrier completions", "BARRIER_COMPLETE", "barrierComplete", 10},
	{"latest barrier collection failures", "COLLECT_BARRIER_FAIL", "collectBarrierFail", 3},
	{"latest barrier injection failures", "INJECT_BARRIER_FAIL", "injectBarrierFail", 3},
	{"latest worker node panics", "WORKER_NODE_PANIC", "workerNodePanic", 10},
	{"latest create stream job failures", "CREATE_STREAM_JOB_FAIL", "createStreamJobFail", 3},
	{"latest dirty stream job clear-ups", "DIRTY_STREAM_JOB_CLEAR", "dirtyStreamJobClear", 3},
}

// rows are the section's rows of evs (newest first): created_at as ts
// prints it, and the info as compact JSON.
func (sec eventSection) rows(evs []rwEvent, ts func(time.Time) string) [][]string {
	var rows [][]string
	for _, e := range evs {
		if e.typ != sec.typ || len(rows) >= sec.limit {
			continue
		}
		rows = append(rows, []string{ts(e.t), jsonText(e.info[sec.key], false)})
	}
	return rows
}

// jobKinds counts the catalog's tables, materialized views and sinks.
func (c *Catalog) jobKinds() (tables, mvs, sinks int) {
	for _, j := range c.Jobs {
		switch j.Kind {
		case "table":
			tables++
		case "materialized view":
			mvs++
		case "sink":
			sinks++
		}
	}
	return tables, mvs, sinks
}

// actorsPerPod counts the actors each compute pod runs.
func (c *Catalog) actorsPerPod() map[*Pod]int {
	counts := map[*Pod]int{}
	for _, a := range c.actors() {
		counts[a.Pod]++
	}
	return counts
}

// totalMemory is the memory a node takes as its total: RW_TOTAL_MEMORY_BYTES
// when set, else the container's.
func (p *Pod) totalMemory() float64 {
	if p.TotalMem != "" {
		mem, _ := strconv.ParseFloat(p.TotalMem, 64)
		return mem
	}
	return p.MemBytes
}

// consumerGroup is one row of kafka-consumer-groups.sh --describe.
type consumerGroup struct {
	group, topic  string
	part          int
	current, end  int64
	consumer, cli string
}

// consumerGroups renders `kafka-consumer-groups.sh --describe --all-groups`.
func consumerGroups(groups []consumerGroup) string {
	var b strings.Builder
	byGroup := map[string][]consumerGroup{}
	var order []string
	for _, g := range groups {
		if _, ok := byGroup[g.group]; !ok {
			order = append(order, g.group)
		}
		byGroup[g.group] = append(byGroup[g.group], g)
	}
	for _, name := range order {
		rows := byGroup[name]
		fmt.Fprintf(&b, "\nConsumer group '%s' has no active members.\n\n", name)
		hdr := []string{"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"}
		cells := [][]string{hdr}
		for _, g := range rows {
			cells = append(cells, []string{g.group, g.topic, strconv.Itoa(g.part), strconv.FormatInt(g.current, 10), strconv.FormatInt(g.end, 10),
				strconv.FormatInt(g.end-g.current, 10), "-", "-", "-"})
		}
		widths := make([]int, len(hdr))
		for _, r := range cells {
			for i, c := range r {
				widths[i] = max(widths[i], len(c)+1)
			}
		}
		for _, r := range cells {
			var line strings.Builder
			for i, c := range r {
				line.WriteString(c + strings.Repeat(" ", widths[i]-len(c)+1))
			}
			b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		}
	}
	return b.String()
}
