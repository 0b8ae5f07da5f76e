package collect

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBar(t *testing.T) {
	var out bytes.Buffer
	b := NewBar(&out)
	b.Add(1)
	b.Done(StepKube, "pods", nil)
	b.Add(2)
	time.Sleep(150 * time.Millisecond) // past the bar's throttle
	b.Done(StepLogs, "rw-meta-0/meta", errors.New("boom"))
	b.Finish()
	n := out.Len()
	b.Add(1)
	b.Done(StepLogs, "late", nil)
	if out.Len() != n {
		t.Errorf("the bar drew after Finish: %q", out.String()[n:])
	}
	if !strings.Contains(out.String(), "1 failed") {
		t.Errorf("the bar does not count failures: %q", out.String())
	}
}
