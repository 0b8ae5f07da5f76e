package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

func inspectCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "inspect",
		Usage:     "summarise a bundle: where it comes from, its pods, its files by kind, what went wrong",
		UsageText: "rwdiag bundle inspect [--format text|json] [--max-entry-bytes SIZE] [--max-total-bytes SIZE] [--max-zstd-window SIZE] BUNDLE",
		Description: "Reads the bundle once and prints its manifest (collected-at, namespace, cluster,\n" +
			"RisingWave and tool versions, complete or not), its pods by component from\n" +
			"kubernetes/pods.json, its files and bytes by kind, the collector's errors, and the\n" +
			"problems met while reading. A bundle without manifest.json is hand-made; the\n" +
			"namespace and cluster then come from the pods. Exits 2 when the bundle cannot be\n" +
			"opened or reading stopped early on damage (what was read is still printed).\n\n" +
			"Examples:\n" +
			"   rwdiag bundle inspect samples/oom-crash-loop\n" +
			"   rwdiag bundle inspect --format json rwdiag-prod-20261129T204300Z.tar.zst | jq .components",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`FORMAT` of the output: text (tables) or json"},
		}, limitFlags()...),
		Action: runInspect,
	}
}

func runInspect(c *ucli.Context) error {
	format := strings.ToLower(c.String("format"))
	if format != "text" && format != "json" {
		return usageError(c, "--format %q: want text or json", format)
	}
	args, err := exactArgs(c, "BUNDLE")
	if err != nil {
		return err
	}
	r, err := openBundle(c, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	s, fatal := bundle.Summarize(r)
	if fatal == nil {
		if err := r.NotBundle(); err != nil {
			return inputError(err)
		}
	}
	w := c.App.Writer
	if format == "json" {
		enc := json.NewEncoder(termtext.Writer{W: w}) // C1 and bidi controls as \u escapes
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	} else if err := writeSummary(w, s); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	if fatal != nil {
		return inputError(fmt.Errorf("%s: reading stopped early; the summary covers what came before: %w", r.Name(), fatal))
	}
	return nil
}

// newTable makes a table that prints its header as given, in ASCII.
func newTable(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithSymbols(tw.NewSymbols(tw.StyleASCII)),
	)
	t.Header(header)
	return t
}

// writeSummary writes the summary as text for a terminal. Everything the
// bundle says (names, manifest fields, errors) is escaped: see termtext.
func writeSummary(w io.Writer, s *bundle.Summary) error {
	fmt.Fprintf(w, "Bundle %s\n", termtext.Escape(s.Name, termtext.Name))
	t := newTable(w, "field", "value")
	for _, row := range summaryFields(s) {
		if err := t.Append(termtext.Strings(row, termtext.Name)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nPods by component (%s)\n", bundle.KubePath("pods"))
	switch {
	case !s.HasPods:
		fmt.Fprintln(w, "none: the bundle has no kubernetes/pods.json")
	case s.Pods == nil:
		fmt.Fprintln(w, "none: kubernetes/pods.json could not be decoded (see problems)")
	case len(s.Pods) == 0:
		fmt.Fprintln(w, "none: kubernetes/pods.json lists no pods")
	default:
		t := newTable(w, "component", "pods", "names", "restarts")
		for _, cp := range s.Components() {
			name := cp.Component
			if name == "" {
				name = "(no component label)"
			}
			// One name a line: each escaped, so none can make two.
			names := strings.Join(termtext.Strings(cp.Names, termtext.Name), "\n")
			row := []string{termtext.Escape(name, termtext.Name), strconv.Itoa(len(cp.Names)), names, strconv.Itoa(cp.Restarts)}
			if err := t.Append(row); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "\nFiles by kind")
	t = newTable(w, "kind", "files", "bytes")
	for _, k := range s.Kinds {
		if err := t.Append([]string{k.Kind.String(), strconv.Itoa(k.Files), formatSize(k.Bytes)}); err != nil {
			return err
		}
	}
	if err := t.Append([]string{"total", strconv.Itoa(s.Files), formatSize(s.Bytes)}); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nCollector errors")
	switch {
	case s.Manifest == nil:
		fmt.Fprintln(w, "unknown: no manifest records them")
	case len(s.Manifest.Errors) == 0:
		fmt.Fprintln(w, "none")
	default:
		t := newTable(w, "step", "target", "error")
		for _, e := range s.Manifest.Errors {
			if err := t.Append(termtext.Strings([]string{e.Step, e.Target, e.Error}, termtext.Name)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "\nProblems met while reading")
	if len(s.Problems) == 0 {
		fmt.Fprintln(w, "none")
	}
	for _, p := range s.Problems {
		fmt.Fprintf(w, "- %s\n", termtext.Escape(p.Error(), termtext.Line))
	}
	if s.Partial {
		fmt.Fprintln(w, "Reading stopped at the last problem: the counts above cover only what came before it.")
	}
	return nil
}

// summaryFields are the rows of the first table.
func summaryFields(s *bundle.Summary) [][]string {
	const unknown = "-"
	orDash := func(v string) string {
		if v == "" {
			return unknown
		}
		return v
	}
	derived := func(v, from string) string {
		switch {
		case v == "":
			return unknown
		case from != bundle.ManifestPath:
			return v + " (from " + from + ")"
		}
		return v
	}
	ns, nsFrom := s.Namespace()
	cluster, clusterFrom := s.Cluster()
	rows := [][]string{{"format", s.Format.String()}}
	m := s.Manifest
	switch {
	case m != nil:
		rows = append(rows, []string{"manifest", fmt.Sprintf("format version %d, %d files listed", m.FormatVersion, len(m.Files))})
	case s.HasManifest:
		rows = append(rows, []string{"manifest", "present but unreadable (see problems)"})
	case s.Partial:
		rows = append(rows, []string{"manifest", "not reached: reading stopped before any manifest.json (see problems)"})
	default:
		rows = append(rows, []string{"manifest", "hand-made (no manifest)"})
	}
	collected, rwVersion, tool, complete := unknown, unknown, unknown, unknown
	if m != nil {
		if !m.CollectedAt.IsZero() {
			collected = m.CollectedAt.UTC().Format(time.RFC3339)
		}
		rwVersion = orDash(m.RisingWaveVersion)
		if m.Tool.Name != "" || m.Tool.Version != "" {
			tool = strings.TrimSpace(m.Tool.Name + " " + m.Tool.Version)
		}
		complete = "yes"
		if !m.Complete {
			complete = "no"
			if m.IncompleteReason != "" {
				complete += ": " + m.IncompleteReason
			}
		}
	}
	return append(rows,
		[]string{"collected at", collected},
		[]string{"namespace", derived(ns, nsFrom)},
		[]string{"cluster", derived(cluster, clusterFrom)},
		[]string{"RisingWave version", rwVersion},
		[]string{"tool", tool},
		[]string{"complete", complete},
	)
}
