package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestDir writes files (slash paths) under a new temporary directory.
func writeTestDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var timelineFiles = map[string]string{
	"logs/rw-compute-0/compute.previous.log": "" +
		"2026-11-29T20:40:00.100000Z  INFO risingwave_compute::server: Starting compute node\n" +
		"2026-11-29T20:40:05.200000Z  WARN risingwave_compute::memory: memory is tight\n",
	"logs/rw-meta-0/meta.log": "2026-11-29T20:40:08.000000Z ERROR risingwave_meta::barrier::rpc: get error from response stream\n",
	"kubernetes/pods.json": `{"kind": "List", "items": [
{"metadata": {"name": "rw-compute-0", "labels": {"risingwave/component": "compute"}}, "spec": {"containers": [{"name": "compute"}]},
 "status": {"containerStatuses": [{"name": "compute", "restartCount": 1, "state": {"running": {"startedAt": "2026-11-29T20:40:20Z"}},
   "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2026-11-29T20:40:07Z"}}}]}}]}`,
}

func TestTimelineCommand(t *testing.T) {
	dir := writeTestDir(t, timelineFiles)
	r := run(t, "timeline", dir)
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(r.stdout, "\n")
	var order []string
	for _, l := range lines {
		for _, src := range []string{" log ", " termination ", " restart "} {
			if strings.Contains(l, "2026-11-29T") && strings.Contains(l, src) {
				order = append(order, strings.TrimSpace(src))
			}
		}
	}
	if got := strings.Join(order, " "); got != "log termination log restart" {
		t.Errorf("sources in order %q, want log termination log restart:\n%s", got, r.stdout)
	}
	if strings.Contains(r.stdout, "Starting compute node") {
		t.Errorf("an INFO line passed the default --min-level warn:\n%s", r.stdout)
	}

	r = run(t, "timeline", dir, "--format", "json", "--min-level", "info", "--pod", "rw-compute-*", "--since", "2026-11-29 20:40")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var tl struct {
		Entries []struct {
			Source, Pod, Path, Text string
			Line                    int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tl); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	var got []string
	for _, e := range tl.Entries {
		if e.Pod != "rw-compute-0" {
			t.Errorf("--pod let through %+v", e)
		}
		got = append(got, e.Source)
	}
	if strings.Join(got, " ") != "log log termination restart" || !strings.Contains(tl.Entries[0].Text, "Starting compute node") {
		t.Errorf("entries %v, want the INFO line too: %s", got, r.stdout)
	}

	out := filepath.Join(t.TempDir(), "timeline.md")
	if r = run(t, "timeline", dir, "-o", out, "--until", "2026-11-29T20:40:06Z"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	md, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(md), "# rwdiag timeline") || strings.Contains(string(md), "termination") {
		t.Errorf("-o %s (Markdown by extension, until 20:40:06): %v\n%s", out, err, md)
	}
}

func TestTimelineUsageErrors(t *testing.T) {
	dir := writeTestDir(t, timelineFiles)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"timeline"}, "missing BUNDLE"},
		{[]string{"timeline", dir, "--since", "yesterday"}, `--since: "yesterday" is not a time`},
		{[]string{"timeline", dir, "--since", "2026-11-29T21:00:00Z", "--until", "2026-11-29T20:00:00Z"}, "is before --since"},
		{[]string{"timeline", dir, "--min-level", "loud"}, `unknown level "loud"`},
		{[]string{"timeline", dir, "--format", "html"}, `no HTML form here`},
		{[]string{"timeline", dir, "--pod", "[x"}, `--pod "[x"`},
		{[]string{"timeline", filepath.Join(dir, "nope")}, "nope"},
	} {
		r := run(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("rwdiag %s: %s\nwant exit 2 and %q", strings.Join(tt.args, " "), r, tt.want)
		}
	}
}

// analyze --format html (or -o *.html) writes one page with the findings.
func TestAnalyzeHTML(t *testing.T) {
	dir := writeTestDir(t, timelineFiles)
	out := filepath.Join(t.TempDir(), "report.html")
	r := run(t, "analyze", dir, "-o", out, "--fail-on", "never")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "default-src 'none'", "Timeline", "rw-compute-0"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if r = run(t, "analyze", dir, "--format", "markdown", "--fail-on", "never"); r.code != 0 || !strings.Contains(r.stdout, "# rwdiag report") {
		t.Errorf("markdown: %s", r)
	}
}
