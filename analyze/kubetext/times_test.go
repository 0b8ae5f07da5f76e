package kubetext

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"12s", 12 * time.Second, true},
		{"3m12s", 3*time.Minute + 12*time.Second, true},
		{"2m13s", 2*time.Minute + 13*time.Second, true},
		{"26h", 26 * time.Hour, true},
		{"5h3m", 5*time.Hour + 3*time.Minute, true},
		{"2d4h", 52 * time.Hour, true},
		{"41d", 41 * 24 * time.Hour, true},
		{"5y30d", (5*365 + 30) * 24 * time.Hour, true},
		{"<invalid>", 0, false},
		{"<unknown>", 0, false},
		{"", 0, false},
		{"3", 0, false},
		{"3x", 0, false},
		{"m3", 0, false},
		{"-3m", 0, false},
		{"9999999999y", 0, false},
		{"999999999y", 0, false}, // past time.Duration's range
	} {
		got, ok := ParseAge(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseAge(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want in RFC 3339, UTC; "" the zero time; "error"
	}{
		{"Mon, 30 Nov 2026 14:02:11 +0000", "2026-11-30T14:02:11Z"},
		{"Tue, 01 Dec 2026 22:43:20 +0800", "2026-12-01T14:43:20Z"},
		{"Mon, 01 Jan 0001 00:00:00 +0000", ""},
		{"Mon, 30 Nov 2026 14:02:11 UTC", "2026-11-30T14:02:11Z"},
		{"2026-11-30T14:02:11Z", "2026-11-30T14:02:11Z"},
		{"30 Nov 2026", "error"},
		{"", "error"},
	} {
		got, err := ParseTime(tc.in)
		s := rfc(got)
		if err != nil {
			s = "error"
		}
		if s != tc.want {
			t.Errorf("ParseTime(%q) = %q, want %q", tc.in, s, tc.want)
		}
	}
}
