package collect

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func tailOf(t *testing.T, tb *tailBuffer, keep int64) (string, bool) {
	t.Helper()
	r, size, cut, err := tb.Tail(keep)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != size {
		t.Fatalf("Tail said %d bytes, read %d", size, len(b))
	}
	return string(b), cut
}

// wantTail is the reference: the last keep bytes of all, from the first
// whole line when bytes were left out (all of them when no line ends there).
func wantTail(all string, keep int) (string, bool) {
	if len(all) <= keep {
		return all, false
	}
	tail := all[len(all)-keep:]
	if all[len(all)-keep-1] != '\n' {
		if i := strings.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		}
	}
	return tail, true
}

func TestTailBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name   string
		max    int64
		writes []string
		keep   int64
	}{
		{"empty", 10, nil, 10},
		{"fits", 100, []string{"a\n", "b\n"}, 100},
		{"exactly full", 4, []string{"a\nb\n"}, 4},
		{"one over, line boundary", 4, []string{"a\nb\nc\n"}, 4},
		{"wraps mid-line", 10, []string{"line one\n", "line two\n", "line three\n"}, 10},
		{"one write bigger than the ring", 8, []string{"0123456789\nabcdefg\nxyz\n"}, 8},
		{"keep less than kept", 100, []string{"aaaa\n", "bbbb\n", "cccc\n"}, 7},
		{"no line end at all", 5, []string{"abcdefghijklmnop"}, 5},
		{"ends mid-line", 12, []string{"first\nsecond\nthird"}, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := newTailBuffer(t.TempDir(), tc.max)
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Close()
			var all strings.Builder
			for _, w := range tc.writes {
				tb.Write([]byte(w))
				all.WriteString(w)
			}
			got, cut := tailOf(t, tb, tc.keep)
			want, wantCut := wantTail(all.String(), int(min(tc.keep, tc.max)))
			if got != want || cut != wantCut {
				t.Errorf("tail %q (cut %v), want %q (cut %v)", got, cut, want, wantCut)
			}
		})
	}
	// Random writes against the reference.
	for i := range 200 {
		max := int64(1 + rng.IntN(64))
		tb, err := newTailBuffer(t.TempDir(), max)
		if err != nil {
			t.Fatal(err)
		}
		var all bytes.Buffer
		for range rng.IntN(20) {
			w := make([]byte, rng.IntN(40))
			for j := range w {
				w[j] = "ab\n"[rng.IntN(3)]
			}
			tb.Write(w)
			all.Write(w)
		}
		keep := int64(1 + rng.IntN(int(max)))
		got, cut := tailOf(t, tb, keep)
		want, wantCut := wantTail(all.String(), int(keep))
		if got != want || cut != wantCut {
			t.Fatalf("case %d: max %d keep %d of %q: tail %q (cut %v), want %q (cut %v)", i, max, keep, all.String(), got, cut, want, wantCut)
		}
		tb.Close()
	}
	// Reset starts over.
	tb, _ := newTailBuffer(t.TempDir(), 8)
	defer tb.Close()
	fmt.Fprint(tb, "old old old\n")
	tb.Reset()
	fmt.Fprint(tb, "new\n")
	if got, cut := tailOf(t, tb, 8); got != "new\n" || cut || tb.Total() != 4 {
		t.Errorf("after Reset: %q cut %v total %d", got, cut, tb.Total())
	}
}
