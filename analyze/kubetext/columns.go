package kubetext

import "strings"

// kubectl aligns its tables with a tabwriter: describe's with padding 2
// (describe.go tabbedString), get's with padding 3 (cli-runtime
// printers.GetNewTabWriter). Every cell but the last is therefore followed
// by at least two spaces, and cells themselves hold at most single spaces
// ("12s (x31 over 25m)", "6 (2m13s ago)", "kubelet, node-3"), except the
// last, a free-text message.

// splitWide splits s on runs of two or more spaces into at most n cells,
// the last taking the rest of the line.
func splitWide(s string, n int) []string {
	s = strings.TrimSpace(s)
	var cells []string
	for s != "" && len(cells) < n-1 {
		i := strings.Index(s, "  ")
		if i < 0 {
			break
		}
		cells = append(cells, s[:i])
		s = strings.TrimLeft(s[i:], " ")
	}
	if s != "" {
		cells = append(cells, s)
	}
	return cells
}

// header is a table header line: its column names and where each starts.
type header struct {
	names  []string
	starts []int
}

// parseHeader reads a header whose names are separated by two or more
// spaces, e.g. "  Type     Reason   Age   From     Message".
func parseHeader(s string) header {
	var h header
	i := 0
	for i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		start := i
		end := strings.Index(s[i:], "  ")
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		h.names = append(h.names, s[start:end])
		h.starts = append(h.starts, start)
		i = end
	}
	return h
}

// cut slices s at the header's column starts. It fails when a cell boundary
// falls inside text: the character before each later column's start must
// be a space, and s must reach every column but the last. Cells are
// trimmed; the last takes the rest of the line.
func (h header) cut(s string) ([]string, bool) {
	n := len(h.starts)
	if n == 0 {
		return nil, false
	}
	cells := make([]string, n)
	for i := 0; i < n; i++ {
		start := h.starts[i]
		if start > len(s) {
			if i == n-1 {
				break
			}
			return nil, false
		}
		if start > 0 && start <= len(s) && s[start-1] != ' ' {
			return nil, false
		}
		end := len(s)
		if i+1 < n && h.starts[i+1]-1 < len(s) {
			end = h.starts[i+1] - 1
		}
		if end < start {
			end = start
		}
		cells[i] = strings.TrimSpace(s[start:end])
	}
	return cells, true
}
