package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewInternalError(errors.New("boom")), true},
		{apierrors.NewServiceUnavailable("later"), true},
		{apierrors.NewTooManyRequests("slow down", 1), true},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		{apierrors.NewNotFound(gr, "x"), false},
		{apierrors.NewBadRequest("previous terminated container not found"), false},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{context.Canceled, false},
		{&timeoutError{what: "x", after: time.Second}, true},
		{&httpStatusError{code: http.StatusBadGateway}, true},
		{&httpStatusError{code: http.StatusBadRequest}, false},
		{errors.New("http2: client connection lost"), true},
		{errors.New("parse error"), false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func testCollector(t *testing.T, o Options) *collector {
	run, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &collector{opts: o, run: run, hard: run, parent: context.Background()}
}

// A transient failure is retried, a final one is not; a hanging call ends
// at its timeout with an error that says so.
func TestAttempts(t *testing.T) {
	o := DefaultOptions()
	o.Retries, o.RetryBackoff, o.CallTimeout = 3, time.Millisecond, 50*time.Millisecond
	c := testCollector(t, o)

	n := 0
	err := c.call("flaky", func(context.Context) error {
		n++
		if n < 3 {
			return apierrors.NewServiceUnavailable("later")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("flaky: %v after %d tries", err, n)
	}

	n = 0
	err = c.call("forbidden", func(context.Context) error {
		n++
		return apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
	})
	if !apierrors.IsForbidden(err) || n != 1 {
		t.Errorf("forbidden: %v after %d tries", err, n)
	}

	n = 0
	err = c.call("GET /hang", func(ctx context.Context) error {
		n++
		<-ctx.Done()
		return ctx.Err()
	})
	var te *timeoutError
	if !errors.As(err, &te) || n != 3 || err.Error() != "GET /hang: no answer within 50ms (the per-call timeout)" {
		t.Errorf("hang: %v after %d tries", err, n)
	}

	// A stream is cut only after a silence.
	err = c.callStream("logs", func(ctx context.Context, touch func()) error {
		for range 6 {
			time.Sleep(20 * time.Millisecond)
			touch()
		}
		return ctx.Err()
	})
	if err != nil {
		t.Errorf("a stream that keeps talking was cut: %v", err)
	}
}
