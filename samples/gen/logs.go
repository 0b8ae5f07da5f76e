package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// field is one structured field of a log event.
type field struct {
	k, v  string
	quote bool // a Debug-formatted string: quoted in text, a JSON string
	num   bool // a number: bare in text and JSON
}

func str(k, v string) field     { return field{k: k, v: v, quote: true} }
func disp(k, v string) field    { return field{k: k, v: v} }
func num(k string, v any) field { return field{k: k, v: fmt.Sprint(v), num: true} }

// span is one tracing span the event was in.
type span struct {
	name   string
	fields []field
	target string // the span's target, which the pretty format prints (variety samples)
}

// actorSpan is the span chain of an executor inside an actor.
func actorSpan(actor int, epoch uint64, exec string) []span {
	return []span{
		{"actor", []field{str("otel.name", fmt.Sprintf("Actor %d", actor)), num("actor_id", actor),
			num("prev_epoch", epoch-65536000), num("curr_epoch", epoch)}, ""},
		{"executor", []field{str("otel.name", exec)}, ""},
	}
}

// logLine is one log event.
type logLine struct {
	t      time.Time
	level  string
	spans  []span
	target string
	msg    string
	fields []field
	seq    int
	src    string // file:line, which the pretty format prints (variety samples)
	raw    bool   // a line written to stderr outside tracing (variety samples)
}

// logf records an evidence line for a pod's container. prev selects the
// previous instance's log.
func (s *Sim) logf(p *Pod, prev bool, t time.Time, level, target string, spans []span, msg string, fields ...field) {
	if s.lines == nil {
		s.lines = map[string][]logLine{}
	}
	key := logKey(p, prev)
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		// Wall-clock times in a log are never round; keep the order of
		// lines placed at distinct milliseconds.
		t = t.Add(time.Duration(1000 + s.rnd.IntN(9800000)))
	}
	s.seq++
	s.lines[key] = append(s.lines[key], logLine{t: t, level: level, spans: spans, target: target, msg: msg, fields: fields, seq: s.seq})
}

func logKey(p *Pod, prev bool) string {
	if prev {
		return p.Name + "/" + p.container() + ".previous"
	}
	return p.Name + "/" + p.container()
}

// logFormatter renders log events in the cluster's style.
type logFormatter struct {
	style   LogStyle
	prefix  bool
	rnd     *rand.Rand
	buf     bytes.Buffer
	shape   *Shapes // the variety samples' exact shapes, nil for the others
	version Version
	last    time.Time // the last kubelet prefix written (variety samples)
}

func (lf *logFormatter) ts(t time.Time) string {
	z := lf.style.Zone
	if z == nil {
		z = time.UTC
	}
	t = t.In(z)
	layout := "2006-01-02T15:04:05.000000Z07:00"
	if lf.style.Digits == 9 {
		layout = "2006-01-02T15:04:05.000000000Z07:00"
	}
	return t.Format(layout)
}

// write appends one event, as one or more lines, to w.
func (lf *logFormatter) write(w *file, l logLine) {
	if lf.shape != nil {
		lf.vwrite(w, l)
		return
	}
	var body []string
	if lf.style.JSON {
		body = []string{lf.json(l)}
	} else {
		body = strings.Split(lf.text(l), "\n")
	}
	for _, line := range body {
		if lf.prefix {
			d := time.Duration(60000+lf.rnd.IntN(400000)) * time.Nanosecond
			w.WriteString(l.t.Add(d).UTC().Format(time.RFC3339Nano))
			w.WriteByte(' ')
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
}

func fieldText(f field) string {
	if f.quote {
		return f.k + "=" + strconv.Quote(f.v)
	}
	return f.k + "=" + f.v
}

// text is RisingWave's default ("full") text format.
func (lf *logFormatter) text(l logLine) string {
	return fullText(lf.ts(l.t), l, fieldText)
}

// fullText is tracing-subscriber's Full format: the time ts, the level, the
// span chain with its fields, the target, the message and the event's
// fields, each as ftext prints it.
func fullText(ts string, l logLine, ftext func(field) string) string {
	var b strings.Builder
	b.WriteString(ts + " " + fmt.Sprintf("%5s", l.level) + " ")
	for i, sp := range l.spans {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(sp.name)
		if len(sp.fields) > 0 {
			b.WriteByte('{')
			for j, f := range sp.fields {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(fieldText(f))
			}
			b.WriteByte('}')
		}
	}
	if len(l.spans) > 0 {
		b.WriteString(": ")
	}
	b.WriteString(l.target + ": " + l.msg)
	for _, f := range l.fields {
		b.WriteString(" " + ftext(f))
	}
	return b.String()
}

// jsonString encodes s as serde_json does (no HTML escaping).
func (lf *logFormatter) jsonString(s string) string {
	lf.buf.Reset()
	enc := json.NewEncoder(&lf.buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(lf.buf.String(), "\n")
}

func (lf *logFormatter) jsonValue(f field) string {
	if f.num {
		return f.v
	}
	return lf.jsonString(f.v)
}

// json is tracing-subscriber's JSON format as RisingWave configures it with
// RISINGWAVE_CLOUD=true: timestamp, level, fields, target, spans.
func (lf *logFormatter) json(l logLine) string {
	return lf.jsonEvent(lf.ts(l.t), l, false, false)
}

// jsonEvent is one event in tracing-subscriber's JSON format: timestamp ts,
// level, fields (message first), target, then the current span when
// withSpan and the span list. A span object holds its fields, sorted when
// sortFields (serde_json without preserve_order), then "name".
func (lf *logFormatter) jsonEvent(ts string, l logLine, withSpan, sortFields bool) string {
	var b strings.Builder
	b.WriteString(`{"timestamp":` + lf.jsonString(ts) + `,"level":"` + l.level + `","fields":{"message":` + lf.jsonString(l.msg))
	for _, f := range l.fields {
		b.WriteString("," + lf.jsonString(f.k) + ":" + lf.jsonValue(f))
	}
	b.WriteString(`},"target":` + lf.jsonString(l.target))
	spanObj := func(sp span) string {
		fs := sp.fields
		if sortFields {
			fs = append([]field(nil), fs...)
			sort.SliceStable(fs, func(i, j int) bool { return fs[i].k < fs[j].k })
		}
		var o strings.Builder
		o.WriteByte('{')
		for _, f := range fs {
			o.WriteString(lf.jsonString(f.k) + ":" + lf.jsonValue(f) + ",")
		}
		o.WriteString(`"name":` + lf.jsonString(sp.name) + "}")
		return o.String()
	}
	if len(l.spans) > 0 {
		if withSpan {
			b.WriteString(`,"span":` + spanObj(l.spans[len(l.spans)-1]))
		}
		b.WriteString(`,"spans":[`)
		for i, sp := range l.spans {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(spanObj(sp))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// noiseRate is how many unrelated lines per minute a component logs.
var noiseRate = map[string]float64{"meta": 4, "compute": 5, "frontend": 2, "compactor": 3}

// writeLogs writes every RisingWave pod's current and previous logs.
func (s *Sim) writeLogs(b *bundleWriter) {
	at := s.Done.Add(3 * time.Second)
	for _, p := range s.Pods {
		if p.Other != "" || s.logOnly != nil && !s.logOnly[p.Name] {
			continue
		}
		for i := len(p.Runs) - 1; i >= 0 && i >= len(p.Runs)-2; i-- {
			r := p.Runs[i]
			prev := i == len(p.Runs)-2
			if !prev && !r.end.IsZero() && len(p.Runs) > 1 {
				// In CrashLoopBackOff, `kubectl logs` shows the last
				// terminated instance, the same as --previous.
				s.writeLog(b, p, r, false, &at)
				s.writeLog(b, p, r, true, &at)
				break
			}
			s.writeLog(b, p, r, prev, &at)
		}
	}
}

// writeLog writes one log file: the run's evidence lines merged in time
// order with generated unrelated lines.
func (s *Sim) writeLog(b *bundleWriter, p *Pod, r run, prev bool, at *time.Time) {
	from := r.start
	to := r.end
	if to.IsZero() {
		to = s.Done
	}
	if lim := s.Done.Add(-s.LogSince); s.LogSince > 0 && from.Before(lim) && !prev {
		from = lim
	}
	prefix := s.Logs.Prefix
	if prev {
		prefix = s.Logs.PrevPrefix
	}
	cmd := "kubectl logs " + p.Name + " -c " + p.container() + " -n " + s.Namespace
	if prefix {
		cmd += " --timestamps"
	}
	if prev {
		cmd += " --previous"
	}
	if s.LogSince > 0 && !prev {
		cmd += " --since=" + strings.TrimSuffix(s.LogSince.String(), "0s")
	}
	if s.Handmade {
		cmd += " > " + p.container()
		if prev {
			cmd += ".previous"
		}
		cmd += ".log"
	}
	*at = at.Add(time.Duration(200+s.rnd.IntN(500)) * time.Millisecond)
	f := b.create(bundle.LogPath(p.Name, p.container(), prev), cmd, *at, at.Add(400*time.Millisecond))
	ev := s.lines[logKey(p, prev)]
	if !prev && !r.end.IsZero() && len(p.Runs) > 1 {
		ev = s.lines[logKey(p, true)]
	}
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].t.Before(ev[j].t) })
	lf := &logFormatter{style: s.Logs, prefix: prefix, rnd: newRand(s.Seed, "prefix/"+f.entry.Path), shape: s.Shape, version: s.Version}
	rnd := newRand(s.Seed, "noise/"+p.Name+"/"+strconv.Itoa(len(p.Runs))+strconv.FormatBool(prev))
	n := int(noiseRate[p.Component] * to.Sub(from).Minutes())
	if prev {
		// --previous returns the whole crashed instance; long runs are
		// thinned to keep the sample small.
		n = min(n, 100)
	}
	if s.Shape != nil {
		n = vNoiseCount(p, to.Sub(from))
	}
	if s.Large.Logs > 0 {
		n *= s.Large.Logs
	} else {
		n *= s.Scale
	}
	if to.Sub(from) < 2*time.Second {
		n = 0
	}
	gen := noiseGen{s: s, p: p, rnd: rnd}
	step := to.Sub(from) / time.Duration(n+1)
	k := 0
	for i := 1; i <= n; i++ {
		t := from.Add(step*time.Duration(i) + time.Duration(rnd.Int64N(int64(step/2)+1)) - step/4)
		if !t.After(from.Add(2 * time.Second)) {
			continue
		}
		for k < len(ev) && !ev[k].t.After(t) {
			if !ev[k].t.Before(from) && !ev[k].t.After(to) {
				lf.write(f, ev[k])
			}
			k++
		}
		if s.Shape != nil {
			lf.write(f, gen.vline(t))
		} else {
			lf.write(f, gen.line(t))
		}
	}
	for ; k < len(ev); k++ {
		if !ev[k].t.Before(from) && !ev[k].t.After(to) {
			lf.write(f, ev[k])
		}
	}
	f.close()
}

// noiseGen draws unrelated, real-looking log lines.
type noiseGen struct {
	s      *Sim
	p      *Pod
	rnd    *rand.Rand
	n      int
	actors []*Actor
}

func (g *noiseGen) actor() *Actor {
	if g.actors == nil {
		for _, a := range g.s.Cat.actors() {
			if a.Pod == g.p {
				g.actors = append(g.actors, a)
			}
		}
	}
	if len(g.actors) == 0 {
		return nil
	}
	return g.actors[g.rnd.IntN(len(g.actors))]
}

func (g *noiseGen) line(t time.Time) logLine {
	g.n++
	r := g.rnd
	l := logLine{t: t, level: "INFO"}
	epoch := epochAt(t.Add(-time.Duration(300+r.IntN(500)) * time.Millisecond))
	switch g.p.Component {
	case "compute":
		switch r.IntN(9) {
		case 0, 1:
			l.target = "risingwave_storage::hummock::event_handler::uploader"
			l.fields = []field{num("epoch", epoch), num("sst_count", 1+r.IntN(6)), num("sync_size", 400000+r.IntN(9000000))}
			l.msg = "sync epoch finish"
		case 2:
			l.target = "risingwave_storage::hummock::compactor::shared_buffer_compact"
			l.msg = fmt.Sprintf("shared buffer compaction finish: epoch %d, output sst count %d, compaction task size %d", epoch, 1+r.IntN(3), 1<<20+r.IntN(30<<20))
		case 3:
			l.target = "risingwave_storage::hummock::event_handler::hummock_event_handler"
			v := 40000 + int(t.Sub(baseTime).Seconds()/3)
			l.msg = "update pinned version"
			l.fields = []field{num("prev_version_id", v-1), num("version_id", v), num("max_committed_epoch", epoch)}
		case 4:
			l.target = "risingwave_batch::rpc::service::task_service"
			l.msg = "create task"
			l.fields = []field{disp("task_id", fmt.Sprintf("TaskId { query_id: \"%s\", stage_id: %d, task_id: %d }", uuidFor(fmt.Sprint(t.UnixNano())), r.IntN(3), r.IntN(4)))}
		case 5:
			l.target = "risingwave_storage::hummock::event_handler::refiller"
			l.msg = fmt.Sprintf("refill %d blocks of %d ssts into the block cache", 16+r.IntN(400), 1+r.IntN(8))
		case 6:
			a := g.actor()
			if a == nil {
				return g.line(t)
			}
			l.spans = actorSpan(a.ID, epoch, identity(a.Frag.Op, a.ID, 2+r.IntN(4)))
			l.target = "risingwave_stream::common::table::state_table"
			l.msg = "state table flush"
			l.fields = []field{num("table_id", a.Frag.tableID()), num("epoch", epoch), num("dirty_rows", r.IntN(30000))}
		case 7:
			l.target = "risingwave_compute::memory::controller"
			l.msg = fmt.Sprintf("memory control: jemalloc allocated %d MiB, watermark sequence %d", 1800+r.IntN(2600), 9000000+g.n*37)
		default:
			l.target = "risingwave_storage::hummock::sstable_store"
			l.msg = fmt.Sprintf("prefetch %d objects for iterator of table %d", 1+r.IntN(5), 1000+r.IntN(40))
		}
	case "meta":
		switch r.IntN(8) {
		case 0, 1:
			l.target = "risingwave_meta::hummock::manager::compaction"
			l.msg = fmt.Sprintf("Try to compact group %d, pending task count %d", 2+r.IntN(2), r.IntN(4))
		case 2:
			l.target = "risingwave_meta::hummock::manager::checkpoint"
			l.msg = fmt.Sprintf("new checkpoint version %d, stale objects %d", 40000+int(t.Sub(baseTime).Seconds()/3), r.IntN(120))
		case 3:
			l.target = "risingwave_meta::hummock::manager::compaction"
			l.msg = fmt.Sprintf("Report compact task %d, status Success, cost %dms", 52000+g.n, 300+r.IntN(4000))
		case 4:
			l.target = "risingwave_meta::hummock::vacuum"
			l.msg = fmt.Sprintf("Try to vacuum SSTs %d objects", r.IntN(60))
		case 5:
			l.target = "risingwave_meta::barrier::checkpoint::control"
			l.msg = "collected barrier of checkpoint epoch"
			l.fields = []field{num("epoch", epoch), num("database_id", 1)}
			l.level = "INFO"
		case 6:
			l.target = "risingwave_meta::hummock::manager::timer_task"
			l.msg = "hummock timer task tick"
			l.fields = []field{str("task", []string{"CheckDeadTask", "Report", "CompactionHeartBeatExpiredCheck", "DynamicCompactionTrigger"}[r.IntN(4)])}
		default:
			l.target = "risingwave_meta::stream::source_manager"
			l.msg = "tick source splits"
			l.fields = []field{num("source_count", 1+len(g.s.Cat.Sources))}
		}
	case "compactor":
		task := 52000 + g.n*3 + r.IntN(3)
		switch r.IntN(3) {
		case 0:
			l.target = "risingwave_storage::hummock::compactor::compactor_runner"
			l.msg = fmt.Sprintf("Ready to handle task: %d compact_task_statistics CompactTaskStatistics { total_file_count: %d, total_key_count: %d, total_file_size: %d, total_uncompressed_file_size: %d } compression_algorithm %d  parallelism 1 task_memory_capacity_with_parallelism %d, enable fast runner: false, Compaction task id: %d, group-id: %d, type: Dynamic, target level: 0, target sub level: 0 target_file_size: 33554432, splits: 1, status: Pending",
				task, 2+r.IntN(8), 10000+r.IntN(900000), 1<<20+r.IntN(60<<20), 1<<20+r.IntN(60<<20), r.IntN(2), 9<<20+r.IntN(40<<20), task, 2+r.IntN(2))
		case 1:
			l.target = "risingwave_storage::hummock::compactor::compactor_runner"
			l.msg = fmt.Sprintf("Finished compaction task in %d.%03ds: Compaction task id: %d, group-id: %d, type: Dynamic, target level: %d, target sub level: 0 target_file_size: 33554432, splits: 1, status: Success",
				r.IntN(6), r.IntN(1000), task, 2+r.IntN(2), r.IntN(7))
		default:
			l.target = "risingwave_storage::hummock::compactor"
			l.msg = fmt.Sprintf("running_parallelism_count=%d, pull_task_ack=%t, pending_pull_task_count=%d", r.IntN(3), r.IntN(2) == 0, r.IntN(4))
		}
	default:
		switch r.IntN(3) {
		case 0:
			l.target = "pgwire::pg_server"
			l.msg = "accept connection"
			l.fields = []field{disp("peer_addr", fmt.Sprintf("10.%d.%d.%d:%d", 40+r.IntN(3), 1+r.IntN(6), 10+r.IntN(200), 30000+r.IntN(30000)))}
		case 1:
			l.target = "risingwave_frontend::scheduler::distributed::query"
			l.msg = fmt.Sprintf("Query %s finished", uuidFor(fmt.Sprint(t.UnixNano())))
		default:
			l.target = "risingwave_frontend::observer::observer_manager"
			l.msg = fmt.Sprintf("hummock snapshot updated, committed epoch %d", epoch)
		}
	}
	return l
}

// tableID is the state table a fragment's series are labelled with.
func (f *Fragment) tableID() int {
	if len(f.StateTables) > 0 {
		return f.StateTables[0]
	}
	return f.Job.ID
}

// Evidence helpers: lines RisingWave prints verbatim (facts §4.2).

// startCompute logs a compute node's start-up.
func (s *Sim) startCompute(p *Pod, prev bool, t time.Time, worker int) {
	total := p.totalMemory()
	s.logf(p, prev, t, "INFO", "risingwave_compute::server", nil, "Starting compute node")
	reserved := 0.3 * min(total, gib(16))
	if total > gib(16) {
		reserved += 0.2 * (total - gib(16))
	}
	storage := (total - reserved) * 0.3
	outline := fmt.Sprintf("Memory outline:\n> total_memory: %s\n>     storage_memory: %s\n>         block_cache_capacity: %s\n>         meta_cache_capacity: %s\n>         shared_buffer_capacity: %s\n>     compute_memory: %s\n>     reserved_memory: %s",
		humanBytes(total), humanBytes(storage), humanBytes(storage*0.4), humanBytes(storage*0.3), humanBytes(storage*0.3),
		humanBytes(total-reserved-storage), humanBytes(reserved))
	s.logf(p, prev, t.Add(548*time.Microsecond), "INFO", "risingwave_compute::server", nil, outline)
	s.logf(p, prev, t.Add(8*time.Millisecond), "INFO", "risingwave_common_service::metrics_manager", nil,
		"Prometheus listener for Prometheus is set up on http://0.0.0.0:1222")
	s.logf(p, prev, t.Add(2358*time.Millisecond), "INFO", "risingwave_compute::server", nil, fmt.Sprintf("Assigned worker node id %d", worker))
}

// humanBytes prints a size as RisingWave's memory outline does.
func humanBytes(v float64) string {
	switch {
	case v >= gib(1):
		return fmt.Sprintf("%.2f GiB", v/gib(1))
	default:
		return fmt.Sprintf("%.2f MiB", v/(1<<20))
	}
}
