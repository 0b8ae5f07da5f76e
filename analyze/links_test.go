package analyze

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// A finding whose rule names another in caused_by is linked to that rule's
// finding when the cause began first, both ways, and not when it began after.
func TestLinkFindings(t *testing.T) {
	rules, err := ParseRules("links.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-backfill
    pattern: backfill-starvation
    severity: warning
    title: backfill
    signals:
      started: {log: {regex: 'backfill started'}}
    condition: len(started) > 0
    summary: s
    remediation: r
  - id: test-oom
    pattern: oom-crash-loop
    severity: critical
    title: oom
    caused_by: [test-backfill]
    signals:
      killed: {log: {regex: 'killed'}}
    condition: len(killed) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, log string
		linked    bool
	}{
		{"cause first", "2026-11-30T10:00:00Z  INFO x: backfill started\n2026-11-30T10:05:00Z ERROR x: killed\n", true},
		{"cause after", "2026-11-30T10:00:00Z ERROR x: killed\n2026-11-30T10:05:00Z  INFO x: backfill started\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "logs", "rw-compute-0", "compute.log")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Analyze(context.Background(), dir, rules, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			links := map[string][]Link{}
			for _, f := range rep.Findings {
				links[f.Rule] = f.Links
			}
			if len(rep.Findings) != 2 {
				t.Fatalf("findings %+v, want both rules firing", rep.Findings)
			}
			if !tc.linked {
				if len(links["test-oom"])+len(links["test-backfill"]) != 0 {
					t.Fatalf("links %+v, want none", links)
				}
				return
			}
			if l := links["test-oom"]; len(l) != 1 || l[0].Relation != "caused-by" || l[0].Rule != "test-backfill" {
				t.Errorf("oom links %+v, want caused-by test-backfill", l)
			}
			if l := links["test-backfill"]; len(l) != 1 || l[0].Relation != "explains" || l[0].Rule != "test-oom" {
				t.Errorf("backfill links %+v, want explains test-oom", l)
			}
		})
	}
}
