package kubetext

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rwdiag/rwdiag/internal/lazyre"
)

// maxLineBytes bounds one line; the rest of a longer line is dropped, with
// a Problem.
const maxLineBytes = 64 << 10

// maxProblemText bounds Problem.Text.
const maxProblemText = 200

// line is one input line: tabs expanded, the line ending and trailing
// blanks removed.
type line struct {
	n      int
	text   string
	indent int // leading spaces
}

func (l line) blank() bool { return l.text == "" }

// body is the line without its leading spaces.
func (l line) body() string { return l.text[l.indent:] }

// readLines reads every line of r. Long lines are cut, with a problem.
func readLines(r io.Reader, probs *[]Problem) ([]line, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var lines []line
	n := 0
	for {
		raw, long, err := readLine(br)
		if len(raw) > 0 || err == nil {
			n++
			text := normalize(raw)
			if long {
				*probs = append(*probs, problem(n, text, fmt.Sprintf("line longer than %d bytes; the rest is ignored", maxLineBytes)))
			}
			lines = append(lines, line{n: n, text: text, indent: len(text) - len(strings.TrimLeft(text, " "))})
		}
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return lines, fmt.Errorf("line %d: %w", n+1, err)
		}
	}
}

// readLine returns the next line without its "\n", at most maxLineBytes of
// it, and whether it was longer.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if room := maxLineBytes - len(buf); room > 0 {
			if len(chunk) > room {
				buf = append(buf, chunk[:room]...)
				long = true
			} else {
				buf = append(buf, chunk...)
			}
		} else if len(chunk) > 0 && !(len(chunk) == 1 && chunk[0] == '\n') {
			long = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = trimNewline(buf)
		return buf, long, err
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b
}

// normalize removes a "\r" line ending, expands tabs (kubectl's tabwriter
// writes spaces, but pasted text sometimes has tabs) and trims trailing
// blanks: kubectl pads some cells ("True ") and leaves empty values
// ("IP:               ").
func normalize(b []byte) string {
	s := strings.TrimRight(string(b), " \t\r")
	if !strings.Contains(s, "\t") {
		return s
	}
	var sb strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			pad := 8 - col%8
			sb.WriteString(strings.Repeat(" ", pad))
			col += pad
			continue
		}
		sb.WriteRune(r)
		col++
	}
	return sb.String()
}

func problem(n int, text, reason string) Problem {
	if len(text) > maxProblemText {
		text = text[:maxProblemText]
	}
	return Problem{Line: n, Text: text, Reason: reason}
}

// isNoise reports whether a line is paste debris rather than kubectl
// output: a Markdown code fence, or a shell prompt (with or without the
// command typed after it).
func isNoise(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return true
	}
	if strings.HasPrefix(t, "kubectl ") || t == "kubectl" {
		return true
	}
	for _, p := range []string{"$", "%", "#", ">", "➜", "❯", "λ"} {
		if t == p || strings.HasPrefix(t, p+" ") {
			return true
		}
	}
	// user@host:~$, [user@host ~]# kubectl ...
	return promptRe.Re().MatchString(t)
}

// promptRe is a shell prompt ("user@host:~$", "[root@host ~]#"), alone or
// before a kubectl command.
var promptRe = lazyre.New(`^(?:\[[^\]]*\]|[A-Za-z0-9_.@:~/-]+)[$#%](?: +kubectl(?: .*)?)?$`)

// splitKey splits "Key:  value" (kubectl's "%s:\t%s" after the tabwriter)
// into key and value. The key is the text before the first colon that is
// followed by a blank or ends the line; it must start with a letter and
// hold no colon.
func splitKey(s string) (key, value string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			return "", "", false
		}
		key = s[:i]
		if key == "" || !isLetter(key[0]) || strings.HasSuffix(key, " ") {
			return "", "", false
		}
		return key, strings.TrimSpace(s[i+1:]), true
	}
	return "", "", false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
