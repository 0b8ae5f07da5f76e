package collect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// corpusPath is the planted-secret corpus (format: docs in its header).
const corpusPath = "testdata/secrets/corpus.yaml"

// secretEntry is one planted secret of the corpus.
type secretEntry struct {
	ID     string `yaml:"id"`
	Class  string `yaml:"class"`
	Where  string `yaml:"where"`
	Key    string `yaml:"key"`
	Secret string `yaml:"secret"`
	Text   string `yaml:"text"`
	SameAs string `yaml:"same_as"`
}

// Planted returns the entry's text with its secret in place, or the secret
// alone when the entry has no text.
func (e secretEntry) Planted() string {
	if e.Text == "" {
		return e.Secret
	}
	return strings.ReplaceAll(e.Text, "${SECRET}", e.Secret)
}

var corpusWheres = map[string]bool{"env": true, "configmap": true, "arg": true, "log": true, "describe": true,
	"sql": true, "diagnose": true, "manifest": true, "json": true}

var idRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// loadSecretCorpus reads and checks the corpus: unique ids, known places,
// the fields each place needs, same_as naming an entry with the same secret.
func loadSecretCorpus(t testing.TB) []secretEntry {
	t.Helper()
	data, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	var entries []secretEntry
	if err := yaml.UnmarshalWithOptions(data, &entries, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", corpusPath, err)
	}
	byID := map[string]secretEntry{}
	for i, e := range entries {
		at := func(format string, args ...any) {
			t.Errorf("%s: entry %d (%s): %s", corpusPath, i+1, e.ID, strings.TrimSpace(fmt.Sprintf(format, args...)))
		}
		switch {
		case !idRe.MatchString(e.ID):
			at("id %q is not kebab-case", e.ID)
		case byID[e.ID].ID != "":
			at("id used twice")
		case e.Class == "":
			at("no class")
		case !corpusWheres[e.Where]:
			at("unknown where %q", e.Where)
		case len(e.Secret) < 8:
			at("secret %q is too short to look for", e.Secret)
		case e.Text != "" && !strings.Contains(e.Text, "${SECRET}") && leakedForm([]byte(e.Text), e.Secret) == "":
			at("text holds neither ${SECRET} nor a form of the secret")
		case (e.Where == "env" || e.Where == "sql" || e.Where == "manifest") && e.Key == "":
			at("where %s needs a key", e.Where)
		case e.Where == "configmap" && e.Key == "":
			at("where configmap needs a key")
		case e.Where != "env" && e.Where != "configmap" && e.Text == "":
			at("where %s needs a text", e.Where)
		case e.Where == "sql" && !strings.Contains(e.Key, "."):
			at("sql key %q is not relation.column", e.Key)
		case e.Where == "arg":
			var args []string
			if err := json.Unmarshal([]byte(e.Planted()), &args); err != nil {
				at("arg text is not a JSON array of strings: %v", err)
			}
		}
		if e.SameAs != "" {
			if o, ok := byID[e.SameAs]; !ok || o.Secret != e.Secret {
				at("same_as %q: no earlier entry with the same secret", e.SameAs)
			}
		}
		byID[e.ID] = e
	}
	return entries
}

func TestSecretCorpusShape(t *testing.T) {
	entries := loadSecretCorpus(t)
	classes := map[string]int{}
	for _, e := range entries {
		classes[e.Class]++
	}
	if len(entries) < 110 {
		t.Errorf("%d entries, want >= 110", len(entries))
	}
	for _, c := range []string{"env-name", "args", "sql-in-log", "reference-like", "url-userinfo", "number",
		"double-escaped-json", "go-header-map", "free-text", "long-line", "manifest-field", "kafka-sasl",
		"kafka-ssl", "s3", "gcs", "azure", "jdbc", "snowflake", "iceberg", "postgres-cdc", "mysql-cdc", "pulsar",
		"kinesis", "elasticsearch", "clickhouse", "doris", "redis", "webhook-url", "bearer", "aws-key-id",
		"vendor-token"} {
		if classes[c] == 0 {
			t.Errorf("class %s has no entry", c)
		}
	}
	t.Logf("%d entries: %v", len(entries), classes)
}

// secretForms are the forms of a secret that must not survive: raw,
// base64 (std and URL, with and without padding), JSON-escaped and
// URL-encoded (query and path escaping).
func secretForms(s string) map[string]string {
	js, _ := json.Marshal(s)
	forms := map[string]string{
		"raw":           s,
		"base64":        base64.StdEncoding.EncodeToString([]byte(s)),
		"base64-raw":    base64.RawStdEncoding.EncodeToString([]byte(s)),
		"base64url":     base64.URLEncoding.EncodeToString([]byte(s)),
		"base64url-raw": base64.RawURLEncoding.EncodeToString([]byte(s)),
		"json":          string(js[1 : len(js)-1]),
		"url-query":     url.QueryEscape(s),
		"url-path":      url.PathEscape(s),
	}
	return forms
}

// leakedForm returns the name of a form of secret found in out, or "".
func leakedForm(out []byte, secret string) string {
	for name, f := range secretForms(secret) {
		if f != "" && bytes.Contains(out, []byte(f)) {
			return name
		}
	}
	return ""
}

// redactEntry plants e where it says and returns every byte redaction
// wrote for it, with the paths written.
func redactCorpusEntry(t *testing.T, r *Redactor, e secretEntry) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	planted := e.Planted()
	podWith := func(container string) []byte {
		return []byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "rw-meta-0"}, "spec": {"containers": [` + container + `]}}]}`)
	}
	jsonStr := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch e.Where {
	case "env":
		doc := podWith(`{"name": "meta", "env": [{"name": ` + jsonStr(e.Key) + `, "value": ` + jsonStr(planted) + `}]}`)
		red, _, err := r.KubeJSON("kubernetes/pods.json", doc)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		out["kubernetes/pods.json"] = red
		desc, _ := r.Text("kubernetes/describe/pods.txt", []byte("    Environment:\n      "+e.Key+":  "+planted+"\n"))
		out["kubernetes/describe/pods.txt"] = desc
	case "configmap":
		doc := []byte(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rw-config"}, "data": {` + jsonStr(e.Key) + `: ` + jsonStr(planted) + `}}`)
		red, _, err := r.KubeJSON("kubernetes/configmaps.json", doc)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		out["kubernetes/configmaps.json"] = red
	case "arg":
		doc := podWith(`{"name": "meta", "args": ` + planted + `}`)
		red, _, err := r.KubeJSON("kubernetes/pods.json", doc)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		out["kubernetes/pods.json"] = red
	case "log", "describe", "diagnose", "json":
		red, _ := r.Text("logs/rw-meta-0/meta.log", []byte(planted+"\n"))
		out["logs/rw-meta-0/meta.log"] = red
	case "sql":
		relation, column, _ := strings.Cut(e.Key, ".")
		cols, vals := []string{"id", column}, []string{"7", planted}
		if relation == "show_parameters" {
			cols, vals = []string{"Name", "Value", "Description"}, []string{column, planted, "the " + column}
		}
		row, _ := r.SQLRow(relation, cols, vals)
		out["sql/"+relation+".csv"] = []byte(strings.Join(row, "\x00"))
	case "manifest":
		out["manifest.json"] = []byte(r.String(e.Key, planted))
	}
	return out
}

// TestSecretCorpus runs every planted secret through the entry point that
// fits its place and asserts that no form of it survives, and that equal
// secrets get equal tokens.
func TestSecretCorpus(t *testing.T) {
	entries := loadSecretCorpus(t)
	r := newTestRedactor(t)
	leaks := map[string]int{}
	for _, e := range entries {
		for path, data := range redactCorpusEntry(t, r, e) {
			if form := leakedForm(data, e.Secret); form != "" {
				leaks[e.Class]++
				t.Errorf("%s (class %s, where %s): secret survives in %s as %s:\n%s", e.ID, e.Class, e.Where, path, form, data)
			}
			if !tokenRe.Match(data) {
				t.Errorf("%s (class %s): no token in %s", e.ID, e.Class, path)
			}
		}
		if e.SameAs != "" {
			tok := r.Token(e.Secret)
			for _, id := range []string{e.ID, e.SameAs} {
				for _, o := range entries {
					if o.ID != id {
						continue
					}
					for path, data := range redactCorpusEntry(t, r, o) {
						if !bytes.Contains(data, []byte(tok)) {
							t.Errorf("%s (class %s): %s lacks the token %s its same_as %s has", o.ID, o.Class, path, tok, e.SameAs)
						}
					}
				}
			}
		}
	}
	if len(leaks) > 0 {
		t.Logf("leaks per class: %v", leaks)
	}
}
