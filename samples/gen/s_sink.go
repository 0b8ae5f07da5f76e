package main

import (
	"fmt"
	"time"
)

// buildSinkBlockage: a Kafka sink with sink_decouple off loses its broker;
// every attempt times out, the sink actors exit, barrier collection fails
// and meta recovers, again and again. Helm chart 0.2.x, v2.6.1, text logs
// with kubectl's prefix.
func buildSinkBlockage(s *Sim) {
	collect := baseTime.Add(38*time.Minute + 15*time.Second)
	s.setup(clusterSpec{name: "ingest", namespace: "ingest-prod", release: "ingest", chart: "risingwave-0.2.58", inst: helm, version: v2_6_1,
		logs: LogStyle{Prefix: true, Digits: 6}, cloud: "azure", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 8 * time.Minute})
	s.Summary = "non-decoupled Kafka sink failing, recovery loop"
	created := time.Date(2026, 11, 21, 13, 5, 30, 0, time.UTC)
	cns := s.topo(2, 4, "8Gi", created, 1)
	s.Cat = newCatalog(7001)
	pay := s.kafkaTable("payments", "payments", 6, "payment_id VARCHAR, merchant_id BIGINT, amount DECIMAL, currency VARCHAR, status VARCHAR, ts TIMESTAMPTZ",
		cns, 3, time.Date(2026, 11, 21, 13, 40, 0, 0, time.UTC))
	merchants := s.plainTable("merchants", "merchant_id BIGINT PRIMARY KEY, name VARCHAR, mcc VARCHAR, risk_tier VARCHAR", cns, 3, 1,
		time.Date(2026, 11, 21, 13, 41, 0, 0, time.UTC))
	s.aggMV("mv_payment_totals_1m", "CREATE MATERIALIZED VIEW mv_payment_totals_1m AS SELECT window_start, currency, sum(amount) AS total FROM TUMBLE(payments, ts, INTERVAL '1 MINUTE') GROUP BY window_start, currency",
		pay.Job, cns, 3, 1100, time.Date(2026, 11, 21, 14, 2, 0, 0, time.UTC))
	enriched := s.joinMV("mv_payments_enriched", "CREATE MATERIALIZED VIEW mv_payments_enriched AS SELECT p.payment_id, p.amount, p.currency, p.status, m.name AS merchant, m.risk_tier, p.ts FROM payments p JOIN merchants m ON p.merchant_id = m.merchant_id",
		pay.Job, merchants, cns, 3, 1100, time.Date(2026, 11, 21, 14, 5, 0, 0, time.UTC))
	broker := "kafka-broker-3.kafka-ext.svc.cluster.local:9092"
	sk := s.sink("sink_payments_out", "kafka", "append-only",
		"CREATE SINK sink_payments_out FROM mv_payments_enriched WITH (connector = 'kafka', properties.bootstrap.server = '"+broker+"', topic = 'payments-enriched', properties.message.timeout.ms = '30000', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE JSON",
		enriched, cns, 3, 1100, time.Date(2026, 11, 21, 14, 9, 0, 0, time.UTC), [][2]string{
			{"connector", "kafka"}, {"properties.bootstrap.server", broker}, {"topic", "payments-enriched"},
			{"properties.message.timeout.ms", "30000"}, {"type", "append-only"}, {"force_append_only", "true"}})
	sk.Decoupled = false
	s.noiseJobs(pay.Job, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))

	// The broker went away at outage; each cycle: recovery, the sink
	// produces, 30 s later its messages time out and the actors exit.
	outage := collect.Add(-9*time.Minute + 317*time.Millisecond)
	const cycle = 38.21
	sinkFrag := sk.Job.fragOf("sink")
	meta := s.pod("meta")
	s.sinkFailCycles(outage, collect.Add(10*time.Minute), cycle, func(k int, t, fail time.Time) {
		failed := sinkFrag.Actors[k%len(sinkFrag.Actors)]
		for i, a := range sinkFrag.Actors {
			p := a.Pod
			ep := epochAt(t.Add(sec(1)).Truncate(time.Second))
			spans := actorSpan(a.ID, ep, identity("SinkExecutor", a.ID, 3))
			s.logf(p, false, t.Add(sec(1.2+float64(i)*0.07)), "WARN", "librdkafka", nil,
				fmt.Sprintf("librdkafka: FAIL [thrd:%s/bootstrap]: %s/bootstrap: Connect to ipv4#10.2.7.14:9092 failed: Connection refused (after 0ms in state CONNECT, %d identical error(s) suppressed)", broker, broker, 3+k))
			s.logf(p, false, fail.Add(-sec(0.02)), "WARN", "risingwave_connector::sink::kafka", spans,
				"producing message (key None) to topic payments-enriched failed", disp("err", "Message production error: MessageTimedOut (Local: Message timed out)"))
			if a != failed {
				continue
			}
			errText := fmt.Sprintf("Executor error: Sink error: sink_id=%d, error: Kafka error: Message production error: MessageTimedOut (Local: Message timed out)", sk.ID)
			s.logf(p, false, fail, "ERROR", "risingwave_stream::task::actor_manager", nil, "actor exit with error", num("actor_id", a.ID), disp("error", errText))
			chain := fmt.Sprintf("get error from control stream, in worker node %d: gRPC request to stream service failed: Internal error: failed to collect barrier: Actor %d exited unexpectedly: %s", p.WorkerID, a.ID, errText)
			s.logf(meta, false, fail.Add(sec(0.06)), "WARN", "risingwave_meta::barrier::rpc", nil, "get error from control stream",
				num("worker_id", p.WorkerID), disp("host", p.host()+":5688"), disp("err", chain))
			s.logf(meta, false, fail.Add(sec(0.08)), "WARN", "risingwave_meta::barrier::worker", nil, "database entering recovery",
				num("database_id", 1), disp("err", chain))
			s.eventf(fail.Add(sec(0.07)), "COLLECT_BARRIER_FAIL", map[string]any{"collectBarrierFail": map[string]any{"error": chain}})
			s.eventf(fail.Add(sec(0.01)), "SINK_FAIL", map[string]any{"sinkFail": map[string]any{"sinkId": sk.ID, "sinkName": sk.Name, "connector": "kafka",
				"error": "Kafka error: Message production error: MessageTimedOut (Local: Message timed out)"}})
			s.recoveryIn(meta, fail.Add(sec(0.5)), 5.6+unit(fmt.Sprint(k)), "failed to collect barrier", true)
		}
	})
	sk.errRate = step{{baseTime, 0}, {outage.Add(sec(31)), 1 / cycle / 3}}
	sk.readLag = lin{{outage, 1}, {outage.Add(sec(30)), 16}}
	for _, p := range cns {
		p.m.progress = step{{baseTime, 1}, {outage, 0.45}}
		p.m.inflight = lin{{outage, 0.3}, {outage.Add(sec(10)), 16}}
		p.m.blockRatio = lin{{outage, 0.1}, {outage.Add(time.Minute), 0.93}}
	}
	s.await = func(s *Sim) string {
		now := s.Done.Add(25 * time.Second)
		start := outage
		for start.Add(sec(cycle)).Before(now) {
			start = start.Add(sec(cycle))
		}
		el := now.Sub(start.Add(sec(7))).Seconds()
		if el < 12 {
			el += cycle
		}
		ep := epochAt(now.Add(-sec(el)).Truncate(time.Second))
		d := awaitDump{actors: map[int]*atNode{}}
		for _, a := range sinkFrag.Actors {
			root := at(fmt.Sprintf("Actor %d: `%s`", a.ID, sk.Name), el+0.002,
				at(fmt.Sprintf("Epoch %d", ep), el,
					at(identity("Sink", a.ID, 3), el-0.001,
						at("sink_write_batch", el-0.004))))
			root.children[0].children[0].children[0].current = true
			d.actors[a.ID] = root
		}
		for _, p := range s.computes() {
			running := s.Cat.actorIDsOn(p)
			w := workerState{worker: p.WorkerID, connected: true, graph: 1, running: running}
			var mine []int
			for _, a := range sinkFrag.actorsOn(p) {
				mine = append(mine, a.ID)
			}
			w.epochs = []epochState{{epoch: ep, remaining: mine}, {epoch: ep + 65536000, prevMore: len(mine)}}
			d.workers = append(d.workers, w)
		}
		return d.String()
	}
}

// buildSinkDecoupledLag: a decoupled JDBC sink's database refuses
// connections; the sink retries from its log store with back-off while the
// log store lag grows, and barriers stay healthy. Operator, v3.0.3, JSON
// logs without the kubectl prefix.
func buildSinkDecoupledLag(s *Sim) {
	collect := baseTime.Add(55 * time.Minute)
	s.setup(clusterSpec{name: "lakehouse", namespace: "rw-lakehouse", inst: operator, version: v3_0_3,
		logs: LogStyle{JSON: true, Digits: 6}, cloud: "gcp", metaStore: "sqlite",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "decoupled JDBC sink retrying, log store lag growing, barriers healthy"
	created := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	cns := s.topo(2, 4, "16Gi", created, 1)
	s.Cat = newCatalog(6001)
	orders := s.kafkaTable("order_events", "order-events", 6, "order_id BIGINT, status VARCHAR, amount DECIMAL, region VARCHAR, ts TIMESTAMPTZ",
		cns, 3, time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC))
	facts := s.aggMV("mv_order_facts", "CREATE MATERIALIZED VIEW mv_order_facts AS SELECT order_id, last_value(status ORDER BY ts) AS status, max(amount) AS amount, max(ts) AS updated_at FROM order_events GROUP BY order_id",
		orders.Job, cns, 3, 900, time.Date(2026, 11, 26, 10, 40, 0, 0, time.UTC))
	s.aggMV("mv_region_daily", "CREATE MATERIALIZED VIEW mv_region_daily AS SELECT window_start, region, count(*) AS n FROM TUMBLE(order_events, ts, INTERVAL '1 DAY') GROUP BY window_start, region",
		orders.Job, cns, 3, 900, time.Date(2026, 11, 26, 10, 41, 0, 0, time.UTC))
	url := "jdbc:postgresql://orders-db.reporting.svc.cluster.local:5432/reporting"
	sk := s.sink("sink_orders_pg", "jdbc", "upsert",
		"CREATE SINK sink_orders_pg FROM mv_order_facts WITH (connector = 'jdbc', jdbc.url = '"+url+"', user = 'rw_writer', password = '***', table.name = 'order_facts', type = 'upsert', primary_key = 'order_id')",
		facts, cns[:2], 2, 450, time.Date(2026, 11, 26, 10, 45, 0, 0, time.UTC), [][2]string{
			{"connector", "jdbc"}, {"jdbc.url", url}, {"user", "rw_writer"}, {"password", redacted("orders-db")},
			{"table.name", "order_facts"}, {"type", "upsert"}, {"primary_key", "order_id"}})
	sk.Decoupled = true
	s.noiseJobs(orders.Job, time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC))

	fail := collect.Add(-11*time.Minute - 20*time.Second)
	far := collect.Add(10 * time.Minute)
	sk.readLag = lin{{fail, 0.9}, {far, far.Sub(fail).Seconds()}}
	sk.rewind = step{{baseTime, 0}, {fail, 0.2}, {fail.Add(sec(60)), 1.0 / 31}}
	sk.errRate = sk.rewind
	frag := sk.Job.fragOf("sink")
	for _, a := range frag.Actors {
		p := a.Pod
		delay := 1.0
		for t := fail.Add(sec(0.3 + 0.11*float64(a.ID%3))); t.Before(s.Done); {
			err := fmt.Sprintf("Sink error: sink_id=%d, error: JDBC sink error: org.postgresql.util.PSQLException: Connection to orders-db.reporting.svc.cluster.local:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.", sk.ID)
			ep := epochAt(fail.Truncate(time.Second))
			s.logf(p, false, t, "ERROR", "risingwave_connector_node", nil,
				fmt.Sprintf("%s ERROR [rw-sink-%d] com.risingwave.connector.JDBCSink:118 - failed to connect to %s", t.UTC().Format("2006-01-02 15:04:05,000"), a.ID, url))
			s.logf(p, false, t.Add(sec(0.004)), "WARN", "risingwave_stream::executor::sink",
				actorSpan(a.ID, ep, identity("SinkExecutor", a.ID, 2)),
				"reset log reader stream successfully after sink error",
				disp("error", err), num("executor_id", uint64(a.ID)<<32|2), num("sink_id", sk.ID))
			s.eventf(t.Add(sec(0.006)), "SINK_FAIL", map[string]any{"sinkFail": map[string]any{"sinkId": sk.ID, "sinkName": sk.Name, "connector": "jdbc", "error": err}})
			jitter := 0.8 + 0.4*unit(fmt.Sprint(a.ID, t.Unix()))
			t = t.Add(sec(delay * jitter))
			delay = min(delay*2, 30)
		}
	}
}

// sinkFailCycles drives meta's barriers through a sink whose broker went
// away at outage, until far: every cycle seconds recovery ends, the sink
// produces, 31 s later its messages time out and its actor exits, and
// barriers pile up until then. each writes the evidence of cycle k, from t
// to fail, for every cycle that failed before the collection ended.
func (s *Sim) sinkFailCycles(outage, far time.Time, cycle float64, each func(k int, t, fail time.Time)) {
	var all, inflight, lag lin
	for t, k := outage, 0; t.Before(far); t, k = t.Add(sec(cycle)), k+1 {
		fail := t.Add(sec(31))
		all = append(all, pt{t, 2}, pt{fail, 30}, pt{fail.Add(sec(0.5)), 0}, pt{fail.Add(sec(6.5)), 0})
		inflight = append(inflight, pt{t, 1}, pt{fail, 29}, pt{fail.Add(sec(0.5)), 0}, pt{fail.Add(sec(6.5)), 0})
		lag = append(lag, pt{t, 1.3}, pt{fail, 32}, pt{fail.Add(sec(6.5)), 38}, pt{fail.Add(sec(7)), 1.3})
		if !fail.After(s.Done) {
			each(k, t, fail)
		}
	}
	s.Meta.allBarriers, s.Meta.inFlight, s.Meta.commitLag = all, inflight, lag
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {outage, 0.45}}, lat: lin{{outage, 0.6}, {outage.Add(sec(10)), 17}, {far, 19}}}
}
