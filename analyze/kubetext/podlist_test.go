package kubetext

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func parseFile(t *testing.T, name string) []Pod {
	t.Helper()
	f, err := os.Open(filepath.Join(shapes, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pods, _, err := ParseDescribe(f)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

func parseRows(t *testing.T, name string) []PodRow {
	t.Helper()
	f, err := os.Open(filepath.Join(shapes, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _, err := ParseGetPods(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// podList is `kubectl get pods -o json` decoded with k8s.io/api's types.
type podList struct {
	APIVersion string          `json:"apiVersion"`
	Items      []corev1.Pod    `json:"items"`
	Kind       string          `json:"kind"`
	Metadata   metav1.ListMeta `json:"metadata"`
}

// decodeStrict decodes PodListJSON output into k8s.io/api types, refusing
// fields those types do not have.
func decodeStrict(t *testing.T, b []byte) podList {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l podList
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("not a core/v1 pod list: %v", err)
	}
	return l
}

// TestPodListJSONRoundTrip: every fixture's pods encode to JSON that
// k8s.io/api core/v1 decodes field for field, in kubectl's layout (keys
// sorted, four-space indentation, a final newline), and decode back to
// what was parsed.
func TestPodListJSONRoundTrip(t *testing.T) {
	for _, tc := range describeFixtures {
		t.Run(tc.file, func(t *testing.T) {
			pods := parseFile(t, tc.file)
			b, err := PodListJSON(pods, nil)
			if err != nil {
				t.Fatal(err)
			}
			var generic any
			if err := json.Unmarshal(b, &generic); err != nil {
				t.Fatal(err)
			}
			sorted, _ := json.MarshalIndent(generic, "", "    ")
			if !bytes.Equal(append(sorted, '\n'), b) {
				t.Errorf("output is not in kubectl's layout (sorted keys, four spaces)")
			}
			l := decodeStrict(t, b)
			if l.APIVersion != "v1" || l.Kind != "List" || len(l.Items) != len(pods) {
				t.Fatalf("list %s/%s with %d items, want v1/List with %d", l.APIVersion, l.Kind, len(l.Items), len(pods))
			}
			for i := range pods {
				checkRoundTrip(t, tc.file, &pods[i], &l.Items[i])
			}
		})
	}
}

func checkRoundTrip(t *testing.T, file string, p *Pod, k *corev1.Pod) {
	t.Helper()
	errorf := func(format string, a ...any) {
		t.Helper()
		t.Errorf(file+": pod "+p.Name+": "+format, a...)
	}
	if k.APIVersion != "v1" || k.Kind != "Pod" || k.Name != p.Name || k.Namespace != p.Namespace || k.Spec.NodeName != p.Node ||
		k.Status.PodIP != p.IP || k.Status.HostIP != p.HostIP || len(k.Labels) != len(p.Labels) {
		errorf("metadata, node or IPs differ: %+v", k.ObjectMeta)
	}
	if p.Terminating {
		if k.Status.Phase != "" {
			errorf("a terminating pod has phase %q", k.Status.Phase)
		}
	} else if string(k.Status.Phase) != p.Status {
		errorf("phase %q, want %q", k.Status.Phase, p.Status)
	}
	if k.Status.Reason != p.Reason || k.Status.Message != p.Message {
		errorf("reason or message differ")
	}
	if !p.StartTime.IsZero() && (k.Status.StartTime == nil || !k.Status.StartTime.Time.Equal(p.StartTime)) {
		errorf("start time %v, want %v", k.Status.StartTime, p.StartTime)
	}
	for _, pair := range []struct {
		spec     []corev1.Container
		statuses []corev1.ContainerStatus
		parsed   []Container
	}{{k.Spec.Containers, k.Status.ContainerStatuses, p.Containers}, {k.Spec.InitContainers, k.Status.InitContainerStatuses, p.InitContainers}} {
		if len(pair.spec) != len(pair.parsed) {
			errorf("%d containers, want %d", len(pair.spec), len(pair.parsed))
			continue
		}
		statuses := map[string]corev1.ContainerStatus{}
		for _, s := range pair.statuses {
			statuses[s.Name] = s
		}
		for i, c := range pair.parsed {
			kc := pair.spec[i]
			if kc.Name != c.Name || kc.Image != c.Image || len(kc.Env) != len(c.Env) || len(kc.Args) != len(c.Args) || len(kc.Command) != len(c.Command) || len(kc.Ports) != len(c.Ports) {
				errorf("container %s spec differs: %+v", c.Name, kc)
			}
			for name, q := range kc.Resources.Limits {
				if q.String() != c.Limits[string(name)] {
					errorf("container %s limit %s = %s, want %s", c.Name, name, q.String(), c.Limits[string(name)])
				}
			}
			if len(kc.Resources.Limits) != len(c.Limits) || len(kc.Resources.Requests) != len(c.Requests) {
				errorf("container %s resources differ", c.Name)
			}
			for j, e := range c.Env {
				ke := kc.Env[j]
				switch {
				case e.Source == nil && (ke.Value != e.Value || ke.ValueFrom != nil):
					errorf("env %s = %+v", e.Name, ke)
				case e.Source != nil && (ke.Value != "" || ke.ValueFrom == nil):
					errorf("env %s from %s = %+v", e.Name, e.Source.Kind, ke)
				}
			}
			s, ok := statuses[c.Name]
			if ok != c.HasStatus {
				errorf("container %s: status present %v, want %v", c.Name, ok, c.HasStatus)
				continue
			}
			if !ok {
				continue
			}
			if int(s.RestartCount) != c.RestartCount || s.Ready != (c.Ready != nil && *c.Ready) || s.ContainerID != c.ContainerID {
				errorf("container %s status differs: %+v", c.Name, s)
			}
			checkState(t, file+": "+p.Name+"/"+c.Name+" state", s.State, c.State)
			checkState(t, file+": "+p.Name+"/"+c.Name+" lastState", s.LastTerminationState, c.LastState)
		}
	}
}

func checkState(t *testing.T, where string, k corev1.ContainerState, s State) {
	t.Helper()
	switch s.Kind {
	case "Running":
		if k.Running == nil || !k.Running.StartedAt.Time.Equal(s.StartedAt) || k.Waiting != nil || k.Terminated != nil {
			t.Errorf("%s: %+v, want running since %v", where, k, s.StartedAt)
		}
	case "Waiting":
		if k.Waiting == nil || k.Waiting.Reason != s.Reason || k.Running != nil || k.Terminated != nil {
			t.Errorf("%s: %+v, want waiting %s", where, k, s.Reason)
		}
	case "Terminated":
		tm := k.Terminated
		if tm == nil || tm.Reason != s.Reason || int(tm.ExitCode) != *s.ExitCode || tm.Message != s.Message || int(tm.Signal) != s.Signal ||
			!tm.StartedAt.Time.Equal(s.StartedAt) || !tm.FinishedAt.Time.Equal(s.FinishedAt) {
			t.Errorf("%s: %+v, want %+v", where, tm, s)
		}
	case "":
		if k.Running != nil || k.Waiting != nil || k.Terminated != nil {
			t.Errorf("%s: %+v, want none", where, k)
		}
	}
}

// TestPodListJSONRulePaths: the gjson paths the built-in rules use on
// kubernetes/pods.json read converted describe text alike.
func TestPodListJSONRulePaths(t *testing.T) {
	pods := append(parseFile(t, "v1.37-describe-oom-crashloop.txt"), parseFile(t, "v1.28-describe-near-misses.txt")...)
	b, err := PodListJSON(pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	items := gjson.GetBytes(b, "items").Array()
	byName := map[string]gjson.Result{}
	for _, it := range items {
		byName[it.Get("metadata.name").String()] = it
	}
	for _, tc := range []struct {
		pod, path, want string
	}{
		// rules/oom-crash-loop.yaml
		{"rw-prod-compute-0", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#.name`, `["compute"]`},
		{"rw-prod-compute-0", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#.restartCount`, `[6]`},
		{"rw-prod-compute-0", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#.lastState.terminated.exitCode`, `[137]`},
		{"rw-prod-compute-0", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#.lastState.terminated.finishedAt`, `["2026-12-01T14:59:03Z"]`},
		{"rw-prod-compute-0", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#.state.waiting.reason`, `["CrashLoopBackOff"]`},
		{"rw-prod-compute-0", `spec.containers.#(name%"compute*").resources.limits.memory`, `16Gi`},
		{"rw-prod-compute-0", `spec.containers.#(name=="compute").env.#(name=="RW_TOTAL_MEMORY_BYTES").value`, `17179869184`},
		{"rw-prod-compute-1", `status.containerStatuses.#(restartCount>0)#`, `[]`},
		// near misses: no OOM kill to find
		{"rw-prod-compute-2", `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#`, `[]`},
		{"rw-prod-compute-2", `status.containerStatuses.#(lastState.terminated.exitCode==137)#.lastState.terminated.reason`, `["Error"]`},
		{"rw-prod-meta-0", `status.containerStatuses.#(restartCount>0)#.lastState.terminated.reason`, `["Completed"]`},
		{"rw-prod-compactor-6d9f7c8b5-x2x7q", `status.containerStatuses.0.lastState.terminated.exitCode`, `1`},
		{"rw-prod-compactor-6d9f7c8b5-7wz9m", `status.reason`, `Evicted`},
		{"rw-prod-compactor-6d9f7c8b5-7wz9m", `status.containerStatuses.0.state.terminated.startedAt`, ``},
		// rules/barrier-stall.yaml
		{"rw-prod-compute-0", `status.podIP`, `10.1.4.21`},
		{"rw-prod-compute-0", `metadata.labels.risingwave/component`, `compute`},
	} {
		it, ok := byName[tc.pod]
		if !ok {
			t.Fatalf("no item %s", tc.pod)
		}
		got := it.Get(tc.path)
		if s := got.String(); got.IsArray() {
			s = got.Raw
			if s != tc.want {
				t.Errorf("%s: %s = %s, want %s", tc.pod, tc.path, s, tc.want)
			}
		} else if s != tc.want {
			t.Errorf("%s: %s = %q, want %q", tc.pod, tc.path, s, tc.want)
		}
	}
}

// TestPodListJSONRows: table rows fill in what descriptions lack and add
// the pods that were not described.
func TestPodListJSONRows(t *testing.T) {
	pods := parseFile(t, "v1.37-describe-oom-crashloop.txt")
	pods[1].IP, pods[1].IPs = "", nil // as if cut from the description
	again := pods[0]
	again.Containers = append([]Container(nil), pods[0].Containers...)
	again.Containers[0].RestartCount = 7 // described again, later
	pods = append(pods, again)
	rows := parseRows(t, "v1.37-get-pods-wide.txt")
	b, err := PodListJSON(pods, rows)
	if err != nil {
		t.Fatal(err)
	}
	l := decodeStrict(t, b)
	if len(l.Items) != len(rows) {
		t.Fatalf("%d items, want one per row (%d)", len(l.Items), len(rows))
	}
	byName := map[string]corev1.Pod{}
	for _, it := range l.Items {
		byName[it.Name] = it
	}
	if p := byName["rw-prod-compute-0"]; p.Status.ContainerStatuses[0].RestartCount != 7 || l.Items[0].Name != "rw-prod-compute-0" {
		t.Errorf("the later description of rw-prod-compute-0 should win in the first's place; restarts %d", p.Status.ContainerStatuses[0].RestartCount)
	}
	if p := byName["rw-prod-compute-1"]; p.Status.PodIP != "10.1.5.8" || len(p.Status.PodIPs) != 1 || p.Namespace != "risingwave" {
		t.Errorf("rw-prod-compute-1 should take its IP from the row: %+v", p.Status)
	}
	for name, phase := range map[string]corev1.PodPhase{"rw-prod-compute-4": "Pending", "rw-prod-meta-0": "Running", "rw-prod-compute-3": "", "rw-prod-backup-29411520-8xk2p": ""} {
		p, ok := byName[name]
		if !ok || p.Status.Phase != phase || len(p.Spec.Containers) != 0 || len(p.Status.ContainerStatuses) != 0 {
			t.Errorf("%s from a row: phase %q containers %d, want phase %q and no containers", name, p.Status.Phase, len(p.Spec.Containers), phase)
		}
	}
	if p := byName["rw-prod-compute-3"]; p.Spec.NodeName != "ip-10-0-14-2.ec2.internal" || p.Status.PodIP != "10.1.7.3" {
		t.Errorf("rw-prod-compute-3 from a row: node %q IP %q", p.Spec.NodeName, p.Status.PodIP)
	}
	if !bytes.Contains(b, []byte(`"containers": []`)) {
		t.Errorf("a pod from a row should have an empty containers list, as core/v1 requires the field")
	}
}

func TestPodListJSONEmpty(t *testing.T) {
	b, err := PodListJSON(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

// TestPodListJSONGolden pins the whole conversion of one fixture; run with
// -update after an intended change.
func TestPodListJSONGolden(t *testing.T) {
	b, err := PodListJSON(parseFile(t, "v1.18-describe-oom-init.txt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "v1.18-describe-oom-init.pods.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("PodListJSON differs from %s; run go test -run Golden -update and review the diff", golden)
	}
}
