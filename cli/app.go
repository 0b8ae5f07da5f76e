package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/internal/termtext"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // a check failed: verify found differences
	exitUsage       = 2   // a usage error, or input that could not be read
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// exitError is an error that ends the run with a given exit code. An
// exitError with no err ends it quietly: the command has said everything.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError reports a command line that cannot be run, and where its help is.
func usageError(c *ucli.Context, format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf("%s\nRun '%s --help' for usage.",
		inCommand(c, fmt.Sprintf(format, args...)), commandName(c))}
}

// inCommand prefixes msg with the subcommand it is about, e.g. "bundle inspect: ".
func inCommand(c *ucli.Context, msg string) string {
	name := commandName(c)
	if sub := strings.TrimPrefix(name, c.App.Name+" "); sub != name {
		return sub + ": " + msg
	}
	return msg
}

// inputError reports input that could not be read; err names the file.
func inputError(err error) error { return &exitError{exitUsage, err} }

// commandName is the command's full name, e.g. "rwdiag bundle inspect".
func commandName(c *ucli.Context) string {
	if c.Command != nil && c.Command.HelpName != "" {
		return c.Command.HelpName
	}
	return c.App.Name
}

// Run runs rwdiag with args (os.Args: the program name first) and returns the
// exit code. When ctx is cancelled before the command finishes, Run returns
// exitInterrupted at once, and the caller is expected to exit; a command
// that called finishOnInterrupt (collect) is waited for instead, since it
// writes what it has. Run as kubectl-rwdiag, the app calls itself
// "kubectl rwdiag". Without the collector linked in (cli/collector.go),
// collect and bundle redact run the collector binary instead.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	if len(args) > 0 {
		asKubectlPlugin(app, args[0])
	}
	app.Metadata[metaArgs] = args
	warnVersionSkew(stderr)
	args = interspersed(app, args)
	done := make(chan error, 1)
	go func() { done <- app.RunContext(ctx, args) }()
	select {
	case err := <-done:
		return exitCode(err, stderr)
	case <-ctx.Done():
		if finishing, _ := app.Metadata[metaFinishing].(*atomic.Bool); finishing != nil && finishing.Load() {
			fmt.Fprintln(stderr, "rwdiag: interrupted: writing what was collected (interrupt again to quit at once)")
			return exitCode(<-done, stderr)
		}
		fmt.Fprintln(stderr, "rwdiag: interrupted")
		return exitInterrupted
	}
}

// metaFinishing keys the app's flag that the running command finishes its
// work when interrupted.
const metaFinishing = "finish-on-interrupt"

// finishOnInterrupt tells Run that the command handles an interruption
// itself and must be waited for.
func finishOnInterrupt(c *ucli.Context) {
	if f, ok := c.App.Metadata[metaFinishing].(*atomic.Bool); ok {
		f.Store(true)
	}
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	// Messages name files and entries a bundle chose: escaped, so that they
	// cannot act on the terminal.
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "rwdiag: %s\n", termtext.Escape(ee.err.Error(), termtext.Lines))
		}
		return ee.code
	}
	// Anything else comes from urfave/cli itself: a usage error.
	fmt.Fprintf(stderr, "rwdiag: %s\n", termtext.Escape(err.Error(), termtext.Lines))
	return exitUsage
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	app := &ucli.App{
		Name:  "rwdiag",
		Usage: "diagnose a RisingWave cluster on Kubernetes offline, from a bundle",
		Description: "rwdiag collect captures a RisingWave cluster, read-only and redacted, into a bundle:\n" +
			"a directory or a tar, tar.zst or tar.gz archive of what kubectl, curl and psql print\n" +
			"about it (see docs/bundle-format.md). rwdiag analyze reads a bundle anywhere, offline,\n" +
			"and reports what went wrong, with evidence and remedies.\n\n" +
			"Examples:\n" +
			"   rwdiag collect -n risingwave\n" +
			"   rwdiag analyze samples/compound-incident\n" +
			"   rwdiag timeline --min-level warn samples/compound-incident\n" +
			"   rwdiag bundle inspect samples/handmade-minimal\n" +
			"   rwdiag bundle verify rwdiag-prod-20261129T204300Z.tar.zst\n" +
			"   rwdiag --max-total-bytes 200GiB bundle extract big.tar.zst ./big\n" +
			"   rwdiag version",
		UsageText:      "rwdiag [global options] command [command options] [arguments...]",
		Writer:         stdout,
		ErrWriter:      stderr,
		HideVersion:    true,
		Flags:          append(limitFlags(), &ucli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version, as 'rwdiag version' does"}),
		ExitErrHandler: func(*ucli.Context, error) {}, // Run maps errors to exit codes; nothing here may os.Exit
		Action:         requireCommand,
		Commands:       []*ucli.Command{collectCommand(), analyzeCommand(), timelineCommand(), diffCommand(), rulesCommand(), sqlCommand(), bundleCommand(), versionCommand(), completionCommand()},
		Metadata:       map[string]any{metaFinishing: new(atomic.Bool)},
		// Words for the shell completion scripts (rwdiag completion).
		EnableBashCompletion: true,
	}
	app.OnUsageError = onUsageError
	for _, c := range app.Commands {
		setUsageErrors(c)
	}
	return app
}

// requireCommand is the action of a command that only holds subcommands: it
// runs when none was named, or an unknown one was.
func requireCommand(c *ucli.Context) error {
	if commandName(c) == c.App.Name && c.Bool("version") && !c.Args().Present() {
		printVersion(c.App.Writer)
		return nil
	}
	if c.Args().Present() {
		cmds := c.App.Commands
		if c.Command != nil && c.Command.Name != "" {
			cmds = c.Command.Subcommands
		}
		got := c.Args().First()
		return usageError(c, "unknown command %q%s", got, didYouMean(got, commandNames(cmds)))
	}
	// Help on stderr: the user asked for nothing, so this is a diagnostic.
	w := c.App.Writer
	c.App.Writer = c.App.ErrWriter
	defer func() { c.App.Writer = w }()
	if commandName(c) != c.App.Name {
		_ = ucli.ShowSubcommandHelp(c)
	} else {
		_ = ucli.ShowAppHelp(c)
	}
	return &exitError{exitUsage, errors.New(inCommand(c, "a command is required"))}
}

func onUsageError(c *ucli.Context, err error, _ bool) error {
	return usageError(c, "%s", suggestFlag(c, err))
}

func setUsageErrors(c *ucli.Command) {
	c.OnUsageError = onUsageError
	for _, sc := range c.Subcommands {
		setUsageErrors(sc)
	}
}

// exactArgs returns the command's arguments when there are as many as names,
// and a usage error naming what is missing or extra otherwise.
func exactArgs(c *ucli.Context, names ...string) ([]string, error) {
	args := c.Args().Slice()
	switch {
	case len(args) < len(names):
		return nil, usageError(c, "missing %s", strings.Join(names[len(args):], " "))
	case len(args) > len(names):
		extra := args[len(names)]
		if strings.HasPrefix(extra, "-") {
			return nil, usageError(c, "flag %s is missing its value (or stands after --)", extra)
		}
		return nil, usageError(c, "unexpected argument %q", extra)
	}
	return args, nil
}

// Main runs rwdiag on the process's command line and exits with its status.
// The first SIGINT or SIGTERM cancels the run (Run); a second one kills as
// usual.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	os.Exit(Run(ctx, os.Args, os.Stdout, os.Stderr))
}
