package sqlstore

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// withAhead sets the answers and results worked out ahead for the test,
// as the analyze package does for the built-in rules.
func withAhead(t *testing.T, answers map[string][]string, results map[string]Result) {
	t.Helper()
	oldA, oldR := emptyAnswers, emptyResults
	emptyAnswers, emptyResults = answers, results
	t.Cleanup(func() { emptyAnswers, emptyResults = oldA, oldR })
}

// A store opens SQLite only when it must: a bundle without sql/ whose
// queries were all answered ahead never does; and what it answers ahead is
// what SQLite answers.
func TestStoreOpensWhenNeeded(t *testing.T) {
	const (
		constant = "SELECT 'cluster' AS sink_id, 2 AS n, 0.5 AS f, NULL AS x"
		reads    = "SELECT actor_id FROM rw_actors"
	)
	want, err := EmptyResult(constant)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, Result{Cols: []string{"sink_id", "n", "f", "x"}, Rows: [][]any{{"cluster", int64(2), 0.5, nil}}}) {
		t.Fatalf("EmptyResult = %#v", want)
	}
	missing, err := EmptyAnswer(reads)
	if err != nil || !reflect.DeepEqual(missing, []string{"rw_actors"}) {
		t.Fatalf("EmptyAnswer = %v, %v", missing, err)
	}
	withAhead(t, map[string][]string{reads: missing, constant: {}}, map[string]Result{constant: want})

	s, err := NewStore()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.MissingTables(reads); !reflect.DeepEqual(got, missing) {
		t.Errorf("MissingTables = %v", got)
	}
	cols, rows, err := s.Query(context.Background(), constant)
	if err != nil || !reflect.DeepEqual(cols, want.Cols) || len(rows) != 1 || rows[0]["sink_id"] != "cluster" || rows[0]["n"] != int64(2) {
		t.Fatalf("Query = %v %v %v", cols, rows, err)
	}
	rows[0]["sink_id"] = "changed" // the caller's to change: the next answer is a copy
	if _, vals, _ := s.QueryValues(context.Background(), constant); vals[0][0] != "cluster" {
		t.Errorf("a caller's change reached the next answer: %v", vals)
	}
	if len(s.Tables()) != 0 || s.conn != nil {
		t.Fatalf("SQLite was opened for queries answered ahead")
	}

	// A query not answered ahead opens it, and gets the same answer.
	if _, rows, err := s.Query(context.Background(), "SELECT 1 AS one"); err != nil || rows[0]["one"] != int64(1) || s.conn == nil {
		t.Fatalf("Query(SELECT 1) = %v, %v; opened %v", rows, err, s.conn != nil)
	}
	s2 := newSQLTestStore(t, "rw_actors")
	for _, q := range []string{constant, reads} {
		_, got, err := s2.QueryValues(context.Background(), q)
		if q == constant && (err != nil || !reflect.DeepEqual(got, want.Rows)) {
			t.Errorf("with a table loaded, %q = %v, %v", q, got, err)
		}
		if q == reads && (err != nil || len(got) == 0) {
			t.Errorf("with rw_actors loaded, %q = %v, %v", q, got, err)
		}
	}
}

// A result answered ahead is still bound by the store's limits: over them,
// SQLite is asked, and the error is the one it gives.
func TestStoreAheadWithinLimits(t *testing.T) {
	const q = "SELECT 'a' AS x UNION ALL SELECT 'b'"
	want, err := EmptyResult(q)
	if err != nil || len(want.Rows) != 2 {
		t.Fatal(want, err)
	}
	withAhead(t, map[string][]string{q: {}}, map[string]Result{q: want})
	s, err := NewStoreLimits(Limits{MaxResultRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, _, err = s.QueryValues(context.Background(), q)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "MaxResultRows" {
		t.Fatalf("err = %v, want MaxResultRows", err)
	}
	// A query canceled before it starts is refused as SQLite refuses it.
	s2, _ := NewStore()
	defer s2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s2.QueryValues(ctx, q); err == nil {
		t.Error("a canceled query was answered")
	}
}

// A closed store refuses every call, opened or not.
func TestStoreClosedUnopened(t *testing.T) {
	s, err := NewStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.LoadCSV("t", "sql/t.csv", strings.NewReader("a\n1\n")); !errors.Is(err, errStoreClosed) {
		t.Errorf("LoadCSV after Close: %v", err)
	}
	if _, _, err := s.Query(context.Background(), "SELECT 1"); !errors.Is(err, errStoreClosed) {
		t.Errorf("Query after Close: %v", err)
	}
	if m := s.MissingTables("SELECT * FROM rw_actors"); m != nil {
		t.Errorf("MissingTables after Close: %v", m)
	}
	if s.conn != nil {
		t.Error("a closed store opened SQLite")
	}
}
