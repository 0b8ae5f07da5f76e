package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

// Format is a report output format.
type Format string

// Report formats.
const (
	// FormatTable is for a terminal: a table of findings, then each
	// finding's top evidence and first line of remediation.
	FormatTable Format = "table"
	// FormatJSON is the stable contract documented in docs/report-schema.md.
	FormatJSON Format = "json"
	// FormatMarkdown is for pasting into a ticket.
	FormatMarkdown Format = "markdown"
	// FormatHTML is one self-contained page to look at in a browser: it
	// loads nothing, so it works on an air-gapped laptop. See report_html.go.
	FormatHTML Format = "html"
)

// ParseFormat parses "table", "json", "markdown" or "html".
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatTable, FormatJSON, FormatMarkdown, FormatHTML:
		return f, nil
	}
	return "", fmt.Errorf("unknown report format %q (want table, json, markdown or html)", s)
}

// Write writes the report in format f. It renders a sorted copy (see
// analyze.Report.Sort) and leaves r as it is. Nothing in the output depends on the time it is
// written.
func Write(w io.Writer, r *analyze.Report, f Format) error { return WriteWith(w, r, f, nil) }

// WriteWith is Write with forensics (see analyze.Investigate), which the Markdown
// and HTML formats show: the timeline around each finding and, in HTML,
// charts of each finding's metrics. x may be nil.
func WriteWith(w io.Writer, r *analyze.Report, f Format, x *analyze.Forensics) error {
	c := sortedCopy(r)
	bw := bufio.NewWriter(w)
	var err error
	switch f {
	case FormatJSON:
		err = writeJSON(bw, c)
	case FormatMarkdown:
		err = writeMarkdown(bw, c, x)
	case FormatTable:
		err = writeTable(bw, c)
	case FormatHTML:
		err = writeHTML(bw, c, x)
	default:
		return fmt.Errorf("unknown report format %q (want table, json, markdown or html)", f)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// sortedCopy copies the report's lists, drops metric values JSON cannot
// carry (NaN, ±Inf; the evidence text still shows them) and sorts.
func sortedCopy(r *analyze.Report) *analyze.Report {
	c := *r
	c.Findings = slices.Clone(r.Findings)
	for i := range c.Findings {
		ev := slices.Clone(c.Findings[i].Evidence)
		for j := range ev {
			if v := ev[j].Value; v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
				ev[j].Value = nil
			}
		}
		c.Findings[i].Evidence = ev
	}
	c.Rules = slices.Clone(r.Rules)
	c.Sort()
	return &c
}

// writeJSON writes the report as indented JSON, with the characters a
// terminal acts on that encoding/json leaves raw (C1 and bidirectional
// controls) written as \u escapes: the same JSON, safe to print.
func writeJSON(w io.Writer, r *analyze.Report) error {
	enc := json.NewEncoder(termtext.Writer{W: w})
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}

// reportCounts are what a report's summary lines say.
type reportCounts struct {
	firing       map[analyze.Severity]int
	inconclusive int // rules
	failed       int // rules whose evaluation failed
	rules        map[analyze.RuleStatus]int
}

func tally(r *analyze.Report) reportCounts {
	c := reportCounts{firing: map[analyze.Severity]int{}, rules: map[analyze.RuleStatus]int{}}
	inconclusive := map[string]bool{}
	for _, f := range r.Findings {
		switch f.Status {
		case analyze.StatusFiring:
			c.firing[f.Severity]++
		case analyze.StatusInconclusive:
			inconclusive[f.Rule] = true
		}
	}
	for _, rr := range r.Rules {
		c.rules[rr.Status]++
		switch rr.Status {
		case analyze.RuleInconclusive:
			inconclusive[rr.ID] = true
		case analyze.RuleError:
			c.failed++
		}
	}
	c.inconclusive = len(inconclusive)
	return c
}

// summaryLine is e.g. "2 critical, 1 warning findings; 1 rule inconclusive".
func (c reportCounts) summaryLine() string {
	var parts []string
	n := 0
	for _, s := range []analyze.Severity{analyze.SeverityCritical, analyze.SeverityWarning, analyze.SeverityInfo} {
		if c.firing[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.firing[s], s))
			n += c.firing[s]
		}
	}
	var line string
	switch n {
	case 0:
		line = "No findings"
	case 1:
		line = parts[0] + " finding"
	default:
		line = strings.Join(parts, ", ") + " findings"
	}
	if c.inconclusive > 0 {
		line += fmt.Sprintf("; %d %s inconclusive", c.inconclusive, pluralize(c.inconclusive, "rule", "rules"))
	}
	if c.failed > 0 {
		line += fmt.Sprintf("; %d %s failed to evaluate", c.failed, pluralize(c.failed, "rule", "rules"))
	}
	return line
}

// rulesLine is e.g. "12 rules: 2 fired, 8 passed, 1 inconclusive, 1 skipped".
func rulesLine(r *analyze.Report) string {
	c := tally(r)
	line := fmt.Sprintf("%d %s", len(r.Rules), pluralize(len(r.Rules), "rule", "rules"))
	var parts []string
	for _, s := range []analyze.RuleStatus{analyze.RuleFired, analyze.RulePassed, analyze.RuleInconclusive, analyze.RuleSkipped, analyze.RuleError} {
		if c.rules[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.rules[s], s))
		}
	}
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line
}

// notable are the rules the reader should know about: neither fired nor
// passed.
func notableRules(r *analyze.Report) []analyze.RuleResult {
	var out []analyze.RuleResult
	for _, rr := range r.Rules {
		if rr.Status != analyze.RuleFired && rr.Status != analyze.RulePassed {
			out = append(out, rr)
		}
	}
	return out
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func reportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// evidenceExcerpt is what an evidence item shows: its text, or for metric
// evidence without one, the series and value.
func evidenceExcerpt(e analyze.Evidence) string {
	if e.Text != "" || e.Series == "" {
		return e.Text
	}
	if e.Value == nil {
		return e.Series
	}
	return e.Series + " = " + strconv.FormatFloat(*e.Value, 'g', -1, 64)
}

// sanitizeText makes bundle data safe for a terminal: colour sequences are
// removed and every other control character is written visibly (\x1b,
// \u202e), so that it can neither move the cursor nor reorder the line.
// Newlines are kept when keepNewlines is set, else they become spaces.
func sanitizeText(s string, keepNewlines bool) string {
	if keepNewlines {
		return termtext.Escape(s, termtext.Lines)
	}
	return termtext.Escape(s, termtext.Line)
}

// truncateRunes shortens s to at most n runes, ending it with ellipsis when
// it cuts.
func truncateRunes(s string, n int, ellipsis string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	m := n - utf8.RuneCountInString(ellipsis)
	if m < 0 {
		m = 0
	}
	i := 0
	for j := range s {
		if i == m {
			return strings.TrimRight(s[:j], " ") + ellipsis
		}
		i++
	}
	return s
}

// remediationHeadline is the first line of Markdown text that says
// something: not blank, not a code fence; heading and list markers removed.
func remediationHeadline(md string) string {
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			continue
		}
		line = strings.TrimLeft(line, "#")
		line = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(line, " "), "- "), "* ")
		return strings.TrimSpace(line)
	}
	return ""
}

// ---- table ----

// reportTableWidth is the terminal width the table format is laid out for.
const reportTableWidth = 100

// Column width limits: the subject wraps past tableMaxSubject, and the
// summary gets the rest of the line but never less than tableMinSummary.
const (
	tableMaxSubject = 24
	tableMinSummary = 24
	tableMaxPattern = 20
)

func writeTable(w io.Writer, r *analyze.Report) error {
	p := &reportPrinter{w: w}
	b := r.Bundle
	p.lines("Bundle:     ", reportBundleLine(b))
	if s := reportClusterLine(b); s != "" {
		p.lines("Cluster:    ", s)
	}
	if b.RisingWaveVersion != "" {
		p.lines("RisingWave: ", b.RisingWaveVersion)
	}
	if !b.CollectedAt.IsZero() {
		p.lines("Collected:  ", reportTime(b.CollectedAt))
	}
	for _, n := range reportBundleNotes(b) {
		p.lines("Note:       ", n)
	}
	if len(r.Findings) > 0 {
		p.printf("\n")
		if p.err != nil {
			return p.err
		}
		if err := findingsTable(w, r); err != nil {
			return err
		}
		for i, f := range r.Findings {
			p.printf("\n")
			writeFindingText(p, i+1, f)
		}
	}

	p.printf("\n%s.\n", tally(r).summaryLine())
	p.printf("%s\n", rulesLine(r))
	for _, rr := range notableRules(r) {
		text := rr.ID
		if rr.Reason != "" {
			text += ": " + rr.Reason
		}
		p.lines(fmt.Sprintf("  %-12s  ", rr.Status), text)
	}
	if lines := examinedLines(r); len(lines) > 0 {
		p.printf("\nExamined (decisive inputs; --format json lists every signal):\n")
		for _, l := range lines {
			p.lines("  ", l)
		}
	}
	if len(b.Problems) > 0 {
		p.printf("\nBundle problems (analysis went on without them):\n")
		for _, pr := range b.Problems {
			p.lines("  - ", pr)
		}
	}
	return p.err
}

func findingsTable(w io.Writer, r *analyze.Report) error {
	header := []string{"SEVERITY", "STATUS", "PATTERN", "SUBJECT", "SUMMARY"}
	rows := make([][]string, len(r.Findings))
	for i, f := range r.Findings {
		rows[i] = []string{
			f.Severity.String(),
			string(f.Status),
			sanitizeText(f.Pattern, false),
			sanitizeText(f.Subject, false),
			sanitizeText(f.Summary, false),
		}
	}
	// Natural widths of the short columns; the subject is capped and the
	// summary takes what is left of the line.
	widths := make([]int, len(header))
	for c := range 4 {
		widths[c] = cellWidth(header[c])
		for _, row := range rows {
			widths[c] = max(widths[c], cellWidth(row[c]))
		}
	}
	widths[2] = min(widths[2], tableMaxPattern)
	widths[3] = min(widths[3], tableMaxSubject)
	borders := 3*len(header) + 1
	summary := 0
	for _, row := range rows {
		summary = max(summary, cellWidth(row[4]))
	}
	widths[4] = max(min(summary, reportTableWidth-borders-widths[0]-widths[1]-widths[2]-widths[3]), tableMinSummary)
	for _, row := range rows {
		for c := range row {
			row[c] = strings.Join(wrapCell(row[c], widths[c]), "\n")
		}
	}

	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Symbols:  tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off), // print headers as given
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone), // cells are wrapped above
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(header)
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return fmt.Errorf("render table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	return nil
}

// tableEvidenceLines is how many evidence items the table format shows per
// finding.
const tableEvidenceLines = 3

func writeFindingText(p *reportPrinter, n int, f analyze.Finding) {
	head := fmt.Sprintf("[%s] %s: %s", strings.ToUpper(f.Severity.String()), f.Title, f.Subject)
	if f.Status != analyze.StatusFiring {
		head += " (" + string(f.Status) + ")"
	}
	p.lines(fmt.Sprintf("%d. ", n), head)
	p.lines("   rule ", f.Rule)
	for _, l := range f.Links {
		p.lines("   ", sanitizeText(l.String(), false))
	}
	for i, e := range f.Evidence {
		if i == tableEvidenceLines {
			p.printf("     ... and %d more (see --format markdown or json)\n", len(f.Evidence)-i)
			break
		}
		// "path:line  excerpt" on one line when it fits, else the excerpt
		// on a line of its own; either way cut, not wrapped.
		src := sanitizeText(e.Location(), false)
		text := strings.TrimSpace(sanitizeText(evidenceExcerpt(e), false))
		line := "   - " + src
		if text != "" && cellWidth(line)+2+cellWidth(text) <= reportTableWidth {
			line += "  " + text
			text = ""
		}
		p.printf("%s\n", truncateRunes(line, reportTableWidth, "..."))
		if text != "" {
			p.printf("%s\n", truncateRunes("     "+text, reportTableWidth, "..."))
		}
	}
	if fix := remediationHeadline(f.Remediation); fix != "" {
		p.lines("   fix: ", fix)
	}
}

// reportPrinter keeps the first write error.
type reportPrinter struct {
	w   io.Writer
	err error
}

func (p *reportPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// lines prints text after prefix, wrapped to the table width with the
// following lines indented as far as the prefix.
func (p *reportPrinter) lines(prefix, text string) {
	indent := strings.Repeat(" ", cellWidth(prefix))
	for i, line := range wrapCell(sanitizeText(text, false), reportTableWidth-len(indent)) {
		if i == 0 {
			p.printf("%s%s\n", prefix, line)
		} else {
			p.printf("%s%s\n", indent, line)
		}
	}
}

func reportBundleLine(b analyze.BundleInfo) string {
	return b.Path + " (" + reportBundleShape(b) + ")"
}

// reportBundleShape is e.g. "tar.zst, 214 files".
func reportBundleShape(b analyze.BundleInfo) string {
	files := fmt.Sprintf("%d %s", b.Files, pluralize(b.Files, "file", "files"))
	if b.Archive == "" {
		return files
	}
	return b.Archive + ", " + files
}

// reportClusterLine is e.g. "prod-eu-1, namespace risingwave".
func reportClusterLine(b analyze.BundleInfo) string {
	switch {
	case b.Cluster != "" && b.Namespace != "":
		return b.Cluster + ", namespace " + b.Namespace
	case b.Namespace != "":
		return "namespace " + b.Namespace
	}
	return b.Cluster
}

func reportBundleNotes(b analyze.BundleInfo) []string {
	var notes []string
	if b.HandMade {
		notes = append(notes, "hand-made bundle (no manifest): collection times and failed steps are unknown")
	} else if !b.Complete {
		notes = append(notes, "collection was incomplete; see the bundle problems")
	}
	return notes
}

func cellWidth(s string) int {
	n := 0
	for line := range strings.SplitSeq(s, "\n") {
		n = max(n, utf8.RuneCountInString(line))
	}
	return n
}

// wrapCell breaks s into lines of at most width runes, at spaces where it can
// and otherwise after a '-', '_', ':', '/', '.' or ',' in an overlong word.
func wrapCell(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var lines []string
	line := ""
	for word := range strings.FieldsSeq(s) {
		for utf8.RuneCountInString(word) > width {
			if line != "" {
				if room := width - utf8.RuneCountInString(line) - 1; room >= 8 {
					head, tail := breakCellWord(word, room)
					lines = append(lines, line+" "+head)
					line, word = "", tail
					continue
				}
				lines = append(lines, line)
				line = ""
			}
			head, tail := breakCellWord(word, width)
			lines = append(lines, head)
			word = tail
		}
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// breakCellWord splits word so that head has at most n runes, preferring to
// break after punctuation in its second half.
func breakCellWord(word string, n int) (head, tail string) {
	runes := []rune(word)
	at := n
	for i := n; i > n/2; i-- {
		if strings.ContainsRune("-_:/.,", runes[i-1]) {
			at = i
			break
		}
	}
	return string(runes[:at]), string(runes[at:])
}

// ---- markdown ----

// mdMaxExcerpt is how many characters of an evidence excerpt Markdown shows.
const mdMaxExcerpt = 200

// mdExcerptEntries is how many timeline entries Markdown shows around a
// finding.
const mdExcerptEntries = 15

func writeMarkdown(w io.Writer, r *analyze.Report, x *analyze.Forensics) error {
	p := &reportPrinter{w: w}
	b := r.Bundle
	p.printf("# rwdiag report: %s\n\n", mdCode(b.Path))
	p.printf("- **Bundle:** %s\n", mdText(reportBundleShape(b)))
	if s := reportClusterLine(b); s != "" {
		p.printf("- **Cluster:** %s\n", mdText(s))
	}
	if b.RisingWaveVersion != "" {
		p.printf("- **RisingWave:** %s\n", mdText(b.RisingWaveVersion))
	}
	if !b.CollectedAt.IsZero() {
		p.printf("- **Collected at:** %s\n", reportTime(b.CollectedAt))
	}
	for _, n := range reportBundleNotes(b) {
		p.printf("- **Note:** %s\n", mdText(n))
	}
	p.printf("\n**%s.**\n", tally(r).summaryLine())

	var firing, inconclusive []analyze.Finding
	for _, f := range r.Findings {
		if f.Status == analyze.StatusFiring {
			firing = append(firing, f)
		} else {
			inconclusive = append(inconclusive, f)
		}
	}
	if len(firing) > 0 {
		p.printf("\n## Findings\n")
		for _, f := range firing {
			writeFindingMarkdown(p, f, x)
		}
	}
	if len(inconclusive) > 0 {
		p.printf("\n## Inconclusive\n\nThese rules could not be decided: their inputs are missing from the bundle.\n")
		for _, f := range inconclusive {
			writeFindingMarkdown(p, f, nil)
		}
	}

	p.printf("\n## Rules\n\n%s.\n", rulesLine(r))
	if notable := notableRules(r); len(notable) > 0 {
		p.printf("\n| Rule | Status | Reason |\n|---|---|---|\n")
		for _, rr := range notable {
			p.printf("| %s | %s | %s |\n", mdCode(rr.ID), rr.Status, mdText(rr.Reason))
		}
	}
	if examined := examinedRules(r); len(examined) > 0 {
		p.printf("\n### What each rule examined\n\n| Rule | Status | Signal | Decisive | Read | Coverage |\n|---|---|---|---|---|---|\n")
		for _, rr := range examined {
			for _, e := range rr.Examined {
				p.printf("| %s | %s | %s | %s | %s | %s |\n", mdCode(rr.ID), rr.Status, mdCode(e.Signal), yesNo(e.Decisive), yesNo(e.Read), mdText(e.Coverage))
			}
		}
	}
	if len(b.Problems) > 0 {
		p.printf("\n## Bundle problems\n\nAnalysis went on without these:\n\n")
		for _, pr := range b.Problems {
			p.printf("- %s\n", mdText(pr))
		}
	}
	if r.Tool != "" {
		p.printf("\n---\n_Generated by %s, report schema v%d._\n", mdText(r.Tool), r.SchemaVersion)
	}
	return p.err
}

func writeFindingMarkdown(p *reportPrinter, f analyze.Finding, x *analyze.Forensics) {
	p.printf("\n### [%s] %s — %s\n\n", strings.ToUpper(f.Severity.String()), mdText(f.Title), mdCode(f.Subject))
	p.printf("**Pattern:** %s · **Rule:** %s · **Status:** %s", mdCode(f.Pattern), mdCode(f.Rule), f.Status)
	if f.Fingerprint != "" {
		p.printf(" · **Fingerprint:** %s", mdCode(f.Fingerprint))
	}
	p.printf("\n")
	if s := strings.TrimSpace(f.Summary); s != "" {
		p.printf("\n%s\n", mdText(s))
	}
	for _, l := range f.Links {
		verb := "Likely caused by"
		if l.Relation == "explains" {
			verb = "Likely explains"
		}
		p.printf("\n**%s** %s (%s).\n", verb, mdCode(l.Rule), mdCode(l.Subject))
	}
	if len(f.Evidence) > 0 {
		p.printf("\n**Evidence**\n\n| Source | Time | Excerpt |\n|---|---|---|\n")
		for _, e := range f.Evidence {
			p.printf("| %s | %s | %s |\n", mdCode(e.Location()), reportTime(e.Time), mdExcerpt(evidenceExcerpt(e)))
		}
	}
	if ex, ok := x.Excerpt(f, mdExcerptEntries); ok {
		p.printf("\n**Timeline** (%s to %s, %d minutes either side of the evidence", timelineTime(ex.From), timelineTime(ex.To), int(analyze.ExcerptWindow/time.Minute))
		if ex.More > 0 {
			p.printf("; %d more %s in `rwdiag timeline`", ex.More, pluralize(ex.More, "entry", "entries"))
		}
		p.printf(")\n\n")
		if len(ex.Entries) == 0 {
			p.printf("Nothing else happened in this window.\n")
		} else {
			writeTimelineTable(p, ex.Entries)
		}
	}
	if rem := strings.TrimSpace(f.Remediation); rem != "" {
		p.printf("\n**Remediation**\n\n%s\n", rem)
	}
	if len(f.References) > 0 {
		p.printf("\n**References**\n\n")
		for _, ref := range f.References {
			if strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://") {
				p.printf("- <%s>\n", strings.NewReplacer("<", "%3C", ">", "%3E", " ", "%20").Replace(ref))
			} else {
				p.printf("- %s\n", mdText(ref))
			}
		}
	}
}

// mdExcerpt is an evidence excerpt for a table cell: cut to mdMaxExcerpt
// characters, each line a code span, lines joined by <br>.
func mdExcerpt(s string) string {
	s = strings.TrimRight(sanitizeText(s, true), "\n ")
	s = truncateRunes(s, mdMaxExcerpt, "…")
	var spans []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(line) != "" {
			spans = append(spans, mdCode(line))
		}
	}
	return strings.Join(spans, "<br>")
}

// mdCode is s as an inline code span that is safe in a table cell: a
// delimiter longer than any run of backticks inside, pipes escaped, on one
// line.
func mdCode(s string) string {
	s = strings.TrimSpace(sanitizeText(strings.ReplaceAll(s, "\n", " "), false))
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	delim := strings.Repeat("`", longest+1)
	s = strings.ReplaceAll(s, "|", `\|`)
	if longest > 0 {
		s = " " + s + " "
	}
	return delim + s + delim
}

// mdText escapes s for inline Markdown on one line: it renders as the same
// text, not as emphasis, links, HTML or a table cell boundary. Underscores
// inside words, which cannot start emphasis, are left alone to keep names
// such as rw_sinks readable.
func mdText(s string) string {
	s = strings.TrimSpace(sanitizeText(strings.ReplaceAll(s, "\n", " "), false))
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		switch r {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~', '&':
			b.WriteByte('\\')
		case '-', '+':
			if i == 0 {
				b.WriteByte('\\') // not a list item
			}
		case '.', ')':
			if i > 0 && mdAllDigits(runes[:i]) {
				b.WriteByte('\\') // not an ordered list item
			}
		case '_':
			inWord := i > 0 && i < len(runes)-1 && mdWordRune(runes[i-1]) && mdWordRune(runes[i+1])
			if !inWord {
				b.WriteByte('\\')
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func mdAllDigits(rs []rune) bool {
	for _, r := range rs {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func mdWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
