package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rwdiagCmd runs this test binary as rwdiag (see TestMain).
func rwdiagCmd(t *testing.T, wrapper []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := append(append(append([]string{}, wrapper...), self), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "RWDIAG_TEST_RUN_CLI=1")
	return cmd
}

var inetSocket = regexp.MustCompile(`socket\((AF_INET|AF_INET6|PF_INET|PF_INET6)|connect\(`)

// The analyzer never opens a network connection: under strace, analysing a
// sample makes no inet socket and no connect call.
func TestAnalyzeOpensNoSocket(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed (.ci/run installs it)")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := rwdiagCmd(t, []string{strace, "-f", "-qq", "-e", "trace=socket,connect", "-o", trace},
		"analyze", "--fail-on", "never", "--format", "json", "../samples/oom-crash-loop")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "PTRACE") || strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("rwdiag analyze under strace: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"findings"`) {
		t.Fatalf("no report from rwdiag analyze:\n%s", out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if m := inetSocket.FindAll(data, -1); len(m) > 0 {
		t.Errorf("rwdiag analyze touched the network: %q\nfull trace:\n%s", m, data)
	}
}

// And it works with no network at all: in a fresh network namespace.
func TestAnalyzeWithoutNetwork(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed")
	}
	if err := exec.Command(unshare, "-n", "true").Run(); err != nil {
		t.Skipf("cannot make a network namespace here: %v", err)
	}
	cmd := rwdiagCmd(t, []string{unshare, "-n"}, "analyze", "--fail-on", "never", "--format", "json", "../samples/oom-crash-loop")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rwdiag analyze without a network: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"compute-oom-crash-loop"`) {
		t.Errorf("report without a network lacks the OOM finding:\n%s", out)
	}
}
