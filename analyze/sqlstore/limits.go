package sqlstore

import (
	"errors"
	"fmt"
	"time"
)

// Limits bound what a Store loads and what one query may cost, so that no
// bundle and no query can exhaust the machine. A zero field takes the
// default; a negative one means no limit.
type Limits struct {
	// MaxFieldBytes cuts a longer CSV field: the value keeps its first
	// MaxFieldBytes bytes (never half a UTF-8 character) followed by
	// "…[cut by rwdiag: field longer than N bytes]". Default 1 MiB, as
	// bundle.DefaultMaxLineBytes cuts log lines.
	MaxFieldBytes int
	// MaxRecordBytes cuts a longer CSV row: the field that crosses it is cut
	// with "…[cut by rwdiag: row longer than N bytes]" and the fields after
	// it are dropped (NULL). Default 16 MiB.
	MaxRecordBytes int
	// MaxRows is the most rows loaded from one CSV dump; the rest are not
	// loaded. Default 5,000,000.
	MaxRows int
	// MaxFileBytes is the most bytes loaded from one CSV dump, not counting
	// what was dropped of cut fields; the rows past it are not loaded.
	// Default 512 MiB, as a kubernetes/*.json file. (The dropped part of a
	// cut field is read through, streaming, which the bundle's own limit on
	// an entry bounds: bundle.DefaultMaxEntryBytes.)
	MaxFileBytes int64
	// MaxTotalBytes is the most bytes loaded from all CSV dumps of the store
	// together; a dump past it is loaded in part or not at all. Default 2 GiB.
	MaxTotalBytes int64

	// QueryTimeout stops a query that runs longer. Default 10 s; the
	// caller's context may end it earlier.
	QueryTimeout time.Duration
	// MaxResultRows stops a query that returns more rows. Default 1,000,000.
	MaxResultRows int
	// MaxResultBytes stops a query whose result values add up to more
	// bytes (a number counts 8, a string its length, each value 16 more).
	// Default 256 MiB.
	MaxResultBytes int64
	// MaxValueBytes is SQLite's SQLITE_LIMIT_LENGTH during a query: no
	// string or blob longer than this is built (zeroblob(1e9), printf with
	// a huge width, group_concat over a large table fail at once). Default
	// 64 MiB; it is raised to hold the longest value loading can make.
	MaxValueBytes int
}

// Default limits; see Limits.
const (
	DefaultMaxFieldBytes  = 1 << 20
	DefaultMaxRecordBytes = 16 << 20
	DefaultMaxRows        = 5_000_000
	DefaultMaxFileBytes   = 512 << 20
	DefaultMaxTotalBytes  = 2 << 30
	DefaultQueryTimeout   = 10 * time.Second
	DefaultMaxResultRows  = 1_000_000
	DefaultMaxResultBytes = 256 << 20
	DefaultMaxValueBytes  = 64 << 20
)

// DefaultLimits returns the limits NewStore uses.
func DefaultLimits() Limits {
	return Limits{}.withDefaults()
}

// withDefaults fills zero fields with the defaults and turns negative ones
// into "none": -1, or for a time 0.
func (l Limits) withDefaults() Limits {
	defInt := func(v *int, d int) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = -1
		}
	}
	defInt64 := func(v *int64, d int64) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = -1
		}
	}
	defInt(&l.MaxFieldBytes, DefaultMaxFieldBytes)
	defInt(&l.MaxRecordBytes, DefaultMaxRecordBytes)
	defInt(&l.MaxRows, DefaultMaxRows)
	defInt64(&l.MaxFileBytes, DefaultMaxFileBytes)
	defInt64(&l.MaxTotalBytes, DefaultMaxTotalBytes)
	switch {
	case l.QueryTimeout == 0:
		l.QueryTimeout = DefaultQueryTimeout
	case l.QueryTimeout < 0:
		l.QueryTimeout = -1
	}
	defInt(&l.MaxResultRows, DefaultMaxResultRows)
	defInt64(&l.MaxResultBytes, DefaultMaxResultBytes)
	defInt(&l.MaxValueBytes, DefaultMaxValueBytes)
	return l
}

// ErrLimit is wrapped by every error that reports a limit of Limits: a
// query stopped by its budget, or a CSV dump loaded in part. A rule whose
// query fails with it exceeded its budget; errors.Is tells it from an SQL
// error such as a column the bundle's RisingWave version lacks.
var ErrLimit = errors.New("limit reached")

// LimitError is a query stopped at one of the Limits.
type LimitError struct {
	// Limit names the field of Limits, e.g. "QueryTimeout".
	Limit string
	// Msg says what was exceeded, e.g. "ran longer than 10s".
	Msg string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("query stopped: it %s (sqlstore limit %s)", e.Msg, e.Limit)
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// limitedLoad is a CSV dump loaded in part, or with values cut.
type limitedLoad struct{ msg string }

func (e *limitedLoad) Error() string        { return e.msg }
func (e *limitedLoad) Is(target error) bool { return target == ErrLimit }

// sizeText writes a byte count as "1 MiB" when it is a whole number of
// MiB or KiB, else as bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
