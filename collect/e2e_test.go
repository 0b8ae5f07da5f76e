package collect_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/collect"
	"github.com/rwdiag/rwdiag/rules"
)

// firing returns the firing findings as "rule subject", sorted.
func firing(t *testing.T, path string, rs []*analyze.Rule) []string {
	t.Helper()
	rep, err := analyze.Analyze(context.Background(), path, rs, bundle.Options{})
	if err != nil {
		t.Fatalf("analyze %s: %v", path, err)
	}
	var out []string
	for _, f := range rep.Findings {
		if f.Status == analyze.StatusFiring {
			out = append(out, f.Rule+" "+f.Subject)
		}
	}
	slices.Sort(out)
	return out
}

// End to end: collecting from the API server that serves the sample bundle's
// objects, logs and scrapes gives a bundle on which the built-in rules fire
// exactly as they do on the sample itself.
func TestCollectThenAnalyze(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	want := firing(t, sampleDir, rs)
	if len(want) == 0 {
		t.Fatalf("no rule fires on %s: the test would prove nothing", sampleDir)
	}

	api := newFakeAPI(t)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := firing(t, res.Path, rs)
	if !slices.Equal(got, want) {
		t.Errorf("firing findings on the collected bundle:\n  %q\nwant, as on %s:\n  %q", got, sampleDir, want)
	}
}
