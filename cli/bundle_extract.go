package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
)

func extractCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "extract",
		Usage:     "write a bundle's files under a directory, never outside it",
		UsageText: "rwdiag bundle extract [--max-entry-bytes SIZE] [--max-total-bytes SIZE] BUNDLE DIR",
		Description: "Writes every file of BUNDLE under DIR, creating DIR if needed, with any wrapping\n" +
			"top-level directory of the archive removed. Nothing is written outside DIR and no\n" +
			"existing file is overwritten. Refused entries (absolute paths, '..', links,\n" +
			"devices) and files cut by --max-entry-bytes are reported on stderr and skipped or\n" +
			"kept in part; extraction goes on. Damage ends it with exit status 2, leaving what\n" +
			"was written before.\n\n" +
			"Examples:\n" +
			"   rwdiag bundle extract rwdiag-prod-20261129T204300Z.tar.zst ./prod\n" +
			"   rwdiag bundle extract --max-total-bytes 200GiB big.tar.zst /scratch/big",
		Flags:  limitFlags(),
		Action: runExtract,
	}
}

func runExtract(c *ucli.Context) error {
	args, err := exactArgs(c, "BUNDLE", "DIR")
	if err != nil {
		return err
	}
	r, err := openBundle(c, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	files, problems, err := bundle.Extract(r, args[1])
	for _, p := range problems {
		fmt.Fprintf(c.App.ErrWriter, "rwdiag: %s: %v\n", r.Name(), p)
	}
	fmt.Fprintf(c.App.Writer, "extracted %d files from %s to %s", files, r.Name(), args[1])
	if len(problems) > 0 {
		fmt.Fprintf(c.App.Writer, " (%d problems, on stderr)", len(problems))
	}
	fmt.Fprintln(c.App.Writer)
	if err != nil {
		return inputError(fmt.Errorf("%s: extraction stopped: %w", r.Name(), err))
	}
	return nil
}
