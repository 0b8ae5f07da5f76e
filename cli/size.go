package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnit returns the bytes in one unit, matched without regard to case.
func sizeUnit(unit string) (int64, bool) {
	switch strings.ToLower(unit) {
	case "", "b":
		return 1, true
	case "kib":
		return 1 << 10, true
	case "mib":
		return 1 << 20, true
	case "gib":
		return 1 << 30, true
	case "tib":
		return 1 << 40, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	}
	return 0, false
}

// parseSize reads a byte count such as "8GiB", "512 MiB", "10GB" or
// "1048576": a whole number and an optional unit, B, KiB, MiB, GiB, TiB
// (powers of 1024) or kB, MB, GB, TB (powers of 1000), in any case. The count
// must be greater than zero.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit, e.g. 8GiB", s)
	}
	unit := strings.TrimSpace(t[i:])
	mult, ok := sizeUnit(unit)
	if !ok {
		switch u := strings.ToUpper(unit); u {
		case "K", "M", "G", "T":
			return 0, fmt.Errorf("size %q: unit %q is ambiguous: use %siB for powers of 1024 or %sB for powers of 1000", s, unit, u, u)
		}
		return 0, fmt.Errorf("size %q: unknown unit %q (use B, KiB, MiB, GiB, TiB, kB, MB, GB or TB)", s, unit)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64) // digits only: the one possible error is range
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: must be greater than zero", s)
	}
	return n * mult, nil
}

// formatSize writes a byte count for people: "512 B", "47.1 KiB", "8 GiB".
func formatSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(1024), 0
	for m := n / 1024; m >= 1024; m /= 1024 {
		div *= 1024
		exp++
	}
	if n%div == 0 {
		return fmt.Sprintf("%d %ciB", n/div, units[exp])
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), units[exp])
}
