package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// sqlSchema is the schema the dumped relations are loaded into. SQLite looks
// in attached schemas for unqualified names, so both "rw_actors" and
// "rw_catalog.rw_actors" (as RisingWave's runbooks write it) name the table.
const sqlSchema = "rw_catalog"

// sqlDSN opens a private in-memory database. _dqs=0 makes a double-quoted
// name always an identifier, as in PostgreSQL: a misspelt "Create Typ" is an
// error rather than a string literal.
const sqlDSN = ":memory:?_dqs=0"

// placeholderColumn is the one column of the empty tables MissingTables
// creates to look past a missing table.
const placeholderColumn = "rwdiag placeholder"

// TableInfo describes a table loaded from a CSV dump.
type TableInfo struct {
	// Name is the relation, e.g. "rw_worker_nodes" or "show_jobs".
	Name string `json:"name"`
	// Path is the bundle path it was loaded from.
	Path string `json:"path"`
	// Columns are the header's names, in order.
	Columns []string `json:"columns"`
	// Rows counts the rows loaded.
	Rows int `json:"rows"`
	// Ragged counts rows with more or fewer fields than the header; they
	// were cut, or padded with NULL. RaggedLine is the line of the first.
	Ragged     int `json:"ragged,omitempty"`
	RaggedLine int `json:"ragged_line,omitempty"`
	// Partial is set when loading stopped at an error or a limit (see
	// Limits); the rows before it were kept.
	Partial bool `json:"partial,omitempty"`
	// Cut counts the values cut at Limits.MaxFieldBytes or MaxRecordBytes;
	// CutLine is the line of the first.
	Cut     int `json:"cut,omitempty"`
	CutLine int `json:"cut_line,omitempty"`
}

// Store is an in-memory SQLite database holding a bundle's sql/*.csv
// dumps, one table per relation, queried with SQLite's SQL.
//
// Every column has NUMERIC affinity: "12" is stored as an integer, "0.5" as a
// real, anything else as text, and an empty field (psql's NULL) as NULL. A
// store is safe for concurrent use; its calls are serialised.
//
// The database is opened when first needed (issue 14): a bundle without
// sql/ whose rules' queries are all answered ahead (SetEmptyAnswers,
// SetEmptyResults) never starts SQLite, which saves about 2.5 MiB of
// memory and a millisecond at every start of `rwdiag analyze`.
type Store struct {
	db     *sql.DB
	limits Limits

	mu     sync.Mutex
	read   int64                 // CSV bytes read by LoadCSV, for MaxTotalBytes
	conn   *sql.Conn             // the one connection: the in-memory database lives as long as it does; nil until opened
	closed bool                  // Close was called
	tables map[string]*TableInfo // by lower-cased name, as SQLite compares them
	// missing memoises MissingTables by query; loading a table clears it.
	// The rules ask the same queries again (a fallback shared by several
	// signals), and each answer costs SQLite many prepares and schema
	// changes.
	missing map[string][]string
}

// NewStore returns an empty store with the default limits.
func NewStore() (*Store, error) {
	return NewStoreLimits(Limits{})
}

// NewStoreLimits returns an empty store with the given limits; its zero
// fields take the defaults (see Limits).
// The database is opened by the first call that needs it; an error in
// opening it is that call's.
func NewStoreLimits(l Limits) (*Store, error) {
	return &Store{tables: map[string]*TableInfo{}, limits: l.withDefaults()}, nil
}

// open opens the database unless it is open; s.mu is held. It fails once
// the store is closed.
func (s *Store) open() error {
	if s.closed {
		return errStoreClosed
	}
	if s.conn != nil {
		return nil
	}
	db, err := sql.Open("sqlite", sqlDSN)
	if err != nil {
		return fmt.Errorf("open sqlite: %w", err)
	}
	// An in-memory database belongs to its connection: keep exactly one,
	// for ever.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "ATTACH DATABASE ':memory:' AS "+quoteIdent(sqlSchema))
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return fmt.Errorf("open sqlite: %w", err)
	}
	s.db, s.conn = db, conn
	return nil
}

// Limits returns the store's limits, with the defaults filled in.
func (s *Store) Limits() Limits { return s.limits }

// Close releases the database.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return errors.Join(err, s.db.Close())
}

var errStoreClosed = errors.New("sql store is closed")

// LoadCSV creates table name from a psql --csv dump read from r; path names
// the dump in messages. The header row gives the column names, kept exactly.
// Every row is inserted in one transaction. A row with too few or too many
// fields is padded with NULL or cut, and counted in the table's TableInfo. A
// CSV syntax error stops the loading with an error naming path, line and
// column; the rows before it are kept. Loading a name twice is an error and
// leaves the first table as it was.
//
// The store's Limits bound what is read and kept, streaming: a field longer
// than MaxFieldBytes is cut and marked, and counted in TableInfo.Cut; past
// MaxRows rows or MaxFileBytes bytes (or MaxTotalBytes over all dumps) the
// rest is not loaded and the table is Partial. Either way LoadCSV returns an
// error naming the file and line that wraps ErrLimit, with the table loaded.
func (s *Store) LoadCSV(name, path string, r io.Reader) error {
	if name == "" || strings.ContainsRune(name, 0) {
		return fmt.Errorf("load %s: bad table name %q", path, name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.open(); err != nil {
		return err
	}
	if t, ok := s.tables[strings.ToLower(name)]; ok {
		return fmt.Errorf("load %s: table %q already loaded from %s", path, name, t.Path)
	}
	clear(s.missing)

	l := s.limits
	budget, budgetName := l.MaxFileBytes, "MaxFileBytes"
	if l.MaxTotalBytes >= 0 {
		left := l.MaxTotalBytes - s.read
		if left <= 0 {
			return &limitedLoad{fmt.Sprintf("%s: not loaded: the CSV dumps loaded before it add up to %s, the limit for all of them (sqlstore limit MaxTotalBytes)",
				path, sizeText(l.MaxTotalBytes))}
		}
		if budget < 0 || left < budget {
			budget, budgetName = left, "MaxTotalBytes"
		}
	}
	capper := newCSVCapper(r, orMax(l.MaxFieldBytes), orMax(l.MaxRecordBytes), budget)
	defer func() { s.read += capper.keptBytes() }()
	tap := &rawTap{r: capper}
	cr := csv.NewReader(tap)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("load %s: empty file, no header row", path)
	}
	if err != nil {
		return csvError(path, err, capper.inputLine)
	}
	header = append([]string(nil), header...)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	cols := columnNames(header)
	tap.consumed(cr.InputOffset())

	ctx := context.Background()
	table := quoteIdent(sqlSchema) + "." + quoteIdent(name)
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = quoteIdent(c) + " NUMERIC"
	}
	if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("load %s: %w", path, sqlError(err))
	}
	committed := false
	defer func() {
		if !committed {
			s.conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	if _, err := s.conn.ExecContext(ctx, "CREATE TABLE "+table+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("load %s: create table %q: %w", path, name, sqlError(err))
	}
	insert := "INSERT INTO " + table + " VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
	info := &TableInfo{Name: name, Path: path, Columns: cols}
	ld := &loader{cr: cr, tap: tap, capper: capper, info: info, maxRows: l.MaxRows, budget: budget, budgetName: budgetName}
	var loadErr error
	// The rows go straight to the driver: database/sql's conversions and
	// locking per row cost more than SQLite's insert itself.
	err = s.conn.Raw(func(dc any) error {
		prep, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return errors.New("sqlite driver cannot prepare")
		}
		st, err := prep.PrepareContext(ctx, insert)
		if err != nil {
			return sqlError(err)
		}
		ins, ok := st.(driver.StmtExecContext)
		if !ok {
			st.Close()
			return errors.New("sqlite driver cannot execute")
		}
		loadErr = ld.rows(func(args []driver.NamedValue) error {
			_, err := ins.ExecContext(ctx, args)
			return sqlError(err)
		})
		return st.Close()
	})
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	if _, err := s.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("load %s: commit: %w", path, sqlError(err))
	}
	committed = true
	if capper.cuts > 0 {
		info.Cut, info.CutLine = capper.cuts, capper.firstCut
		col := "the header"
		if capper.firstInRec > 0 {
			col = "column " + strconv.Quote(cols[min(capper.firstCol, len(cols)-1)])
		}
		what := "value was"
		if capper.cuts > 1 {
			what = "values were"
		}
		cut := &limitedLoad{fmt.Sprintf("%s:%d: %d %s cut, the first in %s: fields longer than %s or rows longer than %s keep their start and end with \"…[cut by rwdiag: ...]\" (sqlstore limits MaxFieldBytes, MaxRecordBytes)",
			path, capper.firstCut, capper.cuts, what, col, sizeText(int64(capper.maxField)), sizeText(int64(capper.maxRecord)))}
		if loadErr != nil {
			loadErr = fmt.Errorf("%w; %w", loadErr, cut)
		} else {
			loadErr = cut
		}
	}
	s.tables[strings.ToLower(name)] = info
	return loadErr
}

// orMax turns "no limit" (-1) into the largest int.
func orMax(n int) int {
	if n < 0 {
		return math.MaxInt
	}
	return n
}

// loader reads the records of a CSV dump after its header.
type loader struct {
	cr         *csv.Reader
	tap        *rawTap
	capper     *csvCapper
	info       *TableInfo
	maxRows    int
	budget     int64
	budgetName string
}

// rows reads the records of cr and inserts each with insert, padding or
// cutting it to len(info.Columns) fields, counting into info. It stops at the
// first error, or limit, which it returns naming the file and line.
func (ld *loader) rows(insert func([]driver.NamedValue) error) error {
	cr, tap, info := ld.cr, ld.tap, ld.info
	args := make([]driver.NamedValue, len(info.Columns))
	for i := range args {
		args[i].Ordinal = i + 1
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if ld.capper.stopped {
				return ld.tooLarge(ld.capper.inputLine(ld.capper.outLines + 1))
			}
			return nil
		}
		if err != nil {
			info.Partial = true
			if errors.As(err, new(*csv.ParseError)) {
				return csvError(info.Path, err, ld.capper.inputLine)
			}
			return fmt.Errorf("load %s: after line %d: %w", info.Path, ld.capper.inputLine(tap.line-1), err)
		}
		line, _ := cr.FieldPos(0)
		line = ld.capper.inputLine(line)
		if ld.capper.stopMid && cr.InputOffset() >= ld.capper.stopOffset {
			return ld.tooLarge(line) // the record the byte limit cut short
		}
		if ld.maxRows >= 0 && info.Rows >= ld.maxRows {
			info.Partial = true
			return &limitedLoad{fmt.Sprintf("%s:%d: more than %d rows; the rows from this line on were not loaded (sqlstore limit MaxRows)",
				info.Path, line, ld.maxRows)}
		}
		if len(rec) != len(args) {
			info.Ragged++
			if info.RaggedLine == 0 {
				info.RaggedLine = line
			}
		}
		for i := range args {
			switch {
			case i >= len(rec):
				args[i].Value = nil
			case rec[i] != "":
				args[i].Value = rec[i]
			case tap.quoted(cr, i):
				args[i].Value = "" // psql writes an empty string as "" and NULL as nothing
			default:
				args[i].Value = nil
			}
		}
		tap.consumed(cr.InputOffset())
		if err := insert(args); err != nil {
			info.Partial = true
			return fmt.Errorf("load %s: line %d: %w", info.Path, line, err)
		}
		info.Rows++
	}
}

// tooLarge reports the byte limit reached at input line `line`.
func (ld *loader) tooLarge(line int) error {
	ld.info.Partial = true
	return &limitedLoad{fmt.Sprintf("%s:%d: more than %s loaded; the rows from this line on were not loaded (sqlstore limit %s)",
		ld.info.Path, line, sizeText(ld.budget), ld.budgetName)}
}

// columnNames makes header names usable as distinct column names: SQLite
// compares them case-insensitively, so "id" and "ID" clash. A clash gets
// "_2", "_3"... and an empty name "column_N".
func columnNames(header []string) []string {
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		if h == "" {
			h = "column_" + strconv.Itoa(i+1)
		}
		c := h
		for n := 2; seen[strings.ToLower(c)]; n++ {
			c = h + "_" + strconv.Itoa(n)
		}
		seen[strings.ToLower(c)] = true
		cols[i] = c
	}
	if len(cols) == 0 {
		cols = []string{"column_1"}
	}
	return cols
}

// csvError names path and the input line of a CSV error; inputLine turns
// the reader's lines into the input's.
func csvError(path string, err error, inputLine func(int) int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		line, start := inputLine(pe.Line), inputLine(pe.StartLine)
		if start != line {
			return fmt.Errorf("%s:%d:%d: %w (in the record starting on line %d)", path, line, pe.Column, pe.Err, start)
		}
		return fmt.Errorf("%s:%d:%d: %w", path, line, pe.Column, pe.Err)
	}
	return fmt.Errorf("load %s: %w", path, err)
}

// rawTap keeps the raw bytes of the CSV record being read, so that an empty
// quoted field ("", psql's empty string) can be told from an empty unquoted
// one (psql's NULL), which encoding/csv returns alike.
type rawTap struct {
	r    io.Reader
	buf  []byte // input from offset base on
	base int64
	from int64 // where the current record's raw bytes start
	line int   // line number of the byte at from
}

func (t *rawTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// consumed marks the input up to offset end as read and done with.
func (t *rawTap) consumed(end int64) {
	if t.line == 0 {
		t.line = 1
	}
	t.line += bytes.Count(t.buf[t.from-t.base:end-t.base], []byte{'\n'})
	t.from = end
	if k := end - t.base; k > 64<<10 {
		n := copy(t.buf, t.buf[k:])
		t.buf = t.buf[:n]
		t.base = end
	}
}

// quoted reports whether field i of the record cr just read starts with a
// quote in the input.
func (t *rawTap) quoted(cr *csv.Reader, i int) bool {
	line, col := cr.FieldPos(i)
	raw := t.buf[t.from-t.base:]
	for l := t.line; l < line; l++ {
		nl := bytes.IndexByte(raw, '\n')
		if nl < 0 {
			return false
		}
		raw = raw[nl+1:]
	}
	return col >= 1 && col <= len(raw) && raw[col-1] == '"'
}

// Tables lists the loaded tables by name.
func (s *Store) Tables() []TableInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TableInfo, 0, len(s.tables))
	for _, t := range s.tables {
		c := *t
		c.Columns = append([]string(nil), t.Columns...)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Query runs a read-only query: one SELECT, WITH ... SELECT or VALUES
// statement. It returns the column names and one Row per result row, keyed
// by column name (when a name repeats, the leftmost column's value is kept).
// Values are int64, float64, string or nil.
func (s *Store) Query(ctx context.Context, query string) (cols []string, rows []evidence.Row, err error) {
	cols, vals, err := s.QueryValues(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	rows = make([]evidence.Row, len(vals))
	for i, v := range vals {
		row := make(evidence.Row, len(cols))
		for j, c := range cols {
			if _, dup := row[c]; !dup {
				row[c] = v[j]
			}
		}
		rows[i] = row
	}
	return cols, rows, nil
}

// QueryValues is Query with each row's values in column order.
//
// The query is refused unless it is a single read-only statement, and runs
// with SQLite's query_only pragma on, an authorizer that allows reading
// only, inside a transaction that is rolled back.
func (s *Store) QueryValues(ctx context.Context, query string) (cols []string, rows [][]any, err error) {
	if err := checkReadOnly(query); err != nil {
		return nil, nil, err
	}
	return s.query(ctx, query)
}

// query runs query with SQLite's own guards against writing, within the
// store's query limits.
func (s *Store) query(ctx context.Context, query string) (cols []string, rows [][]any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errStoreClosed
	}
	l := s.limits
	if len(s.tables) == 0 && ctx.Err() == nil {
		// Nothing loaded: a query that reads no table may have been
		// answered ahead (SetEmptyResults).
		if r, ok := emptyResults[query]; ok && s.withinLimits(r) {
			return slices.Clone(r.Cols), cloneRows(r.Rows), nil
		}
	}
	if err := s.open(); err != nil {
		return nil, nil, err
	}
	qctx := ctx
	if l.QueryTimeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeoutCause(ctx, l.QueryTimeout,
			&LimitError{Limit: "QueryTimeout", Msg: "ran longer than " + l.QueryTimeout.String()})
		defer cancel()
	}
	// limitErr is the limit that stopped the query, if one did.
	limitErr := func(err error) error {
		if qctx.Err() != nil && ctx.Err() == nil {
			if cause := context.Cause(qctx); errors.Is(cause, ErrLimit) {
				return cause
			}
		}
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_TOOBIG {
			return &LimitError{Limit: "MaxValueBytes", Msg: "made a string or blob longer than " + sizeText(int64(s.valueLimit()))}
		}
		return sqlError(err)
	}
	if v := s.valueLimit(); v > 0 {
		prev, err := sqlite.Limit(s.conn, sqlite3.SQLITE_LIMIT_LENGTH, v)
		if err != nil {
			return nil, nil, fmt.Errorf("set SQLite's length limit: %w", err)
		}
		defer func() {
			if _, e := sqlite.Limit(s.conn, sqlite3.SQLITE_LIMIT_LENGTH, prev); e != nil {
				err = errors.Join(err, fmt.Errorf("restore SQLite's length limit: %w", e))
			}
		}()
	}
	bg := context.Background() // the clean-up must run even when ctx is done
	exec := func(q string) error {
		if _, err := s.conn.ExecContext(bg, q); err != nil {
			return fmt.Errorf("%s: %w", q, sqlError(err))
		}
		return nil
	}
	if err := exec("PRAGMA query_only = ON"); err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, exec("PRAGMA query_only = OFF")) }()
	if err := exec("BEGIN"); err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, exec("ROLLBACK")) }()
	var denied string
	if err := s.setAuthorizer(func(action sqlite.AuthorizerActionCode, arg1, _, _, _ string) sqlite.AuthorizerReturnCode {
		switch action {
		case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
			return sqlite.AuthorizerOK
		case sqlite.AuthPragma:
			if readOnlyPragma(arg1) { // e.g. SELECT * FROM pragma_table_info('rw_actors')
				return sqlite.AuthorizerOK
			}
		}
		if denied == "" {
			denied = strings.TrimSpace(authActionName(action) + " " + arg1)
		}
		return sqlite.AuthorizerDeny
	}); err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, s.setAuthorizer(nil)) }()

	rs, err := s.conn.QueryContext(qctx, query)
	if err != nil {
		if denied != "" {
			return nil, nil, fmt.Errorf("only reading is allowed: %s refused", denied)
		}
		return nil, nil, limitErr(err)
	}
	defer rs.Close()
	cols, err = rs.Columns()
	if err != nil {
		return nil, nil, sqlError(err)
	}
	ptrs := make([]any, len(cols))
	var size int64
	for rs.Next() {
		if l.MaxResultRows >= 0 && len(rows) >= l.MaxResultRows {
			return nil, nil, &LimitError{Limit: "MaxResultRows", Msg: fmt.Sprintf("returned more than %d rows", l.MaxResultRows)}
		}
		vals := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, limitErr(err)
		}
		for i, v := range vals {
			size += resultValueBytes
			switch v := v.(type) {
			case []byte:
				size += int64(len(v))
				vals[i] = string(v)
			case string:
				size += int64(len(v))
			case int64, float64:
				size += 8
			}
		}
		if l.MaxResultBytes >= 0 && size > l.MaxResultBytes {
			return nil, nil, &LimitError{Limit: "MaxResultBytes", Msg: "returned more than " + sizeText(l.MaxResultBytes)}
		}
		rows = append(rows, vals)
	}
	if err := rs.Err(); err != nil {
		return nil, nil, limitErr(err)
	}
	return cols, rows, nil
}

// resultValueBytes is what one result value costs besides its own bytes,
// for MaxResultBytes: an interface and, in Query's rows, a map entry.
const resultValueBytes = 16

// valueLimit is SQLite's length limit during a query: MaxValueBytes, raised
// to hold the longest value LoadCSV can store; 0 to leave SQLite's own.
func (s *Store) valueLimit() int {
	l := s.limits
	if l.MaxValueBytes < 0 || l.MaxRecordBytes < 0 || l.MaxFieldBytes < 0 {
		return 0
	}
	return min(max(l.MaxValueBytes, min(l.MaxFieldBytes, l.MaxRecordBytes)+256), math.MaxInt32)
}

func (s *Store) setAuthorizer(fn sqlite.AuthorizerFn) error {
	return s.conn.Raw(func(dc any) error {
		ar, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("sqlite driver has no authorizer")
		}
		return ar.RegisterAuthorizer(fn)
	})
}

func authActionName(a sqlite.AuthorizerActionCode) string {
	switch a {
	case sqlite.AuthInsert:
		return "INSERT INTO"
	case sqlite.AuthUpdate:
		return "UPDATE"
	case sqlite.AuthDelete:
		return "DELETE FROM"
	case sqlite.AuthAttach:
		return "ATTACH"
	case sqlite.AuthDetach:
		return "DETACH"
	case sqlite.AuthPragma:
		return "PRAGMA"
	case sqlite.AuthCreateTable, sqlite.AuthCreateTempTable, sqlite.AuthCreateView, sqlite.AuthCreateTempView,
		sqlite.AuthCreateIndex, sqlite.AuthCreateTempIndex, sqlite.AuthCreateTrigger, sqlite.AuthCreateTempTrigger,
		sqlite.AuthCreateVTable:
		return "CREATE"
	case sqlite.AuthDropTable, sqlite.AuthDropTempTable, sqlite.AuthDropView, sqlite.AuthDropTempView,
		sqlite.AuthDropIndex, sqlite.AuthDropTempIndex, sqlite.AuthDropTrigger, sqlite.AuthDropTempTrigger,
		sqlite.AuthDropVTable:
		return "DROP"
	}
	return fmt.Sprintf("operation %d", int(a))
}

// readOnlyPragma reports whether a query may read pragma name as a
// table-valued function, e.g. pragma_table_info('rw_actors').
func readOnlyPragma(name string) bool {
	switch name {
	case "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
		"database_list", "function_list", "collation_list", "pragma_list", "module_list", "compile_options":
		return true
	}
	return false
}

// maxMissingRounds bounds MissingTables' prepare-and-patch loop.
const maxMissingRounds = 64

// MissingTables returns the tables query reads that are not loaded, as
// written in the query without a schema ("rw_actors"). It asks SQLite: it
// prepares the query, and on "no such table: X" records X, creates an empty
// stand-in for it and prepares again, adding the columns the query asks of
// the stand-ins, until the query prepares or fails for another reason; all
// inside a transaction that is rolled back. It returns nil for a query that
// is not a single read-only statement: Query says why.
func (s *Store) MissingTables(query string) []string {
	if checkReadOnly(query) != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if len(s.tables) == 0 {
		// Nothing loaded: the answer depends on the query alone, and may
		// have been worked out ahead (SetEmptyAnswers).
		if m, ok := emptyAnswers[query]; ok {
			return slices.Clone(m)
		}
	}
	if m, ok := s.missing[query]; ok {
		return slices.Clone(m)
	}
	m, ok := s.missingTables(query)
	if ok {
		if s.missing == nil {
			s.missing = map[string][]string{}
		}
		s.missing[query] = m
	}
	return slices.Clone(m)
}

// emptyAnswers are MissingTables' answers on a store with no table loaded,
// by query, worked out ahead (SetEmptyAnswers).
var emptyAnswers map[string][]string

// SetEmptyAnswers gives MissingTables the answers it would find on a store
// with no table loaded, by query, worked out ahead with EmptyAnswer (for
// the built-in rules' queries, by go generate), so that a bundle without
// sql/ costs SQLite nothing. Call it before any Store is used (from an
// init); m is kept, not copied, and must not change.
func SetEmptyAnswers(m map[string][]string) { emptyAnswers = m }

// EmptyAnswer is what MissingTables answers for query on a store with no
// table loaded, asked of SQLite (never of SetEmptyAnswers' answers).
func EmptyAnswer(query string) ([]string, error) {
	if err := checkReadOnly(query); err != nil {
		return nil, err
	}
	s, err := NewStore()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.missingTables(query)
	if !ok {
		return nil, errors.New("sqlite refused the transaction")
	}
	return m, nil
}

// Result is a query's columns and rows, as QueryValues returns them.
type Result struct {
	Cols []string
	Rows [][]any
}

// emptyResults are the results of queries that read no table, on a store
// with no table loaded, by query, worked out ahead (SetEmptyResults).
var emptyResults map[string]Result

// SetEmptyResults gives QueryValues (and Query) the results of queries that
// read no table (`SELECT 'cluster' AS sink_id`), worked out ahead with
// EmptyResult, to use while no table is loaded: so that such a query does
// not open SQLite for a bundle without sql/. The query's limits still
// apply: a result over them is asked of SQLite, which says why. Call it
// before any Store is used (from an init); m is kept, not copied, and must
// not change.
func SetEmptyResults(m map[string]Result) { emptyResults = m }

// EmptyResult is what QueryValues returns for query on a store with no
// table loaded, asked of SQLite (never of SetEmptyResults' results). Only a
// query whose answer depends on nothing may be given to SetEmptyResults:
// one that reads no table (EmptyAnswer is empty) and calls no function
// whose value changes (random(), the current time).
func EmptyResult(query string) (Result, error) {
	s, err := NewStore()
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	cols, rows, err := s.QueryValues(context.Background(), query)
	return Result{Cols: cols, Rows: rows}, err
}

// withinLimits reports whether returning r breaks none of the store's
// limits on results, counted as query counts them.
func (s *Store) withinLimits(r Result) bool {
	l := s.limits
	if l.MaxResultRows >= 0 && len(r.Rows) > l.MaxResultRows {
		return false
	}
	var size int64
	vlimit := int64(s.valueLimit())
	for _, row := range r.Rows {
		for _, v := range row {
			size += resultValueBytes
			switch v := v.(type) {
			case string:
				size += int64(len(v))
				if vlimit > 0 && int64(len(v)) > vlimit {
					return false
				}
			case int64, float64:
				size += 8
			}
		}
	}
	return l.MaxResultBytes < 0 || size <= l.MaxResultBytes
}

func cloneRows(rows [][]any) [][]any {
	if rows == nil {
		return nil
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}

// missingTables is MissingTables' prepare-and-patch loop, run with s.mu
// held; ok is false when it could not start (a transaction refused).
func (s *Store) missingTables(query string) (missing []string, ok bool) {
	if s.open() != nil {
		return nil, false
	}
	ctx := context.Background()
	if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, false
	}
	defer s.conn.ExecContext(ctx, "ROLLBACK")

	var standIns []string
	seen := map[string]bool{}
	last := ""
	for range maxMissingRounds {
		st, err := s.conn.PrepareContext(ctx, query)
		if err == nil {
			st.Close()
			break
		}
		msg := sqliteMessage(err)
		if msg == last {
			break
		}
		last = msg
		if name, ok := strings.CutPrefix(msg, "no such table: "); ok {
			schema, table := sqlSchema, name
			if sc, t, ok := strings.Cut(name, "."); ok {
				schema, table = sc, t
			}
			if s.tables[strings.ToLower(table)] != nil {
				break // loaded, but named in a schema it is not in
			}
			if !seen[strings.ToLower(table)] {
				seen[strings.ToLower(table)] = true
				missing = append(missing, table)
			}
			standIn := quoteIdent(schema) + "." + quoteIdent(table)
			if _, err := s.conn.ExecContext(ctx, "CREATE TABLE "+standIn+" ("+quoteIdent(placeholderColumn)+")"); err != nil {
				break // e.g. a schema that does not exist
			}
			standIns = append(standIns, standIn)
			continue
		}
		if col, ok := strings.CutPrefix(msg, "no such column: "); ok && len(standIns) > 0 {
			col, _, _ = strings.Cut(col, ` - should this be a string literal`)
			if i := strings.LastIndexByte(col, '.'); i >= 0 {
				col = col[i+1:]
			}
			if u, err := strconv.Unquote(col); err == nil && strings.HasPrefix(col, `"`) {
				col = u
			}
			for _, t := range standIns {
				s.conn.ExecContext(ctx, "ALTER TABLE "+t+" ADD COLUMN "+quoteIdent(col))
			}
			continue
		}
		break
	}
	return missing, true
}

// Check checks a query when rules are loaded, before any table exists: it
// must be a single read-only statement (SELECT, WITH ... SELECT or VALUES)
// that SQLite can parse. Names are not checked: a missing table or column is
// the bundle's business.
func Check(query string) error {
	if err := checkReadOnly(query); err != nil {
		return err
	}
	db, err := checkDB()
	if err != nil {
		return fmt.Errorf("open sqlite: %w", err)
	}
	st, err := db.PrepareContext(context.Background(), query)
	if err == nil {
		return st.Close()
	}
	msg := sqliteMessage(err)
	if strings.HasPrefix(msg, "no such table: ") || strings.HasPrefix(msg, "no such column: ") {
		return nil
	}
	return sqlError(err)
}

// checkDB is the empty database Check prepares queries in, opened once: its
// connections (each its own empty in-memory database) are kept for the next
// rule, since opening one costs more than preparing a query. Nothing is
// ever executed in it.
var checkDB = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("sqlite", sqlDSN)
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(runtime.GOMAXPROCS(0))
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
})

// checkReadOnly refuses anything but one SELECT, WITH ... SELECT or VALUES
// statement, with a clearer message than SQLite's authorizer would give.
func checkReadOnly(query string) error {
	verb, more := statementVerb(query)
	switch {
	case more:
		return errors.New("only one statement is allowed")
	case verb == "":
		return errors.New("empty query")
	case writeVerb(verb):
		return fmt.Errorf("only a read-only query (SELECT, WITH ... SELECT or VALUES) is allowed, not %s", verb)
	}
	// SELECT, VALUES, or a word SQLite will call a syntax error.
	return nil
}

// writeVerb reports whether verb starts one of SQLite's statements other
// than SELECT and VALUES.
func writeVerb(verb string) bool {
	switch verb {
	case "ALTER", "ANALYZE", "ATTACH", "BEGIN", "COMMIT", "CREATE", "DELETE", "DETACH", "DROP", "END",
		"EXPLAIN", "INSERT", "PRAGMA", "REINDEX", "RELEASE", "REPLACE", "ROLLBACK", "SAVEPOINT",
		"UPDATE", "VACUUM":
		return true
	}
	return false
}

// statementVerb returns the keyword that says what the first statement of q
// does (for "WITH ... SELECT", SELECT), upper-cased, and whether another
// statement follows it. It knows SQLite's comments, strings and quoted
// identifiers, and leaves the rest of the syntax to SQLite.
func statementVerb(q string) (verb string, more bool) {
	depth := 0
	semi := false
	with := false
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case strings.HasPrefix(q[i:], "--"):
			if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(q)
			}
			continue
		case strings.HasPrefix(q[i:], "/*"):
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(q)
			}
			continue
		case c == ';':
			semi = true
			i++
			continue
		}
		if semi {
			return verb, true
		}
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			i++
			for i < len(q) {
				if q[i] == end {
					if end != ']' && i+1 < len(q) && q[i+1] == end {
						i += 2 // a doubled quote
						continue
					}
					break
				}
				i++
			}
			i++
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			i++
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			word := strings.ToUpper(q[i:j])
			i = j
			switch {
			case verb == "" && word == "WITH":
				with = true
				verb = word
			case verb == "":
				verb = word
			case with && depth == 0:
				switch word {
				case "SELECT", "VALUES", "INSERT", "UPDATE", "DELETE", "REPLACE":
					verb, with = word, false
				}
			}
		default:
			i++
		}
	}
	return verb, false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 || c == '$'
}

// quoteIdent quotes a name as an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// sqliteMessage is SQLite's own message in err, without the driver's
// "SQL logic error: " prefix and " (1)" result code suffix.
func sqliteMessage(err error) string {
	msg := err.Error()
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return msg
	}
	msg = se.Error()
	if i := strings.LastIndex(msg, " ("); i >= 0 && strings.HasSuffix(msg, ")") {
		if _, err := strconv.Atoi(msg[i+2 : len(msg)-1]); err == nil {
			msg = msg[:i]
		}
	}
	if _, rest, ok := strings.Cut(msg, ": "); ok && sqliteCodeText(msg[:len(msg)-len(rest)-2]) {
		msg = rest
	}
	return msg
}

// sqliteCodeText reports whether s is one of the generic texts SQLite gives
// for a result code, which the driver puts before the real message.
func sqliteCodeText(s string) bool {
	switch s {
	case "SQL logic error", "not authorized", "attempt to write a readonly database", "interrupted",
		"constraint failed", "string or blob too big", "out of memory", "database is locked":
		return true
	}
	return false
}

// sqlQueryError is an SQLite error with its message cleaned up.
type sqlQueryError struct {
	msg string
	err error
}

func (e *sqlQueryError) Error() string { return e.msg }
func (e *sqlQueryError) Unwrap() error { return e.err }

func sqlError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	return &sqlQueryError{msg: sqliteMessage(err), err: err}
}
