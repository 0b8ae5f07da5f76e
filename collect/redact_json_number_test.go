package collect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A number under a secret-looking key in a Kubernetes object (the
// RisingWave resource's spec, an env pair, a configmap, last-applied) is
// replaced by its token, a JSON string; other numbers stay numbers, and
// the document stays JSON, byte for byte elsewhere.
func TestKubeJSONSecretNumbers(t *testing.T) {
	r := newTestRedactor(t)
	applied := `{\"spec\":{\"metaStore\":{\"postgresql\":{\"password\":7777123456789}}}}`
	doc := `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "risingwave.risingwavelabs.com/v1alpha1", "kind": "RisingWave",
   "metadata": {"name": "rw", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "` + applied + `"}},
   "spec": {"replicas": 3, "metaStore": {"postgresql": {"host": "pg", "port": 5432, "password": 5555123456789}},
            "sasl": {"pw": -6666.25e3, "retries": 5},
            "env": [{"name": "PGPASSWORD", "value": 8888123456789}, {"name": "RW_PORT", "value": 4566}]}},
  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
   "data": {"db_password": 9999123456789, "ttl": 60}}
]}`
	out, n, err := r.KubeJSON("kubernetes/risingwaves.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"5555123456789", "6666.25", "8888123456789", "9999123456789", "7777123456789"} {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("secret number %s left:\n%s", s, out)
		}
	}
	if n != 5 {
		t.Errorf("counted %d, want 5", n)
	}
	if !json.Valid(out) {
		t.Fatalf("not JSON:\n%s", out)
	}
	for _, keep := range []string{`"replicas": 3`, `"port": 5432`, `"retries": 5`, `{"name": "RW_PORT", "value": 4566}`, `"ttl": 60`} {
		if !bytes.Contains(out, []byte(keep)) {
			t.Errorf("lost %s:\n%s", keep, out)
		}
	}
	for _, want := range []string{`"password": "` + r.Token("5555123456789") + `"`, `"pw": "` + r.Token("-6666.25e3") + `"`,
		`{"name": "PGPASSWORD", "value": "` + r.Token("8888123456789") + `"}`, `"db_password": "` + r.Token("9999123456789") + `"`,
		`\"password\":\"` + r.Token("7777123456789") + `\"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("want %s in:\n%s", want, out)
		}
	}
	// the type changed: a string now, where a number was
	var v struct {
		Items []struct {
			Spec struct {
				MetaStore struct{ Postgresql map[string]any }
			}
		}
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if pw, ok := v.Items[0].Spec.MetaStore.Postgresql["password"].(string); !ok || !isToken(pw) {
		t.Errorf("password is %#v, want a token string", v.Items[0].Spec.MetaStore.Postgresql["password"])
	}
	if again, n2, err := r.KubeJSON("x", out); err != nil || n2 != 0 || !bytes.Equal(again, out) {
		t.Errorf("second pass changed %d values", n2)
	}
	if strings.Count(doc, "\n") != bytes.Count(out, []byte("\n")) {
		t.Error("lines added or removed")
	}
}
