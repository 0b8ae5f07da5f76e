package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// Input that is not a bundle fails every command that reads one with exit 2
// and says what it is, instead of a report of inconclusive rules.
func TestNotABundleExits2(t *testing.T) {
	empty := t.TempDir()
	source := t.TempDir()
	for p, data := range map[string]string{"go.mod": "module x\n", "main.go": "package main\n", "cli/app.go": "package cli\n"} {
		full := filepath.Join(source, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parent := t.TempDir()
	for _, name := range []string{"before", "after"} {
		data, err := os.ReadFile(writeBundle(t, bundle.FormatTarZstd))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(parent, name+".tar.zst"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{empty, "not a bundle: " + empty + ": nothing in it is bundle content (it is empty)"},
		{source, "not a bundle: " + source + ": nothing in it is bundle content (3 files, none of them manifest.json or under kubernetes/"},
		{parent, "not a bundle: " + parent + " holds 2 bundles: after.tar.zst, before.tar.zst; analyze one of them"},
	} {
		for _, args := range [][]string{
			{"analyze", tc.path}, {"analyze", "--format", "json", tc.path}, {"timeline", tc.path}, {"diff", sample, tc.path},
			{"sql", tc.path}, {"bundle", "inspect", tc.path}, {"bundle", "verify", tc.path},
		} {
			r := run(t, args...)
			if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%q: want exit 2, nothing on stdout and %q\n%v", args, tc.want, r)
			}
		}
	}
}

// An archive cut part-way gets a report of what was read, says why on
// stderr, and exits 2; files after the cut are "not read", not "not in the
// bundle", and its manifest, written first, is read.
func TestCutArchive(t *testing.T) {
	whole, err := os.ReadFile(writeBundle(t, bundle.FormatTar))
	if err != nil {
		t.Fatal(err)
	}
	// The writer puts the manifest first; cut inside the entries after it.
	cut := filepath.Join(t.TempDir(), "cut.tar")
	if err := os.WriteFile(cut, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "analyze", "--format", "json", "--fail-on", "never", cut)
	if r.code != exitUsage || !strings.Contains(r.stderr, "rwdiag: "+cut+": reading stopped early; the report covers what came before: ") {
		t.Fatalf("want exit 2 saying reading stopped early\n%v", r)
	}
	if strings.Count(r.stderr, "archive damaged") != 1 {
		t.Errorf("the damage is said more than once\n%v", r)
	}
	var rep struct {
		Bundle struct {
			HandMade bool     `json:"hand_made"`
			Problems []string `json:"problems"`
			Stopped  string   `json:"stopped"`
		} `json:"bundle"`
		Rules []struct {
			Examined []struct{ Coverage string } `json:"examined"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("no JSON report: %v\n%v", err, r)
	}
	if rep.Bundle.HandMade {
		t.Errorf("a cut collected bundle is reported hand-made: %v", rep.Bundle.Problems)
	}
	if !strings.Contains(rep.Bundle.Stopped, "archive damaged") {
		t.Errorf("bundle.stopped does not say why reading stopped: %q", rep.Bundle.Stopped)
	}
	// The whole archive has no "stopped".
	if r := run(t, "analyze", "--format", "json", "--fail-on", "never", sample); r.code != exitOK || strings.Contains(r.stdout, `"stopped"`) {
		t.Errorf("an archive read to its end: want exit 0 and no bundle.stopped\n%v", r)
	}
	all := r.stdout
	if strings.Contains(all, "not in the bundle") || !strings.Contains(all, "not read: reading stopped before the end of the bundle") {
		t.Errorf("files after the cut are not said to be unread:\n%s", all)
	}
	for _, args := range [][]string{{"timeline", cut}, {"diff", sample, cut}, {"bundle", "inspect", cut}} {
		if r := run(t, args...); r.code != exitUsage || !strings.Contains(r.stderr, "reading stopped early") {
			t.Errorf("%q: want exit 2, reading stopped early\n%v", args, r)
		}
	}
}

// An entry cut by --max-entry-bytes is "cut at N bytes" in the reasons.
func TestEntryCutAtLimit(t *testing.T) {
	r := run(t, "analyze", "--format", "json", "--fail-on", "never", "--max-entry-bytes", "100", writeBundle(t, bundle.FormatTarGzip))
	if r.code != exitOK || !strings.Contains(r.stdout, "kubernetes/pods.json is present but unreadable (cut at 100 bytes by --max-entry-bytes)") {
		t.Errorf("want the pods file cut at 100 bytes in the reasons\n%v", r)
	}
}

// A file in another archive format says which.
func TestForeignArchive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bundle.zip")
	if err := os.WriteFile(p, []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "analyze", p)
	if want := p + ": this file is zip, not tar, tar.zst or tar.gz: unpack it and analyze the directory"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("want exit 2 and %q\n%v", want, r)
	}
}
