package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// sample is a small hand-made bundle (no manifest): one compute node in an
// OOM crash loop. It is a copy of the first hand-made sample, kept still so
// these tests do not move with the generated samples.
const sample = "testdata/handmade"

type result struct {
	code           int
	stdout, stderr string
}

// run runs rwdiag with args, as main would.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), append([]string{"rwdiag"}, args...), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

type testFile struct{ path, content string }

var testFiles = []testFile{
	{"kubernetes/pods.json", `{"kind": "List", "items": [
	  {"metadata": {"name": "rw-meta-0", "namespace": "rw", "labels": {"risingwave/component": "meta", "risingwave/name": "rw"}},
	   "spec": {"containers": [{"name": "meta"}]}, "status": {"phase": "Running"}},
	  {"metadata": {"name": "rw-compute-0", "namespace": "rw", "labels": {"risingwave/component": "compute", "risingwave/name": "rw"}},
	   "spec": {"containers": [{"name": "compute"}]},
	   "status": {"phase": "Running", "containerStatuses": [{"name": "compute", "restartCount": 3}]}}]}`},
	{"logs/rw-compute-0/compute.log", "2026-11-29T20:41:07.123456789Z  INFO risingwave_compute::server: Starting compute node\n"},
	{"sql/rw_worker_nodes.csv", "id,host,port\n1,rw-compute-0.rw-compute,5688\n"},
}

// writeBundle writes testFiles as a bundle archive with a manifest.
func writeBundle(t *testing.T, format bundle.Format) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "rwdiag-rw-20261129T204300Z.bundle")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Root: "rwdiag-rw-20261129T204300Z", Format: format})
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "rwdiag", Version: "v0.1.0"}
		m.CollectedAt = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)
		m.Namespace = "rw"
		m.Cluster = "rw"
		m.RisingWaveVersion = "v3.0.3"
	})
	w.RecordError(bundle.CollectError{Step: "sql", Target: "rw_ddl_progress", Error: "connection refused"})
	for _, f := range testFiles {
		if err := w.WriteFile(f.path, "test", []byte(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dest
}

func TestUsageErrors(t *testing.T) {
	notBundle := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notBundle, []byte("these are not the files you are looking for\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stderr []string // each must appear on stderr
	}{
		{"no command", nil, []string{"a command is required", "COMMANDS:"}},
		{"unknown command", []string{"analyse"}, []string{`unknown command "analyse"`, "rwdiag --help"}},
		{"unknown bundle command", []string{"bundle", "unpack"}, []string{`bundle: unknown command "unpack"`}},
		{"no bundle command", []string{"bundle"}, []string{"bundle: a command is required"}},
		{"missing argument", []string{"bundle", "inspect"}, []string{"bundle inspect: missing BUNDLE"}},
		{"missing DIR", []string{"bundle", "extract", sample}, []string{"bundle extract: missing DIR"}},
		{"extra argument", []string{"bundle", "verify", "a", "b"}, []string{`unexpected argument "b"`}},
		{"unknown flag", []string{"bundle", "inspect", "--colour", sample}, []string{"-colour"}},
		{"bad format", []string{"bundle", "inspect", "--format", "yaml", sample}, []string{`--format "yaml"`}},
		{"bad size", []string{"bundle", "inspect", "--max-entry-bytes", "8G", sample}, []string{"--max-entry-bytes", "ambiguous"}},
		{"bad global size", []string{"--max-total-bytes", "lots", "bundle", "verify", sample}, []string{"--max-total-bytes", `"lots"`}},
		{"version with argument", []string{"version", "now"}, []string{`unexpected argument "now"`}},
		{"missing file", []string{"bundle", "inspect", "no-such-bundle.tar.zst"}, []string{"no-such-bundle.tar.zst"}},
		{"not a bundle", []string{"bundle", "inspect", notBundle}, []string{notBundle, "not a directory, tar, tar.zst or tar.gz archive"}},
		{"not a bundle to verify", []string{"bundle", "verify", notBundle}, []string{notBundle}},
		{"not a bundle to extract", []string{"bundle", "extract", notBundle, t.TempDir()}, []string{notBundle}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d\n%v", r.code, exitUsage, r)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not contain %q\n%v", want, r)
				}
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty on a usage error\n%v", r)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--help"},
		{"help", "bundle"},
		{"bundle", "inspect", "--help"},
		{"bundle", "verify", "--help"},
		{"bundle", "extract", "--help"},
		{"version", "--help"},
	} {
		r := run(t, args...)
		if r.code != exitOK || !strings.Contains(r.stdout, "rwdiag") || r.stderr != "" {
			t.Errorf("%v: want help on stdout and exit 0\n%v", args, r)
		}
		// Every command's help shows how to use it.
		if len(args) > 1 && args[len(args)-1] == "--help" && !strings.Contains(r.stdout, "Example") {
			t.Errorf("%v: help has no examples\n%v", args, r)
		}
	}
}
