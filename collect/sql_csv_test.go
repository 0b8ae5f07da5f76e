package collect

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestPsqlCSVRoundTrip(t *testing.T) {
	rows := [][]string{
		{"id", "t", "empty"},
		{"1", "plain", ""},
		{"2", "comma, \"quote\"", "\\."},
		{"3", "two\nlines", "carriage\r\nreturn"},
		{"4", "  spaced  ", "tab\there"},
		{""},
	}
	var b bytes.Buffer
	for _, r := range rows {
		appendPsqlCSVRow(&b, r)
	}
	want := "id,t,empty\n1,plain,\n2,\"comma, \"\"quote\"\"\",\"\\.\"\n3,\"two\nlines\",\"carriage\r\nreturn\"\n4,  spaced  ,tab\there\n\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	got, ends, err := parsePsqlCSV(b.Bytes())
	if err != nil || len(got) != len(rows) || ends[len(ends)-1] != b.Len() {
		t.Fatalf("parse: %v, %d records", err, len(got))
	}
	for i := range rows {
		if !slices.Equal(got[i], rows[i]) {
			t.Errorf("record %d: %q, want %q", i, got[i], rows[i])
		}
	}
	for _, bad := range []string{"a,\"unclosed\n", "a\"b\n", "\"x\"y\n", "no final line feed"} {
		if _, _, err := parsePsqlCSV([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestPsqlCSVRedaction(t *testing.T) {
	r := newTestRedactor(t)
	in := "Name,Value,Description\n\"barrier_interval_ms\",1000,\"x, y\"\nlicense_key,lic-123,The license key\n"
	out, n, err := r.PsqlCSV("show_parameters", []byte(in))
	if err != nil || n != 1 {
		t.Fatalf("%v, %d", err, n)
	}
	// The untouched record keeps its bytes, quotes and all.
	want := "Name,Value,Description\n\"barrier_interval_ms\",1000,\"x, y\"\nlicense_key," + r.Token("lic-123") + ",The license key\n"
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	out, n, err = r.PsqlCSV("rw_x", []byte("a,\"broken\npassword=p1\n"))
	if err == nil || strings.Contains(string(out), "p1") || n != 1 {
		t.Errorf("not CSV: %q, %d, %v", out, n, err)
	}
}
