package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The two executables as a release ships them: rwdiag, which does not link
// the collector, runs rwdiag-collect beside it for collect and bundle
// redact. Built for real, since what is at stake is what each binary links
// and how one runs the other.
func TestTwoBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	dir := t.TempDir()
	rwdiag, collector := filepath.Join(dir, "rwdiag"), filepath.Join(dir, "rwdiag-collect")
	for _, b := range [][2]string{{rwdiag, "."}, {collector, "./cmd/rwdiag-collect"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}

	// The analysis binary links none of the collector's modules; the
	// collector links them all.
	deps := func(bin string) []byte {
		out, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
		if err != nil {
			t.Fatalf("go version -m %s: %v\n%s", bin, err, out)
		}
		return out
	}
	analysisDeps, collectorDeps := deps(rwdiag), deps(collector)
	for _, mod := range []string{"k8s.io/client-go", "k8s.io/kubectl", "github.com/zricethezav/gitleaks/v8"} {
		if bytes.Contains(analysisDeps, []byte("\t"+mod+"\t")) {
			t.Errorf("rwdiag links %s: analysing would pay for the collector's start-up", mod)
		}
		if !bytes.Contains(collectorDeps, []byte("\t"+mod+"\t")) {
			t.Errorf("rwdiag-collect does not link %s", mod)
		}
	}

	run := func(env []string, bin string, args ...string) (code int, stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), o.String(), e.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, o.String(), e.String()
	}
	clean := []string{"PATH=" + t.TempDir(), "RWDIAG_COLLECT=", "KUBECONFIG=", "HOME=" + t.TempDir()}

	// collect's help is the collector's, named as rwdiag's.
	code, stdout, stderr := run(clean, rwdiag, "collect", "--help")
	if code != 0 || !strings.Contains(stdout, "rwdiag collect [-n NAMESPACE]") || !strings.Contains(stdout, "--kubeconfig") {
		t.Errorf("rwdiag collect --help: exit %d\n%s%s", code, stdout, stderr)
	}
	// collect runs, and fails as the collector does without a kubeconfig.
	code, _, stderr = run(clean, rwdiag, "collect", "-n", "rw")
	if code != 2 || !strings.Contains(stderr, "rwdiag: collect: no kubeconfig found") {
		t.Errorf("rwdiag collect with no kubeconfig: exit %d\n%s", code, stderr)
	}
	// bundle redact, through the collector, writes a bundle rwdiag reads.
	redacted := filepath.Join(dir, "redacted.tar.zst")
	code, stdout, stderr = run(clean, rwdiag, "bundle", "redact", "samples/handmade-minimal", redacted)
	if code != 0 || !strings.Contains(stdout+stderr, "wrote "+redacted) {
		t.Fatalf("rwdiag bundle redact: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = run(clean, rwdiag, "analyze", "--fail-on", "never", "--format", "json", redacted); code != 0 || !strings.Contains(stdout, `"rules"`) {
		t.Errorf("rwdiag analyze of the redacted bundle: exit %d\n%s%s", code, stdout, stderr)
	}

	// Without the collector beside it, on PATH or in $RWDIAG_COLLECT.
	lone := filepath.Join(t.TempDir(), "rwdiag")
	if err := os.Link(rwdiag, lone); err != nil {
		data, err := os.ReadFile(rwdiag)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lone, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr = run(clean, lone, "collect", "-n", "rw")
	if code != 2 || !strings.Contains(stderr, "rwdiag-collect, which is not at "+filepath.Join(filepath.Dir(lone), "rwdiag-collect")) {
		t.Errorf("rwdiag collect without the collector: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(append(clean, "RWDIAG_COLLECT="+collector), lone, "collect", "-n", "rw")
	if code != 2 || !strings.Contains(stderr, "no kubeconfig found") {
		t.Errorf("rwdiag collect with $RWDIAG_COLLECT: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(append(clean[1:], "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")), lone, "collect", "-n", "rw")
	if code != 2 || !strings.Contains(stderr, "no kubeconfig found") {
		t.Errorf("rwdiag collect with the collector on PATH: exit %d\n%s", code, stderr)
	}
	// The analysis binary under the collector's name would loop.
	fake := filepath.Join(t.TempDir(), "rwdiag-collect")
	if err := os.Link(rwdiag, fake); err != nil {
		t.Skipf("hard link: %v", err)
	}
	code, _, stderr = run(append(clean, "RWDIAG_COLLECT="+fake), lone, "collect", "-n", "rw")
	if code != 2 || !strings.Contains(stderr, "has no collector either") {
		t.Errorf("rwdiag collect running an analysis binary named rwdiag-collect: exit %d\n%s", code, stderr)
	}
}
