package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Rules are evaluated on several goroutines, so queries run concurrently;
// the events' pod index is built by whichever comes first (run with -race).
func TestKubeConcurrentQueries(t *testing.T) {
	k := ktStore(t, "events", "pods")
	want := ktNames(ktQuery(t, ktStore(t, "events", "pods"), Query{Resource: "events", Component: "compute"}), "pod")
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			rows, err := k.Query(Query{Resource: "events", Component: "compute"})
			if err != nil {
				t.Error(err)
			}
			got[i] = ktNames(rows, "pod")
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("goroutine %d: compute events of %s, want %s", i, g, want)
		}
	}
}

// Query answers the same whether it keeps the parsed objects (a small
// resource) or parses them at every call (a large one), and after an Add.
func TestKubeQueryCached(t *testing.T) {
	queries := []Query{
		{Resource: "events", Component: "compute"},
		{Resource: "events", Path: "reason", Labels: map[string]string{"risingwave/meta-role": "leader"}},
		{Resource: "events", Path: "reason", Fields: map[string]string{"node": "involvedObject.name"}},
		{Resource: "pods"},
		{Resource: "pods", Path: "status.containerStatuses", Fields: map[string]string{"restarts": "restartCount"}},
		{Resource: "pods", Component: "meta"},
	}
	run := func(limit int) string {
		defer func(n int) { maxCachedBytes = n }(maxCachedBytes)
		maxCachedBytes = limit
		k := ktStore(t, "events")
		var b strings.Builder
		for round := range 2 {
			if round == 1 {
				// Events name pods: once pods.json is there, their
				// components and labels are the pods'.
				f, err := os.Open(filepath.Join("testdata", "pods.json"))
				if err != nil {
					t.Fatal(err)
				}
				err = k.Add("pods", "kubernetes/pods.json", f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range queries {
				for range 2 {
					rows, err := k.Query(q)
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "%v\n", rows)
				}
			}
		}
		return b.String()
	}
	cached, parsed := run(4<<20), run(0)
	if cached != parsed {
		t.Errorf("kept objects:\n%s\nparsed each time:\n%s", cached, parsed)
	}
	if !strings.Contains(cached, "component:compute") {
		t.Errorf("no compute rows:\n%s", cached)
	}
}
