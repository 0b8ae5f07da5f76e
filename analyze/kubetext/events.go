package kubetext

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rwdiag/rwdiag/internal/lazyre"
)

// eventColumns is the header DescribeEvents has printed since kubectl 1.9.
var eventColumns = []string{"Type", "Reason", "Age", "From", "Message"}

// eventAgeRe is DescribeEvents' interval: "<age>" or
// "<last> (x<count> over <first>)"; an age is HumanDuration's, "<invalid>"
// or "<unknown>".
var eventAgeRe = lazyre.New(`^([0-9a-z]+|<invalid>|<unknown>)(?: \(x([0-9]+) over ([0-9a-z]+|<invalid>|<unknown>)\))?$`)

var wordRe = lazyre.New(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// eventLine reads a line under "Events:".
func (p *describeParser) eventLine(l line, rel int, text string) {
	if p.evHeader == nil {
		h := parseHeader(text)
		if !slices.Equal(h.names, eventColumns) {
			p.problem(l, "not the \"Type  Reason  Age  From  Message\" header of kubectl's events table")
			p.evHeader = &header{} // read no rows
			return
		}
		p.evHeader = &h
		return
	}
	if len(p.evHeader.names) == 0 {
		return
	}
	if body := strings.TrimSpace(text); strings.Trim(body, "- ") == "" {
		return // "----  ------  ----  ----  -------"
	}
	if rel == 2 {
		if e, ok := p.eventRow(text); ok {
			e.Line = l.n
			p.flush()
			p.cur.Events = append(p.cur.Events, e)
			p.event = &p.cur.Events[len(p.cur.Events)-1]
			p.blank = false
			return
		}
	}
	// A message with a newline goes on at the start of the next line.
	if p.event != nil && !p.blank {
		p.cont(&p.event.Message, text)
		return
	}
	p.problem(l, "not a row of the events table")
}

// eventRow reads a row by the header's columns, or, when the columns
// moved (a multi-line message restarts the tabwriter's alignment), by runs
// of two spaces.
func (p *describeParser) eventRow(text string) (Event, bool) {
	if cells, ok := p.evHeader.cut(text); ok {
		if e, ok := eventFromCells(cells); ok {
			return e, true
		}
	}
	cells := splitWide(text, len(eventColumns))
	if len(cells) == len(eventColumns)-1 {
		cells = append(cells, "") // an empty message
	}
	if len(cells) != len(eventColumns) {
		return Event{}, false
	}
	return eventFromCells(cells)
}

func eventFromCells(c []string) (Event, bool) {
	if !wordRe.Re().MatchString(c[0]) || !wordRe.Re().MatchString(c[1]) {
		return Event{}, false
	}
	m := eventAgeRe.Re().FindStringSubmatch(c[2])
	if m == nil {
		return Event{}, false
	}
	e := Event{Type: c[0], Reason: c[1], Age: m[1], FirstAge: m[1], Count: 1, From: c[3], Message: c[4]}
	if m[2] != "" {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return Event{}, false
		}
		e.Count, e.FirstAge = n, m[3]
	}
	return e, true
}
