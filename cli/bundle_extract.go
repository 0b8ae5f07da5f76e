package cli

import (
	"fmt"

	"github.com/rwdiag/rwdiag/internal/english"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

func extractCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "extract",
		Usage:     "write a bundle's files under a directory, never outside it",
		UsageText: "rwdiag bundle extract [--max-entry-bytes SIZE] [--max-total-bytes SIZE] [--max-zstd-window SIZE] BUNDLE DIR",
		Description: "Writes every file of BUNDLE under DIR, creating DIR if needed, with any wrapping\n" +
			"top-level directory of the archive removed. Nothing is written outside DIR and no\n" +
			"existing file is overwritten (meeting one stops extraction). Blocks of zeros are\n" +
			"left as holes, so sparse entries stay sparse on disk. Refused entries (absolute\n" +
			"paths, '..', links, devices, second copies of a path, names too long to create)\n" +
			"and files cut by --max-entry-bytes are reported on stderr and skipped or kept in\n" +
			"part; extraction goes on.\n\n" +
			"Exit status: 0 every entry was extracted whole; 1 the rest was extracted but some\n" +
			"entries were refused or cut (as tar does); 2 damage, the total limit or a file in\n" +
			"the way stopped extraction (what was written before stays), or a usage error.\n\n" +
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
	res, err := bundle.ExtractAll(r, args[1])
	name, dir := termtext.Escape(r.Name(), termtext.Name), termtext.Escape(args[1], termtext.Name)
	for _, p := range res.Problems {
		fmt.Fprintf(c.App.ErrWriter, "rwdiag: %s: %s\n", name, termtext.Escape(p.Error(), termtext.Line))
	}
	w := c.App.Writer
	fmt.Fprintf(w, "extracted %d %s (%s) from %s to %s", res.Files, english.Plural(res.Files, "file", "files"), formatSize(res.Bytes), name, dir)
	if res.Holes > 0 {
		fmt.Fprintf(w, "; %s of it zeros, left as holes: sparse on disk", formatSize(res.Holes))
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(w, "; %d %s refused or cut (on stderr)", len(res.Problems), english.Plural(len(res.Problems), "entry", "entries"))
	}
	fmt.Fprintln(w)
	if err != nil {
		return inputError(fmt.Errorf("%s: extraction stopped: %w", r.Name(), err))
	}
	if len(res.Problems) > 0 {
		// As tar does: the rest is extracted, and the exit status says not all.
		return &exitError{code: exitFailed}
	}
	return nil
}
