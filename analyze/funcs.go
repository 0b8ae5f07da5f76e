package analyze

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/expr-lang/expr"
)

// The functions a rule's condition, values and subject expressions may call,
// besides expr's own builtins (len, map, filter, any, all, max, min, ...).
// Documented in docs/rule-format.md.
func exprFunctions() []expr.Option {
	return []expr.Option{
		expr.Function("bytes", func(p ...any) (any, error) { return parseBytes(p[0]), nil },
			new(func(any) float64)),
		expr.Function("num", func(p ...any) (any, error) { return toFloat(p[0]), nil },
			new(func(any) float64)),
		expr.Function("maxOf", func(p ...any) (any, error) { return foldRows(rowsOf(p[0]), p[1].(string), math.Max), nil },
			new(func(any, string) float64)),
		expr.Function("minOf", func(p ...any) (any, error) { return foldRows(rowsOf(p[0]), p[1].(string), math.Min), nil },
			new(func(any, string) float64)),
		expr.Function("sumOf", func(p ...any) (any, error) {
			s := foldRows(rowsOf(p[0]), p[1].(string), func(a, b float64) float64 { return a + b })
			if math.IsNaN(s) {
				return 0.0, nil
			}
			return s, nil
		}, new(func(any, string) float64)),
		expr.Function("distinct", func(p ...any) (any, error) { return distinct(rowsOf(p[0]), p[1].(string)), nil },
			new(func(any, string) []string)),
		expr.Function("epochTime", func(p ...any) (any, error) { return epochTime(toFloat(p[0])), nil },
			new(func(any) time.Time)),
	}
}

// rowsOf accepts a signal's rows or what expr's filter and map make of them.
func rowsOf(v any) []Row {
	switch x := v.(type) {
	case []Row:
		return x
	case []any:
		out := make([]Row, 0, len(x))
		for _, e := range x {
			switch r := e.(type) {
			case Row:
				out = append(out, r)
			case map[string]any:
				out = append(out, Row(r))
			}
		}
		return out
	}
	return nil
}

// foldRows folds the numeric values of field over rows; NaN when none is numeric.
func foldRows(rows []Row, field string, f func(a, b float64) float64) float64 {
	acc := math.NaN()
	for _, r := range rows {
		v := toFloat(r[field])
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(acc) {
			acc = v
		} else {
			acc = f(acc, v)
		}
	}
	return acc
}

func distinct(rows []Row, field string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		v, ok := r[field]
		if !ok || v == nil {
			continue
		}
		s := fmt.Sprint(v)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// toFloat converts a row value to a number: numbers as they are, numeric
// strings parsed, booleans as 0 or 1; NaN otherwise.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return math.NaN()
}

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12, "p": 1e15, "pb": 1e15,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
	"ti": 1 << 40, "tib": 1 << 40, "pi": 1 << 50, "pib": 1 << 50,
}

// parseBytes reads a Kubernetes quantity or a size ("8Gi", "512MiB", "1e9",
// "17179869184") as bytes; NaN when it is none.
func parseBytes(v any) float64 {
	s, ok := v.(string)
	if !ok {
		return toFloat(v)
	}
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') && s[i-1] != '.' {
		i--
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	f, err := strconv.ParseFloat(num, 64)
	mult, known := byteUnits[unit]
	if err != nil || !known {
		// "1e9" ends in a digit but has an exponent; let ParseFloat judge.
		if g, err := strconv.ParseFloat(s, 64); err == nil {
			return g
		}
		return math.NaN()
	}
	return f * mult
}

// epochEpoch is RisingWave's epoch origin, 2021-04-01T00:00:00Z in unix ms.
const epochEpoch = 1617235200000

// epochTime decodes a RisingWave epoch ((unix_ms - origin) << 16).
func epochTime(e float64) time.Time {
	if math.IsNaN(e) || e <= 0 {
		return time.Time{}
	}
	ms := int64(e)>>16 + epochEpoch
	return time.UnixMilli(ms).UTC()
}

// templateFuncs are the functions a summary template may call, after
// Prometheus' alert templates.
var templateFuncs = template.FuncMap{
	"humanize":         func(v any) string { return humanize(toFloat(v), 1000, []string{"", "k", "M", "G", "T", "P"}) },
	"humanize1024":     func(v any) string { return humanize(toFloat(v), 1024, []string{"", "Ki", "Mi", "Gi", "Ti", "Pi"}) },
	"humanizeDuration": func(v any) string { return humanizeDuration(toFloat(v)) },
	"join": func(sep string, v any) string {
		switch x := v.(type) {
		case []string:
			return strings.Join(x, sep)
		case []any:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = fmt.Sprint(e)
			}
			return strings.Join(parts, sep)
		}
		return fmt.Sprint(v)
	},
	"first": func(rows []Row) Row {
		if len(rows) == 0 {
			return Row{}
		}
		return rows[0]
	},
}

func humanize(v float64, base float64, units []string) string {
	if math.IsNaN(v) {
		return "?"
	}
	i := 0
	for math.Abs(v) >= base && i < len(units)-1 {
		v /= base
		i++
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + units[i]
}

func humanizeDuration(sec float64) string {
	if math.IsNaN(sec) {
		return "?"
	}
	d := time.Duration(sec * float64(time.Second))
	if d >= time.Second {
		d = d.Round(time.Second)
	} else {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
