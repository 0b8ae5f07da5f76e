package kube

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// ktStore loads testdata/kube/<resource>.json files.
func ktStore(t *testing.T, resources ...string) *Store {
	t.Helper()
	k := NewStore()
	for _, r := range resources {
		f, err := os.Open(filepath.Join("testdata", r+".json"))
		if err != nil {
			t.Fatal(err)
		}
		err = k.Add(r, "kubernetes/"+r+".json", f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func ktQuery(t *testing.T, k *Store, q Query) []evidence.Row {
	t.Helper()
	rows, err := k.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// ktNames lists a field of the rows.
func ktNames(rows []evidence.Row, field string) string {
	var s []string
	for _, r := range rows {
		s = append(s, fmt.Sprint(r[field]))
	}
	return strings.Join(s, ",")
}

func TestKubeOOMKilled(t *testing.T) {
	k := ktStore(t, "pods")
	rows := ktQuery(t, k, Query{
		Resource: "pods",
		Path:     `status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#`,
		Fields:   map[string]string{"restarts": "restartCount", "exit_code": "lastState.terminated.exitCode", "waiting": "state.waiting.reason"},
	})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %v", len(rows), rows)
	}
	r := rows[0]
	want := evidence.Row{"name": "rw-prod-compute-0", "namespace": "rw", "kind": "Pod", "component": "compute", "pod": "rw-prod-compute-0",
		"path": "kubernetes/pods.json", "restarts": 5.0, "exit_code": 137.0, "waiting": "CrashLoopBackOff"}
	for f, v := range want {
		if r[f] != v {
			t.Errorf("%s = %#v, want %#v", f, r[f], v)
		}
	}
	if v, ok := r["value"].(map[string]any); !ok || v["name"] != "compute" {
		t.Errorf("value = %#v, want the compute container's status", r["value"])
	}
	if got, want := r["text"], "pod rw-prod-compute-0, container compute: lastState.terminated.reason = OOMKilled (exit_code=137, restarts=5, waiting=CrashLoopBackOff)"; got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	if r := rows[1]; r["name"] != "rw-helm-compute-0" || r["component"] != "compute" || r["restarts"] != 2.0 || r["waiting"] != nil {
		t.Errorf("helm row: %v", r)
	}
	// The same reason through a scalar path: one row per match.
	rows = ktQuery(t, k, Query{Resource: "pods", Path: `status.containerStatuses.#(name=="compute").lastState.terminated.reason`})
	if got := ktNames(rows, "value"); got != "OOMKilled,OOMKilled" {
		t.Errorf("values %s", got)
	}
	if got, want := rows[0]["text"], `pod rw-prod-compute-0, container compute: lastState.terminated.reason = OOMKilled`; got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
}

func TestKubeComponentSelection(t *testing.T) {
	k := ktStore(t, "pods", "statefulsets")
	for _, tc := range []struct {
		q    Query
		want string
	}{
		// Operator label, and the helm chart's own label.
		{Query{Resource: "pods", Component: "compute"}, "rw-prod-compute-0,rw-helm-compute-0"},
		{Query{Resource: "pods", Component: "meta"}, "rw-prod-meta-0"},
		// app.kubernetes.io/component.
		{Query{Resource: "pods", Component: "frontend"}, "rw-helm-frontend-5d9c7-abcde"},
		// No labels: the container name.
		{Query{Resource: "pods", Component: "compactor"}, "rw-bare-compactor-0"},
		{Query{Resource: "pods", Component: "standalone"}, ""},
		{Query{Resource: "pods", Labels: map[string]string{"risingwave/name": "rw-prod"}}, "rw-prod-compute-0,rw-prod-meta-0"},
		{Query{Resource: "pods", Labels: map[string]string{"risingwave/name": "rw-prod", "risingwave/meta-role": "leader"}}, "rw-prod-meta-0"},
		{Query{Resource: "pods", Component: "compute", Labels: map[string]string{"risingwave/name": "other"}}, ""},
		// Workloads: labels, else the template's containers; items without kind.
		{Query{Resource: "statefulsets", Component: "compute"}, "rw-prod-compute"},
		{Query{Resource: "statefulsets", Component: "meta"}, "rw-helm-meta"},
		{Query{Resource: "nodes"}, ""},
	} {
		rows := ktQuery(t, k, tc.q)
		if got := ktNames(rows, "name"); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.q, got, tc.want)
		}
	}
	rows := ktQuery(t, k, Query{Resource: "statefulsets", Path: "status.readyReplicas", Fields: map[string]string{"replicas": "spec.replicas"}})
	if len(rows) != 2 || rows[0]["kind"] != "StatefulSet" || rows[0]["value"] != 2.0 || rows[0]["replicas"] != 3.0 || rows[0]["pod"] != "" {
		t.Errorf("statefulsets: %v", rows)
	}
	if got, want := rows[0]["text"], "statefulset rw-prod-compute: status.readyReplicas = 2 (replicas=3)"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

func TestKubeEvents(t *testing.T) {
	k := ktStore(t, "events", "pods")
	rows := ktQuery(t, k, Query{Resource: "events", Component: "compute"})
	if got := ktNames(rows, "pod"); got != "rw-prod-compute-0,rw-helm-compute-0" {
		t.Fatalf("compute events of %s", got)
	}
	r := rows[0]
	if r["kind"] != "Event" || r["component"] != "compute" || r["count"] != 12 || !r["time"].(time.Time).Equal(time.Date(2026, 11, 29, 20, 41, 0, 0, time.UTC)) {
		t.Errorf("event row: %v", r)
	}
	if got, want := r["text"], "event Warning BackOff pod/rw-prod-compute-0 (x12): Back-off restarting failed container compute in pod rw-prod-compute-0_rw(abc)"; got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	// No lastTimestamp: eventTime.
	if got := rows[1]["time"].(time.Time); !got.Equal(time.Date(2026, 11, 29, 20, 42, 0, 123456000, time.UTC)) {
		t.Errorf("eventTime: %v", got)
	}
	// A path on events, and events of one pod by label.
	rows = ktQuery(t, k, Query{Resource: "events", Path: "reason", Labels: map[string]string{"risingwave/meta-role": "leader"}})
	if len(rows) != 1 || rows[0]["value"] != "Pulled" || rows[0]["pod"] != "rw-prod-meta-0" || rows[0]["component"] != "meta" {
		t.Errorf("meta events: %v", rows)
	}
	// An event about a node has no pod or component.
	rows = ktQuery(t, k, Query{Resource: "events", Path: `reason`, Fields: map[string]string{"node": "involvedObject.name"}})
	if len(rows) != 4 || rows[2]["value"] != "OOMKilling" || rows[2]["pod"] != "" || rows[2]["component"] != "" || rows[2]["node"] != "node-1" {
		t.Errorf("node event: %v", rows)
	}
}

func TestKubePaths(t *testing.T) {
	k := ktStore(t, "pods", "risingwaves")
	for _, tc := range []struct {
		q         Query
		want      string
		wantFirst string // text of the first row
	}{
		{Query{Resource: "pods", Path: "status.phase", Component: "meta"}, "Running", "pod rw-prod-meta-0: status.phase = Running"},
		{Query{Resource: "pods", Path: "status.nothing"}, "", ""},
		{Query{Resource: "pods", Path: "spec.containers.#.image", Component: "compute"}, "risingwavelabs/risingwave:v2.1.0,fluent-bit:3,risingwavelabs/risingwave:v2.1.0",
			"pod rw-prod-compute-0: spec.containers[*].image = risingwavelabs/risingwave:v2.1.0"},
		{Query{Resource: "pods", Path: "status.containerStatuses.#.restartCount", Component: "compute"}, "0,5,2", ""},
		{Query{Resource: "pods", Path: `status.containerStatuses.#(lastState.terminated.reason=="Nope")#`}, "", ""},
		// A plain array: one row per element, named.
		{Query{Resource: "pods", Path: "spec.containers", Component: "meta", Fields: map[string]string{"image": "image"}}, "map[image:risingwavelabs/risingwave:v2.1.0 name:meta]",
			"pod rw-prod-meta-0, container meta: image=risingwavelabs/risingwave:v2.1.0"},
		// A single object, not a list.
		{Query{Resource: "risingwaves", Path: `status.conditions.#(type=="Running").status`}, "True", `risingwave rw-prod, condition Running: status = True`},
		{Query{Resource: "risingwaves", Path: `status.conditions`}, "map[status:True type:Running],map[status:False type:Upgrading]", `risingwave rw-prod, condition Running = {"type":"Running","status":"True"}`},
		{Query{Resource: "risingwaves", Path: `spec.metaStore|@keys`}, "etcd", ""},
	} {
		rows := ktQuery(t, k, tc.q)
		if got := ktNames(rows, "value"); got != tc.want {
			t.Errorf("%s: values %s, want %s", tc.q.Path, got, tc.want)
		}
		if tc.wantFirst != "" && (len(rows) == 0 || rows[0]["text"] != tc.wantFirst) {
			t.Errorf("%s: first text %v, want %q", tc.q.Path, ktNames(rows[:min(1, len(rows))], "text"), tc.wantFirst)
		}
	}
	if _, err := k.Query(Query{Resource: "pods", Path: "status.containerStatuses.#(name==\"x\""}); err == nil {
		t.Error("a bad path is no error")
	}
	if _, err := k.Query(Query{Resource: "pods", Fields: map[string]string{"x": "a..b"}}); err == nil {
		t.Error("a bad field path is no error")
	}
}

func TestKubeAdd(t *testing.T) {
	k := NewStore()
	f, err := os.Open(filepath.Join("testdata", "truncated.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = k.Add("pods", "kubernetes/pods.json", f)
	if err == nil || !strings.Contains(err.Error(), "kubernetes/pods.json") || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("truncated: err = %v, want it to name the path", err)
	}
	if k.Has("pods") {
		t.Error("Has after a failed Add")
	}
	if err := k.Add("nodes", "kubernetes/nodes.json", strings.NewReader(`"just a string"`)); err == nil || !strings.Contains(err.Error(), "kubernetes/nodes.json") {
		t.Errorf("scalar: err = %v", err)
	}
	if err := k.Add("nodes", "kubernetes/nodes.json", strings.NewReader(`{"kind":"NodeList","items":[]}`)); err != nil || !k.Has("nodes") {
		t.Errorf("empty list: err = %v", err)
	}
	if rows := ktQuery(t, k, Query{Resource: "nodes"}); len(rows) != 0 {
		t.Errorf("empty list has rows %v", rows)
	}
	// events.k8s.io/v1 names things differently.
	if err := k.Add("events", "kubernetes/events.json", strings.NewReader(`{"kind":"EventList","items":[{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"n"},"regarding":{"kind":"Node","name":"node-2"},"reason":"NodeNotReady","type":"Warning","note":"Node is not ready","deprecatedCount":3,"eventTime":null,"deprecatedLastTimestamp":"2026-11-29T20:50:00Z"}]}`)); err != nil {
		t.Fatal(err)
	}
	rows := ktQuery(t, k, Query{Resource: "events"})
	if len(rows) != 1 || rows[0]["count"] != 3 || rows[0]["text"] != "event Warning NodeNotReady node/node-2 (x3): Node is not ready" || !rows[0]["time"].(time.Time).Equal(time.Date(2026, 11, 29, 20, 50, 0, 0, time.UTC)) {
		t.Errorf("events.k8s.io event: %v", rows)
	}
	k = NewStore()
	// A pods.json added later is seen by event lookups.
	if err := k.Add("events", "kubernetes/events.json", strings.NewReader(`{"kind":"Event","metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"}}`)); err != nil {
		t.Fatal(err)
	}
	if rows := ktQuery(t, k, Query{Resource: "events", Component: "meta"}); len(rows) != 0 {
		t.Errorf("rows before pods: %v", rows)
	}
	if err := k.Add("pods", "kubernetes/pods.json", strings.NewReader(`{"kind":"Pod","metadata":{"name":"p","labels":{"risingwave/component":"meta"}}}`)); err != nil {
		t.Fatal(err)
	}
	if rows := ktQuery(t, k, Query{Resource: "events", Component: "meta"}); len(rows) != 1 || rows[0]["pod"] != "p" {
		t.Errorf("rows after pods: %v", rows)
	}
}

func TestCheckGJSONPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"status.phase", true},
		{`status.containerStatuses.#(lastState.terminated.reason=="OOMKilled")#`, true},
		{`status.containerStatuses.#(name=="compute").restartCount`, true},
		{`status.containerStatuses.#(name%"comp*")#.name`, true},
		{`items.#(metadata.labels.risingwave/component=="meta")#`, true},
		{`metadata.labels.risingwave\.risingwavelabs\.com/component`, true},
		{`spec.containers.#.image`, true},
		{`spec.metaStore|@keys`, true},
		{`{name:metadata.name,phase:status.phase}`, true},
		{`..#.name`, true},
		{`children.0`, true},
		{"", false},
		{"..", false},
		{"status..phase", false},
		{"status.phase.", false},
		{".status", false},
		{`status.containerStatuses.#(name=="compute"`, false},
		{`status.containerStatuses.#(name=="compute)#`, false},
		{`status.containerStatuses.#(name=="compute"]#`, false},
		{`status.x)`, false},
		{`status|@nosuchmodifier`, false},
		{`status\`, false},
		{"status.\nphase", false},
		{`status."phase"`, false},
	} {
		err := CheckPath(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
	}
}

func TestCapObjects(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		n    int
		want string
	}{
		{`{"kind":"PodList","apiVersion":"v1","items":[{"a":1},{"b":2},{"c":3}]}`, 3,
			`{"kind":"PodList","apiVersion":"v1","items":[{"a":1},{"b":2}]}`},
		{`[{"a":1}, {"b":2}, {"c":3}]`, 3, `[{"a":1},{"b":2}]`},
		{`{"items":[{"a":1},{"b":2},{"c":3}]}`, 3, `{"kind":null,"apiVersion":null,"items":[{"a":1},{"b":2}]}`},
		{`{"kind":"List","items":[{"a":1},{"b":2}]}`, 2, `{"kind":"List","items":[{"a":1},{"b":2}]}`},
		{`{"kind":"Pod","metadata":{}}`, 1, `{"kind":"Pod","metadata":{}}`},
	} {
		got, n := CapObjects([]byte(tc.doc), 2)
		if string(got) != tc.want || n != tc.n {
			t.Errorf("CapObjects(%s, 2) = %s, %d; want %s, %d", tc.doc, got, n, tc.want, tc.n)
		}
		if !json.Valid(got) {
			t.Errorf("CapObjects(%s, 2) is not JSON: %s", tc.doc, got)
		}
	}
}
