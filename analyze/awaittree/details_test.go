package awaittree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An actor's root holds its definition, which may run over several lines
// (HEAD src/stream/src/task/actor_manager.rs:554).
func TestMultiLineRootName(t *testing.T) {
	d := parseFixture(t, "HEAD-diagnose-report.txt")
	root := d.Actors[0].Root
	want := "Actor 401: `CREATE MATERIALIZED VIEW mv_wide AS SELECT a.id, b.note\nFROM t_a AS a JOIN t_b AS b ON a.id = b.id`"
	if root.Name != want || root.Line != 56 || !root.Slow || root.Elapsed != 611200*time.Millisecond {
		t.Errorf("root = %q line %d slow %v %v, want %q line 56 slow 611.2s", root.Name, root.Line, root.Slow, root.Elapsed, want)
	}
	if len(root.Children) != 1 || root.Children[0].Name != "Epoch 7800000131072000" {
		t.Errorf("root children = %+v", root.Children)
	}
}

func TestJSONSpanFlags(t *testing.T) {
	d := parseFixture(t, "v2.6.0-risectl-json.txt")
	var sink, store, fetch *Span
	for i := range d.Actors {
		d.Actors[i].Walk(func(path []*Span) bool {
			switch sp := path[len(path)-1]; sp.Name {
			case "consume_log (sink_id 17)":
				sink = sp
			case "store_get":
				store = sp
			case "fetch_block":
				fetch = sp
			}
			return true
		})
	}
	if sink == nil || !sink.LongRunning || sink.Slow || sink.Depth != 3 {
		t.Errorf("consume_log = %+v, want long-running, not slow, depth 3", sink)
	}
	if store == nil || !store.Verbose || !store.Current || store.Elapsed != 3501*time.Microsecond {
		t.Errorf("store_get = %+v, want verbose, current, 3.501ms", store)
	}
	if fetch == nil || fetch.Depth != 0 || fetch.Elapsed != 2100*time.Millisecond || d.Actors[1].Detached[0] != fetch {
		t.Errorf("fetch_block = %+v, want actor 121's detached root of 2.1s", fetch)
	}
	if root := d.Actors[0].Root; !root.Slow || root.Current {
		t.Errorf("JSON root = %+v, want slow (0.3 marks roots) and never current", root)
	}
}

func TestTextSpanFlags(t *testing.T) {
	d := parseFixture(t, "v1.0.0-text-rpc-collect-barrier.txt")
	a := d.Actors[0]
	store := a.Root.Children[0].Children[0].Children[0]
	if store.Name != "store_get" || !store.Current || !store.Slow || store.Depth != 3 || store.Elapsed != 41802*time.Millisecond {
		t.Errorf("store_get = %+v", store)
	}
	if a.Root.Slow || a.Root.Current {
		t.Errorf("0.1.1 root = %+v, want neither slow nor current", a.Root)
	}
	if len(a.Detached) != 1 || a.Detached[0].Name != "fetch_block" || a.Detached[0].Line != 8 {
		t.Errorf("detached = %+v", a.Detached)
	}
	// A non-root of 10 s or more not marked `!!!` can only be long-running.
	d = parseFixture(t, "v2.8.0-text-partial-graph.txt")
	var sink *Span
	d.Actors[0].Walk(func(path []*Span) bool {
		if sp := path[len(path)-1]; strings.HasPrefix(sp.Name, "consume_log") {
			sink = sp
		}
		return true
	})
	if sink == nil || !sink.LongRunning || sink.Slow {
		t.Errorf("consume_log = %+v, want inferred long-running", sink)
	}
}

func TestGraphStates(t *testing.T) {
	d := parseFixture(t, "v2.8.0-text-partial-graph.txt")
	gs := d.Workers[0].Graphs
	if len(gs) != 2 || gs[1].ID != "4294967297" || gs[1].Status != "suspended: Instant { tv_sec: 8812, tv_nsec: 402113004 }" || gs[1].Line != 34 {
		t.Errorf("graphs = %+v", gs)
	}
	d = parseFixture(t, "v2.3.0-diagnose-report.txt")
	gs = d.Workers[0].Graphs
	if len(gs) != 3 || gs[2].Kind != "database" || gs[2].ID != "2" || gs[2].Status != "resetting" || gs[1].Database != "1" {
		t.Errorf("graphs = %+v", gs)
	}
}

func TestJVMAndCapturedText(t *testing.T) {
	d := parseFixture(t, "v1.10.0-text-debug-worker-state.txt")
	jvm := d.Other[len(d.Other)-1]
	if jvm.Kind != KindJVM || !strings.Contains(jvm.Text, "java.lang.Thread.State: WAITING") || strings.HasSuffix(jvm.Text, "\n") {
		t.Errorf("jvm = %+v", jvm)
	}
	d = parseFixture(t, "v0.1.17-text-captured.txt")
	if got := d.Actors[0].Captured; got != 83402117*time.Nanosecond {
		t.Errorf("captured = %v", got)
	}
	if got := d.Actors[0].Root.Elapsed; got != 96120004517*time.Nanosecond {
		t.Errorf("root elapsed = %v", got)
	}
}

// Each fixture is named in SOURCES.md, with its tag and source, and each
// row names a fixture.
func TestSourcesCoverEveryFixture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtureDir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for line := range strings.Lines(string(b)) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[name] = cells[2:5]
	}
	for _, f := range fixtureFiles(t) {
		cells, ok := rows[f]
		if !ok {
			t.Errorf("SOURCES.md has no row for %s", f)
			continue
		}
		tag, src, shows := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if tag == "" || !strings.Contains(src, ":") || shows == "" {
			t.Errorf("SOURCES.md row for %s lacks a tag, a path:line or what it shows: %q", f, cells)
		}
		if tagOf := strings.SplitN(f, "-", 2)[0]; !strings.HasPrefix(tag, tagOf) {
			t.Errorf("SOURCES.md row for %s names tag %q, the file name says %q", f, tag, tagOf)
		}
	}
	for name := range rows {
		if _, err := os.Stat(filepath.Join(fixtureDir, name)); err != nil {
			t.Errorf("SOURCES.md names %s: %v", name, err)
		}
	}
}
