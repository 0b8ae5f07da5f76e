package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/rwdiag/rwdiag/analyze/sqlstore"
	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/internal/termtext"
)

func sqlCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "sql",
		Usage:     "query a bundle's system-table dumps (sql/*.csv) with SQL, offline",
		UsageText: "rwdiag sql [--format table|csv|json] [--tables] [--timeout DURATION] [--max-rows N] [--max-entry-bytes SIZE] [--max-total-bytes SIZE] [--max-zstd-window SIZE] BUNDLE [QUERY]",
		Description: "Loads every sql/<relation>.csv of BUNDLE (psql --csv output of\n" +
			"'SELECT * FROM rw_catalog.<relation>', plus show_jobs and show_parameters) into an\n" +
			"in-memory SQLite database, one table per file named after it, and runs QUERY: one\n" +
			"SELECT, WITH ... SELECT or VALUES statement in SQLite's SQL. Both rw_actors and\n" +
			"rw_catalog.rw_actors name a table. Numbers compare as numbers, an empty field is\n" +
			"NULL, and a column name with a space is written in double quotes (\"Create Type\").\n" +
			"The bundle is read in one pass; nothing else in it is read.\n\n" +
			"With --tables, the QUERY .tables, or no QUERY, lists the tables with their row\n" +
			"counts, columns and source files instead.\n\n" +
			"A file that cannot be loaded whole (a CSV syntax error) is reported on stderr with\n" +
			"its file and line, and its rows before the error are kept. Exit status: 0 when the\n" +
			"query ran, 2 for an SQL error, a usage error, or a bundle that cannot be read whole.\n\n" +
			"A query stops with an error naming the limit when it runs longer than --timeout,\n" +
			"returns more than --max-rows rows or more than 256 MiB, or builds a value over\n" +
			"64 MiB (a recursive CTE with no end, a cross join of long values).\n\n" +
			"Examples:\n" +
			"   rwdiag sql bundle.tar.zst --tables\n" +
			"   rwdiag sql bundle.tar.zst \"SELECT w.host, count(*) FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id GROUP BY w.host\"\n" +
			"   rwdiag sql bundle.tar.zst 'SELECT Id, \"Create Type\", Progress FROM show_jobs'\n" +
			"   rwdiag sql --format csv samples/oom-crash-loop \"SELECT * FROM rw_worker_nodes\" > workers.csv\n" +
			"   rwdiag sql --format json bundle.tar.zst \"SELECT Name, Value FROM show_parameters\" | jq .",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT` of the output: table, csv or json"},
			&ucli.BoolFlag{Name: "tables", Usage: "list the tables, their row counts, columns and source files"},
			&ucli.DurationFlag{Name: "timeout", Value: sqlstore.DefaultLimits().QueryTimeout, Usage: "stop the query after `DURATION`"},
			&ucli.IntFlag{Name: "max-rows", Value: sqlstore.DefaultLimits().MaxResultRows, Usage: "stop the query after `N` rows"},
		}, limitFlags()...),
		Action: runSQL,
	}
}

func runSQL(c *ucli.Context) error {
	format := strings.ToLower(strings.TrimSpace(c.String("format")))
	if format != "table" && format != "csv" && format != "json" {
		return usageError(c, "--format %q: want table, csv or json", format)
	}
	names := []string{"BUNDLE", "QUERY"}
	if c.NArg() <= 1 {
		names = names[:1]
	}
	args, err := exactArgs(c, names...)
	if err != nil {
		return err
	}
	query := ""
	if len(args) == 2 {
		query = strings.TrimSpace(args[1])
		switch {
		case query == "--tables" || query == "-tables":
			query = ".tables" // flags after BUNDLE are not parsed as flags
		case strings.HasPrefix(query, "-"):
			return usageError(c, "flag %s is missing its value (or stands after --)", query)
		case query == "":
			return usageError(c, "QUERY is empty")
		}
	}
	if c.Bool("tables") && query != "" && query != ".tables" {
		return usageError(c, "give --tables or a QUERY, not both")
	}
	listTables := c.Bool("tables") || query == "" || query == ".tables"
	if !listTables {
		// Refuse a query SQLite cannot parse before reading the bundle.
		if err := sqlstore.Check(query); err != nil {
			return &exitError{exitUsage, fmt.Errorf("sql: %w", err)}
		}
	}

	r, err := openBundle(c, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Duration("timeout") <= 0 || c.Int("max-rows") <= 0 {
		return &exitError{exitUsage, fmt.Errorf("sql: --timeout and --max-rows must be positive")}
	}
	store, err := sqlstore.NewStoreLimits(sqlstore.Limits{QueryTimeout: c.Duration("timeout"), MaxResultRows: c.Int("max-rows")})
	if err != nil {
		return err
	}
	defer store.Close()
	fatal := loadSQLTables(r, store, c.App.ErrWriter)
	if fatal == nil {
		if err := r.NotBundle(); err != nil {
			return inputError(err)
		}
	}

	w := c.App.Writer
	if listTables {
		err = writeTables(w, c.App.ErrWriter, format, r.Name(), store.Tables())
	} else {
		err = runQuery(c.Context, w, format, store, query)
	}
	if err != nil {
		return err
	}
	if fatal != nil {
		return inputError(fmt.Errorf("%s: reading stopped early; the tables hold what came before: %w", r.Name(), fatal))
	}
	return nil
}

// loadSQLTables loads the sql/*.csv entries of r into store, reporting the
// problems on stderr as it goes. It returns the error that stopped reading,
// if one did.
func loadSQLTables(r *bundle.Reader, store *sqlstore.Store, stderr io.Writer) error {
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if bundle.Fatal(err) {
				return err // the caller reports it, after the result
			}
			var ue *bundle.UnsafeEntryError
			var de *bundle.DuplicateEntryError
			if errors.As(err, &ue) && strings.Contains("/"+ue.Path, "/sql/") ||
				errors.As(err, &de) && strings.HasPrefix(de.Path, "sql/") {
				fmt.Fprintf(stderr, "rwdiag: %s: %s\n", termtext.Escape(r.Name(), termtext.Name), termtext.Escape(err.Error(), termtext.Line))
			}
			continue
		}
		if e.Kind != bundle.KindSQLTable {
			continue
		}
		if err := store.LoadCSV(e.Name, e.Path, e); err != nil {
			fmt.Fprintf(stderr, "rwdiag: %s\n", termtext.Escape(err.Error(), termtext.Line))
		}
	}
	for _, t := range store.Tables() {
		if t.Ragged > 0 {
			fmt.Fprintf(stderr, "rwdiag: %s: %d rows have more or fewer fields than the header (the first on line %d); they were cut or padded with NULL\n",
				termtext.Escape(t.Path, termtext.Name), t.Ragged, t.RaggedLine)
		}
	}
	return nil
}

func runQuery(ctx context.Context, w io.Writer, format string, store *sqlstore.Store, query string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cols, rows, err := store.QueryValues(ctx, query)
	if err != nil {
		if missing := store.MissingTables(query); len(missing) > 0 {
			for i, m := range missing {
				missing[i] = bundle.SQLPath(m)
			}
			err = fmt.Errorf("%w (%s not in the bundle; --tables lists the tables it has)", err, strings.Join(missing, ", "))
		}
		return &exitError{exitUsage, fmt.Errorf("sql: %w", err)}
	}
	switch format {
	case "csv":
		err = writeCSV(w, cols, rows)
	case "json":
		err = writeJSONRows(w, cols, rows)
	default:
		err = writeTable(w, cols, rows)
	}
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// writeTable writes the result as a table for a terminal: every cell on one
// line, with control characters (a newline too) written visibly, so no value
// can act on the terminal or pass for another row. csv and json are exact.
func writeTable(w io.Writer, cols []string, rows [][]any) error {
	t := newTable(w, termtext.Strings(cols, termtext.Name)...)
	for _, row := range rows {
		cells := make([]string, len(row)) // the table keeps it
		for i, v := range row {
			cells[i] = termtext.Escape(formatValue(v, "NULL"), termtext.Name)
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(rows) == 1 {
		_, err := fmt.Fprintln(w, "(1 row)")
		return err
	}
	_, err := fmt.Fprintf(w, "(%d rows)\n", len(rows))
	return err
}

// writeCSV writes the result as psql --csv would: a header, then the rows,
// NULL as an empty field.
func writeCSV(w io.Writer, cols []string, rows [][]any) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return err
	}
	cells := make([]string, len(cols))
	for _, row := range rows {
		for i, v := range row {
			cells[i] = formatValue(v, "")
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSONRows writes the result as an array of objects, one per row, with
// the columns in order as keys.
func writeJSONRows(w io.Writer, cols []string, rows [][]any) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, row := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			writeJSONValue(&b, cols[j])
			b.WriteString(": ")
			writeJSONValue(&b, jsonable(v))
		}
		b.WriteString("}")
	}
	if len(rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := w.Write(termtext.JSON(b.Bytes())) // C1 and bidi controls as \u escapes
	return err
}

func writeJSONValue(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings, numbers and nil always encode
	b.Truncate(b.Len() - 1) // Encode's newline
}

// jsonable turns values JSON cannot hold (infinities) into strings.
func jsonable(v any) any {
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return formatValue(f, "")
	}
	return v
}

// formatValue renders a result value as text; null is the text for NULL.
func formatValue(v any, null string) string {
	switch v := v.(type) {
	case nil:
		return null
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if a := math.Abs(v); a == 0 || (a >= 1e-4 && a < 1e21) {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []byte:
		return string(v)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func writeTables(w, stderr io.Writer, format, name string, tables []sqlstore.TableInfo) error {
	if len(tables) == 0 && format != "json" {
		fmt.Fprintf(stderr, "rwdiag: %s has no sql/*.csv tables\n", termtext.Escape(name, termtext.Name))
		return nil
	}
	var err error
	switch format {
	case "json":
		enc := json.NewEncoder(termtext.Writer{W: w})
		enc.SetIndent("", "  ")
		err = enc.Encode(tables)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"table", "rows", "columns", "path"})
		for _, t := range tables {
			cw.Write([]string{t.Name, strconv.Itoa(t.Rows), strings.Join(t.Columns, ","), t.Path})
		}
		cw.Flush()
		err = cw.Error()
	default:
		t := newTable(w, "table", "rows", "columns", "path")
		for _, ti := range tables {
			rows := strconv.Itoa(ti.Rows)
			if ti.Partial {
				rows += " (partial)"
			}
			cells := []string{termtext.Escape(ti.Name, termtext.Name), rows,
				wrapList(termtext.Strings(ti.Columns, termtext.Name), 72), termtext.Escape(ti.Path, termtext.Name)}
			if err = t.Append(cells); err != nil {
				break
			}
		}
		if err == nil {
			err = t.Render()
		}
	}
	if err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	return nil
}

// wrapList joins items with ", ", breaking lines before width bytes.
func wrapList(items []string, width int) string {
	var b strings.Builder
	line := 0
	for i, it := range items {
		if i > 0 {
			b.WriteString(",")
			line++
			if line+1+len(it) > width {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(it)
		line += len(it)
	}
	return b.String()
}
