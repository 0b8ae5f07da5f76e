package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/report"
	"github.com/rwdiag/rwdiag/internal/termtext"
	knownissues "github.com/rwdiag/rwdiag/known-issues"
	"github.com/rwdiag/rwdiag/rules"
)

func rulesCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "rules",
		Usage:     "list, lint or test rule files",
		UsageText: "rwdiag rules command [command options] [PATH...]",
		Description: "Rule files are YAML (apiVersion: rwdiag/v1, kind: RuleSet); see docs/rule-format.md.\n\n" +
			"Examples:\n" +
			"   rwdiag rules list\n" +
			"   rwdiag rules lint ./my-rules\n" +
			"   rwdiag rules test                      # the built-in rules' own tests\n" +
			"   rwdiag rules test ./my-rules --run oom",
		Subcommands: []*ucli.Command{rulesListCommand(), rulesLintCommand(), rulesTestCommand()},
		Action:      requireCommand,
	}
}

func rulesListCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "list",
		Usage:     "list the loaded rules",
		UsageText: "rwdiag rules list [--rules PATH]... [--disable ID]... [--risingwave-version V]",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "risingwave-version", Usage: "mark the rules that do not apply to RisingWave `VERSION`"},
		}, append(ruleFlags(), layoutFlags()...)...),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageError(c, "unexpected arguments: %s (use --rules PATH)", strings.Join(c.Args().Slice(), " "))
			}
			lay, err := decideLayout(c, c.App.Writer, "")
			if err != nil {
				return err
			}
			rs, err := loadRules(c)
			if err != nil {
				return err
			}
			v := c.String("risingwave-version")
			rows := make([]report.RuleRow, 0, len(rs))
			for _, r := range rs {
				var signals []string
				for _, s := range r.Signals {
					signals = append(signals, s.Name+" ("+string(s.Kind)+")")
				}
				status := "active"
				if v != "" && !r.AppliesTo(v) {
					status = "skipped: outside " + r.Versions
				}
				rows = append(rows, report.RuleRow{ID: r.ID, Pattern: r.Pattern, Severity: r.Severity, Versions: r.Versions,
					Signals: signals, File: r.File, Status: status})
			}
			return lay.report().WriteRules(c.App.Writer, rows)
		},
	}
}

func rulesLintCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "lint",
		Usage:     "check rule files and report every problem with its line and column",
		UsageText: "rwdiag rules lint [--format text|json] [PATH...]   (no PATH: the built-in rules and known-issue base)",
		Description: "Parses each file, rejects unknown fields, and compiles every regular expression,\n" +
			"PromQL query, SQL statement, gjson path, expression and template. All problems are\n" +
			"reported at once as FILE:LINE:COL: rule \"ID\": FIELD: MESSAGE. Exit status 2 when\n" +
			"there is any. Known-issue entries (kind KnownIssue, see docs/known-issues.md) are\n" +
			"checked too, their explains against the built-in rules. It also flags what would be costly at run time: a PromQL subquery of more\n" +
			"than a million steps (a problem) or with a step under the 15 s scrape interval, a SQL\n" +
			"WITH RECURSIVE (warnings, FILE:LINE:COL: warning: ...; exit status 0); a summary\n" +
			"template that calls itself is a problem.\n\n" +
			"--format json writes one object for programs and CI: {\"rules\": N, \"errors\": N,\n" +
			"\"warnings\": N, \"problems\": [{\"file\", \"line\", \"column\", \"rule\", \"field\",\n" +
			"\"message\", \"severity\": \"error\"|\"warning\"}]}, with the same exit status.\n\n" +
			"Examples:\n" +
			"   rwdiag rules lint\n" +
			"   rwdiag rules lint ./my-rules\n" +
			"   rwdiag rules lint --format json ./my-rules",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`FORMAT` of the output: text or json"},
		},
		Action: func(c *ucli.Context) error {
			jsonOut, err := textOrJSON(c)
			if err != nil {
				return err
			}
			var rs []*analyze.Rule
			var probs analyze.Problems
			// The built-in rules and known-issue base, or the PATHs; a
			// known issue's explains may name a built-in rule.
			builtin, _ := analyze.LoadFS(rules.FS, rules.Prefix)
			if c.NArg() == 0 {
				rs, probs = analyze.LintFS(rules.FS, rules.Prefix)
				known, kprobs := analyze.LintFS(knownissues.FS, knownissues.Prefix)
				rs, probs = append(rs, known...), append(probs, kprobs...)
			} else {
				rs, probs = analyze.LintPaths(c.Args().Slice())
			}
			probs = append(probs, analyze.CheckExplains(rs, builtin)...)
			errs, warns := 0, 0
			out := lintJSON{Rules: len(rs), Problems: []lintProblem{}}
			for _, p := range probs {
				if !jsonOut {
					fmt.Fprintln(c.App.Writer, termtext.Escape(p.Error(), termtext.Lines))
				}
				sev := "error"
				if p.Warning {
					warns++
					sev = "warning"
				} else {
					errs++
				}
				out.Problems = append(out.Problems, lintProblem{File: p.File, Line: p.Line, Column: p.Column,
					Rule: p.Rule, Field: p.Field, Message: p.Msg, Severity: sev})
			}
			if jsonOut {
				out.Errors, out.Warnings = errs, warns
				if err := writeJSON(c.App.Writer, out); err != nil {
					return err
				}
				if errs > 0 {
					return &exitError{code: exitUsage}
				}
				return nil
			}
			if errs > 0 {
				return &exitError{exitUsage, fmt.Errorf("%d problem(s), %d warning(s)", errs, warns)}
			}
			if warns > 0 {
				fmt.Fprintf(c.App.Writer, "%s OK, %d warning(s)\n", lintCount(rs), warns)
				return nil
			}
			fmt.Fprintf(c.App.Writer, "%s OK\n", lintCount(rs))
			return nil
		},
	}
}

func rulesTestCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "test",
		Usage:     "run rule tests (kind: RuleTest) against the rules",
		UsageText: "rwdiag rules test [--run REGEX] [--format text|json] [PATH...]   (no PATH: the built-in rules' and known issues' tests)",
		Description: "Each test case names a bundle and/or inline files and the findings expected\n" +
			"(rule, subject, severity), or expect: []. Rule files found among PATHs are loaded\n" +
			"over the built-in rules. Exit status 1 when a case fails.\n\n" +
			"--format json writes one object: {\"passed\": N, \"failed\": N, \"cases\": [{\"file\",\n" +
			"\"name\", \"pass\", \"error\", \"expected\": [...], \"got\": [...]}]}, every case run, with\n" +
			"the same exit status.\n\n" +
			"Examples:\n" +
			"   rwdiag rules test\n" +
			"   rwdiag rules test --run oom\n" +
			"   rwdiag rules test samples/\n" +
			"   rwdiag rules test --format json samples/",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "run", Usage: "run only the cases whose name matches `REGEX`"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`FORMAT` of the output: text or json"},
		}, ruleFlags()...),
		Action: runRulesTest,
	}
}

func runRulesTest(c *ucli.Context) error {
	jsonOut, err := textOrJSON(c)
	if err != nil {
		return err
	}
	var run *regexp.Regexp
	if s := c.String("run"); s != "" {
		re, err := regexp.Compile(s)
		if err != nil {
			return usageError(c, "--run: %v", err)
		}
		run = re
	}
	var cases []*analyze.TestCase
	if c.NArg() == 0 {
		cases, err = analyze.LoadTestFS(rules.FS)
		if err == nil {
			var known []*analyze.TestCase
			known, err = analyze.LoadTestFS(knownissues.FS)
			cases = append(cases, known...)
		}
	} else {
		cases, err = analyze.LoadTestPaths(c.Args().Slice())
	}
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("invalid rule tests:\n%w", err)}
	}
	// Rule files among the PATHs are loaded over the built-ins.
	rs, err := loadRules(c, c.Args().Slice()...)
	if err != nil {
		return err
	}
	results := analyze.RunTests(c.Context, cases, rs, run)
	failed := 0
	out := testJSON{Cases: []testCaseJSON{}}
	for _, r := range results {
		if !r.Pass {
			failed++
			if !jsonOut {
				fmt.Fprint(c.App.Writer, "FAIL ", termtext.Escape(r.String(), termtext.Lines))
			}
		}
		out.Cases = append(out.Cases, caseJSON(r))
	}
	if jsonOut {
		out.Passed, out.Failed = len(results)-failed, failed
		if err := writeJSON(c.App.Writer, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "%d passed, %d failed\n", len(results)-failed, failed)
	}
	if failed > 0 {
		return &exitError{code: exitFailed}
	}
	return nil
}

// lintCount is "12 rules", or "5 rules and 10 known issues" when some are
// known-issue entries.
func lintCount(rs []*analyze.Rule) string {
	known := 0
	for _, r := range rs {
		if r.Known != nil {
			known++
		}
	}
	if known == 0 {
		return fmt.Sprintf("%d rules", len(rs))
	}
	return fmt.Sprintf("%d rules and %d known issues", len(rs)-known, known)
}

// textOrJSON reads a --format of text or json, in any case.
func textOrJSON(c *ucli.Context) (bool, error) {
	switch f := strings.ToLower(c.String("format")); f {
	case "text", "":
		return false, nil
	case "json":
		return true, nil
	}
	return false, usageError(c, "--format %q: want text or json", c.String("format"))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(termtext.Writer{W: w})
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// lintJSON is `rules lint --format json`.
type lintJSON struct {
	Rules    int           `json:"rules"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Problems []lintProblem `json:"problems"`
}

type lintProblem struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

// testJSON is `rules test --format json`.
type testJSON struct {
	Passed int            `json:"passed"`
	Failed int            `json:"failed"`
	Cases  []testCaseJSON `json:"cases"`
}

type testCaseJSON struct {
	File     string   `json:"file"`
	Name     string   `json:"name"`
	Pass     bool     `json:"pass"`
	Error    string   `json:"error,omitempty"`
	Expected []string `json:"expected"`
	Got      []string `json:"got"`
}

func caseJSON(r analyze.CaseResult) testCaseJSON {
	j := testCaseJSON{File: r.Case.File(), Name: r.Case.Name, Pass: r.Pass, Expected: []string{}, Got: []string{}}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	for _, e := range r.Expected {
		j.Expected = append(j.Expected, e.String())
	}
	for _, e := range r.Got {
		j.Got = append(j.Got, e.String())
	}
	return j
}
