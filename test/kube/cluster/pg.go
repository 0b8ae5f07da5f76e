package cluster

// A throwaway PostgreSQL holding a sample's rw_catalog dumps, as
// collect/pgtest_test.go starts one (initdb in a temporary directory, as the
// postgres user when root, a free loopback port, stopped and removed at the
// end); loaded with psql, so this module needs no PostgreSQL driver.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SQLUser is the role the collector connects as: it may read rw_catalog
// and nothing else.
const SQLUser = "rwdiag"

type pgServer struct {
	bin   string
	psql  string
	dir   string
	port  int
	runAs []string
}

// pgBinDir finds the newest PostgreSQL server binaries: Debian's
// /usr/lib/postgresql/<major>/bin, else initdb on the PATH.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	major := func(p string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p)))); return n }
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(filepath.Dir(d), "pg_ctl")); err == nil {
			return filepath.Dir(d)
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

// ErrNoPostgres is returned by Start when Options.NoSQL is false and no
// PostgreSQL server binaries are installed.
var ErrNoPostgres = fmt.Errorf("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb or initdb on the PATH); " +
	"install Debian's postgresql package, or set cluster.Options.NoSQL")

func startPG() (*pgServer, error) {
	bin := pgBinDir()
	if bin == "" {
		return nil, ErrNoPostgres
	}
	p := &pgServer{bin: bin, psql: filepath.Join(bin, "psql")}
	if _, err := os.Stat(p.psql); err != nil {
		if p.psql, err = exec.LookPath("psql"); err != nil {
			return nil, fmt.Errorf("PostgreSQL server binaries in %s but no psql", bin)
		}
	}
	dir, err := os.MkdirTemp("", "rwdiag-kube-pg-")
	if err != nil {
		return nil, err
	}
	p.dir = dir
	fail := func(err error) (*pgServer, error) { os.RemoveAll(dir); return nil, err }
	if err := os.Chmod(dir, 0o755); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sock"), 0o755); err != nil {
		return fail(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root and no postgres user to run PostgreSQL as: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, d := range []string{dir, filepath.Join(dir, "sock")} {
			if err := os.Chown(d, uid, gid); err != nil {
				return fail(err)
			}
		}
		if runuser, err := exec.LookPath("runuser"); err == nil {
			p.runAs = []string{runuser, "-u", "postgres", "--"}
		} else {
			p.runAs = []string{"su", "postgres", "-s", "/bin/sh", "-c", `exec "$0" "$@"`}
		}
	}
	if _, err := p.run(nil, filepath.Join(bin, "initdb"), "-D", p.data(), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	p.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c log_statement=all "+
		"-c log_line_prefix=%%p:%%u:%%d: -c log_timezone=UTC", p.port, filepath.Join(dir, "sock"))
	if _, err := p.run(nil, filepath.Join(bin, "pg_ctl"), "-D", p.data(), "-l", p.logPath(), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		return fail(err)
	}
	return p, nil
}

func (p *pgServer) data() string    { return filepath.Join(p.dir, "data") }
func (p *pgServer) logPath() string { return filepath.Join(p.dir, "server.log") }

func (p *pgServer) run(stdin []byte, name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, p.runAs...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(p.logPath())
		return out, fmt.Errorf("%s: %v\n%s\nserver log:\n%s", strings.Join(argv, " "), err, out, log)
	}
	return out, nil
}

// sql runs statements as the superuser on db.
func (p *pgServer) sql(db string, stdin []byte, stmts ...string) error {
	args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "postgres", "-d", db}
	for _, s := range stmts {
		args = append(args, "-c", s)
	}
	_, err := p.run(stdin, p.psql, args...)
	return err
}

func (p *pgServer) stop() {
	p.run(nil, filepath.Join(p.bin, "pg_ctl"), "-D", p.data(), "-m", "immediate", "-w", "stop")
	os.RemoveAll(p.dir)
}

// DSN is the collector's connection string.
func (p *pgServer) dsn() string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/dev?sslmode=disable", SQLUser, p.port)
}

// ServerLog is what PostgreSQL logged (every statement: log_statement=all).
func (p *pgServer) serverLog() string {
	b, _ := os.ReadFile(p.logPath())
	return string(b)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// loadCatalog creates database dev with schema rw_catalog, one table of
// text columns per sql/rw_*.csv, loaded from the file (an unquoted empty
// field is NULL, "" the empty string, as psql --csv printed them), and a
// version() that says RisingWave, found before pg_catalog's by the
// collector's role.
func (p *pgServer) loadCatalog(files []string, rwVersion string) ([]string, error) {
	ver := strings.TrimPrefix(rwVersion, "v")
	if ver == "" {
		ver = "3.0.3"
	}
	setup := []string{
		"CREATE ROLE " + SQLUser + " LOGIN",
		"CREATE DATABASE dev",
	}
	if err := p.sql("postgres", nil, setup...); err != nil {
		return nil, err
	}
	stmts := []string{
		"CREATE SCHEMA rw_catalog",
		// RisingWave's version() in the shape collect/sql.go parseServerVersion reads: "PostgreSQL 13.14.0-RisingWave-<version> (<git sha>)".
		"CREATE FUNCTION public.version() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'PostgreSQL 13.14.0-RisingWave-" + ver + " (0000000000)'::text $$",
		"ALTER ROLE " + SQLUser + " IN DATABASE dev SET search_path = public, pg_catalog",
		"GRANT USAGE ON SCHEMA rw_catalog TO " + SQLUser,
	}
	var tables []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		header, err := csv.NewReader(bytes.NewReader(b)).Read()
		if err != nil {
			return nil, fmt.Errorf("%s:1: %w", f, err)
		}
		table := strings.TrimSuffix(filepath.Base(f), ".csv")
		var cols []string
		for _, h := range header {
			cols = append(cols, quoteIdent(h)+" text")
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE rw_catalog.%s (%s)", quoteIdent(table), strings.Join(cols, ", ")))
		tables = append(tables, table)
	}
	stmts = append(stmts, "GRANT SELECT ON ALL TABLES IN SCHEMA rw_catalog TO "+SQLUser)
	if err := p.sql("dev", nil, stmts...); err != nil {
		return nil, err
	}
	for i, f := range files {
		b, _ := os.ReadFile(f)
		if err := p.sql("dev", b, `\copy rw_catalog.`+quoteIdent(tables[i])+` FROM pstdin WITH (FORMAT csv, HEADER true)`); err != nil {
			return nil, fmt.Errorf("load %s: %w", f, err)
		}
	}
	return tables, nil
}
