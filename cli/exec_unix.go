//go:build unix

package cli

import (
	"fmt"
	"syscall"
)

// execReplace runs the collector in this process's place: its exit status,
// signals (Ctrl-C lets it write what it has) and terminal are the user's.
func execReplace(path string, argv, env []string) error {
	err := syscall.Exec(path, argv, env)
	return &exitError{exitUsage, fmt.Errorf("run %s: %w", path, err)}
}
