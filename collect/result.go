package collect

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

// Result is what a run wrote.
type Result struct {
	// Path is the archive written.
	Path string
	// ArchiveBytes is its size.
	ArchiveBytes int64
	// Manifest is the archive's manifest: files, failed steps, redaction.
	Manifest *bundle.Manifest
	// Notes are things a person should know that are not failures.
	Notes []string
}

func (c *collector) result(path string) (*Result, error) {
	m, err := readManifest(path)
	if err != nil {
		return nil, fmt.Errorf("read back %s: %w", path, err)
	}
	res := &Result{Path: path, Manifest: m}
	if fi, err := os.Stat(path); err == nil {
		res.ArchiveBytes = fi.Size()
	}
	c.mu.Lock()
	res.Notes = append([]string(nil), c.notes...)
	c.mu.Unlock()
	return res, nil
}

// Bytes is the files' size, uncompressed.
func (r *Result) Bytes() int64 {
	var n int64
	for _, f := range r.Manifest.Files {
		n += f.Size
	}
	return n
}

// summaryGroups orders the summary's file counts.
var summaryGroups = []struct {
	name  string
	kinds []bundle.Kind
}{
	{"kubernetes", []bundle.Kind{bundle.KindPods, bundle.KindEvents, bundle.KindNodes, bundle.KindKubeObjects}},
	{"describe", []bundle.Kind{bundle.KindDescribe}},
	{"logs", []bundle.Kind{bundle.KindLog, bundle.KindPreviousLog}},
	{"metrics scrapes", []bundle.Kind{bundle.KindMetricsScrape}},
	{"diagnose", []bundle.Kind{bundle.KindDiagnoseReport, bundle.KindAwaitTreeJSON, bundle.KindAwaitTreeText}},
	{"sql", []bundle.Kind{bundle.KindSQLTable, bundle.KindSQLExplain}},
	{"prometheus", []bundle.Kind{bundle.KindPrometheusRange}},
}

// WriteSummary prints what was written and what is missing, and why.
func (r *Result) WriteSummary(w io.Writer) {
	m := r.Manifest
	fmt.Fprintf(w, "rwdiag collect: wrote %s (%s; %d files, %s uncompressed)\n",
		printablePath(r.Path), formatBytes(r.ArchiveBytes), len(m.Files), formatBytes(r.Bytes()))
	fmt.Fprintf(w, "  namespace %s, cluster %s, RisingWave %s, %s\n",
		printablePath(m.Namespace), printablePath(orDash(m.Cluster)), printableLine(orDash(m.RisingWaveVersion)), m.FinishedAt.Sub(m.CollectedAt).Round(100_000_000))
	counts := map[bundle.Kind]int{}
	var truncated, partial []bundle.FileEntry
	for _, f := range m.Files {
		counts[bundle.Classify(f.Path).Kind]++
		if f.Truncated {
			truncated = append(truncated, f)
		}
		if f.Error != "" {
			partial = append(partial, f)
		}
	}
	var parts []string
	for _, g := range summaryGroups {
		n := 0
		for _, k := range g.kinds {
			n += counts[k]
		}
		parts = append(parts, fmt.Sprintf("%s %d", g.name, n))
	}
	fmt.Fprintf(w, "  files: %s\n", strings.Join(parts, ", "))
	if m.Redaction.Enabled {
		values := "values"
		if m.Redaction.Total == 1 {
			values = "value"
		}
		fmt.Fprintf(w, "  redaction: on, %d %s replaced", m.Redaction.Total, values)
		if len(m.Redaction.Counts) > 0 {
			var rs []string
			for _, k := range sortedKeys(m.Redaction.Counts) {
				rs = append(rs, fmt.Sprintf("%s %d", k, m.Redaction.Counts[k]))
			}
			fmt.Fprintf(w, " (%s)", strings.Join(rs, ", "))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "  redaction: OFF (--no-redact): the bundle may hold passwords, tokens and keys; do not share it outside your organisation")
	}
	if !m.Complete {
		fmt.Fprintf(w, "  INCOMPLETE: %s\n", printableLine(m.IncompleteReason))
	}
	if len(m.Errors) > 0 {
		fmt.Fprintf(w, "\nMissing (%d): what could not be collected, and why\n", len(m.Errors))
		for _, e := range m.Errors {
			fmt.Fprintf(w, "  %-10s %s: %s\n", printablePath(e.Step), printablePath(e.Target), printableLine(firstLine(e.Error)))
		}
	}
	if len(partial) > 0 {
		fmt.Fprintf(w, "\nPartial (%d): the source failed part-way\n", len(partial))
		for _, f := range partial {
			fmt.Fprintf(w, "  %s: %s\n", printablePath(f.Path), printableLine(firstLine(f.Error)))
		}
	}
	if len(truncated) > 0 {
		fmt.Fprintf(w, "\nTruncated (%d): cut by --log-bytes or --log-budget (the newest lines are kept)\n", len(truncated))
		for _, f := range truncated {
			fmt.Fprintf(w, "  %s (%s kept)\n", printablePath(f.Path), formatBytes(f.Size))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  %s\n", printableLine(n))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// The formats of a redaction report.
const (
	ReportTable = "table"
	ReportJSON  = "json"
)

// FileRedactions is what redaction replaced in one file: how many values,
// by class (the redaction rule that matched).
type FileRedactions struct {
	Path   string         `json:"path"`
	Total  int            `json:"total"`
	Counts map[string]int `json:"counts"`
}

// FileReport lists a redaction report's per-file counts, by path.
func FileReport(rep bundle.RedactionReport) []FileRedactions {
	var out []FileRedactions
	for _, p := range sortedKeys(rep.Files) {
		fr := FileRedactions{Path: p, Counts: rep.Files[p]}
		for _, n := range fr.Counts {
			fr.Total += n
		}
		if fr.Total > 0 {
			out = append(out, fr)
		}
	}
	return out
}

// WriteRedactionReport writes, for a person who reviews a bundle before it
// is sent, what redaction replaced in each file: a table (one line per file
// that had values replaced, the classes and their counts, and a total
// line), or with format ReportJSON one JSON object:
//
//	{"files": [{"path": "kubernetes/pods.json", "total": 3, "counts": {"env-secret-name": 3}}],
//	 "total": 3, "counts": {"env-secret-name": 3}}
//
// Files with nothing replaced are left out. The values themselves are never
// written, only counts.
func WriteRedactionReport(w io.Writer, files []FileRedactions, format string) error {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b FileRedactions) int { return strings.Compare(a.Path, b.Path) })
	all := FileRedactions{Path: "total", Counts: map[string]int{}}
	for _, f := range files {
		all.Total += f.Total
		for k, v := range f.Counts {
			all.Counts[k] += v
		}
	}
	if format == ReportJSON {
		if files == nil {
			files = []FileRedactions{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Files  []FileRedactions `json:"files"`
			Total  int              `json:"total"`
			Counts map[string]int   `json:"counts"`
		}{files, all.Total, all.Counts})
	}
	width := len("FILE")
	for _, f := range files {
		width = max(width, len(printablePath(f.Path)))
	}
	fmt.Fprintf(w, "%-*s  %8s  %s\n", width, "FILE", "REPLACED", "CLASSES")
	for _, f := range append(files, all) {
		fmt.Fprintf(w, "%-*s  %8d  %s\n", width, printablePath(f.Path), f.Total, classList(f.Counts))
	}
	return nil
}

// classList is "class n, class n", the most frequent first.
func classList(counts map[string]int) string {
	keys := sortedKeys(counts)
	slices.SortStableFunc(keys, func(a, b string) int { return counts[b] - counts[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// printablePath is a bundle path as it may be printed on a terminal.
func printablePath(p string) string { return termtext.Escape(p, termtext.Name) }

// printableLine is text the cluster or a server chose (a version string, an
// error message), escaped for the terminal on one line.
func printableLine(s string) string { return termtext.Escape(s, termtext.Line) }
