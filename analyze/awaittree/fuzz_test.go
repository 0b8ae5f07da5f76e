package awaittree

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds Parse arbitrary input: it must not panic, must keep to its
// limits, and must give every span and unknown line a line number inside
// the input.
func FuzzParse(f *testing.F) {
	ents, err := os.ReadDir(fixtureDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(fixtureDir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "{}", "{", "[Actor 1]\n[Detached 1]\n  x [1s]", ">> Actor 1\n{\"tree\":{\"children\":[{}]}}",
		"--- Barrier Worker States ---\n>> Worker 1\nLocalBarrierWorkerDebugInfo {\n    running_actors: {\n",
		"--- Barrier Worker States ---\n>> Worker 1\nCreate MView Progress:\n> Epoch 1:>> Actor 2: X, >> Actor , --- Partial Group ",
		"report created at: x\n--- Actor Traces ---\nlatest barrier completions\n",
	} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxSpans: 500, MaxUnknown: 50, MaxEpochs: 50, MaxDepth: 32, MaxLineBytes: 4096, MaxNameLines: 8}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ParseLimits(bytes.NewReader(in), lim)
		if err != nil {
			t.Fatalf("ParseLimits: %v", err)
		}
		if d.Stats.Spans > lim.MaxSpans || len(d.Unknown) > lim.MaxUnknown {
			t.Fatalf("limits broken: %+v, %d unknown", d.Stats, len(d.Unknown))
		}
		last := max(d.Stats.Lines, 1)
		for _, u := range d.Unknown {
			if u.Line < 1 || u.Line > last {
				t.Fatalf("unknown line %d outside 1..%d: %+v", u.Line, last, u)
			}
		}
		spans := 0
		for _, tr := range d.Traces() {
			tr.Walk(func(path []*Span) bool {
				sp := path[len(path)-1]
				spans++
				if sp.Line < 1 || sp.Line > last {
					t.Fatalf("span line %d outside 1..%d: %+v", sp.Line, last, sp)
				}
				if sp.Depth != len(path)-1 || sp.Depth >= lim.MaxDepth {
					t.Fatalf("span depth %d at path length %d", sp.Depth, len(path))
				}
				return true
			})
		}
		if spans != d.Stats.Spans {
			t.Fatalf("walked %d spans, Stats.Spans = %d", spans, d.Stats.Spans)
		}
		for _, w := range d.Workers {
			if len(w.Epochs) > lim.MaxEpochs || len(w.Progress) > lim.MaxEpochs {
				t.Fatalf("worker %d keeps %d epochs, %d progress", w.WorkerID, len(w.Epochs), len(w.Progress))
			}
		}
		_ = d.Understood()
		_ = d.SlowSpans(0)
		_ = d.Remaining()
		_ = d.EpochWaits()
		_ = d.Sinks()
	})
}
