package cli

import (
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
)

func diffCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "diff",
		Usage:     "compare the findings of two bundles of the same cluster: new, resolved, persisting",
		UsageText: "rwdiag diff [options] OLD NEW",
		Description: "Analyzes the bundles OLD and NEW with the same rules and compares their firing\n" +
			"findings by fingerprint (rule and subject): new (firing in NEW only), resolved\n" +
			"(firing in OLD; NEW was decided and it did not fire), persisting (firing in both), and\n" +
			"undecided (firing in OLD, but NEW lacks the inputs to decide it: not a resolution).\n\n" +
			"Exit status: 0 when no new finding is at or above --fail-on, 1 when one is, 2 for\n" +
			"usage errors, invalid rules or an unreadable bundle.\n\n" +
			"Examples:\n" +
			"   rwdiag diff before.tar.zst after.tar.zst\n" +
			"   rwdiag diff --fail-on critical --format json yesterday.tar.zst today.tar.zst | jq '.added'\n" +
			"   rwdiag diff --format markdown -o changes.md old.tar.zst new.tar.zst",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT`: table, json or markdown (default: table, or as -o's extension says: .json, .md)"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the diff to `FILE` ('-' is stdout)"},
			&ucli.StringFlag{Name: "fail-on", Value: "warning", Usage: "exit 1 when a new finding is at or above `SEVERITY` (critical, warning, info, never)"},
		}, append(append(ruleFlags(), layoutFlags()...), limitFlags()...)...),
		Action: runDiff,
	}
}

func runDiff(c *ucli.Context) error {
	args, err := exactArgs(c, "OLD", "NEW")
	if err != nil {
		return err
	}
	defer analyze.TuneMemory()()
	out := c.String("output")
	format, err := listFormat(c.String("format"), out)
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
	var reps [2]*analyze.Report
	for i, b := range args {
		rep, err := analyze.Analyze(c.Context, b, rs, opts)
		if err != nil {
			return inputError(err)
		}
		if err := unreadable(rep.Bundle); err != nil {
			return err
		}
		warnProblems(c, b, rep.Bundle.Problems)
		reps[i] = rep
	}
	d := analyze.CompareReports(reps[0], reps[1])
	if err := writeOutput(c, out, func(w io.Writer) error { return lay.report().WriteDiff(w, d, format) }); err != nil {
		return err
	}
	for _, rep := range reps {
		if err := stoppedEarly(rep.Bundle, "diff"); err != nil {
			return err
		}
	}
	if !never && d.AddedAtOrAbove(threshold) {
		return &exitError{code: exitFailed}
	}
	return nil
}
