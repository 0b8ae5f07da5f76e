package analyze

import "github.com/rwdiag/rwdiag/analyze/evidence"

// Row is one result of a signal: see evidence.Row.
type Row = evidence.Row
