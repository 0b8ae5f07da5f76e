package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// meta adds the meta node's families.
func (c *scrapeCtx) meta() {
	s, t := c.s, c.t
	mm := &s.Meta
	var dbl []label
	if s.Version.databaseLabels() {
		dbl = lbl("database_id", strconv.Itoa(s.Cat.DatabaseID))
	}
	buckets := latencyBuckets(600, 20)
	if !s.Version.Nightly {
		buckets = expBuckets(0.1, 1.5, 20)
	}
	c.add("meta_barrier_duration_seconds", "barrier latency", "histogram", func(w *promWriter) {
		w.hist("meta_barrier_duration_seconds", dbl, mm.barrier.observe(buckets, c.r.start, t))
	})
	c.add("meta_barrier_wait_commit_duration_seconds", "barrier_wait_commit_latency", "histogram", func(w *promWriter) {
		w.hist("meta_barrier_wait_commit_duration_seconds", nil, mm.waitCommit.observe(buckets, c.r.start, t))
	})
	if !s.Version.Nightly {
		c.add("meta_barrier_send_duration_seconds", "barrier send latency", "histogram", func(w *promWriter) {
			w.hist("meta_barrier_send_duration_seconds", dbl, mm.send.observe(expBuckets(0.1, 1.5, 19), c.r.start, t))
		})
	}
	c.add("all_barrier_nums", "num of of all_barrier", "gauge", func(w *promWriter) {
		w.sample("all_barrier_nums", dbl, math.Floor(mm.allBarriers.at(t)))
	})
	c.add("in_flight_barrier_nums", "num of of in_flight_barrier", "gauge", func(w *promWriter) {
		w.sample("in_flight_barrier_nums", dbl, math.Floor(mm.inFlight.at(t)))
	})
	c.add("last_committed_barrier_time", "The timestamp (UNIX epoch seconds) of the last committed barrier's epoch time.", "gauge", func(w *promWriter) {
		lag := time.Duration(mm.commitLag.at(t) * float64(time.Second))
		w.sample("last_committed_barrier_time", dbl, float64(t.Add(-lag).Unix()))
	})
	var recl []label
	if s.Version.atLeast(2, 3) {
		recl = lbl("recovery_type", "global")
	}
	c.add("recovery_latency", "Latency of the recovery process", "histogram", func(w *promWriter) {
		var n float64
		for _, r := range mm.recoveries {
			if !r.Before(c.r.start) && !r.After(t) {
				n++
			}
		}
		h := histModel{rate: step{{c.r.start, n / math.Max(c.up.Seconds(), 1)}}, lat: constant(mm.recoveryDur)}.observe(expBuckets(0.1, 1.5, 20), c.r.start, t)
		w.hist("recovery_latency", recl, h)
	})
	c.add("recovery_failure_cnt", "Number of failed recovery attempts", "counter", func(w *promWriter) {
		w.sample("recovery_failure_cnt", recl, 0)
	})
	c.add("worker_num", "number of nodes in the cluster", "gauge", func(w *promWriter) {
		for _, comp := range []struct{ typ, c string }{{"WORKER_TYPE_COMPACTOR", "compactor"}, {"WORKER_TYPE_COMPUTE_NODE", "compute"},
			{"WORKER_TYPE_FRONTEND", "frontend"}, {"WORKER_TYPE_META", "meta"}} {
			n := 0
			for _, p := range s.pods(comp.c) {
				if _, ok := p.runAt(t); ok {
					n++
				}
			}
			w.sample("worker_num", lbl("worker_type", comp.typ), float64(n))
		}
	})
	c.add("meta_num", "role of meta nodes in the cluster", "gauge", func(w *promWriter) {
		for _, p := range s.pods("meta") {
			w.sample("meta_num", lbl("worker_addr", p.host()+":5690", "role", "leader"), 1)
		}
	})
	c.add("actor_info", "Mapping from actor id to (fragment id, compute node)", "gauge", func(w *promWriter) {
		for _, a := range s.Cat.actors() {
			w.sample("actor_info", lbl("actor_id", strconv.Itoa(a.ID), "fragment_id", strconv.Itoa(a.Frag.ID), "compute_node", a.Pod.host()+":5688"), 1)
		}
	})
	c.add("table_info", "Mapping from table id to (actor id, table name)", "gauge", func(w *promWriter) {
		for _, f := range s.Cat.fragments() {
			if f.Job.Kind == "sink" {
				continue
			}
			for i, id := range f.StateTables {
				name, typ := f.stateTable(i, id)
				w.sample("table_info", lbl("materialized_view_id", strconv.Itoa(f.Job.ID), "table_id", strconv.Itoa(id), "fragment_id", strconv.Itoa(f.ID),
					"table_name", name, "table_type", typ, "compaction_group_id", strconv.Itoa(2+id%2)), 1)
			}
		}
	})
	c.add("sink_info", "Mapping from actor id to (actor id, sink name)", "gauge", func(w *promWriter) {
		for _, sk := range s.Cat.Sinks {
			for _, a := range sk.Job.fragOf("sink").Actors {
				w.sample("sink_info", lbl("actor_id", strconv.Itoa(a.ID), "sink_id", strconv.Itoa(sk.ID), "sink_name", sk.Name), 1)
			}
		}
	})
	c.add("source_kafka_high_watermark", "High watermarks for a exec per partition", "gauge", func(w *promWriter) {
		for _, src := range s.Cat.Sources {
			for i := 0; i < src.Partitions; i++ {
				w.sample("source_kafka_high_watermark", lbl("source_id", strconv.Itoa(src.ID), "partition", strconv.Itoa(i)), math.Floor(src.hw(i, t)))
			}
		}
	})
	if mm.snapLag != nil {
		c.add("meta_snapshot_backfill_upstream_lag", "Total lags of snapshot backfill upstream", "gauge", func(w *promWriter) {
			for _, j := range s.Cat.Jobs {
				if j.Status == "CREATING" {
					w.sample("meta_snapshot_backfill_upstream_lag", lbl("table_id", strconv.Itoa(j.ID)), math.Floor(mm.snapLag.at(t)*1000*65536))
				}
			}
		})
	}
	c.add("system_param_info", "system parameters", "gauge", func(w *promWriter) {
		for _, p := range s.params() {
			if p.name == "license_key" {
				continue
			}
			w.sample("system_param_info", lbl("name", p.name, "value", p.value), 1)
		}
	})
	version := 40000 + int(t.Sub(baseTime).Seconds()/3)
	c.gauge("storage_current_version_id", "current version id", float64(version))
	c.gauge("storage_checkpoint_version_id", "checkpoint version id", float64(version-version%100))
	c.gauge("storage_min_pinned_version_id", "min pinned version id", float64(version-3))
	c.gauge("storage_max_committed_epoch", "max committed epoch", float64(epochAt(t.Add(-time.Duration(mm.commitLag.at(t)*float64(time.Second))).Truncate(time.Second))))
	c.add("storage_level_sst_num", "num of SSTs in each level", "gauge", func(w *promWriter) {
		for _, g := range []int{2, 3} {
			for lvl := 0; lvl <= 6; lvl++ {
				w.sample("storage_level_sst_num", lbl("level_index", fmt.Sprintf("cg%d_L%d", g, lvl)), math.Floor(3+60*unit(fmt.Sprint("sst", g, lvl))*float64(lvl+1)))
			}
		}
	})
	c.add("storage_write_stop_compaction_groups", "compaction groups of write stop state", "gauge", func(w *promWriter) {
		for _, g := range []int{2, 3} {
			w.sample("storage_write_stop_compaction_groups", lbl("compaction_group_id", strconv.Itoa(g)), 0)
		}
	})
	c.add("storage_version_stats", "per table stats in current hummock version", "gauge", func(w *promWriter) {
		for _, j := range s.Cat.Jobs {
			if j.Kind == "sink" {
				continue
			}
			for _, id := range []int{j.ID} {
				n := 1e5 + 5e7*unit(fmt.Sprint("keys", id))
				for _, m := range []struct {
					name string
					mul  float64
				}{{"total_key_count", 1}, {"total_value_size", 160}} {
					w.sample("storage_version_stats", lbl("table_id", strconv.Itoa(id), "metric", m.name), math.Floor(n*m.mul))
				}
			}
		}
	})
}

// stateTable names the fragment's i-th state table, id, as table_info
// labels it: the job's own table by the job's name and kind, an internal
// one as __internal_<job>_<fragment>_<op><suffix>_<id>.
func (f *Fragment) stateTable(i, id int) (name, typ string) {
	if id == f.Job.ID {
		return f.Job.Name, strings.ToUpper(strings.ReplaceAll(f.Job.Kind, " ", "_"))
	}
	return fmt.Sprintf("__internal_%s_%d_%s_%d", f.Job.Name, f.ID, strings.ToLower(f.Op)+stateSuffix(f, i), id), "INTERNAL"
}

// stateSuffix names an internal state table of a fragment.
func stateSuffix(f *Fragment, i int) string {
	switch f.Kind {
	case "agg":
		return []string{"state", "result"}[i%2]
	case "join":
		return []string{"left", "leftdegree", "right", "rightdegree"}[i%4]
	case "source":
		return "source"
	case "scan":
		return "backfill"
	}
	return ""
}

// frontend adds a frontend's families.
func (c *scrapeCtx) frontend() {
	up := c.up.Seconds()
	k := c.p.Name
	c.counter("frontend_query_counter_local_execution", "Total query number of local execution mode", math.Floor(up*(0.5+3*unit(k))))
	c.counter("distributed_completed_query_counter", "The number of query ended successfully in distributed execution mode", math.Floor(up*0.01*unit(k+"d")))
	c.gauge("distributed_running_query_num", "The number of running query in distributed execution mode", 0)
	c.gauge("frontend_active_sessions", "The number of active sessions", float64(3+int(unit(k+c.t.String())*8)))
	c.add("frontend_latency_local_execution", "latency of local execution mode", "histogram", func(w *promWriter) {
		w.hist("frontend_latency_local_execution", nil, histModel{rate: flat(0.5 + 3*unit(k)), lat: constant(0.012)}.observe(expBuckets(0.001, 2, 12), c.r.start, c.t))
	})
}

// compactor adds a compactor's families.
func (c *scrapeCtx) compactor() {
	up := c.up.Seconds()
	k := c.p.Name
	c.gauge("compactor_running_task_count", "The number of running compaction task", float64(int(unit(k+c.t.String())*3)))
	c.counter("compactor_write_build_l0_bytes", "The total size of compaction output written to L0", math.Floor(up*(4e5+2e6*unit(k))))
	c.counter("object_store_read_bytes", "Total bytes of requests read from object store", math.Floor(up*(6e6+9e6*unit(k+"r"))))
	c.counter("object_store_write_bytes", "Total bytes of requests write to object store", math.Floor(up*(5e6+8e6*unit(k+"w"))))
	c.add("compactor_compact_task_duration", "Total time of compact that have been issued to state store", "histogram", func(w *promWriter) {
		w.hist("compactor_compact_task_duration", lbl("group", "3", "level", "L0"), histModel{rate: flat(0.2), lat: constant(1.8)}.observe(expBuckets(0.1, 1.6, 18), c.r.start, c.t))
	})
}
