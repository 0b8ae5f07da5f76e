package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// v1Source adds a CREATE SOURCE as v1.x has it: a catalog entry with no
// streaming job of its own (each view reading it runs its own source
// executor, in the view's fragment).
func (s *Sim) v1Source(name, topic string, parts int, cols string, created time.Time) *Source {
	c := s.Cat
	bootstrap := "kafka-0.kafka-headless.kafka.svc:9092,kafka-1.kafka-headless.kafka.svc:9092"
	def := fmt.Sprintf("CREATE SOURCE %s (%s) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON",
		name, cols, topic, strings.Split(bootstrap, ",")[0])
	j := &Job{ID: c.id(), Kind: "source", Name: name, Definition: def, Status: "CREATED", Init: created, Created: created.Add(2 * time.Second)}
	c.Jobs = append(c.Jobs, j)
	src := &Source{ID: j.ID, Name: name, Topic: topic, Partitions: parts, Bootstrap: bootstrap, Job: j,
		Props: [][2]string{{"connector", "kafka"}, {"properties.bootstrap.server", bootstrap}, {"topic", topic}, {"scan.startup.mode", "earliest"}}}
	c.Sources = append(c.Sources, src)
	return src
}

// v1SourceMV adds an aggregation view over a v1.x source: its first
// fragment runs the source executor.
func (s *Sim) v1SourceMV(src *Source, name, def string, on []*Pod, par int, rate float64, created time.Time) *Job {
	c := s.Cat
	j := c.job("materialized view", name, def, created)
	src.Frag = c.frag(j, "source", on, par, 0)
	c.frag(j, "agg", on, par, rate, src.Frag).asMview()
	return j
}

// vSourceResumed logs where each Kafka split resumed after the source's
// actors were (re)built, as the release logs it: v1.0-v1.5 `start with
// state` at INFO, one line per actor with all its splits
// (src/stream/src/executor/source/source_executor.rs:389 at v1.0.0, :409 at
// v1.5.0); v1.6-v2.0 nothing at INFO; v2.1+ `fetch kafka watermarks` per
// split (src/connector/src/source/kafka/source/reader.rs:130 at v2.5.0, :136
// at v3.0.0) and then the reader's `backfill_info` (:144, :162 with Display
// ids at v3.0.0). KafkaSplit's Debug: topic, partition, start_offset
// (exclusive), stop_offset (split.rs).
func (s *Sim) vSourceResumed(src *Source, t time.Time, start func(part int) int64, low, high func(part int) int64) {
	v := s.Version
	byActor := map[*Actor][]int{}
	var actors []*Actor
	for p := 0; p < src.Partitions; p++ {
		a := src.Frag.Actors[p%len(src.Frag.Actors)]
		if _, ok := byActor[a]; !ok {
			actors = append(actors, a)
		}
		byActor[a] = append(byActor[a], p)
	}
	sort.Slice(actors, func(i, j int) bool { return actors[i].ID < actors[j].ID })
	split := func(p int) string {
		return fmt.Sprintf("KafkaSplit { topic: %q, partition: %d, start_offset: Some(%d), stop_offset: None }", src.Topic, p, start(p))
	}
	for i, a := range actors {
		at := t.Add(sec(0.013*float64(i) + 0.0004*float64(a.ID)))
		spans := s.vActorSpans(a, 0, "Source", 1)
		switch {
		case !v.atLeast(1, 6):
			var ks []string
			for _, p := range byActor[a] {
				ks = append(ks, "Kafka("+split(p)+")")
			}
			s.vlog(a.Pod, false, at, "INFO", "risingwave_stream::executor::source::source_executor", s.at("src/stream/src/executor/source/source_executor.rs:389"), spans,
				"start with state", num("actor_id", a.ID), disp("state", "Some(["+strings.Join(ks, ", ")+"])"))
		case v.atLeast(2, 1):
			var info []string
			for k, p := range byActor[a] {
				s.vlog(a.Pod, false, at.Add(sec(0.0021*float64(k))), "INFO", "risingwave_connector::source::kafka::source::reader", "", spans,
					fmt.Sprintf("fetch kafka watermarks: low: %d, high: %d, split: %s", low(p), high(p), split(p)))
				info = append(info, fmt.Sprintf("%q: HasDataToBackfill { latest_offset: \"%d\" }", fmt.Sprint(p), high(p)-1))
			}
			ids := []field{num("fragment_id", src.Frag.ID), num("source_id", src.ID), num("actor_id", a.ID)}
			if v.atLeast(3, 0) {
				ids = []field{disp("fragment_id", fmt.Sprint(src.Frag.ID)), disp("source_id", fmt.Sprint(src.ID)), disp("actor_id", fmt.Sprint(a.ID))}
			}
			s.vlog(a.Pod, false, at.Add(sec(0.0007+0.0021*float64(len(byActor[a])))), "INFO", "risingwave_connector::source::kafka::source::reader", "", spans,
				"backfill_info: {"+strings.Join(info, ", ")+"}", append([]field{str("topic", src.Topic), str("source_name", src.Name)}, ids...)...)
		}
	}
}

// replaySpec is one offset-replay variant.
type replaySpec struct {
	cluster clusterSpec
	shapes  Shapes
	kind    string  // v1source, shared, table
	catchup float64 // messages per second while the source catches up
}

// buildReplayVariant: the meta store slows, meta fails its liveness probe
// and is restarted; its bootstrap recovery rebuilds the actors and the Kafka
// source resumes every partition from the last committed checkpoint, below
// the offsets it had already consumed; an append-only Kafka sink passes the
// re-read rows on. With a slow catch-up the consumed offset is seen stepping
// back in the scrapes; with a fast one only the resume offsets in the log,
// compared with the offsets scraped before, show it.
func (s *Sim) buildReplayVariant(sp replaySpec) {
	s.varietySetup(sp.cluster, sp.shapes)
	collect := s.Collect
	created := collect.Add(-3*time.Hour - 8*time.Minute)
	cns := s.topo(2, 8, "16Gi", created, 1)
	meta := s.pod("meta")
	meta.Liveness = true
	s.Cat = newCatalog(3001)
	cols := "order_id BIGINT, customer_id BIGINT, sku VARCHAR, amount DECIMAL, created_at TIMESTAMPTZ"
	var src *Source
	var totals *Job
	totalsDef := "CREATE MATERIALIZED VIEW mv_order_totals AS SELECT customer_id, count(*) AS orders, sum(amount) AS revenue FROM src_orders GROUP BY customer_id"
	switch sp.kind {
	case "v1source":
		src = s.v1Source("src_orders", "orders", 4, cols, created.Add(22*time.Minute))
		totals = s.v1SourceMV(src, "mv_order_totals", totalsDef, cns, 2, 1500, created.Add(25*time.Minute))
	case "shared":
		src = s.kafkaSource("src_orders", "orders", 4, cols, cns, 2, created.Add(22*time.Minute))
		totals = s.aggMV("mv_order_totals", totalsDef, src.Job, cns, 2, 1500, created.Add(25*time.Minute))
	default:
		src = s.kafkaTable("src_orders", "orders", 4, cols, cns, 2, created.Add(22*time.Minute))
		totals = s.aggMV("mv_order_totals", totalsDef, src.Job, cns, 2, 1500, created.Add(25*time.Minute))
	}
	sk := s.sink("sink_order_totals", "kafka", "append-only",
		"CREATE SINK sink_order_totals FROM mv_order_totals WITH (connector = 'kafka', properties.bootstrap.server = 'kafka-0.kafka-headless.kafka.svc:9092', topic = 'order-totals', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE JSON",
		totals, cns, 2, 1500, created.Add(31*time.Minute), [][2]string{{"connector", "kafka"}, {"properties.bootstrap.server", "kafka-0.kafka-headless.kafka.svc:9092"},
			{"topic", "order-totals"}, {"type", "append-only"}, {"force_append_only", "true"}})
	sk.Decoupled = s.Version.atLeast(2, 0)
	if !s.Version.atLeast(1, 5) {
		sk.Job.Definition = strings.Replace(sk.Job.Definition, " FORMAT PLAIN ENCODE JSON", "", 1)
	}
	s.noiseJobs(src.Job, created.Add(time.Hour))

	// Timeline: the meta store slows at stall, nothing is committed after
	// ckpt, meta is killed at crash and starts again at restart; its
	// recovery ends at recovered.
	tl := metaRestartAt(collect)
	stall, crash, restart, recovered := tl.stall, tl.crash, tl.restart, tl.recovered
	meta.Runs = []run{{start: created.Add(13 * time.Second), end: crash, reason: "Error", exit: 137}, {start: restart}}

	base := []float64{28211023, 27980412, 28330177, 28102950}
	_, resume := tl.replaySource(src, base, 1500, sp.catchup, s.Version.atLeast(2, 0))
	tl.stallBarriers(s, cns)

	for _, p := range s.Pods {
		if p.Other != "" || p == meta {
			continue
		}
		s.vStart(p, false, p.Runs[0].start.Add(sec(0.21+0.05*unit(p.Name))))
	}
	// Meta: the killed instance's whole log, and the new one's.
	first := meta.Runs[0].start.Add(sec(0.31))
	s.vStartMeta(meta, true, first)
	s.vRecoveryIn(meta, true, first.Add(sec(3.1)), 2.7, "")
	s.vStartMeta(meta, false, restart.Add(sec(0.38)))
	s.vRecoveryIn(meta, false, restart.Add(sec(3.4)), recovered.Sub(restart.Add(sec(3.4))).Seconds(), "")
	if s.Version.atLeast(1, 5) {
		s.eventf(restart.Add(sec(1.1)), "META_NODE_START", map[string]any{"metaNodeStart": map[string]any{
			"advertiseAddr": meta.host() + ":5690", "listenAddr": "0.0.0.0:5690",
			"opts": "MetaNodeOpts { listen_addr: \"0.0.0.0:5690\", advertise_addr: \"" + meta.host() + ":5690\", dashboard_host: Some(\"0.0.0.0:5691\"), prometheus_host: Some(\"0.0.0.0:1250\"), .. }"}})
		for i := 0; i < 8; i++ {
			s.vBarrierComplete(recovered.Add(sec(1.5+float64(i)*0.9)), 0.4+0.2*unit(fmt.Sprint("bc", i)))
		}
	}
	// Compute: the source's actors are rebuilt and reopen every split at the
	// checkpointed offset.
	s.vSourceResumed(src, recovered.Add(sec(0.21)), func(p int) int64 { return int64(resume(p)) },
		func(p int) int64 { return int64(base[p] - 2.1e7) }, func(p int) int64 { return int64(src.hw(p, recovered)) })

	s.event(meta, "Unhealthy", "Warning", fmt.Sprintf("Liveness probe failed: dial tcp %s:5690: i/o timeout", meta.IP), stall.Add(sec(28)), crash.Add(-sec(30)), 3)
	s.event(meta, "Killing", "Normal", "Container meta failed liveness probe, will be restarted", crash.Add(-sec(30)), crash.Add(-sec(30)), 1)
	s.event(meta, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), restart.Add(-sec(1)), restart.Add(-sec(1)), 1)
	s.event(meta, "Created", "Normal", "Created container: meta", restart.Add(-sec(1)), restart.Add(-sec(1)), 1)
	s.event(meta, "Started", "Normal", "Started container meta", restart, restart, 1)
}

// vStartMeta logs a meta start without the recovery that follows.
func (s *Sim) vStartMeta(meta *Pod, prev bool, t time.Time) { s.vStart(meta, prev, t) }

// vRecoveryIn is vRecovery into the previous or the current log.
func (s *Sim) vRecoveryIn(meta *Pod, prev bool, t time.Time, dur float64, reason string) {
	s.vRecovery(meta, prev, t, dur, reason)
}

// The three offset-replay variants.
func buildVOffsetReplay1(s *Sim) {
	s.buildReplayVariant(replaySpec{
		cluster: clusterSpec{name: "orders", namespace: "rw-orders", inst: operator, version: v1_5_0, logs: LogStyle{}, cloud: "aws", metaStore: "etcd",
			collect: baseTime.Add(26*time.Minute + 12*time.Second), scrapes: 4, every: 15 * time.Second, done: 80 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37"},
		kind:   "v1source", catchup: 6000,
	})
}

func buildVOffsetReplay2(s *Sim) {
	s.buildReplayVariant(replaySpec{
		cluster: clusterSpec{name: "ingest", namespace: "ingest", release: "ingest", chart: "risingwave-0.2.44", inst: helm, version: v2_5_0,
			logs: LogStyle{Prefix: true, PrevPrefix: true}, cloud: "gcp", metaStore: "postgresql",
			collect: baseTime.Add(44*time.Minute + 51*time.Second), scrapes: 4, every: 15 * time.Second, done: 80 * time.Second},
		shapes: Shapes{Log: fmtJSON, Kube: kubeJSON, Kubectl: "1.37"},
		kind:   "shared", catchup: 6000,
	})
}

func buildVOffsetReplay3(s *Sim) {
	s.buildReplayVariant(replaySpec{
		cluster: clusterSpec{name: "events", namespace: "events-prod", inst: operator, version: v3_0_0,
			logs: LogStyle{Prefix: true, PrevPrefix: true}, cloud: "aws", metaStore: "postgresql",
			collect: baseTime.Add(52*time.Minute + 3*time.Second), scrapes: 4, every: 15 * time.Second, done: 80 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37"},
		kind:   "table", catchup: 90000,
	})
}
