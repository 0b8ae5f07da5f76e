package cli_test

// The tests of this package run collect and bundle redact themselves, as
// the collector binary does: linking cli/collector registers them.
import _ "github.com/rwdiag/rwdiag/cli/collector"
