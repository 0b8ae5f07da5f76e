package sqlstore

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rwdiag/rwdiag/analyze/evidence"
)

// randomCSV writes n records of random fields: bare and quoted, with
// commas, doubled quotes, newlines and multi-byte characters in the quoted
// ones. No carriage returns: encoding/csv turns a quoted "\r\n" into "\n".
func randomCSV(r *rand.Rand, n int) []byte {
	pieces := []string{"a", "b", "7", "-", " ", "é", "日本", "🙂", ",", `""`, "\n", "xyz"}
	var b bytes.Buffer
	for range n {
		fields := 1 + r.IntN(4)
		for f := range fields {
			if f > 0 {
				b.WriteByte(',')
			}
			quoted := r.IntN(2) == 0
			if quoted {
				b.WriteByte('"')
			}
			for range r.IntN(12) {
				p := pieces[r.IntN(len(pieces))]
				if !quoted && (p == "," || p == `""` || p == "\n") {
					continue
				}
				b.WriteString(p)
			}
			if quoted {
				b.WriteByte('"')
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// oneByteReader hands its input out a byte at a time, so that every chunk
// boundary of the capper is exercised.
type oneByteReader struct{ b []byte }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, io.EOF
	}
	p[0] = o.b[0]
	o.b = o.b[1:]
	return 1, nil
}

func readAllCSV(t *testing.T, r io.Reader) [][]string {
	t.Helper()
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("the capper's output is not valid CSV: %v", err)
	}
	return recs
}

func TestCSVCapperPassesWhatFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		in := randomCSV(rng, 1+rng.IntN(20))
		for _, r := range []io.Reader{bytes.NewReader(in), &oneByteReader{in}} {
			c := newCSVCapper(r, 1<<20, 1<<20, -1)
			out, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("case %d: output differs from input within the limits (err %v):\n%q\n%q", i, err, in, out)
			}
			if c.cuts != 0 || c.stopped {
				t.Fatalf("case %d: cuts=%d stopped=%v, want none", i, c.cuts, c.stopped)
			}
		}
	}
}

// cutField is what the capper makes of a field value: its first max bytes,
// less an unfinished UTF-8 character, and the marker.
func cutField(v string, max int, marker string) string {
	if len(v) <= max {
		return v
	}
	v = v[:max]
	for len(v) > 0 && !utf8.ValidString(v) {
		v = v[:len(v)-1]
	}
	return v + marker
}

func TestCSVCapperCutsFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		in := randomCSV(rng, 1+rng.IntN(20))
		max := 1 + rng.IntN(12)
		want := readAllCSV(t, bytes.NewReader(in))
		c := newCSVCapper(&oneByteReader{in}, max, 1<<20, -1)
		got := readAllCSV(t, c)
		cuts := 0
		for _, rec := range want {
			for j, f := range rec {
				if len(f) > max {
					cuts++
				}
				rec[j] = cutField(f, max, c.fieldMarker)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d (max %d):\ninput %q\ngot  %q\nwant %q", i, max, in, got, want)
		}
		if c.cuts != cuts {
			t.Errorf("case %d: counted %d cuts, want %d", i, c.cuts, cuts)
		}
	}
}

// TestCSVCapperStopsAtBytes: with a byte limit, the records that end
// within it come out whole and the one it cuts is marked to be dropped.
func TestCSVCapperStopsAtBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		in := randomCSV(rng, 1+rng.IntN(20))
		limit := int64(rng.IntN(len(in) + 2))
		var want [][]string
		cr := csv.NewReader(bytes.NewReader(in))
		cr.FieldsPerRecord = -1
		for {
			rec, err := cr.Read()
			if err != nil || cr.InputOffset() > limit {
				break
			}
			want = append(want, rec)
		}
		c := newCSVCapper(&oneByteReader{in}, 1<<20, 1<<20, limit)
		out, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		got := readAllCSV(t, bytes.NewReader(out))
		if c.stopMid {
			if int64(len(out)) != c.stopOffset || len(got) == 0 {
				t.Fatalf("case %d: stopped inside a record at %d of %d output bytes", i, c.stopOffset, len(out))
			}
			got = got[:len(got)-1]
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d (limit %d of %d):\ninput %q\ngot  %q\nwant %q", i, limit, len(in), in, got, want)
		}
		if c.stopped != (limit < int64(len(in))) {
			t.Errorf("case %d: stopped = %v with a limit of %d for %d bytes", i, c.stopped, limit, len(in))
		}
	}
}

func limitedStore(t *testing.T, l Limits) *Store {
	t.Helper()
	s, err := NewStoreLimits(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestLoadCSVLimits(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name    string
		limits  Limits
		csv     string
		wantErr string // exactly; "" for none
		want    TableInfo
		rows    []evidence.Row // SELECT * FROM t ORDER BY rowid
	}{{
		name:    "a long field is cut and marked, its row kept",
		limits:  Limits{MaxFieldBytes: 10},
		csv:     "id,body\n1,short\n2,\"" + long + "\"\n3," + long + "\n",
		wantErr: `sql/t.csv:3: 2 values were cut, the first in column "body": fields longer than 10 bytes or rows longer than 16 MiB keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"id", "body"}, Rows: 3, Cut: 2, CutLine: 3},
		rows: []evidence.Row{{"id": int64(1), "body": "short"},
			{"id": int64(2), "body": "xxxxxxxxxx…[cut by rwdiag: field longer than 10 bytes]"},
			{"id": int64(3), "body": "xxxxxxxxxx…[cut by rwdiag: field longer than 10 bytes]"}},
	}, {
		name:    "a long row: the field crossing the limit is cut, the rest are NULL",
		limits:  Limits{MaxRecordBytes: 12},
		csv:     "a,b,c\n1,2,3\n12345,67890,abcdef\n4,5,6\n",
		wantErr: `sql/t.csv:3: 1 value was cut, the first in column "c": fields longer than 1 MiB or rows longer than 12 bytes keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"a", "b", "c"}, Rows: 3, Cut: 1, CutLine: 3},
		rows: []evidence.Row{{"a": int64(1), "b": int64(2), "c": int64(3)},
			{"a": int64(12345), "b": int64(67890), "c": "…[cut by rwdiag: row longer than 12 bytes]"},
			{"a": int64(4), "b": int64(5), "c": int64(6)}},
	}, {
		name:    "more rows than MaxRows",
		limits:  Limits{MaxRows: 2},
		csv:     "a\n1\n2\n3\n4\n",
		wantErr: "sql/t.csv:4: more than 2 rows; the rows from this line on were not loaded (sqlstore limit MaxRows)",
		want:    TableInfo{Columns: []string{"a"}, Rows: 2, Partial: true},
		rows:    []evidence.Row{{"a": int64(1)}, {"a": int64(2)}},
	}, {
		name:    "MaxRows rows exactly",
		limits:  Limits{MaxRows: 2},
		csv:     "a\n1\n2\n",
		want:    TableInfo{Columns: []string{"a"}, Rows: 2},
		rows:    []evidence.Row{{"a": int64(1)}, {"a": int64(2)}},
		wantErr: "",
	}, {
		name:    "the byte limit inside a quoted field drops that row",
		limits:  Limits{MaxFileBytes: 16},
		csv:     "a,b\n1,x\n2,\"y\nyyyyyyyyyyyy\"\n3,z\n",
		wantErr: "sql/t.csv:3: more than 16 bytes loaded; the rows from this line on were not loaded (sqlstore limit MaxFileBytes)",
		want:    TableInfo{Columns: []string{"a", "b"}, Rows: 1, Partial: true},
		rows:    []evidence.Row{{"a": int64(1), "b": "x"}},
	}, {
		name:    "the byte limit at the end of a row",
		limits:  Limits{MaxFileBytes: 8},
		csv:     "a,b\n1,x\n2,y\n",
		wantErr: "sql/t.csv:3: more than 8 bytes loaded; the rows from this line on were not loaded (sqlstore limit MaxFileBytes)",
		want:    TableInfo{Columns: []string{"a", "b"}, Rows: 1, Partial: true},
		rows:    []evidence.Row{{"a": int64(1), "b": "x"}},
	}, {
		name:   "a file of exactly MaxFileBytes",
		limits: Limits{MaxFileBytes: 12},
		csv:    "a,b\n1,x\n2,y\n",
		want:   TableInfo{Columns: []string{"a", "b"}, Rows: 2},
		rows:   []evidence.Row{{"a": int64(1), "b": "x"}, {"a": int64(2), "b": "y"}},
	}, {
		name:    "lines after a cut multi-line field are the input's",
		limits:  Limits{MaxFieldBytes: 4},
		csv:     "a,b\n1,\"l1\nl2\nl3\nl4\"\n2\n3,\"x\n",
		wantErr: `sql/t.csv:7:6: extraneous or missing " in quoted-field; sql/t.csv:2: 1 value was cut, the first in column "b": fields longer than 4 bytes or rows longer than 16 MiB keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"a", "b"}, Rows: 2, Ragged: 1, RaggedLine: 6, Partial: true, Cut: 1, CutLine: 2},
		rows:    []evidence.Row{{"a": int64(1), "b": "l1\nl…[cut by rwdiag: field longer than 4 bytes]"}, {"a": int64(2), "b": nil}},
	}, {
		name:    "what a cut field drops does not count toward MaxFileBytes",
		limits:  Limits{MaxFieldBytes: 4, MaxFileBytes: 16},
		csv:     "a,b\n1,\"" + strings.Repeat("x", 1000) + "\"\n2,y\n",
		wantErr: `sql/t.csv:2: 1 value was cut, the first in column "b": fields longer than 4 bytes or rows longer than 16 MiB keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"a", "b"}, Rows: 2, Cut: 1, CutLine: 2},
		rows:    []evidence.Row{{"a": int64(1), "b": "xxxx…[cut by rwdiag: field longer than 4 bytes]"}, {"a": int64(2), "b": "y"}},
	}, {
		name:    "a cut never splits a character",
		limits:  Limits{MaxFieldBytes: 5},
		csv:     "a\n日本語\n",
		wantErr: `sql/t.csv:2: 1 value was cut, the first in column "a": fields longer than 5 bytes or rows longer than 16 MiB keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"a"}, Rows: 1, Cut: 1, CutLine: 2},
		rows:    []evidence.Row{{"a": "日…[cut by rwdiag: field longer than 5 bytes]"}},
	}, {
		name:    "a long header name",
		limits:  Limits{MaxFieldBytes: 3},
		csv:     "abcdef,g\n1,2\n",
		wantErr: `sql/t.csv:1: 1 value was cut, the first in the header: fields longer than 3 bytes or rows longer than 16 MiB keep their start and end with "…[cut by rwdiag: ...]" (sqlstore limits MaxFieldBytes, MaxRecordBytes)`,
		want:    TableInfo{Columns: []string{"abc…[cut by rwdiag: field longer than 3 bytes]", "g"}, Rows: 1, Cut: 1, CutLine: 1},
		rows:    []evidence.Row{{"abc…[cut by rwdiag: field longer than 3 bytes]": int64(1), "g": int64(2)}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := limitedStore(t, tt.limits)
			err := s.LoadCSV("t", "sql/t.csv", &oneByteReader{[]byte(tt.csv)})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("err = %v\nwant  %s", err, tt.wantErr)
			}
			if limited := strings.Contains(tt.wantErr, "sqlstore limit"); err != nil && errors.Is(err, ErrLimit) != limited {
				t.Errorf("errors.Is(err, ErrLimit) = %v, want %v", !limited, limited)
			}
			tt.want.Name, tt.want.Path = "t", "sql/t.csv"
			if got := s.Tables(); len(got) != 1 || !reflect.DeepEqual(got[0], tt.want) {
				t.Errorf("Tables() = %+v\nwant %+v", got, tt.want)
			}
			_, rows := mustSQL(t, s, "SELECT * FROM t ORDER BY rowid")
			if !reflect.DeepEqual(rows, tt.rows) {
				t.Errorf("rows = %q\nwant %q", rows, tt.rows)
			}
		})
	}
}

func TestLoadCSVTotalBytes(t *testing.T) {
	s := limitedStore(t, Limits{MaxTotalBytes: 20})
	if err := s.LoadCSV("a", "sql/a.csv", strings.NewReader("x\n1\n2\n3\n")); err != nil {
		t.Fatal(err)
	}
	err := s.LoadCSV("b", "sql/b.csv", strings.NewReader("y\n1\n2\n3\n4\n5\n6\n"))
	if want := "sql/b.csv:7: more than 12 bytes loaded; the rows from this line on were not loaded (sqlstore limit MaxTotalBytes)"; err == nil || err.Error() != want || !errors.Is(err, ErrLimit) {
		t.Errorf("second dump: err = %v, want %s", err, want)
	}
	err = s.LoadCSV("c", "sql/c.csv", strings.NewReader("z\n1\n"))
	if want := "sql/c.csv: not loaded: the CSV dumps loaded before it add up to 20 bytes, the limit for all of them (sqlstore limit MaxTotalBytes)"; err == nil || err.Error() != want {
		t.Errorf("third dump: err = %v, want %s", err, want)
	}
	if got := len(s.Tables()); got != 2 {
		t.Errorf("%d tables, want 2", got)
	}
}

// endlessField is a CSV dump whose second row's field is n bytes of 'x',
// made as it is read.
type endlessField struct {
	head, tail *strings.Reader
	n          int64
}

func newEndlessField(n int64, quoted bool) *endlessField {
	q := ""
	if quoted {
		q = `"`
	}
	return &endlessField{head: strings.NewReader("a,b\n1," + q), tail: strings.NewReader(q + "\n2,y\n"), n: n}
}

func (e *endlessField) Read(p []byte) (int, error) {
	if e.head.Len() > 0 {
		return e.head.Read(p)
	}
	if e.n > 0 {
		k := int(min(int64(len(p)), e.n))
		for i := range k {
			p[i] = 'x'
		}
		e.n -= int64(k)
		return k, nil
	}
	return e.tail.Read(p)
}

// TestLoadCSVHugeField is the attack, a 2 GB field, scaled down to
// 128 MiB with the field limit lowered to 64 KiB: the load reads past it
// streaming, with a warning naming the file and line, and allocates a small
// fraction of the field. (Before the limits, a 256 MiB field cost 2.9 GB.)
func TestLoadCSVHugeField(t *testing.T) {
	for _, quoted := range []bool{true, false} {
		s := limitedStore(t, Limits{MaxFieldBytes: 64 << 10})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := s.LoadCSV("t", "sql/t.csv", newEndlessField(128<<20, quoted))
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.HasPrefix(err.Error(), `sql/t.csv:2: 1 value was cut, the first in column "b"`) || !errors.Is(err, ErrLimit) {
			t.Errorf("quoted=%v: err = %v, want the cut value named", quoted, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("quoted=%v: loading a 128 MiB field allocated %d MiB; it must stream", quoted, alloc>>20)
		}
		if elapsed > 30*time.Second {
			t.Errorf("quoted=%v: loading took %v", quoted, elapsed)
		}
		_, rows := mustSQL(t, s, "SELECT a, length(b) AS n FROM t ORDER BY a")
		want := []evidence.Row{{"a": int64(1), "n": int64(64<<10 + utf8.RuneCountInString("…[cut by rwdiag: field longer than 64 KiB]"))}, {"a": int64(2), "n": int64(1)}}
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("quoted=%v: rows = %v, want %v", quoted, rows, want)
		}
	}
}

func TestQueryLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		query  string
		limit  string // the Limits field named
	}{
		{"endless recursive CTE, all rows", Limits{MaxResultRows: 10000},
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT * FROM r", "MaxResultRows"},
		{"endless recursive CTE, counted", Limits{QueryTimeout: 200 * time.Millisecond},
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r", "QueryTimeout"},
		{"a huge blob", Limits{}, "SELECT zeroblob(1e9)", "MaxValueBytes"},
		{"a huge string", Limits{MaxValueBytes: 1 << 20}, "SELECT printf('%.*c', 1000000000, 'x')", "MaxValueBytes"},
		{"group_concat past the value limit", Limits{MaxValueBytes: 1 << 20},
			"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r LIMIT 1000000) SELECT group_concat(n) FROM r", "MaxValueBytes"},
		{"huge rows of a cross join", Limits{MaxResultBytes: 4 << 20},
			"SELECT a.actor_id, printf('%.*c', 100000, 'x') FROM rw_actors a, rw_actors b, rw_actors c", "MaxResultBytes"},
		{"many rows of a cross join", Limits{MaxResultRows: 1000},
			"SELECT a.actor_id FROM rw_actors a, rw_actors b, rw_actors c, rw_actors d", "MaxResultRows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := limitedStore(t, tt.limits)
			loadTestdata(t, s, "rw_actors")
			start := time.Now()
			_, _, err := s.Query(context.Background(), tt.query)
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tt.limit || !errors.Is(err, ErrLimit) {
				t.Fatalf("err = %v, want a LimitError for %s", err, tt.limit)
			}
			if !strings.Contains(err.Error(), "sqlstore limit "+tt.limit) {
				t.Errorf("err = %q does not name the limit", err)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("stopped after %v", d)
			}
			mustSQL(t, s, "SELECT count(*) FROM rw_actors") // still usable
		})
	}

	// The caller's own cancellation stays the caller's error.
	s := limitedStore(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := s.Query(ctx, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r")
	if err == nil || errors.Is(err, ErrLimit) {
		t.Errorf("a query the caller canceled: err = %v, want the context's", err)
	}

	// Negative limits are none: the value and row limits do not apply.
	s = limitedStore(t, Limits{MaxResultRows: -1, MaxValueBytes: -1, MaxFieldBytes: -1})
	_, rows, err := s.Query(context.Background(), "SELECT length(printf('%.*c', 70000000, 'x')) AS n")
	if err != nil || rows[0]["n"] != int64(70000000) {
		t.Errorf("no value limit: %v %v", rows, err)
	}
	if got := s.Limits(); got.MaxResultRows != -1 || got.QueryTimeout != DefaultQueryTimeout {
		t.Errorf("Limits() = %+v", got)
	}
}

func loadTestdata(t *testing.T, s *Store, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LoadCSV(name, "sql/"+name+".csv", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}
