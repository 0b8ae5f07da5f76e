package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// grid is a table laid out to a width. Cells are escaped text on one line;
// cells of wrap columns are broken at spaces to fit, the others (ids,
// names, statuses) are kept whole: no identifier is ever broken.
type grid struct {
	header []string
	wrap   []bool // per column
	rows   [][]string
	// paint returns the SGR sequence for a cell, or "" (nil: none).
	paint func(row, col int) string
	// border draws ASCII rules (+---+, |) around and between rows; without
	// it, columns are two spaces apart and rows are not separated.
	border bool
}

// layout returns each column's width for a line of width columns (0: no
// limit), and whether the grid fits. Every column gets at least its longest
// word (wrap columns) or its longest cell (the others); what is left goes to
// the wrap columns, the last first, up to their longest cell.
func (g *grid) layout(width int) (ws []int, fits bool) {
	n := len(g.header)
	natural := make([]int, n)
	ws = make([]int, n)
	for c := range n {
		natural[c] = utf8.RuneCountInString(g.header[c])
		least := natural[c]
		for _, row := range g.rows {
			natural[c] = max(natural[c], utf8.RuneCountInString(row[c]))
			least = max(least, longestWord(row[c]))
		}
		if g.wrap[c] && width > 0 {
			ws[c] = least
		} else {
			ws[c] = natural[c]
		}
	}
	if width <= 0 {
		return ws, true
	}
	left := width - g.chrome() - sum(ws)
	if left < 0 {
		return ws, false
	}
	for c := n - 1; c >= 0 && left > 0; c-- {
		if !g.wrap[c] {
			continue
		}
		add := min(left, natural[c]-ws[c])
		ws[c] += add
		left -= add
	}
	return ws, true
}

// chrome is how many columns the borders or gaps take.
func (g *grid) chrome() int {
	if g.border {
		return 3*len(g.header) + 1
	}
	return 2 * (len(g.header) - 1)
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// render writes the grid with column widths ws (from layout).
func (g *grid) render(w io.Writer, ws []int, colour bool) error {
	p := &reportPrinter{w: w}
	rule := ""
	if g.border {
		var b strings.Builder
		b.WriteByte('+')
		for _, cw := range ws {
			b.WriteString(strings.Repeat("-", cw+2))
			b.WriteByte('+')
		}
		rule = b.String() + "\n"
		p.printf("%s", rule)
	}
	g.renderRow(p, -1, g.header, ws, false)
	if g.border {
		p.printf("%s", rule)
	}
	for i, row := range g.rows {
		g.renderRow(p, i, row, ws, colour)
		if g.border {
			p.printf("%s", rule)
		}
	}
	return p.err
}

func (g *grid) renderRow(p *reportPrinter, i int, row []string, ws []int, colour bool) {
	cells := make([][]string, len(row))
	height := 1
	for c, s := range row {
		if g.wrap[c] {
			cells[c] = wrapWords(s, ws[c])
		} else {
			cells[c] = []string{s}
		}
		height = max(height, len(cells[c]))
	}
	for l := range height {
		var b strings.Builder
		if g.border {
			b.WriteString("| ")
		}
		for c := range row {
			text := ""
			if l < len(cells[c]) {
				text = cells[c][l]
			}
			pad := strings.Repeat(" ", max(0, ws[c]-utf8.RuneCountInString(text)))
			if i >= 0 && g.paint != nil {
				text = paint(colour, g.paint(i, c), text)
			}
			b.WriteString(text + pad)
			switch {
			case g.border && c < len(row)-1:
				b.WriteString(" | ")
			case g.border:
				b.WriteString(" |")
			case c < len(row)-1:
				b.WriteString("  ")
			}
		}
		p.printf("%s\n", unglue(strings.TrimRight(b.String(), " ")))
	}
}

// row is one row of a borderless grid on one line (no wrapping), i its
// index for paint (-1: the header).
func (g *grid) row(ws []int, cells []string, i int, colour bool) string {
	var b strings.Builder
	for c, text := range cells {
		pad := strings.Repeat(" ", max(0, ws[c]-utf8.RuneCountInString(text)))
		if i >= 0 && g.paint != nil {
			text = paint(colour, g.paint(i, c), text)
		}
		b.WriteString(text + pad)
		if c < len(cells)-1 {
			b.WriteString("  ")
		}
	}
	return unglue(strings.TrimRight(b.String(), " "))
}

// only is the grid with just the columns cols, in that order.
func (g *grid) only(cols []int) *grid {
	t := &grid{border: g.border}
	for _, c := range cols {
		t.header = append(t.header, g.header[c])
		t.wrap = append(t.wrap, g.wrap[c])
	}
	for _, row := range g.rows {
		r := make([]string, len(cols))
		for i, c := range cols {
			r[i] = row[c]
		}
		t.rows = append(t.rows, r)
	}
	if g.paint != nil {
		t.paint = func(row, col int) string { return g.paint(row, cols[col]) }
	}
	return t
}

// stackIndent is how far renderStacked indents a last cell that goes on a
// line of its own.
const stackIndent = 4

// renderStacked writes the grid without borders for a line of width
// columns that is too narrow for it: each row on one line when it fits,
// else its last cell (a subject: an identifier, kept whole) on the next
// line, indented as far as the width allows. A line is then longer than
// width only when it is that cell alone, longer than width itself.
func (g *grid) renderStacked(w io.Writer, width int, colour bool) error {
	t := *g
	t.border = false
	ws, _ := t.layout(0)
	last := len(ws) - 1
	head := ws[:last:last]
	lead := sum(head) + t.chrome() // the last column's offset
	p := &reportPrinter{w: w}
	p.printf("%s\n", t.row(ws, t.header, -1, false))
	for i, row := range t.rows {
		cell := row[last]
		n := utf8.RuneCountInString(cell)
		if width <= 0 || lead+n <= width {
			p.printf("%s\n", t.row(ws, row, i, colour))
			continue
		}
		p.printf("%s\n", t.row(head, row[:last], i, colour))
		if t.paint != nil {
			cell = paint(colour, t.paint(i, last), cell)
		}
		p.printf("%s%s\n", strings.Repeat(" ", stackedIndent(n, width)), unglue(cell))
	}
	return p.err
}

// stackedIndent is how far to indent an identifier of n runes on a line of
// its own of width columns: stackIndent, less when that would take the
// line past width, 0 when the identifier alone is longer.
func stackedIndent(n, width int) int {
	if width <= 0 {
		return stackIndent
	}
	return max(0, min(stackIndent, width-n))
}
