package collect

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// Secrets planted in the fixture. None may appear in a redacted bundle; the
// rw_secrets ones may appear in no bundle at all.
const (
	secretInSecrets     = "NEVER-IN-BUNDLE-rw-secrets-value"
	secretInUserSecrets = "NEVER-IN-BUNDLE-rw-user-secrets-value"
	secretSASL          = "SASL-PW-7f3a9e"
	secretJDBC          = "JDBC-PW-91c2d4"
	secretS3            = "S3-SECRET-55aa0b"
	secretLicense       = "LICENSE-KEY-0c0ffee"
)

// pgFixture is the rw_catalog the tests collect from: tables and views that
// mirror RisingWave's, secrets, a relation of awkward values for the psql
// comparison, a slow view, a view that tries to write and one that kills its
// own connection.
var pgFixture = []string{
	`CREATE ROLE rwdiag_reader LOGIN`,
	`CREATE SCHEMA rw_catalog`,
	`GRANT USAGE ON SCHEMA rw_catalog TO rwdiag_reader`,
	`CREATE TABLE rw_catalog.rw_worker_nodes (id int, host text, port int, type text, state text,
		parallelism int, is_streaming boolean, rw_version text, system_total_memory_bytes bigint, started_at timestamptz)`,
	`INSERT INTO rw_catalog.rw_worker_nodes VALUES
		(1, 'rw-compute-0.rw-compute', 5688, 'WORKER_TYPE_COMPUTE_NODE', 'RUNNING', 4, true, 'v3.0.3', 17179869184, '2026-11-29 20:01:02.123456+00'),
		(2, 'rw-compute-1.rw-compute', 5688, 'WORKER_TYPE_COMPUTE_NODE', 'RUNNING', 4, true, 'v3.0.3', 17179869184, '2026-11-29 20:01:03+00'),
		(3, '10.0.2.17', 4567, 'WORKER_TYPE_FRONTEND', 'RUNNING', NULL, NULL, 'v3.0.3', NULL, NULL)`,
	`CREATE TABLE rw_catalog.rw_actors (actor_id int, fragment_id int, worker_id int, state text)`,
	`INSERT INTO rw_catalog.rw_actors SELECT g, g / 10, 1 + g % 2, 'RUNNING' FROM generate_series(1, 40) g`,
	`CREATE TABLE rw_catalog.rw_materialized_views (id int, name text, schema_id int, owner int, definition text,
		created_at timestamptz, initialized_at timestamptz, background_ddl boolean, status text)`,
	`INSERT INTO rw_catalog.rw_materialized_views VALUES
		(1001, 'mv_actor_count', 2, 1, 'CREATE MATERIALIZED VIEW mv_actor_count AS SELECT worker_id, count(*) AS n FROM rw_catalog.rw_actors GROUP BY worker_id',
		 '2026-11-29 20:10:00+00', '2026-11-29 20:10:01+00', false, 'Created'),
		(1002, 'mv_not_a_create', 2, 1, 'DROP TABLE rw_catalog.rw_actors', NULL, NULL, false, 'Created')`,
	`CREATE TABLE rw_catalog.rw_sources (id int, name text, connector text, definition text,
		connector_props jsonb, format_encode_options jsonb, created_at timestamptz)`,
	`INSERT INTO rw_catalog.rw_sources VALUES
		(2001, 'src_orders', 'KAFKA',
		 'CREATE SOURCE src_orders (id int) WITH (connector = ''kafka'', topic = ''orders'', properties.bootstrap.server = ''kafka:9092'', properties.sasl.mechanism = ''PLAIN'', properties.sasl.username = ''rw'', properties.sasl.password = ''` + secretSASL + `'') FORMAT PLAIN ENCODE JSON',
		 '{"connector": {"type": "plaintext", "value": "kafka"}, "topic": {"type": "plaintext", "value": "orders"}, "properties.sasl.username": {"type": "plaintext", "value": "rw"}, "properties.sasl.password": {"type": "plaintext", "value": "` + secretSASL + `"}}',
		 '{}', now()),
		(2002, 'src_payments', 'KAFKA',
		 'CREATE SOURCE src_payments (id int) WITH (connector = ''kafka'', topic = ''payments'', properties.sasl.password = SECRET kafka_pw) FORMAT PLAIN ENCODE JSON',
		 '{"connector": {"type": "plaintext", "value": "kafka"}, "properties.sasl.password": {"type": "secret", "value": {"value": "kafka_pw"}}}',
		 '{}', now())`,
	`CREATE TABLE rw_catalog.rw_sinks (id int, name text, connector text, sink_type text, definition text, connector_props jsonb)`,
	`INSERT INTO rw_catalog.rw_sinks VALUES
		(3001, 'sink_counts', 'jdbc', 'upsert',
		 'CREATE SINK sink_counts FROM mv_actor_count WITH (connector = ''jdbc'', jdbc.url = ''jdbc:postgresql://pg:5432/app?user=app&password=` + secretJDBC + `'', table.name = ''counts'', type = ''upsert'', primary_key = ''worker_id'')',
		 '{"connector": {"type": "plaintext", "value": "jdbc"}, "jdbc.url": {"type": "plaintext", "value": "jdbc:postgresql://pg:5432/app?user=app&password=` + secretJDBC + `"}, "primary_key": {"type": "plaintext", "value": "worker_id"}}'),
		(3002, 'sink_lake', 'iceberg', 'append-only',
		 'CREATE SINK sink_lake FROM mv_actor_count WITH (connector = ''iceberg'', ''s3.access.key'' = ''AKIAIOSFODNN7EXAMPLE'', ''s3.secret.key'' = ''` + secretS3 + `'', warehouse.path = ''s3://lake/wh'')',
		 '{"connector": {"type": "plaintext", "value": "iceberg"}, "s3.secret.key": {"type": "plaintext", "value": "` + secretS3 + `"}}')`,
	`CREATE VIEW rw_catalog.rw_sink_decouple AS SELECT id AS sink_id, sink_type = 'upsert' AS is_decouple FROM rw_catalog.rw_sinks`,
	`CREATE TABLE rw_catalog.rw_system_parameters (name text, value text, description text, mutable boolean)`,
	`INSERT INTO rw_catalog.rw_system_parameters VALUES ('barrier_interval_ms', '1000', 'The interval of periodic barrier.', true),
		('license_key', '` + secretLicense + `', 'The license key.', true)`,
	`CREATE TABLE rw_catalog.rw_secrets (id int, name text, value text)`,
	`INSERT INTO rw_catalog.rw_secrets VALUES (1, 'kafka_pw', '` + secretInSecrets + `')`,
	`CREATE TABLE rw_catalog.rw_user_secrets (id int, name text, value text)`,
	`INSERT INTO rw_catalog.rw_user_secrets VALUES (1, 'kafka_pw', '` + secretInUserSecrets + `')`,
	// Awkward values: every case psql --csv quotes or prints specially.
	`CREATE TABLE rw_catalog.rw_awkward (i int, big bigint, n numeric, f double precision, r real, t text, b boolean,
		ts timestamp, tstz timestamptz, d date, j jsonb, js json, arr text[], iv interval, u uuid, by bytea, nothing text)`,
	`INSERT INTO rw_catalog.rw_awkward VALUES
		(1, 9223372036854775807, 12345.678900, 0.1, 1.5, 'plain', true, '2026-11-29 20:43:00', '2026-11-29 20:43:00.5+00', '2026-11-29',
		 '{"b": [1, 2, {"c": null}], "a": "x,y"}', '{ "kept" :  "as typed" }', ARRAY['a', 'b,c', 'd"e', NULL], '1 day 02:03:04', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef', NULL),
		(2, -1, -0.5, 1e300, 'NaN', 'comma, and "quotes"', false, '1999-12-31 23:59:59.999999', '1970-01-01 00:00:00+00', '0001-01-01 BC',
		 '[]', 'null', '{}', '-00:00:01', NULL, '\x', ''),
		(3, NULL, NULL, '-Infinity', NULL, E'two\nlines', NULL, 'infinity', '-infinity', NULL, '"just a string"', NULL, NULL, NULL, NULL, NULL, E'carriage\r\nreturn'),
		(4, 0, 0, 0, 0, '\.', true, NULL, NULL, NULL, '{"unicode": "héllo ✓ 日本"}', NULL, NULL, NULL, NULL, NULL, '  spaced  '),
		(5, 0, 0, 0, 0, E'tab\there', true, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '"')`,
	`CREATE VIEW rw_catalog.rw_slow AS SELECT 1 AS slept FROM pg_sleep(10)`,
	`CREATE TABLE public.write_probe (x int)`,
	`GRANT INSERT ON public.write_probe TO rwdiag_reader`,
	`CREATE FUNCTION public.try_write() RETURNS int LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.write_probe VALUES (1); RETURN 1; END $$`,
	`CREATE VIEW rw_catalog.rw_write_attempt AS SELECT public.try_write() AS wrote`,
	`CREATE VIEW rw_catalog.rw_kill_connection AS SELECT pg_terminate_backend(pg_backend_pid()) AS killed`,
	`GRANT SELECT ON ALL TABLES IN SCHEMA rw_catalog TO rwdiag_reader`,
	// Any read of these fails loudly, and the server log would show it.
	`REVOKE ALL ON rw_catalog.rw_secrets, rw_catalog.rw_user_secrets FROM rwdiag_reader`,
}

// fixtureMu serialises loading the fixture template.
var fixtureMu sync.Mutex

// newFixtureDB starts a cluster, loads the fixture into a template database
// and returns a copy of it named db.
func newFixtureDB(t *testing.T, p *pgServer, db string, extra ...string) {
	t.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	rows := p.query(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname = 'fixture'")
	if rows[0][0] == "0" {
		p.exec(t, "postgres", "CREATE DATABASE fixture")
		p.exec(t, "fixture", pgFixture...)
	}
	p.exec(t, "postgres", "CREATE DATABASE "+db+" TEMPLATE fixture")
	if len(extra) > 0 {
		p.exec(t, db, extra...)
	}
}

// collected is a bundle read back: its files and its manifest.
type collected struct {
	files    map[string][]byte
	manifest *bundle.Manifest
}

// collectSQLBundle runs CollectSQL into a new bundle and reads it back.
func collectSQLBundle(t *testing.T, opts SQLOptions) (string, *collected) {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "b.tar")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Format: bundle.FormatTar})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	version, err := CollectSQL(ctx, opts, w)
	if err != nil {
		w.Abort()
		t.Fatalf("CollectSQL: %v", err)
	}
	w.Update(func(m *bundle.Manifest) { m.Redaction = opts.Redactor.Report() })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return version, readCollected(t, dest)
}

func readCollected(t *testing.T, path string) *collected {
	t.Helper()
	r, err := bundle.Open(path, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &collected{files: map[string][]byte{}}
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(e)
		if err != nil {
			t.Fatal(err)
		}
		c.files[e.Path] = b
		if e.Path == bundle.ManifestPath {
			if c.manifest, err = bundle.DecodeManifest(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.manifest == nil {
		t.Fatal("no manifest")
	}
	return c
}

// errorFor returns the recorded error whose target is target.
func (c *collected) errorFor(target string) (bundle.CollectError, bool) {
	for _, e := range c.manifest.Errors {
		if e.Target == target {
			return e, true
		}
	}
	return bundle.CollectError{}, false
}

// allBytes is every byte of the bundle: files and manifest.
func (c *collected) allBytes() []byte {
	var b bytes.Buffer
	for _, v := range c.files {
		b.Write(v)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func TestCollectSQLFromPostgres(t *testing.T) {
	p := startPG(t)
	newFixtureDB(t, p, "main_test")
	red, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	version, b := collectSQLBundle(t, SQLOptions{DSN: p.dsn("rwdiag_reader", "main_test"), StatementTimeout: time.Second, Redactor: red})
	t.Logf("collected in %v", time.Since(start))
	if !strings.HasPrefix(version, "PostgreSQL ") {
		t.Errorf("version %q, want what version() says", version)
	}

	t.Run("every relation enumerated from the catalog", func(t *testing.T) {
		rels := p.query(t, "main_test", `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE nspname = 'rw_catalog' AND relkind IN ('r', 'v') ORDER BY 1`)
		for _, row := range rels {
			rel := row[0]
			path := bundle.SQLPath(rel)
			_, file := b.files[path]
			rec, failed := b.errorFor(rel)
			switch {
			case secretRelation(rel):
				if file || failed {
					t.Errorf("%s: secret relation dumped or tried (file %v, error %+v)", rel, file, rec)
				}
			case rel == "rw_kill_connection":
				// PostgreSQL sends the row, then the backend dies: either way.
			case rel == "rw_slow" || rel == "rw_write_attempt":
				if file || !failed || rec.Path != path || rec.Step != "sql" {
					t.Errorf("%s: want a recorded failure with path %s, got file %v, error %+v", rel, path, file, rec)
				}
			case !file:
				t.Errorf("%s: not dumped (error %+v)", rel, rec)
			}
		}
	})

	t.Run("rw_secrets never read", func(t *testing.T) {
		all := b.allBytes()
		for _, s := range []string{secretInSecrets, secretInUserSecrets, "rw_secrets", "rw_user_secrets"} {
			if bytes.Contains(all, []byte(s)) {
				t.Errorf("the bundle holds %q", s)
			}
		}
		// Any read would have failed (SELECT is revoked) and been logged.
		for _, line := range strings.Split(p.serverLog(t), "\n") {
			if strings.Contains(line, ":rwdiag_reader:") && strings.Contains(line, "secrets") {
				t.Errorf("the collector's session touched a secrets relation: %s", line)
			}
		}
	})

	t.Run("every statement in a read-only transaction", func(t *testing.T) {
		rec, _ := b.errorFor("rw_write_attempt")
		if !strings.Contains(rec.Error, "read-only transaction") {
			t.Errorf("rw_write_attempt: %q, want the server refusing the INSERT in a read-only transaction", rec.Error)
		}
		if n := p.query(t, "main_test", "SELECT count(*) FROM public.write_probe")[0][0]; n != "0" {
			t.Errorf("write_probe has %s rows: a write went through", n)
		}
		// In the server log, each of the session's statements other than
		// BEGIN READ ONLY, COMMIT, ROLLBACK and SET sits between a BEGIN
		// READ ONLY and its end, on the same backend.
		inTx := map[string]bool{}
		explained := false
		stmtRe := regexp.MustCompile(`^(\d+):rwdiag_reader:main_test:\s*LOG:\s+(?:statement|execute <unnamed>): (.*)$`)
		n := 0
		for _, line := range strings.Split(p.serverLog(t), "\n") {
			m := stmtRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			pid, stmt := m[1], m[2]
			switch {
			case stmt == "BEGIN READ ONLY":
				inTx[pid] = true
			case stmt == "COMMIT" || stmt == "ROLLBACK":
				inTx[pid] = false
			case strings.HasPrefix(stmt, "SET statement_timeout"):
			default:
				n++
				explained = explained || strings.HasPrefix(stmt, "EXPLAIN ")
				if !inTx[pid] {
					t.Errorf("outside a read-only transaction: %s", stmt)
				}
			}
		}
		if n < 10 || !explained {
			t.Errorf("only %d statements in the server log (EXPLAIN among them: %v)", n, explained)
		}
	})

	t.Run("statement timeout", func(t *testing.T) {
		rec, ok := b.errorFor("rw_slow")
		if !ok || !strings.Contains(rec.Error, "statement timeout") {
			t.Errorf("rw_slow: %+v, want a statement timeout", rec)
		}
		// and the relations after it were still dumped
		for _, rel := range []string{"rw_sink_decouple", "rw_sinks", "rw_sources", "rw_system_parameters", "rw_worker_nodes", "rw_write_attempt"} {
			if _, ok := b.files[bundle.SQLPath(rel)]; !ok && rel != "rw_write_attempt" {
				t.Errorf("%s not dumped after rw_slow timed out", rel)
			}
		}
	})

	t.Run("a lost connection is opened again", func(t *testing.T) {
		// rw_materialized_views sorts after rw_kill_connection
		if _, ok := b.files[bundle.SQLPath("rw_materialized_views")]; !ok {
			t.Error("rw_materialized_views not dumped after the connection was lost")
		}
		pids := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^(\d+):rwdiag_reader:main_test:`).FindAllStringSubmatch(p.serverLog(t), -1) {
			pids[m[1]] = true
		}
		if len(pids) < 2 {
			t.Errorf("the collector used %d connection(s), want a second one after rw_kill_connection", len(pids))
		}
	})

	t.Run("SHOW and EXPLAIN, which PostgreSQL refuses, are recorded", func(t *testing.T) {
		for _, target := range []string{"show_parameters", "show_jobs"} {
			rec, ok := b.errorFor(target)
			if !ok || rec.Path != bundle.SQLPath(target) {
				t.Errorf("%s: %+v, want a recorded failure with its path", target, rec)
			}
		}
		for _, sink := range []string{"sink_counts", "sink_lake"} {
			rec, ok := b.errorFor("rw_sinks." + sink)
			if !ok || rec.Path != bundle.ExplainPath(sink) {
				t.Errorf("EXPLAIN %s: %+v, want a recorded failure", sink, rec)
			}
		}
		// PostgreSQL can EXPLAIN a CREATE MATERIALIZED VIEW ... AS SELECT.
		plan, ok := b.files[bundle.ExplainPath("mv_actor_count")]
		if !ok || !bytes.Contains(plan, []byte("Aggregate")) {
			t.Errorf("sql/explain/mv_actor_count.txt: %q, want a plan", plan)
		}
		// A definition that is not a CREATE is never run.
		rec, ok := b.errorFor("rw_materialized_views.mv_not_a_create")
		if !ok || !strings.Contains(rec.Error, "not a CREATE MATERIALIZED VIEW") {
			t.Errorf("mv_not_a_create: %+v", rec)
		}
		var mine []string
		for _, line := range strings.Split(p.serverLog(t), "\n") {
			if strings.Contains(line, ":rwdiag_reader:") {
				mine = append(mine, line)
			}
		}
		session := strings.Join(mine, "\n")
		if !strings.Contains(session, "EXPLAIN CREATE MATERIALIZED VIEW mv_actor_count AS SELECT") {
			t.Error("the EXPLAIN never reached the server")
		}
		if strings.Contains(session, "DROP TABLE") {
			t.Error("a definition that is not a CREATE was sent to the server")
		}
	})

	t.Run("redacted", func(t *testing.T) {
		all := b.allBytes()
		for _, s := range []string{secretSASL, secretJDBC, secretS3, secretLicense, "AKIAIOSFODNN7EXAMPLE"} {
			if bytes.Contains(all, []byte(s)) {
				t.Errorf("the bundle holds the secret %q", s)
			}
		}
		// The same secret gets the same token in the definition and in
		// connector_props.
		sources := string(b.files[bundle.SQLPath("rw_sources")])
		if tok := red.Token(secretSASL); strings.Count(sources, tok) != 2 {
			t.Errorf("rw_sources.csv: token %s of the SASL password %d times, want 2 (definition and connector_props):\n%s",
				tok, strings.Count(sources, tok), sources)
		}
		// What is not a secret stays: the secret's name, the user, the host.
		for _, keep := range []string{"kafka_pw", "properties.sasl.username = 'rw'", "kafka:9092", `""value"": ""rw""`} {
			if !strings.Contains(sources, keep) {
				t.Errorf("rw_sources.csv lost %q:\n%s", keep, sources)
			}
		}
		params := string(b.files[bundle.SQLPath("rw_system_parameters")])
		if !strings.Contains(params, "barrier_interval_ms,1000,") || !strings.Contains(params, "license_key,"+red.Token(secretLicense)) {
			t.Errorf("rw_system_parameters.csv:\n%s", params)
		}
		if b.manifest.Redaction.Total == 0 || !b.manifest.Redaction.Enabled {
			t.Errorf("manifest redaction %+v", b.manifest.Redaction)
		}
		for _, path := range []string{"sql/rw_sources.csv", "sql/rw_sinks.csv", "sql/rw_system_parameters.csv"} {
			if fe, _ := b.manifest.File(path); fe.Redacted == 0 {
				t.Errorf("%s: manifest says nothing redacted", path)
			}
		}
	})
}

// The CSV files are what psql --csv prints, byte for byte.
func TestCollectSQLMatchesPsql(t *testing.T) {
	p := startPG(t)
	newFixtureDB(t, p, "psql_test",
		`DROP VIEW rw_catalog.rw_slow`, `DROP VIEW rw_catalog.rw_kill_connection`, `DROP VIEW rw_catalog.rw_write_attempt`)
	_, b := collectSQLBundle(t, SQLOptions{DSN: p.dsn("rwdiag_reader", "psql_test"), StatementTimeout: 5 * time.Second})
	n := 0
	for path, got := range b.files {
		c := bundle.Classify(path)
		if c.Kind != bundle.KindSQLTable {
			continue
		}
		n++
		want := p.psql(t, "rwdiag_reader", "psql_test", "--csv", "-c", "SELECT * FROM rw_catalog."+c.Name)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from psql --csv:\n--- got\n%q\n--- psql\n%q", path, got, want)
		}
	}
	if n < 8 {
		t.Errorf("compared %d files, want all the fixture's relations", n)
	}
	if _, ok := b.files["sql/rw_awkward.csv"]; !ok {
		t.Error("rw_awkward not dumped")
	}
	// EXPLAIN output is what psql -XAt prints.
	want := p.psql(t, "rwdiag_reader", "psql_test", "-At", "-c",
		"EXPLAIN CREATE MATERIALIZED VIEW mv_actor_count AS SELECT worker_id, count(*) AS n FROM rw_catalog.rw_actors GROUP BY worker_id")
	if got := b.files["sql/explain/mv_actor_count.txt"]; !bytes.Equal(got, want) {
		t.Errorf("EXPLAIN differs from psql -XAt:\n--- got\n%s--- psql\n%s", got, want)
	}
}

// A relation added to rw_catalog appears in the bundle without any change to
// the collector; one whose name says secret does not.
func TestCollectSQLEnumeratesTheCatalog(t *testing.T) {
	p := startPG(t)
	newFixtureDB(t, p, "enum_test",
		`CREATE TABLE rw_catalog.rw_brand_new_relation (x int, y text)`,
		`INSERT INTO rw_catalog.rw_brand_new_relation VALUES (1, 'new')`,
		`CREATE VIEW rw_catalog."rw_Mixed Case" AS SELECT 1 AS one`,
		`CREATE TABLE rw_catalog.rw_future_secret_store (v text)`,
		`INSERT INTO rw_catalog.rw_future_secret_store VALUES ('future-secret')`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA rw_catalog TO rwdiag_reader`,
		`DROP VIEW rw_catalog.rw_slow`)
	_, b := collectSQLBundle(t, SQLOptions{DSN: p.dsn("rwdiag_reader", "enum_test"), StatementTimeout: 5 * time.Second})
	if got := string(b.files["sql/rw_brand_new_relation.csv"]); got != "x,y\n1,new\n" {
		t.Errorf("sql/rw_brand_new_relation.csv = %q", got)
	}
	if got := string(b.files["sql/rw_Mixed Case.csv"]); got != "one\n1\n" {
		t.Errorf("sql/rw_Mixed Case.csv = %q", got)
	}
	if bytes.Contains(b.allBytes(), []byte("future-secret")) || bytes.Contains(b.allBytes(), []byte("rw_future_secret_store")) {
		t.Error("a relation named secret was read")
	}
	var rels []string
	for path := range b.files {
		if c := bundle.Classify(path); c.Kind == bundle.KindSQLTable {
			rels = append(rels, c.Name)
		}
	}
	slices.Sort(rels)
	t.Logf("relations: %v", rels)
}

func TestCollectSQLConnectionRefused(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "b.tar")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Format: bundle.FormatTar})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	port := freePort(t)
	red, _ := NewRedactor(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = CollectSQL(ctx, SQLOptions{DSN: "postgres://root:hunter2-pw@127.0.0.1:" + strconv.Itoa(port) + "/dev?sslmode=disable", Redactor: red}, w)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if strings.Contains(err.Error(), "hunter2-pw") {
		t.Errorf("the error shows the password: %v", err)
	}
}

func TestParseServerVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		rw   bool
	}{
		{"PostgreSQL 13.14.0-RisingWave-3.0.3 (ec07f2eb759bd2d8a12a55b030bf581b82adb4b9)", "v3.0.3", true},
		{"PostgreSQL 13.14.0-RisingWave-2.9.0-alpha (unknown)", "v2.9.0-alpha", true},
		{"PostgreSQL 8.3-RisingWave-1.10.0 (abc)", "v1.10.0", true},
		{"PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu", "PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu", false},
	} {
		got, rw := parseServerVersion(tc.in)
		if got != tc.want || rw != tc.rw {
			t.Errorf("parseServerVersion(%q) = %q, %v; want %q, %v", tc.in, got, rw, tc.want, tc.rw)
		}
	}
}
