package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

// WriteTimeline writes the timeline in format f: table, json or markdown.
func WriteTimeline(w io.Writer, tl *analyze.Timeline, f Format) error {
	return writeFormatted(w, f, "timeline", tl,
		func(w io.Writer) error { return writeTimelineMarkdown(w, tl) },
		func(w io.Writer) error { return writeTimelineText(w, tl) })
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

// timelineTextWidth is how much of an entry's text the table shows.
const timelineTextWidth = 240

func writeTimelineText(w io.Writer, tl *analyze.Timeline) error {
	p := &reportPrinter{w: w}
	podW, srcW := len("POD"), len("SOURCE")
	for _, e := range tl.Entries {
		podW = max(podW, cellWidth(sanitizeText(entryWho(e), false)))
		srcW = max(srcW, len(e.Source))
	}
	podW = min(podW, 40)
	p.printf("%-24s  %-5s  %-*s  %-*s  %s\n", "TIME", "LEVEL", srcW, "SOURCE", podW, "POD", "WHAT (FROM)")
	for _, e := range tl.Entries {
		text := truncateRunes(strings.TrimSpace(sanitizeText(e.Text, false)), timelineTextWidth, "...")
		p.printf("%-24s  %-5s  %-*s  %-*s  %s\n", timelineTime(e.Time), e.Level, srcW, e.Source, podW,
			truncateRunes(sanitizeText(entryWho(e), false), podW, "~"), text)
		p.printf("%*s(%s)\n", 24+2+5+2+srcW+2+podW+2, "", sanitizeText(e.Location(), false))
	}
	p.printf("\n%d %s.\n", len(tl.Entries), pluralize(len(tl.Entries), "entry", "entries"))
	for _, n := range tl.Notes {
		p.lines("Note: ", n)
	}
	return p.err
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
