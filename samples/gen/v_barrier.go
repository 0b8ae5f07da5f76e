package main

import (
	"fmt"
	"strings"
	"time"
)

// awaitExec is an executor's span in an await tree: v1.0 names it with
// pretty_identity (src/stream/src/executor/wrapper/trace.rs:75 `X (actor N,
// operator M)`), later releases with the identity alone.
func (s *Sim) awaitExec(op string, actor, opIdx int) string {
	name := s.execName(op, actor, opIdx)
	if !s.Version.atLeast(1, 5) {
		return fmt.Sprintf("%s (actor %d, operator %d)", name, actor, opIdx)
	}
	return name
}

// barrierSpec is one barrier-stall variant's cluster.
type barrierSpec struct {
	cluster clusterSpec
	shapes  Shapes
	topic   string
	slowIdx int
	hot     string // the hot aggregation's name
}

// buildBarrierVariant: one compute node of three is CPU-saturated by a hot
// aggregation and collects no barrier any more: its progress (v1.3+) and its
// in-flight histogram's count stop while the other two advance, barriers
// pile up on meta, the last committed barrier ages (v1.8+), every node's
// sources pause waiting for a barrier, and the await tree shows the hot
// actors stuck in their epoch on that node.
func (s *Sim) buildBarrierVariant(sp barrierSpec) {
	s.varietySetup(sp.cluster, sp.shapes)
	collect := s.Collect
	created := collect.Add(-2*time.Hour - 17*time.Minute)
	cns := s.topo(3, 4, "16Gi", created, 1)
	if s.MetaStore == "etcd" {
		etcd := &Pod{Name: s.fullname() + "-etcd-0", Component: "etcd", Other: "etcd", CPU: 1, Mem: "2Gi", MemBytes: gib(2), Created: created.Add(-time.Minute),
			Workload: s.fullname() + "-etcd", Rev: s.fullname() + "-etcd-6d8f7b5c9", Node: s.nodes[3], HostIP: "10.0.4.104", IP: "10.43.4.77"}
		etcd.Runs = []run{{start: etcd.Created.Add(9 * time.Second)}}
		s.Pods = append(s.Pods, etcd)
	}
	s.Cat = newCatalog(1001)
	src := s.kafkaTable("page_events", sp.topic, 6, "event_id VARCHAR, user_id BIGINT, page VARCHAR, country VARCHAR, ts TIMESTAMP",
		cns, 3, created.Add(31*time.Minute))
	if !s.Version.atLeast(1, 5) {
		src.Job.Definition = strings.Replace(src.Job.Definition, "FORMAT PLAIN ENCODE JSON", "ROW FORMAT JSON", 1)
	}
	s.aggMV("mv_views_5m", "CREATE MATERIALIZED VIEW mv_views_5m AS SELECT window_start, page, count(*) AS views FROM TUMBLE(page_events, ts, INTERVAL '5 MINUTES') GROUP BY window_start, page",
		src.Job, cns, 3, 1200, created.Add(44*time.Minute))
	hot := s.aggMV(sp.hot, "CREATE MATERIALIZED VIEW "+sp.hot+" AS SELECT user_id, count(*) AS views, count(DISTINCT page) AS pages FROM page_events GROUP BY user_id",
		src.Job, cns, 3, 1200, created.Add(52*time.Minute))
	s.noiseJobs(src.Job, created.Add(70*time.Minute))

	slow := cns[sp.slowIdx]
	stall := collect.Add(-200 * time.Second)
	far := collect.Add(10 * time.Minute)
	slow.m.cpu = step{{baseTime, 1.9}, {stall.Add(-40 * time.Second), 3.97}}
	slow.m.progress = step{{baseTime, 1}, {stall, 0}}
	slow.m.epochLag = lin{{stall, 1.1}, {far, far.Sub(stall).Seconds()}}
	for _, p := range cns {
		if p == slow {
			continue
		}
		p.m.cpu = flat(1.7 + 0.2*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stall, 0.95}}
		p.m.blockRatio = lin{{stall, 0.08}, {stall.Add(time.Minute), 0.7}}
	}
	for _, f := range hot.Frags {
		f.Rate = step{{baseTime, f.Rate.at(baseTime)}, {stall, f.Rate.at(baseTime) * 0.04}}
	}
	// No barrier completes after the stall: meta observes no latency, the
	// barriers pile up and the committed epoch ages.
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stall, 0}}, lat: constant(0.62)}
	s.Meta.send = histModel{rate: step{{baseTime, 1}}, lat: constant(0.004)}
	s.Meta.allBarriers = lin{{stall, 2}, {far, 2 + 0.98*far.Sub(stall).Seconds()}}
	s.Meta.inFlight = lin{{stall, 1}, {far, 0.98 * far.Sub(stall).Seconds()}}
	s.Meta.commitLag = lin{{stall, 1.2}, {far, 1.2 + far.Sub(stall).Seconds()}}

	s.vStartAll()
	for _, p := range cns {
		s.vPaused(p, src, stall.Add(20*time.Second), s.Done, 17*time.Second)
	}
	if s.Version.atLeast(1, 5) {
		for i := 0; i < 12; i++ {
			t := stall.Add(-time.Duration(12-i) * 9 * time.Second)
			s.vBarrierComplete(t, 0.5+0.3*unit(fmt.Sprint("bc", i)))
		}
	}
	s.await = func(s *Sim) string { return s.barrierAwait(slow, hot, stall) }
}

// vBarrierComplete records a BARRIER_COMPLETE event (v1.5+): strum Display
// of the command up to v2.0 (`Plain`, src/meta/src/barrier/command.rs:79),
// "barrier" for a plain barrier from v2.3 (complete_task.rs:159-162).
func (s *Sim) vBarrierComplete(t time.Time, dur float64) {
	cur := epochAt(t.Add(-sec(dur)).Truncate(time.Second))
	cmd := "Plain"
	if s.Version.atLeast(2, 3) {
		cmd = "barrier"
	}
	info := map[string]any{"prevEpoch": fmt.Sprint(cur - 65536000), "curEpoch": fmt.Sprint(cur), "durationSec": float64(int(dur*1000)) / 1000,
		"command": cmd, "barrierKind": "BARRIER_KIND_CHECKPOINT"}
	s.eventf(t, "BARRIER_COMPLETE", map[string]any{"barrierComplete": info})
}

// barrierAwait is the stalled cluster's await-tree dump in the release's
// layout.
func (s *Sim) barrierAwait(slow *Pod, hot *Job, stall time.Time) string {
	now := s.Done.Add(25 * time.Second)
	el := now.Sub(stall).Seconds()
	stuck := epochAt(stall.Truncate(time.Second))
	d := vdump{actors: map[int]*atNode{}, rpcs: map[string]*atNode{}, meta: map[string]*atNode{}}
	agg := hot.fragOf("agg")
	var stuckIDs []int
	for _, a := range agg.Actors {
		up := now.Sub(a.Pod.current().start).Seconds()
		if a.Pod == slow {
			leaf := at("store_get", el-0.011)
			leaf.current = true
			d.actors[a.ID] = at(fmt.Sprintf("Actor %d: `%s`", a.ID, hot.Name), up,
				at(fmt.Sprintf("Epoch %d", stuck), el,
					at(s.awaitExec("Materialize", a.ID, 6), el-0.001,
						at(s.awaitExec("HashAgg", a.ID, 5), el-0.002, leaf))))
			stuckIDs = append(stuckIDs, a.ID)
			continue
		}
		e := 0.2 + 0.5*unit(fmt.Sprint(a.ID))
		merge := at(s.awaitExec("Merge", a.ID, 4), e-0.003)
		merge.current = true
		d.actors[a.ID] = at(fmt.Sprintf("Actor %d: `%s`", a.ID, hot.Name), up,
			at(fmt.Sprintf("Epoch %d", epochAt(now.Add(-sec(e)).Truncate(time.Second))), e,
				at(s.awaitExec("Materialize", a.ID, 6), e-0.001,
					at(s.awaitExec("HashAgg", a.ID, 5), e-0.002, merge))))
	}
	for i, p := range s.computes() {
		id := 211 + 17*i
		switch s.Shape.Await {
		case awaitV1_0Trace:
			key := fmt.Sprintf("%s:5688 (%d)", p.host(), id)
			if p == slow {
				c := at(fmt.Sprintf("collect_barrier (epoch %d)", stuck), el-0.004)
				c.current = true
				d.rpcs[key] = at(fmt.Sprintf("/stream_service.StreamService/BarrierComplete:%d", id), el, c)
				continue
			}
			e := 0.3 + 0.4*unit(p.Name)
			c := at(fmt.Sprintf("collect_barrier (epoch %d)", epochAt(now.Add(-sec(e)).Truncate(time.Second))), e-0.001)
			c.current = true
			d.rpcs[key] = at(fmt.Sprintf("/stream_service.StreamService/BarrierComplete:%d", id), e, c)
		default:
			root := at("/stream_service.StreamService/StreamingControlStream", now.Sub(p.current().start).Seconds()-2.1)
			root.long = true
			d.rpcs[fmt.Sprintf("%s:5688 - %d", p.IP, i+3)] = root
		}
		running := s.Cat.actorIDsOn(p)
		w := vworker{id: p.WorkerID, connected: true, running: running, graph: 1}
		if s.Shape.Await == awaitV3_0Dashboard {
			w.graph = 1
		}
		for k := 0; k < 4; k++ {
			e := epochAt(stall.Truncate(time.Second).Add(time.Duration(k) * time.Second))
			switch {
			case p != slow:
				w.epochs = append(w.epochs, epochState{epoch: e, collected: true})
			case k == 0:
				w.epochs = append(w.epochs, epochState{epoch: e, remaining: stuckIDs})
			default:
				w.epochs = append(w.epochs, epochState{epoch: e, prevMore: len(stuckIDs)})
			}
		}
		d.workers = append(d.workers, w)
	}
	if s.Shape.Await == awaitV3_0Dashboard {
		next := at("next_complete_barrier", el-0.3)
		next.current = true
		root := at("Global Barrier Worker", now.Sub(s.pod("meta").current().start).Seconds(), next)
		d.meta["Global Barrier Worker"] = root
	}
	switch s.Shape.Await {
	case awaitV1_0Trace:
		return d.v10Trace()
	case awaitV3_0Dashboard:
		return d.v30JSON(&logFormatter{})
	}
	return d.output(vworker.v23State)
}

// The three barrier-stall variants.
func buildVBarrierStall1(s *Sim) {
	s.buildBarrierVariant(barrierSpec{
		cluster: clusterSpec{name: "streams", namespace: "rw-streams", release: "streams", chart: "risingwave-0.1.16", inst: helmLegacy,
			version: v1_0_0, logs: LogStyle{Prefix: true}, cloud: "aws", metaStore: "etcd",
			collect: baseTime.Add(22*time.Minute + 10*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtPretty, Kube: kubeJSON, Kubectl: "1.37", Await: awaitV1_0Trace},
		topic:  "web.page_events", slowIdx: 2, hot: "mv_user_activity",
	})
}

func buildVBarrierStall2(s *Sim) {
	s.buildBarrierVariant(barrierSpec{
		cluster: clusterSpec{name: "fraud", namespace: "fraud-detect", inst: operator,
			version: v2_3_0, logs: LogStyle{Prefix: true}, cloud: "gcp", metaStore: "postgresql",
			collect: baseTime.Add(35*time.Minute + 40*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtFull, Kube: kubeJSON, Kubectl: "1.37", Await: awaitV2_3Report},
		topic:  "card.swipes", slowIdx: 0, hot: "mv_card_velocity",
	})
}

func buildVBarrierStall3(s *Sim) {
	s.buildBarrierVariant(barrierSpec{
		cluster: clusterSpec{name: "ledger", namespace: "finance", release: "ledger", chart: "risingwave-0.2.61", inst: helm,
			version: v3_0_0, logs: LogStyle{}, cloud: "azure", metaStore: "postgresql",
			collect: baseTime.Add(41*time.Minute + 5*time.Second), scrapes: 4, every: 15 * time.Second, done: 65 * time.Second},
		shapes: Shapes{Log: fmtJSON, Kube: kubeJSON, Kubectl: "1.37", Await: awaitV3_0Dashboard},
		topic:  "ledger.postings", slowIdx: 1, hot: "mv_account_balances",
	})
}
