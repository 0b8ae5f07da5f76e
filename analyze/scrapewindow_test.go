package analyze

import (
	"archive/tar"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/rules"
)

// replayBundle copies the built-in rules' hand-made offset-replay bundle
// (four scrapes of 2026-11-29 20:00:00-20:00:45 UTC, on which
// kafka-offset-replay-after-meta-restart fires for src_orders) and adds
// extra files.
func replayBundle(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	root := "testdata/offset-replay"
	err := fs.WalkDir(rules.FS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(rules.FS, p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, root+"/"))), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range extra {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// lastReplayScrape is the bundle's last scrape, to copy under other names.
func lastReplayScrape(t *testing.T) string {
	b, err := fs.ReadFile(rules.FS, path.Join("testdata/offset-replay/metrics/or-risingwave-compute-0/1795982445000.prom"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// analyzeReplay runs the built-in rules over dir within a generous time
// limit and returns the report.
func analyzeReplay(t *testing.T, dir string) *Report {
	t.Helper()
	rs, err := LoadFS(rules.FS, rules.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := Analyze(ctx, dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Fatalf("analysis took %v", d)
	}
	for _, r := range rep.Rules {
		if r.Status == RuleError {
			t.Errorf("rule %s: %s", r.ID, r.Reason)
		}
	}
	return rep
}

func replayFires(rep *Report) bool {
	for _, f := range rep.Findings {
		if f.Rule == "kafka-offset-replay-after-meta-restart" && f.Subject == "src_orders" && f.Status == StatusFiring {
			return true
		}
	}
	return false
}

func problemNaming(rep *Report, p string) string {
	for _, pr := range rep.Bundle.Problems {
		if strings.HasPrefix(pr, p+":") {
			return pr
		}
	}
	return ""
}

// A scrape whose file name dates it in 1970 made the offset rule evaluate
// over 55 years (4-5 GB, then "too many samples", or out of memory); one in
// year 9999 moved the evaluation time past every real sample, and the
// firing offset rule no longer fired. Both are now reported as bundle
// problems, left out, and the rule fires as on the bundle without them.
func TestScrapeFarOutsideWindow(t *testing.T) {
	if rep := analyzeReplay(t, replayBundle(t, nil)); !replayFires(rep) {
		t.Fatalf("offset-replay does not fire on the bundle as it is: %+v", rep.Findings)
	}
	for _, tc := range []struct {
		name, file string
		manifest   bool
	}{
		{"1970", "metrics/or-risingwave-compute-0/1000.prom", false},
		{"9999", "metrics/or-risingwave-compute-0/253402300799000.prom", false},
		// Three days before collected_at: outside the manifest's window
		// and its day of margin (the hand-made reach would keep it).
		{"manifest, 3 days early", "metrics/or-risingwave-compute-0/1795723245000.prom", true},
		{"manifest, 9999", "metrics/or-risingwave-compute-0/253402300799000.prom", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			extra := map[string]string{tc.file: lastReplayScrape(t)}
			basis := "no manifest.json"
			if tc.manifest {
				extra["manifest.json"] = `{"format_version":1,"collected_at":"2026-11-29T19:59:50Z","finished_at":"2026-11-29T20:01:00Z","complete":true,"files":[]}`
				basis = "manifest.json's collected_at to finished_at"
			}
			rep := analyzeReplay(t, replayBundle(t, extra))
			p := problemNaming(rep, tc.file)
			if !strings.Contains(p, "far outside the collection window") || !strings.Contains(p, basis) {
				t.Errorf("problems %q do not report %s as outside the window (%s)", rep.Bundle.Problems, tc.file, basis)
			}
			if !replayFires(rep) {
				t.Errorf("offset-replay does not fire: %+v", rep.Findings)
			}
		})
	}
}

// A scrape within a day of the manifest's window is kept: the margin is
// generous, and the window is not a trap for slow collections.
func TestScrapeNearWindowKept(t *testing.T) {
	file := "metrics/or-risingwave-compute-0/1796025600000.prom" // 12 h after finished_at
	rep := analyzeReplay(t, replayBundle(t, map[string]string{
		file:            lastReplayScrape(t),
		"manifest.json": `{"format_version":1,"collected_at":"2026-11-29T19:59:50Z","finished_at":"2026-11-29T20:01:00Z","complete":true,"files":[]}`,
	}))
	if p := problemNaming(rep, file); p != "" {
		t.Errorf("a scrape 12 h after finished_at was reported: %s", p)
	}
}

// Two scrapes, one of them misdated, are judged by the one that can be a
// RisingWave scrape, not by the lower middle of the two.
func TestScrapeWindowTwoScrapes(t *testing.T) {
	dir := t.TempDir()
	for p, body := range map[string]string{
		"metrics/p/1000.prom":          "up 1\n",
		"metrics/p/1795982445000.prom": "up 1\n",
	} {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := Gather(context.Background(), dir, nil, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	if len(ev.Info.Problems) != 1 || !strings.HasPrefix(ev.Info.Problems[0], "metrics/p/1000.prom: scraped at 1970-01-01") {
		t.Errorf("problems %q, want the 1970 scrape's alone", ev.Info.Problems)
	}
	if got := ev.Metrics.ScrapeTimes(); len(got) != 1 || got[0].Year() != 2026 {
		t.Errorf("scrapes kept: %v, want the 2026 one", got)
	}
}

// A manifest read after the scrapes (an archive written in another order)
// still sets the window.
func TestScrapeWindowManifestLast(t *testing.T) {
	var buf bytes.Buffer
	zw := tar.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"metrics/p/1795982445000.prom", "up 1\n"},
		{"metrics/p/1795723245000.prom", "up 1\n"}, // 3 days before
		{"manifest.json", `{"format_version":1,"collected_at":"2026-11-29T19:59:50Z","finished_at":"2026-11-29T20:01:00Z","complete":true,"files":[]}`},
	} {
		if err := zw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := zw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "b.tar")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := Gather(context.Background(), p, nil, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	if len(ev.Info.Problems) != 1 || !strings.Contains(ev.Info.Problems[0], "metrics/p/1795723245000.prom: scraped at 2026-11-26") ||
		!strings.Contains(ev.Info.Problems[0], "manifest.json") {
		t.Errorf("problems %q, want the early scrape's, by the manifest's window", ev.Info.Problems)
	}
}
