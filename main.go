// Command rwdiag diagnoses RisingWave clusters on Kubernetes offline, from a
// bundle of what standard tools print. See README.md and docs/cli.md.
//
// This is the analysis binary: it does not link the collector (client-go,
// kubectl's describers, gitleaks), so that analysing a bundle does not pay
// for it. Its collect and bundle redact run the collector binary,
// rwdiag-collect (cmd/rwdiag-collect), found next to it or on PATH.
package main

import "github.com/rwdiag/rwdiag/cli"

func main() { cli.Main() }
