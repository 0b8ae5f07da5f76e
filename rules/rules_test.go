package rules_test

import (
	"context"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/rules"
)

// The built-in rules load and lint clean. Lint compiles every expression
// of every rule, which analyze leaves until a rule is decided.
func TestBuiltinRulesLoad(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatalf("built-in rules:\n%v", err)
	}
	if linted, probs := analyze.LintFS(rules.FS, rules.Prefix); len(probs) > 0 || len(linted) != len(rs) {
		t.Fatalf("built-in rules: lint loads %d of %d:\n%v", len(linted), len(rs), probs)
	}
	if len(rs) == 0 {
		t.Fatal("no built-in rules")
	}
	patterns := map[string]bool{}
	for _, r := range rs {
		patterns[r.Pattern] = true
	}
	for _, p := range []string{"barrier-stall", "offset-replay", "oom-crash-loop", "backfill-starvation", "sink-blockage"} {
		if !patterns[p] {
			t.Errorf("no built-in rule for pattern %s", p)
		}
	}
}

// Every built-in rule test passes, and every built-in rule has at least one
// case where it fires and one near miss: a case that runs it on a bundle and
// expects it to stay silent.
func TestBuiltinRuleTests(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := analyze.LoadTestFS(rules.FS)
	if err != nil {
		t.Fatalf("built-in rule tests:\n%v", err)
	}
	for _, res := range analyze.RunTests(context.Background(), cases, rs, nil) {
		if !res.Pass {
			t.Errorf("FAIL %s", res)
		}
	}
	for _, r := range rs {
		fires, silent := 0, 0
		for _, c := range cases {
			if !c.Runs(r.ID) {
				continue
			}
			if c.Expects(r.ID) {
				fires++
			} else if c.Bundle != "" || len(c.Files) > 0 {
				silent++
			}
		}
		if fires == 0 {
			t.Errorf("rule %s has no test case where it fires", r.ID)
		}
		if silent == 0 {
			t.Errorf("rule %s has no near-miss test case where it stays silent", r.ID)
		}
	}
}

// Every sample in samples/ gets exactly the findings samples/expectations_test.yaml
// lists for it, with the built-in rules, and every sample has a case.
func TestSamplesMatchExpectations(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := analyze.LoadTestPaths([]string{"../samples/expectations_test.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.Bundle] = true
	}
	entries, err := os.ReadDir("../samples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch {
		case !e.IsDir() || e.Name() == "gen":
		case e.Name() == "variety":
			// samples/variety/<pattern>-v<N>: the -variety bundles, one case each.
			vs, err := os.ReadDir("../samples/variety")
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				if v.IsDir() && !covered["variety/"+v.Name()] {
					t.Errorf("samples/variety/%s has no case in samples/expectations_test.yaml", v.Name())
				}
			}
		case !covered[e.Name()]:
			t.Errorf("samples/%s has no case in samples/expectations_test.yaml", e.Name())
		}
	}
	for _, res := range analyze.RunTests(context.Background(), cases, rs, nil) {
		if !res.Pass {
			t.Errorf("FAIL %s", res)
		}
	}
}

// Every case whose bundle is a real-shape fixture (testdata/shapes/...) names
// the RisingWave tag and source files it follows, and each of the five
// patterns has firing real-shape cases on a v1.x, a v2.x and a v3.x (or newer)
// shape, every other pattern on a v2.x and a v3.x shape.
func TestRealShapeCases(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	pattern := map[string]string{}
	for _, r := range rs {
		pattern[r.ID] = r.Pattern
	}
	cases, err := analyze.LoadTestFS(rules.FS)
	if err != nil {
		t.Fatal(err)
	}
	majorRE := regexp.MustCompile(`\bv([0-9]+)\.[0-9]+`)
	fired := map[string]map[string]bool{} // pattern -> "v1"/"v2"/"v3"
	for _, c := range cases {
		if !strings.HasPrefix(c.Bundle, "testdata/shapes/") {
			continue
		}
		if c.Shape == "" {
			t.Errorf("%s: real-shape case has no shape: (the RisingWave tag and source files it follows)", c.Name)
			continue
		}
		m := majorRE.FindStringSubmatch(c.Shape)
		if m == nil {
			t.Errorf("%s: shape %q names no release tag", c.Name, c.Shape)
			continue
		}
		major := "v" + m[1]
		if n, _ := strconv.Atoi(m[1]); n > 3 {
			major = "v3"
		}
		for _, e := range c.Expect {
			if e.Status != "" && e.Status != string(analyze.StatusFiring) {
				continue
			}
			p := pattern[e.Rule]
			if fired[p] == nil {
				fired[p] = map[string]bool{}
			}
			fired[p][major] = true
		}
	}
	// The five of the field guide on every major version; the failure
	// modes under them (issue 15) on v2.x and v3.x, the versions their
	// metrics and log lines exist in.
	five := []string{"barrier-stall", "offset-replay", "oom-crash-loop", "backfill-starvation", "sink-blockage"}
	patterns := map[string]bool{}
	for _, p := range pattern {
		patterns[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(patterns)) {
		majors := []string{"v2", "v3"}
		if slices.Contains(five, p) {
			majors = []string{"v1", "v2", "v3"}
		}
		for _, v := range majors {
			if !fired[p][v] {
				t.Errorf("pattern %s: no real-shape case on a %s.x bundle where it fires", p, v)
			}
		}
	}
}
