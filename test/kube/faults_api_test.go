package kube

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TestForbiddenResource: the Role lacks one resource (events; the
// RisingWave resources). The real server refuses the list with 403; the
// collector records the step, with the 403 and the RBAC advice, and collects
// the rest (describe included: kubectl's describer goes on without the
// events).
func TestForbiddenResource(t *testing.T) {
	for _, tc := range []struct {
		resource, target, file, auditResource string
	}{
		{"events", "events", "kubernetes/events.json", "events"},
		{"risingwaves", "risingwaves", "kubernetes/risingwaves.json", "risingwaves.risingwave.risingwavelabs.com"},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			h := Shared(t)
			ns := UniqueName("rw-no-" + tc.resource)
			m := newMiniCluster(t, h, ns, miniOptions{})
			c := h.Collector(t, ns, func(r *RBAC) {
				var rules []rbacv1.PolicyRule
				for _, rule := range r.Role.Rules {
					rule.Resources = slices.DeleteFunc(slices.Clone(rule.Resources), func(s string) bool { return s == tc.resource })
					if len(rule.Resources) > 0 {
						rules = append(rules, rule)
					}
				}
				r.Role.Rules = rules
			})
			run := c.Collect(t, append([]string{"--skip", "sql"}, QuickMetrics...)...)
			if run.ExitCode != 0 {
				t.Fatalf("exit %d\n%s", run.ExitCode, run.Stderr)
			}
			var recorded string
			for _, e := range run.Manifest.Errors {
				if e.Step == "kube" && e.Target == tc.target {
					recorded = e.Error
					if e.Path != tc.file {
						t.Errorf("%s error path %q", tc.target, e.Path)
					}
				} else {
					t.Errorf("unexpected error: %+v", e)
				}
			}
			t.Logf("recorded: %s", recorded)
			if !strings.Contains(recorded, "forbidden") && !strings.Contains(recorded, "403") {
				t.Errorf("%s: the manifest's error %q does not say forbidden", tc.target, recorded)
			}
			if run.Manifest.HasFile(tc.file) {
				t.Errorf("%s written though %s are forbidden", tc.file, tc.resource)
			}
			AssertObjects(t, h, run, ns, tc.target)
			for _, pod := range m.pods {
				if !run.Manifest.HasFile("kubernetes/describe/pods/" + pod + ".txt") {
					t.Errorf("describe %s missing: a forbidden %s list must not cost the describe", pod, tc.resource)
				}
				if !run.Manifest.HasFile("logs/" + pod + "/" + strings.Split(strings.TrimPrefix(pod, "mini-"), "-")[0] + ".log") {
					t.Errorf("log of %s missing", pod)
				}
			}
			AssertNoSecrets(t, run, m.planted)
			refused := func(e AuditEvent) bool {
				return e.Code() == 403 && e.Resource() == tc.auditResource && e.Verb == "list"
			}
			n := 0
			for _, e := range AssertAudit(t, h, c.User, refused) {
				if refused(e) {
					n++
				}
			}
			if n == 0 {
				t.Errorf("the audit log shows no refused %s list", tc.resource)
			}
			t.Logf("%d %s lists refused", n, tc.resource)
		})
	}
}

// TestAPIServerKilled: the API server dies (SIGKILL) while the collector
// streams a log (the kubelet stand-in holds it open). The collector must
// finish in bounded time with a valid bundle: what it had is kept, the log
// in flight as far as it arrived, and every step after is recorded as
// failed, not hung.
func TestAPIServerKilled(t *testing.T) {
	h := Start(t, Options{})
	ns := UniqueName("rw-killed")
	m := newMiniCluster(t, h, ns, miniOptions{holdLog: "mini-meta-0/meta"})
	c := h.Collector(t, ns, nil)
	r := c.Start(t, append([]string{"--skip", "sql", "--call-timeout", "10s"}, QuickMetrics...)...)
	select {
	case <-m.kubelet.held:
	case <-time.After(60 * time.Second):
		t.Fatal("the collector never asked for the held log")
	}
	// The API server passes the held 64 KiB on in 4 KiB pieces; give them
	// a moment to reach the collector before the server dies.
	time.Sleep(time.Second)
	killedAt := time.Now()
	h.Kill()
	t.Logf("kube-apiserver killed while the log of mini-meta-0 streamed")
	run := r.Wait(t, 2*time.Minute)
	took := time.Since(killedAt)
	t.Logf("collector ended %v after the kill, exit %d", took.Round(time.Millisecond), run.ExitCode)
	if run.Dir == "" {
		t.Fatalf("no bundle\n%s", run.Stderr)
	}
	// Connection refused is retried (3 tries, 0.5 s then 1 s apart), not
	// waited out: nothing should take a call timeout (10 s here).
	if took > 30*time.Second {
		t.Errorf("the collector took %v to give up on a dead API server", took)
	}
	// Failed steps are listed, not fatal: the run itself was not cut short.
	if run.ExitCode != 0 || !run.Manifest.Complete {
		t.Errorf("exit %d, complete %v (%s); want 0 and a complete run with failed steps", run.ExitCode, run.Manifest.Complete, run.Manifest.IncompleteReason)
	}
	if code, out := run.Verify(t); code != 0 {
		t.Errorf("bundle verify: exit %d\n%s", code, out)
	}
	if !run.Manifest.HasFile("kubernetes/pods.json") {
		t.Error("pods.json, listed before the kill, is missing")
	}
	// What arrived before the kill is kept, marked broken, though every
	// retry is refused (collect/logs.go keeps an attempt's bytes until a
	// retry brings its own).
	if f := run.Manifest.File("logs/mini-meta-0/meta.log"); f == nil || f.Error == "" {
		t.Errorf("the held log: %+v; want the bytes that arrived, with the error that broke it (errors: %+v)", f, run.Manifest.Errors)
	} else if got := readFile(t, run.Dir, f.Path); got == "" || !strings.HasPrefix(m.kubelet.heldBody, got) {
		t.Errorf("the held log holds %d bytes, not a beginning of the %d the kubelet sent", len(got), len(m.kubelet.heldBody))
	} else {
		t.Logf("the held log: %d bytes kept, error %q", f.Size, firstLine(f.Error))
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
	ns := UniqueName("rw-interrupted")
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
	took := time.Since(sent)
	t.Logf("collector ended %v after SIGINT", took.Round(time.Millisecond))
	// Calls in flight get 5 s (docs/cli.md), then the bundle is written.
	if took > 15*time.Second {
		t.Errorf("the collector took %v after SIGINT; the grace is 5 s", took)
	}
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
	// The log streaming when the run was cut: what arrived is kept, marked partial.
	if f := run.Manifest.File("logs/mini-meta-0/meta.log"); f == nil || f.Error == "" {
		t.Errorf("the held log: %+v; want the bytes that arrived, with the error that cut it (errors: %+v)", f, run.Manifest.Errors)
	} else if got := readFile(t, run.Dir, f.Path); got == "" || !strings.HasPrefix(m.kubelet.heldBody, got) {
		t.Errorf("the held log holds %d bytes, not a beginning of the %d the kubelet sent", len(got), len(m.kubelet.heldBody))
	} else {
		t.Logf("the held log: %d bytes kept, error %q", f.Size, f.Error)
	}
	AssertNoSecrets(t, run, m.planted)
	AssertAudit(t, h, c.User, nil)
}
