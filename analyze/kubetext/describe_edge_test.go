package kubetext

import (
	"strings"
	"testing"
	"time"
)

// head is the start of a pod description (kubectl 1.37 describePod),
// ending where the Containers section begins.
const head = `Name:             rw-test-compute-0
Namespace:        risingwave
Node:             node-1/10.0.0.1
Start Time:       Tue, 01 Dec 2026 10:00:00 +0000
Labels:           risingwave/component=compute
Annotations:      <none>
Status:           Running
IP:               10.1.0.5
IPs:
  IP:  10.1.0.5
Containers:
`

func parse(t *testing.T, text string) ([]Pod, []Problem) {
	t.Helper()
	pods, probs, err := ParseDescribe(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return pods, probs
}

// TestParseDescribeProblems: what cannot be read is a problem on its line.
func TestParseDescribeProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		line   int
		reason string
		pods   int
	}{
		{"text before the pod", "some notes\n" + head + "  compute:\n    Image:  x\n", 1, "before the first pod", 1},
		{"fragment without a pod", "    Last State:     Terminated\n      Reason:       OOMKilled\n", 1, "before the first pod", 0},
		{"kubectl error", "Error from server (NotFound): pods \"rw-x\" not found\n", 1, "before the first pod", 0},
		{"cut short", "Name:  rw-a\nNamespace:  rw\nNode:  n/1.2.3.4\n", 1, "no \"Containers:\" section", 1},
		{"restart count", head + "  compute:\n    Restart Count:  many\n", 13, "Restart Count is not a count", 1},
		{"ready", head + "  compute:\n    Ready:  Maybe\n", 13, "Ready is not True or False", 1},
		{"exit code", head + "  compute:\n    Last State:  Terminated\n      Exit Code:  x137\n", 14, "Exit Code is not a number", 1},
		{"no exit code", head + "  compute:\n    Last State:  Terminated\n      Reason:  OOMKilled\n", 13, "without \"Exit Code:\"", 1},
		{"time", head + "  compute:\n    State:  Running\n      Started:  yesterday\n", 14, "Started: not a time", 1},
		{"state", head + "  compute:\n    State:  Exploded\n", 13, "not Running, Waiting or Terminated", 1},
		{"state field", head + "  compute:\n    State:  Running\n      Colour:  blue\n", 14, "unknown container state field", 1},
		{"start time", strings.Replace(head, "Tue, 01 Dec 2026 10:00:00 +0000", "2026/12/01", 1) + "  compute:\n", 4, "Start Time: not a time", 1},
		{"odd indentation", head + "  compute:\n     Image:  x\n", 13, "unexpected indentation (5)", 1},
		{"field before container", head + "    Image:  x\n", 12, "before any container name", 1},
		{"resource", head + "  compute:\n    Limits:\n      memory\n", 14, "resource:  quantity", 1},
		{"label", strings.Replace(head, "Annotations:", "                  no-equals-sign\nAnnotations:", 1) + "  compute:\n", 6, "not a \"key=value\" label", 1},
		{"not a field", head + "  compute:\n    Image:  x\nthis is not kubectl\n", 14, "not a \"Field:  value\" line", 1},
		{"events header", head + "  compute:\n    Image:  x\nEvents:\n  FirstSeen  LastSeen  Count  From  SubobjectPath  Type  Reason  Message\n", 15, "not the \"Type  Reason  Age  From  Message\" header", 1},
		{"text after events", head + "  compute:\n    Image:  x\nEvents:  <none>\n\nsomething else\n", 16, "text after the \"Events:\" table", 1},
		{"port", head + "  compute:\n    Port:  http\n", 13, "not a port", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, probs := parse(t, tc.text)
			if len(pods) != tc.pods {
				t.Errorf("%d pods, want %d", len(pods), tc.pods)
			}
			found := false
			for _, p := range probs {
				if p.Line == tc.line && strings.Contains(p.Reason, tc.reason) {
					found = true
				}
			}
			if !found {
				t.Errorf("want a problem on line %d containing %q; got %v", tc.line, tc.reason, probs)
			}
		})
	}
}

func TestParseDescribeTooManyProblems(t *testing.T) {
	_, probs := parse(t, strings.Repeat("garbage\n", 3*maxProblems))
	if len(probs) != maxProblems+1 {
		t.Fatalf("%d problems, want %d", len(probs), maxProblems+1)
	}
	if last := probs[maxProblems]; !strings.Contains(last.Reason, "too many problems") || last.Line != maxProblems+1 {
		t.Errorf("last problem = %v", last)
	}
}

func TestParseDescribeLongLine(t *testing.T) {
	text := head + "  compute:\n    Image:  " + strings.Repeat("x", 2*maxLineBytes) + "\n    Restart Count:  3\n"
	pods, probs := parse(t, text)
	if len(probs) != 1 || probs[0].Line != 13 || !strings.Contains(probs[0].Reason, "longer than") {
		t.Fatalf("problems = %v, want one for line 13", probs)
	}
	if c := pods[0].Containers[0]; c.RestartCount != 3 || len(c.Image) != maxLineBytes-len("    Image:  ") {
		t.Errorf("restart count %d, image of %d bytes", c.RestartCount, len(c.Image))
	}
}

// TestParseDescribeFreeText: values with newlines, which kubectl prints
// as they are, at the start of the next lines.
func TestParseDescribeFreeText(t *testing.T) {
	text := head + `  compute:
    Container ID:   containerd://abc
    Image:          ghcr.io/risingwavelabs/risingwave:v2.3.1
    State:          Running
      Started:      Tue, 01 Dec 2026 10:05:00 +0000
    Last State:     Terminated
      Reason:       Error
      Message:      thread 'main' panicked at src/compute/src/server.rs:101:5:
called ` + "`Result::unwrap()`" + ` on an ` + "`Err`" + ` value
  2026-12-01T10:04:59Z ERROR risingwave_rt: Name: not a field
      Exit Code:    101
      Signal:       6
      Started:      Tue, 01 Dec 2026 10:00:05 +0000
      Finished:     Tue, 01 Dec 2026 10:04:59 +0000
    Ready:          True
    Restart Count:  1
    Environment:
      RW_CONFIG:  [server]
                  heartbeat_interval_ms = 1000
      RW_TOTAL_MEMORY_BYTES:  node allocatable (limits.memory)
      RW_PARALLELISM:         4 (limits.cpu)
      RW_MODE:                <set to the key 'mode' of config map 'rw-settings'>  Optional: true
    Environment Variables from:
      rw-env      ConfigMap  Optional: false
      rw-secrets  Secret with prefix 'RW_'  Optional: true
Events:
  Type     Reason   Age   From     Message
  ----     ------   ----  ----     -------
  Warning  Failed   2m    kubelet  Error: failed to start container "compute":
first line of the cause
second line of the cause
  Normal   Pulled   1m    kubelet  Container image pulled
`
	pods, probs := parse(t, text)
	for _, p := range probs {
		t.Errorf("unexpected problem: %s", p)
	}
	if len(pods) != 1 {
		t.Fatalf("%d pods", len(pods))
	}
	c := pods[0].Containers[0]
	wantMsg := "thread 'main' panicked at src/compute/src/server.rs:101:5:\ncalled `Result::unwrap()` on an `Err` value\n  2026-12-01T10:04:59Z ERROR risingwave_rt: Name: not a field"
	if c.LastState.Message != wantMsg {
		t.Errorf("message = %q\nwant %q", c.LastState.Message, wantMsg)
	}
	if c.LastState.ExitCode == nil || *c.LastState.ExitCode != 101 || c.LastState.Signal != 6 || c.RestartCount != 1 {
		t.Errorf("last state %+v, restart count %d", c.LastState, c.RestartCount)
	}
	env := map[string]EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if v := env["RW_CONFIG"].Value; v != "[server]\nheartbeat_interval_ms = 1000" {
		t.Errorf("RW_CONFIG = %q", v)
	}
	if e := env["RW_TOTAL_MEMORY_BYTES"]; e.Source == nil || e.Source.Kind != "resourceFieldRef" || e.Source.Resource != "limits.memory" || e.Value != "node allocatable" {
		t.Errorf("RW_TOTAL_MEMORY_BYTES = %+v %+v", e, e.Source)
	}
	if e := env["RW_PARALLELISM"]; e.Source == nil || e.Source.Resource != "limits.cpu" || e.Value != "4" {
		t.Errorf("RW_PARALLELISM = %+v", e)
	}
	if e := env["RW_MODE"]; e.Source == nil || *e.Source != (EnvSource{Kind: "configMapKeyRef", Name: "rw-settings", Key: "mode", Optional: true}) {
		t.Errorf("RW_MODE = %+v", e.Source)
	}
	wantFrom := []EnvFrom{{Kind: "ConfigMap", Name: "rw-env"}, {Kind: "Secret", Name: "rw-secrets", Prefix: "RW_", Optional: true}}
	if len(c.EnvFrom) != 2 || c.EnvFrom[0] != wantFrom[0] || c.EnvFrom[1] != wantFrom[1] {
		t.Errorf("EnvFrom = %+v", c.EnvFrom)
	}
	ev := pods[0].Events
	if len(ev) != 2 || ev[0].Message != "Error: failed to start container \"compute\":\nfirst line of the cause\nsecond line of the cause" || ev[1].Reason != "Pulled" || ev[1].Line != 43 {
		t.Errorf("events = %+v", ev)
	}
}

// TestParseDescribeOldTerminating: kubectl 1.9 printed when a terminating
// pod expires (kubernetes v1.9.0 pkg/printers/internalversion/describe.go
// describePod); later ones print how long it has been terminating.
func TestParseDescribeOldTerminating(t *testing.T) {
	text := strings.Replace(head, "Status:           Running",
		"Status:                    Terminating (expires Tue, 01 Dec 2026 10:10:30 +0000)\nTermination Grace Period:  30s", 1) +
		"  compute:\n    Image:  x\n"
	pods, probs := parse(t, text)
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if p := pods[0]; p.Status != "Terminating" || !p.Terminating {
		t.Errorf("status %q terminating %v", p.Status, p.Terminating)
	}
}

// TestParseDescribePasted: a common indentation, tabs and prompts around
// several pods are paste debris, not problems.
func TestParseDescribePasted(t *testing.T) {
	one := head + "  compute:\n    Image:\tx\n    Restart Count:  2\nEvents:  <none>\n"
	indent := func(s string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		return "    " + strings.Join(lines, "\n    ") + "\n"
	}
	text := "user@bastion:~$ kubectl describe pods -n risingwave\n" + indent(one) + "\n\n" +
		strings.Replace(indent(one), "rw-test-compute-0", "rw-test-compute-1", 1) + "user@bastion:~$\n"
	pods, probs := parse(t, text)
	if len(probs) != 0 {
		t.Fatalf("problems: %v", probs)
	}
	if len(pods) != 2 || pods[1].Name != "rw-test-compute-1" || pods[1].Line != 19 || pods[1].Containers[0].RestartCount != 2 || pods[0].Containers[0].Image != "x" {
		t.Errorf("pods = %+v", pods)
	}
}

// TestParseDescribeManyContinuationLines: a value of very many lines is
// read in time linear in its size (joined once, not line by line).
func TestParseDescribeManyContinuationLines(t *testing.T) {
	const n = 200_000
	var sb strings.Builder
	sb.WriteString(head + "  compute:\n    Last State:  Terminated\n      Message:  first\n")
	for range n {
		sb.WriteString("a line of a termination message that goes on and on\n")
	}
	sb.WriteString("      Exit Code:  1\nEvents:\n  Type  Reason  Age  From  Message\n  Normal  X  1s  k  m\n")
	for range n {
		sb.WriteString("more of the event message\n")
	}
	start := time.Now()
	pods, probs := parse(t, sb.String())
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("parsing took %v", d)
	}
	if len(probs) != 0 || len(pods) != 1 {
		t.Fatalf("%d pods, problems %v", len(pods), probs)
	}
	c := pods[0].Containers[0]
	if got := strings.Count(c.LastState.Message, "\n"); got != n || *c.LastState.ExitCode != 1 {
		t.Errorf("message of %d lines, exit code %d", got+1, *c.LastState.ExitCode)
	}
	if got := strings.Count(pods[0].Events[0].Message, "\n"); got != n {
		t.Errorf("event message of %d lines", got+1)
	}
}

func TestGetenv(t *testing.T) {
	pods, _ := parse(t, head+"  compute:\n    Environment:\n      RW_TOTAL_MEMORY_BYTES:  8589934592\n      POD_IP:   (v1:status.podIP)\n")
	c := &pods[0].Containers[0]
	if e, ok := c.Getenv("RW_TOTAL_MEMORY_BYTES"); !ok || e.Value != "8589934592" || e.Line != 14 {
		t.Errorf("RW_TOTAL_MEMORY_BYTES = %+v, %v", e, ok)
	}
	if e, ok := c.Getenv("POD_IP"); !ok || e.Source == nil || e.Source.FieldPath != "status.podIP" {
		t.Errorf("POD_IP = %+v, %v", e, ok)
	}
	if _, ok := c.Getenv("RW_PARALLELISM"); ok {
		t.Errorf("RW_PARALLELISM found")
	}
}
