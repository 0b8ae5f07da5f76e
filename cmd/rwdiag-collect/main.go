// Command rwdiag-collect is rwdiag with its collector linked in: it runs
// every rwdiag command, collect and bundle redact included. rwdiag (the
// analysis binary, at the repository's root) runs it for those two, so a
// release ships both side by side; installed as kubectl-rwdiag it is the
// kubectl plugin (`kubectl rwdiag collect`). See docs/cli.md.
package main

import (
	"github.com/rwdiag/rwdiag/cli"
	_ "github.com/rwdiag/rwdiag/cli/collector" // collect, bundle redact
)

func main() { cli.Main() }
