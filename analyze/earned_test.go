package analyze_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// copyTree copies the sample's entries under each of the given paths
// (relative to samples/compound-incident) into a new bundle directory.
func partialBundle(t *testing.T, keep func(rel string) bool) string {
	t.Helper()
	src := filepath.Join("..", "samples", "compound-incident")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if !keep(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// On bundles that hold only part of the evidence, no rule passes unless it
// read the evidence that would have shown its incident, every rule that ran
// says what it examined, and what it read is named with its coverage.
func TestPassedIsEarned(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	isComponent := func(rel, prefix, component string) bool {
		return strings.HasPrefix(rel, prefix) && strings.Contains(rel, "-"+component+"-")
	}
	for _, tc := range []struct {
		name string
		keep func(rel string) bool
		// notPassed are rules that must not pass: what decides them is absent.
		notPassed []string
		// coverage: rule/signal -> text its coverage must contain.
		coverage map[string]string
		// notBundle: Analyze must refuse it as no bundle.
		notBundle bool
	}{
		{name: "only meta logs", keep: func(rel string) bool { return isComponent(rel, "logs/", "meta") },
			notPassed: []string{"barrier-stall-slow-compute-node", "sink-blocking-barriers", "compute-oom-crash-loop", "kafka-offset-replay-after-meta-restart", "backfill-starving-live-jobs", "sink-decoupled-lagging"}},
		{name: "only compute logs", keep: func(rel string) bool { return isComponent(rel, "logs/", "compute") },
			notPassed: []string{"barrier-stall-slow-compute-node", "compute-oom-crash-loop", "kafka-offset-replay-after-meta-restart", "backfill-starving-live-jobs"},
			coverage:  map[string]string{"sink-blocking-barriers/errors": "compute logs of 3 of 3 pods"}},
		{name: "only meta metrics", keep: func(rel string) bool { return isComponent(rel, "metrics/", "meta") },
			notPassed: []string{"barrier-stall-slow-compute-node", "sink-blocking-barriers", "compute-oom-crash-loop", "kafka-offset-replay-after-meta-restart", "backfill-starving-live-jobs", "sink-decoupled-lagging"}},
		{name: "only metrics", keep: func(rel string) bool { return strings.HasPrefix(rel, "metrics/") },
			notPassed: []string{"compute-oom-crash-loop", "kafka-offset-replay-after-meta-restart", "backfill-starving-live-jobs"},
			coverage:  map[string]string{"barrier-stall-slow-compute-node/progress": "metrics of compute (3 pods)"}},
		{name: "only kubectl describe text", keep: func(rel string) bool { return strings.HasPrefix(rel, "kubernetes/describe/") },
			notPassed: []string{"barrier-stall-slow-compute-node", "sink-blocking-barriers", "kafka-offset-replay-after-meta-restart", "backfill-starving-live-jobs", "sink-decoupled-lagging"},
			coverage:  map[string]string{"compute-oom-crash-loop/oom": "kubernetes/describe/pods/"}},
		// An empty directory is no bundle (issue 13): nothing passes on it
		// because nothing is analysed.
		{name: "empty directory", keep: func(string) bool { return false }, notBundle: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := partialBundle(t, tc.keep)
			rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
			if tc.notBundle {
				if !errors.Is(err, bundle.ErrNotBundle) {
					t.Fatalf("err = %v, want bundle.ErrNotBundle", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			status := map[string]analyze.RuleStatus{}
			for _, rr := range rep.Rules {
				status[rr.ID] = rr.Status
				if rr.Status == analyze.RuleSkipped || rr.Status == analyze.RuleError {
					continue
				}
				if len(rr.Examined) == 0 {
					t.Errorf("%s (%s): says nothing of what it examined", rr.ID, rr.Status)
				}
				if rr.Status != analyze.RulePassed {
					continue
				}
				read := false
				for _, e := range rr.Examined {
					if e.Decisive && e.Read {
						read = true
						if e.Coverage == "" {
							t.Errorf("%s: decisive signal %s was read but its coverage is empty", rr.ID, e.Signal)
						}
					}
				}
				if !read {
					t.Errorf("%s passed without reading any decisive input: %+v", rr.ID, rr.Examined)
				}
				for _, e := range rr.Examined {
					if e.Read && e.Kind == "promql" && !strings.HasPrefix(e.Coverage, "metrics of ") {
						t.Errorf("%s/%s: coverage %q does not say which metrics", rr.ID, e.Signal, e.Coverage)
					}
				}
			}
			for _, id := range tc.notPassed {
				if status[id] == analyze.RulePassed {
					t.Errorf("%s passed, but the bundle lacks what decides it", id)
				}
			}
			for key, want := range tc.coverage {
				rule, signal, _ := strings.Cut(key, "/")
				found := false
				for _, rr := range rep.Rules {
					for _, e := range rr.Examined {
						if rr.ID == rule && e.Signal == signal {
							found = true
							if !e.Read || !strings.Contains(e.Coverage, want) {
								t.Errorf("%s: read=%v coverage %q, want it read and to contain %q", key, e.Read, e.Coverage, want)
							}
						}
					}
				}
				if !found {
					t.Errorf("%s: no such examined signal", key)
				}
			}
		})
	}
}

// A file that is present but cannot be read is said to be so, not "not in
// the bundle", and the rules that need it are inconclusive.
func TestUnreadableIsNotMissing(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeBundle(t, map[string]string{
		"kubernetes/pods.json":    "{\"apiVersion\": \"v1\", \"items\": [\n  {\"metadata\": \n",
		"sql/rw_sinks.csv":        "id,name,connector\n1,\"unterminated,kafka\n",
		"diagnose/await-tree.txt": "Error: failed to connect to meta at http://rw-meta:5690\n",
	})
	rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var oom *analyze.RuleResult
	for i := range rep.Rules {
		if rep.Rules[i].ID == "compute-oom-crash-loop" {
			oom = &rep.Rules[i]
		}
	}
	if oom == nil || oom.Status != analyze.RuleInconclusive {
		t.Fatalf("OOM rule: %+v, want inconclusive", oom)
	}
	if !strings.Contains(oom.Reason, "kubernetes/pods.json is present but unreadable") || strings.Contains(oom.Reason, "pods.json not in the bundle") {
		t.Errorf("OOM reason %q, want pods.json present but unreadable", oom.Reason)
	}
	problems := strings.Join(rep.Bundle.Problems, "\n")
	for _, want := range []string{"kubernetes/pods.json", "diagnose/await-tree.txt: no await-tree section or trace could be read"} {
		if !strings.Contains(problems, want) {
			t.Errorf("bundle problems do not mention %q:\n%s", want, problems)
		}
	}
}

// A log in which no line parses is reported and not counted as read; the
// logs that were read are given with their time span.
func TestUnparsedLogIsNotRead(t *testing.T) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	var garbage strings.Builder
	for i := 0; i < 50; i++ {
		garbage.WriteString("\x00\x01binary-ish noise that is no log line at all\n")
	}
	dir := writeBundle(t, map[string]string{
		"logs/rw-compute-0/compute.log": garbage.String(),
		"logs/rw-meta-0/meta.log": "2026-11-30T14:02:11.000001Z  INFO risingwave_meta_node: Starting meta node\n" +
			"2026-11-30T14:31:09.000001Z  INFO risingwave_meta::barrier::worker: recovery start!\n",
	})
	rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(rep.Bundle.Problems, "\n"); !strings.Contains(p, "logs/rw-compute-0/compute.log: none of its first") {
		t.Errorf("problems %q do not report the unparsable log", p)
	}
	for _, rr := range rep.Rules {
		for _, e := range rr.Examined {
			if rr.ID == "sink-blocking-barriers" && e.Signal == "errors" {
				if e.Read || !strings.Contains(e.Coverage, "could be parsed") {
					t.Errorf("sink errors: read=%v %q, want unread because the compute log did not parse", e.Read, e.Coverage)
				}
			}
			if e.Kind == "log" && e.Read && strings.HasPrefix(e.Coverage, "meta logs") && !strings.Contains(e.Coverage, "14:02-14:31 UTC") {
				t.Errorf("%s/%s: coverage %q lacks the logs' time span", rr.ID, e.Signal, e.Coverage)
			}
		}
		if rr.ID == "sink-blocking-barriers" && rr.Status == analyze.RulePassed {
			t.Errorf("sink-blocking-barriers passed on an unparsable compute log")
		}
	}
}

// writeBundle writes files (bundle path -> content) into a new directory.
func writeBundle(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
