package metrics

import (
	"bytes"
	"math"
	"strconv"

	"github.com/prometheus/prometheus/model/value"
)

// A scrape of a pod after its first is mostly the same series again: the
// lexer of the text parser is the bulk of the cost of the lines rules want.
// addKnown adds such a scrape without it when every line is one it can read
// exactly as the parser would: a TYPE line in the plain form clients write,
// or a sample line whose series text is one the parser read before for the
// pod (raw), followed by a value and maybe a timestamp. Otherwise it adds
// nothing and the parser reads the whole scrape, errors and all.

type knownSample struct {
	ms *memSeries
	t  int64
	v  float64
}

// addKnown adds the samples of b, the lines wantedLines kept, when it can
// read every line, and reports whether it did. at is the scrape's time.
func (s *Store) addKnown(b []byte, raw map[string]*memSeries, at int64) bool {
	if len(raw) == 0 || s.parseAll {
		return false
	}
	known := s.known[:0]
	defer func() { s.known = known[:0] }()
	for r := 0; r < len(b); {
		end := r + bytes.IndexByte(b[r:], '\n') + 1
		if end == r {
			return false // AddScrape ends b with a newline; be safe
		}
		line := b[r : end-1]
		r = end
		if len(line) > 0 && line[0] == '#' {
			if !plainTypeLine(line) {
				return false
			}
			continue
		}
		ms, t, v, ok := knownSampleLine(line, raw, at)
		if !ok {
			return false
		}
		known = append(known, knownSample{ms, t, v})
	}
	for _, k := range known {
		s.append(k.ms, k.t, k.v)
	}
	s.nknown++
	return true
}

// plainTypeLine reports whether line, without its newline, is
// `# TYPE name type` with single spaces, a name the lexer reads as one and a
// type the parser accepts: such a line only sets the type, which matters
// for the labels of series not seen before.
func plainTypeLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("# TYPE "))
	if !ok {
		return false
	}
	name, typ, ok := bytes.Cut(rest, []byte(" "))
	if !ok || !plainName(name) {
		return false
	}
	switch string(typ) {
	case "counter", "gauge", "histogram", "summary", "untyped":
		return true
	}
	return false
}

// plainName reports whether b matches the lexer's metric name,
// [a-zA-Z_:][a-zA-Z0-9_:]*.
func plainName(b []byte) bool {
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// knownSampleLine reads a sample line, without its newline, as
// `<series> <value>` or `<series> <value> <timestamp>` with blanks (spaces
// and tabs) between and after, where series is a key of raw: text the
// parser returned as a series before, which ends with a name's character
// or `}`, so that the blank after it is needed and the split is the
// parser's. The value is parsed as the parser does (no hex floats or
// underscores; NaN made Prometheus' normal NaN), the timestamp as
// [0-9]+ in an int64; anything else is not ok.
func knownSampleLine(line []byte, raw map[string]*memSeries, at int64) (ms *memSeries, t int64, v float64, ok bool) {
	line = bytes.TrimRight(line, " \t")
	// Up to two tokens from the end: the last, and the one before it.
	i := lastBlank(line)
	if i < 0 {
		return nil, 0, 0, false
	}
	last := line[i+1:]
	head := bytes.TrimRight(line[:i], " \t")
	// A token before the last that starts with `{` is not a value: the
	// lexer reads on into the labels of `name {...}`.
	if j := lastBlank(head); j >= 0 && allDigits(last) && head[j+1] != '{' {
		// `<series> <value> <timestamp>`
		val := head[j+1:]
		if ms = raw[string(bytes.TrimRight(head[:j], " \t"))]; ms != nil {
			v, okV := parseValue(val)
			ts, err := strconv.ParseInt(string(last), 10, 64)
			if !okV || err != nil {
				return nil, 0, 0, false
			}
			return ms, ts, v, true
		}
	}
	// `<series> <value>`
	if ms = raw[string(head)]; ms == nil {
		return nil, 0, 0, false
	}
	v, okV := parseValue(last)
	if !okV {
		return nil, 0, 0, false
	}
	return ms, at, v, true
}

func lastBlank(b []byte) int { return bytes.LastIndexAny(b, " \t") }

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseValue parses a sample value token as the text parser does.
func parseValue(b []byte) (float64, bool) {
	// The lexer's value is [^{ \t\n]+; the parser refuses what Go 1.13
	// added to float syntax.
	if len(b) == 0 || bytes.ContainsAny(b, "{pP_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	if math.IsNaN(v) {
		v = math.Float64frombits(value.NormalNaN)
	}
	return v, true
}
