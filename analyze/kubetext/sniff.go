package kubetext

import (
	"bytes"
	"strings"
)

// sniffBytes and sniffLines bound what Sniff reads.
const (
	sniffBytes = 64 << 10
	sniffLines = 200
)

// Sniff tells what kubectl text b holds: "describe" for `kubectl describe
// pod` output (a "Name:" line followed within three lines by
// "Namespace:"), "get-pods" for the `kubectl get pods` table (a header
// with NAME, READY, STATUS, RESTARTS and AGE), or "" for neither. It looks
// at the first 200 lines, skipping paste debris; the first sign found wins.
func Sniff(b []byte) string {
	if len(b) > sniffBytes {
		b = b[:sniffBytes]
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > sniffLines {
		lines = lines[:sniffLines]
	}
	for i, raw := range lines {
		t := strings.TrimSpace(normalize(raw))
		if t == "" || isNoise(t) {
			continue
		}
		if k, v, ok := splitKey(t); ok && k == "Name" && v != "" {
			for _, next := range lines[i+1 : min(i+4, len(lines))] {
				if strings.HasPrefix(strings.TrimSpace(normalize(next)), "Namespace:") {
					return "describe"
				}
			}
		}
		if headerRe.Re().MatchString(t) {
			names := parseHeader(t).names
			if !hasAll(names, podColumnsNeeded) {
				names = squeezedHeader(strings.Fields(t))
			}
			if hasAll(names, podColumnsNeeded) {
				return "get-pods"
			}
		}
	}
	return ""
}
