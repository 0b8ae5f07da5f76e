package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// oomPods is a pods.json of compute pods, each OOMKilled with the given
// number of restarts, or with a Completed last termination when it is 0.
func oomPods(restarts map[string]int) string {
	var items []string
	for _, name := range []string{"rw-compute-0", "rw-compute-1", "rw-compute-2"} {
		n, ok := restarts[name]
		if !ok {
			continue
		}
		reason, code := "OOMKilled", 137
		if n == 0 {
			reason, code, n = "Completed", 0, 4
		}
		items = append(items, fmt.Sprintf(`{"metadata": {"name": %q, "labels": {"risingwave/component": "compute"}},
 "spec": {"containers": [{"name": "compute"}]},
 "status": {"containerStatuses": [{"name": "compute", "restartCount": %d, "lastState": {"terminated": {"reason": %q, "exitCode": %d}}}]}}`,
			name, n, reason, code))
	}
	return `{"kind": "List", "items": [` + strings.Join(items, ",\n") + `]}`
}

// Two bundles of one cluster share a finding (rw-compute-0 keeps crashing)
// and differ in another (rw-compute-1 recovered, rw-compute-2 started).
func TestDiffCommand(t *testing.T) {
	old := writeTestDir(t, map[string]string{"kubernetes/pods.json": oomPods(map[string]int{"rw-compute-0": 3, "rw-compute-1": 4})})
	new := writeTestDir(t, map[string]string{"kubernetes/pods.json": oomPods(map[string]int{"rw-compute-0": 5, "rw-compute-1": 0, "rw-compute-2": 2})})

	r := run(t, "diff", old, new)
	if r.code != 1 {
		t.Fatalf("a new critical finding: %s\nwant exit 1", r)
	}
	for _, want := range []string{"New (1):", "rw-compute-2", "Resolved (1):", "Persisting (1):", "1 new, 1 resolved, 1 persisting, 0 undecided."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.stdout)
		}
	}

	r = run(t, "diff", "--format", "json", "--fail-on", "never", old, new)
	if r.code != 0 {
		t.Fatalf("--fail-on never: %s", r)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	d := map[string][]struct{ Rule, Subject, Severity string }{}
	for _, k := range []string{"added", "resolved", "persisting", "undecided"} {
		var items []struct{ Rule, Subject, Severity string }
		if err := json.Unmarshal(raw[k], &items); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		d[k] = items
	}
	if len(d["added"]) != 1 || d["added"][0].Subject != "rw-compute-2" || d["added"][0].Severity != "critical" ||
		len(d["resolved"]) != 1 || d["resolved"][0].Subject != "rw-compute-1" ||
		len(d["persisting"]) != 1 || d["persisting"][0].Subject != "rw-compute-0" || len(d["undecided"]) != 0 {
		t.Errorf("diff = %+v", d)
	}

	// Nothing new: exit 0, whatever resolved.
	if r = run(t, "diff", new, new); r.code != 0 || !strings.Contains(r.stdout, "0 new, 0 resolved, 2 persisting") {
		t.Errorf("a bundle against itself: %s", r)
	}
	if r = run(t, "diff", "--fail-on", "critical", new, old); r.code != 1 || !strings.Contains(r.stdout, "New (1):") {
		t.Errorf("rw-compute-1 is new the other way round: %s", r)
	}
	// A bundle without pods.json cannot decide the OOM rule: undecided, not resolved.
	blind := writeTestDir(t, map[string]string{"logs/rw-compute-0/compute.log": "2026-11-29T20:41:07Z  INFO x: y\n"})
	if r = run(t, "diff", "--format", "markdown", old, blind); r.code != 0 || !strings.Contains(r.stdout, "## Undecided") || strings.Contains(r.stdout, "## Resolved") {
		t.Errorf("old against a bundle without pods: %s", r)
	}
}

func TestDiffUsageErrors(t *testing.T) {
	dir := writeTestDir(t, map[string]string{"kubernetes/pods.json": oomPods(nil)})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", dir}, "missing NEW"},
		{[]string{"diff", dir, dir, dir}, "unexpected argument"},
		{[]string{"diff", "--fail-on", "sometimes", dir, dir}, "--fail-on"},
		{[]string{"diff", "--format", "html", dir, dir}, `no HTML form here`},
	} {
		r := run(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("rwdiag %s: %s\nwant exit 2 and %q", strings.Join(tt.args, " "), r, tt.want)
		}
	}
}
