package lazyre

import (
	"sync"
	"testing"
)

func TestLazy(t *testing.T) {
	r := New(`^a(b+)$`)
	if r.re != nil {
		t.Fatal("compiled when made")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if m := r.Re().FindStringSubmatch("abb"); len(m) != 2 || m[1] != "bb" {
				t.Errorf("match: %v", m)
			}
		})
	}
	wg.Wait()
	if r.String() != `^a(b+)$` {
		t.Errorf("String: %q", r.String())
	}
	if bad, err := CompileAll(); bad != nil || err != nil {
		t.Fatalf("CompileAll: %v %v", bad, err)
	}
	b := New(`a(`)
	if bad, err := CompileAll(); bad != b || err == nil {
		t.Fatalf("CompileAll: %v %v, want %q's error", bad, err, b.src)
	}
	defer func() {
		if recover() == nil {
			t.Error("Re of a bad expression did not panic")
		}
	}()
	b.Re()
}
