package collector

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rwdiag/rwdiag/internal/english"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/cli"
	"github.com/rwdiag/rwdiag/collect"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

func redactCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "redact",
		Usage:     "write a copy of a bundle with its secrets redacted again",
		UsageText: "rwdiag bundle redact [--report] [--report-format FORMAT] [--redact-config FILE] [--max-entry-bytes SIZE] [--max-total-bytes SIZE] IN OUT",
		Description: "Reads the bundle IN and writes OUT, every file redacted by its kind: Kubernetes JSON\n" +
			"(env values with secret-looking names, configmap credentials, the last-applied\n" +
			"annotation), the sql/*.csv dumps value by value (WITH options of sources and sinks,\n" +
			"connector_props, license_key), and everything else as text, line by line however\n" +
			"long (URL passwords, password=..., private keys, cloud and vendor tokens). The\n" +
			"manifest's strings are redacted too: files' sources and errors, errors' targets and\n" +
			"messages, the incomplete reason. Values are replaced by [REDACTED:xxxxxxxx] tokens\n" +
			"from a key drawn for this run: equal values get equal tokens within OUT. Tokens\n" +
			"already in IN are kept. Use it on a hand-made bundle, on one collected with\n" +
			"--no-redact, or with --redact-config patterns the first run did not have.\n\n" +
			"A file that is not what its name says (a .json that is not JSON, a .csv that is not\n" +
			"psql's CSV) is redacted as text, with a warning on stderr, and copied all the same.\n\n" +
			"--report lists on stdout, per file, how many values of which class were replaced,\n" +
			"for whoever reviews the bundle before it is sent; --report-format json writes the\n" +
			"same as one JSON object (and the summary line goes to stderr). OUT's manifest keeps\n" +
			"the per-file counts (redaction.files), IN's added.\n\n" +
			"OUT is a new archive: tar.zst, or tar.gz or tar when its name ends so; it must not\n" +
			"exist. Its manifest keeps IN's header and errors, and lists every file re-hashed with\n" +
			"its redaction count added to IN's. Refused entries of IN are reported on stderr and\n" +
			"left out; damage stops the run with exit status 2 and writes nothing.\n\n" +
			"Examples:\n" +
			"   rwdiag bundle redact samples/oom-crash-loop oom-redacted.tar.zst\n" +
			"   rwdiag bundle redact --report rwdiag-prod rwdiag-prod-redacted.tar.zst\n" +
			"   rwdiag bundle redact --redact-config acme.yaml rwdiag-prod-20261129T204300Z.tar.zst prod-redacted.tar.zst",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "redact-config", Usage: "add the redaction patterns of `FILE` (YAML; see collect.LoadRedactConfig)"},
			&ucli.BoolFlag{Name: "report", Usage: "after the copy, list on stdout per file how many values of which class were replaced"},
			&ucli.StringFlag{Name: "report-format", Value: collect.ReportTable, Usage: "`FORMAT` of --report: table or json (json implies --report)"},
		}, cli.LimitFlags()...),
		Action: runRedact,
	}
}

func runRedact(c *ucli.Context) error {
	args, err := cli.ExactArgs(c, "IN", "OUT")
	if err != nil {
		return err
	}
	in, out := args[0], args[1]
	reportFormat := ""
	if c.Bool("report") || c.IsSet("report-format") {
		switch reportFormat = c.String("report-format"); reportFormat {
		case collect.ReportTable, collect.ReportJSON:
		default:
			return cli.UsageError(c, "--report-format %q: want %s or %s", reportFormat, collect.ReportTable, collect.ReportJSON)
		}
	}
	if err := checkArchiveName(out); err != nil {
		return cli.UsageError(c, "OUT %s", strings.TrimPrefix(err.Error(), "-o "))
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return cli.UsageError(c, "OUT %s is a directory: give a file name, e.g. %s", out,
			filepath.Join(out, strings.TrimSuffix(filepath.Base(filepath.Clean(in)), ".tar.zst")+"-redacted.tar.zst"))
	}
	if _, err := os.Lstat(out); err == nil {
		return cli.UsageError(c, "%s exists: redact writes a new bundle and never overwrites", out)
	}
	if fi, err := os.Stat(in); err == nil && fi.IsDir() {
		// The writer stages beside OUT: inside IN, the reader would see it.
		absIn, _ := filepath.Abs(in)
		absOut, _ := filepath.Abs(out)
		if strings.HasPrefix(absOut, absIn+string(filepath.Separator)) {
			return cli.UsageError(c, "%s is inside the bundle directory %s: write it elsewhere", out, in)
		}
	}
	var extra []collect.RedactPattern
	if cfg := c.String("redact-config"); cfg != "" {
		if extra, err = collect.LoadRedactConfig(cfg); err != nil {
			return cli.InputError(err)
		}
	}
	red, err := collect.NewRedactor(extra)
	if err != nil {
		return cli.InputError(err)
	}
	opts, err := cli.ReaderOptions(c)
	if err != nil {
		return err
	}
	// The manifest may sit anywhere (a directory lists it after kubernetes/):
	// find it first, so that each file's record is at hand when it is copied.
	old, err := findManifest(in, opts)
	if err != nil {
		return err
	}
	r, err := cli.OpenBundle(c, in)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := bundle.NewWriter(out, bundle.WriterOptions{Root: archiveRoot(out), Format: formatFor(out)})
	if err != nil {
		w, err = bundle.NewWriter(out, bundle.WriterOptions{Format: formatFor(out)})
	}
	if err != nil {
		return cli.InputError(err)
	}
	name := termtext.Escape(r.Name(), termtext.Name) // bundle text, bound for a terminal
	files, warnings := 0, 0
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if bundle.Fatal(err) {
				w.Abort()
				return cli.InputError(fmt.Errorf("%s: %w", r.Name(), err))
			}
			fmt.Fprintf(c.App.ErrWriter, "rwdiag: %s: %s (left out)\n", name, termtext.Escape(err.Error(), termtext.Line))
			continue
		}
		if e.Kind == bundle.KindManifest {
			continue
		}
		// The file's record in IN's manifest, its strings redacted (and
		// counted as the manifest's).
		var prev bundle.FileEntry
		if old != nil {
			prev, _ = old.File(e.Path)
			prev.Source, prev.Error = red.String("files.source", prev.Source), red.String("files.error", prev.Error)
		}
		warn, err := redactEntry(w, red, e, prev)
		if err != nil {
			if bundle.Fatal(err) {
				w.Abort()
				return cli.InputError(fmt.Errorf("%s: %w", r.Name(), err))
			}
			fmt.Fprintf(c.App.ErrWriter, "rwdiag: %s: %s: %s\n", name, termtext.Escape(e.Path, termtext.Name), termtext.Escape(err.Error(), termtext.Line))
		}
		if warn != nil {
			warnings++
			fmt.Fprintf(c.App.ErrWriter, "rwdiag: warning: %s: %s\n", name, termtext.Escape(warn.Error(), termtext.Line))
		}
		files++
	}
	w.Update(func(m *bundle.Manifest) {
		if old != nil {
			m.Tool, m.CollectedAt, m.FinishedAt = old.Tool, old.CollectedAt, old.FinishedAt
			m.Namespace, m.Cluster, m.RisingWaveVersion = old.Namespace, old.Cluster, old.RisingWaveVersion
			m.Complete, m.IncompleteReason = old.Complete, red.String("incomplete_reason", old.IncompleteReason)
			for _, e := range old.Errors {
				e.Target = red.String("errors.target", e.Target)
				e.Error = red.String("errors.message", e.Error)
				m.Errors = append(m.Errors, e)
			}
		} else {
			// A hand-made bundle: its maker is unknown, its content whole.
			m.Tool = bundle.Tool{Name: "rwdiag", Version: cli.VersionString()}
		}
	})
	now := red.Report()
	w.Update(func(m *bundle.Manifest) { m.Redaction = mergeRedaction(old, now) })
	if err := w.Close(); err != nil {
		return cli.InputError(err)
	}
	summary := c.App.Writer
	if reportFormat == collect.ReportJSON {
		summary = c.App.ErrWriter // stdout is the report's alone
	}
	fmt.Fprintf(summary, "redacted %d %s in %d %s of %s; wrote %s\n", now.Total, english.Plural(now.Total, "value", "values"), files, english.Plural(files, "file", "files"), name, termtext.Escape(out, termtext.Name))
	if warnings > 0 {
		fmt.Fprintf(summary, "%d files were not what their names say and were redacted as text (see the warnings above)\n", warnings)
	}
	if reportFormat != "" {
		if err := collect.WriteRedactionReport(c.App.Writer, collect.FileReport(now), reportFormat); err != nil {
			return err
		}
	}
	return nil
}

// findManifest returns the bundle's manifest, or nil for a hand-made bundle.
func findManifest(name string, opts bundle.Options) (*bundle.Manifest, error) {
	r, err := bundle.Open(name, opts)
	if err != nil {
		return nil, cli.InputError(err)
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			if bundle.Fatal(err) {
				return nil, cli.InputError(fmt.Errorf("%s: %w", r.Name(), err))
			}
			continue
		}
		if e.Kind == bundle.KindManifest {
			m, err := bundle.DecodeManifest(e)
			if err != nil {
				return nil, cli.InputError(fmt.Errorf("%s: %w", r.Name(), err))
			}
			return m, nil
		}
	}
}

// redactEntry copies one file, redacted by its kind; prev is its record in
// IN's manifest, its strings already redacted. A file that could not be read whole keeps what was
// read, with the error. A file not in the shape its kind says (JSON, psql
// CSV) is redacted as text and copied all the same: warn says so. How many
// values were replaced, the redactor's report tells.
func redactEntry(w *bundle.Writer, red *collect.Redactor, e *bundle.Entry, prev bundle.FileEntry) (warn, err error) {
	var n int
	source := prev.Source
	if source == "" {
		source = "rwdiag bundle redact"
	}
	f, err := w.Create(e.Path, source)
	if err != nil {
		return nil, err
	}
	var readErr error
	switch e.Kind {
	case bundle.KindPods, bundle.KindEvents, bundle.KindNodes, bundle.KindKubeObjects:
		var data []byte
		data, readErr = io.ReadAll(e)
		var out []byte
		// Not JSON: out is data through the text rules, safe to keep.
		out, n, warn = red.KubeJSON(e.Path, data)
		if warn != nil {
			warn = fmt.Errorf("%w; redacted as text", warn)
		}
		_, err = f.Write(out)
	case bundle.KindSQLTable:
		var data []byte
		data, readErr = io.ReadAll(e)
		var out []byte
		// Not psql CSV: out is data through the text rules.
		out, n, warn = red.PsqlCSV(e.Name, data)
		_, err = f.Write(out)
	default:
		var werr error
		n, werr = red.TextStream(e.Path, f, e)
		if werr != nil {
			// TextStream cannot tell a read error from a write error; a
			// bundle entry's read error is the likelier, and Fatal knows it.
			readErr = werr
		}
	}
	f.AddRedacted(prev.Redacted + n)
	if prev.Truncated {
		f.SetTruncated()
	}
	switch {
	case readErr != nil:
		f.SetError(readErr)
	case prev.Error != "":
		f.SetError(errors.New(prev.Error))
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if readErr != nil && bundle.Fatal(readErr) {
		return warn, readErr
	}
	return warn, errors.Join(err, readErr)
}

// mergeRedaction adds this run's counts, in all and per file, to those IN's
// manifest recorded.
func mergeRedaction(old *bundle.Manifest, now bundle.RedactionReport) bundle.RedactionReport {
	rep := bundle.RedactionReport{Enabled: true, Counts: map[string]int{}, Files: map[string]map[string]int{}}
	add := func(r bundle.RedactionReport) {
		for k, v := range r.Counts {
			rep.Counts[k] += v
		}
		for p, counts := range r.Files {
			if rep.Files[p] == nil {
				rep.Files[p] = map[string]int{}
			}
			for k, v := range counts {
				rep.Files[p][k] += v
			}
		}
		rep.Total += r.Total
	}
	if old != nil {
		add(old.Redaction)
	}
	add(now)
	if len(rep.Counts) == 0 {
		rep.Counts = nil
	}
	if len(rep.Files) == 0 {
		rep.Files = nil
	}
	return rep
}

// formatFor picks OUT's container from its name: tar.zst unless it ends in
// .tar.gz, .tgz or .tar.
func formatFor(name string) bundle.Format {
	switch n := strings.ToLower(name); {
	case strings.HasSuffix(n, ".tar.gz"), strings.HasSuffix(n, ".tgz"):
		return bundle.FormatTarGzip
	case strings.HasSuffix(n, ".tar"):
		return bundle.FormatTar
	}
	return bundle.FormatTarZstd
}

// archiveRoot is the top-level directory of OUT's entries: its name without
// the archive suffixes.
func archiveRoot(name string) string {
	base := filepath.Base(name)
	for _, suf := range []string{".tar.zst", ".tar.gz", ".tgz", ".tar", ".zst"} {
		if len(base) > len(suf) && strings.HasSuffix(strings.ToLower(base), suf) {
			return base[:len(base)-len(suf)]
		}
	}
	return base
}
