package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/report"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/outfile"
	"github.com/rwdiag/rwdiag/internal/termtext"
	knownissues "github.com/rwdiag/rwdiag/known-issues"
	"github.com/rwdiag/rwdiag/rules"
)

// Flags shared by the commands that load rules.
func ruleFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "rules", Usage: "also load rule files from `PATH` (a file or directory; repeatable); a rule with a built-in's id replaces it"},
		&ucli.StringSliceFlag{Name: "disable", Usage: "switch off the rule `ID` (repeatable)"},
		&ucli.StringSliceFlag{Name: "known-issues", Usage: "also load known-issue entries from `DIR` (a directory or file, kind KnownIssue; repeatable); an entry with a built-in's id replaces it"},
		&ucli.BoolFlag{Name: "no-builtin", Usage: "do not load the built-in rules or known-issue base"},
	}
}

// loadRules loads the built-in rules and those named by --rules and extra,
// less --disable.
func loadRules(c *ucli.Context, extra ...string) ([]*analyze.Rule, error) {
	var base []*analyze.Rule
	var probs analyze.Problems
	if !c.Bool("no-builtin") {
		rs, err := analyze.LoadFS(rules.FS, rules.Prefix)
		if err != nil {
			probs = appendRuleProblems(probs, err)
		}
		base = rs
		known, err := analyze.LoadFS(knownissues.FS, knownissues.Prefix)
		if err != nil {
			probs = appendRuleProblems(probs, err)
		}
		base = append(base, known...)
	}
	var added []*analyze.Rule
	if paths := uniquePaths(append(append(c.StringSlice("rules"), c.StringSlice("known-issues")...), extra...)); len(paths) > 0 {
		rs, err := analyze.LoadPaths(paths)
		if err != nil {
			probs = appendRuleProblems(probs, err)
		}
		added = rs
	}
	if len(probs) > 0 {
		return nil, &exitError{exitUsage, fmt.Errorf("invalid rules:\n%w", probs)}
	}
	merged, err := analyze.Merge(base, added, c.StringSlice("disable"))
	if err != nil {
		return nil, usageError(c, "%v", err)
	}
	return merged, nil
}

// uniquePaths drops a path given twice (rules test --known-issues DIR DIR),
// which would load every rule in it twice.
func uniquePaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if k := filepath.Clean(p); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

func appendRuleProblems(probs analyze.Problems, err error) analyze.Problems {
	var ps analyze.Problems
	if errors.As(err, &ps) {
		return append(probs, ps...)
	}
	return append(probs, &analyze.Problem{Msg: err.Error()})
}

func analyzeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "analyze",
		Usage:     "apply the rules to a bundle and report what went wrong, with evidence and remedies",
		UsageText: "rwdiag analyze [options] BUNDLE",
		Description: "Reads BUNDLE (a directory, or a tar, tar.zst or tar.gz archive) once, offline, and\n" +
			"applies the built-in rules and any given with --rules, and the known-issue base\n" +
			"(upstream RisingWave bugs by affected version; --known-issues DIR adds or replaces\n" +
			"entries, for an air-gapped site's newer base). Each finding names its\n" +
			"subject (a pod, sink, source or materialized view), the evidence (file and line,\n" +
			"or metric series and value) and the remedy. A rule whose inputs the bundle lacks\n" +
			"is reported as inconclusive, with what to collect.\n\n" +
			"Exit status: 0 when no firing finding is at or above --fail-on, 1 when one is,\n" +
			"2 for usage errors, invalid rules or an unreadable bundle.\n\n" +
			"Examples:\n" +
			"   rwdiag analyze samples/compound-incident\n" +
			"   rwdiag analyze --format markdown -o ticket.md rwdiag-prod-20261129T204300Z.tar.zst\n" +
			"   rwdiag analyze -o report.html bundle.tar.zst   # one self-contained page with charts\n" +
			"   rwdiag analyze --format json --fail-on never bundle.tar.zst | jq '.findings[].subject'\n" +
			"   rwdiag analyze --rules ./my-rules --disable sink-decoupled-lagging bundle.tar.zst\n" +
			"   rwdiag analyze --width 120 samples/compound-incident   # or --wide: one line per row",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT` of the report: table, json, markdown or html (default: table, or as -o's extension says: .json, .md, .html)"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` ('-' is stdout)"},
			&ucli.StringFlag{Name: "fail-on", Value: "warning", Usage: "exit 1 when a firing finding is at or above `SEVERITY` (critical, warning, info, never)"},
		}, append(append(ruleFlags(), layoutFlags()...), limitFlags()...)...),
		Action: runAnalyze,
	}
}

func runAnalyze(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usageError(c, "want one BUNDLE, got %d arguments", c.NArg())
	}
	defer analyze.TuneMemory()()
	out := c.String("output")
	format, err := reportFormat(c.String("format"), out)
	if err != nil {
		return usageError(c, "%v", err)
	}
	lay, err := decideLayout(c, c.App.Writer, out)
	if err != nil {
		return err
	}
	in, err := readAnalysisInputs(c)
	if err != nil {
		return err
	}
	threshold, never, opts, rs := in.threshold, in.never, in.opts, in.rules
	var rep *analyze.Report
	var x *analyze.Forensics // the timeline and metric history that Markdown and HTML show
	if format == report.FormatMarkdown || format == report.FormatHTML {
		rep, x, err = analyze.Investigate(c.Context, c.Args().First(), rs, opts, analyze.TimelineOptions{})
	} else {
		rep, err = analyze.Analyze(c.Context, c.Args().First(), rs, opts)
	}
	if err != nil {
		return inputError(err)
	}
	if err := unreadable(rep.Bundle); err != nil {
		return err
	}
	rep.ToolVersion = versionString()
	if err := writeOutput(c, out, func(w io.Writer) error { return lay.report().Write(w, rep, format, x) }); err != nil {
		return err
	}
	warnProblems(c, "", rep.Bundle.Problems)
	if err := stoppedEarly(rep.Bundle, "report"); err != nil {
		return err
	}
	if !never && rep.ExceedsFailOn(threshold) {
		return &exitError{code: exitFailed}
	}
	return nil
}

// unreadable returns the error for a bundle nothing in which could be read:
// no file was read and reading met problems (damage from the first byte, a
// zstd window past the limit, nothing but refused entries). Analysing it
// would report every rule inconclusive; it is unreadable input instead.
func unreadable(b analyze.BundleInfo) error {
	if b.Files > 0 || len(b.Problems) == 0 {
		return nil
	}
	return inputError(fmt.Errorf("%s: no file in the bundle could be read: %s", b.Path, strings.Join(b.Problems, "; ")))
}

// stoppedEarly returns the error for a bundle whose reading stopped before
// its end (damage, --max-total-bytes): exit 2, as every bundle command does,
// once the output (a report of what was read: what) is written.
func stoppedEarly(b analyze.BundleInfo, what string) error {
	why := analyze.ReadingStopped(b)
	if why == "" {
		return nil
	}
	return inputError(fmt.Errorf("%s: reading stopped early; the %s covers what came before: %s", b.Path, what, why))
}

// warnProblems prints what could not be read on stderr, one warning a line,
// each prefixed with prefix (the bundle, when there are several), escaped
// for the terminal. Why reading stopped early is left to stoppedEarly.
func warnProblems(c *ucli.Context, prefix string, problems []string) {
	if prefix != "" {
		prefix = termtext.Escape(prefix, termtext.Name) + ": "
	}
	for _, p := range problems {
		if strings.HasPrefix(p, analyze.StoppedPrefix) {
			continue
		}
		fmt.Fprintf(c.App.ErrWriter, "rwdiag: warning: %s%s\n", prefix, termtext.Escape(p, termtext.Line))
	}
}

// reportFormat picks the format: the flag, else -o's extension, else a table.
func reportFormat(flag, out string) (report.Format, error) {
	if flag != "" {
		return report.ParseFormat(strings.ToLower(flag))
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".json":
		return report.ParseFormat("json")
	case ".md", ".markdown":
		return report.ParseFormat("markdown")
	case ".html", ".htm":
		return report.ParseFormat("html")
	}
	return report.ParseFormat("table")
}

// writeOutput writes to stdout, or to the file out: a regular file appears
// only when whole; a device, FIFO or symbolic link is written to in place
// and never replaced (see internal/outfile).
func writeOutput(c *ucli.Context, out string, write func(io.Writer) error) error {
	if out == "" || out == "-" {
		return write(c.App.Writer)
	}
	f, err := outfile.Create(out, 0o644)
	if err != nil {
		return inputError(err)
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return inputError(fmt.Errorf("write %s: %w", out, err))
	}
	if err := f.Commit(); err != nil {
		return inputError(err)
	}
	return nil
}

// analysisInputs is what every command that analyses bundles reads from its
// flags: the --fail-on threshold, the reader's limits and the rules.
type analysisInputs struct {
	threshold analyze.Severity
	never     bool
	opts      bundle.Options
	rules     []*analyze.Rule
}

func readAnalysisInputs(c *ucli.Context) (analysisInputs, error) {
	var in analysisInputs
	var err error
	in.threshold, in.never, err = analyze.ParseFailOn(strings.ToLower(strings.TrimSpace(c.String("fail-on"))))
	if err != nil {
		return in, usageError(c, "--fail-on: %v", err)
	}
	if in.opts, err = readerOptions(c); err != nil {
		return in, err
	}
	in.rules, err = loadRules(c)
	return in, err
}
