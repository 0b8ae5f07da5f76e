package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// hasRow reports whether a table in out has a row starting with cells.
func hasRow(out string, cells ...string) bool {
	pattern := `(?m)^\|`
	for _, c := range cells {
		pattern += ` +` + regexp.QuoteMeta(c) + ` +\|`
	}
	return regexp.MustCompile(pattern).MatchString(out)
}

// componentRows returns the table lines of component's row in the pods table:
// its own line and the continuation lines holding more pod names.
func componentRows(out, component string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "| "+component+" ") {
			continue
		}
		rows := []string{l}
		for _, next := range lines[i+1:] {
			if !strings.HasPrefix(next, "|   ") && !strings.HasPrefix(next, "|           ") {
				break
			}
			rows = append(rows, next)
		}
		return strings.Join(rows, "\n")
	}
	return ""
}

func TestInspectSample(t *testing.T) {
	r := run(t, "bundle", "inspect", sample)
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("want exit 0 and nothing on stderr\n%v", r)
	}
	for _, row := range [][]string{
		{"format", "directory"},
		{"manifest", "hand-made (no manifest)"},
		{"namespace", "risingwave (from kubernetes/pods.json)"},
		{"cluster", "rw-prod (from kubernetes/pods.json)"},
		{"log", "1"},
		{"previous-log", "1"},
		{"metrics-scrape", "2"},
		{"sql-table", "2"},
		{"total", "9"},
	} {
		if !hasRow(r.stdout, row...) {
			t.Errorf("no table row %q\n%v", row, r)
		}
	}
	if !strings.Contains(r.stdout, "Collector errors\nunknown: no manifest records them\n") ||
		!strings.Contains(r.stdout, "Problems met while reading\nnone\n") {
		t.Errorf("collector errors or problems not as expected\n%v", r)
	}
	for component, pods := range map[string][]string{
		"meta":      {"rw-prod-meta-0"},
		"compute":   {"rw-prod-compute-0", "rw-prod-compute-1"},
		"frontend":  {"rw-prod-frontend-7d9c6b5f4-x2lqp"},
		"compactor": {"rw-prod-compactor-5b8d9c7f6-m4tzn"},
	} {
		row := componentRows(r.stdout, component)
		if !strings.Contains(row, "| "+strconv.Itoa(len(pods))+" ") {
			t.Errorf("component %s: row %q does not count %d pods", component, row, len(pods))
		}
		for _, p := range pods {
			if !strings.Contains(row, p) {
				t.Errorf("component %s: row %q does not name pod %s", component, row, p)
			}
		}
	}
	if row := componentRows(r.stdout, "compute"); !strings.Contains(row, "| 6 ") {
		t.Errorf("compute row %q does not count rw-prod-compute-0's 6 restarts", row)
	}
	// Headers are printed as given, not upper-cased.
	if !strings.Contains(r.stdout, "| component | pods |") || strings.Contains(r.stdout, "COMPONENT") {
		t.Errorf("headers not as given\n%v", r)
	}
}

func TestInspectSampleJSON(t *testing.T) {
	r := run(t, "bundle", "inspect", "--format", "json", sample)
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	var got struct {
		Bundle      string `json:"bundle"`
		Format      string `json:"format"`
		HasManifest bool   `json:"has_manifest"`
		Namespace   string `json:"namespace"`
		Cluster     string `json:"cluster"`
		Components  []struct {
			Component string   `json:"component"`
			Names     []string `json:"names"`
			Restarts  int      `json:"restarts"`
		} `json:"components"`
		Files    int   `json:"files"`
		Problems []any `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%v", err, r)
	}
	if got.Bundle != sample || got.Format != "directory" || got.HasManifest || got.Namespace != "risingwave" ||
		got.Cluster != "rw-prod" || got.Files != 9 || len(got.Problems) != 0 {
		t.Errorf("summary fields wrong: %+v", got)
	}
	var order []string
	for _, c := range got.Components {
		order = append(order, c.Component)
	}
	if strings.Join(order, ",") != "meta,compute,frontend,compactor" {
		t.Errorf("components %v, want meta,compute,frontend,compactor", order)
	}
	if len(got.Components) > 1 && (strings.Join(got.Components[1].Names, ",") != "rw-prod-compute-0,rw-prod-compute-1" || got.Components[1].Restarts != 6) {
		t.Errorf("compute: %+v", got.Components[1])
	}
}

func TestInspectArchiveWithManifest(t *testing.T) {
	r := run(t, "bundle", "inspect", writeBundle(t, bundle.FormatTarZstd))
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	for _, row := range [][]string{
		{"format", "tar.zst"},
		{"manifest", "format version 1, 3 files listed"},
		{"collected at", "2026-11-29T20:43:00Z"},
		{"namespace", "rw"},
		{"cluster", "rw"},
		{"RisingWave version", "v3.0.3"},
		{"tool", "rwdiag v0.1.0"},
		{"complete", "yes"},
		{"compute", "1", "rw-compute-0", "3"},
		{"manifest", "1"},
		{"total", "4"},
		{"sql", "rw_ddl_progress", "connection refused"},
	} {
		if !hasRow(r.stdout, row...) {
			t.Errorf("no table row %q\n%v", row, r)
		}
	}
}

func TestInspectDamagedArchive(t *testing.T) {
	whole := writeBundle(t, bundle.FormatTarGzip)
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bundle", "inspect", cut)
	if r.code != exitUsage {
		t.Errorf("exit %d, want %d for a damaged archive\n%v", r.code, exitUsage, r)
	}
	// What was read is still printed, the damage is listed, and stderr names the file.
	if !strings.Contains(r.stdout, "Files by kind") || !strings.Contains(r.stdout, "archive damaged") ||
		!strings.Contains(r.stdout, "Reading stopped") {
		t.Errorf("stdout lacks the partial summary or the damage\n%v", r)
	}
	if !strings.Contains(r.stderr, cut) || !strings.Contains(r.stderr, "reading stopped early") {
		t.Errorf("stderr does not name %s\n%v", cut, r)
	}
}

func TestInspectLimitFlags(t *testing.T) {
	tooBig := "per-entry limit of 10 bytes"
	for _, tc := range []struct {
		name    string
		args    []string
		limited bool
	}{
		{"command flag", []string{"bundle", "inspect", "--max-entry-bytes", "10", sample}, true},
		{"global flag", []string{"--max-entry-bytes", "10", "bundle", "inspect", sample}, true},
		{"command flag wins", []string{"--max-entry-bytes", "10", "bundle", "inspect", "--max-entry-bytes", "1MiB", sample}, false},
		{"default", []string{"bundle", "inspect", sample}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != exitOK {
				t.Fatalf("want exit 0: the per-entry limit is not fatal\n%v", r)
			}
			if got := strings.Contains(r.stdout, tooBig); got != tc.limited {
				t.Errorf("per-entry limit reported = %v, want %v\n%v", got, tc.limited, r)
			}
		})
	}
	// The total limit stops reading: exit 2, naming the limit.
	r := run(t, "bundle", "inspect", "--max-total-bytes", "1KiB", writeBundle(t, bundle.FormatTarZstd))
	if r.code != exitUsage || !strings.Contains(r.stderr, "limit of 1024 bytes") {
		t.Errorf("want exit 2 naming the total limit\n%v", r)
	}
}
