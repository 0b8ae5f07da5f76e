package report

import (
	"io"
	"strings"

	"github.com/rwdiag/rwdiag/analyze"
)

// RuleRow is one rule in `rwdiag rules list`. Fields are printed escaped
// (they may come from a third-party rule file).
type RuleRow struct {
	ID       string
	Pattern  string
	Severity analyze.Severity
	// Versions is the rule's RisingWave version range, "" for all.
	Versions string
	// Signals are the rule's signals, e.g. "latency (promql)".
	Signals []string
	File    string
	// Status is "active" or why the rule is left out, e.g. "skipped:
	// outside <2.0".
	Status string
}

// rulesMinSignals is the narrowest the SIGNALS column may be before the
// signals are moved under their rule.
const rulesMinSignals = 30

// WriteRules writes the rule list as a table laid out to o's width,
// followed by the count ("1 rule", "6 rules"). When the line is too narrow
// for every column, each rule's file and signals go on indented lines
// under it; with Wide, each rule is one line.
func (o Options) WriteRules(w io.Writer, rows []RuleRow) error {
	g := &grid{
		header: []string{"ID", "PATTERN", "SEVERITY", "VERSIONS", "STATUS", "FILE", "SIGNALS"},
		wrap:   []bool{false, false, false, false, true, false, true},
	}
	for _, r := range rows {
		versions := r.Versions
		if versions == "" {
			versions = "all"
		}
		g.rows = append(g.rows, []string{
			sanitizeText(r.ID, false), sanitizeText(r.Pattern, false), r.Severity.String(),
			sanitizeText(versions, false), sanitizeText(r.Status, false), sanitizeText(r.File, false),
			sanitizeText(strings.Join(r.Signals, ", "), false),
		})
	}
	g.paint = func(row, col int) string {
		switch {
		case col == 2:
			return severityColour(rows[row].Severity)
		case col == 4 && rows[row].Status != "active":
			return sgrDim
		}
		return ""
	}
	width := o.width()
	ws, fits := g.layout(width)
	p := &reportPrinter{w: w, width: width, colour: o.Colour}
	if width == 0 || fits && ws[6] >= rulesMinSignals {
		if err := g.render(w, ws, o.Colour); err != nil {
			return err
		}
	} else {
		// Stacked: the short columns on the rule's line, then its file and
		// signals, wrapped, indented under it.
		short := &grid{header: g.header[:5], wrap: make([]bool, 5), paint: g.paint}
		for _, row := range g.rows {
			short.rows = append(short.rows, row[:5])
		}
		ws, _ := short.layout(width)
		p.printf("%s\n", short.row(ws, short.header, -1, false))
		for i, row := range g.rows {
			p.printf("%s\n", short.row(ws, short.rows[i], i, o.Colour))
			p.lines("    file: ", row[5])
			p.lines("    signals: ", row[6])
		}
	}
	p.printf("%d %s\n", len(rows), pluralize(len(rows), "rule", "rules"))
	return p.err
}
