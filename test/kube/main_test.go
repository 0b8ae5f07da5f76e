package kube

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain runs the tests inside a network namespace of their own: outside
// it, it checks what the tests need (root, unshare, ip, etcd,
// kube-apiserver), builds rwdiag unless RWDIAG_BIN names one, and re-execs
// the test binary under `unshare -n`; inside, it brings lo up with the pod
// addresses, runs the tests and stops the shared servers.
func TestMain(m *testing.M) {
	if os.Getenv(envInside) == "" {
		os.Exit(outside(m))
	}
	if err := setupNetwork(); err != nil {
		fmt.Fprintf(os.Stderr, "kube harness: network namespace: %v\n", err)
		os.Exit(2)
	}
	code := m.Run()
	if code != 0 && shared != nil {
		fmt.Fprintf(os.Stderr, "kube harness: the shared kube-apiserver's log (tail):\n%s\n", tail(filepath.Join(shared.Dir, "kube-apiserver.log"), 40))
	}
	stopAll()
	os.Exit(code)
}

func outside(m *testing.M) int {
	if reason := missing(); reason != "" {
		skipReason = reason + "; " + HowToRun
		return m.Run()
	}
	if os.Getenv(EnvRwdiag) == "" {
		dir, err := os.MkdirTemp("", "rwdiag-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "rwdiag")
		began := time.Now()
		// The repository's root module, two directories up: rwdiag, the
		// analysis binary, and beside it the collector its collect runs.
		for _, b := range [][2]string{{bin, "."}, {filepath.Join(dir, "rwdiag-collect"), "./cmd/rwdiag-collect"}} {
			cmd := exec.Command("go", "build", "-o", b[0], b[1])
			cmd.Dir = "../.."
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "kube harness: go build %s: %v\n", b[1], err)
				return 2
			}
		}
		fmt.Fprintf(os.Stderr, "kube harness: built rwdiag in %v\n", time.Since(began).Round(time.Millisecond))
		os.Setenv(EnvRwdiag, bin)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmd := exec.Command("unshare", append([]string{"--net", "--", self}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), envInside+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube harness: unshare: %v\n", err)
		return 2
	}
	return 0
}

// missing says what the tests lack to run here, or "".
func missing() string {
	var lack []string
	if os.Geteuid() != 0 {
		lack = append(lack, "not root (unshare -n needs it)")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			lack = append(lack, "no "+tool)
		}
	}
	if EtcdPath() == "" {
		lack = append(lack, "no etcd")
	}
	if _, err := os.Stat(APIServerPath()); err != nil {
		lack = append(lack, "no kube-apiserver at "+APIServerPath())
	}
	if len(lack) == 0 {
		return ""
	}
	return "skipped: " + strings.Join(lack, ", ")
}

// setupNetwork brings lo up and puts the pod addresses on it.
func setupNetwork() error {
	var b strings.Builder
	b.WriteString("link set lo up\n")
	for i := 0; i <= 240; i++ {
		fmt.Fprintf(&b, "addr add %s/32 dev lo\n", PodIP(i))
	}
	cmd := exec.Command("ip", "-batch", "-")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip -batch: %v: %s", err, out)
	}
	return nil
}
