package main

import (
	"fmt"
	"time"
)

// buildBarrierStall: one compute node of three is CPU-saturated by a hot
// aggregation; its barrier progress goes flat while the other two advance,
// barriers pile up on meta and the committed epoch goes stale. Nightly
// (v3 labels: partial_graph), operator, text logs with kubectl's prefix.
func buildBarrierStall(s *Sim) {
	collect := baseTime.Add(31*time.Minute + 12*time.Second)
	s.setup(clusterSpec{name: "stream-prod", namespace: "streaming", inst: operator, version: vNightly,
		logs: LogStyle{Prefix: true, Digits: 9}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 10 * time.Minute})
	s.Summary = "compute-1 of 3 holds the global barrier"
	created := time.Date(2026, 11, 24, 9, 2, 11, 0, time.UTC)
	cns := s.topo(3, 4, "16Gi", created, 1)
	s.Cat = newCatalog(1001)
	par := 6
	trades := s.kafkaTable("trades", "trades", 6, "trade_id BIGINT, account_id BIGINT, symbol VARCHAR, price DECIMAL, qty BIGINT, side VARCHAR, ts TIMESTAMPTZ",
		cns, par, created.Add(2*time.Hour))
	accounts := s.plainTable("accounts", "account_id BIGINT PRIMARY KEY, desk VARCHAR, region VARCHAR", cns, 3, 2, created.Add(2*time.Hour+time.Minute))
	s.aggMV("mv_trade_volume_1m", "CREATE MATERIALIZED VIEW mv_trade_volume_1m AS SELECT window_start, symbol, sum(qty) AS volume FROM TUMBLE(trades, ts, INTERVAL '1 MINUTE') GROUP BY window_start, symbol",
		trades.Job, cns, par, 900, created.Add(3*time.Hour))
	vwap := s.aggMV("mv_symbol_vwap", "CREATE MATERIALIZED VIEW mv_symbol_vwap AS SELECT symbol, sum(price * qty) / sum(qty) AS vwap, count(*) AS trades FROM trades GROUP BY symbol",
		trades.Job, cns, par, 900, created.Add(3*time.Hour+5*time.Minute))
	s.joinMV("mv_desk_exposure", "CREATE MATERIALIZED VIEW mv_desk_exposure AS SELECT a.desk, t.symbol, sum(t.qty * t.price) AS notional FROM trades t JOIN accounts a ON t.account_id = a.account_id GROUP BY a.desk, t.symbol",
		trades.Job, accounts, cns, par, 700, created.Add(4*time.Hour))
	s.aggMV("mv_top_symbols_5m", "CREATE MATERIALIZED VIEW mv_top_symbols_5m AS SELECT window_start, symbol, count(*) AS n FROM TUMBLE(trades, ts, INTERVAL '5 MINUTES') GROUP BY window_start, symbol",
		trades.Job, cns, par, 600, created.Add(26*time.Hour))
	s.noiseJobs(trades.Job, created.Add(30*time.Hour))

	slow := cns[1]
	stall := collect.Add(-190 * time.Second)
	far := collect.Add(10 * time.Minute)
	slow.m.cpu = step{{baseTime, 1.7}, {stall.Add(-40 * time.Second), 3.97}}
	slow.m.progress = step{{baseTime, 1}, {stall, 0.025}}
	slow.m.inflight = lin{{stall, 0.35}, {stall.Add(40 * time.Second), 38}, {far, 38 + 0.975*far.Sub(stall.Add(40*time.Second)).Seconds()}}
	slow.m.epochLag = lin{{stall, 1.1}, {far, far.Sub(stall).Seconds()}}
	slow.m.rss = lin{{stall, gib(7.1)}, {far, gib(7.6)}}
	for _, p := range []*Pod{cns[0], cns[2]} {
		p.m.cpu = flat(1.6 + 0.2*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stall, 0.82}}
		p.m.blockRatio = lin{{stall, 0.08}, {stall.Add(time.Minute), 0.74}}
	}
	for _, f := range vwap.Frags {
		f.Rate = step{{baseTime, f.Rate.at(baseTime)}, {stall, f.Rate.at(baseTime) * 0.05}}
	}
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stall, 0.025}},
		lat: lin{{stall, 0.7}, {stall.Add(5 * time.Second), 5}, {far, 0.975 * far.Sub(stall).Seconds()}}}
	s.Meta.allBarriers = lin{{stall, 2}, {far, 2 + 0.975*far.Sub(stall).Seconds()}}
	s.Meta.inFlight = lin{{stall, 1}, {far, 0.975 * far.Sub(stall).Seconds()}}
	s.Meta.commitLag = lin{{stall, 1.3}, {far, 1.3 + 0.975*far.Sub(stall).Seconds()}}

	for _, p := range cns {
		s.sourcePaused(p, trades, stall.Add(20*time.Second), s.Done, 15*time.Second)
	}
	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 38 * time.Second)
		s.barrierComplete(t, 0.975*t.Sub(stall).Seconds())
	}
	for i := 0; i < 10; i++ {
		t := stall.Add(-time.Duration(120+i*9) * time.Second)
		s.barrierComplete(t, 0.5+0.3*unit(fmt.Sprint(i)))
	}
	s.report = true
	s.await = func(s *Sim) string { return stallAwaitTree(s, slow, vwap, stall) }
}

// stallAwaitTree: the slow worker's hash-agg actors hold every epoch since
// the stall; the other workers have collected theirs.
func stallAwaitTree(s *Sim, slow *Pod, vwap *Job, stall time.Time) string {
	now := s.Done.Add(25 * time.Second)
	d := awaitDump{actors: map[int]*atNode{}}
	agg := vwap.fragOf("agg")
	stuck := agg.actorsOn(slow)
	stuckEpoch := epochAt(stall.Truncate(time.Second))
	elapsed := now.Sub(stall).Seconds()
	for _, a := range stuck {
		hash := at(identity("HashAgg", a.ID, 8), elapsed-0.004, at(identity("Merge", a.ID, 7), 0.0004))
		hash.current = true
		mat := at(identity("Materialize", a.ID, 10), elapsed-0.002, at(identity("Project", a.ID, 9), elapsed-0.003, hash))
		root := at(fmt.Sprintf("Actor %d: `%s`", a.ID, vwap.Name), elapsed+0.002, at(fmt.Sprintf("Epoch %d", stuckEpoch), elapsed, mat))
		d.actors[a.ID] = root
	}
	for _, p := range s.computes() {
		if p == slow {
			continue
		}
		for _, a := range agg.actorsOn(p) {
			e := 0.2 + 0.5*unit(fmt.Sprint(a.ID))
			d.actors[a.ID] = actorTree(a, epochAt(now.Add(-sec(e)).Truncate(time.Second)), e,
				[]*atNode{at(identity("Materialize", a.ID, 10), e-0.001), at(identity("HashAgg", a.ID, 8), e-0.002), at(identity("Merge", a.ID, 7), e-0.003)})
		}
	}
	d.rpcs = map[string]*atNode{fmt.Sprintf("%d", 28791): {name: "collect_barrier (epoch " + fmt.Sprint(stuckEpoch) + ")", elapsed: elapsed, long: true}}
	for _, p := range s.computes() {
		running := s.Cat.actorIDsOn(p)
		w := workerState{worker: p.WorkerID, connected: true, graph: 1, running: running}
		for i := 0; i < 4; i++ {
			e := epochAt(stall.Truncate(time.Second).Add(time.Duration(i) * time.Second))
			if p != slow {
				w.epochs = append(w.epochs, epochState{epoch: e, collected: true})
				continue
			}
			if i == 0 {
				var ids []int
				for _, a := range stuck {
					ids = append(ids, a.ID)
				}
				w.epochs = append(w.epochs, epochState{epoch: e, remaining: ids})
			} else {
				w.epochs = append(w.epochs, epochState{epoch: e, prevMore: len(stuck)})
			}
		}
		d.workers = append(d.workers, w)
	}
	return d.String()
}

// buildBarrierStallV1: the same pattern on RisingWave v1.10: unlabelled
// barrier metrics, meta_barrier_send_duration_seconds, the legacy helm
// chart's labels, v1.10 catalogs (parallel units, rw_table_fragments),
// text logs without the kubectl prefix, an etcd meta store.
func buildBarrierStallV1(s *Sim) {
	collect := baseTime.Add(12*time.Minute + 40*time.Second)
	s.setup(clusterSpec{name: "analytics", namespace: "data-platform", release: "analytics", chart: "risingwave-0.1.52", inst: helmLegacy,
		version: v1_10_0, logs: LogStyle{Digits: 6}, cloud: "gcp", metaStore: "etcd",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 80 * time.Second, logSince: 15 * time.Minute})
	s.Summary = "compute-2 of 3 holds the global barrier (v1.10)"
	s.Debug = true
	created := time.Date(2026, 10, 2, 14, 20, 5, 0, time.UTC)
	cns := s.topo(3, 8, "32Gi", created, 1)
	etcd := &Pod{Name: s.fullname() + "-etcd-0", Component: "etcd", Other: "etcd", CPU: 1, Mem: "2Gi", MemBytes: gib(2), Created: created.Add(-time.Minute),
		Workload: s.fullname() + "-etcd", Rev: s.fullname() + "-etcd-6d8f7b5c9", Node: s.nodes[3], HostIP: "10.0.4.104", IP: "10.43.4.77"}
	etcd.Runs = []run{{start: etcd.Created.Add(9 * time.Second)}}
	s.Pods = append(s.Pods, etcd)
	s.Cat = newCatalog(2001)
	par := 3
	ev := s.kafkaTable("page_events", "web.page_events", 12, "event_id VARCHAR, user_id BIGINT, url VARCHAR, referrer VARCHAR, country VARCHAR, ts TIMESTAMP",
		cns, par, created.Add(26*time.Hour))
	s.aggMV("mv_pageviews_by_country", "CREATE MATERIALIZED VIEW mv_pageviews_by_country AS SELECT country, count(*) AS views FROM page_events GROUP BY country",
		ev.Job, cns, par, 1500, created.Add(27*time.Hour))
	sessions := s.aggMV("mv_session_paths", "CREATE MATERIALIZED VIEW mv_session_paths AS SELECT user_id, string_agg(url, ' > ' ORDER BY ts) AS path FROM page_events GROUP BY user_id",
		ev.Job, cns, par, 1500, created.Add(27*time.Hour+20*time.Minute))
	s.aggMV("mv_referrers_hourly", "CREATE MATERIALIZED VIEW mv_referrers_hourly AS SELECT window_start, referrer, count(*) AS n FROM TUMBLE(page_events, ts, INTERVAL '1 HOUR') GROUP BY window_start, referrer",
		ev.Job, cns, par, 1500, created.Add(28*time.Hour))
	s.noiseJobs(ev.Job, created.Add(30*time.Hour))

	slow := cns[2]
	stall := collect.Add(-4 * time.Minute)
	far := collect.Add(10 * time.Minute)
	slow.m.cpu = step{{baseTime, 3.1}, {stall.Add(-time.Minute), 7.96}}
	// It collected a barrier now and then at first; since shortly before
	// collection it is wedged: no barrier completes, so meta observes no
	// new barrier latencies and only the piled-up and stale gauges move.
	slow.m.progress = step{{baseTime, 1}, {stall, 0.018}, {collect.Add(-4 * time.Second), 0}}
	slow.m.inflight = lin{{stall, 0.4}, {stall.Add(50 * time.Second), 30}, {far, 43}}
	slow.m.epochLag = lin{{stall, 1}, {far, far.Sub(stall).Seconds()}}
	for _, p := range cns[:2] {
		p.m.cpu = flat(3.4 + 0.4*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stall, 0.9}}
	}
	s.Meta.barrier = histModel{rate: slow.m.progress,
		lat: lin{{stall, 0.9}, {stall.Add(5 * time.Second), 6}, {far, 0.982 * far.Sub(stall).Seconds()}}}
	s.Meta.send = histModel{rate: step{{baseTime, 1}, {stall, 1}}, lat: lin{{stall, 1.0}, {stall.Add(time.Minute), 1.02}}}
	s.Meta.allBarriers = lin{{stall, 3}, {far, 3 + 0.982*far.Sub(stall).Seconds()}}
	s.Meta.inFlight = lin{{stall, 2}, {far, 0.982 * far.Sub(stall).Seconds()}}
	s.Meta.commitLag = lin{{stall, 1.4}, {far, 1.4 + 0.982*far.Sub(stall).Seconds()}}
	for _, p := range cns {
		s.sourcePaused(p, ev, stall.Add(30*time.Second), s.Done, 17*time.Second)
	}
	for i := 0; i < 6; i++ {
		t := s.Done.Add(-time.Duration(5-i) * 55 * time.Second)
		s.barrierComplete(t, 0.982*t.Sub(stall).Seconds())
	}
	s.await = func(s *Sim) string {
		now := s.Done.Add(25 * time.Second)
		d := awaitDump{actors: map[int]*atNode{}, captured: true, noWorker: true}
		el := now.Sub(stall).Seconds()
		agg := sessions.fragOf("agg")
		for _, a := range agg.Actors {
			if a.Pod == slow {
				root := at(fmt.Sprintf("Actor %d: `%s`", a.ID, sessions.Name), el+0.003,
					at(fmt.Sprintf("Epoch %d", epochAt(stall.Truncate(time.Second))), el,
						at(identity("Materialize", a.ID, 6), el-0.001,
							at(identity("HashAgg", a.ID, 5), el-0.002,
								at(identity("Merge", a.ID, 4), 0.0021)))))
				root.children[0].children[0].children[0].current = true
				d.actors[a.ID] = root
				continue
			}
			e := 0.3 + 0.6*unit(fmt.Sprint(a.ID))
			d.actors[a.ID] = actorTree(a, epochAt(now.Add(-sec(e)).Truncate(time.Second)), e,
				[]*atNode{at(identity("Materialize", a.ID, 6), e-0.001), at(identity("HashAgg", a.ID, 5), e-0.002), at(identity("Merge", a.ID, 4), e-0.003)})
		}
		return d.String()
	}
}
