package report

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rwdiag/rwdiag/analyze"
)

// DefaultWidth is the width, in columns, the text formats are laid out for
// when Options.Width is 0: what a report piped to a file or a ticket gets.
const DefaultWidth = 100

// Options say how the text formats (table, and the table form of the
// timeline, diff and rule list) are laid out. JSON, Markdown and HTML ignore
// them: they are never wrapped to a width nor coloured.
type Options struct {
	// Width is the line width in columns; 0 means DefaultWidth. Text wraps at
	// spaces within it; an identifier (a pod, a rule id, a path) is never
	// broken, so a line is longer than Width only when one word is.
	Width int
	// Wide lays everything out on one line per row and cuts nothing, for a
	// wide terminal or grep (kubectl's -o wide); Width is then ignored.
	Wide bool
	// Colour marks severities and statuses with ANSI colours (critical red,
	// warning yellow, passed green, inconclusive and skipped dim). The
	// caller decides: a terminal, and NO_COLOR unset.
	Colour bool
}

// width is the layout width; 0 means unlimited (Wide).
func (o Options) width() int {
	switch {
	case o.Wide:
		return 0
	case o.Width <= 0:
		return DefaultWidth
	}
	return o.Width
}

// Write is the package-level Write with these options.
func (o Options) Write(w io.Writer, r *analyze.Report, f Format, x *analyze.Forensics) error {
	return write(w, r, f, x, o)
}

// WriteTimeline is the package-level WriteTimeline with these options.
func (o Options) WriteTimeline(w io.Writer, tl *analyze.Timeline, f Format) error {
	return writeTimeline(w, tl, f, o)
}

// WriteDiff is the package-level WriteDiff with these options.
func (o Options) WriteDiff(w io.Writer, d *analyze.Diff, f Format) error {
	return writeDiff(w, d, f, o)
}

// ---- colour ----

// ANSI SGR sequences.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
)

// severityColour is how a severity is marked on a terminal.
func severityColour(s analyze.Severity) string {
	switch s {
	case analyze.SeverityCritical:
		return sgrBold + sgrRed
	case analyze.SeverityWarning:
		return sgrYellow
	case analyze.SeverityInfo:
		return sgrCyan
	}
	return ""
}

// ruleStatusColour is how a rule's status is marked on a terminal.
func ruleStatusColour(s analyze.RuleStatus) string {
	switch s {
	case analyze.RuleFired:
		return sgrBold
	case analyze.RulePassed:
		return sgrGreen
	case analyze.RuleInconclusive, analyze.RuleSkipped:
		return sgrDim
	case analyze.RuleError:
		return sgrRed
	}
	return ""
}

// paint wraps s, already escaped and padded, in sgr when colour is on. It is
// applied after layout, so widths never count the escape sequences.
func paint(colour bool, sgr, s string) string {
	if !colour || sgr == "" || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// ---- wrapping ----

// wrapWords breaks s into lines of at most width runes at spaces. A word
// longer than width is never broken: it gets a line of its own, longer than
// width. width 0 means one line.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for word := range strings.FieldsSeq(s) {
		switch {
		case line == "":
			line = word
		case width <= 0 || utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
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

// longestWord is the width of s's longest word: the narrowest a column of
// s can be without breaking one.
func longestWord(s string) int {
	n := 0
	for word := range strings.FieldsSeq(s) {
		n = max(n, utf8.RuneCountInString(word))
	}
	return n
}

// cutWords shortens s to at most n runes at a word boundary, ending it with
// "…" when it cuts. A first word longer than n is cut inside (there is no
// other way to stay within n); n 0 means no limit.
func cutWords(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	runes := []rune(s)
	cut := n - 1
	at := cut
	for at > 0 && runes[at] != ' ' {
		at--
	}
	if at < cut/2 { // no space near: cut inside the word
		at = cut
	}
	return strings.TrimRight(string(runes[:at]), " ,;:.") + "…"
}

// firstParagraph is the first paragraph of Markdown text that says
// something, on one line: not a code fence; heading and list markers
// removed.
func firstParagraph(md string) string {
	var words []string
	fenced := false
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			if len(words) > 0 {
				break
			}
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if line == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		if len(words) == 0 {
			line = strings.TrimSpace(strings.TrimLeft(line, "#"))
			line = strings.TrimPrefix(strings.TrimPrefix(line, "- "), "* ")
			line = strings.TrimSpace(line)
		}
		words = append(words, line)
	}
	return strings.Join(words, " ")
}

// fixMaxRunes is how long the text formats' "fix:" line may be before it is
// cut to its first sentence.
const fixMaxRunes = 240

// fixLine is what the text formats show of a remediation: its first
// paragraph, or when that is long its first sentence. It ends at a sentence
// (or the paragraph's own end), never inside a word.
func fixLine(md string) string {
	p := firstParagraph(md)
	if utf8.RuneCountInString(p) <= fixMaxRunes {
		return p
	}
	if i := sentenceEnd(p); i > 0 && utf8.RuneCountInString(p[:i]) <= fixMaxRunes {
		return p[:i]
	}
	return cutWords(p, fixMaxRunes)
}

// sentenceEnd is the byte offset just after s's first sentence: a '.', '!'
// or '?' (or ':' before a list) followed by a space and a capital letter or
// a digit. 0 when there is none.
func sentenceEnd(s string) int {
	for i := 0; i+2 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?', ':':
		default:
			continue
		}
		if s[i+1] != ' ' {
			continue
		}
		next := s[i+2]
		if next >= 'A' && next <= 'Z' || next >= '0' && next <= '9' && s[i] == ':' {
			// "e.g. Kafka" is not the end of a sentence.
			if prev := strings.LastIndexByte(s[:i], ' '); s[i] == '.' && strings.Contains(s[prev+1:i], ".") {
				continue
			}
			return i + 1
		}
	}
	return 0
}

// nbsp glues words that wrapping must keep together ("latency (promql)"):
// a private-use rune, one column like the space it stands for and no space
// to strings.Fields (U+00A0 is); unglue turns it back into a space when the
// line is printed.
const nbsp = "\ue000"

func glue(s string) string   { return strings.ReplaceAll(s, " ", nbsp) }
func unglue(s string) string { return strings.ReplaceAll(s, nbsp, " ") }
