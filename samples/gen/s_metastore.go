package main

import (
	"fmt"
	"time"
)

func init() {
	scenarios = append(scenarios,
		scenario{"meta-store-unavailable", 0x3e7a57, buildMetaStoreUnavailable},
		scenario{"meta-store-replay", 0x3e7a5e, buildMetaStoreReplay})
}

// poolTimeout is sea-orm 1.1's DbErr::ConnectionAcquire(Timeout) as meta
// prints it (From<sea_orm::DbErr> for MetaError, src/meta/src/error.rs).
const poolTimeout = "Failed to acquire connection from pool: Connection pool timed out"

// buildMetaStoreUnavailable: the PostgreSQL meta store (a managed database
// at its CPU limit) stops answering in time for about a minute. Meta's
// commits wait on its connection pool; an epoch fails, the failure recovery's
// first two attempts fail on the store too, then the third succeeds; the
// workers miss their heartbeats meanwhile. Meta keeps its leadership and does
// not restart. Helm chart, v2.7.1, text logs with kubectl's prefix.
func buildMetaStoreUnavailable(s *Sim) {
	collect := hm(13, 5, 30)
	s.setup(clusterSpec{name: "metrics", namespace: "observability", release: "metrics", chart: "risingwave-0.2.58", inst: helm, version: v2_7_1,
		logs: LogStyle{Prefix: true, PrevPrefix: true, Digits: 6}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 75 * time.Second, logSince: 20 * time.Minute})
	s.Summary = "the meta store stops answering for a minute: pool timeouts, failed recovery attempts, missed heartbeats"
	created := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	cns := s.topo(3, 8, "16Gi", created, 1)
	s.Cat = newCatalog(7001)
	hits := s.kafkaTable("page_hits", "page-hits", 6, "site_id BIGINT, path VARCHAR, status INT, ts TIMESTAMPTZ",
		cns, 6, time.Date(2026, 11, 26, 9, 20, 0, 0, time.UTC))
	s.aggMV("mv_site_errors_1m", "CREATE MATERIALIZED VIEW mv_site_errors_1m AS SELECT window_start, site_id, count(*) FILTER (WHERE status >= 500) AS errors FROM TUMBLE(page_hits, ts, INTERVAL '1 MINUTE') GROUP BY window_start, site_id",
		hits.Job, cns, 6, 5200, time.Date(2026, 11, 26, 9, 25, 0, 0, time.UTC))
	s.noiseJobs(hits.Job, time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC))

	meta := s.pod("meta")
	slow := collect.Add(-7*time.Minute - 12*time.Second)
	for i := 0; i < 5; i++ {
		t := slow.Add(sec(float64(i) * 7.3))
		e := fmt.Sprintf("%.6f", 3.1+float64(i)*2.9)
		s.logf(meta, false, t, "WARN", "sqlx::query", nil, "slow statement: execution time exceeded alert threshold",
			str("summary", "INSERT INTO \"hummock_version_delta\" (\"id\", ..."), str("db.statement", ""), num("rows_affected", 0), num("rows_returned", 0),
			disp("elapsed", e+"s"), disp("elapsed_secs", e), disp("slow_threshold", "1s"))
	}
	fail := slow.Add(sec(36.4))
	fr := span{"failure_recovery", []field{disp("error", poolTimeout)}, ""}
	attempt := []span{fr, {"recovery_attempt", nil, ""}}
	s.logf(meta, false, fail, "INFO", "risingwave_meta::barrier::worker", []span{fr}, "recovery start!")
	s.eventf(fail, "GLOBAL_RECOVERY_START", map[string]any{"recovery": map[string]any{"globalStart": map[string]any{"reason": "failed over: " + poolTimeout}}})
	for i, d := range []float64{30.1, 60.3} {
		t := fail.Add(sec(d))
		s.logf(meta, false, t, "ERROR", "risingwave_meta::barrier::worker", attempt, "recovery failed", disp("error", poolTimeout))
		s.eventf(t, "GLOBAL_RECOVERY_FAILURE", map[string]any{"recovery": map[string]any{"globalFailure": map[string]any{
			"reason": "failed over: " + poolTimeout, "error": poolTimeout}}})
		_ = i
	}
	s.recoveryAt(meta, fail, 66.8, poolTimeout)
	for _, p := range append(cns, s.pod("frontend"), s.pod("compactor")) {
		for k := 0; k < 5; k++ {
			s.logf(p, false, fail.Add(sec(4.2+float64(k)*10+unit(p.Name))), "WARN", "risingwave_rpc_client::meta_client", nil, "Failed to send_heartbeat: timeout")
		}
	}
	s.Meta.recoveryDur = 66.8
}

// recoveryAt logs the success of a recovery that started at t and lasted
// dur, and its GLOBAL_RECOVERY_SUCCESS event.
func (s *Sim) recoveryAt(p *Pod, t time.Time, dur float64, reason string) {
	fr := span{"failure_recovery", []field{disp("error", reason)}, ""}
	end := t.Add(sec(dur))
	s.logf(p, false, end, "INFO", "risingwave_meta::barrier::worker", []span{fr}, "recovery success")
	s.eventf(end, "GLOBAL_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"globalSuccess": map[string]any{
		"reason": "failed over: " + reason, "durationSecs": float64(int(dur*1000)) / 1000, "runningDatabaseIds": []any{s.Cat.DatabaseID}}}})
	s.Meta.recoveries = append(s.Meta.recoveries, end)
}

// buildMetaStoreReplay: the compound of a lost meta store, the meta restart
// it causes and the Kafka replay after it. The offset-replay sample's
// incident, with what its meta log lacked: the store's connection pool times
// out, the SQL election's campaign fails (`election error happened`, then
// `member <id> election timeout`) while meta hangs until its liveness probe
// kills it, and the compute nodes miss their heartbeats. Both
// meta-store-unavailable (the cause) and kafka-offset-replay-after-meta-restart
// (the effect, linked to it) fire.
func buildMetaStoreReplay(s *Sim) {
	buildOffsetReplay(s)
	s.Summary = "meta store lost -> meta restart -> Kafka source resumes below consumed offsets"
	meta := s.pod("meta")
	tl := metaRestartAt(s.Collect)
	member := uuidFor(s.Dir + "meta-member")
	s.logf(meta, true, tl.stall.Add(sec(33.1)), "ERROR", "risingwave_meta_node::server", nil, "election error happened", disp("error", poolTimeout))
	s.logf(meta, true, tl.stall.Add(sec(41.6)), "ERROR", "risingwave_meta::rpc::election::sql", nil, fmt.Sprintf("member %s election timeout", member))
	for _, p := range s.computes() {
		for k := 0; k < 4; k++ {
			s.logf(p, false, tl.stall.Add(sec(12+float64(k)*10+unit(p.Name))), "WARN", "risingwave_rpc_client::meta_client", nil, "Failed to send_heartbeat: timeout")
		}
	}
}
