package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
)

// Version is rwdiag's version, set at build time with
//
//	go build -ldflags "-X github.com/rwdiag/rwdiag/cli.Version=v0.1.0"
//
// When it is empty, the version comes from the build information: the module
// version, else the VCS revision.
var Version string

func versionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "version",
		Usage:     "print rwdiag's version, the Go version it was built with and the bundle format it reads",
		UsageText: "rwdiag version",
		Description: "Example:\n" +
			"   $ rwdiag version\n" +
			"   rwdiag v0.1.0\n" +
			"   go go1.26.8 linux/amd64\n" +
			"   bundle format 1",
		Action: func(c *ucli.Context) error {
			if _, err := exactArgs(c); err != nil {
				return err
			}
			printVersion(c.App.Writer)
			return nil
		},
	}
}

// printVersion writes what `rwdiag version` and `rwdiag --version` print.
func printVersion(w io.Writer) {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintf(w, "rwdiag %s\n", resolveVersion(Version, info, ok))
	fmt.Fprintf(w, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "bundle format %d\n", bundle.FormatVersion)
}

// resolveVersion picks the version to report: the one set at build time,
// else the module's, else "devel" with the VCS revision when there is one.
func resolveVersion(set string, info *debug.BuildInfo, ok bool) string {
	if set != "" {
		return set
	}
	if !ok || info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel+" + rev[:min(len(rev), 12)]
	if modified {
		v += "-dirty"
	}
	return v
}

// versionString is this binary's version, as `rwdiag version` prints it.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	return resolveVersion(Version, info, ok)
}
