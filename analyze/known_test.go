package analyze

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// knownEntry is a valid entry; tests replace its lines to break it.
const knownEntry = `apiVersion: rwdiag/v1
kind: KnownIssue
id: rw-100-widget-panic
issue: 100
pr: [101]
title: The widget executor panics on an empty key
affects: ">= 1.9.0, < 1.9.2 || >= 1.10.0, < 2.0.1"
fixed_in: [v2.0.1, v1.9.2]
status: fixed
confirmed: git log v1.9.2 --format=%s | grep '(#101)'
source_text:
  - {text: 'widget panicked', at: v2.0.0, path: src/stream/src/executor/widget.rs}
explains: [widget-stall]
links: [https://github.com/risingwavelabs/risingwave/issues/100]
signals:
  panic:
    log:
      component: compute
      regex: 'widget panicked on key (?P<key>\w+)'
requires: panic
condition: len(panic) > 0
summary: The widget panicked {{ len .panic }} time(s).
evidence: [panic]
`

func parseKnown(t *testing.T, data string) (*Rule, error) {
	t.Helper()
	rs, err := ParseRules("rw-100-widget-panic.yaml", []byte(data))
	if len(rs) > 1 {
		t.Fatalf("%d rules from one entry", len(rs))
	}
	if len(rs) == 1 {
		return rs[0], err
	}
	return nil, err
}

func TestKnownIssueParses(t *testing.T) {
	r, err := parseKnown(t, knownEntry)
	if err != nil {
		t.Fatal(err)
	}
	k := r.Known
	if k == nil || r.Pattern != PatternKnownIssue || r.Severity != SeverityWarning || r.Versions != k.Affects {
		t.Fatalf("got %+v", r)
	}
	if got := strings.Join(k.FixedIn, ","); got != "v1.9.2,v2.0.1" {
		t.Errorf("fixed_in sorted = %s", got)
	}
	if got, want := k.AffectsText(), "v1.9.0 to before v1.9.2 and v1.10.0 to before v2.0.1"; got != want {
		t.Errorf("AffectsText = %q, want %q", got, want)
	}
	for _, c := range []struct {
		v       string
		applies bool
		target  string
	}{
		{"1.8.5", false, "v1.9.2"},
		{"1.9.0", true, "v1.9.2"},       // the fix on its own line
		{"1.9.1", true, "v1.9.2"},       //
		{"1.9.2", false, "v2.0.1"},      // fixed; a later fix is what a later line needs
		{"1.10.3", true, "v2.0.1"},      // no fix on 1.10: the lowest later one
		{"2.0.0", true, "v2.0.1"},       //
		{"v2.0.0-rc.1", true, "v2.0.1"}, // pre-releases are their core version
		{"2.0.1", false, "v2.0.1"},      //
		{"", true, "v1.9.2"},            // unknown: evaluated, the lowest fix
		{"nightly-20240101", true, "v1.9.2"},
	} {
		if got := r.AppliesTo(c.v); got != c.applies {
			t.Errorf("AppliesTo(%q) = %v, want %v", c.v, got, c.applies)
		}
		if got := k.UpgradeTarget(c.v); got != c.target {
			t.Errorf("UpgradeTarget(%q) = %q, want %q", c.v, got, c.target)
		}
	}
	if got, want := k.Text("1.10.3"), "Matches risingwavelabs/risingwave#100 (affects v1.9.0 to before v1.9.2 and v1.10.0 to before v2.0.1, fixed in v1.9.2 and v2.0.1); this cluster runs v1.10.3: upgrade to v2.0.1 or later."; got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
	for affects, want := range map[string]string{
		">= 2.8.0":                     "v2.8.0 and later",
		"< 1.10.1":                     "before v1.10.1",
		"<= 1.10.0":                    "v1.10.0 and earlier",
		">= 2.5.0, < 2.5.2 || = 2.6.0": "v2.5.0 to before v2.5.2 and v2.6.0",
		">= 1.0.0, <= 1.0.3":           "v1.0.0 to v1.0.3",
		"~> 1.9":                       "~> 1.9",
	} {
		if got := (&KnownIssue{Affects: affects}).AffectsText(); got != want {
			t.Errorf("AffectsText(%q) = %q, want %q", affects, got, want)
		}
	}
	// An open bug: no upgrade target, the workaround in the summary.
	open := strings.Replace(knownEntry, "fixed_in: [v2.0.1, v1.9.2]\nstatus: fixed", "status: open\nworkaround: |\n  Restart the meta node\n  once.", 1)
	ro, err := parseKnown(t, open)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ro.Known.Text("2.0.0"), "Matches risingwavelabs/risingwave#100 (affects v1.9.0 to before v1.9.2 and v1.10.0 to before v2.0.1, no fix yet); this cluster runs v2.0.0; workaround: Restart the meta node once."; got != want {
		t.Errorf("open Text =\n%s\nwant\n%s", got, want)
	}
	if got := ro.Known.Remediation("2.0.0"); got != "No fix yet. Workaround:\n\nRestart the meta node\nonce." || ro.Known.UpgradeTarget("2.0.0") != "" {
		t.Errorf("open Remediation = %q", got)
	}
	// affects as a list of alternatives is the same range.
	list := strings.Replace(knownEntry, `affects: ">= 1.9.0, < 1.9.2 || >= 1.10.0, < 2.0.1"`, "affects:\n  - \">= 1.9.0, < 1.9.2\"\n  - \">= 1.10.0, < 2.0.1\"", 1)
	r2, err := parseKnown(t, list)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Known.Affects != k.Affects || !r2.AppliesTo("1.9.1") || r2.AppliesTo("1.9.5") {
		t.Errorf("affects as a list: %q", r2.Known.Affects)
	}
}

// Each defect of an entry is a problem at its line and column, all at once.
func TestKnownIssueProblems(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new string
		want     []string // "LINE:COL substring"
		fileName string
	}{
		{name: "unknown key", old: "status: fixed\n", new: "status: fixed\nfixed_by: [101]\n", want: []string{`10:1 unknown field "fixed_by"`}},
		{name: "bad range", old: `">= 1.9.0, < 1.9.2 || >= 1.10.0, < 2.0.1"`, new: `">= 1.9.0, < 1.9.2 || >= one"`, want: []string{`7:10 ">= one": malformed constraint`}},
		{name: "empty range", old: `">= 1.9.0, < 1.9.2 || >= 1.10.0, < 2.0.1"`, new: `">= 2.1.0, < 2.0.0"`,
			want: []string{"7:10 no version is in this range"}},
		{name: "bad regex", old: `(?P<key>\w+)`, new: `(?P<key>\w+`, want: []string{"19:14 missing closing )"}},
		{name: "fixed_in inside affects", old: "fixed_in: [v2.0.1, v1.9.2]", new: "fixed_in: [v2.0.1, v1.9.1]", want: []string{"8:20 v1.9.1 is inside affects"}},
		{name: "fixed_in not a tag", old: "fixed_in: [v2.0.1, v1.9.2]", new: "fixed_in: [v2.0.1, 1.9.2]", want: []string{"8:20 write the release tag"}},
		{name: "open without workaround", old: "fixed_in: [v2.0.1, v1.9.2]\nstatus: fixed", new: "status: open", want: []string{"8:9 required with status open"}},
		{name: "open with a fix", old: "status: fixed", new: "status: open\nworkaround: restart", want: []string{"8:1 given with status open"}},
		{name: "fixed without confirmed", old: "confirmed: git log v1.9.2 --format=%s | grep '(#101)'\n", new: "", want: []string{"9:9 required with status fixed: how fixed_in"}},
		{name: "bad status", old: "status: fixed", new: "status: done", want: []string{`9:9 "done": want fixed, open or workaround`}},
		{name: "source text outside affects", old: "at: v2.0.0", new: "at: v2.0.1", want: []string{"12:35 v2.0.1 is outside affects"}},
		{name: "no source text", old: "source_text:\n  - {text: 'widget panicked', at: v2.0.0, path: src/stream/src/executor/widget.rs}\n", new: "", want: []string{"3:5 required: a text of the signature"}},
		{name: "id names another number", old: "id: rw-100-widget-panic", new: "id: rw-102-widget-panic", fileName: "rw-102-widget-panic.yaml", want: []string{"3:5 neither the issue nor a fix PR"}},
		{name: "id is not the file name", fileName: "rw-100-other.yaml", want: []string{`3:5 "rw-100-widget-panic" differs from the file name "rw-100-other"`}},
		{name: "link not https", old: "links: [https://", new: "links: [http://", want: []string{"14:9 want an https:// address"}},
		{name: "no issue", old: "issue: 100\npr: [101]\n", new: "", want: []string{"3:5 neither the issue nor a fix PR", "required (or pr: [N]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := knownEntry
			if c.old != "" {
				if !strings.Contains(data, c.old) {
					t.Fatalf("the entry has no %q", c.old)
				}
				data = strings.Replace(data, c.old, c.new, 1)
			}
			name := c.fileName
			if name == "" {
				name = "rw-100-widget-panic.yaml"
			}
			rs, err := ParseRules(name, []byte(data))
			var probs Problems
			if !errors.As(err, &probs) || len(rs) != 0 {
				t.Fatalf("got %d rules, err %v; want problems", len(rs), err)
			}
			if len(probs) != len(c.want) {
				t.Errorf("got %d problems, want %d:\n%v", len(probs), len(c.want), probs)
			}
			for _, w := range c.want {
				pos, msg, _ := strings.Cut(w, " ")
				if !strings.Contains(pos, ":") {
					pos, msg = "", w
				}
				found := false
				for _, p := range probs {
					if (pos == "" || fmt.Sprintf("%d:%d", p.Line, p.Column) == pos) && strings.Contains(p.Error(), msg) {
						found = true
					}
				}
				if !found {
					t.Errorf("no problem at %s containing %q; got:\n%v", pos, msg, probs)
				}
			}
		})
	}
}

// A known issue fires only on a version in its range (one severity lower
// when the version is unknown), says what to upgrade to, is linked to the
// pattern finding it explains, and gives no finding when its evidence is
// missing.
func TestKnownIssueEvaluates(t *testing.T) {
	entry, err := parseKnown(t, knownEntry)
	if err != nil {
		t.Fatal(err)
	}
	stall, err := ParseRules("stall.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: widget-stall
    pattern: barrier-stall
    severity: critical
    title: Widget stall
    signals:
      stuck: {log: {component: compute, regex: 'barrier stuck'}}
    condition: len(stuck) > 0
    summary: stuck
    remediation: wait
`))
	if err != nil {
		t.Fatal(err)
	}
	rules := append(stall, entry)
	log := "2024-09-01T10:00:00Z ERROR risingwave_stream: widget panicked on key k1\n2024-09-01T10:00:05Z WARN risingwave_stream: barrier stuck\n"
	run := func(version string, files map[string]string) *Report {
		t.Helper()
		dir := t.TempDir()
		if version != "" {
			files["sql/rw_worker_nodes.csv"] = "id,type,rw_version\n1,WORKER_TYPE_COMPUTE_NODE," + version + "\n"
		}
		for p, content := range files {
			full := filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := Analyze(context.Background(), dir, rules, bundle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	find := func(rep *Report, id string) (*Finding, RuleResult) {
		var res RuleResult
		for _, rr := range rep.Rules {
			if rr.ID == id {
				res = rr
			}
		}
		for i := range rep.Findings {
			if rep.Findings[i].Rule == id {
				return &rep.Findings[i], res
			}
		}
		return nil, res
	}

	rep := run("1.10.3", map[string]string{"logs/rw-compute-0/compute.log": log})
	f, res := find(rep, "rw-100-widget-panic")
	if f == nil || res.Status != RuleFired || res.Kind != FindingKindKnownIssue {
		t.Fatalf("in range: finding %v, result %+v", f, res)
	}
	if f.Kind != FindingKindKnownIssue || f.KnownIssue == nil || f.KnownIssue.UpgradeTo != "v2.0.1" || f.Severity != SeverityWarning ||
		!strings.HasPrefix(f.Summary, "Matches risingwavelabs/risingwave#100 (") ||
		!strings.Contains(f.Summary, "this cluster runs v1.10.3: upgrade to v2.0.1 or later. The widget panicked 1 time(s).") ||
		!strings.HasPrefix(f.Remediation, "Upgrade RisingWave to v2.0.1 or later (the fix: risingwavelabs/risingwave#101).") {
		t.Errorf("in range: %+v", f)
	}
	s, _ := find(rep, "widget-stall")
	if s == nil || len(s.Links) != 1 || s.Links[0].Relation != "caused-by" || s.Links[0].Rule != entry.ID ||
		len(f.Links) != 1 || f.Links[0].Relation != "explains" || f.Links[0].Rule != "widget-stall" {
		t.Errorf("links: stall %+v, known %+v", s, f.Links)
	}

	for _, v := range []string{"1.9.2", "2.0.1", "1.8.0"} {
		rep = run(v, map[string]string{"logs/rw-compute-0/compute.log": log})
		if f, res := find(rep, entry.ID); f != nil || res.Status != RuleSkipped || !strings.Contains(res.Reason, "outside the affected versions") {
			t.Errorf("%s, outside the range: finding %v, result %+v", v, f, res)
		}
	}

	rep = run("", map[string]string{"logs/rw-compute-0/compute.log": log})
	if f, _ := find(rep, entry.ID); f == nil || f.Severity != SeverityInfo || !f.KnownIssue.VersionUnknown ||
		!strings.Contains(f.Summary, "does not say which RisingWave version runs") {
		t.Errorf("unknown version: %+v", f)
	}

	rep = run("1.10.3", map[string]string{"logs/rw-meta-0/meta.log": "2024-09-01T10:00:00Z INFO risingwave_meta: started\n"})
	if f, res := find(rep, entry.ID); f != nil || res.Status != RuleInconclusive || res.Kind != FindingKindKnownIssue || !strings.Contains(res.Reason, "no compute logs") {
		t.Errorf("no compute logs: finding %v, result %+v", f, res)
	}
}

// The example entry in docs/known-issues.md loads as the file it names.
func TestKnownIssuesDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/known-issues.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)`known-issues/(rw-[a-z0-9-]+\\.yaml)`:\\s*```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/known-issues.md has no example entry")
	}
	rs, err := ParseRules(string(m[1]), m[2])
	if err != nil || len(rs) != 1 || rs[0].Known == nil {
		t.Fatalf("the example entry does not load: %v", err)
	}
	if !rs[0].AppliesTo("1.10.2") || rs[0].AppliesTo("2.0.0") || rs[0].Known.UpgradeTarget("1.10.2") != "v2.0.0" {
		t.Errorf("the example's range: %q", rs[0].Versions)
	}
}
