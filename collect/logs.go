package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/rwdiag/rwdiag/bundle"
)

// logBudget is what is left of --log-budget. Logs claim from it in order of
// their pod's ill health, so the budget goes to unhealthy pods first.
type logBudget struct {
	mu        sync.Mutex
	remaining int64
}

func (b *logBudget) left() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.remaining
}

// claim takes up to n bytes and returns how many it got.
func (b *logBudget) claim(n int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n = min(n, b.remaining)
	b.remaining -= n
	return n
}

// health ranks how unwell a pod looks: 3 a container was OOMKilled, 2 one
// restarted or is crash-looping, 1 one is not ready or the pod is not
// running, 0 healthy. why says what was seen.
func health(p *corev1.Pod) (rank int, why string) {
	set := func(r int, w string) {
		if r > rank {
			rank, why = r, w
		}
	}
	if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodSucceeded {
		set(1, "phase "+string(p.Status.Phase))
	}
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
			set(3, cs.Name+" OOMKilled")
		}
		if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
			set(3, cs.Name+" OOMKilled")
		}
		if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
			set(2, cs.Name+" in CrashLoopBackOff")
		}
		if cs.RestartCount > 0 {
			set(2, fmt.Sprintf("%s restarted %d times", cs.Name, cs.RestartCount))
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if !cs.Ready {
			set(1, cs.Name+" not ready")
		}
	}
	return rank, why
}

// A logTask is one log file to fetch.
type logTask struct {
	pod       *corev1.Pod
	container string
	previous  bool
	rank      int
	order     int // the container's place in the pod
}

// logTasks lists every container's current log, and its previous one when
// it restarted, unhealthy pods first; within a pod the crashed instance's
// log comes first.
func logTasks(pods []*corev1.Pod) []logTask {
	var tasks []logTask
	for _, p := range pods {
		rank, _ := health(p)
		restarts := map[string]int32{}
		ran := map[string]bool{}
		for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
			restarts[cs.Name] = cs.RestartCount
			ran[cs.Name] = cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil
		}
		var names []string
		for _, ct := range p.Spec.InitContainers {
			if ran[ct.Name] { // an init container that never ran has no log
				names = append(names, ct.Name)
			}
		}
		for _, ct := range p.Spec.Containers {
			names = append(names, ct.Name)
		}
		for i, name := range names {
			if restarts[name] > 0 {
				tasks = append(tasks, logTask{pod: p, container: name, previous: true, rank: rank, order: i})
			}
			tasks = append(tasks, logTask{pod: p, container: name, rank: rank, order: i})
		}
	}
	slices.SortStableFunc(tasks, func(a, b logTask) int {
		switch {
		case a.rank != b.rank:
			return b.rank - a.rank
		case a.pod.Name != b.pod.Name:
			return strings.Compare(a.pod.Name, b.pod.Name)
		case a.order != b.order:
			return a.order - b.order
		case a.previous != b.previous:
			if a.previous {
				return -1
			}
			return 1
		}
		return 0
	})
	return tasks
}

// spawnLogs starts the log tasks in order. They download concurrently, and
// claim from the budget in that order, each after the one before; once a
// log has claimed its share, the next may claim while it is written, so
// logs are redacted in parallel (at most GOMAXPROCS at once).
func (c *collector) spawnLogs(pods []*corev1.Pod) {
	prev := make(chan struct{})
	close(prev)
	for _, t := range logTasks(pods) {
		done := make(chan struct{})
		path := bundle.LogPath(t.pod.Name, t.container, t.previous)
		target := t.pod.Name + "/" + t.container
		if t.previous {
			target += " (previous)"
		}
		wait := prev
		started := c.spawn(StepLogs, target, path, func(release func()) error {
			var once sync.Once
			claimed := func() { once.Do(func() { close(done) }) }
			defer claimed()
			return c.collectLog(t, path, wait, release, claimed)
		})
		if !started {
			go func() {
				select {
				case <-wait:
				case <-c.hard.Done():
				}
				close(done)
			}()
		}
		prev = done
	}
}

// collectLog fetches one log into a tail buffer, waits for its turn, claims
// from the budget, calls claimed (the next log's turn) and writes the
// newest lines it may keep.
func (c *collector) collectLog(t logTask, path string, turn <-chan struct{}, release, claimed func()) error {
	waitTurn := func() {
		release()
		select {
		case <-turn:
		case <-c.hard.Done():
		}
	}
	limit := min(c.opts.LogBytes, c.logs.left())
	if limit <= 0 {
		waitTurn()
		return c.budgetSpent(0)
	}
	buf, err := newTailBuffer(c.tmpDir, limit)
	if err != nil {
		waitTurn()
		return fmt.Errorf("stage log: %w", err)
	}
	defer buf.Close()

	ns := c.kube.namespace
	opts := &corev1.PodLogOptions{Container: t.container, Previous: t.previous, Timestamps: true}
	source := fmt.Sprintf("kubectl logs %s -c %s -n %s --timestamps", t.pod.Name, t.container, ns)
	if c.opts.Since > 0 {
		secs := int64((c.opts.Since + time.Second - 1) / time.Second)
		opts.SinceSeconds = &secs
		source += " --since=" + c.opts.Since.String()
	}
	if t.previous {
		source += " --previous"
	}
	streamErr := c.callStream("logs "+t.pod.Name+" -c "+t.container, func(ctx context.Context, touch func()) error {
		// A retry starts the log again, but what an earlier attempt got
		// is kept until the retry brings bytes of its own: when every
		// retry is refused (the API server died part-way), the bundle
		// keeps the part that arrived, marked as broken.
		fresh := true
		rc, err := c.kube.clientset.CoreV1().Pods(ns).GetLogs(t.pod.Name, opts).Stream(ctx)
		if err != nil {
			return err
		}
		defer rc.Close()
		chunk := make([]byte, 64<<10)
		for {
			n, err := rc.Read(chunk)
			if n > 0 {
				touch()
				if fresh {
					buf.Reset()
					fresh = false
				}
				if _, werr := buf.Write(chunk[:n]); werr != nil {
					return &stageError{werr}
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	waitTurn()
	if streamErr != nil && buf.Total() == 0 {
		return logError(streamErr, t)
	}
	var se *stageError
	if errors.As(streamErr, &se) {
		return fmt.Errorf("stage log: %w", se.err)
	}
	size := buf.Size()
	keep := c.logs.claim(size)
	claimed()
	if keep == 0 && size > 0 {
		return c.budgetSpent(buf.Total())
	}
	r, _, cut, err := buf.Tail(keep)
	if err != nil {
		return fmt.Errorf("stage log: %w", err)
	}
	f, err := c.create(path, source)
	if err != nil {
		return err
	}
	if err := c.copyLog(f, path, r); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if cut {
		f.SetTruncated()
	}
	if streamErr != nil {
		c.setError(f, fmt.Errorf("the stream broke after %d bytes: %w", buf.Total(), streamErr))
	}
	return f.Close()
}

// copyLog copies a log into the bundle, redacted, holding one of the
// run's CPU slots while it redacts: logs are written in parallel, but no
// more of them at once than there are cores to redact them.
//
// A free slot is taken even after calls were cut: the log is staged on
// disk, and writing what arrived is what an interrupted run is for (a
// select between a free slot and the closed hard context would pick at
// random). Only waiting for a slot stops at the cut.
func (c *collector) copyLog(f *bundle.File, path string, r io.Reader) error {
	if c.red != nil {
		select {
		case c.cpu <- struct{}{}:
		default:
			select {
			case c.cpu <- struct{}{}:
			case <-c.hard.Done():
				return context.Cause(c.hard)
			}
		}
		defer func() { <-c.cpu }()
	}
	return c.copyText(f, path, r)
}

// stageError is a failure to keep what arrived, not of the stream.
type stageError struct{ err error }

func (e *stageError) Error() string { return "stage log: " + e.err.Error() }

func (c *collector) budgetSpent(total int64) error {
	msg := fmt.Sprintf("not collected: the log budget (--log-budget %s) was spent on the logs of less healthy pods", formatBytes(c.opts.LogBudget))
	if total > 0 {
		msg += fmt.Sprintf("; this log had %s", formatBytes(total))
	}
	return errors.New(msg)
}

// logError explains the usual reasons a log cannot be had.
func logError(err error, t logTask) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w (the pod was deleted after it was listed)", err)
	case apierrors.IsBadRequest(err) && t.previous:
		return fmt.Errorf("%w (the crashed instance's log is gone: the kubelet keeps only the last one)", err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s", explain(err, "get", "pods/log"))
	}
	return err
}

// formatBytes prints a size in binary units, e.g. 50MiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
}
