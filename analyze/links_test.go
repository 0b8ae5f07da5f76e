package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

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
			dir := writeBundleDir(t, map[string]string{"logs/rw-compute-0/compute.log": tc.log})
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

// A chain entry follows caused-by links to the root cause, names each step
// and its fingerprint nearest first, starts at the effect's first-held
// time, and ends when a finding repeats (a cycle of rules naming each
// other); findings that explain nothing and are caused by nothing get none.
func TestChainEntries(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 11, 29, 20, m, 0, 0, time.UTC) }
	link := func(rel, rule, subj, fp string) Link {
		return Link{Relation: rel, Rule: rule, Subject: subj, Fingerprint: fp}
	}
	fs := []Finding{
		{Rule: "replay", Subject: "src_orders", SubjectKind: "source", Fingerprint: "r", Status: StatusFiring, Severity: SeverityWarning,
			Evidence: []Evidence{{Path: "logs/c/compute.log", Line: 9, Time: at(30)}, {Path: "logs/c/compute.log", Line: 4, Time: at(20)}},
			Links:    []Link{link("caused-by", "restart", "meta-0", "m")}},
		{Rule: "restart", Subject: "meta-0", SubjectKind: "pod", Fingerprint: "m", Status: StatusFiring, Severity: SeverityCritical,
			Evidence: []Evidence{{Path: "logs/meta-0/meta.log", Line: 2, Time: at(10)}},
			Links:    []Link{link("explains", "replay", "src_orders", "r"), link("caused-by", "store", "cluster", "s")}},
		{Rule: "store", Subject: "cluster", Fingerprint: "s", Status: StatusFiring, Severity: SeverityCritical,
			Evidence: []Evidence{{Path: "logs/meta-0/meta.log", Line: 1, Time: at(5)}},
			Links:    []Link{link("explains", "restart", "meta-0", "m")}},
		{Rule: "lonely", Subject: "x", Fingerprint: "l", Status: StatusFiring, Evidence: []Evidence{{Time: at(1)}}},
	}
	es := chainEntries(fs, map[string]*MetricHistory{"m": {FirstHeld: at(8), FirstPath: "metrics/meta-0/1.prom"}})
	if len(es) != 2 {
		t.Fatalf("got %d chain entries, want 2 (replay, restart): %+v", len(es), es)
	}
	if e := es[0]; e.Text != "replay (src_orders) <- likely caused by restart (meta-0) <- likely caused by store (cluster)" ||
		!e.Time.Equal(at(20)) || e.Path != "logs/c/compute.log" || e.Line != 4 || e.Pod != "" ||
		strings.Join(e.CausedBy, ",") != "m,s" || e.Source != SourceChain || e.Level != "WARN" {
		t.Errorf("replay's chain entry = %+v", e)
	}
	if e := es[1]; e.Text != "restart (meta-0) <- likely caused by store (cluster)" || !e.Time.Equal(at(8)) || e.Pod != "meta-0" || e.Level != "ERROR" ||
		e.Path != "metrics/meta-0/1.prom" || e.Line != 0 {
		t.Errorf("restart's chain entry (first held from its metric history) = %+v", e)
	}

	// Two rules naming each other: the chain stops at the repeat.
	cyc := []Finding{
		{Rule: "a", Subject: "s", Fingerprint: "a", Status: StatusFiring, Evidence: []Evidence{{Time: at(1)}}, Links: []Link{link("caused-by", "b", "s", "b")}},
		{Rule: "b", Subject: "s", Fingerprint: "b", Status: StatusFiring, Evidence: []Evidence{{Time: at(2)}}, Links: []Link{link("caused-by", "a", "s", "a")}},
	}
	es = chainEntries(cyc, nil)
	if len(es) != 2 || es[0].Text != "a (s) <- likely caused by b (s) <- likely caused by a (s)" {
		t.Errorf("cyclic chain = %+v", es)
	}
}

// With caused_by_match: pod, a finding about a pod links only to causes
// that name that pod (subject or evidence, as a whole name); a finding
// about the cluster links to any; and a rule test can assert links.
func TestLinkByPod(t *testing.T) {
	rules, err := ParseRules("links.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-hot-key
    pattern: hot-join-key
    severity: warning
    title: hot key
    subject: {kind: pod, field: pod}
    signals:
      hot: {log: {regex: 'large rows matched'}}
    condition: len(hot) > 0
    summary: s
    remediation: r
  - id: test-stall
    pattern: barrier-stall
    severity: critical
    title: stall
    caused_by: [test-hot-key]
    caused_by_match: pod
    subject: {kind: pod, field: pod}
    signals:
      stuck: {log: {regex: 'stuck'}}
    condition: len(stuck) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	const hot = "2026-11-30T10:00:00Z  WARN x: large rows matched for join key\n"
	const stuck = "2026-11-30T10:05:00Z ERROR x: stuck\n"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		linked  bool
		explain string // expectation of a rule test
	}{
		{"same pod", map[string]string{"rw-compute-1": hot + stuck}, true, "[test-hot-key]"},
		{"other pod", map[string]string{"rw-compute-0": hot, "rw-compute-1": stuck}, false, "[]"},
		{"prefix is not the pod", map[string]string{"rw-compute-10": hot, "rw-compute-1": stuck}, false, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for pod, text := range tc.files {
				files["logs/"+pod+"/compute.log"] = text
			}
			dir := writeBundleDir(t, files)
			rep, err := Analyze(context.Background(), dir, rules, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var links []Link
			for _, f := range rep.Findings {
				if f.Rule == "test-stall" {
					links = f.Links
				}
			}
			if got := len(links) == 1 && links[0].Rule == "test-hot-key"; got != tc.linked || len(links) > 1 {
				t.Errorf("stall links %+v, want linked=%v", links, tc.linked)
			}
			// The same through a rule test's caused_by expectation: it
			// passes with the links there are and fails with the others.
			hotPod := "rw-compute-1"
			for pod, text := range tc.files {
				if strings.Contains(text, "large rows") {
					hotPod = pod
				}
			}
			for _, want := range []string{tc.explain, map[bool]string{true: "[]", false: "[test-hot-key]"}[tc.linked]} {
				var files strings.Builder
				for pod, text := range tc.files {
					fmt.Fprintf(&files, "      logs/%s/compute.log: %q\n", pod, text)
				}
				src := fmt.Sprintf(`apiVersion: rwdiag/v1
kind: RuleTest
tests:
  - name: c
    files:
%s    expect:
      - {rule: test-stall, subject: rw-compute-1, caused_by: %s}
      - {rule: test-hot-key, subject: %s}
`, files.String(), want, hotPod)
				cases, err := LoadTestFS(fstest.MapFS{"t_test.yaml": {Data: []byte(src)}})
				if err != nil {
					t.Fatal(err)
				}
				res := RunTests(context.Background(), cases, rules, nil)
				if len(res) != 1 || res[0].Err != nil {
					t.Fatalf("rule test: %+v", res)
				}
				if pass := want == tc.explain; res[0].Pass != pass {
					t.Errorf("rule test expecting caused_by %s: pass=%v, want %v (got %v)", want, res[0].Pass, pass, res[0].Got)
				}
			}
		})
	}
}

// A rule that defers to its cause is one severity lower when that cause
// fires and is linked, and its link says so; without the cause it keeps
// its severity; defer_to must name a rule of caused_by.
func TestDeferToCause(t *testing.T) {
	src := `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: test-oom
    pattern: oom-crash-loop
    severity: critical
    title: oom
    signals:
      killed: {log: {regex: 'OOMKilled'}}
    condition: len(killed) > 0
    summary: s
    remediation: r
  - id: test-recovery
    pattern: recovery-loop
    severity: critical
    title: recovery
    caused_by: [test-oom]
    defer_to: [%s]
    signals:
      start: {log: {regex: 'recovery start'}}
    condition: len(start) > 0
    summary: s
    remediation: r
`
	if _, err := ParseRules("links.yaml", []byte(fmt.Sprintf(src, "test-other"))); err == nil || !strings.Contains(err.Error(), `defer_to[0]: "test-other" is not in caused_by`) {
		t.Errorf("defer_to outside caused_by: err = %v", err)
	}
	rules, err := ParseRules("links.yaml", []byte(fmt.Sprintf(src, "test-oom")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, log string
		want      Severity
	}{
		{"with its cause", "2026-11-30T10:00:00Z ERROR x: OOMKilled\n2026-11-30T10:01:00Z  WARN x: recovery start\n", SeverityWarning},
		{"alone", "2026-11-30T10:01:00Z  WARN x: recovery start\n", SeverityCritical},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeBundleDir(t, map[string]string{"logs/rw-meta-0/meta.log": tc.log})
			rep, err := Analyze(context.Background(), dir, rules, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Rule != "test-recovery" {
					continue
				}
				if f.Severity != tc.want {
					t.Errorf("severity %v, want %v", f.Severity, tc.want)
				}
				deferred := len(f.Links) == 1 && f.Links[0].Deferred && strings.Contains(f.Links[0].String(), "fix that first")
				if deferred != (tc.want == SeverityWarning) {
					t.Errorf("links %+v", f.Links)
				}
				return
			}
			t.Fatalf("no test-recovery finding in %+v", rep.Findings)
		})
	}
}
