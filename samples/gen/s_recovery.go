package main

import (
	"fmt"
	"time"
)

func init() {
	scenarios = append(scenarios,
		scenario{"recovery-loop", 0x7ec0e7, buildRecoveryLoop},
		scenario{"oom-recovery-loop", 0x7ec00a, buildOOMRecoveryLoop})
}

// buildRecoveryLoop: the Kafka brokers' SASL credentials were rotated and
// the source's actor fails with a connector error; meta's failure recovery
// rebuilds it, it fails again while it is built, and every attempt fails
// (the free tier has no per-database isolation: the whole recovery fails).
// Nothing is committed since. Operator, v3.0.3, JSON logs with kubectl's
// prefix. recovery_failure_cnt stays 0 in the scrapes: the generator's meta
// model does not count failed attempts.
func buildRecoveryLoop(s *Sim) {
	collect := hm(9, 31, 12)
	s.setup(clusterSpec{name: "ledger", namespace: "payments", inst: operator, version: v3_0_3,
		logs: LogStyle{JSON: true, Prefix: true, PrevPrefix: true, Digits: 6}, cloud: "gcp", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 75 * time.Second, logSince: 15 * time.Minute})
	s.Summary = "a source's connector error makes every recovery attempt fail"
	created := time.Date(2026, 11, 20, 14, 2, 10, 0, time.UTC)
	cns := s.topo(2, 8, "16Gi", created, 1)
	s.Cat = newCatalog(5001)
	src := s.kafkaSource("src_payments", "payments", 4, "payment_id BIGINT, account_id BIGINT, amount DECIMAL, currency VARCHAR, created_at TIMESTAMPTZ",
		cns, 2, time.Date(2026, 11, 20, 14, 20, 3, 0, time.UTC), [2]string{"properties.sasl.password", redacted("ledger-sasl")},
		[2]string{"properties.sasl.username", "rw-ledger"}, [2]string{"properties.security.protocol", "SASL_SSL"}, [2]string{"properties.sasl.mechanism", "SCRAM-SHA-512"})
	s.aggMV("mv_account_balance", "CREATE MATERIALIZED VIEW mv_account_balance AS SELECT account_id, sum(amount) AS balance, count(*) AS payments FROM src_payments GROUP BY account_id",
		src.Job, cns, 2, 900, time.Date(2026, 11, 20, 14, 25, 41, 0, time.UTC))
	s.noiseJobs(src.Job, time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC))

	start := collect.Add(-4*time.Minute - 17*time.Second)
	a := src.Frag.Actors[0]
	kafkaErr := "Kafka error: Meta data fetch error: SaslAuthenticationFailed (Broker: SASL Authentication failed)"
	aerr := fmt.Sprintf("Actor %d exited unexpectedly: Executor error: Connector error: %s", a.ID, kafkaErr)
	meta := s.pod("meta")
	actorExit := func(t time.Time) {
		s.logf(a.Pod, false, t, "ERROR", "risingwave_stream::task::actor_manager",
			actorSpan(a.ID, epochAt(start.Add(-sec(1)).Truncate(time.Second)), identity("SourceExecutor", a.ID, 1)),
			"actor exit with error", disp("actor_id", fmt.Sprint(a.ID)), disp("error", aerr))
	}
	actorExit(start.Add(-sec(0.31)))
	s.logf(meta, false, start.Add(-sec(0.29)), "WARN", "risingwave_meta::barrier::rpc", nil, "get error from response stream",
		disp("worker_id", fmt.Sprint(a.Pod.WorkerID)), disp("host", fmt.Sprintf("Some(HostAddress { host: %q, port: 5688 })", a.Pod.host())), disp("err", aerr))
	reason := fmt.Sprintf("get error from response stream, in worker node %d: %s", a.Pod.WorkerID, aerr)
	fr := span{"failure_recovery", []field{disp("error", reason)}, ""}
	attempt := []span{fr, {"recovery_attempt", nil, ""}}
	s.logf(meta, false, start, "INFO", "risingwave_meta::barrier::worker", []span{fr}, "recovery start!")
	s.eventf(start, "GLOBAL_RECOVERY_START", map[string]any{"recovery": map[string]any{"globalStart": map[string]any{"reason": "failed over: " + reason}}})
	// Back-off 20 ms doubling to 5 s, jittered (src/meta/src/barrier/worker.rs);
	// building the actors and failing takes ~1.6 s each time.
	t, n := start.Add(sec(1.8)), 0
	for t.Before(s.Done) {
		actorExit(t.Add(-sec(0.41)))
		s.logf(meta, false, t.Add(-sec(0.38)), "WARN", "risingwave_meta::barrier::worker", attempt, "database reset during global recovery",
			disp("database_id", fmt.Sprint(s.Cat.DatabaseID)), disp("worker_id", fmt.Sprint(a.Pod.WorkerID)))
		msg := fmt.Sprintf("global recovery failed due to failure of databases [%d]", s.Cat.DatabaseID)
		s.logf(meta, false, t, "ERROR", "risingwave_meta::barrier::worker", attempt, "recovery failed", disp("error", msg))
		s.eventf(t, "GLOBAL_RECOVERY_FAILURE", map[string]any{"recovery": map[string]any{"globalFailure": map[string]any{
			"reason": "failed over: " + reason, "error": msg}}})
		n++
		t = t.Add(sec(min(5, 0.02*float64(int(1)<<min(n, 10)))*(0.5+unit(fmt.Sprint("rl", n))/2) + 1.6))
	}

	// Nothing is committed while meta retries.
	far := collect.Add(10 * time.Minute)
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {start, 0}}, lat: constant(0.5)}
	s.Meta.allBarriers = lin{{start, 2}, {start.Add(time.Millisecond), 0}, {far, 0}}
	s.Meta.inFlight = lin{{start, 1}, {start.Add(time.Millisecond), 0}, {far, 0}}
	s.Meta.commitLag = lin{{start, 1.1}, {far, 1.1 + far.Sub(start).Seconds()}}
	for _, p := range cns {
		p.m.progress = step{{baseTime, 1}, {start, 0}}
		p.m.cpu = flat(0.4 + 0.2*unit(p.Name))
	}
	src.rateFn = func(p int, at time.Time) float64 {
		if at.Before(start) {
			return 850
		}
		return 0
	}
	for i := 0; i < 4; i++ {
		s.barrierComplete(start.Add(-sec(40-float64(i)*10)), 0.4+0.1*unit(fmt.Sprint("rb", i)))
	}
}

// buildOOMRecoveryLoop: the compound of an OOM crash loop and a recovery
// loop. compute-1's hash join state outgrows its 8Gi limit after every
// restart; the first kills each end in a recovery that succeeds once the
// pod is back, but after the fifth the kubelet backs off for minutes
// (CrashLoopBackOff) and every recovery attempt fails on the node meta
// cannot reach. Both compute-oom-crash-loop (the cause) and recovery-loop
// (the effect, linked to it) fire. Helm chart, v2.6.1, text logs with
// kubectl's prefix.
func buildOOMRecoveryLoop(s *Sim) {
	collect := hm(16, 12, 40)
	s.setup(clusterSpec{name: "shipping", namespace: "shipping", release: "shipping", chart: "risingwave-0.2.58", inst: helm, version: v2_6_1,
		logs: LogStyle{Prefix: true, PrevPrefix: true, Digits: 6}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 75 * time.Second, logSince: 30 * time.Minute})
	s.Summary = "compute OOM crash loop keeps every recovery attempt failing"
	created := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	cns := s.topo(2, 4, "8Gi", created, 1)
	s.Cat = newCatalog(6001)
	parcels := s.kafkaTable("parcels", "parcels", 4, "parcel_id BIGINT, depot_id BIGINT, status VARCHAR, ts TIMESTAMPTZ",
		cns, 4, time.Date(2026, 11, 24, 10, 20, 0, 0, time.UTC))
	scans := s.kafkaTable("scans", "scans", 4, "parcel_id BIGINT, scanner VARCHAR, ts TIMESTAMPTZ",
		cns, 4, time.Date(2026, 11, 24, 10, 21, 0, 0, time.UTC))
	s.joinMV("mv_parcel_scans", "CREATE MATERIALIZED VIEW mv_parcel_scans AS SELECT p.parcel_id, p.depot_id, s.scanner, s.ts FROM parcels p JOIN scans s ON p.parcel_id = s.parcel_id",
		parcels.Job, scans.Job, cns, 4, 1200, time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC))
	s.noiseJobs(parcels.Job, time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))

	c1 := cns[1]
	kills := []time.Time{collect.Add(-19*time.Minute - 12*time.Second), collect.Add(-16*time.Minute - 3*time.Second),
		collect.Add(-12*time.Minute - 40*time.Second), collect.Add(-8*time.Minute - 51*time.Second), collect.Add(-4*time.Minute - 26*time.Second)}
	s.oomKill(c1, kills, true)
	ids := s.restartIDs(c1)
	// The container waits in CrashLoopBackOff: its last instance's log is the previous log.
	s.startCompute(c1, true, c1.current().start.Add(sec(0.2)), ids[len(ids)-1])
	c1.m.rss = lin{{c1.Runs[len(c1.Runs)-1].start, gib(3.1)}, {kills[len(kills)-1], gib(7.97)}}

	meta := s.pod("meta")
	resetErr := "gRPC request to stream service failed: Internal error: error reading a body from connection: connection reset"
	connErr := "gRPC request to stream service failed: Unavailable: error trying to connect: tcp connect error: Connection refused (os error 111)"
	host := fmt.Sprintf("HostAddress { host: %q, port: 5688 }", c1.host())
	var fails int
	for i, k := range kills {
		w := ids[i]
		s.logf(meta, false, k.Add(sec(0.41)), "WARN", "risingwave_meta::barrier::rpc", nil, "get error from response stream",
			num("worker_id", w), disp("host", "Some("+host+")"), disp("err", resetErr))
		reason := fmt.Sprintf("get error from response stream, in worker node %d: %s", w, resetErr)
		fr := span{"failure_recovery", []field{disp("error", reason)}, ""}
		attempt := []span{fr, {"recovery_attempt", nil, ""}}
		t0 := k.Add(sec(0.45))
		s.logf(meta, false, t0, "INFO", "risingwave_meta::barrier::worker", []span{fr}, "recovery start!")
		s.eventf(t0, "GLOBAL_RECOVERY_START", map[string]any{"recovery": map[string]any{"globalStart": map[string]any{"reason": "failed over: " + reason}}})
		back := s.Done
		if i+1 < len(c1.Runs) {
			back = c1.Runs[i+1].start.Add(sec(9))
		}
		t, n := t0.Add(sec(1.1)), 0
		for t.Before(back) {
			s.logf(meta, false, t, "ERROR", "risingwave_meta::barrier::rpc", attempt, "fail to create worker node",
				disp("err", connErr), disp("node_host", host))
			s.logf(meta, false, t.Add(sec(0.002)), "WARN", "risingwave_meta::barrier::worker", attempt, "failed to inject database initial barrier",
				num("database_id", s.Cat.DatabaseID), disp("e", fmt.Sprintf("unconnected worker node %d", w)))
			msg := fmt.Sprintf("global recovery failed due to failure of databases [%d]", s.Cat.DatabaseID)
			s.logf(meta, false, t.Add(sec(0.003)), "ERROR", "risingwave_meta::barrier::worker", attempt, "recovery failed", disp("error", msg))
			s.eventf(t.Add(sec(0.003)), "GLOBAL_RECOVERY_FAILURE", map[string]any{"recovery": map[string]any{"globalFailure": map[string]any{
				"reason": "failed over: " + reason, "error": msg}}})
			fails++
			n++
			t = t.Add(sec(min(5, 0.02*float64(int(1)<<min(n, 10))) * (0.5 + unit(fmt.Sprint("orl", i, n))/2)))
		}
		if i+1 < len(c1.Runs) {
			s.logf(meta, false, back.Add(-sec(3.2)), "INFO", "risingwave_meta::barrier::rpc", attempt, "add control stream worker", disp("node_host", host))
			s.logf(meta, false, back, "INFO", "risingwave_meta::barrier::worker", []span{fr}, "recovery success")
			s.eventf(back, "GLOBAL_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"globalSuccess": map[string]any{
				"reason": "failed over: " + reason, "durationSecs": float64(int(back.Sub(t0).Seconds()*1000)) / 1000, "runningDatabaseIds": []any{s.Cat.DatabaseID}}}})
			s.Meta.recoveries = append(s.Meta.recoveries, back)
		}
	}
	s.Meta.recoveryDur = 40

	// Barriers stop at the last kill.
	stop := kills[len(kills)-1]
	far := collect.Add(10 * time.Minute)
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stop, 0}}, lat: constant(0.6)}
	s.Meta.allBarriers = lin{{stop, 3}, {stop.Add(time.Millisecond), 0}, {far, 0}}
	s.Meta.inFlight = lin{{stop, 1}, {stop.Add(time.Millisecond), 0}, {far, 0}}
	s.Meta.commitLag = lin{{stop, 1.2}, {far, 1.2 + far.Sub(stop).Seconds()}}
	for _, p := range cns {
		p.m.progress = step{{baseTime, 1}, {stop, 0}}
	}

	first := c1.Runs[1].start.Add(-sec(10))
	cur := c1.current()
	s.event(c1, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), first, cur.start.Add(-sec(1)), len(kills)-1)
	s.event(c1, "Started", "Normal", "Started container compute", first, cur.start, len(kills)-1)
	s.event(c1, "BackOff", "Warning", fmt.Sprintf("Back-off restarting failed container compute in pod %s_%s(%s)", c1.Name, s.Namespace, uuidFor(s.Dir+c1.Name)),
		kills[1].Add(sec(12)), s.Done, 9)
	_ = fails
}
