package main

import (
	"fmt"
	"time"
)

// vSlowQuery logs the frontend's slow-query lines for a statement still
// running (v1.10+): INFO, target pgwire_slow_query_log, `slow query
// elapsed=Nms` once a period (60 s), inside the handle_query span whose sql
// is recorded later with Display (src/utils/pgwire/src/pg_protocol.rs:242
// span, :300-304 at v1.10.0, :347 at v2.3.0, :442 at HEAD). v1.0-v1.5 log
// it only in debug builds.
func (s *Sim) vSlowQuery(fe *Pod, from, to time.Time, session int, sql string) {
	if !s.Version.atLeast(1, 10) {
		return
	}
	sp := []span{{name: "handle_query", target: "pgwire_root_span",
		fields: []field{str("mode", "simple query"), num("session_id", session), disp("sql", sql)}}}
	for t := from.Add(time.Minute); t.Before(to); t = t.Add(time.Minute) {
		s.vlog(fe, false, t, "INFO", "pgwire_slow_query_log", "", sp, "slow query",
			disp("elapsed", fmt.Sprintf("%dms", t.Sub(from).Milliseconds())))
	}
}

// backfillSpec is one backfill-starvation variant.
type backfillSpec struct {
	cluster    clusterSpec
	shapes     Shapes
	background bool
}

// buildBackfillVariant: a new materialized view backfills a 10M-row table
// with no rate limit; from its start every compute node's CPU saturates,
// barrier latency climbs for the live jobs (p99 near 9 s) and their sources
// pause waiting for barriers; the frontend logs the CREATE as a slow query
// (v1.10+). Where the release has rw_rate_limit (v2.1+) it throttles only an
// unrelated source. The view is listed as being created wherever the
// release lists it: rw_ddl_progress and rw_table_fragments at every tag,
// rw_streaming_jobs from v2.3, rw_materialized_views from v2.3 (with status
// Creating from v2.8).
func (s *Sim) buildBackfillVariant(sp backfillSpec) {
	s.varietySetup(sp.cluster, sp.shapes)
	collect := s.Collect
	created := collect.Add(-2*time.Hour - 36*time.Minute)
	cns := s.topo(3, 4, "16Gi", created, 1)
	s.Cat = newCatalog(4001)
	orders := s.kafkaTable("orders", "shop.orders", 6, "order_id BIGINT, customer_id BIGINT, status VARCHAR, total DECIMAL, ts TIMESTAMPTZ",
		cns, 3, created.Add(21*time.Minute))
	lines := s.plainTable("order_lines", "order_id BIGINT, line_no INT, product_id BIGINT, qty INT, price DECIMAL, PRIMARY KEY (order_id, line_no)",
		cns, 3, 90, created.Add(22*time.Minute))
	s.aggMV("mv_sales_by_hour", "CREATE MATERIALIZED VIEW mv_sales_by_hour AS SELECT window_start, sum(total) AS revenue, count(*) AS orders FROM TUMBLE(orders, ts, INTERVAL '1 HOUR') GROUP BY window_start",
		orders.Job, cns, 3, 700, created.Add(40*time.Minute))
	s.noiseJobs(orders.Job, created.Add(time.Hour))

	init := collect.Add(-6*time.Minute - 12*time.Second)
	const total, consumed = 10000000.0, 4217000.0
	rate := consumed / s.Done.Add(40*time.Second).Sub(init).Seconds()
	def := "CREATE MATERIALIZED VIEW mv_customer_ltv AS SELECT o.customer_id, count(*) AS lines, sum(l.qty * l.price) AS lifetime_value FROM order_lines l JOIN orders o ON l.order_id = o.order_id GROUP BY o.customer_id"
	ltv := s.creatingMV("mv_customer_ltv", def, lines, cns, 3, init, consumed, total, rate)
	ltv.Rows, ltv.Total, ltv.Background = consumed, total, sp.background
	if s.Version.atLeast(2, 1) {
		s.rateLims = append(s.rateLims, [5]string{fmt.Sprint(orders.Frag.ID), "SOURCE", "SOURCE", fmt.Sprint(orders.Job.ID), "20000"})
	}

	far := collect.Add(10 * time.Minute)
	for _, p := range cns {
		p.m.cpu = step{{baseTime, 1.4 + 0.3*unit(p.Name)}, {init.Add(sec(8)), 3.93 + 0.05*unit(p.Name+"c")}}
		p.m.inflight = lin{{init, 0.35}, {init.Add(time.Minute), 2.1}, {collect, 4.8}, {far, 9}}
		p.m.blockRatio = lin{{init, 0.1}, {init.Add(2 * time.Minute), 0.81}}
		p.m.rss = lin{{init, gib(6.2)}, {far, gib(9.8)}}
		p.m.lru = step{{baseTime, 0}, {init.Add(4 * time.Minute), 1}}
		p.m.epochLag = lin{{init, 1.1}, {collect, 6}, {far, 11}}
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: lin{{init, 0.7}, {init.Add(time.Minute), 2.2}, {collect, 5.2}, {far, 6.5}}}
	s.Meta.allBarriers = lin{{init, 2}, {collect, 7}, {far, 9}}
	s.Meta.inFlight = lin{{init, 1}, {collect, 6}, {far, 8}}
	s.Meta.commitLag = lin{{init, 1.3}, {collect, 6.4}, {far, 8.5}}

	s.vStartAll()
	for _, p := range cns {
		s.vPaused(p, orders, init.Add(150*time.Second), s.Done, 41*time.Second)
	}
	s.vSlowQuery(s.pod("frontend"), init, s.Done, 31, def)
	if s.Version.atLeast(1, 5) {
		for i := 0; i < 10; i++ {
			t := s.Done.Add(-time.Duration(9-i) * 7 * time.Second)
			s.vBarrierComplete(t, s.Meta.barrier.lat.at(t))
		}
	}
	if s.Shape.Await == awaitV2_0Text {
		s.await = func(s *Sim) string { return s.backfillAwait(ltv) }
	}
}

// backfillAwait is a v2.0 await-tree dump while the view backfills: its
// scan actors reading the snapshot, each worker's newest barrier still
// being collected and the Create MView Progress of the backfill
// (src/stream/src/task/barrier_manager/progress.rs: ConsumingUpstream(epoch, rows)).
func (s *Sim) backfillAwait(j *Job) string {
	now := s.Done.Add(25 * time.Second)
	d := vdump{actors: map[int]*atNode{}}
	scan := j.fragOf("scan")
	for _, a := range scan.Actors {
		e := 2.1 + 1.4*unit(fmt.Sprint("bf", a.ID))
		leaf := at("store_iter", e-0.004)
		leaf.current = true
		d.actors[a.ID] = at(fmt.Sprintf("Actor %d: `%s`", a.ID, j.Name), now.Sub(j.Init).Seconds(),
			at(fmt.Sprintf("Epoch %d", epochAt(now.Add(-sec(e)).Truncate(time.Second))), e,
				at(s.awaitExec("StreamScan", a.ID, 2), e-0.001, leaf)))
	}
	for _, p := range s.computes() {
		var running, mine []int
		for _, a := range s.Cat.actors() {
			if a.Pod == p {
				running = append(running, a.ID)
			}
		}
		for _, a := range scan.actorsOn(p) {
			mine = append(mine, a.ID)
		}
		newest := epochAt(now.Add(-sec(1)).Truncate(time.Second))
		w := vworker{id: p.WorkerID, connected: true, running: running, graph: 0, progEpoch: newest}
		for k := 4; k >= 1; k-- {
			w.epochs = append(w.epochs, epochState{epoch: newest - uint64(k)*65536000, collected: true})
		}
		w.epochs = append(w.epochs, epochState{epoch: newest, remaining: mine})
		for _, id := range mine {
			w.progress = append(w.progress, fmt.Sprintf(">> Actor %d: ConsumingUpstream(epoch: %d, rows: %d), ", id, newest-65536000, 400000+int(unit(fmt.Sprint(id))*900000)))
		}
		d.workers = append(d.workers, w)
	}
	return d.output(vworker.v20State)
}

// The three backfill-starvation variants.
func buildVBackfill1(s *Sim) {
	s.buildBackfillVariant(backfillSpec{
		cluster: clusterSpec{name: "shop", namespace: "shop-analytics", release: "shop", chart: "risingwave-0.1.62", inst: helmLegacy, version: v1_10_x,
			logs: LogStyle{Prefix: true}, cloud: "aws", metaStore: "etcd",
			collect: baseTime.Add(24*time.Minute + 30*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37"},
	})
}

func buildVBackfill2(s *Sim) {
	s.buildBackfillVariant(backfillSpec{
		cluster: clusterSpec{name: "insight", namespace: "analytics", inst: operator, version: v2_0_7,
			logs: LogStyle{}, cloud: "gcp", metaStore: "postgresql",
			collect: baseTime.Add(31*time.Minute + 15*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37", Await: awaitV2_0Text},
	})
}

func buildVBackfill3(s *Sim) {
	s.buildBackfillVariant(backfillSpec{
		cluster: clusterSpec{name: "crm", namespace: "crm-streaming", inst: operator, version: v3_0_0,
			logs: LogStyle{Prefix: true}, cloud: "aws", metaStore: "postgresql",
			collect: baseTime.Add(49*time.Minute + 2*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes:     Shapes{Log: fmtJSON, Kube: kubeJSON, Kubectl: "1.37"},
		background: true,
	})
}
