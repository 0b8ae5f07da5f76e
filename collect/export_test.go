package collect

import "testing"

// TestPG is a throwaway PostgreSQL cluster for the external tests
// (package collect_test): its superuser's DSN for a database, and a way to
// run statements as the superuser.
type TestPG struct{ p *pgServer }

// StartTestPG starts a cluster for the test, or skips it when there are no
// PostgreSQL binaries.
func StartTestPG(t *testing.T) TestPG { return TestPG{startPG(t)} }

// DSN is a URL for the superuser on db over TCP.
func (pg TestPG) DSN(db string) string { return pg.p.dsn("postgres", db) }

// Exec runs statements as the superuser on db, each on its own.
func (pg TestPG) Exec(t *testing.T, db string, stmts ...string) { pg.p.exec(t, db, stmts...) }

// GenLog is about size bytes of RisingWave log text in the shapes kubectl
// logs --timestamps returns, one line in 500 with a secret (genLog).
func GenLog(size int, seed uint64) []byte { return genLog(size, seed) }
