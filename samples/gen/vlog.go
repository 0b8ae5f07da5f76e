package main

// Log lines of the variety samples, in each release's format and with the
// messages, targets, spans and fields it prints. Sources (paths at the tag,
// in risingwavelabs/risingwave): the formatter is chosen in
// src/utils/runtime/src/lib.rs:200-214 (v1.0.0: pretty) and
// src/utils/runtime/src/logger.rs (v1.5.0 :219-226, v1.10.0 :282-297,
// v2.3.0 :291-306, v3.0.0 :338-349: full, or JSON with RISINGWAVE_CLOUD);
// tracing-subscriber 0.3.17 fmt/format/{mod.rs,pretty.rs,json.rs} renders
// them. analyze/testdata/shapes/logs/ has one fixture per shape and
// /work/notes/log-shapes.md the derivation.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// tsTrim is the time crate's Rfc3339 as RisingWave's timer prints it: UTC
// with Z, the fraction trimmed of trailing zeros (none when 0 ns).
func tsTrim(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
}

// kubeletTS is the kubelet's RFC3339NanoFixed prefix of `kubectl logs --timestamps`.
func kubeletTS(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
}

// vFieldText is one field in the full format: Debug-quoted strings, the
// rest as they are; a second `message` field prints unnamed.
func vFieldText(f field) string {
	if f.k == "message" {
		return f.v
	}
	return fieldText(f)
}

// vPrettyField is one field in the pretty format: `name: value`.
func vPrettyField(f field) string {
	if f.quote {
		return f.k + ": " + strconv.Quote(f.v)
	}
	return f.k + ": " + f.v
}

// vtext renders one event in the release's text format.
func (lf *logFormatter) vtext(l logLine) string {
	if l.raw {
		return l.msg
	}
	if lf.shape.Log == fmtPretty {
		var b strings.Builder
		b.WriteString("  " + tsTrim(l.t) + " " + fmt.Sprintf("%5s", l.level) + " " + l.target + ": " + l.msg)
		for _, f := range l.fields {
			b.WriteString(", " + vPrettyField(f))
		}
		b.WriteString("\n    at " + l.src + "\n")
		for i := len(l.spans) - 1; i >= 0; i-- {
			sp := l.spans[i]
			b.WriteString("    in " + sp.target + "::" + sp.name)
			if len(sp.fields) > 0 {
				parts := make([]string, len(sp.fields))
				for j, f := range sp.fields {
					parts[j] = vPrettyField(f)
				}
				b.WriteString(" with " + strings.Join(parts, ", "))
			}
			b.WriteByte('\n')
		}
		return b.String() // the blank line that ends a pretty event
	}
	return fullText(tsTrim(l.t), l, vFieldText)
}

// vjson renders one event as tracing-subscriber's JSON: timestamp, level,
// fields (message first), target, then (before v1.10) the current span and
// the span list. Span objects have their fields sorted (serde_json without
// preserve_order) and "name" last.
func (lf *logFormatter) vjson(l logLine, withSpan bool) string {
	if l.raw {
		return l.msg
	}
	return lf.jsonEvent(tsTrim(l.t), l, withSpan, true)
}

// vwrite appends one event of a variety sample to w, each physical line
// behind the kubelet's prefix when the log was taken with --timestamps.
func (lf *logFormatter) vwrite(w *file, l logLine) {
	var body string
	if lf.shape.Log == fmtJSON {
		body = lf.vjson(l, !lf.version.atLeast(1, 10))
	} else {
		body = lf.vtext(l)
	}
	// The kubelet stamps each line when it reads it: a little after the
	// event, the lines of one write together, never going back.
	pt := l.t.Add(time.Duration(60000+lf.rnd.IntN(400000)) * time.Nanosecond)
	for _, line := range strings.Split(body, "\n") {
		if lf.prefix {
			if !pt.After(lf.last) {
				pt = lf.last.Add(time.Duration(300+lf.rnd.IntN(900)) * time.Nanosecond)
			}
			lf.last = pt
			w.WriteString(kubeletTS(pt) + " ")
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
}

// vlog records an evidence line of a variety sample; src is the file:line
// the pretty format prints (v1.0), "" for the other formats.
func (s *Sim) vlog(p *Pod, prev bool, t time.Time, level, target, src string, spans []span, msg string, fields ...field) {
	s.logf(p, prev, s.vjitter(t), level, target, spans, msg, fields...)
	key := logKey(p, prev)
	s.lines[key][len(s.lines[key])-1].src = src
}

// vraw records a line a process writes to stderr outside tracing
// (`launching`, panics): no timestamp, no level.
func (s *Sim) vraw(p *Pod, prev bool, t time.Time, text string) {
	s.logf(p, prev, s.vjitter(t), "", "", nil, text)
	key := logKey(p, prev)
	s.lines[key][len(s.lines[key])-1].raw = true
}

// vjitter moves an evidence line's time by up to 0.3 ms, as wall clocks
// are never round: less than the gap between lines that must stay in order.
func (s *Sim) vjitter(t time.Time) time.Time {
	return t.Add(time.Duration(1000+s.rnd.IntN(299000)) * time.Nanosecond)
}

// pretty reports whether the release writes pretty logs (and so needs
// file:line for every line).
func (s *Sim) pretty() bool { return s.Shape != nil && s.Shape.Log == fmtPretty }

// at returns src for the pretty format and "" otherwise.
func (s *Sim) at(src string) string {
	if s.pretty() {
		return src
	}
	return ""
}

// execName is an executor's identity as the release names it: v1.0 the
// executor's own name with "Executor" (src/stream/src/executor/hash_agg.rs:223
// `HashAggExecutor {:X}`, source_executor.rs:79), from v1.5 the stream node
// body's strum Display (src/stream/src/task/stream_manager.rs:553 at v1.5.0,
// :463 v1.10.0, :475 v2.0.7: `format!("{} {:X}", node_body, executor_id)`).
func (s *Sim) execName(op string, actor, opIdx int) string {
	if !s.Version.atLeast(1, 5) {
		if op == "StreamScan" {
			op = "Chain"
		}
		return identity(op+"Executor", actor, opIdx)
	}
	return identity(op, actor, opIdx)
}

// vActorSpans are the actor and executor spans an executor's events carry:
// src/stream/src/executor/actor.rs info_span!("actor", "otel.name", actor_id,
// prev_epoch, curr_epoch) and src/stream/src/executor/wrapper/trace.rs
// info_span!("executor", "otel.name", actor_id) (v1.0-v1.5, named with
// pretty_identity: `X (actor N, operator M)` at v1.0.0, `X (actor N)` at
// v1.5.0; from v1.10 the span has only otel.name, and its message and
// chunk_size are recorded after the events inside it). epoch 0 leaves the epochs out (before
// the first barrier: the fields are None).
func (s *Sim) vActorSpans(a *Actor, epoch uint64, op string, opIdx int) []span {
	name := s.execName(op, a.ID, opIdx)
	switch {
	case !s.Version.atLeast(1, 5):
		name = fmt.Sprintf("%s (actor %d, operator %d)", name, a.ID, opIdx)
	case !s.Version.atLeast(1, 10):
		name = fmt.Sprintf("%s (actor %d)", name, a.ID) // trace.rs:37 at v1.5.0, pretty_identity
	}
	id := num("actor_id", a.ID)
	if s.Version.atLeast(2, 7) {
		id = disp("actor_id", fmt.Sprint(a.ID)) // `actor_id = %id` from v2.7.0 (actor.rs:241): a JSON string
	}
	actor := span{name: "actor", target: "risingwave_stream::executor::actor",
		fields: []field{str("otel.name", fmt.Sprintf("Actor %d", a.ID)), id}}
	if epoch != 0 {
		actor.fields = append(actor.fields, num("prev_epoch", epoch-65536000), num("curr_epoch", epoch))
	}
	exec := span{name: "executor", target: "risingwave_stream::executor::wrapper::trace",
		fields: []field{str("otel.name", name)}}
	if !s.Version.atLeast(1, 10) {
		exec.fields = append(exec.fields, num("actor_id", a.ID))
	}
	return []span{actor, exec}
}

// vStart logs a process start: `launching` on stderr (src/cmd_all/src/bin/risingwave.rs:106
// at v1.0.0, :114 v3.0.0), then the component's start lines.
func (s *Sim) vStart(p *Pod, prev bool, t time.Time) {
	v := s.Version
	s.vraw(p, prev, t, fmt.Sprintf("launching `%s`", p.Component))
	ver := "> version: " + v.Semver + " (" + v.GitSHA + ")"
	switch p.Component {
	case "meta":
		target, src := "risingwave_meta_node", ""
		if !v.atLeast(1, 5) {
			target, src = "risingwave_meta", "src/meta/src/lib.rs:210"
		}
		s.vlog(p, prev, t.Add(sec(0.0041)), "INFO", target, src, nil, "Starting meta node")
		s.vlog(p, prev, t.Add(sec(0.0046)), "INFO", target, s.at("src/meta/src/lib.rs:214"), nil, ver)
		switch {
		case !v.atLeast(1, 5):
			s.vlog(p, prev, t.Add(sec(1.71)), "INFO", "risingwave_meta::rpc::server", "src/meta/src/rpc/server.rs:337", nil, "Defining leader services")
		case !v.atLeast(2, 0):
			s.vlog(p, prev, t.Add(sec(1.71)), "INFO", "risingwave_meta_node::server", "", nil, "Defining leader services")
		default:
			s.vlog(p, prev, t.Add(sec(1.69)), "INFO", "risingwave_meta_node::server", "", nil, "elected as leader, shutting down follower services")
			s.vlog(p, prev, t.Add(sec(1.71)), "INFO", "risingwave_meta_node::server", "", nil, "starting leader services")
		}
	case "compute":
		s.vlog(p, prev, t.Add(sec(0.0039)), "INFO", "risingwave_compute::server", s.at("src/compute/src/server.rs:90"), nil, "Starting compute node")
		s.vlog(p, prev, t.Add(sec(0.0044)), "INFO", "risingwave_compute::server", s.at("src/compute/src/server.rs:96"), nil, ver)
		s.vlog(p, prev, t.Add(sec(2.36)), "INFO", "risingwave_compute::server", s.at("src/compute/src/server.rs:163"), nil, fmt.Sprintf("Assigned worker node id %d", p.WorkerID))
	case "frontend":
		s.vlog(p, prev, t.Add(sec(0.0037)), "INFO", "risingwave_frontend::session", s.at("src/frontend/src/session.rs:175"), nil, "Starting frontend node")
		s.vlog(p, prev, t.Add(sec(0.0042)), "INFO", "risingwave_frontend::session", s.at("src/frontend/src/session.rs:181"), nil, ver)
		s.vlog(p, prev, t.Add(sec(1.94)), "INFO", "risingwave_frontend::session", s.at("src/frontend/src/session.rs:208"), nil, fmt.Sprintf("Assigned worker node id %d", p.WorkerID))
	case "compactor":
		s.vlog(p, prev, t.Add(sec(0.0036)), "INFO", "risingwave_compactor::server", s.at("src/storage/compactor/src/server.rs:65"), nil, "Starting compactor node")
		if v.atLeast(1, 5) {
			s.vlog(p, prev, t.Add(sec(0.0041)), "INFO", "risingwave_compactor::server", "", nil, ver)
		}
	}
}

// vStartAll logs every pod's start at its first run's start (the runs a
// scenario adds log their own starts).
func (s *Sim) vStartAll() {
	for _, p := range s.Pods {
		if p.Other != "" {
			continue
		}
		r := p.Runs[len(p.Runs)-1]
		s.vStart(p, false, r.start.Add(sec(0.21+0.05*unit(p.Name))))
		if p.Component == "meta" {
			s.vRecovery(p, false, r.start.Add(sec(3.2)), 2.4+unit(p.Name+"rec"), "")
		}
	}
}

// vRecovery logs one global recovery on meta: `recovery start!` and
// `recovery success` inside bootstrap_recovery (reason "") or
// failure_recovery{error}. v1.0.0 src/meta/src/barrier/recovery.rs:117/:223,
// spans barrier/mod.rs:564 (bootstrap, new_epoch) and :892 (failure, err,
// prev_epoch); v1.5.0 recovery.rs:229/:367 (success: epoch, paused), spans
// mod.rs:635/:1016 (prev_epoch; failure: %err); v1.10.0 recovery.rs:365/:537,
// mod.rs:576/:810 (error = %err.as_report()); v2.0.7 recovery.rs:253/:485;
// v2.3.0 worker.rs:685/:881, spans worker.rs:221 (bootstrap, no fields) and
// :543 (failure, error only); v2.5.0 worker.rs:724/:946; v3.0.0 worker.rs:966/:1252.
func (s *Sim) vRecovery(meta *Pod, prev bool, t time.Time, dur float64, reason string) {
	v := s.Version
	prevEpoch := epochAt(t.Add(-sec(1.3)).Truncate(time.Second))
	var sp span
	target := "risingwave_meta::barrier::recovery"
	if v.atLeast(2, 3) {
		target = "risingwave_meta::barrier::worker"
	}
	switch {
	case reason == "" && !v.atLeast(1, 5):
		sp = span{name: "bootstrap_recovery", target: "risingwave_meta::barrier", fields: []field{num("new_epoch", prevEpoch+65536)}}
	case reason == "" && !v.atLeast(2, 3):
		sp = span{name: "bootstrap_recovery", target: "risingwave_meta::barrier", fields: []field{num("prev_epoch", prevEpoch)}}
	case reason == "":
		sp = span{name: "bootstrap_recovery", target: "risingwave_meta::barrier::worker"}
	case !v.atLeast(1, 10):
		sp = span{name: "failure_recovery", target: "risingwave_meta::barrier", fields: []field{disp("err", reason), num("prev_epoch", prevEpoch)}}
	case !v.atLeast(2, 3):
		sp = span{name: "failure_recovery", target: "risingwave_meta::barrier", fields: []field{disp("error", reason), num("prev_epoch", prevEpoch)}}
	default:
		sp = span{name: "failure_recovery", target: "risingwave_meta::barrier::worker", fields: []field{disp("error", reason)}}
	}
	spans := []span{sp}
	s.vlog(meta, prev, t, "INFO", target, s.at("src/meta/src/barrier/recovery.rs:117"), spans, "recovery start!")
	end := t.Add(sec(dur))
	switch {
	case v.atLeast(1, 5) && !v.atLeast(2, 3):
		s.vlog(meta, prev, end, "INFO", target, "", spans, "recovery success", num("epoch", prevEpoch), disp("paused", "None"))
	default:
		s.vlog(meta, prev, end, "INFO", target, s.at("src/meta/src/barrier/recovery.rs:223"), spans, "recovery success")
	}
	s.Meta.recoveries = append(s.Meta.recoveries, end)
	if v.atLeast(2, 3) {
		why := "bootstrap" // worker.rs:666-672 at v2.3.0: the RecoveryReason as text
		if reason != "" {
			why = "failed over: " + reason
		}
		s.eventf(t, "GLOBAL_RECOVERY_START", map[string]any{"recovery": map[string]any{"globalStart": map[string]any{"reason": why}}})
		s.eventf(end, "GLOBAL_RECOVERY_SUCCESS", map[string]any{"recovery": map[string]any{"globalSuccess": map[string]any{
			"reason": why, "durationSecs": float64(int(dur*1000)) / 1000, "runningDatabaseIds": []any{s.Cat.DatabaseID}}}})
	}
}

// vPaused logs the source executor's pause warnings from every source actor
// on p between from and to, every period: v1.0.0
// src/stream/src/executor/source/source_executor.rs:497 `source {identity}
// paused, wait barrier for {:?}` (v1.5.0 :546, with the identity); from v1.10
// (:606; v2.3.0 :696, v3.0.0 :942) without the identity.
func (s *Sim) vPaused(p *Pod, src *Source, from, to time.Time, period time.Duration) {
	for _, a := range src.Frag.actorsOn(p) {
		off := time.Duration(a.ID%7) * 1300 * time.Millisecond
		for t := from.Add(off); t.Before(to); t = t.Add(period) {
			wait := 5.0 + float64((a.ID*7919+int(t.Unix()))%4000)/1e6
			msg := fmt.Sprintf("source paused, wait barrier for %.6fs", wait)
			if !s.Version.atLeast(1, 10) {
				msg = fmt.Sprintf("source %s paused, wait barrier for %.6fs", s.execName("Source", a.ID, 1), wait)
			}
			s.vlog(p, false, t, "WARN", "risingwave_stream::executor::source::source_executor",
				s.at("src/stream/src/executor/source/source_executor.rs:497"),
				s.vActorSpans(a, epochAt(t.Add(-sec(40)).Truncate(time.Second)), "Source", 1), msg)
		}
	}
}

// vNoise draws one unrelated line of a variety sample: the compactor's
// `Finish Task {:?} split_index {:?} sst count {}`
// (src/storage/src/hummock/compactor/mod.rs:954 at v1.0.0, :263 at v3.0.0),
// which every release prints after each compaction task, one every four
// minutes or so.
func (g *noiseGen) vline(t time.Time) logLine {
	g.n++
	task := 52000 + g.n*3 + g.rnd.IntN(3)
	return logLine{t: t, level: "INFO", target: "risingwave_storage::hummock::compactor",
		src: "src/storage/src/hummock/compactor/mod.rs:954",
		msg: fmt.Sprintf("Finish Task Some(%d) split_index Some(%d) sst count %d", task, g.rnd.IntN(2), 1+g.rnd.IntN(4))}
}

// vNoiseCount is how many unrelated lines a variety sample's log of p gets
// over d: only the compactor logs steadily at INFO.
func vNoiseCount(p *Pod, d time.Duration) int {
	if p.Component != "compactor" {
		return 0
	}
	return int(d.Minutes() / 4)
}
