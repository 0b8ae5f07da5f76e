package analyze

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/analyze/awaittree"
	"github.com/rwdiag/rwdiag/bundle"
)

// AwaitTreeQuery is an awaittree signal: which rows of the parsed dumps it
// reads.
type AwaitTreeQuery struct {
	// Rows is one of AwaitTreeRows.
	Rows string
	// Span, for spans rows, keeps spans whose name it matches.
	Span *regexp.Regexp
	// MinSeconds, for spans rows, keeps spans that lasted at least this
	// long; 0 keeps the spans the dump marks slow (!!!).
	MinSeconds float64
}

// AwaitTreeRows are the row sets an awaittree signal may read, and the
// section of a dump each needs.
var AwaitTreeRows = map[string][]awaittree.Kind{
	// remaining: one row per actor still not collected in an Issued epoch of
	// the Barrier Worker States: worker_id, graph, epoch, kind, actor_id,
	// prev_epoch_pending.
	"remaining": {awaittree.KindBarrierWorker},
	// workers: one row per worker of the Barrier Worker States: worker_id,
	// connected (bool, or nil when not printed), running_actors.
	"workers": {awaittree.KindBarrierWorker},
	// spans: one row per slow span of the actor and RPC traces (not a
	// trace's root): trace, actor_id, key, span, seconds, slow, leaf, tree.
	"spans": {awaittree.KindActor, awaittree.KindRPC, awaittree.KindInflightBarrier},
	// epoch_waits: spans waiting on one epoch (collect_barrier, sync_epoch,
	// SyncEpoch): name, key, epoch, seconds, slow.
	"epoch_waits": {awaittree.KindRPC, awaittree.KindInflightBarrier},
	// sinks: sink actors' consume_log spans (v1.10+): actor_id, sink_id,
	// seconds, slow, waiting.
	"sinks": {awaittree.KindActor},
}

func compileAwaitTreeQuery(spec *awaitTreeSpec) (*AwaitTreeQuery, error) {
	q := &AwaitTreeQuery{Rows: spec.Rows, MinSeconds: spec.MinSeconds}
	if _, ok := AwaitTreeRows[spec.Rows]; !ok {
		return nil, fmt.Errorf("rows: %q is not one of remaining, workers, spans, epoch_waits, sinks", spec.Rows)
	}
	if spec.Span != "" {
		if spec.Rows != "spans" {
			return nil, fmt.Errorf("span: only with rows: spans")
		}
		re, err := regexp.Compile(spec.Span)
		if err != nil {
			return nil, fmt.Errorf("span: %v", err)
		}
		q.Span = re
	}
	if spec.MinSeconds < 0 {
		return nil, fmt.Errorf("min_seconds: must not be negative")
	}
	if spec.MinSeconds > 0 && spec.Rows != "spans" {
		return nil, fmt.Errorf("min_seconds: only with rows: spans")
	}
	return q, nil
}

// awaitTreeKinds are the files an await-tree dump is read from.
var awaitTreeKinds = []bundle.Kind{bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON, bundle.KindDiagnoseReport}

// maxAwaitTreeFile bounds an await-tree or diagnose file held in memory.
const maxAwaitTreeFile = 256 << 20

// parsedDump is one file's await-tree dump.
type parsedDump struct {
	path string
	dump *awaittree.Dump
}

// readAwaitTree parses one file that may hold an await-tree dump and
// returns its bytes, for the other readers of the file.
func (ev *Gathered) readAwaitTree(e *bundle.Entry, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxAwaitTreeFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxAwaitTreeFile {
		return nil, fmt.Errorf("larger than %d bytes; not read", maxAwaitTreeFile)
	}
	d, err := awaittree.Parse(bytes.NewReader(data))
	if err != nil {
		return data, err
	}
	ev.dumps = append(ev.dumps, parsedDump{path: e.Path, dump: d})
	if !d.Understood() && e.Kind != bundle.KindDiagnoseReport {
		ev.problem("%s: no await-tree section or trace could be read%s", e.Path, unknownExample(d))
	}
	return data, nil
}

func unknownExample(d *awaittree.Dump) string {
	if len(d.Unknown) == 0 {
		return ""
	}
	u := d.Unknown[0]
	return fmt.Sprintf(" (line %d: %s: %q)", u.Line, u.Reason, u.Text)
}

// evalAwaitTree answers an awaittree signal from the parsed dumps.
func (ev *Gathered) evalAwaitTree(q *AwaitTreeQuery) *signalResult {
	need := AwaitTreeRows[q.Rows]
	var read []string
	rows := []Row{}
	for _, pd := range ev.dumps {
		if !hasSection(pd.dump, need) {
			continue
		}
		read = append(read, pd.path)
		rows = append(rows, awaitTreeRows(pd, q)...)
	}
	if len(read) == 0 {
		what := "no await-tree dump in the bundle"
		if len(ev.dumps) > 0 {
			var paths []string
			for _, pd := range ev.dumps {
				paths = append(paths, pd.path)
			}
			what = fmt.Sprintf("%s holds no %s section rwdiag could read", strings.Join(paths, ", "), sectionNames(need))
			if slices.Contains(need, awaittree.KindBarrierWorker) {
				what += " (RisingWave prints Barrier Worker States from v1.9.0 on)"
			}
		}
		return ev.unavailable(what, collectHint(awaitTreeKinds),
			func(e bundle.CollectError) bool { return e.Step == "diagnose" })
	}
	return &signalResult{rows: rows, available: true, coverage: "await-tree in " + strings.Join(read, ", ")}
}

func hasSection(d *awaittree.Dump, kinds []awaittree.Kind) bool {
	for _, s := range d.Sections {
		if !s.Understood {
			continue
		}
		for _, k := range kinds {
			if s.Kind == k {
				return true
			}
		}
	}
	// Dumps without section headers (a bare tree, dashboard JSON without
	// the empty maps) still count by what was parsed.
	for _, k := range kinds {
		switch {
		case k == awaittree.KindBarrierWorker && len(d.Workers) > 0,
			k == awaittree.KindActor && len(d.Actors) > 0,
			k == awaittree.KindRPC && len(d.RPC) > 0:
			return true
		}
	}
	return false
}

func sectionNames(kinds []awaittree.Kind) string {
	names := map[awaittree.Kind]string{
		awaittree.KindBarrierWorker:   "Barrier Worker States",
		awaittree.KindActor:           "Actor Traces",
		awaittree.KindRPC:             "RPC Traces",
		awaittree.KindInflightBarrier: "Inflight Barrier Traces",
	}
	var out []string
	for _, k := range kinds {
		out = append(out, names[k])
	}
	return strings.Join(out, " or ")
}

func idString(v uint64) string { return strconv.FormatUint(v, 10) }

func awaitTreeRows(pd parsedDump, q *AwaitTreeQuery) []Row {
	d := pd.dump
	var out []Row
	add := func(line int, r Row, text string) {
		r["path"], r["line"], r["text"] = pd.path, line, text
		out = append(out, r)
	}
	switch q.Rows {
	case "remaining":
		for _, rem := range d.Remaining() {
			for _, a := range rem.Actors {
				add(rem.Line, Row{"worker_id": idString(rem.WorkerID), "graph": rem.Graph, "epoch": idString(rem.Epoch),
					"kind": rem.Kind, "actor_id": idString(a), "prev_epoch_pending": rem.PrevEpochPending},
					fmt.Sprintf("worker %d: epoch %d not collected by actor %d", rem.WorkerID, rem.Epoch, a))
			}
			if len(rem.Actors) == 0 {
				add(rem.Line, Row{"worker_id": idString(rem.WorkerID), "graph": rem.Graph, "epoch": idString(rem.Epoch),
					"kind": rem.Kind, "actor_id": "", "prev_epoch_pending": rem.PrevEpochPending},
					fmt.Sprintf("worker %d: epoch %d waits on %d actors pending since the previous epoch", rem.WorkerID, rem.Epoch, rem.PrevEpochPending))
			}
		}
	case "workers":
		for _, w := range d.Workers {
			var connected any
			if w.Connected != nil {
				connected = *w.Connected
			}
			add(w.Line, Row{"worker_id": idString(w.WorkerID), "connected": connected, "running_actors": len(w.RunningActors)},
				fmt.Sprintf("worker %d: %d running actors", w.WorkerID, len(w.RunningActors)))
		}
	case "spans":
		for _, ref := range d.SlowSpans(time.Duration(q.MinSeconds * float64(time.Second))) {
			if q.MinSeconds == 0 && !ref.Span.Slow {
				continue
			}
			if q.Span != nil && !q.Span.MatchString(ref.Span.Name) {
				continue
			}
			actor := ""
			if ref.Kind == awaittree.KindActor {
				actor = idString(ref.ActorID)
			}
			tree := strings.Join(ref.Path(), " > ")
			add(ref.Line, Row{"trace": string(ref.Kind), "actor_id": actor, "key": ref.Key, "span": ref.Span.Name,
				"seconds": ref.Seconds, "slow": ref.Span.Slow, "leaf": ref.Leaf, "tree": tree},
				fmt.Sprintf("%s %s: %s [%.3fs]", ref.Kind, ref.Key, tree, ref.Seconds))
		}
	case "epoch_waits":
		for _, w := range d.EpochWaits() {
			add(w.Line, Row{"name": w.Name, "key": w.Key, "epoch": idString(w.Epoch), "seconds": w.Elapsed.Seconds(), "slow": w.Slow},
				fmt.Sprintf("%s %s (epoch %d) [%.3fs]", w.Key, w.Name, w.Epoch, w.Elapsed.Seconds()))
		}
	case "sinks":
		for _, s := range d.Sinks() {
			text := fmt.Sprintf("actor %d: consume_log (sink_id %d) [%.3fs]", s.ActorID, s.SinkID, s.Elapsed.Seconds())
			if len(s.Waiting) > 0 {
				text += " > " + strings.Join(s.Waiting, " > ")
			}
			add(s.Line, Row{"actor_id": idString(s.ActorID), "sink_id": idString(s.SinkID), "seconds": s.Elapsed.Seconds(),
				"slow": s.Slow, "waiting": strings.Join(s.Waiting, " > ")}, text)
		}
	}
	return out
}
