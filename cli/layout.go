package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/rwdiag/rwdiag/analyze/report"
)

// pipedWidth is the width text output is laid out for when stdout is not a
// terminal (a pipe, a file, a ticket): report.DefaultWidth.
const pipedWidth = 100

// layout is how the text formats are laid out: the width (0 with wide) and
// colour, decided from the flags and stdout.
type layout struct {
	Width  int  // columns; 0 when Wide
	Wide   bool // one line per row, nothing cut (--wide, kubectl's -o wide)
	Colour bool
}

// layoutFlags are the flags of the commands that print tables.
func layoutFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "width", Usage: "lay text out for `N` columns (default: the terminal's width, 100 when not a terminal)"},
		&ucli.BoolFlag{Name: "wide", Usage: "one line per row, nothing wrapped or cut (kubectl's -o wide; -o here names the output file)"},
	}
}

// fileTerminal tells whether w is a terminal, and its width (0 if unknown).
func fileTerminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return true, 0
	}
	return true, cols
}

// decideLayout is the layout for output to w (out is -o's FILE, "" or "-"
// for w): --wide, else --width N, else the terminal's width, else 100.
// Colour is on only for a terminal, and not when NO_COLOR is set (to
// anything, as no-color.org says) or the output goes to a file.
func decideLayout(c *ucli.Context, w io.Writer, out string) (layout, error) {
	var l layout
	tty, cols := false, 0
	if out == "" || out == "-" {
		tty, cols = fileTerminal(w)
	}
	_, noColour := os.LookupEnv("NO_COLOR")
	l.Colour = tty && !noColour
	if s := c.String("width"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 20 || n > 10000 {
			return l, usageError(c, "--width %q: want a number of columns from 20 to 10000", s)
		}
		l.Width = n
	}
	switch {
	case c.Bool("wide"):
		if l.Width != 0 {
			return l, usageError(c, "give --width or --wide, not both")
		}
		l.Wide = true
	case l.Width != 0:
	case cols > 0:
		l.Width = cols
	default:
		l.Width = pipedWidth
	}
	return l, nil
}

func (l layout) String() string {
	return fmt.Sprintf("width=%d wide=%v colour=%v", l.Width, l.Wide, l.Colour)
}

// report is the layout as the report package's writers take it.
func (l layout) report() report.Options {
	return report.Options{Width: l.Width, Wide: l.Wide, Colour: l.Colour}
}
