// Package report renders what analyze found for people and for programs:
// a report of findings as a terminal table, Markdown, JSON (the stable
// contract of docs/report-schema.md) or one self-contained HTML page, and
// a timeline or a diff of two reports as a table, Markdown or JSON.
//
//	report.Write(w, rep, report.FormatJSON)
//	report.WriteWith(w, rep, report.FormatHTML, forensics)
//	report.WriteTimeline(w, tl, report.FormatMarkdown)
//	report.WriteDiff(w, d, report.FormatTable)
//
// The types it renders (analyze.Report, Finding, Timeline, Diff...) and
// their JSON shape belong to analyze; report owns only their presentation.
// Nothing it writes depends on the time it is written, so the golden files
// in testdata/golden hold byte for byte (go test -run TestReportGolden
// -update rewrites them).
//
// report imports analyze; analyze never imports report.
package report
