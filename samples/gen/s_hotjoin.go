package main

import (
	"fmt"
	"time"
)

func init() {
	scenarios = append(scenarios,
		scenario{"hot-join-key", 0x407701, buildHotJoinKey},
		scenario{"hot-key-barrier-stall", 0x407702, buildHotKeyBarrierStall})
}

// hotJoinLines logs the join actor a's high_join_amplification warnings
// (v3.0: src/stream/src/executor/hash_join.rs:1045-1053) at the times
// given, each matching n + step·i rows for key.
func (s *Sim) hotJoinLines(a *Actor, f *Fragment, key string, n, step int, times []time.Time) {
	for i, t := range times {
		s.logf(a.Pod, false, t, "WARN", "high_join_amplification",
			actorSpan(a.ID, epochAt(t.Add(-sec(2)).Truncate(time.Second)), identity("HashJoin", a.ID, 4)),
			"large rows matched for join key",
			num("matched_rows_len", n+step*i), disp("update_table_id", fmt.Sprint(f.StateTables[0])),
			disp("match_table_id", fmt.Sprint(f.StateTables[2])), disp("join_key", key),
			disp("actor_id", fmt.Sprint(a.ID)), disp("fragment_id", fmt.Sprint(f.ID)))
	}
}

// hotTimes returns the times from from (exclusive) up to to, period apart,
// each shifted by a few hundred milliseconds so they look logged.
func hotTimes(from, to time.Time, period time.Duration) []time.Time {
	var out []time.Time
	for i, t := 0, from.Add(period); t.Before(to); i, t = i+1, t.Add(period) {
		out = append(out, t.Add(time.Duration(137+(i*389)%700)*time.Millisecond))
	}
	return out
}

// buildHotJoinKey: a healthy cluster whose order-enrichment join has a hot
// key: guest orders all carry customer_id 0, and each update of it matches
// ~9,000 rows of the other side in one actor on compute-1. Barriers are
// still healthy (the fan-out is absorbed): hot-join-key fires alone.
// Operator, v3.0.3, text logs without kubectl's prefix.
func buildHotJoinKey(s *Sim) {
	collect := baseTime.Add(17*time.Minute + 5*time.Second)
	s.setup(clusterSpec{name: "shopfront", namespace: "shop", inst: operator, version: v3_0_3,
		logs: LogStyle{Digits: 6}, cloud: "gcp", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 60 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "a hot join key (customer_id 0) in mv_order_customer on compute-1; barriers healthy"
	created := time.Date(2026, 11, 20, 7, 31, 0, 0, time.UTC)
	cns := s.topo(3, 4, "16Gi", created, 1)
	s.Cat = newCatalog(3001)
	orders := s.kafkaTable("orders", "shop.orders", 6, "order_id BIGINT, customer_id BIGINT, total DECIMAL, status VARCHAR, ts TIMESTAMPTZ",
		cns, 6, created.Add(time.Hour))
	customers := s.plainTable("customers", "customer_id BIGINT PRIMARY KEY, name VARCHAR, segment VARCHAR", cns, 3, 3, created.Add(time.Hour+time.Minute))
	s.aggMV("mv_revenue_by_status", "CREATE MATERIALIZED VIEW mv_revenue_by_status AS SELECT status, sum(total) AS revenue FROM orders GROUP BY status",
		orders.Job, cns, 6, 600, created.Add(2*time.Hour))
	joined := s.joinMV("mv_order_customer", "CREATE MATERIALIZED VIEW mv_order_customer AS SELECT o.order_id, o.total, c.name, c.segment FROM orders o JOIN customers c ON o.customer_id = c.customer_id",
		orders.Job, customers, cns, 6, 540, created.Add(2*time.Hour+10*time.Minute))
	s.noiseJobs(orders.Job, created.Add(5*time.Hour))

	for _, p := range cns {
		p.m.cpu = flat(1.9 + 0.5*unit(p.Name))
		p.m.inflight = constant(0.31 + 0.1*unit(p.Name))
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: constant(0.62)}
	join := joined.fragOf("join")
	hot := join.actorsOn(cns[1])[0]
	s.hotJoinLines(hot, join, "OwnedRow([Some(Int64(0))])", 9113, 3, hotTimes(collect.Add(-9*time.Minute), s.Done, 47*time.Second))
	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 3 * time.Second)
		s.barrierComplete(t, 0.5+0.3*unit(fmt.Sprint("hj", i)))
	}
}

// buildHotKeyBarrierStall: the compound of hot-join-key and
// barrier-stall-slow-compute-node: tenant_id 'default' in the events ⋈
// tenants join of mv_tenant_activity matches ~1.2 million rows; the join
// actors on compute-2 fall behind, compute-2 collects no barrier while the
// others advance, barriers pile up and the committed epoch goes stale. The
// stall's finding names the hot key's as its cause. Operator, v3.0.3, text
// logs with kubectl's prefix.
func buildHotKeyBarrierStall(s *Sim) {
	collect := baseTime.Add(44*time.Minute + 20*time.Second)
	s.setup(clusterSpec{name: "saas-metrics", namespace: "analytics", inst: operator, version: v3_0_3,
		logs: LogStyle{Prefix: true, Digits: 9}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "a hot join key on compute-2 holds the global barrier"
	created := time.Date(2026, 11, 18, 12, 4, 0, 0, time.UTC)
	cns := s.topo(3, 4, "16Gi", created, 1)
	s.Cat = newCatalog(4101)
	events := s.kafkaTable("events", "saas.events", 6, "event_id BIGINT, tenant_id VARCHAR, user_id BIGINT, kind VARCHAR, ts TIMESTAMPTZ",
		cns, 6, created.Add(time.Hour))
	tenants := s.plainTable("tenants", "tenant_id VARCHAR PRIMARY KEY, plan VARCHAR, region VARCHAR", cns, 3, 2, created.Add(time.Hour+time.Minute))
	s.aggMV("mv_events_per_kind", "CREATE MATERIALIZED VIEW mv_events_per_kind AS SELECT kind, count(*) AS n FROM events GROUP BY kind",
		events.Job, cns, 6, 800, created.Add(2*time.Hour))
	activity := s.joinMV("mv_tenant_activity", "CREATE MATERIALIZED VIEW mv_tenant_activity AS SELECT e.event_id, e.kind, t.plan, t.region FROM events e JOIN tenants t ON e.tenant_id = t.tenant_id",
		events.Job, tenants, cns, 6, 700, created.Add(2*time.Hour+20*time.Minute))
	s.noiseJobs(events.Job, created.Add(6*time.Hour))

	slow := cns[2]
	stall := collect.Add(-200 * time.Second)
	far := collect.Add(10 * time.Minute)
	slow.m.cpu = step{{baseTime, 1.8}, {stall.Add(-50 * time.Second), 3.98}}
	slow.m.progress = step{{baseTime, 1}, {stall, 0}}
	slow.m.inflight = lin{{stall, 0.4}, {stall.Add(40 * time.Second), 36}, {far, 36 + far.Sub(stall.Add(40*time.Second)).Seconds()}}
	slow.m.epochLag = lin{{stall, 1.2}, {far, far.Sub(stall).Seconds()}}
	for _, p := range cns[:2] {
		p.m.cpu = flat(1.7 + 0.2*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stall, 0.85}}
		p.m.blockRatio = lin{{stall, 0.07}, {stall.Add(time.Minute), 0.71}}
	}
	join := activity.fragOf("join")
	for _, f := range activity.Frags {
		f.Rate = step{{baseTime, f.Rate.at(baseTime)}, {stall, f.Rate.at(baseTime) * 0.04}}
	}
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stall, 0}},
		lat: lin{{stall, 0.7}, {stall.Add(5 * time.Second), 5}, {far, far.Sub(stall).Seconds()}}}
	s.Meta.allBarriers = lin{{stall, 2}, {far, 2 + far.Sub(stall).Seconds()}}
	s.Meta.inFlight = lin{{stall, 1}, {far, far.Sub(stall).Seconds()}}
	s.Meta.commitLag = lin{{stall, 1.3}, {far, 1.3 + far.Sub(stall).Seconds()}}

	hot := join.actorsOn(slow)[0]
	s.hotJoinLines(hot, join, `OwnedRow([Some(Utf8("default"))])`, 1204311, 1873,
		hotTimes(stall.Add(-5*time.Minute), s.Done, 53*time.Second))
	for _, p := range cns {
		s.sourcePaused(p, events, stall.Add(20*time.Second), s.Done, 15*time.Second)
	}
	for i := 0; i < 10; i++ {
		t := stall.Add(-time.Duration(120+i*9) * time.Second)
		s.barrierComplete(t, 0.5+0.3*unit(fmt.Sprint("hk", i)))
	}
	s.report = true
	s.await = func(s *Sim) string { return joinStallAwaitTree(s, slow, activity, hot, stall) }
}

// joinStallAwaitTree: the slow worker's join actor (the hot key's) holds
// every epoch since the stall, working in its HashJoin; the other
// workers have collected theirs.
func joinStallAwaitTree(s *Sim, slow *Pod, job *Job, hot *Actor, stall time.Time) string {
	now := s.Done.Add(25 * time.Second)
	d := awaitDump{actors: map[int]*atNode{}}
	join := job.fragOf("join")
	stuckEpoch := epochAt(stall.Truncate(time.Second))
	elapsed := now.Sub(stall).Seconds()
	hj := at(identity("HashJoin", hot.ID, 4), elapsed-0.004)
	hj.current = true
	mat := at(identity("Materialize", hot.ID, 6), elapsed-0.002, at(identity("Project", hot.ID, 5), elapsed-0.003, hj))
	d.actors[hot.ID] = at(fmt.Sprintf("Actor %d: `%s`", hot.ID, job.Name), elapsed+0.002, at(fmt.Sprintf("Epoch %d", stuckEpoch), elapsed, mat))
	for _, p := range s.computes() {
		if p == slow {
			continue
		}
		for _, a := range join.actorsOn(p) {
			e := 0.2 + 0.5*unit(fmt.Sprint(a.ID))
			d.actors[a.ID] = actorTree(a, epochAt(now.Add(-sec(e)).Truncate(time.Second)), e,
				[]*atNode{at(identity("Materialize", a.ID, 6), e-0.001), at(identity("HashJoin", a.ID, 4), e-0.002), at(identity("Merge", a.ID, 3), e-0.003)})
		}
	}
	for _, p := range s.computes() {
		running := s.Cat.actorIDsOn(p)
		w := workerState{worker: p.WorkerID, connected: true, graph: 1, running: running}
		for i := 0; i < 4; i++ {
			e := epochAt(stall.Truncate(time.Second).Add(time.Duration(i) * time.Second))
			switch {
			case p != slow:
				w.epochs = append(w.epochs, epochState{epoch: e, collected: true})
			case i == 0:
				w.epochs = append(w.epochs, epochState{epoch: e, remaining: []int{hot.ID}})
			default:
				w.epochs = append(w.epochs, epochState{epoch: e, prevMore: 1})
			}
		}
		d.workers = append(d.workers, w)
	}
	return d.String()
}
