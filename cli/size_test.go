package cli

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"1048576", 1 << 20, ""},
		{"1B", 1, ""},
		{"8GiB", 8 << 30, ""},
		{"8gib", 8 << 30, ""},
		{"512 MiB", 512 << 20, ""},
		{" 64KiB ", 64 << 10, ""},
		{"2TiB", 2 << 40, ""},
		{"10GB", 10_000_000_000, ""},
		{"3kB", 3000, ""},
		{"1MB", 1_000_000, ""},
		{"7TB", 7_000_000_000_000, ""},
		{"8G", 0, "ambiguous: use GiB"},
		{"8k", 0, "ambiguous: use KiB"},
		{"8 bytes", 0, `unknown unit "bytes"`},
		{"1.5GiB", 0, `unknown unit ".5GiB"`},
		{"GiB", 0, "want a whole number"},
		{"", 0, "want a whole number"},
		{"-1", 0, "want a whole number"},
		{"0", 0, "greater than zero"},
		{"0GiB", 0, "greater than zero"},
		{"9223372036854775807", 9223372036854775807, ""},
		{"9223372036854775808", 0, "too large"},
		{"8388608TiB", 0, "too large"},
	} {
		got, err := parseSize(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("parseSize(%q): %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseSize(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
		case got != tc.want:
			t.Errorf("parseSize(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{48213, "47.1 KiB"},
		{8 << 30, "8 GiB"},
		{64 << 30, "64 GiB"},
		{1<<40 + 1<<39, "1.5 TiB"},
	} {
		if got := formatSize(tc.in); got != tc.want {
			t.Errorf("formatSize(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// What formatSize writes for a whole number of units, parseSize reads back.
	for _, n := range []int64{1 << 10, 8 << 30, 64 << 30} {
		if got, err := parseSize(strings.ReplaceAll(formatSize(n), " ", "")); err != nil || got != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, got, err)
		}
	}
}
