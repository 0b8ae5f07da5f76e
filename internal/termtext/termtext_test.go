package termtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in              string
		name, line, lns string
	}{
		{"rw-compute-0", "rw-compute-0", "rw-compute-0", "rw-compute-0"},
		{"héllo 日本", "héllo 日本", "héllo 日本", "héllo 日本"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, "red", "red"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\x07`, `\x1b[2J\x1b]0;pwned\x07`, `\x1b[2J\x1b]0;pwned\x07`},
		{"ok\rEVIL", `ok\rEVIL`, `ok\rEVIL`, `ok\rEVIL`},
		{"a\r\nb\tc", `a\r\nb\tc`, "a b c", "a\nb c"},
		{"a\nb", `a\nb`, "a b", "a\nb"},
		{"back\bspace\x7f", `back\x08space\x7f`, `back\x08space\x7f`, `back\x08space\x7f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`, `c1\u009b31m`},
		{"abc\u202edcba\u2066x\u2069", `abc\u202edcba\u2066x\u2069`, `abc\u202edcba\u2066x\u2069`, `abc\u202edcba\u2066x\u2069`},
		{"bad\xff\x9b", `bad\xff\x9b`, `bad\xff\x9b`, `bad\xff\x9b`},
		{"\x1b[", `\x1b[`, `\x1b[`, `\x1b[`},
	} {
		for _, m := range []struct {
			mode Mode
			want string
		}{{Name, tc.name}, {Line, tc.line}, {Lines, tc.lns}} {
			if got := Escape(tc.in, m.mode); got != m.want {
				t.Errorf("Escape(%q, %d) = %q, want %q", tc.in, m.mode, got, m.want)
			}
		}
	}
}

// Whatever the input, no output byte is one a terminal acts on.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"\x1b[31m", "a\r\n", "\u202e", "\xc2\x9b", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range []Mode{Name, Line, Lines} {
			if bad := Unsafe(Escape(s, m), m == Lines); bad != "" {
				t.Fatalf("Escape(%q, %d) keeps %s", s, m, bad)
			}
		}
	})
}

// Unsafe names the first character in s a terminal would act on, or "".
func Unsafe(s string, newlines bool) string {
	for i, r := range s {
		switch {
		case r == '\n' && newlines:
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return "an invalid byte"
		case r < 0x20, r == 0x7f, unsafeRune(r):
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

func (m Mode) String() string { return []string{"Name", "Line", "Lines"}[m] }

func TestJSON(t *testing.T) {
	v := map[string]string{"pod": "x\u009b2J\x7f\u202eevil\x1b[0m\n", "ok": "日本"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("\u202e")) {
		t.Fatal("encoding/json now escapes U+202E itself; JSON may be unneeded")
	}
	safe := JSON(raw)
	if bad := Unsafe(string(safe), false); bad != "" {
		t.Errorf("JSON(%s) keeps %s", safe, bad)
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil {
		t.Fatal(err)
	}
	if back["pod"] != v["pod"] || back["ok"] != v["ok"] {
		t.Errorf("JSON changed the values: %q", back)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(Writer{&buf})
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(buf.Bytes()), safe) {
		t.Errorf("Writer wrote %s, want %s", buf.Bytes(), safe)
	}
}
