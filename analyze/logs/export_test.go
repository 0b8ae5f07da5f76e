package logs

import "testing"

// LoadBuiltin returns the log queries of the built-in rules. The rule
// loader lives in package analyze, which imports this one, so the external
// test package (builtin_test.go) sets it.
var LoadBuiltin func() ([]*Query, error)

// builtinQueries are the built-in rules' log queries.
func builtinQueries(t testing.TB) []*Query {
	t.Helper()
	if LoadBuiltin == nil {
		t.Fatal("LoadBuiltin is not set")
	}
	qs, err := LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return qs
}
