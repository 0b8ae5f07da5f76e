package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rwdiag/rwdiag/internal/english"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

// WriteTimeline writes the timeline in format f: table, json or markdown.
// The table is laid out for DefaultWidth: see Options.WriteTimeline.
func WriteTimeline(w io.Writer, tl *analyze.Timeline, f Format) error {
	return writeTimeline(w, tl, f, Options{})
}

func writeTimeline(w io.Writer, tl *analyze.Timeline, f Format, o Options) error {
	return writeFormatted(w, f, "timeline", tl,
		func(w io.Writer) error { return writeTimelineMarkdown(w, tl) },
		func(w io.Writer) error { return writeTimelineText(w, tl, o) })
}

// writeFormatted writes v as indented JSON, or with its Markdown or table
// writer, buffered.
func writeFormatted(w io.Writer, f Format, what string, v any, markdown, table func(io.Writer) error) error {
	bw := bufio.NewWriter(w)
	var err error
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(termtext.Writer{W: bw}) // one Write per value: see writeJSON
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	case FormatMarkdown:
		err = markdown(bw)
	case FormatTable:
		err = table(bw)
	default:
		return fmt.Errorf("unknown %s format %q (want table, json or markdown)", what, f)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// timelineTime is how entries show their time: RFC 3339 in UTC with
// milliseconds, so that the column lines up.
func timelineTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func writeTimelineText(w io.Writer, tl *analyze.Timeline, o Options) error {
	p := &reportPrinter{w: w, width: o.width(), colour: o.Colour}
	g := &grid{header: []string{"TIME", "LEVEL", "SOURCE", "POD/CONTAINER"}, wrap: []bool{false, false, false, false}}
	if o.Wide {
		g.header = append(g.header, "FROM", "WHAT")
		g.wrap = append(g.wrap, false, false)
	}
	for _, e := range tl.Entries {
		row := []string{timelineTime(e.Time), e.Level, sanitizeText(string(e.Source), false), sanitizeText(entryWho(e), false)}
		if o.Wide {
			row = append(row, sanitizeText(e.Location(), false), strings.TrimSpace(sanitizeText(e.Text, false)))
		}
		g.rows = append(g.rows, row)
	}
	g.paint = func(row, col int) string {
		if col != 1 {
			return ""
		}
		return levelColour(tl.Entries[row].Level)
	}
	ws, _ := g.layout(0)
	if o.Wide {
		if err := g.render(w, ws, o.Colour); err != nil {
			return err
		}
	} else {
		// Each entry is a line of its time, level, source and pod, followed
		// by its text when the whole text fits there (under WHAT); else the
		// text goes on an indented line of its own, shortened from its
		// module path, not its message. Where the entry comes from is on
		// the next line, indented.
		lead := sum(ws) + g.chrome() + 2 // the text's column
		texts := make([]string, len(tl.Entries))
		header := g.row(ws, g.header, -1, false)
		for i, e := range tl.Entries {
			texts[i] = strings.TrimSpace(sanitizeText(e.Text, false))
			if texts[i] != "" && lead+utf8.RuneCountInString(texts[i]) <= p.width {
				header = padRight(g.row(ws, g.header, -1, false), lead) + "WHAT"
			}
		}
		p.printf("%s\n", header)
		// A pod/container that takes the line past the width goes on a line
		// of its own, and so does where the entry comes from: indented,
		// less or not at all when a long pod name leaves no room.
		for i, e := range tl.Entries {
			plain := g.row(ws, g.rows[i], i, false)
			text := texts[i]
			switch {
			case text != "" && lead+utf8.RuneCountInString(text) <= p.width:
				// Padded from the uncoloured row: colour takes no column.
				pad := strings.Repeat(" ", lead-utf8.RuneCountInString(plain))
				p.printf("%s%s%s\n", g.row(ws, g.rows[i], i, o.Colour), pad, text)
				text = ""
			case utf8.RuneCountInString(plain) > p.width:
				who := g.rows[i][3]
				p.printf("%s\n", g.row(ws[:3], g.rows[i][:3], i, o.Colour))
				p.printf("%s%s\n", strings.Repeat(" ", stackedIndent(utf8.RuneCountInString(who), p.width)), who)
			default:
				p.printf("%s\n", g.row(ws, g.rows[i], i, o.Colour))
			}
			switch {
			case text == "":
			case e.Source == analyze.SourceChain:
				// A chain of causes wraps: its end, the root cause, is
				// the point.
				p.lines("    ", text)
			default:
				p.printf("    %s\n", ShortenLogText(text, p.width-4))
			}
			if loc := e.Location(); loc != "" {
				from := "(" + sanitizeText(loc, false) + ")"
				p.printf("%s%s\n", strings.Repeat(" ", stackedIndent(utf8.RuneCountInString(from), p.width)), from)
			}
		}
	}
	p.printf("\n%d %s.\n", len(tl.Entries), english.Plural(len(tl.Entries), "entry", "entries"))
	for _, n := range tl.Notes {
		p.lines("Note: ", n)
	}
	return p.err
}

// levelColour is how a log level is marked on a terminal.
func levelColour(level string) string {
	switch level {
	case "ERROR", "FATAL":
		return sgrRed
	case "WARN", "WARNING":
		return sgrYellow
	}
	return ""
}

// entryWho is "pod/container", "pod" or "-".
func entryWho(e analyze.TimelineEntry) string {
	switch {
	case e.Pod != "" && e.Container != "":
		return e.Pod + "/" + e.Container
	case e.Pod != "":
		return e.Pod
	}
	return "-"
}

func writeTimelineMarkdown(w io.Writer, tl *analyze.Timeline) error {
	p := &reportPrinter{w: w}
	p.printf("# rwdiag timeline: %s\n\n", mdCode(tl.Bundle))
	if len(tl.Entries) == 0 {
		p.printf("No entries.\n")
	} else {
		writeTimelineTable(p, tl.Entries)
	}
	if len(tl.Notes) > 0 {
		p.printf("\n**Notes**\n\n")
		for _, n := range tl.Notes {
			p.printf("- %s\n", mdText(n))
		}
	}
	return p.err
}

// writeTimelineTable writes entries as a Markdown table.
func writeTimelineTable(p *reportPrinter, es []analyze.TimelineEntry) {
	p.printf("| Time | Level | Source | Pod | What | From |\n|---|---|---|---|---|---|\n")
	for _, e := range es {
		who := ""
		if e.Pod != "" {
			who = mdCode(entryWho(e))
		}
		p.printf("| %s | %s | %s | %s | %s | %s |\n", timelineTime(e.Time), e.Level, e.Source, who,
			mdExcerpt(e.Text), mdCode(e.Location()))
	}
}

// padRight pads s with spaces to n runes.
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}
