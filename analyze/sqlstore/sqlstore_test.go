package sqlstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// newTestStore returns a store holding the named testdata/sql dumps, loaded
// under the bundle path sql/<name>.csv.
func newSQLTestStore(t testing.TB, names ...string) *Store {
	t.Helper()
	s, err := NewStore()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	for _, n := range names {
		f, err := os.Open(filepath.Join("testdata", n+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		err = s.LoadCSV(n, "sql/"+n+".csv", f)
		f.Close()
		if err != nil {
			t.Fatalf("LoadCSV(%s): %v", n, err)
		}
	}
	return s
}

func mustSQL(t *testing.T, s *Store, q string) ([]string, []evidence.Row) {
	t.Helper()
	cols, rows, err := s.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("Query(%q): %v", q, err)
	}
	return cols, rows
}

func TestSQLStoreJoin(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors", "rw_worker_nodes")

	cols, rows := mustSQL(t, s, `SELECT w.host, count(*) AS actors
		FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id
		GROUP BY w.host ORDER BY w.host`)
	if want := []string{"host", "actors"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns = %q, want %q", cols, want)
	}
	want := []evidence.Row{
		{"host": "risingwave-compute-0.risingwave-compute", "actors": int64(4)},
		{"host": "risingwave-compute-1.risingwave-compute", "actors": int64(3)},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}

	// Numbers compare as numbers; the schema-qualified name RisingWave's
	// runbooks use works too.
	for _, q := range []string{
		`SELECT actor_id FROM rw_actors a WHERE a.worker_id = 2 ORDER BY actor_id`,
		`SELECT actor_id FROM rw_catalog.rw_actors WHERE worker_id < 2.5 AND worker_id > 1 ORDER BY actor_id`,
	} {
		_, rows := mustSQL(t, s, q)
		var ids []any
		for _, r := range rows {
			ids = append(ids, r["actor_id"])
		}
		if want := []any{int64(1), int64(3), int64(5), int64(7)}; !reflect.DeepEqual(ids, want) {
			t.Errorf("%s: actor_id = %v, want %v", q, ids, want)
		}
	}
}

func TestSQLStoreValues(t *testing.T) {
	s := newSQLTestStore(t, "rw_worker_nodes")
	_, rows := mustSQL(t, s, `SELECT id, host, parallelism, internal_rpc_host_addr, is_streaming,
		system_total_memory_bytes, started_at, system_total_memory_bytes / 1073741824.0 AS gib
		FROM rw_worker_nodes WHERE id IN (1, 2) ORDER BY id`)
	want := []evidence.Row{{
		"id": int64(1), "host": "risingwave-meta-0.risingwave-meta",
		"parallelism": nil, "internal_rpc_host_addr": nil, "is_streaming": nil, // empty: NULL
		"system_total_memory_bytes": int64(17179869184), "started_at": "2026-11-29 20:01:12.482+00:00",
		"gib": float64(16),
	}, {
		"id": int64(2), "host": "risingwave-compute-0.risingwave-compute",
		"parallelism": int64(8), "internal_rpc_host_addr": "", "is_streaming": "t", // "": an empty string
		"system_total_memory_bytes": int64(34359738368), "started_at": "2026-11-29 20:01:30.117+00:00",
		"gib": float64(32),
	}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows =\n%v\nwant\n%v", rows, want)
	}

	_, rows = mustSQL(t, s, `SELECT count(*) AS n FROM rw_worker_nodes WHERE parallelism IS NULL`)
	if n := rows[0]["n"]; n != int64(2) {
		t.Errorf("rows with NULL parallelism = %v, want 2", n)
	}
}

func TestSQLStoreAffinity(t *testing.T) {
	s := newSQLTestStore(t)
	csv := "i,r,t,e,q\n12,0.5,abc,,\"\"\n-3,1e3,007x,,\"\"\n"
	if err := s.LoadCSV("v", "sql/v.csv", strings.NewReader(csv)); err != nil {
		t.Fatal(err)
	}
	_, rows := mustSQL(t, s, `SELECT i, typeof(i) ti, r, typeof(r) tr, t, e, typeof(e) te, q, typeof(q) tq FROM v ORDER BY rowid`)
	want := []evidence.Row{
		{"i": int64(12), "ti": "integer", "r": 0.5, "tr": "real", "t": "abc", "e": nil, "te": "null", "q": "", "tq": "text"},
		{"i": int64(-3), "ti": "integer", "r": int64(1000), "tr": "integer", "t": "007x", "e": nil, "te": "null", "q": "", "tq": "text"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows =\n%v\nwant\n%v", rows, want)
	}
}

func TestSQLStoreColumnWithSpace(t *testing.T) {
	s := newSQLTestStore(t, "show_jobs")
	cols, rows := mustSQL(t, s, `SELECT "Id", "Create Type", Statement FROM show_jobs WHERE "Create Type" = 'BACKGROUND'`)
	if want := []string{"Id", "Create Type", "Statement"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns = %q, want %q", cols, want)
	}
	want := []evidence.Row{{
		"Id": int64(1012), "Create Type": "BACKGROUND",
		"Statement": "CREATE MATERIALIZED VIEW mv_orders_by_region AS SELECT region, count(*) AS n\nFROM orders GROUP BY region",
	}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
	// A misspelt double-quoted name is an error, as in PostgreSQL, not a
	// string literal.
	if _, _, err := s.Query(context.Background(), `SELECT "Create Typ" FROM show_jobs`); err == nil || !strings.Contains(err.Error(), "no such column") {
		t.Errorf(`"Create Typ": err = %v, want no such column`, err)
	}
	info := s.Tables()
	if want := []string{"Id", "Statement", "Create Type", "Progress"}; len(info) != 1 || !reflect.DeepEqual(info[0].Columns, want) {
		t.Errorf("Tables() = %+v, want columns %q", info, want)
	}
}

func TestSQLStoreMalformedCSV(t *testing.T) {
	s := newSQLTestStore(t)
	f, err := os.Open(filepath.Join("testdata", "bad.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = s.LoadCSV("rw_materialized_views", "sql/rw_materialized_views.csv", f)
	if err == nil || !strings.HasPrefix(err.Error(), "sql/rw_materialized_views.csv:4:") {
		t.Fatalf("err = %v, want one starting sql/rw_materialized_views.csv:4:", err)
	}
	_, rows := mustSQL(t, s, `SELECT name FROM rw_materialized_views ORDER BY id`)
	if want := []evidence.Row{{"name": "mv_a"}, {"name": "mv_b"}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("rows kept = %v, want %v", rows, want)
	}
	want := []TableInfo{{Name: "rw_materialized_views", Path: "sql/rw_materialized_views.csv",
		Columns: []string{"id", "name", "owner"}, Rows: 2, Partial: true}}
	if got := s.Tables(); !reflect.DeepEqual(got, want) {
		t.Errorf("Tables() = %+v, want %+v", got, want)
	}
}

func TestSQLStoreLoadProblems(t *testing.T) {
	tests := []struct {
		name    string
		csv     string
		wantErr string // prefix; "" for none
		want    []TableInfo
	}{{
		name: "ragged rows are padded or cut and counted",
		csv:  "a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n",
		want: []TableInfo{{Name: "t", Path: "sql/t.csv", Columns: []string{"a", "b", "c"}, Rows: 4, Ragged: 2, RaggedLine: 3}},
	}, {
		name:    "unterminated quote",
		csv:     "a,b\n1,2\n3,\"x\n4,5\n",
		wantErr: `sql/t.csv:4:5: extraneous or missing " in quoted-field (in the record starting on line 3)`,
		want:    []TableInfo{{Name: "t", Path: "sql/t.csv", Columns: []string{"a", "b"}, Rows: 1, Partial: true}},
	}, {
		name:    "empty file",
		csv:     "",
		wantErr: "load sql/t.csv: empty file, no header row",
		want:    []TableInfo{},
	}, {
		name: "header only",
		csv:  "a,b\n",
		want: []TableInfo{{Name: "t", Path: "sql/t.csv", Columns: []string{"a", "b"}}},
	}, {
		name: "clashing and empty header names, BOM, CRLF",
		csv:  "\ufeffid,ID,,id\r\n1,2,3,4\r\n",
		want: []TableInfo{{Name: "t", Path: "sql/t.csv", Columns: []string{"id", "ID_2", "column_3", "id_3"}, Rows: 1}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSQLTestStore(t)
			err := s.LoadCSV("t", "sql/t.csv", strings.NewReader(tt.csv))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("err = %v, want %s", err, tt.wantErr)
			}
			if got := s.Tables(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tables() = %+v, want %+v", got, tt.want)
			}
		})
	}

	s := newSQLTestStore(t)
	if err := s.LoadCSV("t", "sql/t.csv", strings.NewReader("a,b,c\n1,2\n3,4,5,6\n")); err != nil {
		t.Fatal(err)
	}
	_, rows := mustSQL(t, s, "SELECT * FROM t ORDER BY a")
	if want := []evidence.Row{{"a": int64(1), "b": int64(2), "c": nil}, {"a": int64(3), "b": int64(4), "c": int64(5)}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("ragged rows = %v, want %v", rows, want)
	}
}

func TestSQLStoreDuplicateTable(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	err := s.LoadCSV("RW_ACTORS", "other/rw_actors.csv", strings.NewReader("x\n1\n"))
	if want := `load other/rw_actors.csv: table "RW_ACTORS" already loaded from sql/rw_actors.csv`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	_, rows := mustSQL(t, s, "SELECT count(*) AS n FROM rw_actors")
	if rows[0]["n"] != int64(7) {
		t.Errorf("rw_actors has %v rows after a duplicate load, want 7", rows[0]["n"])
	}
	if got := s.Tables(); len(got) != 1 || got[0].Path != "sql/rw_actors.csv" {
		t.Errorf("Tables() = %+v", got)
	}
}

func TestSQLStoreQueryRefuses(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	tests := []struct{ query, want string }{
		{"DELETE FROM rw_actors", "only a read-only query (SELECT, WITH ... SELECT or VALUES) is allowed, not DELETE"},
		{"DROP TABLE rw_actors", "not DROP"},
		{"ATTACH DATABASE ':memory:' AS x", "not ATTACH"},
		{"DETACH rw_catalog", "not DETACH"},
		{"PRAGMA query_only = OFF", "not PRAGMA"},
		{"SELECT 1; SELECT 2", "only one statement is allowed"},
		{"SELECT 1; DELETE FROM rw_actors", "only one statement is allowed"},
		{"SELECT 1 /* ; */; -- x\n DROP TABLE rw_actors", "only one statement is allowed"},
		{"WITH x AS (SELECT 1) DELETE FROM rw_actors", "not DELETE"},
		{"with recursive x(n) as (select 1) insert into rw_actors select n, n, n, n from x", "not INSERT"},
		{"", "empty query"},
		{"  -- nothing\n", "empty query"},
		{"SELECT * FROM nope", "no such table: nope"},
		{"SELEC 1", `near "SELEC": syntax error`},
	}
	for _, tt := range tests {
		_, _, err := s.Query(context.Background(), tt.query)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Query(%q): err = %v, want %q", tt.query, err, tt.want)
		}
	}
	// The store is as it was, and still answers.
	_, rows := mustSQL(t, s, "SELECT count(*) AS n FROM rw_catalog.rw_actors")
	if rows[0]["n"] != int64(7) {
		t.Errorf("rw_actors has %v rows, want 7", rows[0]["n"])
	}
	if err := s.LoadCSV("later", "sql/later.csv", strings.NewReader("a\n1\n")); err != nil {
		t.Errorf("LoadCSV after refused queries: %v", err)
	}
}

// TestSQLStoreQueryGuards checks SQLite's own guards, under the keyword check.
func TestSQLStoreQueryGuards(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	for _, q := range []string{
		"DELETE FROM rw_actors",
		"DROP TABLE rw_actors",
		"CREATE TEMP TABLE x(a)",
		"ATTACH DATABASE ':memory:' AS x",
		"DETACH rw_catalog",
		"PRAGMA query_only = OFF",
		"SELECT * FROM pragma_writable_schema",
	} {
		if _, _, err := s.query(context.Background(), q); err == nil || !strings.HasPrefix(err.Error(), "only reading is allowed: ") {
			t.Errorf("query(%q): err = %v, want only reading is allowed", q, err)
		}
	}
	_, rows := mustSQL(t, s, "SELECT count(*) AS n FROM rw_catalog.rw_actors")
	if rows[0]["n"] != int64(7) {
		t.Errorf("rw_actors has %v rows, want 7", rows[0]["n"])
	}
}

func TestSQLStoreQueryAccepts(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	tests := []struct {
		query string
		want  []evidence.Row
	}{
		{"SELECT 1 AS n;", []evidence.Row{{"n": int64(1)}}},
		{"  /* c */ select ';' AS semi -- trailing ; comment", []evidence.Row{{"semi": ";"}}},
		{"VALUES (1), ('a')", []evidence.Row{{"column1": int64(1)}, {"column1": "a"}}},
		{"WITH x(n) AS (SELECT max(actor_id) FROM rw_actors) SELECT n FROM x", []evidence.Row{{"n": int64(7)}}},
		{"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2) SELECT n FROM c", []evidence.Row{{"n": int64(1)}, {"n": int64(2)}}},
		{"SELECT name FROM pragma_table_info('rw_actors') WHERE cid = 2", []evidence.Row{{"name": "worker_id"}}},
		{"SELECT 1 AS a, 2 AS a", []evidence.Row{{"a": int64(1)}}}, // a repeated name keeps the leftmost
		{"SELECT x'6869' AS b", []evidence.Row{{"b": "hi"}}},
	}
	for _, tt := range tests {
		_, rows, err := s.Query(context.Background(), tt.query)
		if err != nil {
			t.Errorf("Query(%q): %v", tt.query, err)
			continue
		}
		if !reflect.DeepEqual(rows, tt.want) {
			t.Errorf("Query(%q) = %v, want %v", tt.query, rows, tt.want)
		}
	}
}

func TestSQLStoreQueryCanceled(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := s.Query(ctx, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c")
	if err == nil {
		t.Fatal("an endless query ended without error")
	}
	mustSQL(t, s, "SELECT * FROM rw_actors") // still usable
}

func TestSQLStoreConcurrent(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors", "rw_worker_nodes")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				s.MissingTables("SELECT * FROM rw_fragments")
			}
			_, rows, err := s.Query(context.Background(), "SELECT count(*) AS n FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id")
			if err != nil || rows[0]["n"] != int64(7) {
				t.Errorf("Query: %v %v", rows, err)
			}
		}()
	}
	wg.Wait()
}

func TestSQLStoreMissingTables(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	tests := []struct {
		query string
		want  []string
	}{
		{"SELECT w.host, count(*) FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id GROUP BY w.host", []string{"rw_worker_nodes"}},
		{"SELECT f.fragment_id, w.host FROM rw_fragments f JOIN rw_catalog.rw_worker_nodes w ON f.worker_id = w.id", []string{"rw_fragments", "rw_worker_nodes"}},
		{"SELECT job_id FROM rw_streaming_jobs WHERE job_id NOT IN (SELECT id FROM rw_materialized_views) AND status <> 'CREATED'", []string{"rw_streaming_jobs", "rw_materialized_views"}},
		{"SELECT * FROM rw_actors WHERE fragment_id IN (SELECT fragment_id FROM rw_fragments)", []string{"rw_fragments"}},
		{`SELECT "Create Type" FROM show_jobs`, []string{"show_jobs"}},
		{"WITH j AS (SELECT * FROM rw_ddl_progress) SELECT * FROM j JOIN rw_actors ON true", []string{"rw_ddl_progress"}},
		{"SELECT * FROM rw_actors", nil},
		{"SELECT nope FROM rw_actors", nil}, // a missing column is not a missing table
		{"SELEC 1", nil},
		{"DELETE FROM rw_gone", nil},
	}
	for _, tt := range tests {
		if got := s.MissingTables(tt.query); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("MissingTables(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
	// The stand-ins are gone.
	if _, _, err := s.Query(context.Background(), "SELECT * FROM rw_worker_nodes"); err == nil {
		t.Error("rw_worker_nodes exists after MissingTables")
	}
	if got := s.Tables(); len(got) != 1 {
		t.Errorf("Tables() = %+v, want rw_actors only", got)
	}
}

// MissingTables remembers its answers until a table is loaded, and a
// caller cannot change what it remembers.
func TestSQLStoreMissingTablesMemo(t *testing.T) {
	s := newSQLTestStore(t, "rw_actors")
	q := "SELECT w.host, a.actor_id FROM rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id"
	for range 2 {
		got := s.MissingTables(q)
		if !reflect.DeepEqual(got, []string{"rw_worker_nodes"}) {
			t.Fatalf("MissingTables = %q, want rw_worker_nodes", got)
		}
		got[0] = "changed"
	}
	f, err := os.Open(filepath.Join("testdata", "rw_worker_nodes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.LoadCSV("rw_worker_nodes", "sql/rw_worker_nodes.csv", f); err != nil {
		t.Fatal(err)
	}
	if got := s.MissingTables(q); got != nil {
		t.Errorf("after loading rw_worker_nodes: MissingTables = %q, want none", got)
	}
}

func TestCheckSQL(t *testing.T) {
	tests := []struct {
		query   string
		wantErr string // substring; "" for none
	}{
		{"SELECT * FROM rw_nope", ""},
		{"SELECT w.host FROM rw_catalog.rw_actors a JOIN rw_worker_nodes w ON a.worker_id = w.id", ""},
		{`SELECT "Create Type" FROM show_jobs WHERE "Progress" LIKE '0.00%'`, ""},
		{"SELECT nope", ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", ""},
		{"VALUES (1)", ""},
		{"SELEC 1", `near "SELEC": syntax error`},
		{"SELECT FROM WHERE", `near "FROM": syntax error`},
		{"SELECT * FROM t WHERE", "incomplete input"},
		{"SELECT 'unterminated", "unrecognized token"},
		{"WITH x AS (SELECT 1)", "incomplete input"},
		{"EXPLAIN SELECT 1", "not EXPLAIN"},
		{"DELETE FROM rw_actors", "not DELETE"},
		{"SELECT 1; SELECT 2", "only one statement"},
		{"", "empty query"},
	}
	for _, tt := range tests {
		err := Check(tt.query)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tt.query, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Check(%q) = %v, want an error with %q", tt.query, err, tt.wantErr)
		}
	}
}

func TestStatementVerb(t *testing.T) {
	tests := []struct {
		query string
		verb  string
		more  bool
	}{
		{"select 1", "SELECT", false},
		{"SELECT 1;;  ; -- done", "SELECT", false},
		{"SELECT ';', \";\", `;`, [;] /* ; */ -- ;\n", "SELECT", false},
		{"SELECT 'it''s; here'; x", "SELECT", true},
		{"WITH a AS (SELECT 1), \"select\" AS (VALUES (2)) SELECT * FROM a", "SELECT", false},
		{"WITH a(x) AS MATERIALIZED (DELETE FROM t) UPDATE t SET x = 1", "UPDATE", false},
		{"WITH a AS (SELECT 1)", "WITH", false},
		{"/* c */ Values (1)", "VALUES", false},
		{"", "", false},
		{";select 1", "", true},
	}
	for _, tt := range tests {
		verb, more := statementVerb(tt.query)
		if verb != tt.verb || more != tt.more {
			t.Errorf("statementVerb(%q) = %q, %v; want %q, %v", tt.query, verb, more, tt.verb, tt.more)
		}
	}
}

// BenchmarkLoadCSV loads a 100,000-row rw_actors-like dump.
func BenchmarkLoadCSV(b *testing.B) {
	const rows = 100_000
	var buf bytes.Buffer
	buf.WriteString("actor_id,fragment_id,worker_id,state,vnode_count,splits,created_at\n")
	for i := range rows {
		fmt.Fprintf(&buf, "%d,%d,%d,RUNNING,256,,2026-11-29 20:01:%02d.%03d+00:00\n", i+1, i/64+1, i%7+1, i%60, i%1000)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := NewStore()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.LoadCSV("rw_actors", "sql/rw_actors.csv", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
