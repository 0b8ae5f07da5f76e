package kube

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestAuditCatchesWrites proves the audit check can fail: acting as a
// collector whose Role was widened by a throwaway Role, the test creates a
// ConfigMap and gets a Secret; CheckReadOnly must report exactly those two,
// and accept the reads around them.
func TestAuditCatchesWrites(t *testing.T) {
	h := Shared(t)
	ns := UniqueName("rw-audit-write")
	h.Namespace(t, ns)
	c := h.Collector(t, ns, nil)
	ctx := context.Background()
	_, err := h.Client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db"}, StringData: map[string]string{"password": "audit-test-only"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The throwaway grant: create configmaps, get that one Secret.
	_, err = h.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "throwaway"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"db"}, Verbs: []string{"get"}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "throwaway"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "throwaway"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: c.Account, Namespace: ns}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	as, err := kubernetes.NewForConfig(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	// Reads the Role allows, then the write and the Secret.
	if _, err := as.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list pods as the collector: %v", err)
	}
	if _, err := as.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create configmap as the collector: %v", err)
	}
	if _, err := as.CoreV1().Secrets(ns).Get(ctx, "db", metav1.GetOptions{}); err != nil {
		t.Fatalf("get secret as the collector: %v", err)
	}
	if _, err := as.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list configmaps as the collector: %v", err)
	}

	problems := CheckReadOnly(h.Audit(t), c.User, nil)
	want := []string{"write: create configmaps", "secret: get secrets db"}
	if len(problems) != len(want) {
		t.Fatalf("CheckReadOnly reported %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, w) }) {
			t.Errorf("CheckReadOnly did not report %q; it reported:\n%s", w, strings.Join(problems, "\n"))
		}
	}

	// A refused request is reported too, and an expected one is not.
	if _, err := as.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatal("list secrets as the collector: not refused")
	}
	problems = CheckReadOnly(h.Audit(t), c.User, nil)
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "refused: list secrets -> 403") }) {
		t.Errorf("a 403 on list secrets was not reported:\n%s", strings.Join(problems, "\n"))
	}
	if got := CheckReadOnly(h.Audit(t), "system:serviceaccount:"+ns+":nobody", nil); len(got) != 1 || !strings.HasPrefix(got[0], "no request by") {
		t.Errorf("a user with no requests: %v", got)
	}
}

// TestRBACFileParses checks LoadRBAC against the shipped file and a broken one.
func TestRBACFileParses(t *testing.T) {
	r, err := LoadRBAC(RBACFile)
	if err != nil {
		t.Fatal(err)
	}
	if r.Role.Name != "rwdiag-collect" || r.ClusterRole.Name != "rwdiag-collect-nodes" {
		t.Errorf("names: %s, %s", r.Role.Name, r.ClusterRole.Name)
	}
	for _, rule := range r.Role.Rules {
		for _, v := range rule.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				t.Errorf("docs/rbac.yaml grants %s on %v", v, rule.Resources)
			}
		}
		if slices.Contains(rule.Resources, "secrets") {
			t.Errorf("docs/rbac.yaml grants secrets")
		}
	}
	bad := filepath.Join(t.TempDir(), "rbac.yaml")
	os.WriteFile(bad, []byte("kind: Role\nmetadata:\n  name: x\n---\nkind: Role\nrulez: []\n"), 0o644)
	if _, err := LoadRBAC(bad); err == nil || !strings.Contains(err.Error(), bad+":5:") {
		t.Errorf("LoadRBAC(bad) = %v, want an error at %s:5", err, bad)
	}
}
