package collect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/collect/secretcorpus"
)

// corpusPath is the planted-secret corpus (format: docs in its header).
const corpusPath = "testdata/secrets/corpus.yaml"

// secretEntry is one planted secret of the corpus.
type secretEntry = secretcorpus.Entry

// loadSecretCorpus reads and checks the corpus (secretcorpus.Load: unique
// ids, known places, the fields each place needs, same_as naming an entry
// with the same secret).
func loadSecretCorpus(t testing.TB) []secretEntry {
	t.Helper()
	entries, err := secretcorpus.Load(corpusPath)
	if err != nil {
		t.Fatal(err)
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

// leakedForm returns the name of a form of secret (secretcorpus.Forms)
// found in out, or "".
func leakedForm(out []byte, secret string) string {
	for _, f := range secretcorpus.Forms(secret) {
		if bytes.Contains(out, []byte(f.Value)) {
			return f.Name
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
