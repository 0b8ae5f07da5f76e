//go:build nocollect

package cli

import (
	"errors"

	ucli "github.com/urfave/cli/v2"
)

// An analysis-only build: `go build -tags nocollect` leaves out the collector
// (cli/collect.go, cli/bundle_redact.go and the collect package with
// client-go, kubectl's describers and gitleaks), whose package initialisation
// every run of the full binary pays for: a 25 MB binary instead of 95 MB that
// starts in a third of the CPU time and half the memory (docs/performance.md,
// "Start-up"). collect and bundle redact stay listed, and say what to use.

var errNoCollector = errors.New("this rwdiag was built without the collector (-tags nocollect); use the full rwdiag binary")

func collectCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "collect",
		Usage:  "capture a RisingWave cluster on Kubernetes into a bundle (not in this build)",
		Action: func(*ucli.Context) error { return &exitError{exitUsage, errNoCollector} },
	}
}

func redactCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "redact",
		Usage:  "write a copy of a bundle with its secrets redacted again (not in this build)",
		Action: func(*ucli.Context) error { return &exitError{exitUsage, errNoCollector} },
	}
}

// asKubectlPlugin: the analysis-only build is not installed as a kubectl
// plugin, whose point is collect.
func asKubectlPlugin(*ucli.App, string) {}
