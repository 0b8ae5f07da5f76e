// Package english holds the small pieces of English grammar rwdiag's
// messages share, so that "1 value" and "2 values" are said alike
// everywhere. (Package bundle keeps its own copy: it imports nothing of
// ours.)
package english

// Plural returns one when n is 1, else many: Plural(n, "row", "rows").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
