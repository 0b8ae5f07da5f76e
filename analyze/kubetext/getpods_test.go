package kubetext

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func row(line int, ns, name, ready, status string, restarts int, ago, age, ip, node string) PodRow {
	return PodRow{Line: line, Namespace: ns, Name: name, Ready: ready, Status: status, Restarts: restarts,
		LastRestartAgo: ago, Age: age, IP: ip, Node: node}
}

// rwProdRows are the rows of the v1.37 rw-prod tables, without IP and node
// and on the lines of a table whose header is line 1.
var rwProdRows = []PodRow{
	row(2, "", "rw-prod-compute-0", "0/1", "CrashLoopBackOff", 6, "2m13s", "2d4h", "", ""),
	row(3, "", "rw-prod-compute-1", "1/1", "Running", 0, "", "2d4h", "", ""),
	row(4, "", "rw-prod-compute-2", "1/1", "Running", 3, "41m", "3d2h", "", ""),
	row(5, "", "rw-prod-meta-0", "1/1", "Running", 1, "26h", "3d2h", "", ""),
	row(6, "", "rw-prod-compactor-6d9f7c8b5-x2x7q", "0/1", "Running", 2, "50s", "3d2h", "", ""),
	row(7, "", "rw-prod-frontend-6d9f7c8b5-kq4zn", "1/1", "Terminating", 0, "", "3d2h", "", ""),
	row(8, "", "rw-prod-compactor-6d9f7c8b5-7wz9m", "0/1", "ContainerStatusUnknown", 0, "", "3d2h", "", ""),
	row(9, "", "rw-prod-compute-3", "0/1", "OOMKilled", 2, "31m", "2d4h", "", ""),
	row(10, "", "rw-prod-compute-4", "0/1", "Pending", 0, "", "7m", "", ""),
	row(11, "", "rw-prod-backup-29411520-8xk2p", "0/1", "Completed", 0, "", "5h3m", "", ""),
}

func with(rows []PodRow, f func(i int, r *PodRow)) []PodRow {
	out := append([]PodRow(nil), rows...)
	for i := range out {
		f(i, &out[i])
	}
	return out
}

var wide = []struct{ ip, node string }{
	{"10.1.4.21", "ip-10-0-12-34.ec2.internal"}, {"10.1.5.8", "ip-10-0-12-71.ec2.internal"},
	{"10.1.6.30", "ip-10-0-13-5.ec2.internal"}, {"10.1.2.14", "ip-10-0-11-9.ec2.internal"},
	{"10.1.6.31", "ip-10-0-13-5.ec2.internal"}, {"10.1.2.40", "ip-10-0-11-9.ec2.internal"},
	{"", "ip-10-0-12-34.ec2.internal"}, {"10.1.7.3", "ip-10-0-14-2.ec2.internal"},
	{"", ""}, {"10.1.2.77", "ip-10-0-11-9.ec2.internal"},
}

var getPodsFixtures = []struct {
	file string
	rows []PodRow
}{
	{"v1.37-get-pods.txt", rwProdRows},
	{"v1.37-get-pods-pasted.txt", with(rwProdRows, func(_ int, r *PodRow) { r.Line++ })},
	{"v1.37-get-pods-wide.txt", with(rwProdRows, func(i int, r *PodRow) { r.IP, r.Node = wide[i].ip, wide[i].node })},
	{"v1.37-get-pods-all-namespaces.txt", append(with(rwProdRows, func(_ int, r *PodRow) { r.Namespace = "risingwave" }),
		row(12, "rw-legacy", "rw-legacy-compute-0", "1/1", "Running", 2, "18m", "5h12m", "", ""),
		row(13, "rw-legacy", "rw-legacy-meta-0", "0/1", "Init:0/1", 0, "", "4m", "", ""),
		row(14, "risingwave-operator-system", "risingwave-operator-7b9c5d6f4-lm8vt", "1/1", "Running", 0, "", "41d", "", ""),
		row(15, "rw-dev", "rw-dev-meta-0", "0/1", "Init:CrashLoopBackOff", 7, "2m58s", "12m", "", ""),
	)},
	{"v1.18-get-pods-wide.txt", []PodRow{
		row(2, "", "rw-legacy-compute-0", "1/1", "Running", 2, "", "5h12m", "172.20.3.45", "node-3"),
		row(3, "", "rw-legacy-meta-0", "0/1", "Init:0/1", 0, "", "4m", "172.20.1.9", "node-1"),
	}},
}

func TestParseGetPodsFixtures(t *testing.T) {
	for _, tc := range getPodsFixtures {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(shapes, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, probs, err := ParseGetPods(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				t.Errorf("%s: unexpected problem: %s", tc.file, p)
			}
			if len(rows) != len(tc.rows) {
				t.Fatalf("%s: %d rows, want %d", tc.file, len(rows), len(tc.rows))
			}
			for i := range rows {
				if !reflect.DeepEqual(rows[i], tc.rows[i]) {
					t.Errorf("%s: row %d\n got %+v\nwant %+v", tc.file, i, rows[i], tc.rows[i])
				}
			}
		})
	}
}

// TestParseGetPodsShapes: flags and pastes that change the table.
func TestParseGetPodsShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want []PodRow
	}{
		{"no headers", "rw-a-compute-0   0/1     CrashLoopBackOff   6 (2m13s ago)   2d4h\n" +
			"rw-a-meta-0      1/1     Running            0               2d4h\n",
			[]PodRow{row(1, "", "rw-a-compute-0", "0/1", "CrashLoopBackOff", 6, "2m13s", "2d4h", "", ""),
				row(2, "", "rw-a-meta-0", "1/1", "Running", 0, "", "2d4h", "", "")}},
		{"no headers, all namespaces, wide", "rw   rw-a-meta-0   1/1   Running   0   9d   10.1.0.2   node-1   <none>   <none>\n",
			[]PodRow{row(1, "rw", "rw-a-meta-0", "1/1", "Running", 0, "", "9d", "10.1.0.2", "node-1")}},
		{"squeezed by a paste", "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES\n" +
			"rw-a-compute-0 0/1 OOMKilled 3 (8s ago) 1h 10.1.0.3 node-2 <none> <none>\n",
			[]PodRow{row(2, "", "rw-a-compute-0", "0/1", "OOMKilled", 3, "8s", "1h", "10.1.0.3", "node-2")}},
		{"show kind", "NAME                 READY   STATUS    RESTARTS   AGE\npod/rw-a-meta-0      1/1     Running   0          5m\n",
			[]PodRow{row(2, "", "rw-a-meta-0", "1/1", "Running", 0, "", "5m", "", "")}},
		{"show labels", "NAME             READY   STATUS    RESTARTS   AGE   LABELS\n" +
			"rw-a-compute-0   1/1     Running   0          5m    risingwave/component=compute,risingwave/name=rw-a\n",
			[]PodRow{func() PodRow {
				r := row(2, "", "rw-a-compute-0", "1/1", "Running", 0, "", "5m", "", "")
				r.Labels = map[string]string{"risingwave/component": "compute", "risingwave/name": "rw-a"}
				return r
			}()}},
		{"label column with an empty cell", "NAME             READY   STATUS    RESTARTS   AGE   COMPONENT\n" +
			"rw-a-compute-0   1/1     Running   0          5m    compute\n" +
			"busybox          1/1     Running   0          5m\n",
			[]PodRow{row(2, "", "rw-a-compute-0", "1/1", "Running", 0, "", "5m", "", ""),
				row(3, "", "busybox", "1/1", "Running", 0, "", "5m", "", "")}},
		{"watch", "NAME        READY   STATUS    RESTARTS   AGE\nrw-a-cn-0   1/1     Running   0          5m\nrw-a-cn-0   0/1     OOMKilled   0          6m\nrw-a-cn-0   0/1     Running     1 (1s ago)   6m\n",
			[]PodRow{row(2, "", "rw-a-cn-0", "1/1", "Running", 0, "", "5m", "", ""),
				row(3, "", "rw-a-cn-0", "0/1", "OOMKilled", 0, "", "6m", "", ""),
				row(4, "", "rw-a-cn-0", "0/1", "Running", 1, "1s", "6m", "", "")}},
		{"get all", "NAME                 READY   STATUS    RESTARTS   AGE\npod/rw-a-meta-0      1/1     Running   0          5m\n\n" +
			"NAME                 TYPE        CLUSTER-IP     EXTERNAL-IP   PORT(S)    AGE\nservice/rw-a-meta   ClusterIP   10.96.0.10     <none>        5690/TCP   5m\n\n" +
			"NAME                     READY   AGE\nstatefulset.apps/rw-a-meta   1/1     5m\n",
			[]PodRow{row(2, "", "rw-a-meta-0", "1/1", "Running", 0, "", "5m", "", "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, probs, err := ParseGetPods(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "get all" || tc.name == "label column with an empty cell" {
				if len(probs) == 0 {
					t.Errorf("want problems naming the skipped tables or the unknown column")
				}
			} else {
				for _, p := range probs {
					t.Errorf("unexpected problem: %s", p)
				}
			}
			if !reflect.DeepEqual(rows, tc.want) {
				t.Errorf("rows\n got %+v\nwant %+v", rows, tc.want)
			}
		})
	}
}

func TestParseGetPodsProblems(t *testing.T) {
	const hdr = "NAME        READY   STATUS    RESTARTS   AGE\n"
	for _, tc := range []struct {
		name, text string
		line       int
		reason     string
	}{
		{"row before header", "rw-a-cn-0 Running\n", 1, "no header came before it"},
		{"ready", hdr + "rw-a-cn-0   one     Running   0          5m\n", 2, "READY \"one\""},
		{"restarts", hdr + "rw-a-cn-0   1/1     Running   lots       5m\n", 2, "RESTARTS \"lots\""},
		{"too many cells", hdr + "rw-a-cn-0   1/1     Running   0          5m   extra\n", 2, "does not fit the table's columns"},
		{"other table", "NAME   TYPE   AGE\nsvc    ClusterIP   5m\n", 1, "not a pod table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, probs, err := ParseGetPods(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range probs {
				found = found || p.Line == tc.line && strings.Contains(p.Reason, tc.reason)
			}
			if !found {
				t.Errorf("want a problem on line %d containing %q; got %v", tc.line, tc.reason, probs)
			}
		})
	}
}
