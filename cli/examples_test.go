package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

// example is one command line from a help text or docs/cli.md.
type example struct {
	where string // "rwdiag analyze --help", "docs/cli.md:212"
	line  string
}

// helpExamples are the lines under "Examples:" (or "Example:") in every
// command's help.
func helpExamples() []example {
	var out []example
	var walk func(name string, desc string, cmds []*ucli.Command)
	walk = func(name, desc string, cmds []*ucli.Command) {
		_, after, ok := strings.Cut(desc, "Examples:\n")
		if !ok {
			_, after, ok = strings.Cut(desc, "Example:\n")
		}
		if ok {
			for _, l := range strings.Split(after, "\n") {
				l = strings.TrimSpace(l)
				l = strings.TrimPrefix(l, "$ ")
				if (strings.HasPrefix(l, "rwdiag ") || strings.HasPrefix(l, "kubectl rwdiag ")) && !strings.HasPrefix(l, "rwdiag v") {
					// ("rwdiag v0.1.0" is the output of an example)
					out = append(out, example{name + " --help", l})
				}
			}
		}
		for _, c := range cmds {
			walk(name+" "+c.Name, c.Description, c.Subcommands)
		}
	}
	app := newApp(nil, nil)
	walk("rwdiag", app.Description, app.Commands)
	return out
}

// docExamples are the command lines in docs/cli.md's code blocks: every
// line of a ```sh block that runs rwdiag, and "$ rwdiag ..." lines of the
// others.
func docExamples(t *testing.T) []example {
	data, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	fence := ""
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			if fence == "" {
				fence = strings.TrimPrefix(l, "```") + " " // "sh ", " "
			} else {
				fence = ""
			}
			continue
		}
		where := "docs/cli.md:" + strconv.Itoa(i+1)
		switch {
		case fence == "sh " && strings.HasPrefix(l, "rwdiag "):
			out = append(out, example{where, l})
		case fence != "" && strings.HasPrefix(l, "$ rwdiag "):
			out = append(out, example{where, strings.TrimPrefix(l, "$ ")})
		}
	}
	return out
}

// shellWords splits a command line as sh would, for the quoting examples
// use, and stops at a pipe, a redirection or a comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, any := byte(0), false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case in != 0 && ch == in:
			in = 0
		case in != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			in, any = ch, true
		case ch == ' ' || ch == '\t':
			if cur.Len() > 0 || any {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		case ch == '|' || ch == '>' || ch == '#' || ch == '&':
			if cur.Len() > 0 || any {
				words = append(words, cur.String())
			}
			return words
		default:
			cur.WriteByte(ch)
		}
	}
	if cur.Len() > 0 || any {
		words = append(words, cur.String())
	}
	return words
}

// skippedExamples are examples that cannot run here, and why.
var skippedExamples = map[string]string{
	"sparse.tar": "a sparse archive made by GNU tar --sparse; bundle's own tests build it (TestExtractRefusedAndSparse)",
}

var archiveArg = regexp.MustCompile(`\.(tar|tar\.zst|tar\.gz|tgz)$`)

// Every example in every --help and in docs/cli.md runs against the
// samples (placeholders such as bundle.tar.zst stand for a real bundle,
// output files go to a temporary directory) and does not fail with exit 2.
// collect needs a cluster: its examples are only parsed, with a kubeconfig
// that does not exist, and must fail for that alone, not for a flag.
func TestEveryExampleRuns(t *testing.T) {
	examples := append(helpExamples(), docExamples(t)...)
	if len(examples) < 40 {
		t.Fatalf("found only %d examples: the collection is broken", len(examples))
	}
	// Placeholder bundles stand for the sample of a compound incident,
	// which holds every table the sql examples query.
	sample := "../samples/compound-incident"
	placeholders := map[string]bool{"./extracted-bundle": true, "rwdiag-prod": true}
	myRules := "../rules"
	acme := filepath.Join(t.TempDir(), "acme.yaml")
	if err := os.WriteFile(acme, []byte("patterns:\n  - name: acme-api-token\n    value: 'acme_[0-9a-f]{32}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ran, skipped := 0, 0
	for _, ex := range examples {
		words := shellWords(ex.line)
		if words[0] == "kubectl" {
			words = words[1:] // kubectl rwdiag ...: the plugin runs rwdiag
		}
		args := words[1:]
		cmd := strings.Join(args, " ")
		collect := slices.Contains(args, "collect")
		redact := strings.Contains(cmd, "bundle redact ")
		extract := strings.Contains(cmd, "bundle extract ")
		out := t.TempDir()
		why := ""
		for i, a := range args {
			if r, ok := skippedExamples[a]; ok {
				why = r
			}
			prev := ""
			if i > 0 {
				prev = args[i-1]
			}
			switch {
			case strings.HasPrefix(a, "samples/"):
				args[i] = "../" + a
			case a == "./known-issues":
				args[i] = "../known-issues" // the repository's base: a newer one has this layout
			case a == "./my-rules":
				args[i] = myRules
			case (prev == "-o" || prev == "--output") && a != "-":
				args[i] = filepath.Join(out, filepath.Base(a))
			case redact && i == len(args)-1, extract && i == len(args)-1:
				args[i] = filepath.Join(out, filepath.Base(a))
			case a == "acme.yaml":
				args[i] = acme
			case (archiveArg.MatchString(a) || placeholders[a]) && !collect:
				args[i] = sample
			}
		}
		if why != "" {
			t.Logf("%s: skipped: %s: %s", ex.where, ex.line, why)
			skipped++
			continue
		}
		if collect {
			args = append(args, "--kubeconfig", filepath.Join(out, "no-kubeconfig"))
		}
		for _, a := range args {
			if strings.HasPrefix(a, "./") && a != myRules {
				t.Fatalf("%s: %s: %s would be written in cli/: map it to the temporary directory", ex.where, ex.line, a)
			}
		}
		r := run(t, args...)
		ran++
		switch {
		case collect:
			if strings.Contains(r.stderr, "for usage.") || !strings.Contains(r.stderr, "no-kubeconfig") {
				t.Errorf("%s: %s: collect's flags do not parse (want only the missing kubeconfig)\n%v", ex.where, ex.line, r)
			}
		case r.code != exitOK && r.code != exitFailed:
			t.Errorf("%s: %s: exit %d\n%v", ex.where, ex.line, r.code, r)
		case r.stdout == "" && !strings.Contains(ex.line, " -o ") && !redact:
			t.Errorf("%s: %s: printed nothing\n%v", ex.where, ex.line, r)
		}
	}
	t.Logf("%d examples run, %d skipped", ran, skipped)
}
