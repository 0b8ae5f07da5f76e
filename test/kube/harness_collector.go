package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// RBACFile is the shipped RBAC, relative to test/kube.
const RBACFile = "../../docs/rbac.yaml"

// RBAC is docs/rbac.yaml's objects, as parsed.
type RBAC struct {
	Role               *rbacv1.Role
	RoleBinding        *rbacv1.RoleBinding
	ClusterRole        *rbacv1.ClusterRole
	ClusterRoleBinding *rbacv1.ClusterRoleBinding
}

// LoadRBAC parses a multi-document RBAC file; it must hold exactly one
// object of each of the four kinds and nothing else.
func LoadRBAC(path string) (*RBAC, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &RBAC{}
	line := 1
	for _, doc := range strings.Split(string(data), "\n---\n") {
		start := line
		line += strings.Count(doc, "\n") + 2
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, start, err)
		}
		var into any
		switch tm.Kind {
		case "Role":
			r.Role = &rbacv1.Role{}
			into = r.Role
		case "RoleBinding":
			r.RoleBinding = &rbacv1.RoleBinding{}
			into = r.RoleBinding
		case "ClusterRole":
			r.ClusterRole = &rbacv1.ClusterRole{}
			into = r.ClusterRole
		case "ClusterRoleBinding":
			r.ClusterRoleBinding = &rbacv1.ClusterRoleBinding{}
			into = r.ClusterRoleBinding
		case "":
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			return nil, fmt.Errorf("%s:%d: a document without a kind", path, start)
		default:
			return nil, fmt.Errorf("%s:%d: unexpected kind %q", path, start, tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", path, start, tm.Kind, err)
		}
	}
	if r.Role == nil || r.RoleBinding == nil || r.ClusterRole == nil || r.ClusterRoleBinding == nil {
		return nil, fmt.Errorf("%s: want a Role, a RoleBinding, a ClusterRole and a ClusterRoleBinding", path)
	}
	return r, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Collector is a ServiceAccount that runs `rwdiag collect`, bound only by
// docs/rbac.yaml (or an edit of it), with a kubeconfig holding a token from
// the TokenRequest API.
type Collector struct {
	H          *Harness
	Namespace  string
	Account    string
	User       string // system:serviceaccount:NS:ACCOUNT, as the audit log names it
	Token      string
	Kubeconfig string
	Dir        string // runs write here
	runs       int
}

// Collector makes the ServiceAccount "rwdiag" in ns and binds it as
// docs/rbac.yaml says: the Role and the ClusterRole as they are, the two
// bindings with their subjects replaced by the ServiceAccount (as the file
// tells a user to do). The ClusterRoleBinding is named after ns so tests do
// not share it. edit, when not nil, may change the objects first.
func (h *Harness) Collector(t testing.TB, ns string, edit func(*RBAC)) *Collector {
	t.Helper()
	rbac, err := LoadRBAC(RBACFile)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(rbac)
	}
	ctx := context.Background()
	const account = "rwdiag"
	if _, err := h.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service account: %v", err)
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: account, Namespace: ns}}
	rbac.Role.Namespace = ns
	rbac.RoleBinding.Namespace = ns
	rbac.RoleBinding.Subjects = subjects
	rbac.ClusterRoleBinding.Name += "-" + ns
	rbac.ClusterRoleBinding.Subjects = subjects
	rbac.ClusterRoleBinding.RoleRef.Name = rbac.ClusterRole.Name
	rbacAPI := h.Client.RbacV1()
	if _, err := rbacAPI.Roles(ns).Create(ctx, rbac.Role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Role: %v", err)
	}
	if _, err := rbacAPI.RoleBindings(ns).Create(ctx, rbac.RoleBinding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create RoleBinding: %v", err)
	}
	if _, err := rbacAPI.ClusterRoles().Create(ctx, rbac.ClusterRole, metav1.CreateOptions{}); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create ClusterRole: %v", err)
		}
		old, err := rbacAPI.ClusterRoles().Get(ctx, rbac.ClusterRole.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !equalJSON(old.Rules, rbac.ClusterRole.Rules) {
			t.Fatalf("ClusterRole %s exists with other rules; an edit of the ClusterRole must rename it", rbac.ClusterRole.Name)
		}
	}
	if _, err := rbacAPI.ClusterRoleBindings().Create(ctx, rbac.ClusterRoleBinding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ClusterRoleBinding: %v", err)
	}
	exp := int64(3600)
	tr, err := h.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, account,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	dir := t.TempDir()
	c := &Collector{H: h, Namespace: ns, Account: account, User: "system:serviceaccount:" + ns + ":" + account,
		Token: tr.Status.Token, Kubeconfig: filepath.Join(dir, "kubeconfig"), Dir: dir}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kube-test"] = &clientcmdapi.Cluster{Server: h.URL, CertificateAuthorityData: h.CA.CertPEM}
	kc.AuthInfos[account] = &clientcmdapi.AuthInfo{Token: c.Token}
	kc.Contexts["kube-test"] = &clientcmdapi.Context{Cluster: "kube-test", AuthInfo: account, Namespace: ns}
	kc.CurrentContext = "kube-test"
	if err := clientcmd.WriteToFile(*kc, c.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	return c
}

// Config is a client configuration with the collector's token, for a test
// that acts as the collector.
func (c *Collector) Config() *rest.Config {
	return &rest.Config{Host: c.H.URL, BearerToken: c.Token, TLSClientConfig: rest.TLSClientConfig{CAData: c.H.CA.CertPEM}, UserAgent: "rwdiag-test-as-collector"}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Manifest is the part of a bundle's manifest.json the tests read
// (docs/bundle-format.md).
type Manifest struct {
	FormatVersion    int            `json:"format_version"`
	Namespace        string         `json:"namespace"`
	Cluster          string         `json:"cluster"`
	Complete         bool           `json:"complete"`
	IncompleteReason string         `json:"incomplete_reason"`
	Files            []ManifestFile `json:"files"`
	Errors           []struct {
		Step   string `json:"step"`
		Target string `json:"target"`
		Error  string `json:"error"`
		Path   string `json:"path"`
	} `json:"errors"`
}

// ManifestFile is one of the manifest's files.
type ManifestFile struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Source    string `json:"source"`
	Error     string `json:"error"`
	Truncated bool   `json:"truncated"`
	Redacted  int    `json:"redacted"`
}

// File is the manifest's entry for path, or nil.
func (m *Manifest) File(path string) *ManifestFile {
	for i := range m.Files {
		if m.Files[i].Path == path {
			return &m.Files[i]
		}
	}
	return nil
}

// HasFile reports whether the manifest lists path.
func (m *Manifest) HasFile(path string) bool {
	for _, f := range m.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// Run is one finished `rwdiag collect`.
type Run struct {
	Args           []string
	ExitCode       int
	Stdout, Stderr string
	Duration       time.Duration
	// Bundle is the archive; Dir its extraction (the bundle's root).
	Bundle string
	Dir    string
	// Manifest is Dir/manifest.json, decoded.
	Manifest Manifest
}

// Running is a `rwdiag collect` in progress.
type Running struct {
	c       *Collector
	Cmd     *exec.Cmd
	args    []string
	bundle  string
	began   time.Time
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	waitErr chan error
}

// Rwdiag is the rwdiag binary under test.
func Rwdiag() string { return os.Getenv(EnvRwdiag) }

// Start starts `rwdiag collect -n NS --kubeconfig KC -o DIR/bundle-N.tar.zst ARGS...`.
func (c *Collector) Start(t testing.TB, args ...string) *Running {
	t.Helper()
	c.runs++
	out := filepath.Join(c.Dir, fmt.Sprintf("bundle-%d.tar.zst", c.runs))
	full := append([]string{"collect", "-n", c.Namespace, "--kubeconfig", c.Kubeconfig, "-o", out}, args...)
	r := &Running{c: c, args: full, bundle: out, waitErr: make(chan error, 1)}
	r.Cmd = exec.Command(Rwdiag(), full...)
	r.Cmd.Stdout, r.Cmd.Stderr = &r.stdout, &r.stderr
	// No kubeconfig but the one given, no terminal: as a script runs it.
	r.Cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+c.Dir)
	r.began = time.Now()
	if err := r.Cmd.Start(); err != nil {
		t.Fatalf("start rwdiag: %v", err)
	}
	go func() { r.waitErr <- r.Cmd.Wait() }()
	t.Cleanup(func() {
		if r.Cmd.ProcessState == nil {
			r.Cmd.Process.Kill()
		}
	})
	return r
}

// Signal sends sig to the collector.
func (r *Running) Signal(sig syscall.Signal) error { return r.Cmd.Process.Signal(sig) }

// Wait waits (at most limit) for the collector to end and extracts the
// bundle, when there is one.
func (r *Running) Wait(t testing.TB, limit time.Duration) *Run {
	t.Helper()
	var err error
	select {
	case err = <-r.waitErr:
	case <-time.After(limit):
		r.Cmd.Process.Kill()
		<-r.waitErr
		t.Fatalf("rwdiag %s: still running after %v\nstderr:\n%s", strings.Join(r.args, " "), limit, r.stderr.String())
	}
	run := &Run{Args: r.args, Stdout: r.stdout.String(), Stderr: r.stderr.String(), Duration: time.Since(r.began), Bundle: r.bundle}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		run.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("rwdiag: %v", err)
	}
	if _, err := os.Stat(r.bundle); err != nil {
		t.Logf("rwdiag %s: exit %d, no bundle\nstderr:\n%s", strings.Join(r.args, " "), run.ExitCode, run.Stderr)
		return run
	}
	run.Dir = extract(t, r.bundle)
	data, err := os.ReadFile(filepath.Join(run.Dir, "manifest.json"))
	if err != nil {
		t.Fatalf("bundle %s: %v", r.bundle, err)
	}
	if err := json.Unmarshal(data, &run.Manifest); err != nil {
		t.Fatalf("%s/manifest.json: %v", r.bundle, err)
	}
	return run
}

// Collect runs `rwdiag collect` to its end (at most 3 minutes).
func (c *Collector) Collect(t testing.TB, args ...string) *Run {
	t.Helper()
	return c.Start(t, args...).Wait(t, 3*time.Minute)
}

// extract unpacks a bundle with `rwdiag bundle extract` and returns where.
func extract(t testing.TB, archive string) string {
	t.Helper()
	dir := strings.TrimSuffix(archive, ".tar.zst") + ".d"
	out, err := exec.Command(Rwdiag(), "bundle", "extract", archive, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("rwdiag bundle extract %s: %v\n%s", archive, err, out)
	}
	// extract drops the archive's root directory (rwdiag-<cluster>-<time>/).
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatalf("%s extracted to %s: no manifest.json: %v", archive, dir, err)
	}
	return dir
}

// Verify runs `rwdiag bundle verify` on the run's archive and returns its
// exit code and output.
func (r *Run) Verify(t testing.TB) (int, string) {
	t.Helper()
	out, err := exec.Command(Rwdiag(), "bundle", "verify", r.Bundle).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// ReadJSONList reads a kubernetes/<name>.json of the bundle.
func (r *Run) ReadJSONList(t testing.TB, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.Dir, "kubernetes", name+".json"))
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("bundle kubernetes/%s.json: %v", name, err)
	}
	return list.Items
}
