package logs

import (
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// parseJSONLine parses a JSON log line: its rendering is the Text.
func parseJSONLine(b []byte) (Line, bool) {
	// One buffer for the object and, after it, its rendering, which is
	// about as long. No one else holds the buffer and nothing writes to it
	// once rendered, so the Line's strings share it, as strings.Builder
	// does: no copy.
	buf := append(make([]byte, 0, 2*len(b)+32), b...)
	buf, f, ok := renderJSONLine(buf, b)
	if !ok {
		return Line{}, false
	}
	s := unsafe.String(unsafe.SliceData(buf), len(buf))
	ll := Line{Text: s[len(b):], Level: levelNames[f.level], Target: f.target, Message: f.message, JSON: true, form: formJSON, jsonRaw: s[:len(b)]}
	if f.timestamp != "" {
		ll.Time, _ = time.Parse(time.RFC3339Nano, f.timestamp)
	}
	return ll, true
}

// jsonEventFields are a JSON line's fields: those of "fields" but the
// message (a second "message" included), then unknown top-level keys.
func jsonEventFields(raw string) []Field {
	doc := gjson.Parse(raw)
	var out []Field
	seenMessage := false
	if fields := doc.Get("fields"); fields.IsObject() {
		fields.ForEach(func(k, v gjson.Result) bool {
			if k.Str == "message" && !seenMessage {
				seenMessage = true
				return true
			}
			out = append(out, Field{Key: k.Str, Value: jsonValue(v)})
			return true
		})
	}
	doc.ForEach(func(k, v gjson.Result) bool {
		if !jsonMetaKeys[k.Str] {
			out = append(out, Field{Key: k.Str, Value: jsonValue(v)})
		}
		return true
	})
	return out
}

// jsonEventSpans are a JSON line's "spans" (or, when it has none, its
// "span"), outermost first.
func jsonEventSpans(raw string) []Span {
	doc := gjson.Parse(raw)
	spans := doc.Get("spans")
	if !spans.IsArray() {
		if sp := doc.Get("span"); sp.IsObject() {
			spans = gjson.Parse("[" + sp.Raw + "]")
		}
	}
	var out []Span
	spans.ForEach(func(_, s gjson.Result) bool {
		if !s.IsObject() {
			return true
		}
		sp := Span{Name: s.Get("name").String()}
		s.ForEach(func(k, v gjson.Result) bool {
			if k.Str != "name" {
				sp.Fields = append(sp.Fields, Field{Key: k.Str, Value: jsonValue(v)})
			}
			return true
		})
		out = append(out, sp)
		return true
	})
	return out
}

// jsonValue is a JSON value's text: a string's contents, or the JSON.
func jsonValue(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return v.Raw
}

// jsonFields are the parts of a JSON log line besides its rendering.
type jsonFields struct {
	timestamp, target, message string
	level                      int
}

// jsonMetaKeys are top-level keys of tracing-subscriber's JSON format that
// are not event fields and so are not rendered as k=v.
var jsonMetaKeys = map[string]bool{
	"timestamp": true, "level": true, "target": true, "fields": true, "message": true,
	"spans": true, "span": true, "filename": true, "line_number": true, "threadName": true, "threadId": true,
}

// renderJSONLine renders a JSON log line as its text-format equivalent,
// appended to dst:
//
//	<timestamp> <LEVEL, right-aligned to 5> <span{k=v}:...: ><target>: <message> <k=v ...>
//
// Event fields follow the message in the order the line holds them (those of
// "fields", then unknown top-level keys, as a flattened event has them);
// strings are unquoted when they hold no space, quote, backslash or "=",
// other values are written as their JSON. ok is false when b is not a JSON
// object.
//
// The rendering introduces no byte other than spaces, ':', '=', '{', '}' and
// '"', and changes no byte of the line's values but the level's case. The
// scanner's JSON prefilter relies on this.
func renderJSONLine(dst, b []byte) ([]byte, jsonFields, bool) {
	var f jsonFields
	if !gjson.ValidBytes(b) {
		return dst, f, false
	}
	doc := gjson.ParseBytes(b)
	if !doc.IsObject() {
		return dst, f, false
	}
	var fields, spans, span gjson.Result
	var extra []gjson.Result // key, value pairs
	var levelRaw string
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "timestamp":
			f.timestamp = v.String()
		case "level":
			levelRaw = v.String()
		case "target":
			f.target = v.String()
		case "fields":
			fields = v
		case "message":
			if f.message == "" {
				f.message = v.String()
			}
		case "spans":
			spans = v
		case "span":
			span = v
		default:
			if !jsonMetaKeys[k.Str] {
				extra = append(extra, k, v)
			}
		}
		return true
	})
	if fields.IsObject() {
		if m := fields.Get("message"); m.Exists() {
			f.message = m.String()
		}
	}
	f.level = ParseLevel(levelRaw)
	sep := false
	if f.timestamp != "" {
		dst = append(dst, f.timestamp...)
		sep = true
	}
	if levelRaw != "" {
		if sep {
			dst = append(dst, ' ')
		}
		name := levelRaw
		if f.level != levelNone && strings.EqualFold(levelRaw, levelNames[f.level]) {
			name = levelNames[f.level]
		}
		for n := len(name); n < 5; n++ {
			dst = append(dst, ' ')
		}
		dst = append(dst, name...)
		sep = true
	}
	if !spans.IsArray() && span.IsObject() {
		spans = gjson.Parse("[" + span.Raw + "]")
	}
	if spans.IsArray() {
		n := 0
		spans.ForEach(func(_, s gjson.Result) bool {
			if !s.IsObject() {
				return true
			}
			if n == 0 && sep {
				dst = append(dst, ' ')
			}
			n++
			dst = append(dst, s.Get("name").String()...)
			first := true
			s.ForEach(func(k, v gjson.Result) bool {
				if k.Str == "name" {
					return true
				}
				if first {
					dst = append(dst, '{')
					first = false
				} else {
					dst = append(dst, ' ')
				}
				dst = appendField(dst, k.Str, v)
				return true
			})
			if !first {
				dst = append(dst, '}')
			}
			dst = append(dst, ':')
			return true
		})
		if n > 0 {
			sep = true
		}
	}
	if f.target != "" {
		if sep {
			dst = append(dst, ' ')
		}
		dst = append(dst, f.target...)
		dst = append(dst, ':')
		sep = true
	}
	if sep {
		dst = append(dst, ' ')
	}
	dst = append(dst, f.message...)
	if fields.IsObject() {
		seenMessage := false
		fields.ForEach(func(k, v gjson.Result) bool {
			switch {
			case k.Str != "message":
				dst = append(dst, ' ')
				dst = appendField(dst, k.Str, v)
			case !seenMessage:
				seenMessage = true // the message, written above
			default:
				// A second "message" (error!(.., message, err, "msg")): the
				// text format prints it without its name.
				dst = append(dst, ' ')
				dst = append(dst, v.String()...)
			}
			return true
		})
	}
	for i := 0; i+1 < len(extra); i += 2 {
		dst = append(dst, ' ')
		dst = appendField(dst, extra[i].Str, extra[i+1])
	}
	return dst, f, true
}

// appendField appends "k=v" the way the text format prints a field.
func appendField(dst []byte, k string, v gjson.Result) []byte {
	dst = append(dst, k...)
	dst = append(dst, '=')
	if v.Type != gjson.String {
		return append(dst, v.Raw...)
	}
	if simpleValue(v.Str) {
		return append(dst, v.Str...)
	}
	return appendQuoted(dst, v.Str)
}

// simpleValue reports whether a string field prints unquoted.
func simpleValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ', c == '"', c == '\\', c == '=', c == 0x7f:
			return false
		}
	}
	return true
}

// appendQuoted quotes s, escaping only quotes, backslashes and control
// bytes; unlike strconv.Quote it leaves other bytes alone, so the rendering
// adds nothing to a value that has none of those.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < ' ' || c == 0x7f:
			dst = append(dst, '\\', 'x')
			dst = strconv.AppendUint(dst, uint64(c)>>4, 16)
			dst = strconv.AppendUint(dst, uint64(c)&15, 16)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
