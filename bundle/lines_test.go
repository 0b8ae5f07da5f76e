package bundle

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

type line struct {
	text   string
	number int
	cut    bool
}

func readLines(t *testing.T, lr *LineReader) ([]line, error) {
	t.Helper()
	var lines []line
	for range 1 << 20 {
		text, n, cut, err := lr.Next()
		if err != nil {
			return lines, err
		}
		lines = append(lines, line{string(text), n, cut})
	}
	t.Fatal("LineReader never ended")
	return nil, nil
}

func TestLineReader(t *testing.T) {
	rep := strings.Repeat
	tests := []struct {
		name  string
		in    string
		limit int
		want  []line
	}{
		{"empty input", "", 0, nil},
		{"trailing newline", "a\nbb\n", 0, []line{{"a", 1, false}, {"bb", 2, false}}},
		{"no trailing newline", "a\nbb", 0, []line{{"a", 1, false}, {"bb", 2, false}}},
		{"CRLF", "a\r\nbb\r\n", 0, []line{{"a", 1, false}, {"bb", 2, false}}},
		{"lone CR is kept", "a\rb\n", 0, []line{{"a\rb", 1, false}}},
		{"empty lines", "\n\nx\n\n", 0, []line{{"", 1, false}, {"", 2, false}, {"x", 3, false}, {"", 4, false}}},
		{"only a newline", "\n", 0, []line{{"", 1, false}}},
		// Limits below the 16-byte buffer minimum: the line fits the buffer.
		{"short limit, at limit", "0123456789\nx\n", 10, []line{{"0123456789", 1, false}, {"x", 2, false}}},
		{"short limit, at limit, CRLF", "0123456789\r\n", 10, []line{{"0123456789", 1, false}}},
		{"short limit, limit+1", "0123456789a\nx\n", 10, []line{{"0123456789", 1, true}, {"x", 2, false}}},
		// Limits equal to the buffer: the line does not fit the buffer.
		{"at limit", rep("a", 100) + "\nx\n", 100, []line{{rep("a", 100), 1, false}, {"x", 2, false}}},
		{"at limit, CRLF", rep("a", 100) + "\r\nx\n", 100, []line{{rep("a", 100), 1, false}, {"x", 2, false}}},
		{"at limit, no newline", rep("a", 100), 100, []line{{rep("a", 100), 1, false}}},
		{"limit+1", rep("a", 100) + "b\nx\n", 100, []line{{rep("a", 100), 1, true}, {"x", 2, false}}},
		{"limit+1, CRLF", rep("a", 100) + "b\r\nx\n", 100, []line{{rep("a", 100), 1, true}, {"x", 2, false}}},
		{"limit+1, no newline", rep("a", 101), 100, []line{{rep("a", 100), 1, true}}},
		{"far over the limit", rep("a", 1000) + "\n" + rep("b", 1000) + "\nc", 100,
			[]line{{rep("a", 100), 1, true}, {rep("b", 100), 2, true}, {"c", 3, false}}},
		// The default limit, with lines longer than the 64 KiB buffer.
		{"longer than the buffer", rep("a", 200<<10) + "\nx\n", 0, []line{{rep("a", 200<<10), 1, false}, {"x", 2, false}}},
		{"at the default limit", rep("a", 1<<20) + "\n", 0, []line{{rep("a", 1<<20), 1, false}}},
		{"at the default limit, CRLF", rep("a", 1<<20) + "\r\n", 0, []line{{rep("a", 1<<20), 1, false}}},
		{"default limit+1", rep("a", 1<<20) + "b\nx", 0, []line{{rep("a", 1<<20), 1, true}, {"x", 2, false}}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/onebyte=%v", tt.name, oneByte), func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				lr := NewLineReader(r, tt.limit)
				got, err := readLines(t, lr)
				if err != io.EOF || lr.Err() != nil {
					t.Errorf("ended with %v, Err() %v; want io.EOF, nil", err, lr.Err())
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("lines\n got %.200v\nwant %.200v", got, tt.want)
				}
				cuts := 0
				for _, l := range tt.want {
					if l.cut {
						cuts++
					}
				}
				if lr.Cut() != cuts {
					t.Errorf("Cut() = %d, want %d", lr.Cut(), cuts)
				}
				// After the end, Next keeps saying so.
				if _, n, _, err := lr.Next(); err != io.EOF || n != len(tt.want) {
					t.Errorf("Next after the end = %d, %v", n, err)
				}
			})
		}
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	for _, in := range []string{"a\nb\n", "a\nb", strings.Repeat("x", 100<<10) + "\nb"} {
		lr := NewLineReader(io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom)), 0)
		got, err := readLines(t, lr)
		if err != boom || lr.Err() != boom {
			t.Errorf("ended with %v, Err() %v; want boom", err, lr.Err())
		}
		if len(got) != 2 || got[1].text != "b" || got[1].number != 2 {
			t.Errorf("lines before the error = %.100v", got)
		}
	}
}

// zeroLineSource yields n bytes of 'x' and then a newline, without
// allocating.
type zeroLineSource struct{ n int }

func (z *zeroLineSource) Read(p []byte) (int, error) {
	if z.n < 0 {
		return 0, io.EOF
	}
	if z.n == 0 {
		p[0] = '\n'
		z.n = -1
		return 1, nil
	}
	k := min(len(p), z.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	z.n -= k
	return k, nil
}

func TestLineReaderMemoryIsBounded(t *testing.T) {
	// A 64 MiB line with a 1 MiB limit: the reader must not hold it whole.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lr := NewLineReader(&zeroLineSource{n: 64 << 20}, 1<<20)
	text, n, cut, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil || n != 1 || !cut || len(text) != 1<<20 {
		t.Fatalf("Next = %d bytes, %d, %v, %v", len(text), n, cut, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 3<<20 {
		t.Errorf("a 64 MiB line allocated %d bytes; want a few MiB at most", grew)
	}
}
