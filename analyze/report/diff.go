package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rwdiag/rwdiag/analyze"
)

// WriteDiff writes the diff in format f: table, json or markdown.
// The table is laid out for DefaultWidth: see Options.WriteDiff.
func WriteDiff(w io.Writer, d *analyze.Diff, f Format) error {
	return writeDiff(w, d, f, Options{})
}

func writeDiff(w io.Writer, d *analyze.Diff, f Format, o Options) error {
	c := *d
	c.Notes = diffNotes(d) // in the JSON too, always a list
	d = &c
	return writeFormatted(w, f, "diff", d,
		func(w io.Writer) error { return writeDiffMarkdown(w, d) },
		func(w io.Writer) error { return writeDiffText(w, d, o) })
}

// diffSections are the diff's lists with their headings, in print order.
func diffSections(d *analyze.Diff) []struct {
	name  string
	items []analyze.DiffItem
} {
	return []struct {
		name  string
		items []analyze.DiffItem
	}{{"New", d.Added}, {"Resolved", d.Resolved}, {"Persisting", d.Persisting}, {"Undecided", d.Undecided}}
}

// diffCountLine is e.g. "1 new, 1 resolved, 2 persisting, 0 undecided".
func diffCountLine(d *analyze.Diff) string {
	return fmt.Sprintf("%d new, %d resolved, %d persisting, %d undecided", len(d.Added), len(d.Resolved), len(d.Persisting), len(d.Undecided))
}

// diffNotes are the diff's notes (analyze.DiffNotes), also for a Diff
// made by hand.
func diffNotes(d *analyze.Diff) []string {
	if d.Notes != nil {
		return d.Notes
	}
	return analyze.DiffNotes(d.Old, d.New)
}

func writeDiffText(w io.Writer, d *analyze.Diff, o Options) error {
	p := &reportPrinter{w: w, width: o.width(), colour: o.Colour}
	p.lines("OLD: ", diffBundleLine(d.Old))
	p.lines("NEW: ", diffBundleLine(d.New))
	for _, n := range diffNotes(d) {
		p.lines("Note: ", n)
	}
	for _, s := range diffSections(d) {
		if len(s.items) == 0 {
			continue
		}
		p.printf("\n%s (%d):\n", s.name, len(s.items))
		for _, it := range s.items {
			sev := strings.ToUpper(it.Severity.String())
			if it.OldSeverity != 0 {
				sev = strings.ToUpper(it.OldSeverity.String()) + "->" + sev
			}
			p.linesPainted("  ", "["+sev+"]", severityColour(it.Severity), " ", fmt.Sprintf("%s: %s (%s, %s)", it.Title, it.Subject, it.Rule, it.Fingerprint), false)
			if it.Reason != "" {
				p.lines("      why: ", it.Reason)
			}
			p.lines("      ", cutWords(sanitizeText(it.Summary, false), 400))
		}
	}
	p.printf("\n%s.\n", diffCountLine(d))
	return p.err
}

func diffBundleLine(b analyze.BundleInfo) string {
	s := reportBundleLine(b)
	if !b.CollectedAt.IsZero() {
		s += ", collected " + reportTime(b.CollectedAt)
	}
	return s
}

func writeDiffMarkdown(w io.Writer, d *analyze.Diff) error {
	p := &reportPrinter{w: w}
	p.printf("# rwdiag diff\n\n- **Old:** %s\n- **New:** %s\n", mdText(diffBundleLine(d.Old)), mdText(diffBundleLine(d.New)))
	for _, n := range diffNotes(d) {
		p.printf("- **Note:** %s\n", mdText(n))
	}
	p.printf("\n**%s.**\n", diffCountLine(d))
	for _, s := range diffSections(d) {
		if len(s.items) == 0 {
			continue
		}
		p.printf("\n## %s\n\n| Severity | Finding | Subject | Rule | Summary |\n|---|---|---|---|---|\n", s.name)
		for _, it := range s.items {
			sev := it.Severity.String()
			if it.OldSeverity != 0 {
				sev = it.OldSeverity.String() + " → " + sev
			}
			sum := it.Summary
			if it.Reason != "" {
				sum = it.Reason + ". " + sum
			}
			p.printf("| %s | %s | %s | %s | %s |\n", sev, mdText(it.Title), mdCode(it.Subject), mdCode(it.Rule), mdText(sum))
		}
	}
	return p.err
}
