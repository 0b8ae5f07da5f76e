package main

import (
	"fmt"
	"math"
	"time"
)

// buildOffsetReplay: the meta node hangs on a slow meta store, fails its
// liveness probe and restarts (restartCount 1); recovery resumes the Kafka
// source from the last checkpoint, below the offsets already consumed, and
// an append-only Kafka sink passes the replayed rows on. Helm chart 0.2.x,
// v2.4.2 (rw_streaming_jobs keyed by `job`), JSON logs (RISINGWAVE_CLOUD)
// with kubectl's prefix, checkpoint_frequency 10.
func buildOffsetReplay(s *Sim) {
	collect := baseTime.Add(47*time.Minute + 3*time.Second)
	s.setup(clusterSpec{name: "events", namespace: "rw-events", release: "events", chart: "risingwave-0.2.58", inst: helm, version: v2_4_2,
		logs: LogStyle{JSON: true, Prefix: true, PrevPrefix: true, Digits: 6}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 80 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "meta restart, Kafka source resumes below consumed offsets"
	s.Params["checkpoint_frequency"] = "10"
	created := hm(17, 41, 50)
	cns := s.topo(2, 8, "16Gi", created, 1)
	meta := s.pod("meta")
	meta.Liveness = true
	s.Cat = newCatalog(3001)
	src := s.kafkaSource("src_orders", "orders", 4, "order_id BIGINT, customer_id BIGINT, sku VARCHAR, amount DECIMAL, currency VARCHAR, created_at TIMESTAMPTZ",
		cns, 3, time.Date(2026, 11, 12, 10, 4, 40, 0, time.UTC), [2]string{"properties.sasl.password", redacted("events-sasl")},
		[2]string{"properties.sasl.username", "rw-ingest"}, [2]string{"properties.security.protocol", "SASL_SSL"}, [2]string{"properties.sasl.mechanism", "SCRAM-SHA-512"})
	customers := s.plainTable("customers", "customer_id BIGINT PRIMARY KEY, name VARCHAR, tier VARCHAR, country VARCHAR", cns, 3, 1,
		time.Date(2026, 11, 12, 10, 2, 2, 0, time.UTC))
	s.aggMV("mv_order_totals", "CREATE MATERIALIZED VIEW mv_order_totals AS SELECT customer_id, count(*) AS orders, sum(amount) AS revenue FROM src_orders GROUP BY customer_id",
		src.Job, cns, 3, 2000, time.Date(2026, 11, 12, 10, 9, 31, 0, time.UTC))
	enriched := s.joinMV("mv_orders_enriched", "CREATE MATERIALIZED VIEW mv_orders_enriched AS SELECT o.order_id, o.customer_id, c.tier, c.country, o.sku, o.amount, o.created_at FROM src_orders o JOIN customers c ON o.customer_id = c.customer_id",
		src.Job, customers, cns, 3, 2000, time.Date(2026, 11, 12, 10, 11, 5, 0, time.UTC))
	sk := s.sink("sink_orders_enriched", "kafka", "append-only",
		"CREATE SINK sink_orders_enriched FROM mv_orders_enriched WITH (connector = 'kafka', properties.bootstrap.server = 'b-1.events-msk.kafka.eu-west-1.amazonaws.com:9096', topic = 'orders-enriched', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE JSON",
		enriched, cns, 3, 2000, time.Date(2026, 11, 12, 10, 15, 44, 0, time.UTC), [][2]string{
			{"connector", "kafka"}, {"properties.bootstrap.server", "b-1.events-msk.kafka.eu-west-1.amazonaws.com:9096"},
			{"topic", "orders-enriched"}, {"type", "append-only"}, {"force_append_only", "true"},
			{"properties.sasl.username", "rw-ingest"}, {"properties.sasl.password", redacted("events-sasl")}})
	sk.Decoupled = true
	s.noiseJobs(src.Job, time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC))

	// Timeline: the meta store slows at stall, no checkpoint commits after
	// ckpt, the meta container is killed at crash and starts again at
	// restart; recovery ends at recovered.
	tl := metaRestartAt(collect)
	stall, ckpt, crash, restart, recovered := tl.stall, tl.ckpt, tl.crash, tl.restart, tl.recovered
	meta.Runs = []run{{start: created.Add(13 * time.Second), end: crash, reason: "Error", exit: 137}, {start: restart}}

	base := []float64{48211023, 47980412, 48330177, 48102950}
	live, resume := tl.replaySource(src, base, 1500, 6000, true)
	tl.stallBarriers(s, cns)
	s.Meta.recoveryDur = recovered.Sub(restart.Add(sec(2.9))).Seconds()
	for _, p := range cns {
		p.m.inflight = lin{{stall, 0.3}, {crash, 0.3}}
	}

	// Meta: the crashed instance (whole run) and the new one.
	s.metaStart(meta, true, meta.Runs[0].start.Add(sec(0.31)))
	s.recoveryIn(meta, meta.Runs[0].start.Add(sec(3.4)), 6.1, "", false)
	for i := 0; i < 6; i++ {
		t := stall.Add(sec(4 + float64(i)*11.3))
		s.logf(meta, true, t, "WARN", "sqlx::query", nil, "slow statement: execution time exceeded alert threshold",
			str("summary", "SELECT \"hummock_version_delta\".\"id\", ..."), str("db.statement", ""), num("rows_affected", 0), num("rows_returned", 0),
			disp("elapsed", fmt.Sprintf("%.6fs", 4.2+float64(i)*2.7)), disp("elapsed_secs", fmt.Sprintf("%.6f", 4.2+float64(i)*2.7)), disp("slow_threshold", "1s"))
	}
	s.logf(meta, true, crash.Add(-sec(9.8)), "WARN", "risingwave_meta::hummock::manager::commit_epoch", nil, "commit epoch is taking long",
		num("epoch", epochAt(ckpt.Truncate(time.Second))), disp("elapsed", "62.418s"))
	s.metaStart(meta, false, restart.Add(sec(0.38)))
	s.eventf(restart.Add(sec(1.1)), "META_NODE_START", map[string]any{"metaNodeStart": map[string]any{
		"advertiseAddr": meta.host() + ":5690", "listenAddr": "0.0.0.0:5690",
		"opts": "MetaNodeOpts { listen_addr: \"0.0.0.0:5690\", advertise_addr: \"" + meta.host() + ":5690\", dashboard_host: Some(\"0.0.0.0:5691\"), prometheus_listener_addr: Some(\"0.0.0.0:1250\"), backend: Some(Postgres), .. }"}})
	s.recoveryIn(meta, restart.Add(sec(3.4)), recovered.Sub(restart.Add(sec(3.4))).Seconds(), "", false)
	for i := 0; i < 8; i++ {
		t := recovered.Add(sec(2 + float64(i)*6.5))
		s.barrierComplete(t, 0.5+0.2*unit(fmt.Sprint("bc", i)))
	}

	// Compute: the source reopens every split at the checkpointed offset.
	for p := 0; p < src.Partitions; p++ {
		a := src.Frag.Actors[p%len(src.Frag.Actors)]
		t := recovered.Add(sec(0.21 + 0.013*float64(p)))
		s.fetchWatermarks(a.Pod, false, t, a, src, p, int64(base[p]-2.1e7), int64(src.hw(p, t)), int64(resume(p)))
	}
	for _, p := range cns {
		s.logf(p, false, crash.Add(sec(1.3+unit(p.Name))), "WARN", "risingwave_stream::task::barrier_worker", nil, "control stream reset by meta",
			disp("err", "gRPC request to meta failed: transport error: error reading a body from connection: connection reset"))
	}

	s.event(meta, "Unhealthy", "Warning", fmt.Sprintf("Liveness probe failed: dial tcp %s:5690: i/o timeout", meta.IP), stall.Add(sec(28)), crash.Add(-sec(30)), 3)
	s.event(meta, "Killing", "Normal", "Container meta failed liveness probe, will be restarted", crash.Add(-sec(30)), crash.Add(-sec(30)), 1)
	s.event(meta, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), restart.Add(-sec(1)), restart.Add(-sec(1)), 1)
	s.event(meta, "Created", "Normal", "Created container: meta", restart.Add(-sec(1)), restart.Add(-sec(1)), 1)
	s.event(meta, "Started", "Normal", "Started container meta", restart, restart, 1)

	var groups []consumerGroup
	for p := 0; p < src.Partitions; p++ {
		t := s.Done.Add(70 * time.Second)
		groups = append(groups, consumerGroup{group: fmt.Sprintf("rw-consumer-%d", src.Frag.ID), topic: "orders", part: p,
			current: int64(src.offset(p, t)) - 1400, end: int64(src.hw(p, t))})
	}
	for p := 0; p < 4; p++ {
		t := s.Done.Add(70 * time.Second)
		groups = append(groups, consumerGroup{group: "orders-archiver", topic: "orders", part: p, current: int64(live(p, t)) - 22000, end: int64(src.hw(p, t))})
	}
	s.groups = consumerGroups(groups)
}

// metaRestart is the offset-replay timeline around a collection at
// collect: the meta store slows at stall, nothing is committed after ckpt,
// meta is killed at crash, the source pauses at paused, meta starts again
// at restart and its recovery ends at recovered.
type metaRestart struct {
	collect, stall, ckpt, crash, paused, restart, recovered time.Time
}

func metaRestartAt(collect time.Time) metaRestart {
	return metaRestart{collect: collect, stall: collect.Add(-52 * time.Second), ckpt: collect.Add(-46 * time.Second),
		crash: collect.Add(20 * time.Second), paused: collect.Add(25 * time.Second),
		restart: collect.Add(32 * time.Second), recovered: collect.Add(41 * time.Second)}
}

// replaySource drives src through the restart: partition p is at base[p]
// at collect and grows by perSec; it stands still from paused, resumes at
// the checkpointed offset at recovered and catches up at catchup messages
// a second. withInputSince records when input resumed (v2.0+). live is
// where each partition would be without the restart, resume the offset it
// resumes from.
func (m metaRestart) replaySource(src *Source, base []float64, perSec, catchup float64, withInputSince bool) (live func(p int, t time.Time) float64, resume func(p int) float64) {
	live = func(p int, t time.Time) float64 { return base[p] + perSec*t.Sub(m.collect).Seconds() }
	resume = func(p int) float64 { return math.Floor(live(p, m.ckpt)) }
	src.perSec = perSec
	src.offsetFn = func(p int, t time.Time) float64 {
		switch {
		case t.Before(m.paused):
			return live(p, t)
		case t.Before(m.recovered):
			return live(p, m.paused)
		}
		return math.Min(live(p, t), resume(p)+catchup*t.Sub(m.recovered).Seconds())
	}
	src.rateFn = func(p int, t time.Time) float64 {
		switch {
		case t.Before(m.paused):
			return perSec
		case t.Before(m.recovered):
			return 0
		case resume(p)+catchup*t.Sub(m.recovered).Seconds() < live(p, t):
			return catchup
		}
		return perSec
	}
	src.hwFn = func(p int, t time.Time) float64 { return live(p, t) + 870 + float64(p*31) }
	if withInputSince {
		src.inputSince = func(p int, t time.Time) time.Time {
			if t.Before(m.recovered) {
				return time.Time{}
			}
			return m.recovered
		}
	}
	return live, resume
}

// stallBarriers sets meta's barrier curves and the compute nodes' barrier
// progress through the restart: barriers pile up from stall until the
// crash, none until recovered, then flow again.
func (m metaRestart) stallBarriers(s *Sim, cns []*Pod) {
	stall, ckpt, crash, restart, recovered := m.stall, m.ckpt, m.crash, m.restart, m.recovered
	far := m.collect.Add(10 * time.Minute)
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stall, 0}, {recovered.Add(sec(1)), 1}}, lat: constant(0.55)}
	s.Meta.allBarriers = lin{{stall, 2}, {crash, 2 + crash.Sub(stall).Seconds()}, {crash.Add(time.Millisecond), 0}, {recovered, 0}, {recovered.Add(sec(2)), 2}, {far, 2}}
	s.Meta.inFlight = lin{{stall, 1}, {crash, 1 + crash.Sub(stall).Seconds()}, {crash.Add(time.Millisecond), 0}, {recovered, 0}, {recovered.Add(sec(2)), 1}, {far, 1}}
	s.Meta.commitLag = lin{{ckpt, 1.2}, {crash, 1.2 + crash.Sub(ckpt).Seconds()}, {restart, 1.2 + restart.Sub(ckpt).Seconds()},
		{recovered.Add(sec(1)), 1.2}, {far, 1.2}}
	for _, p := range cns {
		p.m.progress = step{{baseTime, 1}, {stall, 0.9}, {crash, 0}, {recovered, 1}}
	}
}
