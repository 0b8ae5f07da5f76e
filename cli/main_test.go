package cli

import (
	"context"
	"os"
	"testing"
)

// TestMain lets a test run this test binary as rwdiag itself, in a child
// process: with RWDIAG_TEST_RUN_CLI=1 it runs the CLI on its arguments and
// exits, so no separate build is needed.
func TestMain(m *testing.M) {
	if os.Getenv("RWDIAG_TEST_RUN_CLI") == "1" {
		os.Exit(Run(context.Background(), append([]string{"rwdiag"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
