package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
)

// The collector's commands, `collect` and `bundle redact`, live in package
// cli/collector, which links client-go, kubectl's describers and gitleaks.
// Go initialises every package a binary links before main runs: in one
// binary, every `rwdiag analyze` paid 15-20 ms of CPU and 50-60 MB of
// memory for a collector it never ran (docs/performance.md, "Start-up").
// So there are two executables built from this package:
//
//   - rwdiag (main.go at the repository's root) does not link the
//     collector; its collect and bundle redact run the collector binary,
//     passing the command line through unchanged;
//   - rwdiag-collect (cmd/rwdiag-collect) links it (cli/collector
//     registers itself here when imported) and runs every command itself.
//
// The collector binary is found as $RWDIAG_COLLECT, else next to rwdiag
// (where a release archive unpacks it), else on PATH.

// CollectorBinary is the collector executable's name.
const CollectorBinary = "rwdiag-collect"

// EnvCollector names the collector binary to run, when set.
const EnvCollector = "RWDIAG_COLLECT"

// envForwardedBy carries the version of the rwdiag that ran the collector,
// so that it can warn of a version skew (and rwdiag can refuse to run
// itself in a loop).
const envForwardedBy = "RWDIAG_FORWARDED_BY"

// Collector is the collector's part of the command line.
type Collector struct {
	Collect func() *ucli.Command // rwdiag collect
	Redact  func() *ucli.Command // rwdiag bundle redact
}

var collector *Collector

// RegisterCollector plugs the collector's commands in. Package
// cli/collector calls it when it is initialised.
func RegisterCollector(c Collector) { collector = &c }

// HasCollector says whether this binary runs collect itself.
func HasCollector() bool { return collector != nil }

const (
	collectUsage = "capture a RisingWave cluster on Kubernetes into a bundle, read-only"
	redactUsage  = "write a copy of a bundle with its secrets redacted again"
)

func collectCommand() *ucli.Command {
	if collector != nil {
		return collector.Collect()
	}
	return forwardCommand("collect", collectUsage)
}

func redactCommand() *ucli.Command {
	if collector != nil {
		return collector.Redact()
	}
	return forwardCommand("redact", redactUsage)
}

// forwardCommand is a command this binary hands to the collector binary,
// flags, arguments and --help included.
func forwardCommand(name, usage string) *ucli.Command {
	return &ucli.Command{
		Name:            name,
		Usage:           usage + " (runs " + CollectorBinary + ")",
		UsageText:       "see '" + CollectorBinary + " " + name + " --help'",
		SkipFlagParsing: true,
		Action:          forwardToCollector,
	}
}

// metaArgs keys the command line Run was given, for forwarding.
const metaArgs = "args"

// execCollector runs the collector binary at path with argv and env in this
// process's place (exec_unix.go), or as a child whose exit status becomes
// this one's (exec_other.go). A variable for the tests.
var execCollector = execReplace

func forwardToCollector(c *ucli.Context) error {
	if by := os.Getenv(envForwardedBy); by != "" {
		// The "collector" ran was another rwdiag without the collector.
		return &exitError{exitUsage, errors.New(inCommand(c, fmt.Sprintf("the %s that rwdiag %s ran has no collector either (it is an analysis-only rwdiag under the collector's name); install the %s of the same release", CollectorBinary, by, CollectorBinary)))}
	}
	path, err := findCollector()
	if err != nil {
		return &exitError{exitUsage, errors.New(inCommand(c, err.Error()))}
	}
	args, _ := c.App.Metadata[metaArgs].([]string)
	argv := append([]string{"rwdiag"}, args[1:]...)
	if len(args) > 0 {
		// The collector names itself in its help and messages by argv[0]:
		// as run, e.g. "rwdiag", or "kubectl-rwdiag" as a kubectl plugin.
		argv[0] = args[0]
	}
	env := append(os.Environ(), envForwardedBy+"="+versionString())
	return execCollector(path, argv, env)
}

// findCollector finds the collector binary: $RWDIAG_COLLECT, else next to
// this executable, else on PATH; never this executable itself.
func findCollector() (string, error) {
	if p := os.Getenv(EnvCollector); p != "" {
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("$%s: %w", EnvCollector, err)
		}
		if fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
			return "", fmt.Errorf("$%s: %s is not an executable file", EnvCollector, p)
		}
		return p, nil
	}
	name := CollectorBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, selfErr := os.Executable()
	var selfInfo os.FileInfo
	var beside string
	if selfErr == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		selfInfo, _ = os.Stat(self)
		beside = filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() && !sameFile(fi, selfInfo) {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if fi, err := os.Stat(p); err == nil && !sameFile(fi, selfInfo) {
			return p, nil
		}
	}
	where := "on PATH"
	if beside != "" {
		where = "at " + beside + " or on PATH"
	}
	return "", fmt.Errorf("this rwdiag is the analysis binary; collecting needs the collector, %s, which is not %s. "+
		"It comes in the same release archive as rwdiag; from a clone, build it with 'go build -o %s ./cmd/%s' "+
		"(or 'go install . ./cmd/%s' installs both); set $%s to its path if it lives elsewhere",
		CollectorBinary, where, CollectorBinary, CollectorBinary, CollectorBinary, EnvCollector)
}

func sameFile(a, b os.FileInfo) bool { return a != nil && b != nil && os.SameFile(a, b) }

// warnVersionSkew tells, when rwdiag ran this collector, that the two are
// of different versions: collect still works, but its bundle is the
// collector's format and rules, which the analysis binary may not know.
func warnVersionSkew(stderr io.Writer) {
	by := os.Getenv(envForwardedBy)
	if by == "" || collector == nil {
		return
	}
	os.Unsetenv(envForwardedBy)
	if v := versionString(); by != v {
		fmt.Fprintf(stderr, "rwdiag: warning: rwdiag %s ran %s %s: install both from the same release\n", by, CollectorBinary, v)
	}
}

// pluginName is the name kubectl gives a plugin's binary for `kubectl rwdiag`.
const pluginName = "kubectl-rwdiag"

// asKubectlPlugin renames the app when the binary runs as a kubectl plugin,
// so its help reads `kubectl rwdiag collect ...`.
func asKubectlPlugin(app *ucli.App, argv0 string) {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base != pluginName {
		return
	}
	app.Name = "kubectl rwdiag"
	app.HelpName = app.Name
	app.UsageText = pluginUsage(app.UsageText)
	app.Description = pluginUsage(app.Description)
	var rename func(cs []*ucli.Command)
	rename = func(cs []*ucli.Command) {
		for _, cmd := range cs {
			cmd.UsageText = pluginUsage(cmd.UsageText)
			cmd.Description = pluginUsage(cmd.Description)
			rename(cmd.Subcommands)
		}
	}
	rename(app.Commands)
}

// pluginUsage says "kubectl rwdiag" where a usage line or example says "rwdiag".
func pluginUsage(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " $")
		if strings.HasPrefix(trimmed, "rwdiag ") {
			lines[i] = l[:len(l)-len(trimmed)] + "kubectl " + trimmed
		}
	}
	return strings.Join(lines, "\n")
}

// What the collector's commands (package cli/collector) use of this
// package: the same usage errors, exit codes, sizes, times and rule and
// bundle flags as every other command.

// Exit codes.
const (
	ExitFailed      = exitFailed
	ExitUsage       = exitUsage
	ExitInterrupted = exitInterrupted
)

// ExitError ends the run with code, printing err when it is not nil.
func ExitError(code int, err error) error { return &exitError{code, err} }

// UsageError reports a command line that cannot be run.
func UsageError(c *ucli.Context, format string, args ...any) error {
	return usageError(c, format, args...)
}

// InputError reports input that could not be read; err names the file.
func InputError(err error) error { return inputError(err) }

// ExactArgs returns the command's arguments when there are as many as names.
func ExactArgs(c *ucli.Context, names ...string) ([]string, error) { return exactArgs(c, names...) }

// FinishOnInterrupt tells Run that the command writes what it has when
// interrupted, and must be waited for.
func FinishOnInterrupt(c *ucli.Context) { finishOnInterrupt(c) }

// ParseSize reads a size such as 20MiB; FormatSize writes one.
func ParseSize(s string) (int64, error) { return parseSize(s) }

// FormatSize writes a byte count as ParseSize reads it.
func FormatSize(n int64) string { return formatSize(n) }

// ParseTimeFlag reads a time flag (RFC 3339, or '2026-11-29 20:15' in UTC).
func ParseTimeFlag(s string) (time.Time, error) { return parseTimeFlag(s) }

// VersionString is this build's version.
func VersionString() string { return versionString() }

// RuleFlags are --rules, --disable and --no-builtin; LoadRules loads what
// they choose.
func RuleFlags() []ucli.Flag { return ruleFlags() }

// LoadRules loads the rules the command's rule flags choose.
func LoadRules(c *ucli.Context) ([]*analyze.Rule, error) { return loadRules(c) }

// LimitFlags are the bundle reader's limits (--max-entry-bytes, ...).
func LimitFlags() []ucli.Flag { return limitFlags() }

// ReaderOptions are the bundle reader's options the limit flags set.
func ReaderOptions(c *ucli.Context) (bundle.Options, error) { return readerOptions(c) }

// OpenBundle opens the bundle name with the limit flags' options.
func OpenBundle(c *ucli.Context, name string) (*bundle.Reader, error) { return openBundle(c, name) }
