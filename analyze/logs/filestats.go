package logs

import (
	"slices"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// FileStats is what the Scanner saw of one file, whatever its queries: for
// a coverage report, and to tell a log in a format nothing reads from one
// where nothing happened.
type FileStats struct {
	Path, Pod, Container string
	Kind                 bundle.Kind
	// Lines is the number of lines read (of all the file, unless reading
	// it failed).
	Lines int
	// Sampled is how many of the first non-empty lines (at most
	// SampleLines) of a log file were looked at, and Parsed how many of
	// them parsed as log events: they carry a time (their own, kubectl's)
	// or a level, are JSON, or are a panic's header. A log with lines of
	// which none parsed (Sampled > 0, Parsed == 0) is in a format rwdiag
	// does not read. Both are 0 for files that are not logs.
	Sampled, Parsed int
	// First is the time of the first line that has one among a log's
	// first FirstLines lines; Last that of its last line that has one.
	// Zero when none does.
	First, Last time.Time
	// JSON is true for a log whose sampled lines are mostly JSON.
	JSON bool
}

// Bounds on the lines FileStats looks at.
const (
	SampleLines = 100  // non-empty lines sampled for Parsed and JSON
	FirstLines  = 1000 // lines looked at for First
)

// Files returns the statistics of every file Scan was given, in the order
// it was given them.
func (s *Scanner) Files() []FileStats { return slices.Clone(s.files) }

// sampler fills a log's FileStats from its first lines, given in order.
type sampler struct {
	st       *FileStats
	examined int
	json     int
}

// done reports whether the sampler wants no more lines.
func (sm *sampler) done() bool { return sm.examined >= FirstLines }

func (sm *sampler) observe(line []byte) {
	sm.examined++
	if len(line) == 0 {
		return
	}
	h := scanHead(line)
	if sm.st.Sampled < SampleLines {
		sm.st.Sampled++
		if h.head() || h.prefixEnd > 0 {
			sm.st.Parsed++
		}
		if h.json {
			sm.json++
		}
		sm.st.JSON = sm.json*2 > sm.st.Sampled
	}
	if sm.st.First.IsZero() && h.hasTime(line) {
		sm.st.First = lineTime(line)
	}
}
