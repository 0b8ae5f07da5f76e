package report

import (
	"io"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/internal/english"

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
		wrap:   []bool{false, false, false, false, false, false, true},
	}
	for _, r := range rows {
		versions := r.Versions
		if versions == "" {
			versions = "all"
		}
		// Each signal ("latency (promql)") and the status are kept whole
		// when wrapping: glued, unglued when printed.
		signals := make([]string, len(r.Signals))
		for i, s := range r.Signals {
			signals[i] = glue(sanitizeText(s, false))
		}
		g.rows = append(g.rows, []string{
			sanitizeText(r.ID, false), sanitizeText(r.Pattern, false), r.Severity.String(),
			sanitizeText(versions, false), glue(sanitizeText(r.Status, false)), sanitizeText(r.File, false),
			strings.Join(signals, ", "),
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
	p := &reportPrinter{w: w, width: width, colour: o.Colour}
	if ws, fits := g.layout(width); width == 0 || fits && ws[6] >= rulesMinSignals {
		if err := g.render(w, ws, o.Colour); err != nil {
			return err
		}
		p.printf("%d %s\n", len(rows), english.Plural(len(rows), "rule", "rules"))
		return p.err
	}
	// Stacked: the columns that fit on the rule's line, the others on
	// indented lines under it (the signals wrapped).
	for _, main := range [][]int{{0, 1, 2, 3, 4}, {0, 2, 4}, {0, 2}} {
		t := g.only(main)
		ws, fits := t.layout(width)
		if !fits && len(main) > 2 {
			continue
		}
		p.printf("%s\n", t.row(ws, t.header, -1, false))
		for i, row := range g.rows {
			p.printf("%s\n", t.row(ws, t.rows[i], i, o.Colour))
			var details []string
			for _, c := range []int{1, 3, 4, 5} {
				if !slices.Contains(main, c) {
					details = append(details, strings.ToLower(g.header[c])+": "+row[c])
				}
			}
			p.lines("    ", strings.Join(details, "; "))
			p.lines("    signals: ", row[6])
		}
		break
	}
	p.printf("%d %s\n", len(rows), english.Plural(len(rows), "rule", "rules"))
	return p.err
}
