package main

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// label is one label pair; a series' labels keep their registration order.
type label struct{ k, v string }

func lbl(kv ...string) []label {
	out := make([]label, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, label{kv[i], kv[i+1]})
	}
	return out
}

// fam is one metric family of a scrape; emit writes its samples.
type fam struct {
	name, help, typ string
	emit            func(w *promWriter)
}

// promWriter writes the Prometheus text exposition format.
type promWriter struct {
	f *file
}

func writeLabels(b *strings.Builder, ls []label, extra ...label) {
	if len(ls)+len(extra) == 0 {
		return
	}
	b.WriteByte('{')
	n := 0
	for _, set := range [][]label{ls, extra} {
		for _, l := range set {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(l.k)
			b.WriteString(`="`)
			v := strings.ReplaceAll(l.v, `\`, `\\`)
			v = strings.ReplaceAll(v, `"`, `\"`)
			b.WriteString(strings.ReplaceAll(v, "\n", `\n`))
			b.WriteByte('"')
		}
	}
	b.WriteByte('}')
}

func (w *promWriter) sample(name string, ls []label, v float64) {
	var b strings.Builder
	b.WriteString(name)
	writeLabels(&b, ls)
	b.WriteByte(' ')
	b.WriteString(fmtFloat(v))
	b.WriteByte('\n')
	w.f.WriteString(b.String())
}

func (w *promWriter) hist(name string, ls []label, h histogram) {
	var b strings.Builder
	for i, le := range h.buckets {
		b.Reset()
		b.WriteString(name + "_bucket")
		writeLabels(&b, ls, label{"le", fmtFloat(le)})
		b.WriteString(" " + strconv.FormatUint(h.counts[i], 10) + "\n")
		w.f.WriteString(b.String())
	}
	b.Reset()
	b.WriteString(name + "_bucket")
	writeLabels(&b, ls, label{"le", "+Inf"})
	b.WriteString(" " + strconv.FormatUint(h.counts[len(h.counts)-1], 10) + "\n")
	b.WriteString(name + "_sum")
	writeLabels(&b, ls)
	b.WriteString(" " + fmtFloat(math.Round(h.sum*1000)/1000) + "\n")
	b.WriteString(name + "_count")
	writeLabels(&b, ls)
	b.WriteString(" " + strconv.FormatUint(h.counts[len(h.counts)-1], 10) + "\n")
	w.f.WriteString(b.String())
}

// unit is a stable number in [0, 1) for a series key, so that a series'
// level is the same in every scrape.
func unit(key string) float64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return float64(h.Sum64()%1000003) / 1000003
}

// scrapeCtx is what a scrape's families are computed from.
type scrapeCtx struct {
	s     *Sim
	p     *Pod
	t     time.Time
	r     run
	up    time.Duration // process uptime
	fams  []fam
	debug bool
}

func (c *scrapeCtx) add(name, help, typ string, emit func(w *promWriter)) {
	c.fams = append(c.fams, fam{name: name, help: help, typ: typ, emit: emit})
}

// set adds a family, replacing one of the same name added before.
func (c *scrapeCtx) set(name, help, typ string, emit func(w *promWriter)) {
	for i := range c.fams {
		if c.fams[i].name == name {
			c.fams[i] = fam{name: name, help: help, typ: typ, emit: emit}
			return
		}
	}
	c.add(name, help, typ, emit)
}

// gauge adds a family with one unlabelled sample.
func (c *scrapeCtx) gauge(name, help string, v float64) {
	c.add(name, help, "gauge", func(w *promWriter) { w.sample(name, nil, v) })
}

func (c *scrapeCtx) counter(name, help string, v float64) {
	c.add(name, help, "counter", func(w *promWriter) { w.sample(name, nil, v) })
}

// actorLabel is the actor_id label of a relabelled (relabel_debug_1)
// metric: the id at debug level, "" otherwise.
func (c *scrapeCtx) actorLabel(a *Actor) string {
	if c.debug {
		return strconv.Itoa(a.ID)
	}
	return ""
}

// groups are the actors on this pod of each fragment; at info level the
// actors of a fragment share one relabelled series.
type group struct {
	f      *Fragment
	actors []*Actor
	label  string // actor_id label
}

func (c *scrapeCtx) groups(kind string) []group {
	var out []group
	for _, f := range c.s.Cat.fragments() {
		if kind != "" && f.Kind != kind && !(kind == "mview" && f.mview) {
			continue
		}
		as := f.actorsOn(c.p)
		if len(as) == 0 {
			continue
		}
		if c.debug {
			for _, a := range as {
				out = append(out, group{f: f, actors: []*Actor{a}, label: strconv.Itoa(a.ID)})
			}
		} else {
			out = append(out, group{f: f, actors: as, label: ""})
		}
	}
	return out
}

// rows is the number of rows a group has processed since the process start.
func (c *scrapeCtx) rows(g group) float64 {
	return math.Floor(g.f.Rate.integral(c.r.start, c.t) * float64(len(g.actors)))
}

// writeMetrics writes every scrape of every pod.
func (s *Sim) writeMetrics(b *bundleWriter) {
	s.eachScrape(b, func(p *Pod, t time.Time, r run) func(*file) {
		c := &scrapeCtx{s: s, p: p, t: t, r: r, up: t.Sub(r.start), debug: s.Debug}
		c.process()
		switch p.Component {
		case "compute":
			c.compute()
		case "meta":
			c.meta()
		case "frontend":
			c.frontend()
		case "compactor":
			c.compactor()
		}
		for _, f := range s.extraMetrics {
			f(c)
		}
		sort.SliceStable(c.fams, func(i, j int) bool { return c.fams[i].name < c.fams[j].name })
		return func(f *file) {
			w := &promWriter{f: f}
			for _, fm := range c.fams {
				f.WriteString("# HELP " + fm.name + " " + fm.help + "\n")
				f.WriteString("# TYPE " + fm.name + " " + fm.typ + "\n")
				fm.emit(w)
			}
		}
	})
}

// eachScrape takes every scrape of every RisingWave pod: scrape builds the
// one of pod p at t, from its run r, and returns what writes it into its
// file. A scrape of a pod that was not running is a collect error.
func (s *Sim) eachScrape(b *bundleWriter, scrape func(p *Pod, t time.Time, r run) func(*file)) {
	times := s.scrapeTimes()
	for pi, p := range s.Pods {
		if p.Other != "" {
			continue
		}
		for _, t0 := range times {
			t := t0.Add(time.Duration(37*pi+s.rnd.IntN(30)) * time.Millisecond)
			path := bundle.ScrapePath(p.Name, t)
			url := fmt.Sprintf("http://%s:%d/metrics", p.IP, metricsPort(p.Component))
			r, ok := p.runAt(t)
			if !ok {
				b.collectError(bundle.CollectError{Step: "metrics", Target: p.Name, Time: t.UTC(), Path: path,
					Error: fmt.Sprintf("Get %q: dial tcp %s:%d: connect: connection refused", url, p.IP, metricsPort(p.Component))})
				continue
			}
			write := scrape(p, t, r)
			d := time.Duration(40+s.rnd.IntN(120)) * time.Millisecond
			f := b.create(path, "curl -s "+url, t, t.Add(d))
			write(f)
			f.close()
		}
	}
}

// process adds the process_* families every role exports.
func (c *scrapeCtx) process() {
	m := &c.p.m
	cpu := m.cpu.integral(c.r.start, c.t)
	// A process that ran for days has accumulated CPU at its usual rate.
	c.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", math.Round(cpu*100)/100)
	key := c.p.Name
	c.gauge("process_max_fds", "Maximum number of open file descriptors.", 1048576)
	c.gauge("process_open_fds", "Number of open file descriptors.", float64(180+int(unit(key+"fds")*300)+int(c.up.Minutes())%7))
	c.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", math.Floor(m.rss.at(c.t)))
	c.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", float64(c.r.start.Unix()))
	c.gauge("process_threads", "Number of OS threads in the process.", float64(40+4*c.p.CPU+int(unit(key+"thr")*12)))
	c.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", math.Floor(m.rss.at(c.t)*1.62+gib(1)))
}

// jeActive is the jemalloc active bytes at t.
func (c *scrapeCtx) jeActive() float64 {
	if c.p.m.jeActive != nil {
		return math.Floor(c.p.m.jeActive.at(c.t))
	}
	return math.Floor(c.p.m.rss.at(c.t) * 0.9)
}

// barrierLabels are the CN barrier metrics' labels: partial_graph after
// v3.0.3, none before.
func (c *scrapeCtx) barrierLabels() []label {
	if c.s.Version.Nightly {
		return lbl("partial_graph", "1")
	}
	return nil
}

// compute adds a compute node's families.
func (c *scrapeCtx) compute() {
	s, p, t := c.s, c.p, c.t
	m := &p.m
	je := c.jeActive()
	c.gauge("jemalloc_active_bytes", "The active memory jemalloc, got from jemalloc_ctl", je)
	c.gauge("jemalloc_allocated_bytes", "The allocated memory jemalloc, got from jemalloc_ctl", math.Floor(je*0.97))
	c.gauge("jemalloc_metadata_bytes", "The active memory jemalloc, got from jemalloc_ctl", math.Floor(je*0.012))
	c.gauge("jemalloc_resident_bytes", "The active memory jemalloc, got from jemalloc_ctl", math.Floor(je*1.04))
	c.gauge("jvm_active_bytes", "The active jvm memory", 0)
	c.gauge("jvm_allocated_bytes", "The allocated jvm memory", 0)
	c.gauge("lru_eviction_policy", "Current LRU eviction policy", m.lru.at(t))
	seq := math.Floor(c.up.Seconds() * 4100)
	c.gauge("lru_latest_sequence", "Current LRU global sequence", seq)
	c.gauge("lru_watermark_sequence", "Current LRU watermark sequence", math.Floor(seq*(0.93-0.1*m.lru.at(t)/3)))
	c.counter("lru_runtime_loop_count", "The counts of the eviction loop in LRU manager per second", math.Floor(c.up.Seconds()*10))

	bl := c.barrierLabels()
	buckets := latencyBuckets(600, 20)
	if !s.Version.Nightly {
		buckets = expBuckets(0.1, 1.5, 16)
	}
	c.add("stream_barrier_inflight_duration_seconds", "barrier_inflight_latency", "histogram", func(w *promWriter) {
		w.hist("stream_barrier_inflight_duration_seconds", bl, histModel{rate: m.progress, lat: m.inflight}.observe(buckets, c.r.start, t))
	})
	c.add("stream_barrier_sync_storage_duration_seconds", "barrier_sync_latency", "histogram", func(w *promWriter) {
		w.hist("stream_barrier_sync_storage_duration_seconds", bl, histModel{rate: m.progress, lat: m.syncLat}.observe(buckets, c.r.start, t))
	})
	progress := math.Floor(m.progress.integral(c.r.start, t))
	c.add("stream_barrier_manager_progress", "The number of actors that have processed the earliest in-flight barriers", "counter", func(w *promWriter) {
		w.sample("stream_barrier_manager_progress", bl, progress)
	})
	all := c.groups("")
	c.add("stream_actor_count", "Total number of actors (parallelism)", "gauge", func(w *promWriter) {
		for _, f := range s.Cat.fragments() {
			if n := len(f.actorsOn(p)); n > 0 {
				w.sample("stream_actor_count", lbl("fragment_id", strconv.Itoa(f.ID)), float64(n))
			}
		}
	})
	epochLag := time.Duration(m.epochLag.at(t) * float64(time.Second))
	c.add("stream_actor_current_epoch", "Current epoch of actor", "gauge", func(w *promWriter) {
		for _, g := range all {
			w.sample("stream_actor_current_epoch", lbl("actor_id", g.label, "fragment_id", strconv.Itoa(g.f.ID)),
				float64(epochAt(t.Add(-epochLag).Truncate(time.Second))))
		}
	})
	c.add("stream_actor_in_record_cnt", "Total number of rows actor received", "counter", func(w *promWriter) {
		for _, g := range all {
			for _, up := range g.f.Upstream {
				w.sample("stream_actor_in_record_cnt", lbl("actor_id", g.label, "fragment_id", strconv.Itoa(g.f.ID), "upstream_fragment_id", strconv.Itoa(up.ID)), c.rows(g))
			}
		}
	})
	downstream := map[*Fragment][]*Fragment{}
	for _, f := range s.Cat.fragments() {
		for _, up := range f.Upstream {
			downstream[up] = append(downstream[up], f)
		}
	}
	block := m.blockRatio.at(t)
	c.add("stream_actor_output_buffer_blocking_duration_ns", "Total blocking duration (ns) of output buffer", "counter", func(w *promWriter) {
		for _, g := range all {
			for _, d := range downstream[g.f] {
				r := block * (0.6 + 0.4*unit(fmt.Sprint(g.f.ID, d.ID)))
				w.sample("stream_actor_output_buffer_blocking_duration_ns", lbl("actor_id", g.label, "fragment_id", strconv.Itoa(g.f.ID), "downstream_fragment_id", strconv.Itoa(d.ID)),
					math.Floor(r*c.up.Seconds()*1e9*float64(len(g.actors))))
			}
		}
	})
	c.sources()
	c.mviews()
	c.aggs()
	c.joins()
	c.backfills()
	c.sinks()
	c.storage()
}

// sources adds the Kafka source families of the actors on this pod.
func (c *scrapeCtx) sources() {
	s, p, t := c.s, c.p, c.t
	type part struct {
		src  *Source
		a    *Actor
		part int
	}
	var parts []part
	for _, src := range s.Cat.Sources {
		for i := 0; i < src.Partitions; i++ {
			a := src.Frag.Actors[i%len(src.Frag.Actors)]
			if a.Pod == p {
				parts = append(parts, part{src, a, i})
			}
		}
	}
	if len(parts) == 0 {
		return
	}
	since := func(x part) time.Time {
		if x.src.inputSince != nil {
			if st := x.src.inputSince(x.part, t); st.After(c.r.start) {
				return st
			}
		}
		return c.r.start
	}
	count := func(x part) float64 {
		return math.Floor(x.src.consumed(x.part, since(x), t))
	}
	c.add("source_latest_message_id", "Latest message id for a exec per partition", "gauge", func(w *promWriter) {
		for _, x := range parts {
			w.sample("source_latest_message_id", lbl("source_id", strconv.Itoa(x.src.ID), "actor_id", strconv.Itoa(x.a.ID), "partition", strconv.Itoa(x.part)),
				math.Floor(x.src.offset(x.part, t)))
		}
	})
	c.add("source_partition_input_count", "Total number of rows that have been input from specific partition", "counter", func(w *promWriter) {
		for _, x := range parts {
			w.sample("source_partition_input_count", lbl("actor_id", strconv.Itoa(x.a.ID), "source_id", strconv.Itoa(x.src.ID), "partition", strconv.Itoa(x.part),
				"source_name", x.src.Name, "fragment_id", strconv.Itoa(x.src.Frag.ID)), count(x))
		}
	})
	c.add("source_partition_input_bytes", "Total bytes that have been input from specific partition", "counter", func(w *promWriter) {
		for _, x := range parts {
			w.sample("source_partition_input_bytes", lbl("actor_id", strconv.Itoa(x.a.ID), "source_id", strconv.Itoa(x.src.ID), "partition", strconv.Itoa(x.part),
				"source_name", x.src.Name, "fragment_id", strconv.Itoa(x.src.Frag.ID)), count(x)*float64(180+int(unit(x.src.Name)*240)))
		}
	})
	c.add("stream_source_output_rows_counts", "Total number of rows that have been output from source", "counter", func(w *promWriter) {
		type k struct {
			src *Source
			a   string
		}
		sum := map[k]float64{}
		var order []k
		for _, x := range parts {
			key := k{x.src, c.actorLabel(x.a)}
			if _, ok := sum[key]; !ok {
				order = append(order, key)
			}
			sum[key] += count(x)
		}
		for _, key := range order {
			w.sample("stream_source_output_rows_counts", lbl("actor_id", key.a, "source_id", strconv.Itoa(key.src.ID), "source_name", key.src.Name,
				"fragment_id", strconv.Itoa(key.src.Frag.ID)), sum[key])
		}
	})
	c.add("rdkafka_topic_partition_consumer_lag", "Consumer lag of the partition", "gauge", func(w *promWriter) {
		for _, x := range parts {
			lag := x.src.hw(x.part, t) - x.src.offset(x.part, t)
			w.sample("rdkafka_topic_partition_consumer_lag", lbl("id", fmt.Sprintf("rdkafka#consumer-%d", x.a.ID), "client_id", fmt.Sprintf("rw-consumer-%d-%d", x.src.Frag.ID, x.a.ID),
				"topic", x.src.Topic, "partition", strconv.Itoa(x.part)), math.Max(0, math.Floor(lag)))
		}
	})
}

// mviews adds materialize executor families.
func (c *scrapeCtx) mviews() {
	gs := c.groups("mview")
	t := c.t
	lag := time.Duration(c.p.m.epochLag.at(t) * float64(time.Second))
	c.add("stream_mview_current_epoch", "The current epoch of the materialized executor", "gauge", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_mview_current_epoch", lbl("actor_id", g.label, "table_id", strconv.Itoa(g.f.Job.ID), "fragment_id", strconv.Itoa(g.f.ID)),
				float64(epochAt(t.Add(-lag).Truncate(time.Second))))
		}
	})
}

// aggs adds hash aggregation families.
func (c *scrapeCtx) aggs() {
	gs := c.groups("agg")
	if len(gs) == 0 {
		return
	}
	t := c.t
	entries := func(g group) float64 {
		if l, ok := g.f.AggOn[c.p]; ok {
			skew := 1.0
			if g.label != "" {
				skew = 0.96 + 0.08*unit(g.label)
			}
			return math.Floor(l.at(t) * float64(len(g.actors)) * skew)
		}
		if g.f.AggEntries != nil {
			return math.Floor(g.f.AggEntries.at(t) * float64(len(g.actors)))
		}
		return math.Floor((2000 + 60000*unit(g.f.Job.Name)) * float64(len(g.actors)))
	}
	dirty := func(g group) float64 {
		if g.f.AggDirty != nil {
			return math.Floor(g.f.AggDirty.at(t) * float64(len(g.actors)))
		}
		return math.Floor(entries(g) * 0.02 * unit(g.f.Job.Name+"d"))
	}
	ls := func(g group) []label {
		return lbl("actor_id", g.label, "table_id", strconv.Itoa(g.f.StateTables[0]), "fragment_id", strconv.Itoa(g.f.ID))
	}
	c.add("stream_agg_cached_entry_count", "Number of cached keys in streaming aggregation operators", "gauge", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_agg_cached_entry_count", ls(g), entries(g))
		}
	})
	c.add("stream_agg_dirty_groups_count", "Total dirty group counts in aggregation executor", "gauge", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_agg_dirty_groups_count", ls(g), dirty(g))
		}
	})
	c.add("stream_agg_dirty_groups_heap_size", "Total dirty group heap size in aggregation executor", "gauge", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_agg_dirty_groups_heap_size", ls(g), dirty(g)*96)
		}
	})
	c.add("stream_agg_lookup_total_count", "Aggregation executor lookup total operation", "counter", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_agg_lookup_total_count", ls(g), c.rows(g))
		}
	})
	c.add("stream_agg_lookup_miss_count", "Aggregation executor lookup miss duration", "counter", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_agg_lookup_miss_count", ls(g), math.Floor(c.rows(g)*(0.01+0.2*unit(g.f.Job.Name+"m"))))
		}
	})
	c.add("stream_memory_usage", "Memory usage for stream executors", "gauge", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_memory_usage", lbl("actor_id", g.label, "table_id", strconv.Itoa(g.f.StateTables[0]), "desc", fmt.Sprintf("%s %d", g.f.Op, g.f.ID)),
				math.Floor(entries(g)*148))
		}
		for _, g := range c.groups("join") {
			for i, side := range []string{"left", "right"} {
				w.sample("stream_memory_usage", lbl("actor_id", g.label, "table_id", strconv.Itoa(g.f.StateTables[2*i]), "desc", fmt.Sprintf("HashJoin %d %s", g.f.ID, side)),
					math.Floor((4e5+3e6*unit(fmt.Sprint(g.f.ID, side)))*float64(len(g.actors))))
			}
		}
	})
}

// joins adds hash join families.
func (c *scrapeCtx) joins() {
	gs := c.groups("join")
	if len(gs) == 0 {
		return
	}
	ls := func(g group, side string, i int) []label {
		return lbl("actor_id", g.label, "side", side, "join_table_id", strconv.Itoa(g.f.StateTables[2*i]), "fragment_id", strconv.Itoa(g.f.ID))
	}
	c.add("stream_join_lookup_total_count", "Join executor lookup total operation", "counter", func(w *promWriter) {
		for _, g := range gs {
			for i, side := range []string{"left", "right"} {
				w.sample("stream_join_lookup_total_count", ls(g, side, i), c.rows(g))
			}
		}
	})
	c.add("stream_join_lookup_miss_count", "Join executor lookup miss duration", "counter", func(w *promWriter) {
		for _, g := range gs {
			for i, side := range []string{"left", "right"} {
				w.sample("stream_join_lookup_miss_count", ls(g, side, i), math.Floor(c.rows(g)*0.04*unit(side+g.f.Job.Name)))
			}
		}
	})
	c.add("stream_join_cached_entry_count", "Number of cached entries in streaming join operators", "gauge", func(w *promWriter) {
		for _, g := range gs {
			for _, side := range []string{"left", "right"} {
				w.sample("stream_join_cached_entry_count", lbl("actor_id", g.label, "fragment_id", strconv.Itoa(g.f.ID), "side", side),
					math.Floor((3000+80000*unit(side+g.f.Job.Name))*float64(len(g.actors))))
			}
		}
	})
}

// backfills adds backfill families of stream scans.
func (c *scrapeCtx) backfills() {
	var gs []group
	for _, g := range c.groups("scan") {
		if g.f.Job.Status == "CREATING" {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return
	}
	ls := func(g group) []label {
		return lbl("actor_id", g.label, "table_id", strconv.Itoa(g.f.Job.ID))
	}
	c.add("stream_backfill_snapshot_read_row_count", "Total number of rows that have been read from the backfill snapshot", "counter", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_backfill_snapshot_read_row_count", ls(g), math.Floor(g.f.Backfill.integral(c.r.start, c.t)*float64(len(g.actors))))
		}
	})
	c.add("stream_backfill_upstream_output_row_count", "Total number of rows that have been output from the backfill upstream", "counter", func(w *promWriter) {
		for _, g := range gs {
			w.sample("stream_backfill_upstream_output_row_count", ls(g), c.rows(g))
		}
	})
}

// sinks adds sink and log store families.
func (c *scrapeCtx) sinks() {
	s, t := c.s, c.t
	type sg struct {
		g  group
		sk *Sink
	}
	var gs []sg
	for _, g := range c.groups("sink") {
		if g.f.Job.Sink != nil {
			gs = append(gs, sg{g, g.f.Job.Sink})
		}
	}
	if len(gs) == 0 {
		return
	}
	sl := func(x sg, extra ...string) []label {
		return append(lbl("actor_id", x.g.label, "sink_id", strconv.Itoa(x.sk.ID), "sink_name", x.sk.Name), lbl(extra...)...)
	}
	c.add("stream_sink_input_row_count", "Total number of rows streamed into sink executors", "counter", func(w *promWriter) {
		for _, x := range gs {
			w.sample("stream_sink_input_row_count", lbl("actor_id", x.g.label, "sink_id", strconv.Itoa(x.sk.ID), "fragment_id", strconv.Itoa(x.g.f.ID)), c.rows(x.g))
		}
	})
	c.add("connector_sink_rows_received", "Number of rows received by sink", "counter", func(w *promWriter) {
		for _, x := range gs {
			w.sample("connector_sink_rows_received", lbl("actor_id", x.g.label, "connector_type", x.sk.Connector, "sink_id", strconv.Itoa(x.sk.ID), "sink_name", x.sk.Name), c.rows(x.g))
		}
	})
	write := float64(epochAt(t.Add(-700 * time.Millisecond).Truncate(time.Second)))
	read := func(x sg) float64 {
		lag := time.Duration(x.sk.readLag.at(t) * float64(time.Second))
		return float64(epochAt(t.Add(-700*time.Millisecond - lag).Truncate(time.Second)))
	}
	c.add("log_store_first_write_epoch", "The first write epoch of log store", "gauge", func(w *promWriter) {
		for _, x := range gs {
			w.sample("log_store_first_write_epoch", sl(x, "connector", x.sk.Connector), float64(epochAt(c.r.start.Add(20*time.Second).Truncate(time.Second))))
		}
	})
	c.add("log_store_latest_read_epoch", "The latest read epoch of log store", "gauge", func(w *promWriter) {
		for _, x := range gs {
			w.sample("log_store_latest_read_epoch", sl(x, "connector", x.sk.Connector), read(x))
		}
	})
	c.add("log_store_latest_write_epoch", "The latest write epoch of log store", "gauge", func(w *promWriter) {
		for _, x := range gs {
			w.sample("log_store_latest_write_epoch", sl(x, "connector", x.sk.Connector), write)
		}
	})
	errName, errType, errHelp := "user_sink_error_cnt", "counter", "Total number of errors in user sink"
	if !s.Version.atLeast(2, 6) {
		errName, errType, errHelp = "user_sink_error", "gauge", "Number of errors in user sink"
	}
	c.add(errName, errHelp, errType, func(w *promWriter) {
		for _, x := range gs {
			n := 0.0
			if x.sk.errRate != nil {
				n = math.Floor(x.sk.errRate.integral(c.r.start, t) * float64(len(x.g.actors)))
			}
			w.sample(errName, lbl("error_type", "sink_executor_error", "sink_id", strconv.Itoa(x.sk.ID), "sink_name", x.sk.Name, "fragment_id", strconv.Itoa(x.g.f.ID)), n)
		}
	})
	var kv []sg
	for _, x := range gs {
		if x.sk.Decoupled {
			kv = append(kv, x)
		}
	}
	if len(kv) == 0 {
		return
	}
	kl := func(x sg) []label {
		return lbl("actor_id", x.g.label, "connector", x.sk.Connector, "sink_id", strconv.Itoa(x.sk.ID), "sink_name", x.sk.Name)
	}
	unconsumed := func(x sg) float64 { return x.sk.readLag.at(t) }
	c.add("kv_log_store_storage_write_count", "Write row count throughput of kv log store", "counter", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_storage_write_count", kl(x), c.rows(x.g))
		}
	})
	c.add("kv_log_store_storage_write_size", "Write size throughput of kv log store", "counter", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_storage_write_size", kl(x), c.rows(x.g)*212)
		}
	})
	c.add("kv_log_store_storage_read_count", "Write row count throughput of kv log store", "counter", func(w *promWriter) {
		for _, x := range kv {
			done := c.rows(x.g) - math.Floor(unconsumed(x)*x.g.f.Rate.at(t)*float64(len(x.g.actors)))
			w.sample("kv_log_store_storage_read_count", append(kl(x), label{"read_type", "persistent"}), math.Max(0, math.Floor(done*0.3)))
			w.sample("kv_log_store_storage_read_count", append(kl(x), label{"read_type", "flushed_buffer"}), math.Max(0, math.Floor(done*0.7)))
		}
	})
	c.add("kv_log_store_rewind_count", "Kv log store rewind rate", "counter", func(w *promWriter) {
		for _, x := range kv {
			n := 0.0
			if x.sk.rewind != nil {
				n = math.Floor(x.sk.rewind.integral(c.r.start, t) * float64(len(x.g.actors)))
			}
			w.sample("kv_log_store_rewind_count", kl(x), n)
		}
	})
	c.add("kv_log_store_buffer_unconsumed_epoch_count", "Number of Unconsumed Epoch in buffer", "gauge", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_buffer_unconsumed_epoch_count", kl(x), math.Min(math.Floor(unconsumed(x)), 4096))
		}
	})
	c.add("kv_log_store_buffer_unconsumed_item_count", "Number of Unconsumed Item in buffer", "gauge", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_buffer_unconsumed_item_count", kl(x), math.Min(math.Floor(unconsumed(x)*2.2), 8192))
		}
	})
	c.add("kv_log_store_buffer_unconsumed_row_count", "Number of Unconsumed Row in buffer", "gauge", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_buffer_unconsumed_row_count", kl(x), math.Min(math.Floor(unconsumed(x)*x.g.f.Rate.at(t)), 1<<20))
		}
	})
	c.add("kv_log_store_buffer_unconsumed_min_epoch", "Number of Unconsumed Epoch in buffer", "gauge", func(w *promWriter) {
		for _, x := range kv {
			w.sample("kv_log_store_buffer_unconsumed_min_epoch", kl(x), read(x))
		}
	})
}

// storage adds Hummock and object store families of a compute node.
func (c *scrapeCtx) storage() {
	p, t := c.p, c.t
	var tables []int
	seen := map[int]bool{}
	for _, f := range c.s.Cat.fragments() {
		if len(f.actorsOn(p)) > 0 && !seen[f.Job.ID] && f.Job.Kind != "sink" {
			seen[f.Job.ID] = true
			tables = append(tables, f.Job.ID)
		}
	}
	sort.Ints(tables)
	up := c.up.Seconds()
	c.add("state_store_sst_store_block_request_counts", "Total number of sst block requests that have been issued to sst store", "counter", func(w *promWriter) {
		for _, id := range tables {
			r := 5 + 400*unit(fmt.Sprint("blk", id))
			for _, typ := range []string{"data_miss", "data_total"} {
				v := r * up
				if typ == "data_miss" {
					v *= 0.03 + 0.1*unit(fmt.Sprint("miss", id))
				}
				w.sample("state_store_sst_store_block_request_counts", lbl("table_id", strconv.Itoa(id), "type", typ), math.Floor(v))
			}
		}
	})
	mem := p.MemBytes
	c.gauge("state_store_block_cache_size", "Total size of block cache in storage layer", math.Floor(mem*0.09*(0.9+0.1*unit(p.Name))))
	c.gauge("state_store_meta_cache_size", "Total size of meta cache in storage layer", math.Floor(mem*0.05*(0.9+0.1*unit(p.Name+"m"))))
	c.gauge("state_store_uploading_memory_size", "Total size of uploading memory in storage layer", math.Floor(mem*0.012*(1+math.Sin(float64(t.Unix())/7))))
	c.gauge("state_store_uploading_memory_usage_ratio", "Ratio of uploading memory to its limit", math.Round((0.08+0.06*math.Sin(float64(t.Unix())/7))*1000)/1000)
	c.counter("object_store_read_bytes", "Total bytes of requests read from object store", math.Floor(up*(2e6+8e6*unit(p.Name+"r"))))
	c.counter("object_store_write_bytes", "Total bytes of requests write to object store", math.Floor(up*(1e6+4e6*unit(p.Name+"w"))))
	c.gauge("batch_task_num", "Number of batch task in memory", float64(int(unit(p.Name+t.String())*3)))
}
