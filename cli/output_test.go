package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// -o writes a regular file (or a new path) whole through a rename, and writes
// to anything else that exists in place: a FIFO is fed, a symbolic link is
// written through and stays a link, /dev/null stays a device.
func TestOutputKindsOfFile(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"analyze", "--fail-on", "never", "--format", "json", sample},
		{"timeline", "--format", "json", sample},
		{"diff", "--fail-on", "never", "--format", "json", sample, sample},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			runOut := func(out string) result {
				return run(t, append([]string{cmd[0], "-o", out}, cmd[1:]...)...)
			}
			// A FIFO: a reader gets the output; the FIFO is not replaced.
			fifo := filepath.Join(dir, cmd[0]+".fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- "open: " + err.Error()
					return
				}
				defer f.Close()
				b, _ := io.ReadAll(f)
				got <- string(b)
			}()
			if r := runOut(fifo); r.code != 0 {
				t.Fatalf("-o FIFO: %v", r)
			}
			select {
			case s := <-got:
				if !strings.HasPrefix(strings.TrimSpace(s), "{") {
					t.Errorf("the FIFO's reader got %.200q, want the JSON", s)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the FIFO's reader got nothing")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
			}

			// A symbolic link: written through; the link stays.
			target := filepath.Join(dir, cmd[0]+"-target.json")
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, cmd[0]+"-link.json")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if r := runOut(link); r.code != 0 {
				t.Fatalf("-o symlink: %v", r)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
			}
			if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "{") {
				t.Errorf("the link's target holds %.100q, want the JSON", b)
			}

			// A regular file: replaced whole; no temporary file is left.
			reg := filepath.Join(dir, cmd[0]+".json")
			if err := os.WriteFile(reg, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if r := runOut(reg); r.code != 0 {
				t.Fatalf("-o regular file: %v", r)
			}
			if b, _ := os.ReadFile(reg); !strings.HasPrefix(string(b), "{") {
				t.Errorf("%s holds %.100q", reg, b)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
				t.Errorf("temporary files left: %q", m)
			}

			// A directory is an error, and stays.
			if r := runOut(dir); r.code != 2 || !strings.Contains(r.stderr, "is a directory") {
				t.Errorf("-o DIR: want exit 2 naming a directory, got %v", r)
			}
		})
	}
}

// As root, -o /dev/null used to replace the device with a regular file.
func TestOutputDevNull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root could replace /dev/null")
	}
	before, err := os.Stat("/dev/null")
	if err != nil || before.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("/dev/null is not a character device here: %v", err)
	}
	if r := run(t, "analyze", "--fail-on", "never", "-o", "/dev/null", sample); r.code != 0 {
		t.Fatalf("-o /dev/null: %v", r)
	}
	after, err := os.Stat("/dev/null")
	if err != nil || after.Mode()&os.ModeCharDevice == 0 || !os.SameFile(before, after) {
		t.Fatalf("/dev/null is no longer the device it was: %v, %v", after.Mode(), err)
	}
	if m, _ := filepath.Glob("/dev/.null.*"); len(m) > 0 {
		t.Errorf("temporary files left in /dev: %q", m)
	}
}
