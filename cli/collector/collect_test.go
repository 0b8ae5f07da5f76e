package collector

import (
	"strings"
	"testing"
	"time"
)

func TestCollectSince(t *testing.T) {
	now := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		since, sinceTime string
		want             time.Duration
		err              string
	}{
		{"2h", "", 2 * time.Hour, ""},
		{"0", "", 0, ""},
		{"2026-11-29T20:15:00Z", "", 45*time.Minute + time.Second, ""},
		{"6h", "2026-11-29 20:00", time.Hour + time.Second, ""},
		{"yesterday", "", 0, "want a duration (2h, 90m, 0 for all) or a time"},
		{"", "2026-11-30", 0, "is not in the past"},
		{"-1h", "", 0, "may not be negative"},
	} {
		got, err := parseSince(tc.since, tc.sinceTime, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSince(%q, %q) = %v, %v; want error %q", tc.since, tc.sinceTime, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseSince(%q, %q) = %v, %v; want %v", tc.since, tc.sinceTime, got, err, tc.want)
		}
	}
}
