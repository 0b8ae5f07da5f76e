package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// miniAPI is the least of an API server: the sample's pods in namespace
// "rw", an empty list of anything else, 404 for logs and proxies. It wants
// the bearer token an exec credential plugin hands out.
type miniAPI struct {
	t      *testing.T
	pods   []byte
	mu     sync.Mutex
	tokens map[string]bool
}

func (a *miniAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.tokens[r.Header.Get("Authorization")] = true
	a.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer from-exec-plugin" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}`)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/v1/namespaces/rw/pods":
		var l struct{ Items []map[string]any }
		json.Unmarshal(a.pods, &l)
		for _, it := range l.Items {
			delete(it, "kind")
			delete(it, "apiVersion")
			it["metadata"].(map[string]any)["namespace"] = "rw"
		}
		if !strings.Contains(r.URL.Query().Get("labelSelector"), "risingwave/component") {
			l.Items = nil
		}
		json.NewEncoder(w).Encode(map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]any{}, "items": l.Items})
	case len(parts) == 5 && parts[2] == "namespaces" || len(parts) == 6 && parts[0] == "apis":
		fmt.Fprint(w, `{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"not here","code":404}`)
	}
}

// kubeconfig writes a kubeconfig whose current context points nowhere and
// whose context "test" reaches url, namespace rw, authenticated by an exec
// credential plugin.
func kubeconfig(t *testing.T, srv *httptest.Server) string {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "credential-plugin")
	script := "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"from-exec-plugin\"}}'\n"
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: nowhere
clusters:
- name: test
  cluster: {server: %q, certificate-authority-data: %q}
- name: nowhere
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: test
  context: {cluster: test, user: exec, namespace: rw}
- name: nowhere
  context: {cluster: nowhere, user: exec}
users:
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: %q
      interactiveMode: Never
`, srv.URL, base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})), plugin)
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rwdiag collect through a kubeconfig context with an exec credential
// plugin: the bundle's path on stdout, the summary on stderr.
func TestCollectCommand(t *testing.T) {
	api := &miniAPI{t: t, tokens: map[string]bool{}}
	var err error
	if api.pods, err = os.ReadFile(filepath.Join(sample, "kubernetes/pods.json")); err != nil {
		t.Fatal(err)
	}
	// Over TLS: client-go sends credentials only to a secure server.
	srv := httptest.NewTLSServer(api)
	defer srv.Close()
	kc := kubeconfig(t, srv)
	out := filepath.Join(t.TempDir(), "b.tar.zst")
	common := []string{"--kubeconfig", kc, "--context", "test", "--metrics-samples", "0", "--skip", "sql,diagnose", "--call-timeout", "2s"}

	r := run(t, append([]string{"collect", "-o", out, "--report"}, common...)...)
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	if !regexp.MustCompile(`Redacted, per file.*\nFILE +REPLACED +CLASSES\n(.*\n)*total +\d+ +`).MatchString(r.stderr) {
		t.Errorf("--report: no per-file table after the summary\n%v", r)
	}
	if strings.TrimSpace(r.stdout) != out {
		t.Errorf("stdout %q, want the bundle's path", r.stdout)
	}
	for _, s := range []string{"rwdiag collect: wrote " + out, "namespace rw, cluster rw-prod", "Missing (", "logs", "redaction: on"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q\n%v", s, r)
		}
	}
	br, err := bundle.Open(out, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bundle.Verify(br)
	br.Close()
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	if rep.Manifest.Namespace != "rw" || len(rep.Manifest.Files) == 0 {
		t.Errorf("manifest: namespace %q, %d files", rep.Manifest.Namespace, len(rep.Manifest.Files))
	}
	if !api.tokens["Bearer from-exec-plugin"] {
		t.Errorf("the exec plugin's token was not used: %v", api.tokens)
	}

	// An existing file is not overwritten.
	r = run(t, append([]string{"collect", "-o", out}, common...)...)
	if r.code != exitUsage || !strings.Contains(r.stderr, "exists") {
		t.Errorf("over an existing bundle: want exit 2 saying it exists\n%v", r)
	}

	// -o - writes the archive to stdout.
	r = run(t, append([]string{"collect", "-o", "-"}, common...)...)
	if r.code != exitOK || !bytes.HasPrefix([]byte(r.stdout), []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Errorf("-o -: want a zstd archive on stdout, exit %d, %d bytes\n%s", r.code, len(r.stdout), r.stderr)
	}
}

func TestCollectUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collect", "extra"}, `unexpected argument "extra"`},
		{[]string{"collect", "--log-bytes", "50M"}, "--log-bytes"},
		{[]string{"collect", "--log-budget", "0"}, "--log-budget"},
		{[]string{"collect", "--rules", "x.yaml"}, "needs --prometheus"},
		{[]string{"collect", "--no-redact", "--redact-config", "r.yaml"}, "choose one"},
		{[]string{"collect", "--no-redact", "--report"}, "nothing to report"},
		{[]string{"collect", "--kubeconfig", "/nonexistent/kubeconfig", "--skip", "bogus"}, `skip "bogus"`},
		{[]string{"collect", "--kubeconfig", "/nonexistent/kubeconfig"}, "kubernetes configuration"},
		{[]string{"collect", "--prometheus", "prom:9090", "--kubeconfig", "/nonexistent"}, "prometheus URL"},
	} {
		r := run(t, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%q: want exit 2 and %q on stderr\n%v", tc.args, tc.want, r)
		}
	}
}

func TestCollectHelp(t *testing.T) {
	r := run(t, "collect", "--help")
	for _, s := range []string{"rwdiag collect", "Examples:", "--namespace", "--log-budget", "--prometheus", "--no-redact", "docs/rbac.yaml"} {
		if r.code != exitOK || !strings.Contains(r.stdout, s) {
			t.Errorf("collect --help lacks %q\n%v", s, r)
		}
	}
}

// Installed as kubectl-rwdiag, the binary is `kubectl rwdiag`.
func TestKubectlPlugin(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"/usr/local/bin/kubectl-rwdiag", "collect", "--help"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	for _, s := range []string{"kubectl rwdiag collect [-n NAMESPACE]", "   kubectl rwdiag collect -n risingwave"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("plugin help lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	Run(context.Background(), []string{"kubectl-rwdiag", "--help"}, &out, &errOut)
	if !strings.Contains(out.String(), "kubectl rwdiag [global options]") {
		t.Errorf("plugin app help:\n%s", out.String())
	}
	out.Reset()
	Run(context.Background(), []string{"rwdiag", "collect", "--help"}, &out, &errOut)
	if strings.Contains(out.String(), "kubectl rwdiag collect [") {
		t.Error("plain rwdiag help speaks of kubectl rwdiag")
	}
}
