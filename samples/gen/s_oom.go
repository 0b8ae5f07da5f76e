package main

import (
	"fmt"
	"time"
)

// hm is a time of day on the sample day, 2026-11-29, UTC.
func hm(h, m, s int) time.Time { return time.Date(2026, 11, 29, h, m, s, 0, time.UTC) }

// buildOOMCrashLoop regenerates the hand-made sample in its spirit: compute-0
// OOMKilled six times and now in CrashLoopBackOff; an 8Gi limit under a
// 12 GiB RW_TOTAL_MEMORY_BYTES; jemalloc and RSS climbing to the limit with
// the LRU policy at aggressive while one table's agg cache grows; the culprit
// mv_user_sessions groups by user_id, session_id with no window. Operator,
// v3.0.3, text logs (the current log with kubectl's prefix, the previous
// without), metric level debug (real actor ids on relabelled metrics).
func buildOOMCrashLoop(s *Sim) {
	collect := hm(20, 42, 58)
	s.setup(clusterSpec{name: "rw-prod", namespace: "risingwave", inst: operator, version: v3_0_3,
		logs: LogStyle{Prefix: true, PrevPrefix: false, Digits: 9}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 6, every: 15 * time.Second, done: 93 * time.Second, logSince: 20 * time.Minute})
	s.Summary = "compute-0 OOM crash loop from an unbounded GROUP BY"
	s.Debug = true
	created := time.Date(2026, 11, 27, 9, 12, 31, 0, time.UTC)
	// The pods keep the names, addresses and nodes of the hand-made sample
	// this one replaces: collect/'s fake API server serves them.
	place := func(p *Pod, name, rev, node, hostIP, ip string) {
		if name != "" {
			p.Name, p.Rev = name, rev
		}
		p.Node, p.HostIP, p.IP = node, hostIP, ip
	}
	place(s.addPod("meta", 0, 1, "2Gi", created), "", "", "ip-10-0-1-42.ec2.internal", "10.0.1.42", "10.0.1.87")
	place(s.addPod("frontend", 0, 2, "4Gi", created.Add(time.Second)), "rw-prod-frontend-7d9c6b5f4-x2lqp", "7d9c6b5f4",
		"ip-10-0-1-42.ec2.internal", "10.0.1.42", "10.0.1.133")
	place(s.addPod("compactor", 0, 2, "4Gi", created.Add(2*time.Second)), "rw-prod-compactor-5b8d9c7f6-m4tzn", "5b8d9c7f6",
		"ip-10-0-2-58.ec2.internal", "10.0.2.58", "10.0.2.77")
	c0 := s.addPod("compute", 0, 4, "8Gi", created)
	c1 := s.addPod("compute", 1, 4, "8Gi", created)
	place(c0, "", "", "ip-10-0-3-17.ec2.internal", "10.0.3.17", "10.0.3.112")
	place(c1, "", "", "ip-10-0-2-58.ec2.internal", "10.0.2.58", "10.0.2.201")
	for i := range s.noisePodCount() {
		s.addPod("compute", 2+i, 4, "8Gi", created).Noise = true
	}
	s.assignWorkers(1)
	c1.WorkerID = 5
	for i, p := range s.noisePods() {
		p.WorkerID = 6 + i
	}
	for _, p := range s.pods("compute") {
		p.TotalMem = "12884901888"
	}
	cns := []*Pod{c0, c1}

	s.Cat = newCatalog(1003)
	c := s.Cat
	clicks := s.kafkaTable("clickstream", "clickstream", 4, "user_id BIGINT, session_id VARCHAR, page_id BIGINT, event_type VARCHAR, event_time TIMESTAMPTZ",
		cns, 4, time.Date(2026, 11, 27, 9, 40, 2, 0, time.UTC))
	c.nextID = 1007
	views := s.aggMV("mv_page_views_5m", "CREATE MATERIALIZED VIEW mv_page_views_5m AS SELECT window_start, page_id, count(*) AS views FROM TUMBLE(clickstream, event_time, INTERVAL '5 MINUTES') GROUP BY window_start, page_id",
		clicks.Job, cns, 4, 2400, time.Date(2026, 11, 27, 10, 2, 13, 904e6, time.UTC))
	views.Created = time.Date(2026, 11, 27, 10, 2, 14, 377e6, time.UTC)
	views.Plan = []string{
		"StreamMaterialize { columns: [window_start, page_id, views], stream_key: [window_start, page_id], pk_columns: [window_start, page_id], pk_conflict: NoCheck }",
		"└─StreamHashAgg { group_key: [$expr1, clickstream.page_id], aggs: [count] }",
		"  └─StreamExchange { dist: HashShard($expr1, clickstream.page_id) }",
		"    └─StreamProject { exprs: [TumbleStart(clickstream.event_time, '00:05:00':Interval) as $expr1, clickstream.page_id, clickstream._row_id] }",
		"      └─StreamTableScan { table: clickstream, columns: [page_id, event_time, _row_id], stream_scan_type: ArrangementBackfill, stream_key: [_row_id], pk: [_row_id], dist: UpstreamHashShard(_row_id) }",
	}
	c.nextID, c.nextFrag, c.nextActor = 1012, 24, 33
	sessions := c.job("materialized view", "mv_user_sessions", "CREATE MATERIALIZED VIEW mv_user_sessions AS SELECT user_id, session_id, count(*) FROM clickstream GROUP BY user_id, session_id",
		time.Date(2026, 11, 29, 19, 22, 41, 468e6, time.UTC))
	sessions.Created = time.Date(2026, 11, 29, 19, 23, 5, 311e6, time.UTC)
	sessions.Upstream = "clickstream"
	scan := c.frag(sessions, "scan", cns, 4, 2400, upstreamOf(clicks.Job))
	scan.Backfill = flat(0)
	agg := c.frag(sessions, "agg", []*Pod{c0, c0, c1, c1}, 4, 2300, scan).asMview()
	sessions.Plan = []string{
		"StreamMaterialize { columns: [user_id, session_id, count], stream_key: [user_id, session_id], pk_columns: [user_id, session_id], pk_conflict: NoCheck }",
		"└─StreamHashAgg { group_key: [clickstream.user_id, clickstream.session_id], aggs: [count] }",
		"  └─StreamExchange { dist: HashShard(clickstream.user_id, clickstream.session_id) }",
		"    └─StreamTableScan { table: clickstream, columns: [user_id, session_id, _row_id], stream_scan_type: ArrangementBackfill, stream_key: [_row_id], pk: [_row_id], dist: UpstreamHashShard(_row_id) }",
	}
	s.noiseJobs(clicks.Job, time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))

	kills := []time.Time{hm(20, 16, 30), hm(20, 19, 36), hm(20, 23, 10), hm(20, 26, 44), hm(20, 30, 58), hm(20, 36, 6), hm(20, 43, 58)}
	s.oomKill(c0, kills, true)
	cur := c0.current()
	agg.AggOn = map[*Pod]lin{c0: {{cur.start, 4.1e5}, {collect, 8.9e6}, {cur.end, 1.38e7}}}
	agg.AggDirty = lin{{cur.start, 1e4}, {cur.end, 9.6e5}}
	c0.m.rss = lin{{cur.start, gib(2.4)}, {collect, gib(6.5)}, {cur.end, gib(7.98)}}
	c0.m.jeActive = lin{{cur.start, gib(2.1)}, {collect, gib(5.9)}, {cur.end, gib(7.52)}}
	c0.m.lru = step{{cur.start, 0}, {hm(20, 42, 31), 1}, {hm(20, 42, 52), 2}, {hm(20, 43, 19), 3}}
	c0.m.cpu = flat(3.6)
	c0.m.inflight = lin{{cur.start, 0.4}, {cur.end, 3.9}}
	c1.m.rss = constant(gib(5.2))
	c1.m.lru = flat(1)

	// The compute node's last run, as both log files show it. Each run
	// registered with a new worker id; the last is 31.
	worker := func(i int) int { return 31 - 2*(len(c0.Runs)-1-i) }
	c0.WorkerID = 31
	s.startCompute(c0, true, cur.start.Add(123456789), worker(len(c0.Runs)-1))
	for i, a := range clicks.Frag.actorsOn(c0) {
		part := a.ID - clicks.Frag.Actors[0].ID
		off := int64(917884120 - 282687*part)
		s.fetchWatermarks(c0, true, cur.start.Add(5783657*time.Microsecond+time.Duration(i)*266*time.Microsecond), a, clicks, part, 0, off+389525, off)
	}

	meta := s.pod("meta")
	for i, k := range kills {
		if i >= len(c0.Runs) {
			break
		}
		w := worker(i)
		host := c0.host()
		err := fmt.Sprintf("gRPC request to stream service failed: Internal error: error reading a body from connection: connection reset")
		s.logf(meta, false, k.Add(sec(0.41)), "WARN", "risingwave_meta::barrier::rpc", nil, "get error from response stream",
			num("worker_id", w), disp("host", host+":5688"), disp("err", err))
		s.logf(meta, false, k.Add(sec(0.43)), "WARN", "risingwave_meta::barrier::worker", nil, "database entering recovery",
			num("database_id", 1), disp("err", fmt.Sprintf("get error from response stream, in worker node %d: %s", w, err)))
		s.eventf(k.Add(sec(0.42)), "COLLECT_BARRIER_FAIL", map[string]any{"collectBarrierFail": map[string]any{
			"error": fmt.Sprintf("get error from response stream, in worker node %d: %s", w, err)}})
		s.recovery(meta, k.Add(sec(0.5)), 9.5+3*unit(fmt.Sprint("rec", i)), "get error from response stream")
	}
	s.Meta.inFlight = constant(2)

	// Kubernetes events about compute-0.
	first := c0.Runs[1].start.Add(-sec(10))
	s.event(c0, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), first, cur.start.Add(-sec(1)), 6)
	s.event(c0, "Created", "Normal", "Created container: compute", first, cur.start.Add(-sec(1)), 6)
	s.event(c0, "Started", "Normal", "Started container compute", first, cur.start, 6)
	s.event(c0, "Unhealthy", "Warning", fmt.Sprintf("Readiness probe failed: dial tcp %s:5688: connect: connection refused", c0.IP), first.Add(sec(2)), cur.start.Add(sec(2)), 8)
	s.event(c0, "BackOff", "Warning", fmt.Sprintf("Back-off restarting failed container compute in pod %s_%s(%s)", c0.Name, s.Namespace, uuidFor(s.Dir+c0.Name)),
		kills[0].Add(sec(13)), s.Done, 27)
}

// buildHandmadeMinimal: what a customer gathers by hand with kubectl: pods,
// events and logs of one compute node in an OOM crash loop. No manifest, no
// metrics, no SQL. Hand-written StatefulSets (app.kubernetes.io/component
// only), v2.3.1, text logs without the kubectl prefix, no
// RW_TOTAL_MEMORY_BYTES in the pod spec.
func buildHandmadeMinimal(s *Sim) {
	s.Handmade = true
	collect := baseTime.Add(51 * time.Minute)
	s.setup(clusterSpec{name: "risingwave", namespace: "rw", inst: manual, version: v2_3_1,
		logs: LogStyle{Digits: 6}, cloud: "azure", metaStore: "sqlite",
		collect: collect, scrapes: 0, every: 15 * time.Second, done: 0})
	s.Summary = "customer-made: compute OOM loop"
	created := time.Date(2026, 11, 18, 16, 40, 9, 0, time.UTC)
	s.addPod("meta", 0, 1, "2Gi", created)
	s.addPod("frontend", 0, 1, "2Gi", created.Add(2*time.Second))
	s.addPod("compactor", 0, 1, "2Gi", created.Add(3*time.Second))
	cn := s.addPod("compute", 0, 2, "4Gi", created.Add(time.Second))
	s.assignWorkers(1)
	cn.TotalMem = ""
	s.Cat = newCatalog(1001)
	kills := []time.Time{collect.Add(-19 * time.Minute), collect.Add(-15*time.Minute - 20*time.Second), collect.Add(-11*time.Minute - 5*time.Second),
		collect.Add(-5*time.Minute - 48*time.Second), collect.Add(-62 * time.Second)}
	s.oomKill(cn, kills, true)
	ids := s.restartIDs(cn)
	cur := cn.current()
	s.startCompute(cn, true, cur.start.Add(sec(0.213)), cn.WorkerID)
	s.logf(cn, true, cur.start.Add(sec(4.8)), "INFO", "risingwave_stream::task::barrier_manager", nil, "update actors", num("count", 12))
	first := cn.Runs[1].start.Add(-sec(10))
	s.event(cn, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), first, cur.start.Add(-sec(1)), len(cn.Runs)-1)
	s.event(cn, "Created", "Normal", "Created container: compute", first, cur.start.Add(-sec(1)), len(cn.Runs)-1)
	s.event(cn, "Started", "Normal", "Started container compute", first, cur.start, len(cn.Runs)-1)
	s.event(cn, "BackOff", "Warning", fmt.Sprintf("Back-off restarting failed container compute in pod %s_%s(%s)", cn.Name, s.Namespace, uuidFor(s.Dir+cn.Name)),
		kills[0].Add(sec(12)), s.Done.Add(-sec(4)), 14)
	meta := s.pod("meta")
	for i, k := range kills {
		s.logf(meta, false, k.Add(sec(0.3)), "WARN", "risingwave_meta::barrier::rpc", nil,
			fmt.Sprintf("get error from control stream, in worker node %d: gRPC request to stream service failed: Internal error: error reading a body from connection: connection reset", ids[i]))
		s.recovery(meta, k.Add(sec(0.4)), 14.5, "get error from control stream")
	}
	s.LogSince = 20 * time.Minute
	s.logOnly = map[string]bool{cn.Name: true, meta.Name: true}
}
