// Package secretcorpus reads the planted-secret corpus
// (collect/testdata/secrets/corpus.yaml) and checks a redacted bundle
// against it: no secret may survive in any byte, in any of the forms it can
// be written in, and equal secrets must get equal tokens. It serves the
// redaction tests of collect and cli; nothing else uses it.
package secretcorpus

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// Placeholder stands for the secret in an entry's text.
const Placeholder = "${SECRET}"

// The places a secret is planted (an entry's where).
const (
	WhereEnv       = "env"
	WhereConfigMap = "configmap"
	WhereArg       = "arg"
	WhereLog       = "log"
	WhereDescribe  = "describe"
	WhereSQL       = "sql"
	WhereDiagnose  = "diagnose"
	WhereManifest  = "manifest"
	WhereJSON      = "json"
)

var wheres = []string{WhereEnv, WhereConfigMap, WhereArg, WhereLog, WhereDescribe, WhereSQL, WhereDiagnose, WhereManifest, WhereJSON}

// Manifest fields an entry of where manifest names in its key.
var ManifestKeys = []string{"files.source", "files.incomplete_reason", "errors.target", "errors.message"}

// Entry is one planted secret.
type Entry struct {
	ID     string
	Class  string
	Where  string
	Key    string
	Secret string
	Text   string
	SameAs string
	Line   int // where the entry starts in the corpus file
}

// Planted is what is planted: the text with the secret in place of
// Placeholder, or the secret alone when there is no text.
func (e Entry) Planted() string {
	if e.Text == "" {
		return e.Secret
	}
	return strings.ReplaceAll(e.Text, Placeholder, e.Secret)
}

// Args is an arg entry's argument list, secret in place.
func (e Entry) Args() ([]string, error) {
	var args []string
	if err := json.Unmarshal([]byte(e.Text), &args); err != nil {
		return nil, fmt.Errorf("%s: text is not a JSON array of strings: %w", e.ID, err)
	}
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], Placeholder, e.Secret)
	}
	return args, nil
}

// Relation is a sql entry's relation, the key's part before the first dot.
func (e Entry) Relation() string { r, _, _ := strings.Cut(e.Key, "."); return r }

// Column is a sql entry's column, the key's part after the first dot.
func (e Entry) Column() string { _, c, _ := strings.Cut(e.Key, "."); return c }

// Load reads a corpus file. Every problem is reported, each as file:line.
func Load(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a corpus from data; name is used in errors.
func Parse(name string, data []byte) ([]Entry, error) {
	var raw []map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lines := entryLines(data)
	var entries []Entry
	var probs []string
	byID := map[string]int{}
	for i, m := range raw {
		e := Entry{}
		if i < len(lines) {
			e.Line = lines[i]
		}
		at := func(format string, args ...any) {
			probs = append(probs, fmt.Sprintf("%s:%d: %s", name, e.Line, fmt.Sprintf(format, args...)))
		}
		for k, v := range m {
			s, ok := scalar(v)
			if !ok {
				at("%s: want a scalar, not %T", k, v)
				continue
			}
			switch k {
			case "id":
				e.ID = s
			case "class":
				e.Class = s
			case "where":
				e.Where = s
			case "key":
				e.Key = s
			case "secret":
				e.Secret = s
			case "text":
				e.Text = s
			case "same_as":
				e.SameAs = s
			default:
				// Notes and fields this reader does not need are allowed.
			}
		}
		switch {
		case e.ID == "":
			at("no id")
		case byID[e.ID] > 0:
			at("id %q is used twice", e.ID)
		}
		byID[e.ID] = len(entries) + 1
		if e.Class == "" {
			at("%s: no class", e.ID)
		}
		if !slices.Contains(wheres, e.Where) {
			at("%s: where %q is not one of %s", e.ID, e.Where, strings.Join(wheres, ", "))
		}
		if e.Text != "" && !strings.Contains(e.Text, Placeholder) && e.Secret != "" {
			// The text may hold the secret already written in one of its
			// forms (a URL with it percent-encoded).
			found := false
			for _, f := range Forms(e.Secret) {
				found = found || strings.Contains(e.Text, f.Value)
			}
			if !found {
				at("%s: text has neither %s nor any form of the secret", e.ID, Placeholder)
			}
		}
		switch e.Where {
		case WhereEnv, WhereConfigMap, WhereSQL, WhereManifest:
			if e.Key == "" {
				at("%s: where %s needs a key", e.ID, e.Where)
			}
		case WhereLog, WhereDescribe, WhereDiagnose, WhereArg, WhereJSON:
			if e.Text == "" {
				at("%s: where %s needs a text", e.ID, e.Where)
			}
		}
		if e.Where == WhereSQL && (e.Relation() == "" || e.Column() == "") {
			at("%s: sql key %q is not relation.column", e.ID, e.Key)
		}
		if e.Where == WhereManifest && !slices.Contains(ManifestKeys, e.Key) {
			at("%s: manifest key %q is not one of %s", e.ID, e.Key, strings.Join(ManifestKeys, ", "))
		}
		if e.Where == WhereArg {
			if _, err := e.Args(); err != nil {
				at("%v", err)
			}
		}
		entries = append(entries, e)
	}
	for i, e := range entries {
		if e.SameAs == "" {
			if e.Secret == "" {
				probs = append(probs, fmt.Sprintf("%s:%d: %s: no secret", name, e.Line, e.ID))
			}
			continue
		}
		j := byID[e.SameAs] - 1
		switch {
		case j < 0:
			probs = append(probs, fmt.Sprintf("%s:%d: %s: same_as %q: no such entry", name, e.Line, e.ID, e.SameAs))
		case e.Secret == "":
			entries[i].Secret = entries[j].Secret
		case e.Secret != entries[j].Secret:
			probs = append(probs, fmt.Sprintf("%s:%d: %s: same_as %q but the secrets differ", name, e.Line, e.ID, e.SameAs))
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(probs, "\n"))
	}
	return entries, nil
}

// scalar formats a YAML scalar: a number keeps all its digits.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case *big.Int:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", true
	}
	return "", false
}

var entryStartRe = regexp.MustCompile(`(?m)^\s*-\s+id:`)

// entryLines is the line each list item starts on, in order.
func entryLines(data []byte) []int {
	var lines []int
	for _, loc := range entryStartRe.FindAllIndex(data, -1) {
		lines = append(lines, 1+bytes.Count(data[:loc[0]], []byte("\n"))+countLeadingNewlines(data[loc[0]:loc[1]]))
	}
	return lines
}

func countLeadingNewlines(b []byte) int {
	return bytes.Count(b[:len(b)-len(bytes.TrimLeft(b, " \t\r\n"))], []byte("\n"))
}

// A Form is one way a secret can be written.
type Form struct {
	Name  string
	Value string
}

// Forms are the ways secret can be written that the check looks for: as it
// is; base64 (standard and URL alphabets; the unpadded form, which the
// padded one contains); JSON-escaped; URL-encoded (query and path).
// Forms equal to one already listed are left out.
func Forms(secret string) []Form {
	var fs []Form
	add := func(name, v string) {
		if v == "" {
			return
		}
		for _, f := range fs {
			if f.Value == v {
				return
			}
		}
		fs = append(fs, Form{name, v})
	}
	add("raw", secret)
	add("base64", base64.RawStdEncoding.EncodeToString([]byte(secret)))
	add("base64url", base64.RawURLEncoding.EncodeToString([]byte(secret)))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(secret)
	add("json", strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:])
	b.Reset()
	json.NewEncoder(&b).Encode(secret) // with < > & escaped, as Go's default
	add("json-html", strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:])
	add("urlquery", url.QueryEscape(secret))
	add("urlpath", url.PathEscape(secret))
	return fs
}

// A Survivor is a secret found after redaction.
type Survivor struct {
	Entry Entry
	Form  string
	File  string
}

// Survivors returns every entry whose secret is found, in any form, in any
// of files (path -> content; the manifest included). For a long-line entry
// each half of the secret is looked for too: a line redacted in pieces
// would keep one.
func Survivors(entries []Entry, files map[string][]byte) []Survivor {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []Survivor
	for _, e := range entries {
		forms := Forms(e.Secret)
		if e.Class == "long-line" && len(e.Secret) >= 12 {
			h := len(e.Secret) / 2
			forms = append(forms, Form{"first-half", e.Secret[:h]}, Form{"second-half", e.Secret[h:]})
		}
		for _, f := range forms {
			for _, p := range paths {
				if bytes.Contains(files[p], []byte(f.Value)) {
					out = append(out, Survivor{e, f.Name, p})
				}
			}
		}
	}
	return out
}

// Table prints, per class, how many entries there are and how many
// survived, then every survivor: entry id, class, form and file.
func Table(entries []Entry, survivors []Survivor) string {
	type row struct{ n, survived int }
	rows := map[string]*row{}
	var classes []string
	for _, e := range entries {
		if rows[e.Class] == nil {
			rows[e.Class] = &row{}
			classes = append(classes, e.Class)
		}
		rows[e.Class].n++
	}
	seen := map[string]bool{}
	for _, s := range survivors {
		if !seen[s.Entry.ID] {
			seen[s.Entry.ID] = true
			rows[s.Entry.Class].survived++
		}
	}
	slices.Sort(classes)
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %7s %8s\n", "class", "entries", "survived")
	total := 0
	for _, c := range classes {
		fmt.Fprintf(&b, "%-22s %7d %8d\n", c, rows[c].n, rows[c].survived)
		total += rows[c].n
	}
	fmt.Fprintf(&b, "%-22s %7d %8d\n", "all", total, len(seen))
	if len(survivors) > 0 {
		b.WriteString("\nsurvivors (entry, class, where, form, file):\n")
		for _, s := range survivors {
			fmt.Fprintf(&b, "  %-32s %-20s %-10s %-10s %s\n", s.Entry.ID, s.Entry.Class, s.Entry.Where, s.Form, s.File)
		}
	}
	return b.String()
}

// TokenRE matches a redaction token.
var TokenRE = regexp.MustCompile(`\[REDACTED:[0-9a-f]{8}\]`)

// Tokens returns the tokens in s, in order.
func Tokens(s []byte) []string {
	var out []string
	for _, m := range TokenRE.FindAll(s, -1) {
		out = append(out, string(m))
	}
	return out
}

// SamePairs returns the pairs of entries whose secrets are equal: those
// with same_as, each with the entry it names.
func SamePairs(entries []Entry) [][2]Entry {
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	var out [][2]Entry
	for _, e := range entries {
		if e.SameAs != "" {
			out = append(out, [2]Entry{byID[e.SameAs], e})
		}
	}
	return out
}
