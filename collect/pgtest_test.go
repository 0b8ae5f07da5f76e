package collect

// A throwaway PostgreSQL cluster for the SQL collection tests: initdb on a
// temporary directory, a free port on 127.0.0.1, log_statement=all, stopped
// and removed when the test ends. The tests skip only when no PostgreSQL
// binaries exist; .ci/run installs Debian's postgresql package.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgServer is a running throwaway cluster.
type pgServer struct {
	bin     string // the directory holding initdb, pg_ctl, postgres
	psqlBin string
	dir     string // everything of the cluster lives under it
	port    int
	runAs   []string // prefix that runs a command as the cluster's owner
}

// pgBinDir finds the newest PostgreSQL server binaries: Debian's
// /usr/lib/postgresql/<major>/bin, else initdb on the PATH.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
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

func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// startPG starts a cluster for the test and stops it when the test ends.
func startPG(t *testing.T) *pgServer {
	t.Helper()
	bin := pgBinDir()
	if bin == "" {
		t.Skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb or initdb on the PATH); " +
			"install Debian's postgresql package, as .ci/run does")
	}
	p := &pgServer{bin: bin, psqlBin: filepath.Join(bin, "psql")}
	if _, err := os.Stat(p.psqlBin); err != nil {
		if p.psqlBin, err = exec.LookPath("psql"); err != nil {
			t.Fatalf("PostgreSQL server binaries in %s but no psql", bin)
		}
	}
	dir, err := os.MkdirTemp("", "rwdiag-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sock"), 0o755); err != nil {
		t.Fatal(err)
	}
	// initdb refuses to run as root: run the cluster as the postgres user,
	// which owns its directory.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root and no postgres user to run the cluster as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, d := range []string{dir, filepath.Join(dir, "sock")} {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		if runuser, err := exec.LookPath("runuser"); err == nil {
			p.runAs = []string{runuser, "-u", "postgres", "--"}
		} else {
			p.runAs = []string{"su", "postgres", "-s", "/bin/sh", "-c", `exec "$0" "$@"`}
		}
	}
	p.run(t, filepath.Join(bin, "initdb"), "-D", p.data(), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	p.port = freePort(t)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c log_statement=all "+
		"-c log_line_prefix=%%p:%%u:%%d: -c log_timezone=UTC", p.port, filepath.Join(dir, "sock"))
	p.run(t, filepath.Join(bin, "pg_ctl"), "-D", p.data(), "-l", p.logPath(), "-w", "-t", "60", "-o", opts, "start")
	t.Cleanup(func() {
		argv := p.runAs0(filepath.Join(bin, "pg_ctl"), "-D", p.data(), "-m", "immediate", "-w", "stop")
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return p
}

func (p *pgServer) data() string    { return filepath.Join(p.dir, "data") }
func (p *pgServer) logPath() string { return filepath.Join(p.dir, "server.log") }

func (p *pgServer) runAs0(name string, args ...string) []string {
	return append(append(append([]string{}, p.runAs...), name), args...)
}

func (p *pgServer) run(t *testing.T, name string, args ...string) {
	t.Helper()
	argv := p.runAs0(name, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(p.logPath())
		t.Fatalf("%s: %v\n%s\nserver log:\n%s", strings.Join(argv, " "), err, out, log)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// dsn is a URL for user on database db over TCP.
func (p *pgServer) dsn(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, p.port, db)
}

// exec runs statements as the superuser on db, each on its own (CREATE
// DATABASE refuses a transaction block).
func (p *pgServer) exec(t *testing.T, db string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, p.dsn("postgres", db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s).ReadAll(); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// query runs one query as the superuser and returns its rows as text.
func (p *pgServer) query(t *testing.T, db, sql string) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, p.dsn("postgres", db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res := conn.ExecParams(ctx, sql, nil, nil, nil, nil).Read()
	if res.Err != nil {
		t.Fatalf("%s: %v", sql, res.Err)
	}
	var rows [][]string
	for _, r := range res.Rows {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = string(v)
		}
		rows = append(rows, row)
	}
	return rows
}

// psql runs the real psql as user on db and returns its standard output.
func (p *pgServer) psql(t *testing.T, user, db string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(p.psqlBin, append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
		"-p", strconv.Itoa(p.port), "-U", user, "-d", db}, args...)...)
	// The same environment as the collector's connection: nothing that
	// changes how values print.
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "PGTZ", "PGDATESTYLE", "PGOPTIONS", "PGCLIENTENCODING", "PSQLRC":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("psql %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// serverLog returns the server's log so far.
func (p *pgServer) serverLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.logPath())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
