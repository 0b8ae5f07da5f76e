package knownissues_test

import (
	"context"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	knownissues "github.com/rwdiag/rwdiag/known-issues"
	"github.com/rwdiag/rwdiag/rules"
)

// load loads the base over the built-in rules (which explains names).
func load(t *testing.T) (known, all []*analyze.Rule) {
	t.Helper()
	known, err := analyze.LoadFS(knownissues.FS, knownissues.Prefix)
	if err != nil {
		t.Fatalf("known-issue base:\n%v", err)
	}
	// The built-in rules are tested in package rules: here they only give
	// explains its targets and the runs their company.
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Logf("built-in rules (tested in package rules):\n%v", err)
	}
	all, err = analyze.Merge(rs, known, nil)
	if err != nil {
		t.Fatal(err)
	}
	return known, all
}

// The base loads and lints clean, every file is an entry or its tests, and
// every entry's explains names a built-in rule.
func TestBaseLoads(t *testing.T) {
	known, all := load(t)
	if len(known) == 0 {
		t.Fatal("no known issues")
	}
	for _, r := range known {
		if r.Known == nil || r.Pattern != analyze.PatternKnownIssue {
			t.Errorf("%s (%s): not a known issue", r.ID, r.File)
		}
	}
	if probs := analyze.CheckExplains(known, all); len(probs) > 0 {
		t.Errorf("explains:\n%v", probs)
	}
	_, probs := analyze.LintFS(knownissues.FS, knownissues.Prefix)
	for _, p := range probs {
		t.Errorf("lint: %v", p)
	}
}

// Every entry's tests pass, and every entry has a case where it fires on a
// version in its range, a near miss (a bundle in range where it stays
// silent) and a case on a version outside its range that must not fire.
func TestEntries(t *testing.T) {
	known, all := load(t)
	cases, err := analyze.LoadTestFS(knownissues.FS)
	if err != nil {
		t.Fatalf("known-issue tests:\n%v", err)
	}
	version := map[*analyze.TestCase]string{} // the RisingWave version each case's bundle runs
	for _, res := range analyze.RunTests(context.Background(), cases, all, nil) {
		if !res.Pass {
			t.Errorf("FAIL %s", res)
		}
		version[res.Case] = res.Version
	}
	for _, r := range known {
		fires, near, outside := 0, 0, 0
		for _, c := range cases {
			if !c.Runs(r.ID) || len(c.Rules) == 0 {
				continue
			}
			ver := version[c]
			switch {
			case c.Expects(r.ID) && ver != "" && r.AppliesTo(ver):
				fires++
			case c.Expects(r.ID):
			case ver != "" && !r.AppliesTo(ver):
				outside++
			case ver != "":
				near++
			}
		}
		if fires == 0 {
			t.Errorf("%s: no test case where it fires on a version in %q", r.ID, r.Versions)
		}
		if near == 0 {
			t.Errorf("%s: no near-miss test case (a version in range, expect: [])", r.ID)
		}
		if outside == 0 {
			t.Errorf("%s: no test case on a version outside %q (expect: [])", r.ID, r.Versions)
		}
	}
}
