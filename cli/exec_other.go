//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// execReplace runs the collector as a child (there is no exec here) with
// this process's standard streams, and ends with its exit status. Ctrl-C
// reaches the child from the console; this process only waits for it.
func execReplace(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.ExitCode()}
	}
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("run %s: %w", path, err)}
	}
	return nil
}
