package awaittree

import (
	"strconv"
	"strings"
)

// workerEntry reads one worker's barrier state. Its layouts, by the first
// tag that prints each (the Display of LocalBarrierWorkerDebugInfo,
// ManagedBarrierStateDebugInfo and PartialGraphManagedBarrierState):
//
//	debug-v1.9          format!("{:#?}") of LocalBarrierWorkerDebugInfo
//	                    (src/stream/src/task/barrier_manager.rs:540 at v1.10.0)
//	v2.0                running_actors / actor_to_send / creating_actors lines,
//	                    has_control_stream_connected, managed_barrier_state:,
//	                    `--- Partial Group N`, `> Epoch …` lines
//	v2.1                as v2.0 without actor_to_send and creating_actors
//	database-v2.2       `database N status: S managed_barrier_state:`, then
//	                    `running_actors: 1, 2, --- Partial Group N` on one line
//	partial-graph-v2.8  `partial graph N status: S managed_barrier_state:`, then
//	                    `running_actors: 1, 2, graph states`
//
// In every Display layout `Create MView Progress:` is followed by
// `> Epoch N:>> Actor A: STATE, >> Actor B: STATE, ` with no line ending, so
// the next `--- Partial Group N` of v2.0–v2.7 may be glued to it.
type workerEntry struct {
	p       *parser
	w       WorkerState
	started bool
	debug   bool
	// Display layouts
	graph      int    // index of the open graph in w.Graphs, -1 for none
	graphName  string // the EpochState.Graph of the open graph
	database   string // the open database (v2.2–v2.7)
	inProgress bool
	dropped    bool
	// debug layout
	dbg debugState
}

type debugState struct {
	list       string // the id list being read: running_actors, actor_to_send, remaining_actors
	listIndent int
	ids        []uint64
	epoch      int // index of the open BarrierState in w.Epochs, -1 for none
	epochInd   int
}

func (e *workerEntry) feed(n int, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if !e.started {
		e.started = true
		if strings.HasPrefix(s, "LocalBarrierWorkerDebugInfo {") {
			e.debug, e.w.Layout = true, "debug-v1.9"
			return
		}
	}
	if e.debug {
		e.feedDebug(n, s)
		return
	}
	e.feedDisplay(n, s)
}

func (e *workerEntry) finish() {
	e.p.d.Workers = append(e.p.d.Workers, e.w)
}

func (e *workerEntry) setLayout(l string) {
	// The first marker decides, except that a bare running_actors line
	// first suggests v2.1 and actor_to_send then says v2.0.
	switch {
	case e.w.Layout == "":
		e.w.Layout = l
	case l == "v2.0" && e.w.Layout == "v2.1":
		e.w.Layout = l
	}
}

func (e *workerEntry) feedDisplay(n int, s string) {
	switch {
	case strings.HasPrefix(s, "has_control_stream_connected: "):
		v, err := strconv.ParseBool(strings.TrimPrefix(s, "has_control_stream_connected: "))
		if err != nil {
			e.p.unknown(n, s, "has_control_stream_connected is not true or false")
			return
		}
		e.w.Connected = &v
	case strings.HasPrefix(s, "running_actors:"):
		e.runningActors(n, s)
	case strings.HasPrefix(s, "actor_to_send:") || strings.HasPrefix(s, "creating_actors:"):
		e.setLayout("v2.0")
		if _, ok := parseIDList(s[strings.IndexByte(s, ':')+1:]); !ok {
			e.p.unknown(n, s, "actor list with something other than ids")
		}
	case s == "managed_barrier_state:":
		e.setLayout("v2.1")
	case strings.HasPrefix(s, "--- Partial Group "):
		e.openGroup(n, s, strings.TrimPrefix(s, "--- Partial Group "))
	case strings.HasPrefix(s, "database ") && strings.HasSuffix(s, " managed_barrier_state:"):
		e.openGraph(n, s, "database")
	case strings.HasPrefix(s, "partial graph ") && strings.HasSuffix(s, " managed_barrier_state:"):
		e.openGraph(n, s, "partial graph")
	case s == "Create MView Progress:":
		e.inProgress = true
	case e.inProgress && strings.HasPrefix(s, "> Epoch "):
		e.progress(n, s)
	case strings.HasPrefix(s, "> Epoch "):
		e.epochLine(n, s)
	default:
		e.p.unknown(n, s, "not a barrier worker state line")
	}
}

// runningActors reads `running_actors: 1, 2, ` with, glued to it, the
// `--- Partial Group N` of v2.2–v2.7 or the `graph states` of v2.8+.
func (e *workerEntry) runningActors(n int, s string) {
	rest := strings.TrimPrefix(s, "running_actors:")
	var group string
	glued := false
	if i := strings.Index(rest, "--- Partial Group "); i >= 0 {
		group, rest, glued = rest[i+len("--- Partial Group "):], rest[:i], true
	} else if r, ok := strings.CutSuffix(rest, "graph states"); ok {
		rest = r
	} else {
		e.setLayout("v2.1")
	}
	ids, ok := parseIDList(rest)
	if !ok {
		e.p.unknown(n, s, "running_actors with something other than ids")
	}
	e.w.RunningActors = append(e.w.RunningActors, ids...)
	if e.graph >= 0 {
		g := &e.w.Graphs[e.graph]
		g.RunningActors = append(g.RunningActors, ids...)
	}
	if glued {
		e.openGroup(n, s, group)
	}
}

func (e *workerEntry) openGroup(n int, s, id string) {
	id = strings.TrimSpace(id)
	if id == "" || !allDigits(id) {
		e.p.unknown(n, s, "partial group id is not a number")
		return
	}
	e.inProgress = false
	g := GraphState{Kind: "partial group", ID: id, Database: e.database, Line: n}
	if e.database != "" {
		// Inherit the database's status and running actors.
		for i := len(e.w.Graphs) - 1; i >= 0; i-- {
			if d := e.w.Graphs[i]; d.Kind == "database" && d.ID == e.database {
				g.Status = d.Status
				break
			}
		}
		e.graphName = "database " + e.database + "/partial group " + id
	} else {
		e.graphName = "partial group " + id
	}
	e.w.Graphs = append(e.w.Graphs, g)
	e.graph = len(e.w.Graphs) - 1
}

// openGraph reads `database N status: S managed_barrier_state:` (v2.2–v2.7)
// and `partial graph N status: S managed_barrier_state:` (v2.8+).
func (e *workerEntry) openGraph(n int, s, kind string) {
	rest := strings.TrimSuffix(strings.TrimPrefix(s, kind+" "), " managed_barrier_state:")
	id, status, ok := strings.Cut(rest, " status: ")
	if !ok || id == "" {
		e.p.unknown(n, s, kind+" line without a status")
		return
	}
	if kind == "database" {
		e.setLayout("database-v2.2")
		e.database = id
	} else {
		e.setLayout("partial-graph-v2.8")
		e.database = ""
	}
	e.inProgress = false
	e.w.Graphs = append(e.w.Graphs, GraphState{Kind: kind, ID: id, Status: status, Line: n})
	e.graph = len(e.w.Graphs) - 1
	e.graphName = kind + " " + id
}

// epochLine reads `> Epoch N: AllCollected`, `> Epoch N: Completed` and
// `> Epoch N: Issued [Checkpoint]. Remaining actors: [12, 13, ...and 2 actors in prev epoch]`.
func (e *workerEntry) epochLine(n int, s string) {
	rest := strings.TrimPrefix(s, "> Epoch ")
	num, state, ok := strings.Cut(rest, ": ")
	epoch, err := strconv.ParseUint(num, 10, 64)
	if !ok || err != nil {
		e.p.unknown(n, s, "epoch line without a numeric epoch")
		return
	}
	es := EpochState{Graph: e.graphName, Epoch: epoch, Line: n}
	switch {
	case state == "AllCollected" || state == "Completed":
		es.State = state
	case strings.HasPrefix(state, "Issued ["):
		kind, list, ok := strings.Cut(strings.TrimPrefix(state, "Issued ["), "]. Remaining actors: [")
		if !ok || !strings.HasSuffix(list, "]") {
			e.p.unknown(n, s, "Issued epoch line without a remaining actors list")
			return
		}
		es.State, es.Kind = "Issued", kind
		list = strings.TrimSuffix(list, "]")
		if i := strings.Index(list, "...and "); i >= 0 {
			tail := strings.TrimSuffix(list[i+len("...and "):], " actors in prev epoch")
			k, err := strconv.Atoi(tail)
			if err != nil || k < 0 {
				e.p.unknown(n, s, "unreadable `...and N actors in prev epoch`")
			}
			es.PrevEpochPending = max(k, 0)
			list = list[:i]
		}
		ids, ok := parseIDList(list)
		if !ok {
			e.p.unknown(n, s, "remaining actors with something other than ids")
		}
		es.Remaining = ids
	default:
		e.p.unknown(n, s, "unknown epoch state")
		return
	}
	e.addEpoch(es)
}

func (e *workerEntry) addEpoch(es EpochState) {
	if len(e.w.Epochs) >= e.p.lim.MaxEpochs {
		e.drop(es.Line)
		return
	}
	e.w.Epochs = append(e.w.Epochs, es)
}

func (e *workerEntry) drop(line int) {
	if !e.dropped {
		e.dropped = true
		e.p.unknown(line, "", "more epochs or progress entries than Limits.MaxEpochs; the rest dropped")
	}
}

// progress reads one line of `Create MView Progress:`:
// `> Epoch N:>> Actor A: STATE, >> Actor B: STATE, > Epoch M:>> Actor …`,
// possibly ending in a glued `--- Partial Group N`.
func (e *workerEntry) progress(n int, s string) {
	const (
		epochMark = "> Epoch "
		actorMark = ">> Actor "
		groupMark = "--- Partial Group "
	)
	var epoch uint64
	haveEpoch := false
	rest := s
	for rest != "" {
		// ">> Actor " holds no "> Epoch ", so the prefixes cannot be confused.
		switch {
		case strings.HasPrefix(rest, groupMark):
			e.openGroup(n, s, rest[len(groupMark):])
			return
		case strings.HasPrefix(rest, actorMark):
			body := rest[len(actorMark):]
			next := nextMarker(body, epochMark, actorMark, groupMark)
			item := strings.TrimSuffix(strings.TrimRight(body[:next], " "), ",")
			rest = body[next:]
			id, state, ok := strings.Cut(item, ": ")
			actor, err := strconv.ParseUint(id, 10, 64)
			if !ok || err != nil || !haveEpoch {
				e.p.unknown(n, s, "unreadable Create MView Progress entry")
				continue
			}
			if len(e.w.Progress) >= e.p.lim.MaxEpochs {
				e.drop(n)
				continue
			}
			e.w.Progress = append(e.w.Progress, BackfillProgress{Graph: e.graphName, Epoch: epoch, ActorID: actor, State: state, Line: n})
		case strings.HasPrefix(rest, epochMark):
			body := rest[len(epochMark):]
			num, after, ok := strings.Cut(body, ":")
			v, err := strconv.ParseUint(num, 10, 64)
			if !ok || err != nil {
				e.p.unknown(n, s, "unreadable Create MView Progress epoch")
				return
			}
			epoch, haveEpoch, rest = v, true, after
		default:
			if strings.TrimSpace(rest) != "" {
				e.p.unknown(n, s, "unreadable Create MView Progress line")
			}
			return
		}
	}
}

// nextMarker returns the offset of the first of the markers in s, or
// len(s). Every marker starts with '>' or '-'; the scan stops at the first
// one, so a line of many entries is read in linear time.
func nextMarker(s string, marks ...string) int {
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], ">-")
		if j < 0 {
			break
		}
		for _, m := range marks {
			if strings.HasPrefix(s[i+j:], m) {
				return i + j
			}
		}
		i += j + 1
	}
	return len(s)
}

// parseIDList reads "1, 2, 3, " (every id followed by ", ").
func parseIDList(s string) ([]uint64, bool) {
	var ids []uint64
	ok := true
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			ok = false
			continue
		}
		ids = append(ids, v)
	}
	return ids, ok
}

// feedDebug reads the {:#?} rendering of v1.9.0 and v1.10.x:
//
//	LocalBarrierWorkerDebugInfo {
//	    actor_to_send: { 1, 2, },   (one id a line)
//	    running_actors: { … },
//	    creating_actors: [ … ],
//	    managed_barrier_state: ManagedBarrierStateDebugInfo {
//	        epoch_barrier_state_map: {
//	            EPOCH: BarrierState {
//	                curr_epoch: …,
//	                inner: Issued( IssuedState { mutation: …, remaining_actors: { … }, }, ),
//	                kind: Checkpoint,
//	            },
//	        },
//	        create_mview_progress: { … },
//	    },
//	    has_control_stream_connected: true,
//	}
//
// Only the fields above are read; the rest (mutations, progress) is
// understood as Debug output and counted in Stats.OpaqueLines.
func (e *workerEntry) feedDebug(n int, s string) {
	t := strings.TrimLeft(s, " ")
	indent := len(s) - len(t)
	d := &e.dbg
	if d.list != "" {
		switch {
		case strings.HasPrefix(t, "}") && indent == d.listIndent:
			e.endList()
		default:
			v, err := strconv.ParseUint(strings.TrimSuffix(t, ","), 10, 64)
			if err != nil {
				e.p.unknown(n, s, "not an actor id in "+d.list)
				return
			}
			d.ids = append(d.ids, v)
		}
		return
	}
	for _, name := range []string{"running_actors", "actor_to_send", "remaining_actors"} {
		rest, ok := strings.CutPrefix(t, name+": {")
		if !ok {
			continue
		}
		if rest == "" {
			d.list, d.listIndent, d.ids = name, indent, nil
		} else if rest != "}," && rest != "}" {
			e.p.unknown(n, s, "unreadable "+name)
		}
		return
	}
	if num, ok := strings.CutSuffix(t, ": BarrierState {"); ok {
		epoch, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			e.p.unknown(n, s, "BarrierState key is not an epoch")
			return
		}
		if len(e.w.Epochs) >= e.p.lim.MaxEpochs {
			e.drop(n)
			d.epoch = -1
			return
		}
		e.w.Epochs = append(e.w.Epochs, EpochState{Epoch: epoch, Line: n})
		d.epoch, d.epochInd = len(e.w.Epochs)-1, indent
		return
	}
	if d.epoch >= 0 && indent == d.epochInd+4 {
		es := &e.w.Epochs[d.epoch]
		if v, ok := strings.CutPrefix(t, "inner: "); ok {
			es.State = leadingWord(v)
			return
		}
		if v, ok := strings.CutPrefix(t, "kind: "); ok {
			es.Kind = leadingWord(v)
			return
		}
	}
	if d.epoch >= 0 && indent == d.epochInd && strings.HasPrefix(t, "}") {
		d.epoch = -1
		return
	}
	if v, ok := strings.CutPrefix(t, "has_control_stream_connected: "); ok && indent == 4 {
		b, err := strconv.ParseBool(strings.TrimSuffix(v, ","))
		if err != nil {
			e.p.unknown(n, s, "has_control_stream_connected is not true or false")
			return
		}
		e.w.Connected = &b
		return
	}
	e.p.d.Stats.OpaqueLines++
}

func (e *workerEntry) endList() {
	d := &e.dbg
	switch d.list {
	case "running_actors":
		e.w.RunningActors = append(e.w.RunningActors, d.ids...)
	case "remaining_actors":
		if d.epoch >= 0 {
			e.w.Epochs[d.epoch].Remaining = append(e.w.Epochs[d.epoch].Remaining, d.ids...)
		}
	}
	d.list, d.ids = "", nil
}

// leadingWord returns the identifier at the head of s: "Issued" of "Issued(".
func leadingWord(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return s[:i]
}
