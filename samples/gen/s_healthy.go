package main

import (
	"fmt"
	"time"
)

// buildHealthyBusy: a busy, healthy cluster. High steady throughput, low
// barrier latency, every compute node advancing; a backfill that finished
// forty minutes ago; compute-2 restarted cleanly (Completed, exit 0) six
// minutes ago during a rolling restart, with one recovery; one transient
// sink error that recovered at once. Nothing should fire. Helm chart 0.2.x, v2.8.0, text
// logs with a +08:00 local offset behind kubectl's UTC prefix.
func buildHealthyBusy(s *Sim) {
	collect := baseTime.Add(8 * time.Minute)
	shanghai := time.FixedZone("", 8*3600)
	s.setup(clusterSpec{name: "telemetry", namespace: "telemetry", release: "telemetry", chart: "risingwave-0.2.58", inst: helm, version: v2_8_0,
		logs: LogStyle{Prefix: true, PrevPrefix: true, Zone: shanghai, Digits: 6}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 8 * time.Minute})
	s.Summary = "busy and healthy"
	created := time.Date(2026, 11, 23, 2, 10, 0, 0, time.UTC)
	cns := s.topo(3, 8, "32Gi", created, 1)
	s.Cat = newCatalog(8001)
	metricsSrc := s.kafkaTable("device_metrics", "device-metrics", 12, "device_id BIGINT, metric VARCHAR, value DOUBLE PRECISION, ts TIMESTAMPTZ",
		cns, 6, time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC))
	metricsSrc.perSec = 9000
	events := s.kafkaTable("device_events", "device-events", 4, "device_id BIGINT, kind VARCHAR, detail JSONB, ts TIMESTAMPTZ",
		cns, 4, time.Date(2026, 11, 23, 3, 1, 0, 0, time.UTC))
	events.perSec = 700
	s.aggMV("mv_fleet_summary", "CREATE MATERIALIZED VIEW mv_fleet_summary AS SELECT metric, avg(value) AS avg_value, count(*) AS samples FROM device_metrics GROUP BY metric",
		metricsSrc.Job, cns, 6, 13500, time.Date(2026, 11, 23, 3, 5, 0, 0, time.UTC))
	alerts := s.joinMV("mv_alerts_open", "CREATE MATERIALIZED VIEW mv_alerts_open AS SELECT e.device_id, e.kind, m.value, e.ts FROM device_events e JOIN device_metrics m ON e.device_id = m.device_id WHERE e.kind = 'alert'",
		events.Job, metricsSrc.Job, cns, 6, 350, time.Date(2026, 11, 23, 3, 8, 0, 0, time.UTC))
	health := s.aggMV("mv_device_health_1h", "CREATE MATERIALIZED VIEW mv_device_health_1h AS SELECT window_start, device_id, max(value) AS peak, count(*) AS n FROM TUMBLE(device_metrics, ts, INTERVAL '1 HOUR') GROUP BY window_start, device_id",
		metricsSrc.Job, cns, 6, 13500, collect.Add(-42*time.Minute))
	health.Created = collect.Add(-39*time.Minute - 17*time.Second)
	health.Plan = []string{
		"StreamMaterialize { columns: [window_start, device_id, peak, n], stream_key: [window_start, device_id], pk_columns: [window_start, device_id], pk_conflict: NoCheck }",
		"└─StreamHashAgg { group_key: [$expr1, device_metrics.device_id], aggs: [max(device_metrics.value), count] }",
		"  └─StreamExchange { dist: HashShard($expr1, device_metrics.device_id) }",
		"    └─StreamProject { exprs: [TumbleStart(device_metrics.ts, '01:00:00':Interval) as $expr1, device_metrics.device_id, device_metrics.value, device_metrics._row_id] }",
		"      └─StreamTableScan { table: device_metrics, columns: [device_id, value, ts, _row_id], stream_scan_type: ArrangementBackfill, stream_key: [_row_id], pk: [_row_id], dist: UpstreamHashShard(device_metrics._row_id) }",
	}
	sk := s.sink("sink_alerts_kafka", "kafka", "upsert",
		"CREATE SINK sink_alerts_kafka FROM mv_alerts_open WITH (connector = 'kafka', properties.bootstrap.server = 'kafka.messaging.svc:9092', topic = 'fleet-alerts', type = 'upsert', primary_key = 'device_id') FORMAT UPSERT ENCODE JSON",
		alerts, cns[1:2], 1, 350, time.Date(2026, 11, 23, 3, 9, 0, 0, time.UTC), [][2]string{
			{"connector", "kafka"}, {"properties.bootstrap.server", "kafka.messaging.svc:9092"}, {"topic", "fleet-alerts"},
			{"type", "upsert"}, {"primary_key", "device_id"}})
	sk.Decoupled = true
	s.noiseJobs(metricsSrc.Job, time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC))

	for _, p := range cns {
		p.m.cpu = flat(5.2 + 0.6*unit(p.Name))
		p.m.rss = constant(gib(17.5 + 3*unit(p.Name)))
		p.m.lru = flat(1)
		p.m.inflight = constant(0.38 + 0.1*unit(p.Name))
		p.m.blockRatio = constant(0.12 + 0.1*unit(p.Name))
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: constant(0.54)}

	// A clean rolling restart of compute-2, 25 minutes ago.
	rolled := cns[2]
	stop := collect.Add(-6*time.Minute - 12*time.Second)
	rolled.Runs = []run{{start: created.Add(16 * time.Second), end: stop, reason: "Completed", exit: 0}, {start: stop.Add(sec(3))}}
	s.logf(rolled, true, stop.Add(-sec(0.41)), "INFO", "risingwave_rt", nil, "received SIGTERM, shutting down")
	s.logf(rolled, true, stop.Add(-sec(0.33)), "INFO", "risingwave_compute::server", nil, "compute node is shutting down gracefully")
	s.logf(rolled, true, stop.Add(-sec(0.08)), "INFO", "risingwave_compute::server", nil, "compute node shutdown complete")
	s.startCompute(rolled, false, rolled.current().start.Add(sec(0.2)), 9)
	rolled.WorkerID = 9
	s.event(rolled, "Killing", "Normal", "Stopping container compute", stop.Add(-sec(0.5)), stop.Add(-sec(0.5)), 1)
	s.event(rolled, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), stop.Add(sec(2)), stop.Add(sec(2)), 1)
	s.event(rolled, "Created", "Normal", "Created container: compute", stop.Add(sec(2)), stop.Add(sec(2)), 1)
	s.event(rolled, "Started", "Normal", "Started container compute", stop.Add(sec(3)), stop.Add(sec(3)), 1)
	meta := s.pod("meta")
	s.logf(meta, false, stop.Add(sec(0.2)), "INFO", "risingwave_meta::controller::cluster", nil, "worker node is going to be deleted", num("worker_id", 6))
	s.recoveryIn(meta, stop.Add(sec(4.1)), 6.8, "adhoc recovery after worker change", false)

	// One transient sink error, retried once and recovered.
	blip := collect.Add(-3*time.Minute - 41*time.Second)
	sa := sk.Job.fragOf("sink").Actors[0]
	err := fmt.Sprintf("Sink error: sink_id=%d, error: Kafka error: Message production error: BrokerTransportFailure (Local: Broker transport failure)", sk.ID)
	s.logf(sa.Pod, false, blip, "WARN", "risingwave_stream::executor::sink", actorSpan(sa.ID, epochAt(blip.Truncate(time.Second)), identity("SinkExecutor", sa.ID, 2)),
		"reset log reader stream successfully after sink error", disp("error", err), num("executor_id", uint64(sa.ID)<<32|2), num("sink_id", sk.ID))
	s.eventf(blip.Add(sec(0.01)), "SINK_FAIL", map[string]any{"sinkFail": map[string]any{"sinkId": sk.ID, "sinkName": sk.Name, "connector": "kafka", "error": err}})
	sk.rewind = step{{baseTime, 0}, {blip, 1}, {blip.Add(sec(1)), 0}}
	sk.errRate = sk.rewind

	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 3 * time.Second)
		s.barrierComplete(t, 0.45+0.2*unit(fmt.Sprint("hb", i)))
	}
	s.await = func(s *Sim) string {
		now := s.Done.Add(25 * time.Second)
		d := awaitDump{actors: map[int]*atNode{}}
		for _, f := range health.Frags {
			for _, a := range f.Actors[:2] {
				e := 0.2 + 0.3*unit(fmt.Sprint(a.ID))
				d.actors[a.ID] = actorTree(a, epochAt(now.Add(-sec(e)).Truncate(time.Second)), e,
					[]*atNode{at(identity(f.Op, a.ID, 4), e-0.001), at(identity("Merge", a.ID, 3), e-0.002)})
			}
		}
		for _, p := range s.computes() {
			running := s.Cat.actorIDsOn(p)
			ep := epochAt(now.Add(-sec(1)).Truncate(time.Second))
			d.workers = append(d.workers, workerState{worker: p.WorkerID, connected: true, graph: 1, running: running,
				epochs: []epochState{{epoch: ep, collected: true}}})
		}
		return d.String()
	}
	var groups []consumerGroup
	t := s.Done.Add(70 * time.Second)
	for p := 0; p < metricsSrc.Partitions; p++ {
		groups = append(groups, consumerGroup{group: fmt.Sprintf("rw-consumer-%d", metricsSrc.Frag.ID), topic: "device-metrics", part: p,
			current: int64(metricsSrc.offset(p, t)) - 5200, end: int64(metricsSrc.hw(p, t))})
	}
	s.groups = consumerGroups(groups)
	s.Meta.recoveries = append(s.Meta.recoveries, stop.Add(sec(10.9)))
}
