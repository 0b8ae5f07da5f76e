// Package cli wires rwdiag's command line: the urfave/cli application, one
// file per command, exit codes, and the rendering of results.
//
// Run is the whole program; main only adds the signal handling and os.Exit.
// Results go to stdout and diagnostics to stderr. Exit codes: 0 fine, 1 a
// check failed (`bundle verify` found the bundle differs from its manifest),
// 2 a usage error or input that could not be read, 130 interrupted.
//
// The commands call into package bundle; they hold no logic of their own
// beyond parsing flags and printing.
package cli
