package main

import (
	"fmt"
	"time"
)

// creatingMV adds a materialized view being created: a backfilling scan of
// the big table, a hash agg that materializes, a DDL progress string.
func (s *Sim) creatingMV(name, def string, from *Job, on []*Pod, par int, init time.Time, consumed, total, rowsPerSec float64) *Job {
	c := s.Cat
	j := c.job("materialized view", name, def, init)
	j.Status = "CREATING"
	j.Upstream = from.Name
	j.Progress = progressText(consumed, total)
	scan := c.frag(j, "scan", on, par, rowsPerSec/float64(par), upstreamOf(from))
	scan.Backfill = step{{baseTime, 0}, {init, rowsPerSec / float64(par)}}
	scan.Rate = step{{baseTime, 0}, {init, 40}}
	c.frag(j, "agg", on, par, rowsPerSec/float64(par)*0.8, scan).asMview()
	return j
}

// slowQuery logs the frontend's slow-query warning for a running statement
// (v2.x: target pgwire_slow_query_log inside a handle_query span).
func (s *Sim) slowQuery(fe *Pod, from, to time.Time, session int, sql string) {
	for t := from.Add(time.Minute); t.Before(to); t = t.Add(time.Minute) {
		s.logf(fe, false, t, "WARN", "pgwire_slow_query_log",
			[]span{{"handle_query", []field{str("mode", "simple query"), num("session_id", session), str("sql", sql)}, ""}},
			"slow query", disp("elapsed", fmt.Sprintf("%dms", t.Sub(from).Milliseconds())))
	}
}

// buildBackfillStarvation: a new materialized view backfills a 10M-row
// table with no rate limit; from its initialized_at every compute node's CPU
// saturates, barrier latency climbs for the live jobs and their sources
// pause. An unrelated source has a rate limit (rw_rate_limit is not empty).
// Operator, v2.7.1 (regular backfill, not snapshot), text logs without the
// kubectl prefix.
func buildBackfillStarvation(s *Sim) {
	collect := baseTime.Add(24*time.Minute + 30*time.Second)
	s.setup(clusterSpec{name: "insight", namespace: "analytics", inst: operator, version: v2_7_1,
		logs: LogStyle{Digits: 6}, cloud: "gcp", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 10 * time.Minute})
	s.Summary = "creating MV backfill starves live jobs"
	created := time.Date(2026, 11, 20, 7, 55, 0, 0, time.UTC)
	cns := s.topo(3, 4, "16Gi", created, 1)
	s.Cat = newCatalog(4001)
	orders := s.kafkaTable("orders", "orders-v2", 6, "order_id BIGINT, customer_id BIGINT, status VARCHAR, total DECIMAL, ts TIMESTAMPTZ",
		cns, 6, time.Date(2026, 11, 20, 8, 30, 12, 0, time.UTC))
	lines := s.plainTable("order_lines", "order_id BIGINT, line_no INT, product_id BIGINT, qty INT, price DECIMAL, PRIMARY KEY (order_id, line_no)",
		cns, 6, 90, time.Date(2026, 11, 20, 8, 31, 40, 0, time.UTC))
	products := s.plainTable("products", "product_id BIGINT PRIMARY KEY, category VARCHAR, brand VARCHAR", cns, 3, 1, time.Date(2026, 11, 20, 8, 32, 2, 0, time.UTC))
	s.aggMV("mv_sales_by_hour", "CREATE MATERIALIZED VIEW mv_sales_by_hour AS SELECT window_start, sum(total) AS revenue, count(*) AS orders FROM TUMBLE(orders, ts, INTERVAL '1 HOUR') GROUP BY window_start",
		orders.Job, cns, 6, 700, time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC))
	s.aggMV("mv_order_status", "CREATE MATERIALIZED VIEW mv_order_status AS SELECT status, count(*) AS n FROM orders GROUP BY status",
		orders.Job, cns, 6, 700, time.Date(2026, 11, 20, 9, 3, 10, 0, time.UTC))
	s.joinMV("mv_product_revenue", "CREATE MATERIALIZED VIEW mv_product_revenue AS SELECT p.category, sum(l.qty * l.price) AS revenue FROM order_lines l JOIN products p ON l.product_id = p.product_id GROUP BY p.category",
		lines, products, cns, 6, 90, time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC))
	s.noiseJobs(orders.Job, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))

	init := collect.Add(-6*time.Minute - 12*time.Second)
	const total, consumed = 10000000.0, 4217000.0
	rate := consumed / s.Done.Add(40*time.Second).Sub(init).Seconds()
	def := "CREATE MATERIALIZED VIEW mv_customer_ltv AS SELECT o.customer_id, count(DISTINCT o.order_id) AS orders, sum(l.qty * l.price) AS lifetime_value FROM order_lines l JOIN orders o ON l.order_id = o.order_id GROUP BY o.customer_id"
	ltv := s.creatingMV("mv_customer_ltv", def, lines, cns, 6, init, consumed, total, rate)
	ltv.Plan = []string{
		"StreamMaterialize { columns: [customer_id, orders, lifetime_value], stream_key: [customer_id], pk_columns: [customer_id], pk_conflict: NoCheck }",
		"└─StreamHashAgg { group_key: [orders.customer_id], aggs: [count(distinct orders.order_id), sum($expr1), count] }",
		"  └─StreamExchange { dist: HashShard(orders.customer_id) }",
		"    └─StreamProject { exprs: [orders.customer_id, orders.order_id, (order_lines.qty::Decimal * order_lines.price) as $expr1, order_lines.order_id, order_lines.line_no, orders._row_id] }",
		"      └─StreamHashJoin { type: Inner, predicate: order_lines.order_id = orders.order_id, output: all }",
		"        ├─StreamExchange { dist: HashShard(order_lines.order_id) }",
		"        │ └─StreamTableScan { table: order_lines, columns: [order_id, line_no, qty, price], stream_scan_type: ArrangementBackfill, stream_key: [order_id, line_no], pk: [order_id, line_no], dist: UpstreamHashShard(order_lines.order_id, order_lines.line_no) }",
		"        └─StreamExchange { dist: HashShard(orders.order_id) }",
		"          └─StreamTableScan { table: orders, columns: [order_id, customer_id, _row_id], stream_scan_type: ArrangementBackfill, stream_key: [_row_id], pk: [_row_id], dist: UpstreamHashShard(orders._row_id) }",
	}
	// A source throttle on an unrelated job: rw_rate_limit is not empty.
	s.rateLims = append(s.rateLims, [5]string{fmt.Sprint(orders.Frag.ID), "SOURCE", "SOURCE", fmt.Sprint(orders.Job.ID), "20000"})

	far := collect.Add(10 * time.Minute)
	for _, p := range cns {
		p.m.cpu = step{{baseTime, 1.4 + 0.3*unit(p.Name)}, {init.Add(sec(8)), 3.93 + 0.05*unit(p.Name+"c")}}
		p.m.inflight = lin{{init, 0.35}, {init.Add(time.Minute), 2.4}, {collect, 8.5}, {far, 21}}
		p.m.blockRatio = lin{{init, 0.1}, {init.Add(2 * time.Minute), 0.81}}
		p.m.rss = lin{{init, gib(6.2)}, {far, gib(9.8)}}
		p.m.lru = step{{baseTime, 0}, {init.Add(4 * time.Minute), 1}}
		p.m.epochLag = lin{{init, 1.1}, {collect, 9}, {far, 22}}
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: lin{{init, 0.7}, {init.Add(time.Minute), 2.6}, {collect, 9.2}, {far, 22}}}
	s.Meta.allBarriers = lin{{init, 2}, {collect, 10}, {far, 23}}
	s.Meta.inFlight = lin{{init, 1}, {collect, 9}, {far, 22}}
	s.Meta.commitLag = lin{{init, 1.3}, {collect, 10.4}, {far, 23.5}}
	for _, p := range cns {
		s.sourcePaused(p, orders, init.Add(150*time.Second), s.Done, 41*time.Second)
	}
	s.slowQuery(s.pod("frontend"), init, s.Done, 31, def)
	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 7 * time.Second)
		s.barrierComplete(t, s.Meta.barrier.lat.at(t))
	}
}

// buildCompoundIncident: a new materialized view's backfill (no rate limit)
// drives barrier latency up; minutes later one compute node OOMs and
// crash-loops, its memory manager unable to evict while barriers lag.
// Helm chart 0.2.x, v3.0.3, text logs with kubectl's prefix, scrapes 45 s
// apart over five minutes.
func buildCompoundIncident(s *Sim) {
	collect := baseTime.Add(18 * time.Minute)
	s.setup(clusterSpec{name: "shop", namespace: "shop-streaming", release: "shop", chart: "risingwave-0.2.58", inst: helm, version: v3_0_3,
		logs: LogStyle{Prefix: true, PrevPrefix: true, Digits: 9}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 60 * time.Second, done: 320 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "backfill raises barrier latency, then a compute node OOM-loops"
	created := time.Date(2026, 11, 25, 6, 12, 40, 0, time.UTC)
	cns := s.topo(3, 8, "16Gi", created, 1)
	s.Cat = newCatalog(5001)
	orders := s.kafkaTable("orders", "shop.orders", 6, "order_id BIGINT, customer_id BIGINT, placed_at TIMESTAMPTZ, channel VARCHAR",
		cns, 6, time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC))
	items := s.plainTable("order_items", "order_id BIGINT, product_id BIGINT, qty INT, price DECIMAL, PRIMARY KEY (order_id, product_id)",
		cns, 6, 120, time.Date(2026, 11, 25, 7, 1, 0, 0, time.UTC))
	s.aggMV("mv_orders_per_channel", "CREATE MATERIALIZED VIEW mv_orders_per_channel AS SELECT channel, count(*) AS n FROM orders GROUP BY channel",
		orders.Job, cns, 6, 800, time.Date(2026, 11, 25, 7, 20, 0, 0, time.UTC))
	s.aggMV("mv_revenue_15m", "CREATE MATERIALIZED VIEW mv_revenue_15m AS SELECT window_start, sum(qty * price) AS revenue FROM TUMBLE(order_items, ts, INTERVAL '15 MINUTES') GROUP BY window_start",
		items, cns, 6, 120, time.Date(2026, 11, 25, 7, 22, 0, 0, time.UTC))
	s.noiseJobs(orders.Job, time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC))

	init := collect.Add(-4 * time.Minute)
	const total, rate = 60000000.0, 45000.0
	def := "CREATE MATERIALIZED VIEW mv_basket_affinity AS SELECT a.product_id AS product_a, b.product_id AS product_b, count(*) AS baskets FROM order_items a JOIN order_items b ON a.order_id = b.order_id AND a.product_id < b.product_id GROUP BY a.product_id, b.product_id"
	consumed := rate * s.Done.Add(40*time.Second).Sub(init).Seconds() * 0.62
	basket := s.creatingMV("mv_basket_affinity", def, items, cns, 6, init, consumed, total, rate)
	basket.Plan = []string{
		"StreamMaterialize { columns: [product_a, product_b, baskets], stream_key: [product_a, product_b], pk_columns: [product_a, product_b], pk_conflict: NoCheck }",
		"└─StreamHashAgg { group_key: [order_items.product_id, order_items.product_id], aggs: [count] }",
		"  └─StreamExchange { dist: HashShard(order_items.product_id, order_items.product_id) }",
		"    └─StreamHashJoin { type: Inner, predicate: order_items.order_id = order_items.order_id AND (order_items.product_id < order_items.product_id), output: [order_items.product_id, order_items.product_id, order_items.order_id, order_items.order_id] }",
		"      ├─StreamExchange { dist: HashShard(order_items.order_id) }",
		"      │ └─StreamTableScan { table: order_items, columns: [order_id, product_id], stream_scan_type: ArrangementBackfill, stream_key: [order_id, product_id], pk: [order_id, product_id], dist: UpstreamHashShard(order_items.order_id, order_items.product_id) }",
		"      └─StreamExchange { dist: HashShard(order_items.order_id) }",
		"        └─StreamTableScan { table: order_items, columns: [order_id, product_id], stream_scan_type: ArrangementBackfill, stream_key: [order_id, product_id], pk: [order_id, product_id], dist: UpstreamHashShard(order_items.order_id, order_items.product_id) }",
	}

	victim := cns[1]
	kills := []time.Time{collect.Add(sec(152)), collect.Add(sec(199)), collect.Add(sec(246)), collect.Add(sec(301))}
	s.oomKill(victim, kills, true)
	far := collect.Add(15 * time.Minute)
	latency := lin{{init, 0.7}, {init.Add(time.Minute), 2.1}, {collect, 4.4}, {collect.Add(sec(45)), 8.3}, {collect.Add(sec(90)), 16.2},
		{collect.Add(sec(135)), 27.5}, {collect.Add(sec(200)), 34}, {far, 41}}
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {collect.Add(sec(100)), 0.6}}, lat: latency}
	s.Meta.allBarriers = lin{{init, 2}, {collect, 5}, {collect.Add(sec(135)), 28}, {far, 45}}
	s.Meta.inFlight = lin{{init, 1}, {collect, 4}, {collect.Add(sec(135)), 26}, {far, 43}}
	s.Meta.commitLag = lin{{init, 1.3}, {collect, 5.5}, {collect.Add(sec(135)), 29}, {far, 44}}
	for _, p := range cns {
		p.m.cpu = step{{baseTime, 3.1 + 0.4*unit(p.Name)}, {init.Add(sec(6)), 7.9}}
		p.m.inflight = lin{{init, 0.4}, {collect, 4}, {collect.Add(sec(135)), 26}, {far, 40}}
		p.m.blockRatio = lin{{init, 0.1}, {collect, 0.78}}
		if p != victim {
			p.m.rss = lin{{init, gib(9.2)}, {far, gib(12.9)}}
			p.m.lru = step{{baseTime, 0}, {collect, 1}, {collect.Add(sec(120)), 2}}
		}
	}
	agg := basket.fragOf("agg")
	var rss, je lin
	var lru step
	var entries lin
	for i, r := range victim.Runs {
		start := r.start
		if i == 0 {
			start = init
			rss = append(rss, pt{init, gib(9.4)}, pt{collect, gib(12.2)})
			je = append(je, pt{init, gib(8.7)}, pt{collect, gib(11.5)})
			entries = append(entries, pt{init, 1e5}, pt{collect, 2.9e6})
			lru = append(lru, pt{baseTime, 0}, pt{init.Add(sec(100)), 1}, pt{collect.Add(sec(-20)), 2}, pt{collect.Add(sec(40)), 3})
		} else {
			rss = append(rss, pt{start, gib(1.9)})
			je = append(je, pt{start, gib(1.4)})
			entries = append(entries, pt{start, 2e4})
			lru = append(lru, pt{start, 0}, pt{start.Add(sec(12)), 2}, pt{start.Add(sec(20)), 3})
		}
		if !r.end.IsZero() {
			rss = append(rss, pt{r.end.Add(-time.Millisecond), gib(15.9)})
			je = append(je, pt{r.end.Add(-time.Millisecond), gib(15.3)})
			entries = append(entries, pt{r.end.Add(-time.Millisecond), 7.4e6})
		}
	}
	victim.m.rss, victim.m.jeActive, victim.m.lru = rss, je, lru
	agg.AggOn = map[*Pod]lin{victim: entries}
	agg.AggDirty = lin{{init, 1e3}, {collect, 2.2e5}}

	meta := s.pod("meta")
	cur := victim.current()
	ids := s.restartIDs(victim)
	s.startCompute(victim, true, cur.start.Add(sec(0.144)), victim.WorkerID)
	for i, k := range kills {
		w := ids[i]
		err := "gRPC request to stream service failed: Internal error: error reading a body from connection: connection reset"
		s.logf(meta, false, k.Add(sec(0.38)), "WARN", "risingwave_meta::barrier::rpc", nil, "get error from response stream",
			num("worker_id", w), disp("host", victim.host()+":5688"), disp("err", err))
		s.eventf(k.Add(sec(0.4)), "COLLECT_BARRIER_FAIL", map[string]any{"collectBarrierFail": map[string]any{
			"error": fmt.Sprintf("get error from response stream, in worker node %d: %s", w, err)}})
		end := k.Add(sec(40))
		if i+1 < len(victim.Runs) {
			end = victim.Runs[i+1].start.Add(sec(6))
		}
		s.recovery(meta, k.Add(sec(0.5)), end.Sub(k).Seconds(), "get error from response stream")
	}
	s.slowQuery(s.pod("frontend"), init, s.Done, 12, def)
	for _, p := range cns {
		s.sourcePaused(p, orders, init.Add(3*time.Minute), kills[0], 37*time.Second)
	}

	first := victim.Runs[1].start.Add(-sec(10))
	n := len(victim.Runs) - 1
	s.event(victim, "Pulled", "Normal", fmt.Sprintf("Container image %q already present on machine", s.image()), first, cur.start.Add(-sec(1)), n)
	s.event(victim, "Created", "Normal", "Created container: compute", first, cur.start.Add(-sec(1)), n)
	s.event(victim, "Started", "Normal", "Started container compute", first, cur.start, n)
	s.event(victim, "Unhealthy", "Warning", fmt.Sprintf("Readiness probe failed: dial tcp %s:5688: connect: connection refused", victim.IP), first.Add(sec(2)), cur.start.Add(sec(2)), n+1)
	s.event(victim, "BackOff", "Warning", fmt.Sprintf("Back-off restarting failed container compute in pod %s_%s(%s)", victim.Name, s.Namespace, uuidFor(s.Dir+victim.Name)),
		kills[0].Add(sec(3)), s.Done.Add(-sec(2)), 6)
}
