package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// diffPods is a pods.json of compute pods; each status is "oom N" (last
// terminated OOMKilled, N restarts) or "ok N" (last terminated Completed).
func diffPods(statuses map[string]string) string {
	var items []string
	for _, name := range []string{"rw-compute-0", "rw-compute-1", "rw-compute-2"} {
		st, ok := statuses[name]
		if !ok {
			continue
		}
		var kind string
		var restarts int
		fmt.Sscanf(st, "%s %d", &kind, &restarts)
		reason, code := "OOMKilled", 137
		if kind == "ok" {
			reason, code = "Completed", 0
		}
		items = append(items, fmt.Sprintf(`{"metadata": {"name": %q, "labels": {"risingwave/component": "compute"}},
 "spec": {"containers": [{"name": "compute", "resources": {"limits": {"memory": "8Gi"}}}]},
 "status": {"containerStatuses": [{"name": "compute", "restartCount": %d,
   "lastState": {"terminated": {"reason": %q, "exitCode": %d, "finishedAt": "2026-11-29T20:40:07Z"}}}]}}`, name, restarts, reason, code))
	}
	return `{"kind": "List", "items": [` + strings.Join(items, ",\n") + `]}`
}

func diffReport(t *testing.T, rules []*Rule, files map[string]string) *Report {
	t.Helper()
	rep, err := Analyze(context.Background(), writeBundleDir(t, files), rules, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func diffSubjects(items []DiffItem) string {
	var s []string
	for _, it := range items {
		s = append(s, it.Rule+" "+it.Subject)
	}
	return strings.Join(s, ", ")
}

// Two bundles of one cluster that share one finding (rw-compute-0 keeps
// crashing) and differ in others (rw-compute-1 recovered, rw-compute-2 is
// new); a third that lacks pods.json cannot decide the OOM rule.
func TestCompareReports(t *testing.T) {
	rules := loadTestRules(t, "../rules")
	old := diffReport(t, rules, map[string]string{"kubernetes/pods.json": diffPods(map[string]string{
		"rw-compute-0": "oom 3", "rw-compute-1": "oom 4"})})
	new := diffReport(t, rules, map[string]string{"kubernetes/pods.json": diffPods(map[string]string{
		"rw-compute-0": "oom 5", "rw-compute-1": "ok 4", "rw-compute-2": "oom 2"})})
	d := CompareReports(old, new)
	for _, c := range []struct {
		name  string
		items []DiffItem
		want  string
	}{
		{"added", d.Added, "compute-oom-crash-loop rw-compute-2"},
		{"resolved", d.Resolved, "compute-oom-crash-loop rw-compute-1"},
		{"persisting", d.Persisting, "compute-oom-crash-loop rw-compute-0"},
		{"undecided", d.Undecided, ""},
	} {
		if got := diffSubjects(c.items); got != c.want {
			t.Errorf("%s = %q, want %q", c.name, got, c.want)
		}
	}
	if p := d.Persisting[0]; p.OldSummary == "" || p.OldSummary == p.Summary || p.OldSeverity != 0 {
		t.Errorf("persisting item = %+v, want the old summary (3 restarts) beside the new (5) and no severity change", p)
	}
	if !d.AddedAtOrAbove(SeverityCritical) {
		t.Error("a new critical finding is not at or above critical")
	}
	if CompareReports(old, old).AddedAtOrAbove(SeverityInfo) {
		t.Error("a bundle compared with itself has new findings")
	}

	blind := diffReport(t, rules, map[string]string{"logs/rw-compute-0/compute.log": "2026-11-29T20:41:07Z  INFO x: y\n"})
	u := CompareReports(old, blind)
	if got := diffSubjects(u.Undecided); got != "compute-oom-crash-loop rw-compute-0, compute-oom-crash-loop rw-compute-1" || len(u.Resolved) != 0 {
		t.Fatalf("undecided = %q, resolved = %q; want both OOM findings undecided", got, diffSubjects(u.Resolved))
	}
	if r := u.Undecided[0].Reason; !strings.Contains(r, "inconclusive") || !strings.Contains(r, "pods.json") {
		t.Errorf("undecided reason = %q, want the rule inconclusive for lack of pods.json", r)
	}
}
