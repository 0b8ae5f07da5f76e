package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// writeSQLBundle writes a small hand-made bundle directory with three good
// dumps, one malformed one and files the sql command must skip.
func writeSQLBundle(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"sql/rw_worker_nodes.csv": "id,host,port,type,parallelism\n" +
			"1,rw-meta-0.rw-meta,5690,WORKER_TYPE_META,\n" +
			"2,rw-compute-0.rw-compute,5688,WORKER_TYPE_COMPUTE_NODE,4\n" +
			"3,rw-compute-1.rw-compute,5688,WORKER_TYPE_COMPUTE_NODE,4\n",
		"sql/rw_actors.csv": "actor_id,fragment_id,worker_id,state\n" +
			"1,1,2,RUNNING\n2,1,3,RUNNING\n3,2,2,RUNNING\n4,2,3,RUNNING\n5,3,2,RUNNING\n",
		"sql/show_jobs.csv": "Id,Statement,Create Type,Progress\n" +
			"1012,CREATE MATERIALIZED VIEW mv AS SELECT 1,BACKGROUND,12.51% (1250000/9990000)\n",
		"sql/rw_fragments.csv": "fragment_id,table_id,flags\n" +
			"1,1007,\"SOURCE\"\n" +
			"2,1007,\"MVIEW\"x\n" + // line 3: a CSV syntax error
			"3,1012,MVIEW\n",
		"sql/explain/mv.txt":           "StreamMaterialize\n",
		"logs/rw-meta-0/meta.log":      "not read\n",
		"kubernetes/pods.json":         `{"items": []}`,
		"sql/notes/not-a-dump.csv":     "a\n1\n",
		"metrics/rw-meta-0/1.prom":     "up 1\n",
		"diagnose/report.txt":          "report\n",
		"kafka/consumer-groups.txt":    "groups\n",
		"kubernetes/describe/pods/x.t": "x\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const loadProblem = `rwdiag: sql/rw_fragments.csv:3:14: extraneous or missing " in quoted-field` + "\n"

func TestSQLTable(t *testing.T) {
	dir := writeSQLBundle(t)
	r := run(t, "sql", dir, "SELECT w.host, count(*) FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id GROUP BY w.host ORDER BY w.host")
	want := `+-------------------------+----------+
| host                    | count(*) |
+-------------------------+----------+
| rw-compute-0.rw-compute | 3        |
| rw-compute-1.rw-compute | 2        |
+-------------------------+----------+
(2 rows)
`
	if r.code != exitOK || r.stdout != want || r.stderr != loadProblem {
		t.Errorf("want exit 0, stdout\n%s\nstderr %s\ngot %v", want, loadProblem, r)
	}

	// Numbers compare as numbers, empty fields are NULL, a column name keeps
	// its case and space.
	r = run(t, "sql", dir, `SELECT w.id, parallelism, "Create Type" FROM rw_worker_nodes w, show_jobs WHERE w.id = 1 OR parallelism >= 4 ORDER BY w.id`)
	want = `+----+-------------+-------------+
| id | parallelism | Create Type |
+----+-------------+-------------+
| 1  | NULL        | BACKGROUND  |
| 2  | 4           | BACKGROUND  |
| 3  | 4           | BACKGROUND  |
+----+-------------+-------------+
(3 rows)
`
	if r.code != exitOK || r.stdout != want {
		t.Errorf("want exit 0 and\n%s\ngot %v", want, r)
	}
}

func TestSQLCSV(t *testing.T) {
	dir := writeSQLBundle(t)
	r := run(t, "sql", "--format", "csv", dir, `SELECT "Id", Statement, "Create Type", Progress, NULL AS no_value, 0.5 AS half FROM show_jobs`)
	want := "Id,Statement,Create Type,Progress,no_value,half\n" +
		"1012,CREATE MATERIALIZED VIEW mv AS SELECT 1,BACKGROUND,12.51% (1250000/9990000),,0.5\n"
	if r.code != exitOK || r.stdout != want {
		t.Errorf("want exit 0 and\n%s\ngot %v", want, r)
	}
}

func TestSQLJSON(t *testing.T) {
	dir := writeSQLBundle(t)
	r := run(t, "sql", "--format", "json", dir, "SELECT id, host, parallelism FROM rw_worker_nodes WHERE id < 3 ORDER BY id")
	want := `[
  {"id": 1, "host": "rw-meta-0.rw-meta", "parallelism": null},
  {"id": 2, "host": "rw-compute-0.rw-compute", "parallelism": 4}
]
`
	if r.code != exitOK || r.stdout != want {
		t.Errorf("want exit 0 and\n%s\ngot %v", want, r)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 {
		t.Errorf("output is not a JSON array of 2 rows: %v", err)
	}

	r = run(t, "sql", "--format", "json", dir, "SELECT * FROM rw_actors WHERE worker_id = 99")
	if r.code != exitOK || r.stdout != "[]\n" {
		t.Errorf("empty result: want []\n%v", r)
	}
}

func TestSQLTables(t *testing.T) {
	dir := writeSQLBundle(t)
	want := `+-----------------+-------------+-----------------------------------------+-------------------------+
| table           | rows        | columns                                 | path                    |
+-----------------+-------------+-----------------------------------------+-------------------------+
| rw_actors       | 5           | actor_id, fragment_id, worker_id, state | sql/rw_actors.csv       |
| rw_fragments    | 1 (partial) | fragment_id, table_id, flags            | sql/rw_fragments.csv    |
| rw_worker_nodes | 3           | id, host, port, type, parallelism       | sql/rw_worker_nodes.csv |
| show_jobs       | 1           | Id, Statement, Create Type, Progress    | sql/show_jobs.csv       |
+-----------------+-------------+-----------------------------------------+-------------------------+
`
	for _, args := range [][]string{
		{"sql", "--tables", dir},
		{"sql", dir, "--tables"},
		{"sql", dir, ".tables"},
		{"sql", dir},
	} {
		r := run(t, args...)
		if r.code != exitOK || r.stdout != want || r.stderr != loadProblem {
			t.Errorf("%q: want exit 0 and\n%s\ngot %v", args, want, r)
		}
	}

	r := run(t, "sql", "--tables", "--format", "json", dir)
	var got []struct {
		Name    string   `json:"name"`
		Path    string   `json:"path"`
		Columns []string `json:"columns"`
		Rows    int      `json:"rows"`
		Partial bool     `json:"partial"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitOK || len(got) != 4 {
		t.Fatalf("--format json: %v\n%v", err, r)
	}
	if got[1].Name != "rw_fragments" || got[1].Rows != 1 || !got[1].Partial || !reflect.DeepEqual(got[1].Columns, []string{"fragment_id", "table_id", "flags"}) {
		t.Errorf("--format json: rw_fragments = %+v", got[1])
	}

	r = run(t, "sql", "--tables", "--format", "csv", dir)
	if !strings.Contains(r.stdout, "table,rows,columns,path\n") || !strings.Contains(r.stdout, "\nshow_jobs,1,\"Id,Statement,Create Type,Progress\",sql/show_jobs.csv\n") {
		t.Errorf("--format csv:\n%v", r)
	}

	noSQL := t.TempDir()
	if err := os.MkdirAll(filepath.Join(noSQL, "logs", "rw-meta-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noSQL, "logs", "rw-meta-0", "meta.log"), []byte("2026-11-29T20:15:00Z INFO started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "sql", noSQL)
	if r.code != exitOK || r.stdout != "" || !strings.Contains(r.stderr, "has no sql/*.csv tables") {
		t.Errorf("bundle without tables:\n%v", r)
	}
	empty := t.TempDir()
	r = run(t, "sql", empty)
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "not a bundle: "+empty+": nothing in it is bundle content") {
		t.Errorf("empty directory: want exit 2, not a bundle:\n%v", r)
	}
}

func TestSQLLoadProblems(t *testing.T) {
	dir := writeSQLBundle(t)
	// The rows before the syntax error are kept.
	r := run(t, "sql", "--format", "csv", dir, "SELECT * FROM rw_fragments")
	if want := "fragment_id,table_id,flags\n1,1007,SOURCE\n"; r.code != exitOK || r.stdout != want || r.stderr != loadProblem {
		t.Errorf("want exit 0, stdout\n%s\nstderr %s\ngot %v", want, loadProblem, r)
	}

	// Ragged rows are loaded and reported.
	if err := os.WriteFile(filepath.Join(dir, "sql", "rw_fragments.csv"), []byte("a,b\n1,2\n3\n4,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "sql", "--format", "csv", dir, "SELECT * FROM rw_fragments")
	wantErr := "rwdiag: sql/rw_fragments.csv: 2 rows have more or fewer fields than the header (the first on line 3); they were cut or padded with NULL\n"
	if want := "a,b\n1,2\n3,\n4,5\n"; r.code != exitOK || r.stdout != want || r.stderr != wantErr {
		t.Errorf("want exit 0, stdout\n%s\nstderr %s\ngot %v", want, wantErr, r)
	}
}

func TestSQLArchive(t *testing.T) {
	for _, f := range []bundle.Format{bundle.FormatTarZstd, bundle.FormatTarGzip} {
		archive := writeBundle(t, f)
		r := run(t, "sql", "--format", "csv", archive, "SELECT host, port + 1 AS next FROM rw_worker_nodes")
		if want := "host,next\nrw-compute-0.rw-compute,5689\n"; r.code != exitOK || r.stdout != want || r.stderr != "" {
			t.Errorf("%v: want exit 0 and\n%s\ngot %v", f, want, r)
		}
	}
}

func TestSQLLimits(t *testing.T) {
	dir := writeSQLBundle(t)
	// The per-entry limit cuts rw_actors.csv inside its third row: the rows
	// before it are kept and the cut is reported.
	r := run(t, "sql", "--max-entry-bytes", "70", "--format", "csv", dir, "SELECT actor_id FROM rw_actors")
	if want := "actor_id\n1\n2\n"; r.code != exitOK || r.stdout != want ||
		!strings.Contains(r.stderr, "rwdiag: load sql/rw_actors.csv: after line 3: ") || !strings.Contains(r.stderr, "per-entry limit of 70 bytes") {
		t.Errorf("want exit 0, stdout\n%s\nand the cut on stderr; got %v", want, r)
	}
}

// A query that would never end or never stop returning rows stops at the
// limit the flags set, with an error naming it, and exits 2.
func TestSQLQueryBudget(t *testing.T) {
	dir := writeSQLBundle(t)
	r := run(t, "sql", "--timeout", "300ms", dir, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r")
	if r.code != exitUsage || !strings.Contains(r.stderr, "ran longer than 300ms (sqlstore limit QueryTimeout)") {
		t.Errorf("endless CTE: want exit 2 naming the time limit; got %v", r)
	}
	r = run(t, "sql", "--max-rows", "5", "--format", "csv", dir, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT n FROM r")
	if r.code != exitUsage || !strings.Contains(r.stderr, "more than 5 rows (sqlstore limit MaxResultRows)") {
		t.Errorf("endless rows: want exit 2 naming the row limit; got %v", r)
	}
	if r := run(t, "sql", "--timeout", "0s", dir, "SELECT 1"); r.code != exitUsage {
		t.Errorf("--timeout 0: want a usage error; got %v", r)
	}
}

// A damaged archive: what came before the damage is queried, the damage is
// reported, and the exit status says the bundle was not read whole.
func TestSQLDamagedArchive(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct{ name, content string }{
		{"sql/rw_actors.csv", "actor_id,worker_id\n1,2\n2,3\n"},
		{"sql/rw_fragments.csv", "fragment_id\n" + strings.Repeat("1\n", 5000)},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar")
	if err := os.WriteFile(cut, buf.Bytes()[:buf.Len()-6000], 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "sql", "--format", "csv", cut, "SELECT * FROM rw_actors")
	if want := "actor_id,worker_id\n1,2\n2,3\n"; r.code != exitUsage || r.stdout != want ||
		!strings.Contains(r.stderr, "archive damaged") || !strings.Contains(r.stderr, "reading stopped early") {
		t.Errorf("want exit 2, stdout\n%s\nand the damage on stderr; got %v", want, r)
	}
	if n := strings.Count(r.stderr, "archive damaged"); n != 2 {
		t.Errorf("the damage is reported %d times, want twice: for the file, and for the bundle\n%v", n, r)
	}
}

func TestSQLErrors(t *testing.T) {
	dir := writeSQLBundle(t)
	notBundle := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notBundle, []byte("not a bundle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"syntax error", []string{dir, "SELEC 1"}, `rwdiag: sql: near "SELEC": syntax error`},
		{"missing table", []string{dir, "SELECT * FROM rw_actors JOIN rw_fragment_infos USING (fragment_id)"},
			"rwdiag: sql: no such table: rw_fragment_infos (sql/rw_fragment_infos.csv not in the bundle; --tables lists the tables it has)"},
		{"missing column", []string{dir, "SELECT vnode_count FROM rw_actors"}, "rwdiag: sql: no such column: vnode_count"},
		{"delete", []string{dir, "DELETE FROM rw_actors"}, "rwdiag: sql: only a read-only query (SELECT, WITH ... SELECT or VALUES) is allowed, not DELETE"},
		{"two statements", []string{dir, "SELECT 1; DROP TABLE rw_actors"}, "rwdiag: sql: only one statement is allowed"},
		{"attach", []string{dir, "ATTACH DATABASE '/tmp/x.db' AS x"}, "not ATTACH"},
		{"empty query", []string{dir, " "}, "QUERY is empty"},
		{"tables and query", []string{"--tables", dir, "SELECT 1"}, "give --tables or a QUERY, not both"},
		{"bad format", []string{"--format", "yaml", dir, "SELECT 1"}, `--format "yaml": want table, csv or json`},
		{"flag without its value after arguments", []string{dir, "SELECT 1", "--format"}, "is missing its value"},
		{"flag without its value after bundle", []string{dir, "--format"}, "is missing its value"},
		{"missing bundle", nil, "sql: missing BUNDLE"},
		{"no such bundle", []string{filepath.Join(dir, "nope.tar.zst"), "SELECT 1"}, "nope.tar.zst"},
		{"not a bundle", []string{notBundle, "SELECT 1"}, "not a directory, tar, tar.zst or tar.gz archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, append([]string{"sql"}, tc.args...)...)
			if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("want exit 2, no stdout, stderr with %q\n%v", tc.stderr, r)
			}
		})
	}
}

func TestSQLHelp(t *testing.T) {
	r := run(t, "sql", "--help")
	if r.code != exitOK || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "rwdiag sql bundle.tar.zst --tables") {
		t.Errorf("want help with examples\n%v", r)
	}
}
