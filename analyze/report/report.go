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

	"github.com/rwdiag/rwdiag/internal/english"

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
// The table is laid out for DefaultWidth, without colour: see Options.Write.
func WriteWith(w io.Writer, r *analyze.Report, f Format, x *analyze.Forensics) error {
	return write(w, r, f, x, Options{})
}

func write(w io.Writer, r *analyze.Report, f Format, x *analyze.Forensics, o Options) error {
	c := sortedCopy(r)
	bw := bufio.NewWriter(w)
	var err error
	switch f {
	case FormatJSON:
		err = writeJSON(bw, c)
	case FormatMarkdown:
		err = writeMarkdown(bw, c, x)
	case FormatTable:
		err = writeTable(bw, c, o)
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
		if isKnownResult(rr) {
			if rr.Status == analyze.RuleError {
				c.failed++
			}
			continue // see knownLine
		}
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

// summaryLine is e.g. "2 critical and 1 warning finding; 1 rule inconclusive":
// the noun agrees with the count next to it, as in "1 critical and 1 warning
// finding".
func (c reportCounts) summaryLine() string {
	var parts []string
	last := 0
	for _, s := range []analyze.Severity{analyze.SeverityCritical, analyze.SeverityWarning, analyze.SeverityInfo} {
		if c.firing[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.firing[s], s))
			last = c.firing[s]
		}
	}
	line := "No findings"
	if len(parts) > 0 {
		line = joinAnd(parts) + " " + english.Plural(last, "finding", "findings")
	}
	if c.inconclusive > 0 {
		line += fmt.Sprintf("; %d %s inconclusive", c.inconclusive, english.Plural(c.inconclusive, "rule", "rules"))
	}
	if c.failed > 0 {
		line += fmt.Sprintf("; %d %s failed to evaluate", c.failed, english.Plural(c.failed, "rule", "rules"))
	}
	return line
}

// rulesLine is e.g. "12 rules: 2 fired, 8 passed, 1 inconclusive, 1 skipped".
func rulesLine(r *analyze.Report) string {
	c := tally(r)
	n := 0
	for _, rr := range r.Rules {
		if !isKnownResult(rr) {
			n++
		}
	}
	line := fmt.Sprintf("%d %s", n, english.Plural(n, "rule", "rules"))
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
		if isKnownResult(rr) && rr.Status != analyze.RuleError {
			continue // see knownLine
		}
		if rr.Status != analyze.RuleFired && rr.Status != analyze.RulePassed {
			out = append(out, rr)
		}
	}
	return out
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
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

// ---- table ----

// Findings table layout: the summary column is left out (each summary is
// then printed under its finding) when it would be narrower than this.
const tableMinSummary = 24

func writeTable(w io.Writer, r *analyze.Report, o Options) error {
	p := &reportPrinter{w: w, width: o.width(), colour: o.Colour}
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
	// The number each finding has in the list, and the first inconclusive
	// finding of each rule: what it lacks is said there, once.
	undecided := map[string]int{}
	for i, f := range r.Findings {
		if f.Status == analyze.StatusInconclusive {
			if _, ok := undecided[f.Rule]; !ok {
				undecided[f.Rule] = i + 1
			}
		}
	}
	if len(r.Findings) > 0 {
		p.printf("\n")
		if p.err != nil {
			return p.err
		}
		summaryShown, err := findingsTable(w, r, o)
		if err != nil {
			return err
		}
		for i, f := range r.Findings {
			p.printf("\n")
			writeFindingText(p, i+1, f, !summaryShown || f.Status == analyze.StatusInconclusive)
		}
	}

	p.printf("\n")
	p.lines("", tally(r).summaryLine()+".")
	p.lines("", rulesLine(r))
	if s := knownLine(r); s != "" {
		p.lines("", s)
	}
	for _, rr := range notableRules(r) {
		text := rr.ID
		if n, ok := undecided[rr.ID]; ok && rr.Status == analyze.RuleInconclusive {
			text += fmt.Sprintf(": see finding %d", n)
		} else if rr.Reason != "" {
			text += ": " + rr.Reason
		}
		status := string(rr.Status)
		p.linesPainted("  ", status, ruleStatusColour(rr.Status), strings.Repeat(" ", max(2, 14-len(status))), text, true)
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

// findingsTable writes the table of findings laid out to o's width. The
// summary column is left out when the width leaves it too little room;
// shown says whether it is in.
func findingsTable(w io.Writer, r *analyze.Report, o Options) (shown bool, err error) {
	g := &grid{
		header: []string{"SEVERITY", "STATUS", "PATTERN", "SUBJECT", "SUMMARY"},
		wrap:   []bool{false, false, false, false, true},
		border: true,
	}
	for i, f := range r.Findings {
		summary := sanitizeText(f.Summary, false)
		if f.Status == analyze.StatusInconclusive {
			summary = fmt.Sprintf("Could not be decided: see %d. below for what is missing.", i+1)
		}
		g.rows = append(g.rows, []string{
			f.Severity.String(),
			string(f.Status),
			sanitizeText(f.Pattern, false),
			sanitizeText(f.Subject, false),
			summary,
		})
	}
	g.paint = func(row, col int) string {
		f := r.Findings[row]
		switch {
		case col == 0:
			return severityColour(f.Severity)
		case col == 1 && f.Status == analyze.StatusInconclusive:
			return sgrDim
		}
		return ""
	}
	// The widest layout that fits: every column, then without the pattern
	// (the list names each finding's rule), then without the summary (the
	// list then says it under each finding).
	width := o.width()
	for _, c := range []struct {
		cols       []int
		minSummary int
	}{{[]int{0, 1, 2, 3, 4}, 30}, {[]int{0, 1, 3, 4}, tableMinSummary}, {[]int{0, 1, 2, 3}, 0}, {[]int{0, 1, 3}, 0}} {
		t := g.only(c.cols)
		ws, fits := t.layout(width)
		last := len(c.cols) - 1
		if width == 0 || fits && (c.minSummary == 0 || ws[last] >= c.minSummary) {
			return c.cols[last] == 4, t.render(w, ws, o.Colour)
		}
	}
	// A subject longer than the line: no borders, and a subject that does
	// not fit after its severity and status on a line of its own, so that
	// only a subject longer than the width is longer than it.
	return false, g.only([]int{0, 1, 3}).renderStacked(w, width, o.Colour)
}

// tableEvidenceLines is how many evidence items the table format shows per
// finding.
const tableEvidenceLines = 3

// writeFindingText writes one finding of the list under the table: its
// title, rule, summary (when the table has none for it), links, top
// evidence and the first paragraph of its remediation.
func writeFindingText(p *reportPrinter, n int, f analyze.Finding, withSummary bool) {
	sev := "[" + strings.ToUpper(f.Severity.String()) + "]"
	head := f.Title + ": " + f.Subject
	if f.Status != analyze.StatusFiring {
		head += " (" + string(f.Status) + ")"
	}
	p.linesPainted(fmt.Sprintf("%d. ", n), sev, severityColour(f.Severity), " ", head, false)
	p.lines("   rule ", f.Rule)
	if s := knownIssueText(f); s != "" {
		p.lines("   known issue ", s)
		if len(f.KnownIssue.Links) > 0 {
			p.lines("   see ", f.KnownIssue.Links[0])
		}
	}
	if withSummary {
		p.lines("   ", f.Summary)
	}
	for _, l := range f.Links {
		p.lines("   ", l.String())
	}
	for i, e := range f.Evidence {
		if i == tableEvidenceLines && p.width > 0 {
			more := len(f.Evidence) - i
			p.printf("     ... and %d more %s (see --format markdown or json)\n", more, english.Plural(more, "item", "items"))
			break
		}
		// "path:line  excerpt" on one line when it fits, else the excerpt
		// on a line of its own, shortened from its module path and spans
		// so that the message stays.
		src := sanitizeText(evidenceSource(e), false)
		text := strings.TrimSpace(sanitizeText(evidenceExcerpt(e), false))
		line := "   - " + src
		if text != "" && (p.width == 0 || utf8.RuneCountInString(line)+2+utf8.RuneCountInString(text) <= p.width) {
			line += "  " + text
			text = ""
		}
		p.printf("%s\n", line)
		for _, l := range evidenceLines(text, p.width-5) {
			p.printf("     %s\n", l)
		}
	}
	// An undecided finding's action is to collect what it lacks (its
	// summary says what); the fix is for when it fires.
	if fix := fixLine(f.Remediation); fix != "" && f.Status == analyze.StatusFiring {
		p.lines("   fix: ", fix)
	}
}

// tableEvidenceRows is how many lines an evidence excerpt may take under
// its source in the table format.
const tableEvidenceRows = 2

// evidenceLines lays an evidence excerpt out on at most tableEvidenceRows
// lines of room runes, wrapped at spaces: a log line shortened from its
// module path and spans (ShortenLogText), other text cut at a word.
func evidenceLines(text string, room int) []string {
	if text == "" {
		return nil
	}
	room = max(room, 20)
	n := tableEvidenceRows * room
	for range 8 {
		lines := wrapWords(ShortenLogText(text, n), room)
		if len(lines) <= tableEvidenceRows {
			return lines
		}
		over := 0
		for _, l := range lines[tableEvidenceRows:] {
			over += utf8.RuneCountInString(l) + 1
		}
		n -= max(over, room/4)
	}
	return wrapWords(ShortenLogText(text, room), room)[:1]
}

// evidenceSource is where evidence comes from: "path:line", or for a metric
// computed over several scrapes, which have no one path, "metrics".
func evidenceSource(e analyze.Evidence) string {
	if loc := e.Location(); loc != "" {
		return loc
	}
	if e.Series != "" {
		return "metrics"
	}
	return "signal " + e.Signal
}

// reportPrinter keeps the first write error.
type reportPrinter struct {
	w      io.Writer
	err    error
	width  int // 0: no wrapping
	colour bool
}

func (p *reportPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, unglue(fmt.Sprintf(format, args...)))
	}
}

// lines prints text after prefix, wrapped at spaces to the printer's width
// with the following lines indented as far as the prefix.
func (p *reportPrinter) lines(prefix, text string) {
	p.linesPainted(prefix, "", "", "", text, false)
}

// linesPainted is lines with a word (a severity, a status) between prefix
// and text, painted with sgr when colour is on, and sep after it. With hang,
// the text's following lines are indented under its first word, not under
// the word.
func (p *reportPrinter) linesPainted(prefix, word, sgr, sep, text string, hang bool) {
	text = sanitizeText(text, false)
	lead := prefix + word + sep
	indent := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	if hang {
		indent = strings.Repeat(" ", utf8.RuneCountInString(lead))
	}
	first := paint(p.colour, sgr, word) + sep
	if word == "" {
		first = ""
	}
	if p.width <= 0 {
		p.printf("%s%s\n", prefix, strings.TrimRight(first+text, " "))
		return
	}
	// The first line: as many words as fit after lead.
	words := strings.Fields(text)
	room := p.width - utf8.RuneCountInString(lead)
	line := ""
	i := 0
	for ; i < len(words); i++ {
		n := utf8.RuneCountInString(words[i])
		if line != "" && utf8.RuneCountInString(line)+1+n > room {
			break
		}
		if line != "" {
			line += " "
		} else if n > room {
			break // a long first word goes to the next line, whole
		}
		line += words[i]
	}
	// An indent alone (prefix all spaces, the long word on the next line)
	// is not a line.
	if head := strings.TrimRight(first+line, " "); strings.TrimSpace(prefix) != "" || head != "" {
		p.printf("%s\n", strings.TrimRight(prefix+head, " "))
	}
	if i == len(words) {
		return
	}
	for _, l := range wrapWords(strings.Join(words[i:], " "), max(p.width-len(indent), 1)) {
		// A word longer than the room is indented less, or not at all
		// when it is longer than the line.
		p.printf("%s%s\n", indent[:min(len(indent), max(0, p.width-utf8.RuneCountInString(l)))], l)
	}
}

func reportBundleLine(b analyze.BundleInfo) string {
	return b.Path + " (" + reportBundleShape(b) + ")"
}

// reportBundleShape is e.g. "tar.zst, 214 files".
func reportBundleShape(b analyze.BundleInfo) string {
	files := fmt.Sprintf("%d %s", b.Files, english.Plural(b.Files, "file", "files"))
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
	if s := knownLine(r); s != "" {
		p.printf("\n%s.\n", mdText(s))
	}
	if notable := notableRules(r); len(notable) > 0 {
		undecided := map[string]bool{}
		for _, f := range inconclusive {
			undecided[f.Rule] = true
		}
		p.printf("\n| Rule | Status | Reason |\n|---|---|---|\n")
		for _, rr := range notable {
			reason := mdText(rr.Reason)
			if rr.Status == analyze.RuleInconclusive && undecided[rr.ID] {
				reason = "what is missing and what to collect: see [Inconclusive](#inconclusive)"
			}
			p.printf("| %s | %s | %s |\n", mdCode(rr.ID), rr.Status, reason)
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
	if s := knownIssueText(f); s != "" {
		p.printf("\n**Known issue:** %s\n", mdText(s))
	}
	if s := strings.TrimSpace(f.Summary); s != "" {
		p.printf("\n%s\n", mdText(s))
	}
	for _, l := range f.Links {
		verb := "Likely caused by"
		if l.Relation == "explains" {
			verb = "Likely explains"
		}
		p.printf("\n**%s** %s (%s, fingerprint %s).", verb, mdCode(l.Rule), mdCode(l.Subject), mdCode(l.Fingerprint))
		if l.Deferred {
			p.printf(" Fix that first: this finding defers to it, one severity lower.")
		}
		p.printf("\n")
	}
	if len(f.Evidence) > 0 {
		p.printf("\n**Evidence**\n\n| Source | Time | Excerpt |\n|---|---|---|\n")
		for _, e := range f.Evidence {
			p.printf("| %s | %s | %s |\n", mdCode(evidenceSource(e)), reportTime(e.Time), mdExcerpt(evidenceExcerpt(e)))
		}
	}
	if ex, ok := x.Excerpt(f, mdExcerptEntries); ok {
		p.printf("\n**Timeline** (%s to %s, %d minutes either side of the evidence", timelineTime(ex.From), timelineTime(ex.To), int(analyze.ExcerptWindow/time.Minute))
		if ex.More > 0 {
			p.printf("; %d more %s in `rwdiag timeline`", ex.More, english.Plural(ex.More, "entry", "entries"))
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
