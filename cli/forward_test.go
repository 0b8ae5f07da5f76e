package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withoutCollector runs the test as the analysis binary, which does not link
// the collector: collect and bundle redact are forwarded.
func withoutCollector(t *testing.T) *[]forwarded {
	t.Helper()
	saved, savedExec := collector, execCollector
	collector = nil
	var got []forwarded
	execCollector = func(path string, argv, env []string) error {
		got = append(got, forwarded{path, argv, env})
		return nil
	}
	t.Cleanup(func() { collector, execCollector = saved, savedExec })
	t.Setenv(EnvCollector, "")
	os.Unsetenv(EnvCollector)
	t.Setenv(envForwardedBy, "")
	os.Unsetenv(envForwardedBy)
	t.Setenv("PATH", t.TempDir())
	return &got
}

type forwarded struct {
	path      string
	argv, env []string
}

// fakeCollector writes an executable file named rwdiag-collect in a new
// directory and returns its path.
func fakeCollector(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), CollectorBinary)
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestForwardPassesTheCommandLineThrough(t *testing.T) {
	got := withoutCollector(t)
	bin := fakeCollector(t)
	t.Setenv(EnvCollector, bin)
	for _, args := range [][]string{
		{"collect", "-n", "rw", "--since", "2h", "-o", "-"},
		{"collect", "--help"},
		{"collect"},
		{"--max-total-bytes", "200GiB", "bundle", "redact", "--report", "in", "out.tar.zst"},
		{"bundle", "redact", "-h"},
	} {
		*got = nil
		if r := run(t, args...); r.code != 0 || r.stderr != "" {
			t.Fatalf("%q: %v", args, r)
		}
		if len(*got) != 1 {
			t.Fatalf("%q: ran the collector %d times, want once", args, len(*got))
		}
		f := (*got)[0]
		if f.path != bin {
			t.Errorf("%q: ran %s, want %s", args, f.path, bin)
		}
		if want := append([]string{"rwdiag"}, args...); !slices.Equal(f.argv, want) {
			t.Errorf("argv %q, want %q (the command line unchanged)", f.argv, want)
		}
		if !slices.Contains(f.env, envForwardedBy+"="+versionString()) {
			t.Errorf("%q: env lacks %s=%s", args, envForwardedBy, versionString())
		}
	}
	// What the analysis binary runs itself is not forwarded.
	*got = nil
	if r := run(t, "bundle", "inspect", sample); r.code != 0 || len(*got) != 0 {
		t.Errorf("bundle inspect: %v, forwarded %d times", r, len(*got))
	}
}

func TestForwardFindsTheCollectorOnPath(t *testing.T) {
	got := withoutCollector(t)
	bin := fakeCollector(t)
	t.Setenv("PATH", filepath.Dir(bin))
	if r := run(t, "collect", "-n", "rw"); r.code != 0 || len(*got) != 1 || (*got)[0].path != bin {
		t.Fatalf("%v; forwarded %v, want %s", r, *got, bin)
	}
}

func TestForwardWithoutCollector(t *testing.T) {
	got := withoutCollector(t)
	for _, args := range [][]string{{"collect", "-n", "rw"}, {"bundle", "redact", "a", "b"}} {
		r := run(t, args...)
		if r.code != exitUsage || len(*got) != 0 {
			t.Fatalf("%q: %v; want exit 2 and nothing run", args, r)
		}
		for _, want := range []string{CollectorBinary + ", which is not at ", "go build -o rwdiag-collect ./cmd/rwdiag-collect", "$" + EnvCollector} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%q: stderr lacks %q:\n%s", args, want, r.stderr)
			}
		}
		if !strings.HasPrefix(r.stderr, "rwdiag: "+strings.Join(args[:len(args)-2], " ")+": ") {
			t.Errorf("%q: stderr does not start with the command: %s", args, r.stderr)
		}
	}

	t.Setenv(EnvCollector, filepath.Join(t.TempDir(), "nowhere"))
	if r := run(t, "collect"); r.code != exitUsage || !strings.Contains(r.stderr, "$"+EnvCollector+": ") || !strings.Contains(r.stderr, "nowhere") {
		t.Errorf("RWDIAG_COLLECT naming no file: %v", r)
	}
	notExec := filepath.Join(t.TempDir(), "rwdiag-collect")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvCollector, notExec)
	if r := run(t, "collect"); r.code != exitUsage || !strings.Contains(r.stderr, "is not an executable file") {
		t.Errorf("RWDIAG_COLLECT naming a file that is not executable: %v", r)
	}
}

// An analysis binary under the collector's name would run itself in a loop.
func TestForwardRefusesToLoop(t *testing.T) {
	got := withoutCollector(t)
	t.Setenv(EnvCollector, fakeCollector(t))
	t.Setenv(envForwardedBy, "v1.2.3")
	r := run(t, "collect", "-n", "rw")
	if r.code != exitUsage || len(*got) != 0 || !strings.Contains(r.stderr, "has no collector either") {
		t.Fatalf("%v; forwarded %d times", r, len(*got))
	}
}

func TestVersionSkewWarning(t *testing.T) {
	if collector == nil {
		t.Skip("the collector is not linked into this test binary")
	}
	t.Setenv(envForwardedBy, "v0.0.1-other")
	r := run(t, "version")
	if r.code != 0 || !strings.Contains(r.stderr, "rwdiag v0.0.1-other ran rwdiag-collect "+versionString()) {
		t.Errorf("different versions: %v", r)
	}
	if _, set := os.LookupEnv(envForwardedBy); set {
		t.Errorf("%s still set after the check: a collector it runs would warn again", envForwardedBy)
	}
	t.Setenv(envForwardedBy, versionString())
	if r := run(t, "version"); r.code != 0 || r.stderr != "" {
		t.Errorf("same version: %v", r)
	}
}
