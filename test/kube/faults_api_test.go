package kube

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestForbiddenResource: the Role lacks events. The real server refuses the
// list with 403; the collector records the step, with the 403 and the RBAC
// advice, and collects the rest (describe included: kubectl's describer
// goes on without the events).
func TestForbiddenResource(t *testing.T) {
	h := Shared(t)
	ns := "rw-no-events"
	m := newMiniCluster(t, h, ns, miniOptions{})
	c := h.Collector(t, ns, func(r *RBAC) {
		for i, rule := range r.Role.Rules {
			r.Role.Rules[i].Resources = slices.DeleteFunc(slices.Clone(rule.Resources), func(s string) bool { return s == "events" })
		}
	})
	run := c.Collect(t, append([]string{"--skip", "sql"}, QuickMetrics...)...)
	if run.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", run.ExitCode, run.Stderr)
	}
	var eventsErr string
	for _, e := range run.Manifest.Errors {
		if e.Step == "kube" && e.Target == "events" {
			eventsErr = e.Error
			if e.Path != "kubernetes/events.json" {
				t.Errorf("events error path %q", e.Path)
			}
		} else {
			t.Errorf("unexpected error: %+v", e)
		}
	}
	if !strings.Contains(eventsErr, "forbidden") && !strings.Contains(eventsErr, "403") {
		t.Errorf("events: the manifest's error %q does not say forbidden", eventsErr)
	}
	if run.Manifest.HasFile("kubernetes/events.json") {
		t.Error("kubernetes/events.json written though events are forbidden")
	}
	AssertObjects(t, h, run, ns, "events")
	for _, pod := range m.pods {
		if !run.Manifest.HasFile("kubernetes/describe/pods/" + pod + ".txt") {
			t.Errorf("describe %s missing: a forbidden events list must not cost the describe", pod)
		}
		if !run.Manifest.HasFile("logs/" + pod + "/" + strings.Split(strings.TrimPrefix(pod, "mini-"), "-")[0] + ".log") {
			t.Errorf("log of %s missing", pod)
		}
	}
	AssertNoSecrets(t, run, m.planted)
	forbiddenEvents := func(e AuditEvent) bool { return e.Code() == 403 && e.Resource() == "events" && e.Verb == "list" }
	evs := AssertAudit(t, h, c.User, forbiddenEvents)
	n := 0
	for _, e := range evs {
		if forbiddenEvents(e) {
			n++
		}
	}
	if n == 0 {
		t.Error("the audit log shows no refused events list")
	}
	t.Logf("%d event lists refused (the collector's and the describer's)", n)
}

// TestAPIServerKilled: the API server dies (SIGKILL) while the collector
// streams a log (the kubelet stand-in holds it open). The collector must
// finish in bounded time with a valid bundle: what it had is kept, and
// every step after is recorded as failed, not hung.
func TestAPIServerKilled(t *testing.T) {
	h := Start(t, Options{})
	ns := "rw-killed"
	m := newMiniCluster(t, h, ns, miniOptions{holdLog: "mini-meta-0/meta"})
	c := h.Collector(t, ns, nil)
	r := c.Start(t, append([]string{"--skip", "sql", "--call-timeout", "10s"}, QuickMetrics...)...)
	select {
	case <-m.kubelet.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the collector never asked for the held log")
	}
	killedAt := time.Now()
	h.Kill()
	t.Logf("kube-apiserver killed while the log of mini-meta-0 streamed")
	run := r.Wait(t, 2*time.Minute)
	t.Logf("collector ended %v after the kill, exit %d", time.Since(killedAt).Round(time.Millisecond), run.ExitCode)
	if run.Dir == "" {
		t.Fatalf("no bundle\n%s", run.Stderr)
	}
	if code, out := run.Verify(t); code != 0 {
		t.Errorf("bundle verify: exit %d\n%s", code, out)
	}
	if !run.Manifest.HasFile("kubernetes/pods.json") {
		t.Error("pods.json, listed before the kill, is missing")
	}
	var metaLog string
	for _, f := range run.Manifest.Files {
		if f.Path == "logs/mini-meta-0/meta.log" {
			metaLog = f.Error
		}
	}
	metaErr := ""
	for _, e := range run.Manifest.Errors {
		if e.Target == "mini-meta-0/meta" {
			metaErr = e.Error
		}
	}
	if metaLog == "" && metaErr == "" {
		t.Errorf("the log streaming when the server died is neither partial nor recorded as failed: files %+v errors %+v", run.Manifest.Files, run.Manifest.Errors)
	}
	if len(run.Manifest.Errors) == 0 {
		t.Error("no step recorded as failed after the API server died")
	}
	for _, e := range run.Manifest.Errors {
		t.Logf("recorded: %s %s: %s", e.Step, e.Target, e.Error)
	}
}

// TestInterrupted: SIGINT while a log streams. The collector stops, gives
// calls in flight the grace period, writes a valid bundle marked
// incomplete and exits 130.
func TestInterrupted(t *testing.T) {
	h := Shared(t)
	ns := "rw-interrupted"
	m := newMiniCluster(t, h, ns, miniOptions{holdLog: "mini-meta-0/meta"})
	c := h.Collector(t, ns, nil)
	r := c.Start(t, append([]string{"--skip", "sql"}, QuickMetrics...)...)
	select {
	case <-m.kubelet.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the collector never asked for the held log")
	}
	sent := time.Now()
	if err := r.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	run := r.Wait(t, time.Minute)
	t.Logf("collector ended %v after SIGINT", time.Since(sent).Round(time.Millisecond))
	if run.ExitCode != 130 {
		t.Errorf("exit %d, want 130\n%s", run.ExitCode, run.Stderr)
	}
	if run.Dir == "" {
		t.Fatalf("no bundle\n%s", run.Stderr)
	}
	if code, out := run.Verify(t); code != 0 {
		t.Errorf("bundle verify: exit %d\n%s", code, out)
	}
	if run.Manifest.Complete || !strings.Contains(run.Manifest.IncompleteReason, "interrupted") {
		t.Errorf("manifest: complete %v, reason %q; want incomplete, interrupted", run.Manifest.Complete, run.Manifest.IncompleteReason)
	}
	if !run.Manifest.HasFile("kubernetes/pods.json") {
		t.Error("pods.json, listed before the interrupt, is missing")
	}
	AssertNoSecrets(t, run, m.planted)
	AssertAudit(t, h, c.User, nil)
}
