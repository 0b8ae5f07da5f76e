package kube

import (
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
