// Package termtext makes text from a bundle safe to print on a terminal.
//
// Bundle content (pod names, file paths, log lines, CSV cells, manifest
// fields) is written by whoever made the bundle. Printed raw, an escape
// sequence in it could move the cursor, rewrite what was printed before
// (a carriage return, backspaces), set the window title, write the
// clipboard, or reorder the line with a bidirectional override. Escape
// writes every such character visibly instead, so the reader sees it and the
// terminal does not act on it. JSON is escaped by its encoder; JSON makes the
// few characters encoding/json leaves raw safe too, without changing what
// the JSON says.
package termtext

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Mode says how Escape treats line breaks and tabs, the characters whose
// handling depends on the output.
type Mode int

const (
	// Name is for identifiers: file paths, pod names, table cells, list
	// items. Nothing is dropped: a newline, carriage return or tab is
	// written as \n, \r or \t, so one name stays on one line and two
	// different names never print alike. Colour sequences are shown too.
	Name Mode = iota
	// Line is for prose on one line (a log excerpt, a summary, a warning):
	// newlines and tabs become spaces, CR LF one space, and colour sequences
	// (ESC [ ... m, which logs often carry and which only colour) are
	// removed. Every other control character is written visibly.
	Line
	// Lines is Line that keeps newlines (a CR before one is dropped), for
	// multi-line messages and Markdown.
	Lines
)

// Escape returns s with every character a terminal would act on written
// visibly, as m says: C0 controls and DEL as \xNN (\n, \r, \t by name in
// Name mode), C1 controls (U+0080 to U+009F) and the bidirectional
// controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and
// the line and paragraph separators (U+2028, U+2029) as \uXXXX, and a
// byte that is not UTF-8 as \xNN. Text with none of them is returned as it is.
func Escape(s string, m Mode) string {
	if clean(s, m) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != 0x1b {
			b.WriteByte(c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			i += escapeASCII(&b, s, i, m)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeASCII writes the control character at s[i] (or the colour sequence
// starting there) as m says and returns how many bytes it consumed.
func escapeASCII(b *strings.Builder, s string, i int, m Mode) int {
	c := s[i]
	switch c {
	case '\n':
		switch m {
		case Name:
			b.WriteString(`\n`)
		case Line:
			b.WriteByte(' ')
		default:
			b.WriteByte('\n')
		}
		return 1
	case '\r':
		if m != Name && i+1 < len(s) && s[i+1] == '\n' {
			return 1 // the newline that follows stands for both
		}
		b.WriteString(`\r`)
		return 1
	case '\t':
		if m == Name {
			b.WriteString(`\t`)
		} else {
			b.WriteByte(' ')
		}
		return 1
	case 0x1b:
		if m != Name {
			if n := colourLen(s[i:]); n > 0 {
				return n
			}
		}
	}
	fmt.Fprintf(b, `\x%02x`, c)
	return 1
}

// colourLen is the length of the SGR sequence (ESC [ digits ; : m) s starts
// with, or 0 when it starts with none.
func colourLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for j := 2; j < len(s) && j < 64; j++ {
		switch c := s[j]; {
		case c == 'm':
			return j + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// unsafeRune reports a non-ASCII rune a terminal acts on or that reorders
// or breaks the text around it.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls: CSI is U+009B
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // bidi marks
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// clean reports whether s needs no escaping in mode m.
func clean(s string, m Mode) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			i++
			continue
		case c == '\n' && m == Lines:
			i++
			continue
		case c < utf8.RuneSelf:
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// Strings escapes each of ss in mode m, in a new slice.
func Strings(ss []string, m Mode) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Escape(s, m)
	}
	return out
}

// JSON returns encoded JSON with the characters encoding/json writes raw that
// a terminal acts on (DEL, the C1 controls, the bidirectional controls)
// written as \u escapes. The JSON decodes to exactly the same values: these
// characters can stand only inside strings, where \uXXXX means the same.
// Input must be what encoding/json wrote (valid UTF-8).
func JSON(data []byte) []byte {
	if jsonClean(data) {
		return data
	}
	var b bytes.Buffer
	b.Grow(len(data) + 16)
	for i := 0; i < len(data); {
		c := data[i]
		if c == 0x7f {
			b.WriteString(`\u007f`)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if unsafeRune(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.Write(data[i : i+size])
		}
		i += size
	}
	return b.Bytes()
}

func jsonClean(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c == 0x7f {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// Writer passes what it is given to W as JSON does: for a writer that
// receives encoded JSON in pieces that split no rune (json.Encoder writes
// each value whole).
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	if _, err := w.W.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
