package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// errCallTimeout marks a call cut by its own timeout, as opposed to the run
// being interrupted.
var errCallTimeout = errors.New("call timed out")

// call runs f with a per-call timeout, retrying transient failures with
// exponential backoff. It stops retrying once the run is interrupted. what
// names the call in the error, e.g. "list pods -n rw".
func (c *collector) call(what string, f func(ctx context.Context) error) error {
	return c.attempts(what, false, func(ctx context.Context, _ func()) error { return f(ctx) })
}

// callStream is call for a stream of unknown length, such as a log: the
// timeout is for silence, and f calls touch whenever bytes arrive.
func (c *collector) callStream(what string, f func(ctx context.Context, touch func()) error) error {
	return c.attempts(what, true, f)
}

func (c *collector) attempts(what string, idle bool, f func(ctx context.Context, touch func()) error) error {
	timeout := c.opts.CallTimeout
	backoff := wait.Backoff{Duration: c.opts.RetryBackoff, Factor: 2, Jitter: 0.2, Steps: c.opts.Retries, Cap: 30 * time.Second}
	var err error
	for attempt := 1; ; attempt++ {
		ctx, cancel, touch := c.callContext(timeout, idle)
		err = f(ctx, touch)
		if err != nil && errors.Is(context.Cause(ctx), errCallTimeout) && c.hard.Err() == nil {
			err = &timeoutError{what: what, after: timeout, idle: idle, err: err}
		}
		cancel()
		if err == nil {
			return nil
		}
		if !transient(err) || attempt >= c.opts.Retries || c.run.Err() != nil {
			break
		}
		t := time.NewTimer(backoff.Step())
		select {
		case <-t.C:
		case <-c.run.Done():
			t.Stop()
		}
		if c.run.Err() != nil {
			break
		}
	}
	if c.hard.Err() != nil && !isAPIStatus(err) {
		return fmt.Errorf("%s: cut short: %w", what, context.Cause(c.hard))
	}
	return err
}

// callContext is the context of one try: cancelled after timeout, or after
// timeout without a touch when idle is set.
func (c *collector) callContext(timeout time.Duration, idle bool) (context.Context, func(), func()) {
	if !idle {
		ctx, cancel := context.WithTimeoutCause(c.hard, timeout, errCallTimeout)
		return ctx, cancel, func() {}
	}
	ctx, cancel := context.WithCancelCause(c.hard)
	timer := time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
	return ctx, func() { timer.Stop(); cancel(context.Canceled) }, func() { timer.Reset(timeout) }
}

// timeoutError is a call that got no (complete) answer within its timeout.
type timeoutError struct {
	what  string
	after time.Duration
	idle  bool // no bytes for that long, rather than no whole answer
	err   error
}

func (e *timeoutError) Error() string {
	if e.idle {
		return fmt.Sprintf("%s: no bytes for %v (the per-call timeout)", e.what, e.after)
	}
	return fmt.Sprintf("%s: no answer within %v (the per-call timeout)", e.what, e.after)
}

func (e *timeoutError) Unwrap() error { return e.err }

// transient tells whether trying again may help: server errors, throttling,
// timeouts and broken connections. Forbidden, not found and bad requests are
// final.
func transient(err error) bool {
	var te *timeoutError
	if errors.As(err, &te) {
		return true
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	var he *httpStatusError
	if errors.As(err, &he) {
		return he.transient()
	}
	if st, ok := apiStatus(err); ok {
		code := st.Status().Code
		return code >= 500 || code == 429
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "http2: client connection lost", "GOAWAY", "TLS handshake timeout"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func apiStatus(err error) (apierrors.APIStatus, bool) {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st, true
	}
	return nil, false
}

func isAPIStatus(err error) bool {
	_, ok := apiStatus(err)
	return ok
}

// explain adds what a person can do about common API errors.
func explain(err error, verb, resource string) string {
	msg := err.Error()
	switch {
	case apierrors.IsForbidden(err):
		return msg + fmt.Sprintf(" (grant %q on %s: see docs/rbac.yaml)", verb, resource)
	case apierrors.IsUnauthorized(err):
		return msg + " (the credentials were refused: check the kubeconfig context)"
	}
	return msg
}
