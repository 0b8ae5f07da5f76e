// Command rwdiag diagnoses RisingWave clusters on Kubernetes offline, from a
// bundle of what standard tools print. See README.md and docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rwdiag/rwdiag/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one kills as usual.
		<-ctx.Done()
		stop()
	}()
	os.Exit(cli.Run(ctx, os.Args, os.Stdout, os.Stderr))
}
