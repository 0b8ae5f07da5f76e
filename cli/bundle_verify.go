package cli

import (
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

func verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "verify",
		Usage:     "check every file of a bundle against the sizes and SHA-256 sums its manifest records",
		UsageText: "rwdiag bundle verify [--max-entry-bytes SIZE] [--max-total-bytes SIZE] [--max-zstd-window SIZE] BUNDLE",
		Description: "Reads the bundle once, hashing every file, and lists the files the manifest\n" +
			"records that are missing, the files it does not record (extra: listed, not a\n" +
			"failure), the files whose size or SHA-256 differ, and the problems met while\n" +
			"reading (refused entries, files over --max-entry-bytes, damage).\n\n" +
			"Exit status: 0 the bundle is what its manifest records; 1 something is missing,\n" +
			"mismatched or unreadable; 2 the bundle has no manifest (hand-made bundles\n" +
			"cannot be verified), its manifest cannot be decoded, or it cannot be opened.\n\n" +
			"Examples:\n" +
			"   rwdiag bundle verify rwdiag-prod-20261129T204300Z.tar.zst\n" +
			"   rwdiag bundle verify ./extracted-bundle && echo intact",
		Flags:  limitFlags(),
		Action: runVerify,
	}
}

func runVerify(c *ucli.Context) error {
	args, err := exactArgs(c, "BUNDLE")
	if err != nil {
		return err
	}
	r, err := openBundle(c, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	rep, err := bundle.Verify(r)
	if n := len(rep.Problems); err != nil && n > 0 && bundle.Fatal(rep.Problems[n-1]) {
		// Reading stopped before any manifest: say why, not only that none was read.
		return inputError(fmt.Errorf("%s: reading stopped before a manifest was read: %w", r.Name(), rep.Problems[n-1]))
	}
	if errors.Is(err, bundle.ErrNoManifest) {
		if nb := r.NotBundle(); nb != nil {
			return inputError(nb)
		}
		return inputError(fmt.Errorf("%s: %w", r.Name(), err))
	}
	if err != nil {
		return inputError(err)
	}
	// Paths and messages come from the bundle: escaped, one path a line.
	w := c.App.Writer
	name := func(s string) string { return termtext.Escape(s, termtext.Name) }
	fmt.Fprintf(w, "%s: checked %d files against %s (%d listed)\n", name(r.Name()), rep.Checked, bundle.ManifestPath, len(rep.Manifest.Files))
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "\nMissing: listed in the manifest, not in the bundle (%d)\n", len(rep.Missing))
		for _, p := range rep.Missing {
			fmt.Fprintf(w, "  %s\n", name(p))
		}
	}
	if len(rep.Mismatched) > 0 {
		fmt.Fprintf(w, "\nMismatched: not what the manifest records (%d)\n", len(rep.Mismatched))
		for _, m := range rep.Mismatched {
			fmt.Fprintf(w, "  %s\n", name(m.Path))
			fmt.Fprintf(w, "    size    want %d, got %d\n", m.WantSize, m.GotSize)
			fmt.Fprintf(w, "    sha256  want %s\n", name(m.WantSHA256))
			fmt.Fprintf(w, "            got  %s\n", m.GotSHA256)
		}
	}
	if len(rep.Extra) > 0 {
		fmt.Fprintf(w, "\nExtra: in the bundle, not in the manifest (%d; not a failure)\n", len(rep.Extra))
		for _, p := range rep.Extra {
			fmt.Fprintf(w, "  %s\n", name(p))
		}
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(w, "\nProblems met while reading (%d)\n", len(rep.Problems))
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %s\n", termtext.Escape(p.Error(), termtext.Line))
		}
	}
	if rep.OK() {
		fmt.Fprintln(w, "\nOK")
		return nil
	}
	fmt.Fprintln(w, "\nFAILED")
	return &exitError{exitFailed, fmt.Errorf("%s: verification failed: %d missing, %d mismatched, %d problems",
		r.Name(), len(rep.Missing), len(rep.Mismatched), len(rep.Problems))}
}
