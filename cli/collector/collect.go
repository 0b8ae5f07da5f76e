// Package collector is rwdiag's collector on the command line: collect and
// bundle redact. It links client-go, kubectl's describers and gitleaks, so
// only the collector binary (cmd/rwdiag-collect) imports it; importing it
// registers its commands with package cli, and the analysis binary
// (rwdiag) runs that binary for them instead (cli/collector.go).
package collector

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/cli"
	"github.com/rwdiag/rwdiag/collect"
)

func init() {
	cli.RegisterCollector(cli.Collector{Collect: collectCommand, Redact: redactCommand})
}

func collectCommand() *ucli.Command {
	d := collect.DefaultOptions()
	return &ucli.Command{
		Name:      "collect",
		Usage:     "capture a RisingWave cluster on Kubernetes into a bundle, read-only",
		UsageText: "rwdiag collect [-n NAMESPACE] [--context CONTEXT] [-o FILE] [options]",
		Description: "Reads a RisingWave cluster through the Kubernetes API and writes a bundle (see\n" +
			"docs/bundle-format.md) that 'rwdiag analyze' reads anywhere, offline:\n" +
			"\n" +
			"  - pods, events, nodes, statefulsets, deployments, services, PVCs, configmaps and\n" +
			"    RisingWave resources as 'kubectl get -o json' prints them; secrets are never read;\n" +
			"  - 'kubectl describe pod' of every RisingWave pod;\n" +
			"  - the logs of every container, current and previous, newest lines first to keep\n" +
			"    within --log-bytes and --log-budget, unhealthy pods first;\n" +
			"  - --metrics-samples scrapes of every pod's metrics port, and the meta dashboard's\n" +
			"    diagnose report and await-tree dump, through the API server's pod proxy (no\n" +
			"    network path to the pods is needed);\n" +
			"  - rw_catalog, SHOW PARAMETERS, SHOW JOBS and EXPLAINs over SQL (--sql-dsn, or the\n" +
			"    frontend Service, which is reachable only from inside the cluster or a VPN);\n" +
			"  - with --prometheus, the history of the metrics the rules use.\n" +
			"\n" +
			"RisingWave pods are found by the operator's and the helm chart's labels\n" +
			"(risingwave/component, risingwave.risingwavelabs.com/component), or --selector.\n" +
			"It only reads: get, list and the log and proxy subresources (docs/rbac.yaml is the\n" +
			"Role to grant), and SQL in READ ONLY transactions. Every call has a timeout and\n" +
			"the run a deadline; a step that fails (forbidden, pod gone, SQL refused) is\n" +
			"recorded in the bundle's manifest and the run goes on. Ctrl-C or --timeout still\n" +
			"writes a valid bundle, marked incomplete. Secrets in env values, configmaps, SQL\n" +
			"definitions and logs are replaced by tokens unless --no-redact.\n" +
			"\n" +
			"The bundle's path is printed on stdout; progress (on a terminal) and the summary of\n" +
			"what is missing, and why, on stderr. As a kubectl plugin (installed as\n" +
			"kubectl-rwdiag) it runs as 'kubectl rwdiag collect'.\n" +
			"\n" +
			"Exit status: 0 the bundle is written (failed steps are listed); 1 it is written but\n" +
			"incomplete because --timeout passed; 2 usage error, no usable kubeconfig, or no\n" +
			"bundle could be written; 130 interrupted (the bundle is still written).\n" +
			"\n" +
			"Examples:\n" +
			"   rwdiag collect -n risingwave\n" +
			"   rwdiag collect -n rw --context prod-eu -o /tmp/incident-4711.tar.zst\n" +
			"   kubectl port-forward -n rw svc/rw-frontend 4567 &\n" +
			"   rwdiag collect -n rw --sql-dsn postgres://root@localhost:4567/dev\n" +
			"   rwdiag collect -n rw --selector risingwave/name=rw-prod --since 2h --log-bytes 20MiB\n" +
			"   rwdiag collect -n rw --prometheus http://prometheus.monitoring:9090 --range 12h\n" +
			"   rwdiag collect -n rw --skip sql,metrics --timeout 3m -o - | ssh support@example.com 'cat > b.tar.zst'\n" +
			"   kubectl rwdiag collect -n rw",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "the `NAMESPACE` RisingWave runs in (default: the context's)"},
			&ucli.StringFlag{Name: "context", Usage: "the kubeconfig `CONTEXT` to use (default: the current one)"},
			&ucli.StringFlag{Name: "kubeconfig", Usage: "the kubeconfig `FILE` (default: $KUBECONFIG, ~/.kube/config, then the in-cluster service account)"},
			&ucli.StringFlag{Name: "selector", Aliases: []string{"l"}, Usage: "label `SELECTOR` of the RisingWave pods, instead of the operator's and helm's labels"},
			&ucli.StringFlag{Name: "since", Value: d.Since.String(), Usage: "logs of the last `DURATION` only (0: all); a TIME is taken as --since-time"},
			&ucli.StringFlag{Name: "since-time", Usage: "logs since `TIME` only (RFC 3339, or '2026-11-29 20:15' in UTC), as kubectl logs --since-time"},
			&ucli.StringFlag{Name: "log-bytes", Value: cli.FormatSize(d.LogBytes), Usage: "keep at most `SIZE` of each log, its newest lines"},
			&ucli.StringFlag{Name: "log-budget", Value: cli.FormatSize(d.LogBudget), Usage: "keep at most `SIZE` of logs in all, unhealthy pods first"},
			&ucli.IntFlag{Name: "metrics-samples", Value: d.MetricsSamples, Usage: "scrape each pod's metrics port `N` times (0: never)"},
			&ucli.DurationFlag{Name: "metrics-interval", Value: d.MetricsInterval, Usage: "`DURATION` between scrapes"},
			&ucli.StringFlag{Name: "sql-dsn", Usage: "the frontend's Postgres `DSN`, e.g. postgres://root@localhost:4567/dev (default: the frontend Service, reachable only in the cluster; PGPASSWORD is honoured)"},
			&ucli.StringFlag{Name: "prometheus", Usage: "read the history of the metrics the rules use from the Prometheus at `URL` (its query string, such as a proxy's token, is sent with every request and masked wherever the URL is recorded)"},
			&ucli.DurationFlag{Name: "range", Value: d.PrometheusRange, Usage: "how far back --prometheus reads (`DURATION`)"},
			&ucli.DurationFlag{Name: "timeout", Value: d.Timeout, Usage: "deadline of the whole run (`DURATION`); the bundle is written when it passes"},
			&ucli.DurationFlag{Name: "call-timeout", Value: d.CallTimeout, Usage: "deadline of each call (`DURATION`); a log stream may run longer while bytes arrive"},
			&ucli.IntFlag{Name: "concurrency", Value: d.Concurrency, Usage: "at most `N` calls at once"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the bundle to `FILE` ('-' is stdout; a directory gets the default name inside) (default: rwdiag-<cluster>-<UTC time>.tar.zst)"},
			&ucli.BoolFlag{Name: "no-redact", Usage: "do not redact secrets: the bundle may then hold passwords, tokens and keys"},
			&ucli.StringFlag{Name: "redact-config", Usage: "also redact what the patterns in `FILE` match"},
			&ucli.BoolFlag{Name: "report", Usage: "after the summary, list per file how many values of which class were replaced (the manifest's redaction.files)"},
			&ucli.StringSliceFlag{Name: "skip", Usage: "do not collect `STEP`: " + strings.Join(collect.SkippableSteps, ", ") + " (repeatable, or comma-separated)"},
		}, cli.RuleFlags()...),
		Action: runCollect,
	}
}

func runCollect(c *ucli.Context) error {
	if _, err := cli.ExactArgs(c); err != nil {
		return err
	}
	opts := collect.DefaultOptions()
	opts.Namespace = c.String("namespace")
	opts.Context = c.String("context")
	opts.Kubeconfig = c.String("kubeconfig")
	opts.Selector = c.String("selector")
	if c.IsSet("since") && c.IsSet("since-time") {
		return cli.UsageError(c, "give --since or --since-time, not both")
	}
	since, err := parseSince(c.String("since"), c.String("since-time"), time.Now())
	if err != nil {
		return cli.UsageError(c, "%v", err)
	}
	opts.Since = since
	opts.MetricsSamples = c.Int("metrics-samples")
	opts.MetricsInterval = c.Duration("metrics-interval")
	opts.SQLDSN = c.String("sql-dsn")
	opts.PrometheusURL = c.String("prometheus")
	opts.PrometheusRange = c.Duration("range")
	opts.Timeout = c.Duration("timeout")
	opts.CallTimeout = c.Duration("call-timeout")
	opts.Concurrency = c.Int("concurrency")
	opts.NoRedact = c.Bool("no-redact")
	opts.RedactConfig = c.String("redact-config")
	opts.ToolVersion = cli.VersionString()
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"log-bytes", &opts.LogBytes}, {"log-budget", &opts.LogBudget}} {
		n, err := cli.ParseSize(c.String(f.name))
		if err != nil {
			return cli.UsageError(c, "--%s: %v", f.name, err)
		}
		*f.dst = n
	}
	for _, s := range c.StringSlice("skip") {
		for _, step := range strings.Split(s, ",") {
			if step = strings.TrimSpace(step); step != "" {
				opts.Skip = append(opts.Skip, step)
			}
		}
	}
	if opts.NoRedact && opts.RedactConfig != "" {
		return cli.UsageError(c, "--redact-config and --no-redact: choose one")
	}
	if opts.NoRedact && c.Bool("report") {
		return cli.UsageError(c, "--report and --no-redact: nothing is redacted, so there is nothing to report")
	}
	if opts.PrometheusURL != "" {
		rs, err := cli.LoadRules(c)
		if err != nil {
			return err
		}
		opts.PrometheusMetrics = analyze.MetricNamesOf(rs)
	} else {
		for _, f := range []string{"rules", "disable", "no-builtin"} {
			if c.IsSet(f) {
				return cli.UsageError(c, "--%s chooses the metrics --prometheus reads: it needs --prometheus", f)
			}
		}
	}
	if err := checkArchiveName(c.String("output")); err != nil {
		return cli.UsageError(c, "%v", err)
	}
	if err := findKubeconfig(opts.Kubeconfig); err != nil {
		return cli.ExitError(cli.ExitUsage, err)
	}
	toStdout := c.String("output") == "-"
	opts.Output = c.String("output")
	if toStdout {
		if f, ok := c.App.Writer.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			return cli.UsageError(c, "-o -: stdout is a terminal; redirect it to a file or a pipe")
		}
		dir, err := os.MkdirTemp("", "rwdiag-collect-")
		if err != nil {
			return cli.ExitError(cli.ExitUsage, err)
		}
		defer os.RemoveAll(dir)
		opts.Output = dir
	}

	stderr := c.App.ErrWriter
	if opts.NoRedact {
		fmt.Fprintln(stderr, "rwdiag: WARNING: --no-redact: secrets are NOT redacted; the bundle may hold passwords, tokens and keys. Do not share it outside your organisation.")
	}
	var bar *collect.Bar
	var progress collect.Progress
	if f, ok := stderr.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		bar = collect.NewBar(stderr)
		progress = bar
	}
	// From here an interruption writes the bundle rather than quitting.
	cli.FinishOnInterrupt(c)
	res, err := collect.Run(c.Context, opts, progress)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return cli.ExitError(cli.ExitUsage, fmt.Errorf("collect: %w", err))
	}
	res.WriteSummary(stderr)
	if c.Bool("report") {
		fmt.Fprintln(stderr, "\nRedacted, per file: how many values of which class were replaced")
		if err := collect.WriteRedactionReport(stderr, collect.FileReport(res.Manifest.Redaction), collect.ReportTable); err != nil {
			return cli.ExitError(cli.ExitUsage, err)
		}
	}
	if toStdout {
		if err := copyFile(c.App.Writer, res.Path); err != nil {
			return cli.ExitError(cli.ExitUsage, fmt.Errorf("collect: write the bundle to stdout: %w", err))
		}
	} else {
		fmt.Fprintln(c.App.Writer, res.Path)
	}
	switch m := res.Manifest; {
	case m.Complete:
		return nil
	case c.Context.Err() != nil:
		return cli.ExitError(cli.ExitInterrupted, nil)
	default:
		return cli.ExitError(cli.ExitFailed, errors.New("collect: the bundle is incomplete: "+m.IncompleteReason))
	}
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// parseSince reads collect's --since and --since-time (which wins; the
// caller refuses both set) into the duration of logs to keep: --since is a
// DURATION, or a TIME (as --since-time); a TIME
// becomes the time from it to now, rounded up to the second.
func parseSince(since, sinceTime string, now time.Time) (time.Duration, error) {
	at := sinceTime
	if at == "" {
		d, err := time.ParseDuration(strings.TrimSpace(since))
		if err == nil {
			if d < 0 {
				return 0, fmt.Errorf("--since %s: a duration may not be negative", since)
			}
			return d, nil
		}
		if _, terr := cli.ParseTimeFlag(since); terr != nil {
			return 0, fmt.Errorf("--since %q: want a duration (2h, 90m, 0 for all) or a time (2026-11-29T20:15:00Z, as --since-time)", since)
		}
		at = since
	}
	t, err := cli.ParseTimeFlag(at)
	if err != nil {
		return 0, fmt.Errorf("--since-time: %v", err)
	}
	if !t.Before(now) {
		return 0, fmt.Errorf("--since-time %s is not in the past", at)
	}
	return now.Sub(t).Truncate(time.Second) + time.Second, nil
}

// checkArchiveName refuses an -o FILE whose name says an archive format a
// bundle is not written in.
func checkArchiveName(out string) error {
	lower := strings.ToLower(out)
	for _, ext := range []string{".zip", ".7z", ".rar", ".xz", ".bz2", ".lz4", ".tar.xz", ".tar.bz2"} {
		if strings.HasSuffix(lower, ext) {
			return fmt.Errorf("-o %s: a bundle is written as tar.zst (or tar.gz or tar, when the name ends so), not %s: name it .tar.zst", out, strings.TrimPrefix(ext, "."))
		}
	}
	return nil
}

// findKubeconfig fails, naming every place it looked, when there is no
// kubeconfig to read: --kubeconfig, $KUBECONFIG, ~/.kube/config, or the
// in-cluster service account. client-go's own message speaks of
// KUBERNETES_MASTER, which nobody sets.
func findKubeconfig(flag string) error {
	if flag != "" {
		return nil // client-go names the file when it cannot read it
	}
	var looked []string
	if env := os.Getenv("KUBECONFIG"); env != "" {
		for _, p := range filepath.SplitList(env) {
			if _, err := os.Stat(p); err == nil {
				return nil
			}
		}
		looked = append(looked, fmt.Sprintf("$KUBECONFIG (%s: no such file)", env))
	} else {
		looked = append(looked, "$KUBECONFIG (not set)")
		home, err := os.UserHomeDir()
		if err == nil {
			p := filepath.Join(home, ".kube", "config")
			if _, err := os.Stat(p); err == nil {
				return nil
			}
			looked = append(looked, p+" (no such file)")
		} else {
			looked = append(looked, "~/.kube/config (no home directory)")
		}
	}
	const token = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		if _, err := os.Stat(token); err == nil {
			return nil
		}
		looked = append(looked, "the in-cluster service account ("+token+": no such file)")
	} else {
		looked = append(looked, "the in-cluster service account (not running in a pod: KUBERNETES_SERVICE_HOST not set)")
	}
	return fmt.Errorf("collect: no kubeconfig found; looked at %s. Give --kubeconfig FILE, set KUBECONFIG, or run where kubectl works", strings.Join(looked, ", "))
}
