package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// The example manifest in docs/bundle-format.md uses exactly the fields the
// code reads and writes.
func TestDocsExampleManifest(t *testing.T) {
	doc, err := os.ReadFile("../docs/bundle-format.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)A full example:\n\n```json\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/bundle-format.md: no example manifest after \"A full example:\"")
	}
	dec := json.NewDecoder(bytes.NewReader(m[1]))
	dec.DisallowUnknownFields()
	var got bundle.Manifest
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("docs/bundle-format.md: example manifest: %v", err)
	}
	if _, err := bundle.DecodeManifest(bytes.NewReader(m[1])); err != nil {
		t.Fatalf("docs/bundle-format.md: example manifest: %v", err)
	}
	// Every field the code writes appears in the example.
	var want bytes.Buffer
	if err := got.Encode(&want); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(want.String()) != strings.TrimSpace(string(m[1])) {
		t.Errorf("docs/bundle-format.md: the example manifest is not as Manifest.Encode writes it:\n%s", want.String())
	}
}

// The README's set-up block has two commands: the main job on a sample and
// the test suite, which is .ci/run; .ci/run runs `go test ./...` and, as a
// smoke test, the first command exactly.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Set up\n.*?```\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md: no code block under \"## Set up\"")
	}
	cmds := strings.Split(strings.TrimSpace(string(m[1])), "\n")
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], "go run . analyze ") || cmds[1] != "bash .ci/run" {
		t.Fatalf("README.md: set-up commands %q, want an analyze of a sample and bash .ci/run", cmds)
	}
	sample := cmds[0][strings.LastIndex(cmds[0], " ")+1:]
	if _, err := os.Stat("../" + sample); err != nil {
		t.Errorf("README.md analyses %s: %v", sample, err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ci), "\n")
	for _, cmd := range []string{cmds[0], "go test ./..."} {
		found := false
		for _, l := range lines {
			found = found || strings.TrimSpace(l) == cmd
		}
		if !found {
			t.Errorf(".ci/run does not run %q", cmd)
		}
	}
}
