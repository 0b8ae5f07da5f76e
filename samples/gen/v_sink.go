package main

import (
	"fmt"
	"strings"
	"time"
)

// sinkSpec is one sink-blockage variant.
type sinkSpec struct {
	cluster clusterSpec
	shapes  Shapes
}

// buildSinkVariant: a Kafka sink with sink_decouple off loses its broker.
// Each cycle the cluster recovers, the sink produces, and 30 s later its
// messages time out: the sink actor exits with a Sink error, barrier
// collection fails on its node and meta recovers (globally up to v2.2, the
// database alone from v2.3, which logs no `recovery start!`). The sink is
// named in the error from v2.0 (`sink_id=N`); on v1.x only through its
// actor.
func (s *Sim) buildSinkVariant(sp sinkSpec) {
	// RUST_BACKTRACE unset: v1.x errors end in "disabled backtrace", later
	// ones carry no backtrace.
	s.noBacktrace = true
	s.varietySetup(sp.cluster, sp.shapes)
	collect := s.Collect
	created := collect.Add(-1*time.Hour - 48*time.Minute)
	cns := s.topo(2, 4, "8Gi", created, 1)
	s.Cat = newCatalog(7001)
	pay := s.kafkaTable("payments", "payments", 4, "payment_id VARCHAR, merchant_id BIGINT, amount DECIMAL, currency VARCHAR, ts TIMESTAMPTZ",
		cns, 2, created.Add(14*time.Minute))
	totals := s.aggMV("mv_merchant_totals", "CREATE MATERIALIZED VIEW mv_merchant_totals AS SELECT merchant_id, currency, sum(amount) AS total, count(*) AS payments FROM payments GROUP BY merchant_id, currency",
		pay.Job, cns, 2, 1100, created.Add(20*time.Minute))
	broker := "kafka-broker-3.kafka-ext.svc.cluster.local:9092"
	sk := s.sink("sink_merchant_totals", "kafka", "append-only",
		"CREATE SINK sink_merchant_totals FROM mv_merchant_totals WITH (connector = 'kafka', properties.bootstrap.server = '"+broker+"', topic = 'merchant-totals', properties.message.timeout.ms = '30000', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE JSON",
		totals, cns, 2, 1100, created.Add(26*time.Minute), [][2]string{{"connector", "kafka"}, {"properties.bootstrap.server", broker},
			{"topic", "merchant-totals"}, {"properties.message.timeout.ms", "30000"}, {"type", "append-only"}, {"force_append_only", "true"}})
	sk.Decoupled = false
	s.noiseJobs(pay.Job, created.Add(time.Hour))

	outage := collect.Add(-6*time.Minute + 317*time.Millisecond)
	const cycle = 38.21
	sinkFrag := sk.Job.fragOf("sink")
	meta := s.pod("meta")
	s.vStartAll()
	s.sinkFailCycles(outage, collect.Add(10*time.Minute), cycle, func(k int, t, fail time.Time) {
		a := sinkFrag.Actors[k%len(sinkFrag.Actors)]
		s.vSinkCycle(meta, a, sk, broker, t, fail, k, 5.6+unit(fmt.Sprint(k)))
	})
	sk.errRate = step{{baseTime, 0}, {outage.Add(sec(31)), 1 / cycle}}
	for _, p := range cns {
		p.m.progress = step{{baseTime, 1}, {outage, 0.45}}
		p.m.inflight = lin{{outage, 0.3}, {outage.Add(sec(10)), 16}}
		p.m.blockRatio = lin{{outage, 0.1}, {outage.Add(time.Minute), 0.93}}
	}
}

// vSinkCycle logs one failure of the sink and what follows it.
func (s *Sim) vSinkCycle(meta *Pod, a *Actor, sk *Sink, broker string, t, fail time.Time, k int, dur float64) {
	v := s.Version
	p := a.Pod
	ep := epochAt(t.Add(sec(1)).Truncate(time.Second))
	spans := s.vActorSpans(a, ep, "Sink", 3)
	// librdkafka's own logging, through the log crate (target librdkafka);
	// the JSON format carries log.* fields this text hides, left out here.
	if s.Shape.Log != fmtJSON {
		s.vlog(p, false, t.Add(sec(1.2)), "WARN", "librdkafka", "", nil,
			fmt.Sprintf("librdkafka: FAIL [thrd:%s/bootstrap]: %s/bootstrap: Connect to ipv4#10.2.7.14:9092 failed: Connection refused (after 0ms in state CONNECT, %d identical error(s) suppressed)", broker, broker, 3+k))
	}
	// The producer's queue fills (src/connector/src/sink/kafka.rs:472 at
	// v1.5.0, the error in the message; :501 v1.10.0, :502 v2.3.0, :547
	// v3.0.0, the error as a field).
	if v.atLeast(1, 6) {
		s.vlog(p, false, t.Add(sec(12.4)), "WARN", "risingwave_connector::sink::kafka", "", spans,
			"producing message (key None) to topic merchant-totals failed", disp("error", "Message production error: QueueFull (Local: Queue full)"))
	} else {
		s.vlog(p, false, t.Add(sec(12.4)), "WARN", "risingwave_connector::sink::kafka", "", spans,
			"producing message (key None) to topic merchant-totals failed, err MessageProduction(QueueFull).")
	}
	kafkaErr := "Kafka error: Message production error: MessageTimedOut (Local: Message timed out)"
	sinkErr := "Sink error: " + kafkaErr // src/stream/src/executor/error.rs:78 at v1.5.0, :69 at v1.10.0
	if v.atLeast(2, 0) {
		sinkErr = fmt.Sprintf("Sink error: sink_id=%d, error: %s", sk.ID, kafkaErr) // from v2.0.0-rc.1
	}
	execErr := "Executor error: " + sinkErr
	sk.fails = append(sk.fails, fail)
	if !v.atLeast(1, 6) {
		s.vSinkCycleV15(meta, a, fail, execErr, dur)
		return
	}
	// The actor exits (src/stream/src/task/stream_manager.rs:640 at v1.10.0,
	// :689 at v2.3.0; src/stream/src/task/actor_manager.rs with %actor_id
	// from v2.7).
	report := execErr
	switch {
	case v.atLeast(2, 7):
		s.vlog(p, false, fail, "ERROR", "risingwave_stream::task::actor_manager", "", nil, "actor exit with error",
			disp("actor_id", fmt.Sprint(a.ID)), disp("error", report))
	default:
		s.vlog(p, false, fail, "ERROR", "risingwave_stream::task::stream_manager", "", nil, "actor exit with error",
			num("actor_id", a.ID), disp("error", report))
	}
	exited := fmt.Sprintf("Actor %d exited unexpectedly: %s", a.ID, execErr) // src/stream/src/error.rs:75 at v1.10.0
	prevEpoch := epochAt(fail.Add(-sec(31)).Truncate(time.Second))
	w := p.WorkerID
	switch {
	case !v.atLeast(2, 3):
		// The compute node resets its control stream with the error
		// (src/stream/src/task/barrier_manager.rs:111, :747 at v1.10.0);
		// meta reads it from the stream (src/meta/src/barrier/rpc.rs:208),
		// merges it (:529-542) and recovers the cluster.
		cnErr := fmt.Sprintf("failed to collect barrier for epoch [%d]: %s", ep, exited)
		s.vlog(p, false, fail.Add(sec(0.0032)), "WARN", "risingwave_stream::task::barrier_manager", "", nil, "control stream reset with error",
			disp("error", "gRPC request failed: Internal error: "+cnErr))
		metaErr := "gRPC request to stream service failed: Internal error: " + cnErr
		node := fmt.Sprintf("WorkerNode { id: %d, r#type: ComputeNode, host: Some(HostAddress { host: %q, port: 5688 }), state: Running, parallel_units: [], property: None, transactional_id: Some(%d), resource: None, started_at: None }", w, p.host(), w)
		s.vlog(meta, false, fail.Add(sec(0.0041)), "WARN", "risingwave_meta::barrier::rpc", "", nil, "get error from response stream",
			disp("node", node), disp("err", metaErr))
		merged := fmt.Sprintf("get error from control stream: worker node %d, %s;", w, metaErr)
		s.eventf(fail.Add(sec(0.0045)), "COLLECT_BARRIER_FAIL", map[string]any{"collectBarrierFail": map[string]any{
			"error": merged, "prevEpoch": fmt.Sprint(prevEpoch), "curEpoch": fmt.Sprint(ep)}})
		s.vRecoveryV110(meta, fail.Add(sec(0.0052)), dur, merged, prevEpoch)
		return
	case v.atLeast(2, 8):
		// The partial graph is suspended and reported to meta
		// (src/stream/src/task/barrier_worker/mod.rs:1034 at v3.0.0).
		s.vlog(p, false, fail.Add(sec(0.0009)), "ERROR", "risingwave_stream::task::barrier_worker", "", nil, "suspend partial graph on error",
			disp("partial_graph_id", "1"), disp("failed_actor", fmt.Sprintf("Some(%d)", a.ID)), disp("message", "recv actor failure"), disp("err", exited))
	default:
		// src/stream/src/task/barrier_manager.rs:955 at v2.3.0: two message fields.
		s.vlog(p, false, fail.Add(sec(0.0009)), "ERROR", "risingwave_stream::task::barrier_manager", "", nil, "suspend database on error",
			num("database_id", s.Cat.DatabaseID), disp("failed_actor", fmt.Sprintf("Some(%d)", a.ID)), disp("message", "recv actor failure"), disp("err", exited))
	}
	// The sink executor reports the failure to meta's event log (v2.1+).
	s.eventf(fail.Add(-sec(0.002)), "SINK_FAIL", map[string]any{"sinkFail": map[string]any{"sinkId": sk.ID, "sinkName": sk.Name, "connector": "kafka",
		"error": kafkaErr}})
	// Meta recovers the database alone: worker.rs:413 at v2.3.0 (:680 with
	// %database_id at v3.0.0), checkpoint/recovery.rs:451 and :490 at v2.3.0.
	t0 := fail.Add(sec(0.0047))
	if v.atLeast(3, 0) {
		s.vlog(meta, false, t0, "WARN", "risingwave_meta::barrier::worker", "", nil, "database entering recovery",
			disp("database_id", fmt.Sprint(s.Cat.DatabaseID)))
	} else {
		s.vlog(meta, false, t0, "WARN", "risingwave_meta::barrier::worker", "", nil, "database entering recovery",
			num("database_id", s.Cat.DatabaseID))
		var ws []string
		for _, c := range s.computes() {
			ws = append(ws, fmt.Sprint(c.WorkerID))
		}
		dbg := fmt.Sprintf("DatabaseId { database_id: %d }", s.Cat.DatabaseID)
		s.vlog(meta, false, t0.Add(sec(dur*0.4)), "INFO", "risingwave_meta::barrier::checkpoint::recovery", "", nil, "database enter initializing",
			disp("remaining_workers", "{"+strings.Join(ws, ", ")+"}"), disp("database_id", dbg))
		s.vlog(meta, false, t0.Add(sec(dur)), "INFO", "risingwave_meta::barrier::checkpoint::recovery", "", nil, "database enter running",
			disp("database_id", dbg))
	}
	s.Meta.recoveries = append(s.Meta.recoveries, t0.Add(sec(dur)))
	s.eventf(t0.Add(sec(0.0003)), "DATABASE_RECOVERY_START", map[string]any{"recovery": map[string]any{"databaseStart": map[string]any{"databaseId": s.Cat.DatabaseID}}})
	s.eventf(t0.Add(sec(dur)), "DATABASE_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"databaseSuccess": map[string]any{"databaseId": s.Cat.DatabaseID}}})
}

// vRecoveryV110 is a v1.10 failure recovery with the attempt's `recovering
// mview progress` (src/meta/src/barrier/recovery.rs:365, :386 inside
// recovery_attempt :520, :537; span mod.rs:810 failure_recovery{error, prev_epoch}).
func (s *Sim) vRecoveryV110(meta *Pod, t time.Time, dur float64, reason string, prevEpoch uint64) {
	sp := span{name: "failure_recovery", target: "risingwave_meta::barrier", fields: []field{disp("error", reason), num("prev_epoch", prevEpoch)}}
	target := "risingwave_meta::barrier::recovery"
	s.vlog(meta, false, t, "INFO", target, "", []span{sp}, "recovery start!")
	s.vlog(meta, false, t.Add(sec(0.62)), "INFO", target, "", []span{sp, {name: "recovery_attempt", target: "risingwave_meta::barrier::recovery"}}, "recovering mview progress")
	s.vlog(meta, false, t.Add(sec(dur)), "INFO", target, "", []span{sp}, "recovery success", num("epoch", prevEpoch), disp("paused", "None"))
	s.Meta.recoveries = append(s.Meta.recoveries, t.Add(sec(dur)))
}

// vSinkCycleV15 is one failure on v1.0-v1.5: the actor's `actor exit` with
// the Debug of StreamExecutorError (its backtrace section; "disabled
// backtrace" without RUST_BACKTRACE) (src/stream/src/task/stream_manager.rs:700,
// src/stream/src/error.rs:68 `Executor error: {0:?}`, executor/error.rs:145);
// the compute node logs nothing more, its barrier collection fails with
// `Actor N exit unexpectedly: {:?}` (barrier_manager/managed_state.rs:179);
// meta warns `Failed to complete epoch N: {:?}` with MetaError's Debug
// (src/meta/src/barrier/mod.rs:958, src/meta/src/error.rs:126), records
// COLLECT_BARRIER_FAIL (mod.rs:917) and recovers inside
// failure_recovery{err, prev_epoch} (mod.rs:1016), whose multi-line error
// ends on the line that carries the message (recovery.rs:229, :241, :245, :367).
func (s *Sim) vSinkCycleV15(meta *Pod, a *Actor, fail time.Time, execErr string, dur float64) {
	dbg := execErr + "\n  backtrace of `StreamExecutorError`:\ndisabled backtrace"
	s.vlog(a.Pod, false, fail, "ERROR", "risingwave_stream::task::stream_manager", "", nil, "actor exit",
		disp("actor", fmt.Sprint(a.ID)), disp("error", dbg))
	metaErr := fmt.Sprintf("gRPC request to stream service failed: Internal error: Actor %d exit unexpectedly: %s", a.ID, dbg)
	prevEpoch := epochAt(fail.Add(-sec(31)).Truncate(time.Second))
	cur := prevEpoch + 65536000
	s.vlog(meta, false, fail.Add(sec(0.0038)), "WARN", "risingwave_meta::barrier", "", nil,
		fmt.Sprintf("Failed to complete epoch %d: %s\n  backtrace of `MetaError`:\ndisabled backtrace", prevEpoch, metaErr))
	s.eventf(fail.Add(sec(0.0036)), "COLLECT_BARRIER_FAIL", map[string]any{"collectBarrierFail": map[string]any{
		"error": metaErr, "prevEpoch": fmt.Sprint(prevEpoch), "curEpoch": fmt.Sprint(cur)}})
	sp := []span{{name: "failure_recovery", target: "risingwave_meta::barrier", fields: []field{disp("err", metaErr), num("prev_epoch", prevEpoch)}}}
	target := "risingwave_meta::barrier::recovery"
	t := fail.Add(sec(0.0051))
	s.vlog(meta, false, t, "INFO", target, "", sp, "recovery start!")
	s.vlog(meta, false, t.Add(sec(0.41)), "INFO", target, "", sp, "recovering mview progress")
	s.vlog(meta, false, t.Add(sec(0.43)), "INFO", target, "", sp, "recovered mview progress")
	s.vlog(meta, false, t.Add(sec(dur)), "INFO", target, "", sp, "recovery success", num("epoch", prevEpoch), disp("paused", "None"))
	s.Meta.recoveries = append(s.Meta.recoveries, t.Add(sec(dur)))
}

// The three sink-blockage variants.
func buildVSink1(s *Sim) {
	s.buildSinkVariant(sinkSpec{
		cluster: clusterSpec{name: "payments", namespace: "payments-prod", release: "payments", chart: "risingwave-0.1.40", inst: helmLegacy, version: v1_5_0,
			logs: LogStyle{}, cloud: "azure", metaStore: "etcd",
			collect: baseTime.Add(29*time.Minute + 44*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37"},
	})
}

func buildVSink2(s *Sim) {
	s.buildSinkVariant(sinkSpec{
		cluster: clusterSpec{name: "billing", namespace: "billing", inst: operator, version: v2_3_0,
			logs: LogStyle{}, cloud: "gcp", metaStore: "postgresql",
			collect: baseTime.Add(37*time.Minute + 9*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtJSON, Kube: kubeJSON, Kubectl: "1.37"},
	})
}

func buildVSink3(s *Sim) {
	s.buildSinkVariant(sinkSpec{
		cluster: clusterSpec{name: "settle", namespace: "settlement", release: "settle", chart: "risingwave-0.2.61", inst: helm, version: v3_0_0,
			logs: LogStyle{Prefix: true}, cloud: "aws", metaStore: "postgresql",
			collect: baseTime.Add(56*time.Minute + 21*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37"},
	})
}
