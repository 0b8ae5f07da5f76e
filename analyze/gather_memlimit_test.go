package analyze

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// The reading's soft memory limit is set only when none is, and the
// previous state comes back after reading.
func TestReadingMemoryLimit(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set: the reading leaves the limit to it")
	}
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)

	restore := limitReadingMemory()
	if got := debug.SetMemoryLimit(-1); got != readingMemoryLimit {
		t.Errorf("while reading: limit %d, want %d", got, readingMemoryLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after reading: limit %d, want none (%d)", got, int64(math.MaxInt64))
	}

	// A limit set by the user (GOMEMLIMIT) or the program is left alone.
	debug.SetMemoryLimit(1 << 30)
	restore = limitReadingMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with a limit set: limit %d while reading, want 1 GiB", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with a limit set: limit %d after reading, want 1 GiB", got)
	}
}

// GOMEMLIMIT=off is the user's choice too: no limit is set.
func TestReadingMemoryLimitOff(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "off")
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	restore := limitReadingMemory()
	defer restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT=off: limit %d while reading, want none", got)
	}
}

// The limit lasts from Gather to Close: the evaluation between them
// allocates too.
func TestReadingMemoryLimitUntilClose(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set: the reading leaves the limit to it")
	}
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	ev, err := Gather(context.Background(), "../samples/handmade-minimal", nil, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != readingMemoryLimit {
		t.Errorf("after Gather: limit %d, want %d", got, readingMemoryLimit)
	}
	ev.Close()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after Close: limit %d, want none", got)
	}
	ev.Close() // twice: no harm
	if _, err := Gather(context.Background(), "no/such/bundle", nil, bundle.Options{}); err == nil {
		t.Fatal("Gather of a missing bundle: no error")
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after a failed Gather: limit %d, want none", got)
	}
}

// TuneMemory sets GOGC and the soft limit for the whole run, leaves what
// the environment chose, and restores both.
func TestTuneMemory(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set")
	}
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set")
	}
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prevLimit)
	prevGC := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevGC)

	restore := TuneMemory()
	if got := debug.SetGCPercent(-1); got != analysisGCPercent {
		t.Errorf("GOGC %d during the run, want %d", got, analysisGCPercent)
	}
	debug.SetGCPercent(analysisGCPercent)
	if got := debug.SetMemoryLimit(-1); got != readingMemoryLimit {
		t.Errorf("limit %d during the run, want %d", got, readingMemoryLimit)
	}
	// Gather, inside the run, keeps the run's limit and leaves it set.
	inner := limitReadingMemory()
	inner()
	if got := debug.SetMemoryLimit(-1); got != readingMemoryLimit {
		t.Errorf("limit %d after a Close inside the run, want %d still", got, readingMemoryLimit)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the run, want 100 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after the run, want none", got)
	}

	t.Setenv("GOGC", "50")
	restore = TuneMemory()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want it left alone (100)", got)
	}
	restore()
}
