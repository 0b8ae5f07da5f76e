package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rwdiag/rwdiag/bundle"
)

// evil is what a hostile bundle plants in names and fields: clear the screen,
// set the window title, return the cursor and rub out, C1's CSI, and bidi
// overrides that reorder the line.
const evil = "\x1b[2J\x1b]0;pwned\x07\r\x08\u009b31m\u202e\u2066"

type hostileEntry struct {
	name, body string
	typ        byte
}

// writeHostileTar writes entries as a plain tar and returns its path.
func writeHostileTar(t *testing.T, entries []hostileEntry) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Typeflag: e.typ, Name: e.name, Mode: 0o644, ModTime: time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)}
		if e.typ == 0 {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		} else {
			h.Linkname = e.body
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == 0 {
			tw.Write([]byte(e.body))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "hostile.tar")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostileBundle plants evil in every place a bundle's text reaches the
// terminal: manifest fields, a pod name (and so a log path), a log line, a
// CSV cell, a refused entry's name, an extra file's path, a missing file's
// path, and a duplicate entry.
func hostileBundle(t *testing.T) string {
	pod := "rw-compute-0" + evil
	m := bundle.Manifest{
		FormatVersion: 1, Tool: bundle.Tool{Name: "rwdiag" + evil, Version: "v0.1.0"},
		CollectedAt: time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC),
		Namespace:   "rw" + evil, Cluster: "rw" + evil, RisingWaveVersion: "v3.0.3" + evil,
		IncompleteReason: "interrupted" + evil,
		Files:            []bundle.FileEntry{{Path: "logs/gone" + evil + ".log", Size: 1, SHA256: "ab" + evil}},
		Errors:           []bundle.CollectError{{Step: "sql" + evil, Target: "rw_actors" + evil, Error: "refused" + evil}},
	}
	pods := map[string]any{"kind": "List", "items": []any{map[string]any{
		"metadata": map[string]any{"name": pod, "namespace": "rw" + evil, "labels": map[string]string{"risingwave/component": "compute" + evil}},
		"spec":     map[string]any{"containers": []any{map[string]string{"name": "compute"}}},
		"status":   map[string]any{"phase": "Running" + evil, "containerStatuses": []any{map[string]any{"name": "compute", "restartCount": 3}}},
	}}}
	return writeHostileTar(t, []hostileEntry{
		{name: bundle.ManifestPath, body: mustJSON(t, m)},
		{name: "kubernetes/pods.json", body: mustJSON(t, pods)},
		{name: "logs/" + pod + "/compute.log", body: "2026-11-29T20:40:05.200000Z  WARN risingwave_compute::memory: tight" + evil + "\n" +
			"2026-11-29T20:40:06.200000Z ERROR risingwave_compute::memory: OOM" + evil + "\n"},
		{name: "sql/rw_worker_nodes.csv", body: "id,host" + evil + "\n1,\"h" + evil + "\"\n"},
		{name: "sql/rw_worker_nodes.csv", body: "id,host\n2,second copy\n"},
		{name: "logs/link" + evil, body: "/etc/passwd", typ: tar.TypeSymlink},
		{name: "logs/extra" + evil + "/x.log", body: "x\n"},
	})
}

// rawControl names the first character in s a terminal would act on, or "".
func rawControl(s string) string {
	for i, r := range s {
		switch {
		case r == '\n':
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Sprintf("the invalid byte %#x at %d", s[i], i)
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return fmt.Sprintf("%U at byte %d: %q", r, i, s[max(0, i-40):min(len(s), i+40)])
		}
	}
	return ""
}

// Every command a bundle reaches the terminal through writes its text with
// control characters escaped, on stdout and stderr alike, and the JSON
// outputs still hold the bundle's exact strings.
func TestHostileTextReachesNoTerminal(t *testing.T) {
	b := hostileBundle(t)
	out := filepath.Join(t.TempDir(), "extracted")
	for _, args := range [][]string{
		{"analyze", "--fail-on", "never", b},
		{"analyze", "--fail-on", "never", "--format", "markdown", b},
		{"analyze", "--fail-on", "never", "--format", "json", b},
		{"timeline", "--min-level", "info", b},
		{"timeline", "--min-level", "info", "--format", "markdown", b},
		{"timeline", "--min-level", "info", "--format", "json", b},
		{"diff", "--fail-on", "never", b, b},
		{"bundle", "inspect", b},
		{"bundle", "inspect", "--format", "json", b},
		{"bundle", "verify", b},
		{"bundle", "extract", b, out},
		{"sql", b},
		{"sql", b, "SELECT * FROM rw_worker_nodes"},
		{"sql", "--format", "json", b, "SELECT * FROM rw_worker_nodes"},
		{"sql", "--format", "json", "--tables", b},
		{"sql", b, "SELECT * FROM no_such_table" + evil},
	} {
		r := run(t, args...)
		if r.code > 2 {
			t.Errorf("%q: exit %d\n%v", args, r.code, r)
		}
		if bad := rawControl(r.stdout); bad != "" {
			t.Errorf("%q: stdout carries %s", args, bad)
		}
		if bad := rawControl(r.stderr); bad != "" {
			t.Errorf("%q: stderr carries %s", args, bad)
		}
		if len(r.stdout) == 0 && r.code == 0 {
			t.Errorf("%q: printed nothing\n%v", args, r)
		}
	}

	// The escapes are visible, not dropped.
	r := run(t, "bundle", "inspect", b)
	for _, want := range []string{`rw-compute-0\x1b[2J\x1b]0;pwned\x07\r\x08\u009b31m\u202e\u2066`, `interrupted\x1b[2J`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect does not show %q\n%v", want, r)
		}
	}
	r = run(t, "bundle", "verify", b)
	for _, want := range []string{`  logs/gone\x1b[2J\x1b]0;pwned\x07\r\x08\u009b31m\u202e\u2066.log` + "\n", `  logs/extra\x1b[2J`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("verify does not list %q on a line of its own\n%v", want, r)
		}
	}

	// JSON stays exact: it decodes to the bundle's strings.
	var s struct {
		Manifest struct{ Namespace string }
		Pods     []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(run(t, "bundle", "inspect", "--format", "json", b).stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Manifest.Namespace != "rw"+evil || len(s.Pods) != 1 || s.Pods[0].Name != "rw-compute-0"+evil {
		t.Errorf("inspect's JSON changed the strings: %q, %q", s.Manifest.Namespace, s.Pods)
	}
	var rep struct{ Bundle struct{ Namespace string } }
	if err := json.Unmarshal([]byte(run(t, "analyze", "--fail-on", "never", "--format", "json", b).stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bundle.Namespace != "rw"+evil {
		t.Errorf("the report's JSON changed the namespace: %q", rep.Bundle.Namespace)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(run(t, "sql", "--format", "json", b, "SELECT * FROM rw_worker_nodes").stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["host"+evil] != "h"+evil {
		t.Errorf("sql's JSON rows are %q, want the first copy's cell exactly", rows)
	}
	// CSV is data, exact: it is not for a terminal.
	if r := run(t, "sql", "--format", "csv", b, "SELECT * FROM rw_worker_nodes"); !strings.Contains(r.stdout, "h"+evil) {
		t.Errorf("sql's CSV changed the cell\n%v", r)
	}
}

// Two manifest.json and the same file twice: analyze, timeline and inspect
// all use the first copy and report the second.
func TestDuplicateEntriesFirstCopyWins(t *testing.T) {
	manifest := func(ns string) string {
		return mustJSON(t, bundle.Manifest{FormatVersion: 1, Namespace: ns, Complete: true,
			CollectedAt: time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)})
	}
	b := writeHostileTar(t, []hostileEntry{
		{name: "rwdiag-x/manifest.json", body: manifest("first")},
		{name: "rwdiag-x/logs/rw-compute-0/compute.log", body: "2026-11-29T20:40:05.200000Z  WARN risingwave_compute::memory: first copy\n"},
		{name: "rwdiag-x/manifest.json", body: manifest("second")},
		{name: "rwdiag-x/logs/rw-compute-0/compute.log", body: "2026-11-29T20:40:06.200000Z  WARN risingwave_compute::memory: second copy\n"},
	})
	var rep struct {
		Bundle struct {
			Namespace string
			Files     int
			Problems  []string
		}
	}
	r := run(t, "analyze", "--fail-on", "never", "--format", "json", b)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%v", err, r)
	}
	dups := slices.DeleteFunc(slices.Clone(rep.Bundle.Problems), func(p string) bool { return !strings.Contains(p, "another copy of") })
	if rep.Bundle.Namespace != "first" || rep.Bundle.Files != 2 || len(dups) != 2 {
		t.Errorf("analyze read namespace %q from %d files, problems %q; want the first manifest, 2 files, 2 duplicates", rep.Bundle.Namespace, rep.Bundle.Files, rep.Bundle.Problems)
	}
	if !strings.Contains(r.stderr, `refused entry "rwdiag-x/manifest.json": another copy of "manifest.json"`) {
		t.Errorf("analyze does not warn of the duplicate manifest\n%v", r)
	}

	r = run(t, "timeline", "--format", "json", b)
	if !strings.Contains(r.stdout, "first copy") || strings.Contains(r.stdout, "second copy") {
		t.Errorf("timeline did not read the first copy of the log alone\n%v", r)
	}

	r = run(t, "bundle", "inspect", b)
	if !hasRow(r.stdout, "namespace", "first") || !strings.Contains(r.stdout, `another copy of "logs/rw-compute-0/compute.log"`) {
		t.Errorf("inspect does not use the first manifest or report the duplicate log\n%v", r)
	}
}

// A bundle nothing in which can be read exits 2 from analyze, timeline and
// diff, as from inspect: random bytes after a zstd magic number, and a
// stream whose zstd window is past the limit (zstd --long=31). The window's
// error names a flag that exists, and that flag reads the stream.
func TestUnreadableBundleExits2(t *testing.T) {
	dir := t.TempDir()
	random := filepath.Join(dir, "random.tar.zst")
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919 + i>>3)
	}
	if err := os.WriteFile(random, append([]byte{0x28, 0xb5, 0x2f, 0xfd}, noise...), 0o644); err != nil {
		t.Fatal(err)
	}
	bundles := []string{random}
	long := filepath.Join(dir, "long.tar.zst")
	if zstd, err := exec.LookPath("zstd"); err == nil {
		// Through a pipe, so that zstd does not know the size and keeps the 2 GiB window.
		cmd := exec.Command(zstd, "-q", "--long=31", "-c")
		tarball, err := os.ReadFile(writeBundle(t, bundle.FormatTar))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = bytes.NewReader(tarball)
		data, err := cmd.Output()
		if err != nil {
			t.Fatalf("zstd --long=31: %v", err)
		}
		if err := os.WriteFile(long, data, 0o644); err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, long)
	} else {
		t.Log("no zstd command: the --long=31 case is left out")
	}
	for _, b := range bundles {
		for _, args := range [][]string{
			{"analyze", b}, {"timeline", b}, {"diff", b, sample}, {"bundle", "inspect", b}, {"bundle", "verify", b},
		} {
			r := run(t, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, b) || !strings.Contains(r.stderr, "window") {
				t.Errorf("%q: want exit 2 naming the bundle and the window\n%v", args, r)
			}
		}
	}
	if len(bundles) < 2 {
		return
	}
	r := run(t, "analyze", long)
	flag := "--max-zstd-window"
	if !strings.Contains(r.stderr, "2 GiB") || !strings.Contains(r.stderr, flag) {
		t.Fatalf("the window error does not say the window asked for or name %s\n%v", flag, r)
	}
	for _, args := range [][]string{
		{flag, "2GiB", "analyze", "--fail-on", "never", long},
		{"analyze", "--fail-on", "never", long, flag, "2GiB"},
		{"timeline", long, flag, "2GiB"},
		{"bundle", "inspect", flag, "2GiB", long},
	} {
		if r := run(t, args...); r.code != exitOK || r.stderr != "" {
			t.Errorf("%q: want the bundle read\n%v", args, r)
		}
	}
}

// bundle extract goes on past refused entries and exits 1 for them, as tar
// does; sparse entries are left sparse, and it says so.
func TestExtractRefusedAndSparse(t *testing.T) {
	b := writeHostileTar(t, []hostileEntry{
		{name: "logs/p/a.log", body: "a\n"},
		{name: "logs/p/link.log", body: "/etc/passwd", typ: tar.TypeSymlink},
		{name: "logs/" + strings.Repeat("x", 300) + "/c.log", body: "long\n"},
		{name: "logs/p/b.log", body: "b\n"},
	})
	dir := filepath.Join(t.TempDir(), "out")
	r := run(t, "bundle", "extract", b, dir)
	if r.code != exitFailed || !strings.Contains(r.stderr, "symbolic link") || !strings.Contains(r.stderr, "name too long") ||
		!strings.Contains(r.stdout, "extracted 2 files") || !strings.Contains(r.stdout, "2 entries refused or cut") {
		t.Errorf("want exit 1, 2 files extracted, the link and the long name refused\n%v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "logs/p/b.log")); string(got) != "b\n" {
		t.Errorf("the entry after the refused ones was not extracted: %q", got)
	}

	r = run(t, "bundle", "extract", "../bundle/testdata/sparse.tar", filepath.Join(t.TempDir(), "sparse"))
	if r.code != exitOK || !strings.Contains(r.stdout, "left as holes") {
		t.Errorf("want the sparse entries extracted sparse, and said so\n%v", r)
	}
}
