package awaittree

import (
	"math"
	"testing"
	"time"
)

func TestParseRustDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"21.283s", 21283 * time.Millisecond, true},
		{"11.520000098s", 11520000098, true},       // {:?}, before v1.0
		{"440.000005ms", 440000005, true},          // {:?}
		{"1.6252ms", 1625200, true},                //
		{"2.504ms", 2504 * time.Microsecond, true}, // {:.3?}
		{"3.000µs", 3 * time.Microsecond, true},    // U+00B5, as Rust prints
		{"3.5μs", 3500, true},                      // U+03BC
		{"12us", 12 * time.Microsecond, true},
		{"100.000ns", 100, true},
		{"0ns", 0, true},
		{"7s", 7 * time.Second, true},
		{"1.0000000019s", time.Second + 1, true}, // digits past the nanosecond dropped
		{"99999999999999999999s", math.MaxInt64, true},
		{"s", 0, false},
		{".5s", 0, false},
		{"1.2.3s", 0, false},
		{"-1s", 0, false},
		{"12", 0, false},
		{"1.5m", 0, false},
		{"", 0, false},
	} {
		got, ok := parseRustDuration(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseRustDuration(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseSpanLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		want spanLine
		ok   bool
	}{
		{"Actor 132: `mv` [21.285s]", spanLine{name: "Actor 132: `mv`", elapsed: 21285 * time.Millisecond}, true},
		{"  Epoch 8251479171792896 [!!! 21.283s]", spanLine{indent: 2, name: "Epoch 8251479171792896", elapsed: 21283 * time.Millisecond, slow: true}, true},
		{"      Merge 8400000004 [0.001s]  <== current", spanLine{indent: 6, name: "Merge 8400000004", elapsed: time.Millisecond, current: true}, true},
		// A name with brackets of its own: the last bracket is the duration.
		{"    select [a, b] from [t] [1.500ms]", spanLine{indent: 4, name: "select [a, b] from [t]", elapsed: 1500 * time.Microsecond}, true},
		{" [2.000s]", spanLine{name: "", elapsed: 2 * time.Second}, true}, // an empty name at depth 0
		{"  Epoch 1 [!!!21.2s]", spanLine{}, false},
		{"  Epoch 1 [21.2 s]", spanLine{}, false},
		{"  Epoch 1 [21.2s] trailing", spanLine{}, false},
		{"  Epoch 1 [21.2s] <== current", spanLine{}, false},
		{"[Detached 5]", spanLine{}, false},
		{"Count: 12", spanLine{}, false},
	} {
		got, ok := parseSpanLine(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("parseSpanLine(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseCapturedAndDetached(t *testing.T) {
	if d, ok := parseCaptured("[captured 121.743801ms ago]"); !ok || d != 121743801 {
		t.Errorf("parseCaptured = %v, %v", d, ok)
	}
	for _, s := range []string{"[captured soon ago]", "[captured 1s]", "captured 1s ago]"} {
		if _, ok := parseCaptured(s); ok {
			t.Errorf("parseCaptured(%q) ok", s)
		}
	}
	for s, want := range map[string]bool{"[Detached 5]": true, "[Detached ]": false, "[Detached x]": false, "  [Detached 5]": false} {
		if isDetachedMarker(s) != want {
			t.Errorf("isDetachedMarker(%q) = %v", s, !want)
		}
	}
}
