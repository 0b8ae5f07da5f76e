package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/rwdiag/rwdiag/bundle"
)

// SQLOptions configure CollectSQL.
type SQLOptions struct {
	// DSN is the frontend's connection string, a URL
	// (postgres://root@rw-frontend:4567/dev) or key=value pairs, as libpq
	// takes them; the PG* environment variables fill what it leaves out.
	DSN string
	// StatementTimeout bounds each statement, on the server and, a few
	// seconds later, on the client. Zero means DefaultStatementTimeout.
	StatementTimeout time.Duration
	// Redactor redacts every value written; nil writes them as they are.
	Redactor *Redactor
}

// DefaultStatementTimeout bounds each SQL statement when SQLOptions does not.
const DefaultStatementTimeout = 30 * time.Second

const (
	sqlConnectTimeout = 15 * time.Second
	// sqlClientGrace is how long the client waits past the statement
	// timeout before it cancels the statement itself, and again before it
	// gives up on the connection.
	sqlClientGrace = 5 * time.Second
	// maxSQLResultBytes caps one relation's CSV; past it the rest of the
	// rows are read and dropped, and the file is marked truncated.
	maxSQLResultBytes = 256 << 20
	sqlStep           = "sql"
)

// CollectSQL captures the SQL side of a RisingWave cluster into w:
//
//   - every relation of the rw_catalog schema, enumerated from the catalog
//     itself (pg_catalog.pg_class and information_schema.tables), as
//     sql/<relation>.csv, byte for byte what `psql --csv -c 'SELECT * FROM
//     rw_catalog.<relation>'` prints. rw_secrets, rw_user_secrets and any
//     relation with "secret" in its name are never read;
//   - SHOW PARAMETERS and SHOW JOBS as sql/show_parameters.csv and
//     sql/show_jobs.csv;
//   - EXPLAIN of each materialized view's and each sink's definition as
//     sql/explain/<name>.txt, one plan line per line (psql -XAt).
//
// Every statement runs in a READ ONLY transaction of its own, under a
// statement timeout set on the server (SET statement_timeout: the session's
// setting, nothing is written) and a deadline on the client, which cancels
// the statement. A statement that fails is recorded in the manifest (step
// "sql", the relation as target, the path it would have written) and the
// rest goes on; a connection lost on the way is opened again. Values are
// redacted with opts.Redactor, and so are the errors recorded.
//
// It returns the server's version: "v3.0.3" for RisingWave's "PostgreSQL
// 13.14.0-RisingWave-3.0.3 (…)", else what version() says. The error is
// non-nil only when nothing could be collected (the connection failed); it
// is not recorded in the manifest, which is the caller's to do.
func CollectSQL(ctx context.Context, opts SQLOptions, w *bundle.Writer) (string, error) {
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = DefaultStatementTimeout
	}
	s, err := newSQLSession(ctx, opts)
	if err != nil {
		return "", err
	}
	defer s.close()

	c := &sqlCollector{s: s, w: w, red: opts.Redactor}
	rels, err := s.relations(ctx)
	if err != nil {
		c.record("rw_catalog", "", err)
	}
	for _, rel := range rels {
		if ctx.Err() != nil {
			c.record("rw_catalog", "", fmt.Errorf("stopped before %s: %w", rel, ctx.Err()))
			return s.version, nil
		}
		c.table(ctx, rel)
	}
	for _, show := range []struct{ name, stmt string }{
		{"show_parameters", "SHOW PARAMETERS"},
		{"show_jobs", "SHOW JOBS"},
	} {
		if ctx.Err() != nil {
			break
		}
		c.dump(ctx, show.name, show.stmt, "psql --csv -c '"+show.stmt+"'")
	}
	c.explainAll(ctx)
	return s.version, nil
}

// secretRelation tells the relations CollectSQL never reads.
func secretRelation(name string) bool {
	return strings.Contains(strings.ToLower(name), "secret")
}

// sqlSession is one connection to the frontend, opened again when it is lost.
type sqlSession struct {
	opts    SQLOptions
	cfg     *pgconn.Config
	conn    *pgconn.PgConn
	dead    error // set when the connection could not be opened again
	version string
	rw      bool // the server is RisingWave
}

func newSQLSession(ctx context.Context, opts SQLOptions) (*sqlSession, error) {
	cfg, err := pgconn.ParseConfig(opts.DSN)
	if err != nil {
		// ParseConfig's errors may quote the DSN, password and all.
		return nil, &redactedError{msg: "parse DSN: " + opts.Redactor.textLine(err.Error()), err: err}
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > sqlConnectTimeout {
		cfg.ConnectTimeout = sqlConnectTimeout
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "rwdiag"
	}
	// On a deadline, ask the server to cancel the statement, so the
	// connection survives; close it only if that does not help.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: sqlClientGrace}
	}
	s := &sqlSession{opts: opts, cfg: cfg}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	var version string
	_, err = s.run(ctx, "SELECT version()", false, func(_ []string, row [][]byte) {
		if len(row) > 0 {
			version = string(row[0])
		}
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("SELECT version(): %w", err)
	}
	s.version, s.rw = parseServerVersion(version)
	s.setTimeout(ctx)
	return s, nil
}

var rwVersionRe = regexp.MustCompile(`RisingWave-v?([0-9][0-9A-Za-z.+\-]*)`)

// parseServerVersion reads version(): RisingWave's "PostgreSQL
// 13.14.0-RisingWave-3.0.3 (hash)" is "v3.0.3"; anything else is kept.
func parseServerVersion(v string) (string, bool) {
	if m := rwVersionRe.FindStringSubmatch(v); m != nil {
		return "v" + m[1], true
	}
	return strings.TrimSpace(v), strings.Contains(v, "RisingWave")
}

func (s *sqlSession) connect(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout+sqlClientGrace)
	defer cancel()
	conn, err := pgconn.ConnectConfig(cctx, s.cfg)
	if err != nil {
		return &redactedError{msg: "connect: " + s.opts.Redactor.textLine(err.Error()), err: err}
	}
	s.conn = conn
	if s.version != "" {
		s.setTimeout(ctx)
	}
	return nil
}

// setTimeout sets the session's statement_timeout. PostgreSQL reads a
// number as milliseconds and RisingWave as seconds, so a value with its unit
// goes first; RisingWave versions that refuse it get seconds. A server that
// refuses both still has the client's deadline.
func (s *sqlSession) setTimeout(ctx context.Context) {
	ms := s.opts.StatementTimeout.Milliseconds()
	tries := []string{fmt.Sprintf("SET statement_timeout = '%dms'", ms)}
	if s.rw {
		secs := (ms + 999) / 1000
		tries = []string{fmt.Sprintf("SET statement_timeout = '%ds'", secs), fmt.Sprintf("SET statement_timeout = %d", secs)}
	}
	for _, stmt := range tries {
		if s.exec(ctx, stmt) == nil {
			return
		}
	}
}

func (s *sqlSession) close() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sqlClientGrace)
		defer cancel()
		s.conn.Close(ctx)
		s.conn = nil
	}
}

// exec runs a statement that returns nothing of interest (BEGIN, COMMIT,
// SET) with the simple protocol.
func (s *sqlSession) exec(ctx context.Context, stmt string) error {
	qctx, cancel := context.WithTimeout(ctx, s.opts.StatementTimeout+sqlClientGrace)
	defer cancel()
	_, err := s.conn.Exec(qctx, stmt).ReadAll()
	return err
}

// run runs one statement in a READ ONLY transaction of its own, handing fn
// the column names and each row, as text (nil for NULL). extended runs it
// with the extended protocol, which takes exactly one statement; otherwise
// the simple protocol is used, as psql does. It returns the column names.
func (s *sqlSession) run(ctx context.Context, stmt string, extended bool, fn func(cols []string, row [][]byte)) ([]string, error) {
	if s.conn == nil || s.conn.IsClosed() {
		if s.dead != nil {
			return nil, s.dead
		}
		s.close()
		if err := s.connect(ctx); err != nil {
			s.dead = fmt.Errorf("connection lost and not opened again: %w", err)
			return nil, s.dead
		}
	}
	if err := s.exec(ctx, "BEGIN READ ONLY"); err != nil {
		s.endTx(ctx, false)
		return nil, fmt.Errorf("BEGIN READ ONLY: %w", err)
	}
	qctx, cancel := context.WithTimeout(ctx, s.opts.StatementTimeout+sqlClientGrace)
	defer cancel()
	var cols []string
	read := func(rr *pgconn.ResultReader) error {
		fds := rr.FieldDescriptions()
		if cols == nil {
			cols = make([]string, len(fds))
			for i, fd := range fds {
				cols[i] = fd.Name
			}
		}
		for rr.NextRow() {
			fn(cols, rr.Values())
		}
		_, err := rr.Close()
		return err
	}
	var err error
	if extended {
		err = read(s.conn.ExecParams(qctx, stmt, nil, nil, nil, nil))
	} else {
		mrr := s.conn.Exec(qctx, stmt)
		for mrr.NextResult() {
			if rerr := read(mrr.ResultReader()); rerr != nil && err == nil {
				err = rerr
			}
		}
		if cerr := mrr.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil && qctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %v: %w", s.opts.StatementTimeout+sqlClientGrace, err)
	}
	s.endTx(ctx, err == nil)
	return cols, err
}

// endTx ends the transaction: COMMIT after success, ROLLBACK after a
// failure. A connection that cannot end it is closed, to be opened again.
func (s *sqlSession) endTx(ctx context.Context, ok bool) {
	if s.conn == nil || s.conn.IsClosed() {
		return
	}
	stmt := "ROLLBACK"
	if ok {
		stmt = "COMMIT"
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sqlClientGrace)
	defer cancel()
	if _, err := s.conn.Exec(ectx, stmt).ReadAll(); err != nil {
		s.close()
	}
}

// relations lists the rw_catalog schema's relations from the catalog itself,
// secrets left out. Both catalogs are asked; either may be missing.
func (s *sqlSession) relations(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	var errs []error
	for _, q := range []string{
		`SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
			`WHERE n.nspname = 'rw_catalog' AND c.relkind IN ('r', 'v', 'm', 'p', 'f')`,
		`SELECT table_name FROM information_schema.tables WHERE table_schema = 'rw_catalog'`,
	} {
		_, err := s.run(ctx, q, false, func(_ []string, row [][]byte) {
			if len(row) > 0 && row[0] != nil {
				seen[string(row[0])] = true
			}
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	var rels []string
	for name := range seen {
		if !secretRelation(name) {
			rels = append(rels, name)
		}
	}
	sort.Strings(rels)
	if len(errs) == 2 {
		return nil, fmt.Errorf("list the rw_catalog relations: %w", errors.Join(errs...))
	}
	return rels, nil
}

// sqlCollector writes what the session reads.
type sqlCollector struct {
	s   *sqlSession
	w   *bundle.Writer
	red *Redactor
	// jobs are the definitions to EXPLAIN, from rw_materialized_views and
	// rw_sinks as they were read (before redaction).
	jobs []sqlJob
}

type sqlJob struct {
	relation, name, definition string
}

func (c *sqlCollector) record(target, path string, err error) {
	c.w.RecordError(bundle.CollectError{Step: sqlStep, Path: path,
		Target: c.red.String("errors.target", target), Error: c.red.String("errors.message", err.Error())})
}

func (c *sqlCollector) table(ctx context.Context, rel string) {
	stmt := "SELECT * FROM " + quoteIdent("rw_catalog") + "." + quoteIdent(rel)
	source := "psql --csv -c 'SELECT * FROM rw_catalog." + rel + "'"
	c.dump(ctx, rel, stmt, source)
}

// dump runs stmt and writes its result as sql/<name>.csv.
func (c *sqlCollector) dump(ctx context.Context, name, stmt, source string) {
	path := bundle.SQLPath(safeFileName(name))
	var buf bytes.Buffer
	rows, redacted := 0, 0
	truncated := false
	nameCol, defCol := -1, -1
	header := false
	text := make([]string, 0, 16)
	cols, err := c.s.run(ctx, stmt, false, func(cols []string, row [][]byte) {
		if !header {
			header = true
			appendPsqlCSVRow(&buf, cols)
			nameCol, defCol = columnIndex(cols, "name"), columnIndex(cols, "definition")
		}
		rows++
		if truncated {
			return
		}
		text = text[:0]
		for _, v := range row {
			text = append(text, string(v))
		}
		if (name == "rw_materialized_views" || name == "rw_sinks") && nameCol >= 0 && defCol >= 0 && row[defCol] != nil {
			c.jobs = append(c.jobs, sqlJob{relation: name, name: text[nameCol], definition: text[defCol]})
		}
		out, n := c.red.SQLRowAt(path, name, cols, text)
		redacted += n
		appendPsqlCSVRow(&buf, out)
		if buf.Len() > maxSQLResultBytes {
			truncated = true
		}
	})
	if err == nil && !header && cols != nil {
		appendPsqlCSVRow(&buf, cols) // no rows: the header alone, as psql prints it
		header = true
	}
	if err != nil && rows == 0 {
		c.record(name, path, err)
		return
	}
	if !header {
		// A statement that returns no result set (not a query).
		c.record(name, path, errors.New("the statement returned no result set"))
		return
	}
	f, cerr := c.w.Create(path, c.red.String("files.source", source))
	if cerr != nil {
		c.record(name, path, cerr)
		return
	}
	_, werr := f.Write(buf.Bytes())
	f.AddRedacted(redacted)
	if truncated {
		f.SetTruncated()
	}
	if err != nil {
		f.SetError(errors.New(c.red.String("files.error", err.Error())))
	}
	if cerr := f.Close(); cerr != nil || werr != nil {
		c.record(name, path, errors.Join(werr, cerr))
	}
}

// explainAll writes EXPLAIN of every job definition read.
func (c *sqlCollector) explainAll(ctx context.Context) {
	used := map[string]bool{}
	for _, job := range c.jobs {
		if ctx.Err() != nil {
			return
		}
		file := safeFileName(job.name)
		for i := 2; used[file]; i++ {
			file = safeFileName(job.name) + "-" + strconv.Itoa(i)
		}
		used[file] = true
		c.explain(ctx, job, file)
	}
}

var jobDefinitionRe = regexp.MustCompile(`(?is)^\s*create\s+(materialized\s+view|sink)\s`)

func (c *sqlCollector) explain(ctx context.Context, job sqlJob, file string) {
	path := bundle.ExplainPath(file)
	kind := "materialized view"
	if job.relation == "rw_sinks" {
		kind = "sink"
	}
	target := job.relation + "." + job.name
	def := strings.TrimRight(strings.TrimSpace(job.definition), "; \t\r\n")
	// Only ever EXPLAIN a CREATE statement; the extended protocol refuses
	// more than one statement, so nothing can ride along.
	if m := jobDefinitionRe.FindStringSubmatch(def); m == nil || (kind == "sink") != strings.EqualFold(m[1], "sink") {
		c.record(target, path, fmt.Errorf("the definition is not a CREATE %s statement; not explained", strings.ToUpper(kind)))
		return
	}
	var buf bytes.Buffer
	_, err := c.s.run(ctx, "EXPLAIN "+def, true, func(_ []string, row [][]byte) {
		for i, v := range row {
			if i > 0 {
				buf.WriteByte('|')
			}
			buf.Write(v)
		}
		buf.WriteByte('\n')
	})
	if err != nil {
		c.record(target, path, err)
		return
	}
	out, n := c.red.Text(path, buf.Bytes())
	source := fmt.Sprintf("psql -XAt -c 'EXPLAIN <definition of %s %q from rw_catalog.%s>'", kind, job.name, job.relation)
	f, err := c.w.Create(path, c.red.String("files.source", source))
	if err != nil {
		c.record(target, path, err)
		return
	}
	_, werr := f.Write(out)
	f.AddRedacted(n)
	if cerr := f.Close(); cerr != nil || werr != nil {
		c.record(target, path, errors.Join(werr, cerr))
	}
}

func columnIndex(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", ""), `"`, `""`) + `"`
}

// safeFileName makes a relation or job name usable as one bundle path
// component.
func safeFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." {
		name = "_" + name
	}
	return name
}

// redactedError is an error whose message went through redaction; Unwrap
// still reaches the original, for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
