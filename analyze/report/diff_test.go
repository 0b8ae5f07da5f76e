package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
)

// A diff of two bundles of one cluster, as analyze.CompareReports makes it:
// rw-compute-0 keeps crashing, rw-compute-1 recovered, rw-compute-2 is new.
func TestWriteDiff(t *testing.T) {
	item := func(pod string) analyze.DiffItem {
		return analyze.DiffItem{Fingerprint: "fp-" + pod, Rule: "compute-oom-crash-loop", Pattern: "oom-crash-loop",
			Severity: analyze.SeverityCritical, Title: "Compute node killed for memory again and again",
			Subject: pod, SubjectKind: "pod", Summary: pod + " was OOM-killed 3 times"}
	}
	d := &analyze.Diff{Old: analyze.BundleInfo{Path: "old"}, New: analyze.BundleInfo{Path: "new"},
		Added: []analyze.DiffItem{item("rw-compute-2")}, Resolved: []analyze.DiffItem{item("rw-compute-1")},
		Persisting: []analyze.DiffItem{item("rw-compute-0")}, Undecided: []analyze.DiffItem{}}
	var table, md, js bytes.Buffer
	for f, buf := range map[Format]*bytes.Buffer{FormatTable: &table, FormatMarkdown: &md, FormatJSON: &js} {
		if err := WriteDiff(buf, d, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"New (1):\n  [CRITICAL] Compute node killed for memory again and again: rw-compute-2", "Resolved (1):", "Persisting (1):",
		"1 new, 1 resolved, 1 persisting, 0 undecided."} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	for _, want := range []string{"## New\n", "| critical | Compute node killed for memory again and again | `rw-compute-2` | `compute-oom-crash-loop` |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var back map[string]json.RawMessage
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"old_bundle", "new_bundle", "added", "resolved", "persisting", "undecided"} {
		if _, ok := back[k]; !ok {
			t.Errorf("json lacks %q: %s", k, js.String())
		}
	}
	if string(back["undecided"]) != "[]" || !strings.Contains(string(back["added"]), `"severity": "critical"`) {
		t.Errorf("json = %s", js.String())
	}
}

// NEW without a collection time is not "collected before OLD"; the notes
// are in the JSON, always a list.
func TestDiffNotes(t *testing.T) {
	at := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		old, new analyze.BundleInfo
		want     []string
	}{
		{"new has no time", analyze.BundleInfo{CollectedAt: at}, analyze.BundleInfo{}, []string{}},
		{"old has no time", analyze.BundleInfo{}, analyze.BundleInfo{CollectedAt: at}, []string{}},
		{"new before old", analyze.BundleInfo{CollectedAt: at}, analyze.BundleInfo{CollectedAt: at.Add(-time.Hour)},
			[]string{"NEW was collected before OLD: are they the wrong way round?"}},
		{"two clusters", analyze.BundleInfo{Cluster: "a"}, analyze.BundleInfo{Cluster: "b"},
			[]string{"the bundles are of different clusters (a; b): fingerprints match only within one"}},
	} {
		d := analyze.CompareReports(&analyze.Report{Bundle: tc.old}, &analyze.Report{Bundle: tc.new})
		var js bytes.Buffer
		if err := WriteDiff(&js, d, FormatJSON); err != nil {
			t.Fatal(err)
		}
		var back struct{ Notes []string }
		if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Notes == nil {
			t.Fatalf("%s: notes not a list in %s (%v)", tc.name, js.String(), err)
		}
		if !slices.Equal(back.Notes, tc.want) {
			t.Errorf("%s: notes %q, want %q", tc.name, back.Notes, tc.want)
		}
	}
}
