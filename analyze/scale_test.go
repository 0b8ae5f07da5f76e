package analyze_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// manyPodsJSON is a `kubectl get pods -o json` of n compute pods in the shape
// kubectl prints (k8s.io/api core/v1 PodList), every 100th OOMKilled and in
// CrashLoopBackOff, the others running with a Completed restart or none.
func manyPodsJSON(n int) []byte {
	type obj = map[string]any
	items := make([]obj, n)
	for i := range items {
		name := fmt.Sprintf("rw-scale-compute-%d", i)
		status := obj{"name": "compute", "restartCount": i % 3,
			"state":     obj{"running": obj{"startedAt": "2026-11-18T16:41:00Z"}},
			"lastState": obj{}}
		if i%3 != 0 {
			status["lastState"] = obj{"terminated": obj{"reason": "Completed", "exitCode": 0,
				"finishedAt": "2026-11-18T16:40:58Z"}}
		}
		if i%100 == 7 {
			status["restartCount"] = 5
			status["state"] = obj{"waiting": obj{"reason": "CrashLoopBackOff"}}
			status["lastState"] = obj{"terminated": obj{"reason": "OOMKilled", "exitCode": 137,
				"finishedAt": "2026-11-18T17:02:11Z"}}
		}
		items[i] = obj{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": obj{"name": name, "namespace": "rw",
				"labels": obj{"app.kubernetes.io/component": "compute", "app.kubernetes.io/name": "risingwave"}},
			"spec": obj{"containers": []obj{{"name": "compute", "image": "risingwavelabs/risingwave:v2.3.0",
				"resources": obj{"limits": obj{"memory": "8Gi"}},
				"env":       []obj{{"name": "RW_TOTAL_MEMORY_BYTES", "value": "8589934592"}}}}},
			"status": obj{"phase": "Running", "containerStatuses": []obj{status}},
		}
	}
	b, err := json.Marshal(obj{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		panic(err)
	}
	return b
}

// manyPodsBundle writes a hand-made bundle of n compute pods.
func manyPodsBundle(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	p := filepath.Join(dir, "kubernetes", "pods.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, manyPodsJSON(n), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Per-subject evaluation is linear in the pods: 20,000 pods (each a subject
// of the OOM rule) are judged within tens of seconds, and the 200 OOMKilled
// ones fire. Narrowing every signal's rows for every subject made this
// quadratic (32,000 pods took two minutes; 700,000 never finished).
func TestManyPodsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 20,000-pod bundle")
	}
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	dir := manyPodsBundle(t, n)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := analyze.Analyze(ctx, dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fired := 0
	for _, f := range rep.Findings {
		if f.Rule == "compute-oom-crash-loop" && f.Status == analyze.StatusFiring {
			fired++
		}
	}
	for _, r := range rep.Rules {
		if r.Status == analyze.RuleError {
			t.Errorf("rule %s: error %s", r.ID, r.Reason)
		}
	}
	if fired != n/100 {
		t.Errorf("%d OOM findings, want %d", fired, n/100)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("%d pods took %v", n, d)
	}
}

// BenchmarkManyPods measures analysis of pods.json with 8,000 and 32,000 pods
// (go test ./analyze/ -run '^$' -bench ManyPods -benchtime 1x).
func BenchmarkManyPods(b *testing.B) {
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{8000, 32000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := manyPodsBundle(b, n)
			b.ResetTimer()
			for range b.N {
				if _, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A pods.json with more objects than a namespace holds is read only up to
// kube.MaxObjects (here lowered to 1,000 of 5,000), said once as a bundle
// problem naming the file, and the rules judge the pods read: the OOM pods
// among the first 1,000 fire, the later ones are not seen.
func TestManyPodsCapped(t *testing.T) {
	old := kube.MaxObjects
	kube.MaxObjects = 1000
	defer func() { kube.MaxObjects = old }()
	rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	dir := manyPodsBundle(t, 5000)
	rep, err := analyze.Analyze(context.Background(), dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fired := 0
	for _, f := range rep.Findings {
		if f.Rule == "compute-oom-crash-loop" && f.Status == analyze.StatusFiring {
			fired++
		}
	}
	if fired != 10 {
		t.Errorf("%d OOM findings, want the 10 among the first 1000 pods", fired)
	}
	said := 0
	for _, p := range rep.Bundle.Problems {
		if strings.Contains(p, "kubernetes/pods.json: 5000 objects") && strings.Contains(p, "the first 1000 are read") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the cap is said %d times in the problems, want once: %q", said, rep.Bundle.Problems)
	}
}
