package main

import (
	"fmt"
	"time"
)

// scenarios are every sample the generator owns, in the order it writes them.
var scenarios = []scenario{
	{"barrier-stall", 0x51a11, buildBarrierStall},
	{"barrier-stall-v1", 0x51a12, buildBarrierStallV1},
	{"offset-replay", 0x0ff5e7, buildOffsetReplay},
	{"oom-crash-loop", 0x00a1, buildOOMCrashLoop},
	{"backfill-starvation", 0xbacf11, buildBackfillStarvation},
	{"sink-blockage", 0x5119c, buildSinkBlockage},
	{"sink-decoupled-lag", 0x5119d, buildSinkDecoupledLag},
	{"healthy-busy", 0x4ea17, buildHealthyBusy},
	{"compound-incident", 0xc0b0, buildCompoundIncident},
	{"handmade-minimal", 0x4a4d, buildHandmadeMinimal},
}

// sec is n seconds.
func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

// sourcePaused logs the source executor's pause warnings from every source
// actor on p between from and to, every period.
func (s *Sim) sourcePaused(p *Pod, src *Source, from, to time.Time, period time.Duration) {
	for _, a := range src.Frag.actorsOn(p) {
		off := time.Duration(a.ID%7) * 1300 * time.Millisecond
		for t := from.Add(off); t.Before(to); t = t.Add(period) {
			wait := 5.0 + float64((a.ID*7919+int(t.Unix()))%4000)/1e6
			s.logf(p, false, t, "WARN", "risingwave_stream::executor::source::source_executor",
				actorSpan(a.ID, epochAt(t.Add(-sec(40)).Truncate(time.Second)), identity("SourceExecutor", a.ID, 1)),
				fmt.Sprintf("source paused, wait barrier for %.6fs", wait))
		}
	}
}

// fetchWatermarks logs a Kafka split being (re)opened.
func (s *Sim) fetchWatermarks(p *Pod, prev bool, t time.Time, a *Actor, src *Source, part int, low, high, start int64) {
	s.logf(p, prev, t, "INFO", "risingwave_connector::source::kafka::source::reader",
		actorSpan(a.ID, epochAt(t.Truncate(time.Second)), identity("SourceExecutor", a.ID, 1)),
		fmt.Sprintf("fetch kafka watermarks: low: %d, high: %d, split: KafkaSplit { topic: %q, partition: %d, start_offset: Some(%d), stop_offset: None }",
			low, high, src.Topic, part, start))
}

// barrierComplete records BARRIER_COMPLETE events.
func (s *Sim) barrierComplete(t time.Time, dur float64) {
	info := map[string]any{"prevEpoch": fmt.Sprint(epochAt(t.Add(-sec(dur)).Truncate(time.Second).Add(-time.Second))),
		"curEpoch": fmt.Sprint(epochAt(t.Add(-sec(dur)).Truncate(time.Second))), "durationSec": float64(int(dur*1000)) / 1000,
		"command": "Plain(None)", "barrierKind": "BARRIER_KIND_CHECKPOINT"}
	if s.Version.databaseLabels() {
		info["databaseId"] = s.Cat.DatabaseID
	}
	s.eventf(t, "BARRIER_COMPLETE", map[string]any{"barrierComplete": info})
}

// metaStart logs a meta node's start-up and leadership.
func (s *Sim) metaStart(p *Pod, prev bool, t time.Time) {
	s.logf(p, prev, t, "INFO", "risingwave_meta_node", nil, "Starting meta node")
	s.logf(p, prev, t.Add(sec(0.004)), "INFO", "risingwave_meta_node", nil, "> version: "+s.Version.Semver+" ("+s.Version.GitSHA+")")
	s.logf(p, prev, t.Add(sec(0.011)), "INFO", "risingwave_common_service::metrics_manager", nil, "Prometheus listener for Prometheus is set up on http://0.0.0.0:1250")
	s.logf(p, prev, t.Add(sec(1.92)), "INFO", "risingwave_meta::rpc::election::sql", nil, "elected as leader, shutting down follower services")
	s.logf(p, prev, t.Add(sec(1.93)), "INFO", "risingwave_meta_node::server", nil, "starting leader services")
	s.logf(p, prev, t.Add(sec(2.61)), "INFO", "risingwave_meta::barrier::worker", nil, "GlobalBarrierManager started")
}

// recovery logs one recovery: start, then success after dur, with its
// events: GLOBAL_RECOVERY_* (or DATABASE_RECOVERY_* when database is set)
// from v2.3.
func (s *Sim) recovery(p *Pod, t time.Time, dur float64, reason string) {
	s.recoveryIn(p, t, dur, reason, false)
}

func (s *Sim) recoveryIn(p *Pod, t time.Time, dur float64, reason string, database bool) {
	spans := []span{{"recovery_attempt", nil, ""}}
	if reason != "" {
		spans = append([]span{{"failure_recovery", []field{disp("error", reason)}, ""}}, spans...)
	}
	s.logf(p, false, t, "INFO", "risingwave_meta::barrier::worker", spans, "recovery start!")
	s.logf(p, false, t.Add(sec(dur)), "INFO", "risingwave_meta::barrier::worker", spans, "recovery success")
	s.Meta.recoveries = append(s.Meta.recoveries, t.Add(sec(dur)))
	if s.Version.atLeast(2, 3) && database {
		s.eventf(t, "DATABASE_RECOVERY_START", map[string]any{"recovery": map[string]any{"databaseStart": map[string]any{"databaseId": s.Cat.DatabaseID}}})
		s.eventf(t.Add(sec(dur)), "DATABASE_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"databaseSuccess": map[string]any{"databaseId": s.Cat.DatabaseID}}})
	} else if s.Version.atLeast(2, 3) {
		s.eventf(t, "GLOBAL_RECOVERY_START", map[string]any{"recovery": map[string]any{"globalStart": map[string]any{"reason": recoveryReason(reason)}}})
		s.eventf(t.Add(sec(dur)), "GLOBAL_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"globalSuccess": map[string]any{
			"reason": recoveryReason(reason), "durationSecs": float64(int(dur*1000)) / 1000}}})
	}
}

func recoveryReason(r string) string {
	if r == "" {
		return "bootstrap"
	}
	return "failover"
}

// oomKill makes p's runs end in OOM kills at the given times, restarting
// after the kubelet's back-off, and records the events. The last kill
// leaves the pod in CrashLoopBackOff when stay is true.
func (s *Sim) oomKill(p *Pod, kills []time.Time, stay bool) {
	for i, k := range kills {
		cur := &p.Runs[len(p.Runs)-1]
		cur.end, cur.reason, cur.exit = k, "OOMKilled", 137
		if i == len(kills)-1 && stay {
			break
		}
		backoff := time.Duration(10<<min(len(p.Runs)-1, 5)) * time.Second
		if backoff > 5*time.Minute {
			backoff = 5 * time.Minute
		}
		p.Runs = append(p.Runs, run{start: k.Add(backoff + sec(1))})
	}
	if stay {
		p.Waiting = "CrashLoopBackOff"
	}
}

// restartIDs gives each run of a restarted compute pod the worker id meta
// assigned it (a restarted node registers anew, with the next free id) and
// leaves the pod with its current id. It returns the ids by run.
func (s *Sim) restartIDs(p *Pod) []int {
	top := 0
	for _, q := range s.Pods {
		top = max(top, q.WorkerID)
	}
	ids := []int{p.WorkerID}
	for i := 1; i < len(p.Runs); i++ {
		ids = append(ids, top+i)
	}
	p.WorkerID = ids[len(ids)-1]
	return ids
}
