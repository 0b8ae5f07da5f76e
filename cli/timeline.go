package cli

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/analyze/report"
)

func timelineCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "timeline",
		Usage:     "put a bundle's logs, events, restarts, event log and metric moments on one line of time",
		UsageText: "rwdiag timeline [options] BUNDLE",
		Description: "Reads BUNDLE once and lists, oldest first: log lines at or above --min-level (of\n" +
			"current and crashed containers, text and JSON formats), Kubernetes events (first and\n" +
			"last seen, with their count), container terminations and restarts (pods.json), the\n" +
			"rows of RisingWave's event log (rw_event_logs), the streaming jobs being created\n" +
			"(rw_ddl_progress: when their backfill began), and the scrape at which each firing\n" +
			"rule's metric condition first held. Each entry names its source file and line.\n" +
			"Times are in UTC; a log line's own timestamp is preferred to kubectl's prefix.\n" +
			"See docs/timeline.md.\n\n" +
			"TIME is RFC 3339 (2026-11-29T20:15:00Z, 2026-11-29T21:15:00+01:00) or\n" +
			"'2026-11-29 20:15[:00]' in UTC.\n\n" +
			"Examples:\n" +
			"   rwdiag timeline samples/compound-incident\n" +
			"   rwdiag timeline bundle.tar.zst --since 2026-11-29T20:15:00Z --until '2026-11-29 20:25'\n" +
			"   rwdiag timeline bundle.tar.zst --pod 'rw-prod-compute-*' --min-level error\n" +
			"   rwdiag timeline --format json bundle.tar.zst | jq -r '.entries[] | select(.source == \"termination\") | .text'",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "since", Aliases: []string{"since-time"}, Usage: "leave out entries before `TIME` (a time, not a duration: the bundle's clock is not now)"},
			&ucli.StringFlag{Name: "until", Aliases: []string{"until-time"}, Usage: "leave out entries after `TIME`"},
			&ucli.StringFlag{Name: "pod", Usage: "keep only entries about pods matching `PATTERN` (a shell pattern: rw-compute-*)"},
			&ucli.StringFlag{Name: "min-level", Value: "warn", Usage: "leave out log lines below `LEVEL`: trace, debug, info, warn or error"},
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT`: table, json or markdown (default: table, or as -o's extension says: .json, .md)"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the timeline to `FILE` ('-' is stdout)"},
		}, append(append(ruleFlags(), layoutFlags()...), limitFlags()...)...),
		Action: runTimeline,
	}
}

func runTimeline(c *ucli.Context) error {
	args, err := exactArgs(c, "BUNDLE")
	if err != nil {
		return err
	}
	out := c.String("output")
	format, err := listFormat(c.String("format"), out)
	if err != nil {
		return usageError(c, "%v", err)
	}
	lay, err := decideLayout(c, c.App.Writer, out)
	if err != nil {
		return err
	}
	var topts analyze.TimelineOptions
	if topts.Since, err = parseTimeFlag(c.String("since")); err != nil {
		return usageError(c, "--since: %v", err)
	}
	if topts.Until, err = parseTimeFlag(c.String("until")); err != nil {
		return usageError(c, "--until: %v", err)
	}
	if !topts.Since.IsZero() && !topts.Until.IsZero() && topts.Until.Before(topts.Since) {
		return usageError(c, "--until %s is before --since %s", c.String("until"), c.String("since"))
	}
	if topts.MinLevel, err = parseLevelFlag(c.String("min-level")); err != nil {
		return usageError(c, "--min-level: %v", err)
	}
	if topts.Pod = c.String("pod"); topts.Pod != "" {
		if _, err := path.Match(topts.Pod, ""); err != nil {
			return usageError(c, "--pod %q: %v", topts.Pod, err)
		}
	}
	opts, err := readerOptions(c)
	if err != nil {
		return err
	}
	rs, err := loadRules(c)
	if err != nil {
		return err
	}
	rep, x, err := analyze.Investigate(c.Context, args[0], rs, opts, topts)
	if err != nil {
		return inputError(err)
	}
	if err := unreadable(rep.Bundle); err != nil {
		return err
	}
	if err := writeOutput(c, out, func(w io.Writer) error { return lay.report().WriteTimeline(w, x.Timeline, format) }); err != nil {
		return err
	}
	warnProblems(c, "", rep.Bundle.Problems)
	return stoppedEarly(rep.Bundle, "timeline")
}

// listFormat picks the format of a timeline or a diff: the flag, else -o's
// extension, else a table. HTML is the analyze report's alone.
func listFormat(flag, out string) (report.Format, error) {
	flag = strings.ToLower(strings.TrimSpace(flag))
	if flag == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".json":
			flag = "json"
		case ".md", ".markdown":
			flag = "markdown"
		case ".html", ".htm":
			flag = "html"
		default:
			flag = "table"
		}
	}
	switch f := report.Format(flag); f {
	case report.FormatTable, report.FormatJSON, report.FormatMarkdown:
		return f, nil
	case report.FormatHTML:
		return "", fmt.Errorf("no HTML form here (want table, json or markdown); 'rwdiag analyze -o report.html BUNDLE' writes the HTML report, which holds the whole timeline")
	}
	return "", fmt.Errorf("unknown format %q (want table, json or markdown)", flag)
}

// timeFlagLayouts are what --since and --until accept; those without a
// zone are UTC.
var timeFlagLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

func parseTimeFlag(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range timeFlagLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	if _, err := time.ParseDuration(s); err == nil {
		return time.Time{}, fmt.Errorf("%q is a duration; here a time is wanted (RFC 3339, e.g. 2026-11-29T20:15:00Z, or '2026-11-29 20:15' in UTC): a bundle is read long after it was collected, so 'the last 2h' has no meaning", s)
	}
	return time.Time{}, fmt.Errorf("%q is not a time (want RFC 3339, e.g. 2026-11-29T20:15:00Z, or '2026-11-29 20:15' in UTC)", s)
}

func parseLevelFlag(s string) (string, error) {
	switch l := strings.ToUpper(strings.TrimSpace(s)); l {
	case "TRACE", "DEBUG", "INFO", "WARN", "ERROR":
		return l, nil
	case "WARNING":
		return "WARN", nil
	}
	return "", fmt.Errorf("unknown level %q (want trace, debug, info, warn or error)", s)
}
