package kubetext

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// timeLayouts are the layouts kubectl describe prints times in:
// time.RFC1123Z everywhere in describe.go ("Start Time:", "Started:",
// "Finished:"); RFC1123 and RFC3339 are accepted for hand-edited text.
var timeLayouts = []string{time.RFC1123Z, time.RFC1123, time.RFC3339Nano}

// ParseTime parses a time as kubectl describe prints it, e.g.
// "Mon, 30 Nov 2026 14:02:11 +0000". kubectl's rendering of an unknown
// time, "Mon, 01 Jan 0001 00:00:00 +0000", gives the zero time.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if t.IsZero() {
				return time.Time{}, nil
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time in kubectl's layout (%s)", time.RFC1123Z)
}

// ParseAge parses an age as kubectl prints it (apimachinery's
// duration.HumanDuration and ShortHumanDuration): "12s", "3m12s", "2d4h",
// "5y30d". It reports false for "<invalid>" (a time in the future),
// "<unknown>" and anything else it cannot read. A year is 365 days.
func ParseAge(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) || i > 9 {
			return 0, false
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			return 0, false
		}
		var unit time.Duration
		switch s[i] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		case 'y':
			unit = 365 * 24 * time.Hour
		default:
			return 0, false
		}
		if time.Duration(n) > (math.MaxInt64-total)/unit {
			return 0, false // past time.Duration's range
		}
		total += time.Duration(n) * unit
		s = s[i+1:]
	}
	return total, true
}
