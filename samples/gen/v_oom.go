package main

import (
	"fmt"
	"time"
)

// oomSpec is one oom-crash-loop variant.
type oomSpec struct {
	cluster  clusterSpec
	shapes   Shapes
	mem      string // the compute containers' memory limit
	totalMem string // RW_TOTAL_MEMORY_BYTES, "" for the limit
}

// buildOOMVariant: compute-0's state grows with an aggregation over
// unbounded keys until the kernel kills it (OOMKilled, exit 137), again and
// again; it sits in CrashLoopBackOff when the bundle is taken. Its last run
// lived through the scrapes: resident and jemalloc memory climb to the
// limit, the LRU manager evicts harder and the view's cached groups grow.
// Meta recovers after each kill, as the release does it.
func (s *Sim) buildOOMVariant(sp oomSpec) {
	s.varietySetup(sp.cluster, sp.shapes)
	collect := s.Collect
	created := collect.Add(-5*time.Hour - 41*time.Minute)
	cns := s.topo(2, 4, sp.mem, created, 1)
	for _, p := range s.pods("compute") {
		if sp.totalMem != "" {
			p.TotalMem = sp.totalMem
		}
	}
	c0, c1 := cns[0], cns[1]
	s.Cat = newCatalog(1001)
	c := s.Cat
	clicks := s.kafkaTable("clickstream", "web.clickstream", 4, "user_id BIGINT, session_id VARCHAR, page_id BIGINT, event_type VARCHAR, event_time TIMESTAMPTZ",
		cns, 2, created.Add(36*time.Minute))
	s.aggMV("mv_page_views_5m", "CREATE MATERIALIZED VIEW mv_page_views_5m AS SELECT window_start, page_id, count(*) AS views FROM TUMBLE(clickstream, event_time, INTERVAL '5 MINUTES') GROUP BY window_start, page_id",
		clicks.Job, cns, 2, 2400, created.Add(49*time.Minute))
	sessions := c.job("materialized view", "mv_user_sessions", "CREATE MATERIALIZED VIEW mv_user_sessions AS SELECT user_id, session_id, count(*) AS events FROM clickstream GROUP BY user_id, session_id",
		created.Add(3*time.Hour+12*time.Minute))
	sessions.Upstream = "clickstream"
	scan := c.frag(sessions, "scan", cns, 2, 2400, upstreamOf(clicks.Job))
	scan.Backfill = flat(0)
	agg := c.frag(sessions, "agg", []*Pod{c0, c0, c1, c1}, 4, 2300, scan).asMview()
	s.noiseJobs(clicks.Job, created.Add(time.Hour))

	kills := []time.Time{collect.Add(-41 * time.Minute), collect.Add(-33 * time.Minute), collect.Add(-24 * time.Minute),
		collect.Add(-15 * time.Minute), collect.Add(-10*time.Minute - 20*time.Second), collect.Add(58 * time.Second)}
	s.oomKill(c0, kills, true)
	ids := s.restartIDs(c0)
	cur := c0.current()
	agg.AggOn = map[*Pod]lin{c0: {{cur.start, 3.1e5}, {collect, 7.2e6}, {cur.end, 1.06e7}}}
	agg.AggDirty = lin{{cur.start, 1e4}, {cur.end, 8.1e5}}
	lim := c0.MemBytes
	c0.m.rss = lin{{cur.start, lim * 0.28}, {collect, lim * 0.83}, {cur.end, lim * 0.995}}
	c0.m.jeActive = lin{{cur.start, lim * 0.24}, {collect, lim * 0.78}, {cur.end, lim * 0.95}}
	c0.m.lru = step{{cur.start, 0}, {collect.Add(-25 * time.Second), 1}, {collect.Add(8 * time.Second), 2}, {collect.Add(37 * time.Second), 3}}
	c0.m.cpu = flat(3.5)
	c1.m.rss = constant(lim * 0.61)
	c1.m.lru = flat(1)

	for _, p := range s.Pods {
		if p.Other != "" || p == c0 {
			continue
		}
		r := p.Runs[len(p.Runs)-1]
		s.vStart(p, false, r.start.Add(sec(0.21+0.05*unit(p.Name))))
		if p.Component == "meta" {
			s.vRecovery(p, false, r.start.Add(sec(3.2)), 2.4+unit(p.Name+"rec"), "")
		}
	}
	// The killed node's last run, which both its log files show: its start
	// and its source reopening where the last checkpoint left it.
	start := cur.start.Add(sec(0.187))
	c0.WorkerID = ids[len(ids)-1]
	s.vStart(c0, true, start)
	resumeAt := start.Add(sec(5.8))
	var mine []int
	for p := 0; p < clicks.Partitions; p++ {
		if clicks.Frag.Actors[p%len(clicks.Frag.Actors)].Pod == c0 {
			mine = append(mine, p)
		}
	}
	off := func(p int) int64 { return int64(41877120 - 282687*p) }
	if !s.Version.atLeast(1, 6) || s.Version.atLeast(2, 1) {
		for _, a := range clicks.Frag.actorsOn(c0) {
			s.vResumeOne(c0, true, resumeAt, a, clicks, mine, off)
		}
	}

	// Meta after each kill: the node's stream breaks and meta recovers.
	meta := s.pod("meta")
	for i, k := range kills {
		if k.After(s.Done) {
			break
		}
		s.vNodeLost(meta, k.Add(sec(0.41)), ids[i], c0, 6.5+3*unit(fmt.Sprint("rec", i)))
	}

	first := c0.Runs[1].start.Add(-sec(10))
	n := len(c0.Runs) - 1
	s.event(c0, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), first, cur.start.Add(-sec(1)), n)
	createdMsg := "Created container: compute" // the kubelet's wording from Kubernetes 1.32
	if s.Shape.Kubectl == "1.28" {
		createdMsg = "Created container compute"
	}
	s.event(c0, "Created", "Normal", createdMsg, first, cur.start.Add(-sec(1)), n)
	s.event(c0, "Started", "Normal", "Started container compute", first.Add(sec(0.4)), cur.start, n)
	s.event(c0, "BackOff", "Warning", fmt.Sprintf("Back-off restarting failed container compute in pod %s_%s(%s)", c0.Name, s.Namespace, uuidFor(s.Dir+c0.Name)),
		kills[0].Add(sec(13)), s.Done.Add(-sec(3)), 23)
}

// vResumeOne logs one source actor reopening its splits (see vSourceResumed)
// into the previous or the current log.
func (s *Sim) vResumeOne(p *Pod, prev bool, t time.Time, a *Actor, src *Source, parts []int, off func(int) int64) {
	var mine []int
	for _, part := range parts {
		if src.Frag.Actors[part%len(src.Frag.Actors)] == a {
			mine = append(mine, part)
		}
	}
	spans := s.vActorSpans(a, 0, "Source", 1)
	split := func(part int) string {
		return fmt.Sprintf("KafkaSplit { topic: %q, partition: %d, start_offset: Some(%d), stop_offset: None }", src.Topic, part, off(part))
	}
	if !s.Version.atLeast(1, 6) {
		state := "Some(["
		for i, part := range mine {
			if i > 0 {
				state += ", "
			}
			state += "Kafka(" + split(part) + ")"
		}
		s.vlog(p, prev, t, "INFO", "risingwave_stream::executor::source::source_executor", s.at("src/stream/src/executor/source/source_executor.rs:389"), spans,
			"start with state", num("actor_id", a.ID), disp("state", state+"])"))
		return
	}
	for i, part := range mine {
		s.vlog(p, prev, t.Add(sec(0.0021*float64(i))), "INFO", "risingwave_connector::source::kafka::source::reader", "", spans,
			fmt.Sprintf("fetch kafka watermarks: low: 0, high: %d, split: %s", off(part)+389525, split(part)))
	}
}

// vNodeLost logs what meta prints when a compute node's stream breaks (the
// node was killed), and the recovery that follows: up to v2.2 a global
// failure recovery (failure_recovery{err} at v1.5.0
// src/meta/src/barrier/mod.rs:1016, the error text ours); from v2.3 the node's databases enter
// recovery on their own (src/meta/src/barrier/rpc.rs:301 at v2.3.0, :334 at
// v2.5.0 with worker_id and host, :503 at v3.0.0 with %worker_id; worker.rs
// `database entering recovery on node failure` :385 / :411 / :653;
// checkpoint/recovery.rs `database enter running` :490 / :497) and no
// `recovery start!` is logged.
func (s *Sim) vNodeLost(meta *Pod, t time.Time, worker int, p *Pod, dur float64) {
	v := s.Version
	err := "gRPC request failed: Unknown error: error reading a body from connection: connection reset"
	if !v.atLeast(2, 3) {
		s.vRecovery(meta, false, t.Add(sec(0.02)), dur, err)
		return
	}
	host := fmt.Sprintf("Some(HostAddress { host: %q, port: 5688 })", p.host())
	switch {
	case v.atLeast(3, 0):
		s.vlog(meta, false, t, "WARN", "risingwave_meta::barrier::rpc", "", nil, "get error from response stream",
			disp("worker_id", fmt.Sprint(worker)), disp("host", host), disp("err", err))
		s.vlog(meta, false, t.Add(sec(0.0004)), "WARN", "risingwave_meta::barrier::worker", "", nil, "database entering recovery on node failure",
			disp("worker_id", fmt.Sprint(worker)), disp("database_id", fmt.Sprint(s.Cat.DatabaseID)))
	default:
		s.vlog(meta, false, t, "WARN", "risingwave_meta::barrier::rpc", "", nil, "get error from response stream",
			num("worker_id", worker), disp("host", host), disp("err", err))
		s.vlog(meta, false, t.Add(sec(0.0004)), "WARN", "risingwave_meta::barrier::worker", "", nil, "database entering recovery on node failure",
			num("worker_id", worker), num("database_id", s.Cat.DatabaseID))
		s.vlog(meta, false, t.Add(sec(dur)), "INFO", "risingwave_meta::barrier::checkpoint::recovery", "", nil, "database enter running",
			disp("database_id", fmt.Sprintf("DatabaseId { database_id: %d }", s.Cat.DatabaseID)))
	}
	s.Meta.recoveries = append(s.Meta.recoveries, t.Add(sec(dur)))
	s.eventf(t.Add(sec(0.001)), "DATABASE_RECOVERY_START", map[string]any{"recovery": map[string]any{"databaseStart": map[string]any{"databaseId": s.Cat.DatabaseID}}})
	s.eventf(t.Add(sec(dur)), "DATABASE_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"databaseSuccess": map[string]any{"databaseId": s.Cat.DatabaseID}}})
}

// The three oom-crash-loop variants.
func buildVOOMCrashLoop1(s *Sim) {
	s.buildOOMVariant(oomSpec{
		cluster: clusterSpec{name: "clicks", namespace: "analytics", release: "clicks", chart: "risingwave-0.1.40", inst: helmLegacy, version: v1_5_0,
			logs: LogStyle{}, cloud: "gcp", metaStore: "etcd",
			collect: baseTime.Add(19*time.Minute + 7*time.Second), scrapes: 4, every: 15 * time.Second, done: 93 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeDescribe, Kubectl: "1.28"},
		mem:    "8Gi",
	})
}

func buildVOOMCrashLoop2(s *Sim) {
	s.buildOOMVariant(oomSpec{
		cluster: clusterSpec{name: "sessions", namespace: "rw-sessions", inst: operator, version: v2_5_0,
			logs: LogStyle{}, cloud: "aws", metaStore: "postgresql",
			collect: baseTime.Add(33*time.Minute + 48*time.Second), scrapes: 4, every: 15 * time.Second, done: 93 * time.Second},
		shapes:   Shapes{Log: fmtFull, Kube: kubeTable, Kubectl: "1.37"},
		mem:      "8Gi",
		totalMem: "12884901888",
	})
}

func buildVOOMCrashLoop3(s *Sim) {
	s.buildOOMVariant(oomSpec{
		cluster: clusterSpec{name: "clickhouse-feed", namespace: "feeds", release: "feed", chart: "risingwave-0.2.61", inst: helm, version: v3_0_0,
			logs: LogStyle{}, cloud: "azure", metaStore: "postgresql",
			collect: baseTime.Add(47*time.Minute + 29*time.Second), scrapes: 4, every: 15 * time.Second, done: 93 * time.Second},
		shapes: Shapes{Log: fmtJSON, Kube: kubeJSON, Kubectl: "1.37"},
		mem:    "16Gi",
	})
}
