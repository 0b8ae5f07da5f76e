package kubetext

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const shapes = "../testdata/shapes/kubetext"

// Expectations for a fixture, written as the fixture shows them. Times are
// RFC 3339; "" is the zero time. An exit code of -1 is none.
type wantState struct {
	kind, reason      string
	exit              int
	started, finished string
	line              int
}

type wantCtr struct {
	name, image string
	line        int
	state, last wantState
	ready       string // "True", "False" or "" for none
	restarts    int
	limits      map[string]string
	requests    map[string]string
	env         map[string]string // a subset: name -> value, or "<kind>:<ref>" for a source
	envCount    int
	args        []string
	command     []string
	ports       []Port
}

type wantEvent struct {
	line                    int
	typ, reason, age, first string
	count                   int
	from, message           string
}

type wantPod struct {
	line                               int
	name, ns, node, hostIP, ip, status string
	terminating                        bool
	reason, messagePrefix              string
	start                              string
	labels                             map[string]string // a subset
	controlledBy, qos                  string
	ctrs, inits                        []wantCtr
	events                             []wantEvent
	conditions                         []Condition
}

var noState = wantState{exit: -1}

var computeEnv37 = map[string]string{
	"RW_TOTAL_MEMORY_BYTES": "17179869184",
	"RW_PARALLELISM":        "4",
	"RW_META_ADDR":          "load-balance+http://rw-prod-meta:5690",
	"POD_NAME":              "fieldRef:v1:metadata.name=rw-prod-compute-0",
	"POD_IP":                "fieldRef:v1:status.podIP=",
	"AWS_SECRET_ACCESS_KEY": "secretKeyRef:rw-prod-s3-credentials/SecretAccessKey",
}

var readyConds = []Condition{{"Initialized", "True"}, {"Ready", "True"}, {"ContainersReady", "True"}, {"PodScheduled", "True"}}
var notReadyConds = []Condition{{"Initialized", "True"}, {"Ready", "False"}, {"ContainersReady", "False"}, {"PodScheduled", "True"}}

const rwImage = "ghcr.io/risingwavelabs/risingwave:v2.3.1"

var named = []Port{{Name: "service", ContainerPort: 5688, Protocol: "TCP"}, {Name: "metrics", ContainerPort: 1222, Protocol: "TCP"}}

func res(cpu, mem string) map[string]string { return map[string]string{"cpu": cpu, "memory": mem} }

var oomCompute0 = wantPod{
	line: 1, name: "rw-prod-compute-0", ns: "risingwave", node: "ip-10-0-12-34.ec2.internal", hostIP: "10.0.12.34",
	ip: "10.1.4.21", status: "Running", start: "2026-11-29T10:44:18Z", controlledBy: "StatefulSet/rw-prod-compute", qos: "Guaranteed",
	labels: map[string]string{"risingwave/component": "compute", "risingwave/name": "rw-prod", "statefulset.kubernetes.io/pod-name": "rw-prod-compute-0"},
	ctrs: []wantCtr{{
		name: "compute", image: rwImage, line: 19,
		state: wantState{kind: "Waiting", reason: "CrashLoopBackOff", exit: -1, line: 27},
		last:  wantState{kind: "Terminated", reason: "OOMKilled", exit: 137, started: "2026-12-01T14:55:22Z", finished: "2026-12-01T14:59:03Z", line: 29},
		ready: "False", restarts: 6, limits: res("4", "16Gi"), requests: res("4", "16Gi"),
		env: computeEnv37, envCount: 9, args: []string{"compute-node"}, ports: named,
	}},
	conditions: notReadyConds,
	events: []wantEvent{
		{74, "Normal", "Created", "7m55s", "41m", 7, "kubelet", "spec.containers{compute}: Created container: compute"},
		{75, "Normal", "Pulled", "7m55s", "41m", 7, "kubelet", `spec.containers{compute}: Container image "ghcr.io/risingwavelabs/risingwave:v2.3.1" already present on machine`},
		{76, "Normal", "Started", "7m54s", "41m", 7, "kubelet", "spec.containers{compute}: Started container compute"},
		{77, "Warning", "BackOff", "12s", "25m", 31, "kubelet", "spec.containers{compute}: Back-off restarting failed container compute in pod rw-prod-compute-0_risingwave(9d2e6f0a-1c4b-4a7e-8d3f-000000020ddf)"},
	},
}

// shifted moves a pod's expected lines by n, for a fixture that has n lines
// before the description.
func shifted(p wantPod, n int) wantPod {
	p.line += n
	p.ctrs = append([]wantCtr(nil), p.ctrs...)
	for i := range p.ctrs {
		c := &p.ctrs[i]
		c.line += n
		if c.state.line > 0 {
			c.state.line += n
		}
		if c.last.line > 0 {
			c.last.line += n
		}
	}
	p.events = append([]wantEvent(nil), p.events...)
	for i := range p.events {
		p.events[i].line += n
	}
	return p
}

var describeFixtures = []struct {
	file string
	pods []wantPod
}{
	{"v1.37-describe-oom-crashloop.txt", []wantPod{
		oomCompute0,
		{
			line: 80, name: "rw-prod-compute-1", ns: "risingwave", node: "ip-10-0-12-71.ec2.internal", hostIP: "10.0.12.71",
			ip: "10.1.5.8", status: "Running", start: "2026-11-29T10:44:18Z", controlledBy: "StatefulSet/rw-prod-compute", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "compute", "statefulset.kubernetes.io/pod-name": "rw-prod-compute-1"},
			ctrs: []wantCtr{{
				name: "compute", image: rwImage, line: 98,
				state: wantState{kind: "Running", exit: -1, started: "2026-11-29T10:44:25Z", line: 106}, last: noState,
				ready: "True", restarts: 0, limits: res("4", "16Gi"), requests: res("4", "16Gi"),
				env: map[string]string{"POD_NAME": "fieldRef:v1:metadata.name=rw-prod-compute-1"}, envCount: 9, args: []string{"compute-node"}, ports: named,
			}},
			conditions: readyConds,
		},
	}},
	{"v1.37-describe-pasted-crlf.txt", []wantPod{shifted(oomCompute0, 2)}},
	{"v1.28-describe-near-misses.txt", []wantPod{
		{
			line: 1, name: "rw-prod-compute-2", ns: "risingwave", node: "ip-10-0-13-5.ec2.internal", hostIP: "10.0.13.5",
			ip: "10.1.6.30", status: "Running", start: "2026-11-28T13:06:22Z", controlledBy: "StatefulSet/rw-prod-compute", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "compute"},
			ctrs: []wantCtr{{
				name: "compute", image: rwImage, line: 19,
				state: wantState{kind: "Running", exit: -1, started: "2026-12-01T14:25:21Z", line: 27},
				last:  wantState{kind: "Terminated", reason: "Error", exit: 137, started: "2026-12-01T09:25:20Z", finished: "2026-12-01T14:25:20Z", line: 29},
				ready: "True", restarts: 3, limits: res("4", "16Gi"), requests: res("4", "16Gi"),
				env: map[string]string{"RW_TOTAL_MEMORY_BYTES": "17179869184"}, envCount: 8, args: []string{"compute-node"},
				ports: []Port{{ContainerPort: 5688, Protocol: "TCP"}, {ContainerPort: 1222, Protocol: "TCP"}},
			}},
			conditions: readyConds,
			events: []wantEvent{
				{73, "Warning", "Unhealthy", "41m", "43m", 3, "kubelet", "Liveness probe failed: dial tcp 10.1.6.30:5688: connect: connection refused"},
				{74, "Normal", "Killing", "41m", "41m", 1, "kubelet", "Container compute failed liveness probe, will be restarted"},
			},
		},
		{
			line: 77, name: "rw-prod-meta-0", ns: "risingwave", node: "ip-10-0-11-9.ec2.internal", hostIP: "10.0.11.9",
			ip: "10.1.2.14", status: "Running", start: "2026-11-28T13:06:22Z", controlledBy: "StatefulSet/rw-prod-meta", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "meta", "risingwave/meta-role": "leader"},
			ctrs: []wantCtr{{
				name: "meta", image: rwImage, line: 96,
				state: wantState{kind: "Running", exit: -1, started: "2026-11-30T13:06:23Z", line: 104},
				last:  wantState{kind: "Terminated", reason: "Completed", exit: 0, started: "2026-11-28T13:06:28Z", finished: "2026-11-30T13:06:20Z", line: 106},
				ready: "True", restarts: 1, limits: res("1", "4Gi"), requests: res("1", "4Gi"), envCount: 7, args: []string{"meta-node"},
				ports: []Port{{ContainerPort: 5690, Protocol: "TCP"}, {ContainerPort: 1250, Protocol: "TCP"}},
			}},
			conditions: readyConds,
		},
		{
			line: 149, name: "rw-prod-compactor-6d9f7c8b5-x2x7q", ns: "risingwave", node: "ip-10-0-13-5.ec2.internal", hostIP: "10.0.13.5",
			ip: "10.1.6.31", status: "Running", start: "2026-11-28T13:06:22Z", controlledBy: "ReplicaSet/rw-prod-compactor-6d9f7c8b5", qos: "Guaranteed",
			labels: map[string]string{"pod-template-hash": "6d9f7c8b5", "risingwave/component": "compactor"},
			ctrs: []wantCtr{{
				name: "compactor", image: rwImage, line: 166,
				state: wantState{kind: "Running", exit: -1, started: "2026-12-01T15:05:50Z", line: 174},
				last:  wantState{kind: "Terminated", reason: "Error", exit: 1, started: "2026-12-01T14:59:30Z", finished: "2026-12-01T15:05:30Z", line: 176},
				ready: "False", restarts: 2, limits: res("2", "4Gi"), requests: res("2", "4Gi"), envCount: 7, args: []string{"compactor-node"},
				ports: []Port{{ContainerPort: 6660, Protocol: "TCP"}, {ContainerPort: 1260, Protocol: "TCP"}},
			}},
			conditions: notReadyConds,
		},
		{
			line: 219, name: "rw-prod-frontend-6d9f7c8b5-kq4zn", ns: "risingwave", node: "ip-10-0-11-9.ec2.internal", hostIP: "10.0.11.9",
			ip: "10.1.2.40", status: "Terminating", terminating: true, start: "2026-11-28T13:06:22Z", controlledBy: "ReplicaSet/rw-prod-frontend-6d9f7c8b5", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "frontend"},
			ctrs: []wantCtr{{
				name: "frontend", image: rwImage, line: 237,
				state: wantState{kind: "Running", exit: -1, started: "2026-11-28T13:06:26Z", line: 245}, last: noState,
				ready: "True", restarts: 0, limits: res("1", "2Gi"), requests: res("1", "2Gi"), envCount: 7, args: []string{"frontend-node"},
				ports: []Port{{ContainerPort: 4567, Protocol: "TCP"}, {ContainerPort: 8080, Protocol: "TCP"}},
			}},
			conditions: readyConds,
			events:     []wantEvent{{285, "Normal", "Killing", "40s", "40s", 1, "kubelet", "Stopping container frontend"}},
		},
		{
			line: 288, name: "rw-prod-compactor-6d9f7c8b5-7wz9m", ns: "risingwave", node: "ip-10-0-12-34.ec2.internal", hostIP: "10.0.12.34",
			ip: "", status: "Failed", reason: "Evicted", messagePrefix: "The node was low on resource: memory.", start: "2026-11-28T13:06:22Z",
			controlledBy: "ReplicaSet/rw-prod-compactor-6d9f7c8b5", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "compactor"},
			ctrs: []wantCtr{{
				name: "compactor", image: rwImage, line: 306,
				state: wantState{kind: "Terminated", reason: "ContainerStatusUnknown", exit: 137, started: "", finished: "2026-12-01T10:06:20Z", line: 314},
				last:  noState, ready: "False", restarts: 0, limits: res("2", "4Gi"), requests: res("2", "4Gi"), envCount: 7, args: []string{"compactor-node"},
				ports: []Port{{ContainerPort: 6660, Protocol: "TCP"}, {ContainerPort: 1260, Protocol: "TCP"}},
			}},
			conditions: notReadyConds,
			events: []wantEvent{{358, "Warning", "Evicted", "5h", "5h", 1, "kubelet",
				"The node was low on resource: memory. Threshold quantity: 100Mi, available: 87Mi. Container compactor was using 3874Mi, request is 4Gi, has larger consumption of memory."}},
		},
	}},
	{"v1.18-describe-oom-init.txt", []wantPod{
		{
			line: 1, name: "rw-legacy-compute-0", ns: "rw-legacy", node: "node-3", hostIP: "192.168.7.13",
			ip: "172.20.3.45", status: "Running", start: "2026-12-01T09:49:22Z", controlledBy: "StatefulSet/rw-legacy-compute", qos: "Guaranteed",
			labels: map[string]string{"risingwave/component": "compute", "risingwave/name": "rw-legacy"},
			inits: []wantCtr{{
				name: "init-config", image: "busybox:1.36", line: 18,
				state: wantState{kind: "Terminated", reason: "Completed", exit: 0, started: "2026-12-01T09:49:23Z", finished: "2026-12-01T09:49:24Z", line: 28},
				last:  noState, ready: "True", command: []string{"sh", "-c", "cp /config-template/* /risingwave/config/"},
			}},
			ctrs: []wantCtr{{
				name: "compute", image: rwImage, line: 39,
				state: wantState{kind: "Running", exit: -1, started: "2026-12-01T14:43:21Z", line: 47},
				last:  wantState{kind: "Terminated", reason: "OOMKilled", exit: 137, started: "2026-12-01T13:56:20Z", finished: "2026-12-01T14:43:20Z", line: 49},
				ready: "True", restarts: 2, limits: res("8", "32Gi"), requests: res("8", "32Gi"),
				env:      map[string]string{"RW_TOTAL_MEMORY_BYTES": "34359738368", "AWS_SECRET_ACCESS_KEY": "secretKeyRef:rw-legacy-s3-credentials/SecretAccessKey"},
				envCount: 8, args: []string{"compute-node"},
				ports: []Port{{ContainerPort: 5688, Protocol: "TCP"}, {ContainerPort: 1222, Protocol: "TCP"}},
			}},
			conditions: readyConds,
			events: []wantEvent{
				{93, "Normal", "Pulled", "18m", "5h", 3, "kubelet, node-3", `Container image "ghcr.io/risingwavelabs/risingwave:v2.3.1" already present on machine`},
				{94, "Warning", "BackOff", "18m", "65m", 2, "kubelet, node-3", "Back-off restarting failed container"},
				{95, "Normal", "Started", "<invalid>", "<invalid>", 1, "kubelet, node-3", "Started container compute"},
			},
		},
		{
			line: 98, name: "rw-legacy-meta-0", ns: "rw-legacy", node: "node-1", hostIP: "192.168.7.11",
			ip: "172.20.1.9", status: "Pending", start: "2026-12-01T14:57:22Z", controlledBy: "StatefulSet/rw-legacy-meta", qos: "Burstable",
			labels: map[string]string{"risingwave/component": "meta"},
			inits: []wantCtr{{
				name: "wait-etcd", image: "busybox:1.36", line: 115,
				state: wantState{kind: "Running", exit: -1, started: "2026-12-01T14:57:30Z", line: 125}, last: noState, ready: "False",
				command: []string{"sh", "-c", "until nc -z rw-legacy-etcd 2379; do sleep 2; done"},
			}},
			ctrs: []wantCtr{{
				name: "meta", image: rwImage, line: 132,
				state: wantState{kind: "Waiting", reason: "PodInitializing", exit: -1, line: 140}, last: noState,
				ready: "False", limits: res("1", "4Gi"), requests: res("1", "4Gi"), envCount: 7, args: []string{"meta-node"},
				ports: []Port{{ContainerPort: 5690, Protocol: "TCP"}, {ContainerPort: 1250, Protocol: "TCP"}},
			}},
			conditions: []Condition{{"Initialized", "False"}, {"Ready", "False"}, {"ContainersReady", "False"}, {"PodScheduled", "True"}},
			events:     []wantEvent{{180, "Normal", "Scheduled", "4m", "4m", 1, "default-scheduler", "Successfully assigned rw-legacy/rw-legacy-meta-0 to node-1"}},
		},
	}},
}

func TestParseDescribeFixtures(t *testing.T) {
	for _, tc := range describeFixtures {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(shapes, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pods, probs, err := ParseDescribe(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				t.Errorf("%s: unexpected problem: %s", tc.file, p)
			}
			if len(pods) != len(tc.pods) {
				t.Fatalf("%s: %d pods, want %d", tc.file, len(pods), len(tc.pods))
			}
			for i, want := range tc.pods {
				checkPod(t, tc.file, &pods[i], want)
			}
		})
	}
}

func checkPod(t *testing.T, file string, got *Pod, want wantPod) {
	t.Helper()
	where := fmt.Sprintf("%s: pod %s", file, want.name)
	eq := func(field string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s = %#v, want %#v", where, field, g, w)
		}
	}
	eq("Line", got.Line, want.line)
	eq("Name", got.Name, want.name)
	eq("Namespace", got.Namespace, want.ns)
	eq("Node", got.Node, want.node)
	eq("HostIP", got.HostIP, want.hostIP)
	eq("IP", got.IP, want.ip)
	eq("Status", got.Status, want.status)
	eq("Terminating", got.Terminating, want.terminating)
	eq("Reason", got.Reason, want.reason)
	if !strings.HasPrefix(got.Message, want.messagePrefix) || (want.messagePrefix == "") != (got.Message == "") {
		t.Errorf("%s: Message = %q, want it to start with %q", where, got.Message, want.messagePrefix)
	}
	eq("StartTime", rfc(got.StartTime), want.start)
	eq("ControlledBy", got.ControlledBy, want.controlledBy)
	eq("QOSClass", got.QOSClass, want.qos)
	eq("Conditions", got.Conditions, want.conditions)
	for k, v := range want.labels {
		eq("Labels["+k+"]", got.Labels[k], v)
	}
	checkCtrs(t, where+" containers", got.Containers, want.ctrs)
	checkCtrs(t, where+" init containers", got.InitContainers, want.inits)
	var events []wantEvent
	for _, e := range got.Events {
		events = append(events, wantEvent{e.Line, e.Type, e.Reason, e.Age, e.FirstAge, e.Count, e.From, e.Message})
	}
	eq("Events", events, want.events)
}

func checkCtrs(t *testing.T, where string, got []Container, want []wantCtr) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d, want %d", where, len(got), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		at := where + " " + w.name
		eq := func(field string, gv, wv any) {
			t.Helper()
			if !reflect.DeepEqual(gv, wv) {
				t.Errorf("%s: %s = %#v, want %#v", at, field, gv, wv)
			}
		}
		eq("Name", g.Name, w.name)
		eq("Image", g.Image, w.image)
		eq("Line", g.Line, w.line)
		eq("HasStatus", g.HasStatus, true)
		eq("State", stateOf(g.State), w.state)
		eq("LastState", stateOf(g.LastState), w.last)
		ready := ""
		if g.Ready != nil {
			ready = map[bool]string{true: "True", false: "False"}[*g.Ready]
		}
		eq("Ready", ready, w.ready)
		eq("RestartCount", g.RestartCount, w.restarts)
		eq("Limits", g.Limits, w.limits)
		eq("Requests", g.Requests, w.requests)
		eq("Args", g.Args, w.args)
		eq("Command", g.Command, w.command)
		eq("Ports", g.Ports, w.ports)
		eq("len(Env)", len(g.Env), w.envCount)
		env := map[string]string{}
		for _, e := range g.Env {
			env[e.Name] = envText(e)
		}
		for k, v := range w.env {
			eq("Env["+k+"]", env[k], v)
		}
	}
}

func stateOf(s State) wantState {
	w := wantState{kind: s.Kind, reason: s.Reason, exit: -1, started: rfc(s.StartedAt), finished: rfc(s.FinishedAt), line: s.Line}
	if s.ExitCode != nil {
		w.exit = *s.ExitCode
	}
	return w
}

func envText(e EnvVar) string {
	switch {
	case e.Source == nil:
		return e.Value
	case e.Source.Kind == "fieldRef":
		return "fieldRef:" + e.Source.APIVersion + ":" + e.Source.FieldPath + "=" + e.Value
	case e.Source.Kind == "resourceFieldRef":
		return "resourceFieldRef:" + e.Source.Resource + "=" + e.Value
	default:
		return e.Source.Kind + ":" + e.Source.Name + "/" + e.Source.Key
	}
}

func rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func TestContainerLine(t *testing.T) {
	f, err := os.Open(filepath.Join(shapes, "v1.28-describe-near-misses.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pods, _, err := ParseDescribe(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ns, pod, ctr string
		want         int
	}{
		{"risingwave", "rw-prod-meta-0", "meta", 96},
		{"", "rw-prod-compactor-6d9f7c8b5-7wz9m", "compactor", 306},
		{"other", "rw-prod-meta-0", "meta", 0},
		{"risingwave", "rw-prod-meta-0", "compute", 0},
		{"risingwave", "rw-prod-compute-9", "compute", 0},
	} {
		if got := ContainerLine(pods, tc.ns, tc.pod, tc.ctr); got != tc.want {
			t.Errorf("ContainerLine(%q, %q, %q) = %d, want %d", tc.ns, tc.pod, tc.ctr, got, tc.want)
		}
	}
}
