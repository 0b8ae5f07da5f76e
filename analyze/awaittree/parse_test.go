package awaittree

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func parseString(t *testing.T, s string, lim Limits) *Dump {
	t.Helper()
	d, err := ParseLimits(strings.NewReader(s), lim)
	if err != nil {
		t.Fatalf("ParseLimits: %v", err)
	}
	return d
}

func TestParseSmallShapes(t *testing.T) {
	for _, c := range []struct {
		name       string
		in         string
		format     Format
		understood bool
		actors     int
		workers    int
		sections   []string
		unknown    []string
	}{
		{name: "empty", in: "", format: FormatNone},
		{name: "blank lines", in: "\n\n  \n", format: FormatNone},
		{
			name: "risectl notice before v2.4", in: "No traces found. No actors are running, or `--async-stack-trace` not set?\n",
			format: FormatText, understood: true, sections: []string{"notice@1"},
		},
		{
			// Since v2.4 the notice goes to stderr and the sections follow.
			name: "risectl notice with 2>&1", in: "No actors are running, or `--async-stack-trace` not set?\n\n\n--- Barrier Worker States ---\n",
			format: FormatText, understood: true, sections: []string{"notice@1", "barrier-worker@4"},
		},
		{
			name: "compute node print-out", in: ">> Actor 5\n\nActor 5: `mv` [1.000s]\n  Epoch 1 [1.000s]  <== current\n>> Actor 6\n\nActor 6: `mv` [2.000s]\n",
			format: FormatText, understood: true, actors: 2,
		},
		{name: "empty pbjson", in: "{}", format: FormatPBJSON, understood: true, sections: []string{"notice@1"}},
		{
			name: "pbjson snake case", in: `{"actor_traces":{"9":"Actor 9: ` + "`m`" + ` [1.000s]\n"}}`,
			format: FormatPBJSON, understood: true, actors: 1, sections: []string{"actor@1"},
		},
		{
			name: "pbjson unknown field", in: "{\n  \"somethingElse\": {\"1\": \"x\"}\n}",
			format: FormatNone, sections: []string{"unknown@2"}, unknown: []string{"L2 unrecognised StackTraceResponse field"},
		},
		{
			name: "pbjson bad values", in: `{"actorTraces":{"x":"Actor [1.000s]\n","7":5},"barrierWorkerState":[]}`,
			format: FormatPBJSON, understood: true, sections: []string{"actor@1", "barrier-worker@1"},
			unknown: []string{"L1 actor id is not a number", "L1 map value is not a string", "L1 StackTraceResponse field is not a map"},
		},
		{name: "JSON array", in: "[1,2]", format: FormatNone, unknown: []string{"L1 outside any await-tree section"}},
		{name: "cut JSON", in: `{"actorTraces":{"1":"Actor 1`, format: FormatNone, unknown: []string{"L1 not valid JSON (cut short?)"}},
		{name: "JSON scalar-ish", in: `{"tree": 5}`, format: FormatNone, sections: []string{"unknown@1"}, unknown: []string{"L1 unrecognised StackTraceResponse field"}},
		{
			name: "unknown section then known", in: "--- Future Traces ---\n>> Thing 1\nfoo [1.000s]\n--- Actor Traces ---\n>> Actor 1\nActor 1: `m` [1.000s]\n",
			format: FormatText, understood: true, actors: 1, sections: []string{"unknown@1", "actor@4"},
			unknown: []string{"L1 unrecognised section header", `L2 in unrecognised section "Future Traces"`, `L3 in unrecognised section "Future Traces"`},
		},
		{
			name: "bad entries", in: "--- Actor Traces ---\n>> Actor x\nActor x [1.000s]\n>> RPC 1\n>> Actor 2\nnot a span\n  also not\n>> Actor 3\n",
			format: FormatText, understood: true, actors: 2, sections: []string{"actor@1"},
			unknown: []string{
				"L2 actor id is not a number", "L3 in an entry with an unreadable header",
				"L4 entry header not expected in actor traces",
				"L6 span name without a duration", "L7 span name without a duration", "L5 entry without a trace",
				"L8 entry without a trace",
			},
		},
		{
			name: "orphans and second roots", in: "--- RPC Traces ---\n>> RPC a\n    deep [1.000s]\nroot [2.000s]\n      skip [1.000s]\nroot2 [3.000s]\nbefore\n",
			format: FormatText, understood: true, sections: []string{"rpc@1"},
			unknown: []string{
				"L3 indented span with no parent; kept as a root", "L4 second root span in one trace; kept as detached",
				"L6 second root span in one trace; kept as detached", "L7 not a span line (expected `name [1.234s]`)",
			},
		},
		{
			name: "worker lines not understood", in: "--- Barrier Worker States ---\n>> Worker 1\n\nhas_control_stream_connected: maybe\n> Epoch x: AllCollected\n> Epoch 5: Flying\n> Epoch 6: Issued [Barrier]. Remaining actors: [a, ]\nrunning_actors: 1, b, graph states\nwhatever\n",
			format: FormatText, understood: true, workers: 1, sections: []string{"barrier-worker@1"},
			unknown: []string{
				"L4 has_control_stream_connected is not true or false", "L5 epoch line without a numeric epoch",
				"L6 unknown epoch state", "L7 remaining actors with something other than ids",
				"L8 running_actors with something other than ids", "L9 not a barrier worker state line",
			},
		},
		{
			name: "diagnose report without await tree", in: "report created at: 2026-01-01 00:00:00 UTC\nversion: 2.5.0\n\nnumber of actor: 3\n",
			format: FormatDiagnose, unknown: []string{"L1 diagnose report without an await-tree part"},
		},
		{
			name: "dashboard error", in: "Await-Tree Dump of Compute Node 4:\n\nERROR: Request failed with status code 500\nundefined\n",
			format: FormatDashboardText, understood: true, sections: []string{"title@1"},
		},
		{
			name: "bom and crlf", in: "\xEF\xBB\xBF--- Actor Traces ---\r\n>> Actor 1\r\nActor 1: `m` [1.000s]\r\n",
			format: FormatText, understood: true, actors: 1, sections: []string{"actor@1"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := parseString(t, c.in, DefaultLimits())
			if d.Format != c.format || d.Understood() != c.understood || len(d.Actors) != c.actors || len(d.Workers) != c.workers {
				t.Errorf("format %q understood %v actors %d workers %d; want %q %v %d %d",
					d.Format, d.Understood(), len(d.Actors), len(d.Workers), c.format, c.understood, c.actors, c.workers)
			}
			var secs []string
			for _, s := range d.Sections {
				secs = append(secs, fmt.Sprintf("%s@%d", s.Kind, s.Line))
			}
			check(t, "sections", secs, c.sections)
			check(t, "unknown", sumUnknown(d), c.unknown)
		})
	}
}

func TestDashboardErrorIsNodeError(t *testing.T) {
	d := parseString(t, "Await-Tree Dump of Compute Node 4:\n\nERROR: Request failed with status code 500\nundefined\n", DefaultLimits())
	if len(d.NodeErrors) != 1 || d.NodeErrors[0].Text != "Request failed with status code 500\nundefined" || d.NodeErrors[0].Line != 3 {
		t.Errorf("node errors = %+v", d.NodeErrors)
	}
}

func TestReadErrorIsReturned(t *testing.T) {
	boom := errors.New("boom")
	for _, r := range []*strings.Reader{strings.NewReader("--- Actor Traces ---\n"), strings.NewReader("{")} {
		_, err := Parse(io.MultiReader(r, iotest.ErrReader(boom)))
		if !errors.Is(err, boom) {
			t.Errorf("Parse error = %v, want boom", err)
		}
	}
}

func TestLimits(t *testing.T) {
	tree := "--- Actor Traces ---\n>> Actor 1\nActor 1: `m` [1.000s]\n" + strings.Repeat("  child [1.000s]\n", 50)
	d := parseString(t, tree, Limits{MaxSpans: 10})
	if d.Stats.Spans != 10 || d.Stats.SpansDropped != 41 {
		t.Errorf("spans %d dropped %d, want 10 and 41", d.Stats.Spans, d.Stats.SpansDropped)
	}

	junk := strings.Repeat("junk\n", 30)
	d = parseString(t, junk, Limits{MaxUnknown: 5})
	if len(d.Unknown) != 5 || d.Stats.UnknownDropped != 25 {
		t.Errorf("unknown %d dropped %d, want 5 and 25", len(d.Unknown), d.Stats.UnknownDropped)
	}

	d = parseString(t, tree, Limits{MaxInputBytes: 100})
	if !d.Stats.Truncated || d.Stats.Lines > 6 {
		t.Errorf("truncated %v after %d lines; want truncated within 100 bytes", d.Stats.Truncated, d.Stats.Lines)
	}
	if u := d.Unknown[len(d.Unknown)-1]; !strings.Contains(u.Reason, "the rest was not read") {
		t.Errorf("last unknown = %+v", u)
	}

	long := "--- Actor Traces ---\n>> Actor 1\nActor 1: `" + strings.Repeat("x", 500) + "` [1.000s]\n"
	d = parseString(t, long, Limits{MaxLineBytes: 64, MaxUnknownText: 16})
	if len(d.Unknown) == 0 || !strings.Contains(d.Unknown[0].Reason, "line longer than 64 bytes") || len(d.Unknown[0].Text) > 16 {
		t.Errorf("unknown = %+v", d.Unknown)
	}

	deep := "--- Actor Traces ---\n>> Actor 1\nroot [1.000s]\n"
	for i := 1; i < 40; i++ {
		deep += strings.Repeat("  ", i) + "s [1.000s]\n"
	}
	d = parseString(t, deep, Limits{MaxDepth: 8})
	if d.Stats.Spans != 8 || d.Stats.SpansDropped != 32 {
		t.Errorf("deep text: spans %d dropped %d, want 8 and 32", d.Stats.Spans, d.Stats.SpansDropped)
	}

	d = parseString(t, `{"actorTraces":{"1":"x"}}`, Limits{MaxJSONBytes: 10})
	if !d.Stats.Truncated || d.Understood() {
		t.Errorf("oversized JSON: %+v", d.Stats)
	}

	epochs := "--- Barrier Worker States ---\n>> Worker 1\n" + strings.Repeat("> Epoch 1: AllCollected\n", 20)
	d = parseString(t, epochs, Limits{MaxEpochs: 5})
	if len(d.Workers[0].Epochs) != 5 || len(d.Unknown) != 1 {
		t.Errorf("epochs %d unknown %+v, want 5 and one note", len(d.Workers[0].Epochs), d.Unknown)
	}

	name := "--- Actor Traces ---\n>> Actor 1\n" + strings.Repeat("Actor 1: `line\n", 10) + "end` [1.000s]\n"
	d = parseString(t, name, Limits{MaxNameLines: 4})
	if d.Actors[0].Root != nil && strings.Count(d.Actors[0].Root.Name, "\n") > 4 {
		t.Errorf("root name kept %d lines", strings.Count(d.Actors[0].Root.Name, "\n")+1)
	}
	if len(d.Unknown) < 6 {
		t.Errorf("unknown = %+v, want the lines past the name limit", d.Unknown)
	}
}

// A document of nothing but brackets must not reach gjson's recursive
// validator.
func TestDeepJSONIsRefused(t *testing.T) {
	deep := "{\"tree\":" + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + "}"
	d := parseString(t, deep, DefaultLimits())
	if d.Understood() || len(d.Unknown) != 1 || !strings.Contains(d.Unknown[0].Reason, "nested deeper") {
		t.Errorf("unknown = %+v", d.Unknown)
	}
	trace := "--- Actor Traces ---\n>> Actor 1\n{\"tree\":" + strings.Repeat("[", 20000) + "\n"
	d = parseString(t, trace, DefaultLimits())
	if len(d.Unknown) != 2 || !strings.Contains(d.Unknown[0].Reason, "nested deeper") {
		t.Errorf("unknown = %+v", d.Unknown)
	}
}

func TestJSONTraceOverLines(t *testing.T) {
	// A JSON trace laid out over lines (pretty-printed by hand) is read
	// whole; its spans are at the line it starts on, as serde's one-line
	// output would have them. A bare-string span is a name.
	in := "--- Actor Traces ---\n>> Actor 1\n{\"current\": 2,\n \"tree\": {\"id\": 1, \"span\": {\"name\": \"Actor 1\", \"is_verbose\": false, \"is_long_running\": false}, \"elapsed_ns\": 5,\n  \"children\": [\n   {\"id\": 2, \"span\": \"legacy name\", \"elapsed_ns\": 12000000000, \"children\": []}]},\n \"detached\": []}\n>> Actor 2\n{\"tree\": {\"span\": {\"name\": 7}, \"elapsed_ns\": \"x\", \"children\": [{\"span\": {\"name\": \"kept\"}, \"elapsed_ns\": 1e12}]}}\n"
	d := parseString(t, in, DefaultLimits())
	r := d.Actors[0].Root
	if r.Line != 3 || len(r.Children) != 1 || r.Children[0].Line != 3 || r.Children[0].Name != "legacy name" || !r.Children[0].Current || !r.Children[0].Slow || r.Children[0].Parent() != r {
		t.Errorf("root = %+v child = %+v", r, r.Children[0])
	}
	// Fields of the wrong type are skipped, and said so; the rest is kept.
	r = d.Actors[1].Root
	if r == nil || r.Name != "" || len(r.Children) != 1 || r.Children[0].Name != "kept" || r.Children[0].Elapsed != 1000*time.Second {
		t.Errorf("actor 2 root = %+v", r)
	}
	// (encoding/json's wording is its own; only the start is ours.)
	if u := sumUnknown(d); len(u) != 1 || !strings.HasPrefix(u[0], "L9 JSON span: ") {
		t.Errorf("unknown = %q, want one `L9 JSON span: …`", u)
	}
}

func TestSlowSpansMin(t *testing.T) {
	d := parseFixture(t, "v1.10.0-text-debug-worker-state.txt")
	var got []string
	for _, r := range d.SlowSpans(30 * 1e9) {
		got = append(got, fmt.Sprintf("%s %v", r.Span.Name, r.Leaf))
	}
	// consume_log is the leaf at this threshold: its slow children are shorter.
	check(t, "slow >= 30s", got, []string{"consume_log (sink_id 9) true", "sync_epoch (epoch 6801110584934400) true"})
}
