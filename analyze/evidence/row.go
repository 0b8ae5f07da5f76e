package evidence

import "unicode/utf8"

// Row is one result of a signal, as a rule's condition and templates see it:
// a metric series (its labels, "value" and "time"), a SQL result row (its
// columns), a Kubernetes object or element ("name", "namespace", "component",
// "value" and the rule's fields) or a matching line ("pod", "container",
// "path", "line", "time", "text", "message", "level", "target" and the
// regular expression's named captures).
//
// Values are string, float64, int64, int (line numbers, event counts), bool,
// time.Time, nil, or for gjson results []any and map[string]any.
//
// The keys "path", "line", "text" and "time", when present, are what the
// finding's evidence shows.
type Row map[string]any

// CutUTF8 cuts s to at most n bytes without splitting a character.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JoinKey joins a key path ("actorTraces") and a key ("132") with a dot:
// "actorTraces.132", or the key alone when the path is empty.
func JoinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
