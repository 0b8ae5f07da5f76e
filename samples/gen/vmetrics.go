package main

// Metric scrapes of the variety samples: the families each release
// registers, with its label names, help text and buckets, rendered as the
// Rust prometheus crate (tikv/rust-prometheus) encodes a registry: families
// by name, each series' labels sorted by name (value.rs make_label_pairs),
// series ordered by their label values, histograms' `le` last. Sources at
// each tag: src/stream/src/executor/monitor/streaming_stats.rs,
// src/meta/src/rpc/metrics.rs, src/connector/src/source/monitor/metrics.rs,
// src/common/metrics/src/error_metrics.rs (src/common/src/metrics/ before
// v1.10), src/common/metrics/src/monitor/process.rs
// (src/common/src/monitor/process_linux.rs at v1.0.0); the per-tag table is
// in /work/notes/catalog-metrics.md. Only families the rules read or that
// give them context are written: the variety samples keep noise low.

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
)

// vseries is one series of a family: a sample or a histogram.
type vseries struct {
	labels []label
	v      float64
	h      *histogram
}

// vfamily is one metric family of a variety scrape.
type vfamily struct {
	name, help, typ string
	series          []vseries
}

// vscrape collects one scrape's families.
type vscrape struct {
	*scrapeCtx
	fams map[string]*vfamily
}

func (w *vscrape) fam(name, typ, help string) *vfamily {
	f := w.fams[name]
	if f == nil {
		f = &vfamily{name: name, typ: typ, help: help}
		w.fams[name] = f
	}
	return f
}

// sample adds a series; families with no series are not written.
func (w *vscrape) sample(name, typ, help string, v float64, kv ...string) {
	f := w.fam(name, typ, help)
	f.series = append(f.series, vseries{labels: lbl(kv...), v: v})
}

func (w *vscrape) hist(name, help string, h histogram, kv ...string) {
	f := w.fam(name, "histogram", help)
	f.series = append(f.series, vseries{labels: lbl(kv...), h: &h})
}

// render writes the scrape in the text format.
func (w *vscrape) render(f *file) {
	names := make([]string, 0, len(w.fams))
	for n, fm := range w.fams {
		if len(fm.series) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fm := w.fams[n]
		for i := range fm.series {
			ls := fm.series[i].labels
			sort.SliceStable(ls, func(a, b int) bool { return ls[a].k < ls[b].k })
		}
		sort.SliceStable(fm.series, func(a, b int) bool {
			x, y := fm.series[a].labels, fm.series[b].labels
			for k := 0; k < len(x) && k < len(y); k++ {
				if x[k].v != y[k].v {
					return x[k].v < y[k].v
				}
			}
			return len(x) < len(y)
		})
		f.WriteString("# HELP " + fm.name + " " + fm.help + "\n# TYPE " + fm.name + " " + fm.typ + "\n")
		pw := &promWriter{f: f}
		for _, sr := range fm.series {
			if sr.h != nil {
				pw.hist(fm.name, sr.labels, *sr.h)
			} else {
				pw.sample(fm.name, sr.labels, sr.v)
			}
		}
	}
}

// writeVarietyMetrics writes every scrape of every pod of a variety sample.
func (s *Sim) writeVarietyMetrics(b *bundleWriter) {
	if s.Scrapes == 0 {
		return
	}
	s.eachScrape(b, func(p *Pod, t time.Time, r run) func(*file) {
		w := &vscrape{scrapeCtx: &scrapeCtx{s: s, p: p, t: t, r: r, up: t.Sub(r.start), debug: !s.Version.atLeast(2, 3)}, fams: map[string]*vfamily{}}
		w.process()
		switch p.Component {
		case "compute":
			w.compute()
		case "meta":
			w.meta()
		}
		return w.render
	})
}

// process: RisingWave's own process collector (process_linux.rs:52-74 at
// v1.0.0, process.rs:47-69 from v1.10.0): cpu seconds as an IntCounter.
func (w *vscrape) process() {
	m := &w.p.m
	w.sample("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", math.Floor(m.cpu.integral(w.r.start, w.t)))
	w.sample("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", math.Floor(m.rss.at(w.t)))
	w.sample("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", math.Floor(m.rss.at(w.t)*1.62+gib(1)))
	w.sample("process_cpu_core_num", "gauge", "Cpu core num.", float64(w.p.CPU))
}

// actorGroups are the series of a per-actor family on this pod: one per
// actor, or (a family v2.3+ relabels at the info level, relabel_debug_1)
// one per fragment with actor_id "".
func (w *vscrape) actorGroups(kind string, relabelled bool) []group {
	saved := w.debug
	if relabelled && w.s.Version.atLeast(2, 3) {
		w.debug = false
	} else {
		w.debug = true
	}
	g := w.groups(kind)
	w.debug = saved
	return g
}

func (w *vscrape) compute() {
	p, t, v := w.p, w.t, w.s.Version
	m := &p.m
	je := w.jeActive()
	w.sample("jemalloc_active_bytes", "gauge", "The active memory jemalloc, got from jemalloc_ctl", je)
	w.sample("jemalloc_allocated_bytes", "gauge", "The allocated memory jemalloc, got from jemalloc_ctl", math.Floor(je*0.97))
	if v.atLeast(1, 10) {
		w.sample("jemalloc_resident_bytes", "gauge", "The active memory jemalloc, got from jemalloc_ctl", math.Floor(je*1.04))
		w.sample("jemalloc_metadata_bytes", "gauge", "The active memory jemalloc, got from jemalloc_ctl", math.Floor(je*0.012))
	}
	// The LRU manager: watermark times up to v1.5, sequences and the
	// eviction policy from v1.10.
	w.sample("lru_runtime_loop_count", "counter", "The counts of the eviction loop in LRU manager per second", math.Floor(w.up.Seconds()*10))
	if v.atLeast(1, 10) {
		seq := math.Floor(w.up.Seconds() * 4100)
		w.sample("lru_eviction_policy", "gauge", "Current LRU eviction policy", m.lru.at(t))
		w.sample("lru_latest_sequence", "gauge", "Current LRU global sequence", seq)
		w.sample("lru_watermark_sequence", "gauge", "Current LRU watermark sequence", math.Floor(seq*(0.93-0.1*m.lru.at(t)/3)))
	} else {
		now := float64(t.UnixMilli())
		lag := 60000 * (1 - m.lru.at(t)/3.5)
		w.sample("lru_physical_now_ms", "gauge", "Current physical time in Risingwave(ms)", now)
		w.sample("lru_current_watermark_time_ms", "gauge", "Current LRU manager watermark time(ms)", math.Floor(now-lag))
		w.sample("lru_watermark_step", "gauge", "The steps increase in 1 loop", math.Floor(m.lru.at(t)*3))
	}

	buckets := expBuckets(0.1, 1.5, 16)
	w.hist("stream_barrier_inflight_duration_seconds", "barrier_inflight_latency", histModel{rate: m.progress, lat: m.inflight}.observe(buckets, w.r.start, t))
	if v.atLeast(1, 3) {
		w.sample("stream_barrier_manager_progress", "counter", "The number of actors that have processed the earliest in-flight barriers", math.Floor(m.progress.integral(w.r.start, t)))
	}
	w.vsources()
	w.vaggs()
	w.vbackfills()
	w.vsinks()
}

func (w *vscrape) vsources() {
	s, p, t, v := w.s, w.p, w.t, w.s.Version
	for _, src := range s.Cat.Sources {
		out := map[int]float64{}
		var actors []int
		for i := 0; i < src.Partitions; i++ {
			a := src.Frag.Actors[i%len(src.Frag.Actors)]
			if a.Pod != p {
				continue
			}
			since := w.r.start
			if src.inputSince != nil {
				if st := src.inputSince(i, t); st.After(since) {
					since = st
				}
			}
			n := math.Floor(src.consumed(i, since, t))
			if _, ok := out[a.ID]; !ok {
				actors = append(actors, a.ID)
			}
			out[a.ID] += n
			if !v.atLeast(1, 5) {
				continue
			}
			aid, sid, part := strconv.Itoa(a.ID), strconv.Itoa(src.ID), strconv.Itoa(i)
			w.sample("source_latest_message_id", "gauge", "Latest message id for a exec per partition", math.Floor(src.offset(i, t)),
				"source_id", sid, "actor_id", aid, "partition", part)
			if v.atLeast(1, 10) {
				w.sample("source_partition_input_count", "counter", "Total number of rows that have been input from specific partition", n,
					"actor_id", aid, "source_id", sid, "partition", part, "source_name", src.Name, "fragment_id", strconv.Itoa(src.Frag.ID))
			} else {
				w.sample("source_partition_input_count", "counter", "Total number of rows that have been input from specific partition", n,
					"actor_id", aid, "source_id", sid, "partition", part)
			}
		}
		for _, id := range actors {
			kv := []string{"source_id", strconv.Itoa(src.ID), "source_name", src.Name, "actor_id", strconv.Itoa(id)}
			if v.atLeast(1, 10) {
				kv = append(kv, "fragment_id", strconv.Itoa(src.Frag.ID))
			}
			w.sample("stream_source_output_rows_counts", "counter", "Total number of rows that have been output from source", out[id], kv...)
		}
	}
}

// vaggs: cached groups (stream_agg_cached_keys v1.0, [table_id, actor_id];
// stream_agg_cached_entry_count v1.5+, [table_id, actor_id, fragment_id]) and
// executor cache bytes (stream_memory_usage [table_id, actor_id, desc],
// relabelled from v2.3; desc "agg result table" of the result table at
// v1.0.0, src/stream/src/executor/hash_agg.rs:556, then "agg intermediate
// state table", :584 at v1.5.0, :571 at v2.3.0).
func (w *vscrape) vaggs() {
	t, v := w.t, w.s.Version
	entries := func(g group) float64 {
		if l, ok := g.f.AggOn[w.p]; ok {
			return math.Floor(l.at(t) * float64(len(g.actors)))
		}
		if g.f.AggEntries != nil {
			return math.Floor(g.f.AggEntries.at(t) * float64(len(g.actors)))
		}
		return math.Floor((2000 + 60000*unit(g.f.Job.Name)) * float64(len(g.actors)))
	}
	for _, g := range w.actorGroups("agg", false) {
		tid := strconv.Itoa(g.f.StateTables[0])
		if v.atLeast(1, 5) {
			w.sample("stream_agg_cached_entry_count", "gauge", "Number of cached keys in streaming aggregation operators", entries(g),
				"table_id", tid, "actor_id", g.label, "fragment_id", strconv.Itoa(g.f.ID))
		} else {
			w.sample("stream_agg_cached_keys", "gauge", "Number of cached keys in streaming aggregation operators", entries(g),
				"table_id", tid, "actor_id", g.label)
		}
	}
	for _, g := range w.actorGroups("agg", true) {
		table, desc := g.f.StateTables[0], "agg intermediate state table"
		if !v.atLeast(1, 5) {
			table, desc = g.f.StateTables[1], "agg result table"
		}
		w.sample("stream_memory_usage", "gauge", "Memory usage for stream executors", math.Floor(entries(g)*148),
			"table_id", strconv.Itoa(table), "actor_id", g.label, "desc", desc)
	}
}

// vbackfills: rows a backfilling scan read from its snapshot and took from
// upstream, [table_id, actor_id] at every tag (table_id: the upstream table).
func (w *vscrape) vbackfills() {
	for _, g := range w.actorGroups("scan", false) {
		if g.f.Job.Status != "CREATING" {
			continue
		}
		up := strconv.Itoa(g.f.Upstream[0].Job.ID)
		w.sample("stream_backfill_snapshot_read_row_count", "counter", "Total number of rows that have been read from the backfill snapshot",
			math.Floor(g.f.Backfill.integral(w.r.start, w.t)*float64(len(g.actors))), "table_id", up, "actor_id", g.label)
		w.sample("stream_backfill_upstream_output_row_count", "counter", "Total number of rows that have been output from the backfill upstream",
			w.rows(g), "table_id", up, "actor_id", g.label)
	}
}

// vsinks: sink errors. user_sink_error (v1.4-v2.6) is an ErrorMetric, a
// gauge whose collect() drains the counts: each scrape shows the errors since
// the previous one, and the family is missing when there were none;
// [connector_name, executor_id, error_msg] up to v1.7, [error_type, sink_id,
// sink_name, fragment_id] from v1.8 (at v1.4-v1.7 one series per actor,
// by executor). user_sink_error_cnt (v2.7+) counts.
func (w *vscrape) vsinks() {
	s, t, v := w.s, w.t, w.s.Version
	for _, g := range w.actorGroups("sink", false) {
		sk := g.f.Job.Sink
		if sk == nil || len(sk.fails) == 0 {
			continue
		}
		// The failures of the group's actors, in (from, t]: the i-th
		// failure is the i-th actor's, round robin.
		count := func(from time.Time) float64 {
			n := 0
			for i, f := range sk.fails {
				if slices.Contains(g.actors, g.f.Actors[i%len(g.f.Actors)]) && f.After(from) && !f.After(t) {
					n++
				}
			}
			return float64(n)
		}
		kv := []string{"error_type", "sink_executor_error", "sink_id", strconv.Itoa(sk.ID), "sink_name", sk.Name, "fragment_id", strconv.Itoa(g.f.ID)}
		if !v.atLeast(1, 8) {
			// src/stream/src/executor/sink.rs:355 at v1.5.0: the connector, the
			// executor's identity and the SinkError's text.
			kv = []string{"connector_name", sk.Connector, "executor_id", s.execName("Sink", g.actors[0].ID, 3),
				"error_msg", "Kafka error: Message production error: MessageTimedOut (Local: Message timed out)"}
		}
		switch {
		case v.atLeast(2, 7):
			w.sample("user_sink_error_cnt", "counter", "Sink errors in the system, queryable by tags", count(w.r.start), kv...)
		case v.atLeast(1, 4):
			if n := count(t.Add(-s.ScrapeEvery)); n > 0 {
				w.sample("user_sink_error", "gauge", "Sink errors in the system, queryable by tags", n, kv...)
			}
		}
	}
}

// meta adds the meta node's families: barrier latency, piled-up and
// in-flight barriers, the last committed barrier's time (v1.8+), recovery,
// and the actor, table and sink mappings.
func (w *vscrape) meta() {
	s, t, v := w.s, w.t, w.s.Version
	mm := &s.Meta
	var dbl []string
	if v.atLeast(2, 3) {
		dbl = []string{"database_id", strconv.Itoa(s.Cat.DatabaseID)}
	}
	w.hist("meta_barrier_duration_seconds", "barrier latency", mm.barrier.observe(expBuckets(0.1, 1.5, 20), w.r.start, t), dbl...)
	w.sample("all_barrier_nums", "gauge", "num of of all_barrier", math.Floor(mm.allBarriers.at(t)), dbl...)
	w.sample("in_flight_barrier_nums", "gauge", "num of of in_flight_barrier", math.Floor(mm.inFlight.at(t)), dbl...)
	if v.atLeast(1, 8) {
		lag := time.Duration(mm.commitLag.at(t) * float64(time.Second))
		w.sample("last_committed_barrier_time", "gauge", "The timestamp (UNIX epoch seconds) of the last committed barrier's epoch time.", float64(t.Add(-lag).Unix()), dbl...)
	}
	var rec []string
	if v.atLeast(2, 3) {
		rec = []string{"recovery_type", "global"}
	}
	var n float64
	for _, r := range mm.recoveries {
		if !r.Before(w.r.start) && !r.After(t) {
			n++
		}
	}
	w.hist("recovery_latency", "Latency of the recovery process",
		histModel{rate: step{{w.r.start, n / math.Max(w.up.Seconds(), 1)}}, lat: constant(mm.recoveryDur)}.observe(expBuckets(0.1, 1.5, 20), w.r.start, t), rec...)
	w.sample("recovery_failure_cnt", "counter", "Number of failed recovery attempts", 0, rec...)
	help := "Mapping from actor id to (fragment id, compute node)"
	if !v.atLeast(1, 10) {
		help = "Mapping from actor id to (fragment id, compute node"
	}
	for _, a := range s.Cat.actors() {
		w.sample("actor_info", "gauge", help, 1, "actor_id", strconv.Itoa(a.ID), "fragment_id", strconv.Itoa(a.Frag.ID), "compute_node", a.Pod.host()+":5688")
	}
	for _, f := range s.Cat.fragments() {
		if f.Job.Kind == "sink" {
			continue
		}
		for i, id := range f.StateTables {
			name, typ := f.stateTable(i, id)
			if !v.atLeast(1, 5) {
				w.sample("table_info", "gauge", "Mapping from table id to (actor id, table name)", 1, "table_id", strconv.Itoa(id), "actor_id", strconv.Itoa(f.Actors[0].ID), "table_name", name)
				continue
			}
			w.sample("table_info", "gauge", "Mapping from table id to (actor id, table name)", 1, "materialized_view_id", strconv.Itoa(f.Job.ID), "table_id", strconv.Itoa(id),
				"fragment_id", strconv.Itoa(f.ID), "table_name", name, "table_type", typ, "compaction_group_id", strconv.Itoa(2+id%2))
		}
	}
	if v.atLeast(1, 2) {
		for _, sk := range s.Cat.Sinks {
			for _, a := range sk.Job.fragOf("sink").Actors {
				w.sample("sink_info", "gauge", "Mapping from actor id to (actor id, sink name)", 1, "actor_id", strconv.Itoa(a.ID), "sink_id", strconv.Itoa(sk.ID), "sink_name", sk.Name)
			}
		}
	}
	if v.atLeast(1, 5) {
		for _, src := range s.Cat.Sources {
			for i := 0; i < src.Partitions; i++ {
				w.sample("source_kafka_high_watermark", "gauge", "High watermark for a exec per partition", math.Floor(src.hw(i, t)), "source_id", strconv.Itoa(src.ID), "partition", strconv.Itoa(i))
			}
		}
	}
}
