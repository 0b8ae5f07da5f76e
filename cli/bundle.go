package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
)

func bundleCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "bundle",
		Usage:     "inspect, verify, extract or redact a bundle without analysing it",
		UsageText: "rwdiag bundle command [command options] BUNDLE [arguments...]",
		Description: "BUNDLE is a directory, or a tar, tar.zst or tar.gz archive told apart by its\n" +
			"first bytes, not its name. The archive is read in one streaming pass; nothing is\n" +
			"extracted to disk unless you ask for it with 'bundle extract'.\n\n" +
			"Examples:\n" +
			"   rwdiag bundle inspect samples/oom-crash-loop\n" +
			"   rwdiag bundle verify rwdiag-prod-20261129T204300Z.tar.zst\n" +
			"   rwdiag bundle extract rwdiag-prod-20261129T204300Z.tar.zst ./prod\n" +
			"   rwdiag bundle redact samples/handmade-minimal handmade-redacted.tar.zst",
		Subcommands: []*ucli.Command{inspectCommand(), verifyCommand(), extractCommand(), redactCommand()},
		Action:      requireCommand,
	}
}

// The flags every bundle-reading command takes. They are also global flags,
// given before the command; given in both places, the command's wins.
const (
	flagMaxEntryBytes = "max-entry-bytes"
	flagMaxTotalBytes = "max-total-bytes"
	flagMaxZstdWindow = "max-zstd-window"
)

func limitFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{
			Name:        flagMaxEntryBytes,
			Usage:       "read at most `SIZE` uncompressed bytes of any one file (e.g. 512MiB, 8GiB, 1000000)",
			DefaultText: formatSize(bundle.DefaultMaxEntryBytes),
		},
		&ucli.StringFlag{
			Name:        flagMaxTotalBytes,
			Usage:       "stop after `SIZE` uncompressed bytes in all: the guard against decompression bombs",
			DefaultText: formatSize(bundle.DefaultMaxTotalBytes),
		},
		&ucli.StringFlag{
			Name:        flagMaxZstdWindow,
			Usage:       "read a tar.zst whose zstd window is up to `SIZE` (zstd --long=31 writes 2GiB); decoding takes that much memory",
			DefaultText: formatSize(bundle.DefaultMaxZstdWindow),
		},
	}
}

// readerOptions reads the limit flags, from the command or else from before it.
func readerOptions(c *ucli.Context) (bundle.Options, error) {
	var opts bundle.Options
	var window int64
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{flagMaxEntryBytes, &opts.MaxEntryBytes},
		{flagMaxTotalBytes, &opts.MaxTotalBytes},
		{flagMaxZstdWindow, &window},
	} {
		for _, lc := range c.Lineage() {
			if !lc.IsSet(f.name) {
				continue
			}
			n, err := parseSize(lc.String(f.name))
			if err != nil {
				return opts, usageError(c, "--%s: %v", f.name, err)
			}
			*f.dst = n
			break
		}
	}
	opts.MaxZstdWindow = uint64(window)
	return opts, nil
}

// openBundle opens the bundle at name with the limits the flags set.
func openBundle(c *ucli.Context, name string) (*bundle.Reader, error) {
	opts, err := readerOptions(c)
	if err != nil {
		return nil, err
	}
	r, err := bundle.Open(name, opts)
	if err != nil {
		return nil, inputError(err)
	}
	return r, nil
}
