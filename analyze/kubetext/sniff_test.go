package kubetext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shapes, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := "get-pods"
		if strings.Contains(filepath.Base(f), "-describe-") {
			want = "describe"
		}
		if got := Sniff(b); got != want {
			t.Errorf("Sniff(%s) = %q, want %q", filepath.Base(f), got, want)
		}
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", ""},
		{"pods.json", `{"apiVersion": "v1", "items": [], "kind": "List"}`, ""},
		{"a log", "2026-12-01T10:00:00.000000Z  INFO risingwave_compute::server: Starting compute node\n", ""},
		{"describe of a node", "Name:               ip-10-0-12-34.ec2.internal\nRoles:              <none>\nLabels:             kubernetes.io/os=linux\n", ""},
		{"a service table", "NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)    AGE\n", ""},
		{"get pods after a prompt", "$ kubectl get pods\nNAME   READY   STATUS   RESTARTS   AGE\n", "get-pods"},
		{"squeezed header", "NAME READY STATUS RESTARTS AGE\n", "get-pods"},
		{"describe after notes", "the compute node keeps dying:\n\nName:         rw-a-compute-0\nNamespace:    rw\n", "describe"},
		{"describe with tabs", "Name:\t\trw-a-compute-0\nNamespace:\trw\n", "describe"},
	} {
		if got := Sniff([]byte(tc.text)); got != tc.want {
			t.Errorf("Sniff(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
