package kubetext

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds anything to both parsers, Sniff and PodListJSON: none
// may panic, every problem must name a line of the input, and the JSON must
// be valid.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(shapes, "*.txt"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		// A cut-off copy: pastes are often truncated.
		f.Add(b[:len(b)/3])
	}
	f.Add([]byte(head + "  compute:\n    Last State:  Terminated\n      Message:  x\n\ty\n      Exit Code:  1\nEvents:\n  Type  Reason  Age  From  Message\n  Normal  X  1s  k  m\nmore\n"))
	f.Add([]byte("NAME READY STATUS RESTARTS AGE\na 1/1 Running 3 (1s ago) 1m\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := bytes.Count(b, []byte("\n")) + 1
		pods, probs, err := ParseDescribe(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("ParseDescribe: %v", err)
		}
		checkProblems(t, "describe", probs, lines)
		rows, probs, err := ParseGetPods(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("ParseGetPods: %v", err)
		}
		checkProblems(t, "get pods", probs, lines)
		switch Sniff(b) {
		case "", "describe", "get-pods":
		default:
			t.Fatalf("Sniff returned an unknown kind")
		}
		out, err := PodListJSON(pods, rows)
		if err != nil {
			// Only invalid UTF-8 kept in a string could fail; json
			// replaces it, so nothing should.
			t.Fatalf("PodListJSON: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("PodListJSON wrote invalid JSON")
		}
		for _, p := range pods {
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("pod %q on line %d of %d", p.Name, p.Line, lines)
			}
			for _, c := range p.Containers {
				if c.Line < p.Line || c.Line > lines {
					t.Fatalf("container %q on line %d, pod on %d", c.Name, c.Line, p.Line)
				}
				if ContainerLine(pods, p.Namespace, p.Name, c.Name) == 0 {
					t.Fatalf("ContainerLine finds no line for %s/%s", p.Name, c.Name)
				}
			}
		}
	})
}

func checkProblems(t *testing.T, what string, probs []Problem, lines int) {
	t.Helper()
	if len(probs) > maxProblems+2 {
		t.Fatalf("%s: %d problems", what, len(probs))
	}
	for _, p := range probs {
		if p.Line < 1 || p.Line > lines || p.Reason == "" || len(p.Text) > maxProblemText {
			t.Fatalf("%s: bad problem %+v (input of %d lines)", what, p, lines)
		}
		_ = utf8.ValidString(p.Text)
		_ = strings.TrimSpace(p.String())
	}
}
