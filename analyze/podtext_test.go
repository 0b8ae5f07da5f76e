package analyze_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// fixtureBody reads a kubetext shape fixture without its "# " header.
func fixtureBody(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "shapes", "kubetext", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
}

// Without pods.json, the OOM rule reads pods from kubectl describe text and
// from the kubectl get pods table, and cites the file it read them from.
func TestPodsFromKubectlText(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, fixture string
		want                []string // firing OOM subjects
		undecided           []string // subjects the rule cannot decide
	}{
		// compute-0 is OOMKilled (137) in CrashLoopBackOff with 6 restarts.
		{"describe", "kubernetes/describe/pods.txt", "v1.37-describe-oom-crashloop.txt", []string{"rw-prod-compute-0"}, nil},
		// Only compute-3's STATUS says OOMKilled; compute-0's CrashLoopBackOff
		// does not say why, nor do compute-2's three restarts (Running again):
		// neither is called an OOM nor passed.
		{"get pods table", "kubernetes/pods.txt", "v1.37-get-pods.txt", []string{"rw-prod-compute-3"}, []string{"rw-prod-compute-0", "rw-prod-compute-2"}},
		// A liveness kill (137 without OOMKilled), a Completed restart, a crash.
		{"describe near misses", "kubernetes/describe/pods.txt", "v1.28-describe-near-misses.txt", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeBundle(t, map[string]string{tc.path: string(fixtureBody(t, tc.fixture))})
			rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got, undecided []string
			for _, f := range rep.Findings {
				if f.Rule != "compute-oom-crash-loop" {
					continue
				}
				if f.Status != analyze.StatusFiring {
					undecided = append(undecided, f.Subject)
					continue
				}
				got = append(got, f.Subject)
				if len(f.Evidence) == 0 || f.Evidence[0].Path != tc.path {
					t.Errorf("%s: evidence %+v, want it from %s", f.Subject, f.Evidence, tc.path)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("OOM findings on %v, want %v", got, tc.want)
			}
			if strings.Join(undecided, ",") != strings.Join(tc.undecided, ",") {
				t.Errorf("OOM undecided on %v, want %v", undecided, tc.undecided)
			}
		})
	}
}
