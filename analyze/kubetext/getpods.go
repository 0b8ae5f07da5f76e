package kubetext

import (
	"io"
	"strconv"
	"strings"

	"github.com/rwdiag/rwdiag/internal/lazyre"
)

// The pod table's columns (kubernetes pkg/printers/internalversion/printers.go,
// podColumnDefinitions, upper-cased by cli-runtime's table printer):
// NAME READY STATUS RESTARTS AGE, with -o wide also IP NODE NOMINATED NODE
// READINESS GATES (the last two since Kubernetes 1.11 and 1.12). -A puts
// NAMESPACE first and --show-labels LABELS last.
var (
	podColumnsNeeded = []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}
	podColumnsKnown  = map[string]bool{
		"NAMESPACE": true, "NAME": true, "READY": true, "STATUS": true, "RESTARTS": true, "AGE": true,
		"IP": true, "NODE": true, "NOMINATED NODE": true, "READINESS GATES": true, "LABELS": true,
	}
	plainColumns = []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}
	wideColumns  = []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}

	readyRe = lazyre.New(`^[0-9]+/[0-9]+$`)
	// printPod's RESTARTS: "<n>", or since Kubernetes 1.22 "<n> (<age> ago)".
	restartsRe = lazyre.New(`^([0-9]+)(?: \(([0-9a-z]+|<invalid>|<unknown>) ago\))?$`)
	headerRe   = lazyre.New(`^[A-Z][A-Z0-9_-]*(?: {1,}[A-Z][A-Z0-9_-]*)*$`)
)

// ParseGetPods reads the `kubectl get pods` table: plain, -o wide, with a
// NAMESPACE column (-A), with LABELS (--show-labels), without headers
// (--no-headers, told by the column count), and "pod/" names (--show-kind,
// `kubectl get all`). Tables of other kinds in the same text are skipped
// with a Problem. Rows it cannot read become Problems with their line
// numbers. The error is for reading r only.
func ParseGetPods(r io.Reader) ([]PodRow, []Problem, error) {
	var probs []Problem
	lines, err := readLines(r, &probs)
	g := getParser{probs: probs}
	for _, l := range lines {
		g.line(l)
	}
	return g.rows, g.probs, err
}

type getParser struct {
	rows  []PodRow
	probs []Problem
	cols  []string // the current pod table's columns; nil: none yet
	h     header
	other bool // the current table is not a pod table
}

func (g *getParser) problem(l line, reason string) {
	if len(g.probs) == maxProblems {
		reason = "too many problems; no more are reported"
	}
	if len(g.probs) <= maxProblems {
		g.probs = append(g.probs, problem(l.n, l.text, reason))
	}
}

func (g *getParser) line(l line) {
	t := strings.TrimSpace(l.text)
	switch {
	case t == "" || isNoise(t):
		return
	case strings.HasPrefix(t, "No resources found"):
		return
	case headerRe.Re().MatchString(t) && strings.Contains(" "+t+" ", " NAME "):
		g.header(l)
		return
	case g.other:
		return
	}
	cols := g.cols
	if cols == nil {
		cols = headerless(t)
		if cols == nil {
			g.problem(l, "not a row of the kubectl get pods table, and no header came before it")
			return
		}
	}
	cells, ok := podCells(t, cols)
	if !ok && g.cols != nil {
		// A cell may be empty (a label column of -L): cut at the
		// header's columns. No cell holds two spaces.
		cells, ok = g.h.cut(l.text)
		for _, c := range cells {
			ok = ok && !strings.Contains(c, "  ")
		}
	}
	if !ok {
		g.problem(l, "row does not fit the table's columns ("+strings.Join(cols, ", ")+")")
		return
	}
	row, reason := podRow(cols, cells)
	if reason != "" {
		g.problem(l, reason)
		return
	}
	row.Line = l.n
	g.rows = append(g.rows, row)
}

// header starts a table.
func (g *getParser) header(l line) {
	h := parseHeader(l.text)
	names := h.names
	if !hasAll(names, podColumnsNeeded) {
		// Pasted text whose runs of spaces were squeezed: one space apart.
		names = squeezedHeader(strings.Fields(l.text))
	}
	if !hasAll(names, podColumnsNeeded) {
		g.cols, g.other = nil, true
		g.problem(l, "not a pod table (its columns are not NAME READY STATUS RESTARTS AGE); its rows are skipped")
		return
	}
	for _, n := range names {
		if !podColumnsKnown[n] {
			g.problem(l, "unknown column "+strings.ToUpper(n)+" in the pod table; it is ignored")
		}
	}
	g.cols, g.h, g.other = names, h, false
	if len(h.names) != len(names) {
		g.h = header{}
	}
}

func hasAll(names, need []string) bool {
	for _, n := range need {
		found := false
		for _, m := range names {
			found = found || m == n
		}
		if !found {
			return false
		}
	}
	return true
}

// squeezedHeader joins the two-word column names of a header whose words
// are one space apart.
func squeezedHeader(words []string) []string {
	var names []string
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) && (words[i] == "NOMINATED" && words[i+1] == "NODE" || words[i] == "READINESS" && words[i+1] == "GATES") {
			names = append(names, words[i]+" "+words[i+1])
			i++
			continue
		}
		names = append(names, words[i])
	}
	return names
}

// headerless tells the columns of a row printed with --no-headers by its
// cell count and where its READY cell is.
func headerless(t string) []string {
	f := mergeRestarts(strings.Fields(t))
	switch {
	case len(f) == len(plainColumns) && readyRe.Re().MatchString(f[1]):
		return plainColumns
	case len(f) == len(wideColumns) && readyRe.Re().MatchString(f[1]):
		return wideColumns
	case len(f) == len(plainColumns)+1 && readyRe.Re().MatchString(f[2]):
		return append([]string{"NAMESPACE"}, plainColumns...)
	case len(f) == len(wideColumns)+1 && readyRe.Re().MatchString(f[2]):
		return append([]string{"NAMESPACE"}, wideColumns...)
	}
	return nil
}

// podCells splits a row into its cells. No cell of the pod table holds a
// space but RESTARTS ("6 (2m13s ago)"), so the row is split on blanks and
// that cell put back together; this also reads rows whose runs of spaces
// were squeezed in a paste.
func podCells(t string, cols []string) ([]string, bool) {
	f := mergeRestarts(strings.Fields(t))
	return f, len(f) == len(cols)
}

// mergeRestarts joins "6", "(2m13s", "ago)" into "6 (2m13s ago)".
func mergeRestarts(f []string) []string {
	out := make([]string, 0, len(f))
	for i := 0; i < len(f); i++ {
		if i+2 < len(f) && isDigits(f[i]) && strings.HasPrefix(f[i+1], "(") && f[i+2] == "ago)" {
			out = append(out, f[i]+" "+f[i+1]+" "+f[i+2])
			i += 2
			continue
		}
		out = append(out, f[i])
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// podRow converts cells to a row; a non-empty reason says what is wrong.
func podRow(cols, cells []string) (PodRow, string) {
	var row PodRow
	for i, c := range cols {
		v := cells[i]
		switch c {
		case "NAMESPACE":
			row.Namespace = v
		case "NAME":
			row.Name = strings.TrimPrefix(strings.TrimPrefix(v, "pod/"), "pods/")
		case "READY":
			if !readyRe.Re().MatchString(v) {
				return row, "READY " + strconv.Quote(v) + " is not <ready>/<total>"
			}
			row.Ready = v
		case "STATUS":
			row.Status = v
		case "RESTARTS":
			m := restartsRe.Re().FindStringSubmatch(v)
			if m == nil {
				return row, "RESTARTS " + strconv.Quote(v) + " is not a count"
			}
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return row, "RESTARTS " + strconv.Quote(v) + " is not a count"
			}
			row.Restarts, row.LastRestartAgo = n, m[2]
		case "AGE":
			row.Age = v
		case "IP":
			row.IP = none(v)
		case "NODE":
			row.Node = none(v)
		case "LABELS":
			row.Labels = parseLabelList(v)
		}
	}
	if row.Name == "" || row.Status == "" {
		return row, "row without a NAME or STATUS"
	}
	return row, ""
}

func none(s string) string {
	if s == "<none>" {
		return ""
	}
	return s
}

// parseLabelList reads --show-labels' "k=v,k2=v2" ("<none>" is none).
func parseLabelList(s string) map[string]string {
	if s == "" || s == "<none>" {
		return nil
	}
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if k != "" {
			m[k] = v
		}
	}
	return m
}
