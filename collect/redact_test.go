package collect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func newTestRedactor(t *testing.T, extra ...RedactPattern) *Redactor {
	t.Helper()
	r, err := NewRedactor(extra)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var tokenRe = regexp.MustCompile(`\[REDACTED:[0-9a-f]{8}\]`)

func TestToken(t *testing.T) {
	r := newTestRedactor(t)
	a, b := r.Token("hunter2"), r.Token("hunter2")
	if a != b || !tokenRe.MatchString(a) || len(a) != tokenLen {
		t.Errorf("tokens of one value: %q, %q", a, b)
	}
	if r.Token("hunter3") == a {
		t.Error("two values, one token")
	}
	if r.Token(a) != a {
		t.Error("a token is redacted again")
	}
	// Another run has another key.
	if newTestRedactor(t).Token("hunter2") == a {
		t.Error("two runs share a key")
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	in := []byte("password=hunter2\n")
	if out, n := r.Text("x", in); !bytes.Equal(out, in) || n != 0 {
		t.Errorf("Text: %q, %d", out, n)
	}
	if out, n, err := r.KubeJSON("x", []byte(`{"a": "password=x"}`)); string(out) != `{"a": "password=x"}` || n != 0 || err != nil {
		t.Errorf("KubeJSON: %q, %d, %v", out, n, err)
	}
	if out, n := r.SQLValue("rw_sinks", "definition", "password='x'"); out != "password='x'" || n != 0 {
		t.Errorf("SQLValue: %q, %d", out, n)
	}
	if out, n := r.SQLRow("show_parameters", []string{"Name", "Value"}, []string{"license_key", "k"}); out[1] != "k" || n != 0 {
		t.Errorf("SQLRow: %q, %d", out, n)
	}
	if r.Token("x") != "x" || r.Report().Enabled {
		t.Error("Token or Report")
	}
}

// Text: each case's secrets vanish and its keep strings stay.
func TestTextRedaction(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		secrets []string
		keep    []string
	}{
		{"URL userinfo", "2026-11-29T20:41:07Z WARN meta: connecting to postgres://rw:pg-Pa55@pg.db:5432/meta?sslmode=disable",
			[]string{"pg-Pa55"}, []string{"postgres://rw:", "@pg.db:5432/meta"}},
		{"URL userinfo with @ in the password", "mysql://root:p@ss@mysql:3306/meta", []string{"p@ss"}, []string{"@mysql:3306"}},
		{"URL without userinfo", "load-balance+http://rw-meta:5690 and http://host:8080/path@x", nil,
			[]string{"load-balance+http://rw-meta:5690 and http://host:8080/path@x"}},
		{"password=", "connect host=pg user=rw password=s3cr3t dbname=meta", []string{"s3cr3t"}, []string{"host=pg user=rw", "dbname=meta"}},
		{"JSON pair", `{"level":"INFO","properties.sasl.password":"kafka-pw","topic":"t"}`, []string{"kafka-pw"}, []string{`"topic":"t"`}},
		{"JSON pair inside a JSON string", `{"fields":{"message":"config {\"password\":\"inner-pw\"}"}}`, []string{"inner-pw"}, []string{`{\"password\":\"`}},
		{"WITH options", "CREATE SINK s FROM mv WITH (connector = 'kafka', properties.sasl.password = 'it''s-pw', 's3.secret.key' = 'S3KEY', " +
			"aws.credentials.secret_access_key = 'AWSSECRET', aws.credentials.access_key_id = 'AKID123', properties.ssl.key.password='SSLPW', " +
			"jdbc.url = 'jdbc:mysql://h:3306/d?user=u&password=JDBCPW', primary_key = 'id', properties.sasl.username = 'rw') FORMAT PLAIN",
			[]string{"it''s-pw", "it", "S3KEY", "AWSSECRET", "AKID123", "SSLPW", "JDBCPW"},
			[]string{"primary_key = 'id'", "properties.sasl.username = 'rw'", "jdbc:mysql://h:3306/d?user=u&password=", "connector = 'kafka'"}},
		{"secret reference", "WITH (properties.sasl.password = SECRET kafka_pw)", nil, []string{"SECRET kafka_pw"}},
		{"describe Environment", "      RW_POSTGRES_PASSWORD:  pg pass with spaces", []string{"pg pass with spaces"}, []string{"RW_POSTGRES_PASSWORD:  "}},
		{"describe secretKeyRef", "      RW_POSTGRES_PASSWORD:  <set to the key 'password' in secret 'pg'>  Optional: false", nil,
			[]string{"<set to the key 'password' in secret 'pg'>"}},
		{"describe ordinary env", "      RW_META_ADDR:  load-balance+http://rw-meta:5690", nil, []string{"load-balance+http://rw-meta:5690"}},
		{"YAML", "  secret_access_key: \"yaml-secret\"  # comment", []string{"yaml-secret"}, []string{"# comment"}},
		{"TOML", `password = "toml-pw"`, []string{"toml-pw"}, []string{`password = "`}},
		{"AWS key id", "using key AKIAIOSFODNN7EXAMPLE for s3", []string{"AKIAIOSFODNN7EXAMPLE"}, []string{"using key", "for s3"}},
		{"bearer", "GET /api with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", []string{"eyJhbGciOiJIUzI1NiJ9.payload.sig"}, []string{"GET /api"}},
		{"inline PEM", `key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----"`, []string{"MIIEvQIBADANBg"},
			[]string{"-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"}},
		{"PEM across lines", "tls:\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEowIBAAKCAQEA\n  q83vEjA\n  -----END RSA PRIVATE KEY-----\nafter: 1\n",
			[]string{"MIIEowIBAAKCAQEA", "q83vEjA"}, []string{"-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "after: 1"}},
		{"PEM cut short", "-----BEGIN PRIVATE KEY-----\nMIIEcut\n2026-11-29T20:41:07Z INFO next log line user=rw\n",
			[]string{"MIIEcut"}, []string{"2026-11-29T20:41:07Z INFO next log line user=rw"}},
		// false-positive guards
		{"prose about passwords", "the password_policy=strict, password authentication failed for user \"rw\"", nil,
			[]string{"password_policy=strict", "password authentication failed"}},
		{"names describing secrets", "SECRET_NAME=pg-credentials TOKEN_FILE=/var/run/token sasl.mechanism=PLAIN secretName: pg", nil,
			[]string{"SECRET_NAME=pg-credentials", "TOKEN_FILE=/var/run/token", "sasl.mechanism=PLAIN", "secretName: pg"}},
		{"RisingWave log line", "2026-11-29T20:41:07.123Z  INFO risingwave_meta::barrier: recovery success actor_count=12 key=3", nil,
			[]string{"recovery success actor_count=12 key=3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRedactor(t)
			out, n := r.Text("logs/p/c.log", []byte(tc.in))
			for _, s := range tc.secrets {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("secret %q left in %q", s, out)
				}
			}
			for _, k := range tc.keep {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("lost %q: %q", k, out)
				}
			}
			if len(tc.secrets) > 0 && (n == 0 || !tokenRe.Match(out)) {
				t.Errorf("count %d, output %q", n, out)
			}
			if len(tc.secrets) == 0 && (n != 0 || string(out) != tc.in) {
				t.Errorf("changed what holds no secret: %q, %d", out, n)
			}
			// Redacting again changes nothing.
			again, n2 := r.Text("x", out)
			if !bytes.Equal(again, out) || n2 != 0 {
				t.Errorf("second pass changed %q to %q (%d)", out, again, n2)
			}
		})
	}
}

func TestTextKeepsLineEndingsAndCounts(t *testing.T) {
	r := newTestRedactor(t)
	in := "a password=one\r\nb\n\nc token=two"
	out, n := r.Text("x", []byte(in))
	want := "a password=" + r.Token("one") + "\r\nb\n\nc token=" + r.Token("two")
	if string(out) != want || n != 2 {
		t.Errorf("got %q (%d), want %q (2)", out, n, want)
	}
	rep := r.Report()
	if !rep.Enabled || rep.Total != 2 || rep.Counts[ruleAssignment] != 2 {
		t.Errorf("report %+v", rep)
	}
}

func TestTextStreamLongLine(t *testing.T) {
	r := newTestRedactor(t)
	long := strings.Repeat("x", 3*maxRedactLine) + " password=deep\nnext password=two\n"
	var out bytes.Buffer
	n, err := r.TextStream("x", &out, strings.NewReader(long))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "deep") || strings.Contains(out.String(), "=two") || n != 2 {
		t.Errorf("n %d, tail %q", n, out.String()[out.Len()-120:])
	}
	if out.Len() != len(long)-len("deep")-len("two")+2*tokenLen {
		t.Errorf("length %d", out.Len())
	}
}

func TestCustomPatterns(t *testing.T) {
	r := newTestRedactor(t,
		RedactPattern{Name: "acme-token", Value: `acme_[0-9a-f]{8}`},
		RedactPattern{Name: "acme-dsn", Value: `acme://[^:]+:([^@]+)@`},
		RedactPattern{Name: "acme-id", Value: `acme-id:([0-9]+)`},
		RedactPattern{Name: "acme-env", Key: `^ACME_`})
	out, n := r.Text("x", []byte("t=acme_0123abcd dsn=acme://u:dsnpw@h ACME_REGION=eu-west-1 acme-id:4242\n"))
	for _, s := range []string{"acme_0123abcd", "dsnpw", "eu-west-1", "4242"} {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("%q left in %q", s, out)
		}
	}
	if n != 4 || !strings.Contains(string(out), "acme://u:[REDACTED:") {
		t.Errorf("count %d: %q", n, out)
	}
	rep := r.Report()
	for _, name := range []string{"acme-token", "acme-dsn", "acme-env", "acme-id"} {
		if rep.Counts[name] != 1 {
			t.Errorf("counts %v, want 1 for %s", rep.Counts, name)
		}
	}
	// A value pattern never redacts inside a token.
	r2 := newTestRedactor(t, RedactPattern{Name: "hex", Value: `[0-9a-f]{8}`})
	tok := r2.Token("x")
	if out, _ := r2.Text("x", []byte(tok)); string(out) != tok {
		t.Errorf("pattern redacted inside a token: %q", out)
	}
	if _, err := NewRedactor([]RedactPattern{{Name: "bad", Value: "("}}); err == nil {
		t.Error("a bad regexp was accepted")
	}
}

func TestSecretNames(t *testing.T) {
	secret := []string{"PASSWORD", "RW_POSTGRES_PASSWORD", "RW_MYSQL_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "GITHUB_TOKEN", "API_KEY", "apiKey", "secretAccessKey", "s3.secret.key", "s3.access.key",
		"s3.credentials.secret", "properties.sasl.password", "properties.ssl.key.password", "properties.ssl.key.pem",
		"aws.credentials.secret_access_key", "license_key", "RW_LICENSE_KEY", "azblob.credentials.account_key",
		"gcs.credential", "DATABASE_DSN", "CONNECTION_STRING", "REDIS_AUTH", "RW_SECRET_STORE_PRIVATE_KEY_HEX", "client_secret"}
	notSecret := []string{"RW_META_ADDR", "RW_SQL_ENDPOINT", "password_policy", "SECRET_NAME", "secretName", "TOKEN_FILE",
		"RW_LICENSE_KEY_PATH", "sasl.mechanism", "properties.sasl.username", "primary_key", "partition_key", "key",
		"RW_TOTAL_MEMORY_BYTES", "AUTH_ENABLED", "max_tokens", "tokenizer", "keyRef", "RW_BACKEND"}
	for _, n := range secret {
		if !looksSecret(n) {
			t.Errorf("%s: not taken for a secret", n)
		}
	}
	for _, n := range notSecret {
		if looksSecret(n) {
			t.Errorf("%s: taken for a secret", n)
		}
	}
}

// kubeFixture plants secrets where Kubernetes objects hold them.
const kubeFixture = `{
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "rw-meta-0",
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"env\":[{\"name\":\"RW_POSTGRES_PASSWORD\",\"value\":\"pg-Pa55-meta\"},{\"name\":\"RW_META_ADDR\",\"value\":\"load-balance+http://rw-meta:5690\"}],\"name\":\"meta\"}]}}\n",
                    "checksum/config": "abc123"
                }
            },
            "spec": {
                "initContainers": [
                    {"name": "init", "env": [{"name": "AWS_SECRET_ACCESS_KEY", "value": "wJalrXUtnFEMI-init"}]}
                ],
                "containers": [
                    {
                        "name": "meta",
                        "args": ["meta-node", "--sql-endpoint", "postgres://rw:pg-Pa55-meta@pg:5432/meta"],
                        "env": [
                            {"name": "RW_POSTGRES_PASSWORD", "value": "pg-Pa55-meta"},
                            {"value": "wJalrXUtnFEMI-env", "name": "AWS_SECRET_ACCESS_KEY"},
                            {"name": "AWS_ACCESS_KEY_ID", "value": "AKIAIOSFODNN7EXAMPLE"},
                            {"name": "RW_META_ADDR", "value": "load-balance+http://rw-meta:5690"},
                            {"name": "RW_SQL_ENDPOINT", "value": "postgres://rw:pg-Pa55-meta@pg:5432/meta"},
                            {"name": "RW_LICENSE_KEY", "value": "lic-0c0ffee"},
                            {"name": "RW_POSTGRES_USER", "value": "rw"},
                            {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "pg", "key": "password"}}}
                        ]
                    }
                ]
            }
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "rw-config"},
            "data": {
                "risingwave.toml": "[server]\nheartbeat_interval_ms = 1000\n[storage]\nsecret_key = \"toml-secret-1\"\n",
                "s3_secret_key": "cm-secret-2",
                "meta-dsn.txt": "postgres://rw:cm-dsn-pw@pg:5432/meta",
                "tls.key.pem": "-----BEGIN PRIVATE KEY-----\nMIIEcmPEM\n-----END PRIVATE KEY-----\n",
                "plain": "nothing to see"
            },
            "binaryData": {
                "app.properties": "` + "%BINARY%" + `"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "message": "Failed to pull image \"registry.example.com/rw:v3\": auth failed for https://bot:evt-pw@registry.example.com/v2/"
        }
    ]
}
`

func TestKubeJSONRedaction(t *testing.T) {
	doc := strings.Replace(kubeFixture, "%BINARY%", base64.StdEncoding.EncodeToString([]byte("user=rw\npassword=bin-pw\n")), 1)
	r := newTestRedactor(t)
	out, n, err := r.KubeJSON("kubernetes/pods.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"pg-Pa55-meta", "wJalrXUtnFEMI-init", "wJalrXUtnFEMI-env", "AKIAIOSFODNN7EXAMPLE", "lic-0c0ffee",
		"toml-secret-1", "cm-secret-2", "cm-dsn-pw", "MIIEcmPEM", "evt-pw"}
	for _, s := range secrets {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("secret %q left", s)
		}
	}
	if !json.Valid(out) {
		t.Fatalf("not JSON:\n%s", out)
	}
	var v struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Items) != 3 {
		t.Fatalf("items: %v", err)
	}
	var cm struct {
		BinaryData map[string]string `json:"binaryData"`
	}
	json.Unmarshal(v.Items[1], &cm)
	bin, _ := base64.StdEncoding.DecodeString(cm.BinaryData["app.properties"])
	if strings.Contains(string(bin), "bin-pw") || !strings.Contains(string(bin), "user=rw") {
		t.Errorf("binaryData: %q", bin)
	}
	// What is not secret is kept, byte for byte.
	for _, keep := range []string{`{"name": "RW_META_ADDR", "value": "load-balance+http://rw-meta:5690"}`,
		`{"name": "RW_POSTGRES_USER", "value": "rw"}`, `"plain": "nothing to see"`, `"checksum/config": "abc123"`,
		`\"name\":\"RW_META_ADDR\",\"value\":\"load-balance+http://rw-meta:5690\"`, `heartbeat_interval_ms = 1000`,
		`{"secretKeyRef": {"name": "pg", "key": "password"}}`} {
		if !bytes.Contains(out, []byte(keep)) {
			t.Errorf("lost %s", keep)
		}
	}
	// Equal secrets get equal tokens, wherever they are: env, last-applied,
	// args, URL userinfo.
	tok := r.Token("pg-Pa55-meta")
	if c := bytes.Count(out, []byte(tok)); c != 4 {
		t.Errorf("token of the meta store password appears %d times, want 4", c)
	}
	if r.Token("wJalrXUtnFEMI-init") == r.Token("wJalrXUtnFEMI-env") {
		t.Error("different secrets, one token")
	}
	if n < len(secrets) {
		t.Errorf("count %d, want at least %d", n, len(secrets))
	}
	// Only redacted values changed: the rest is byte for byte the input.
	re := regexp.MustCompile(`\[REDACTED:[0-9a-f]{8}\]`)
	if strings.Count(doc, "\n") != bytes.Count(out, []byte("\n")) {
		t.Error("lines added or removed")
	}
	rest := re.ReplaceAll(out, nil)
	if len(rest) >= len(doc) {
		t.Errorf("nothing removed? %d >= %d", len(rest), len(doc))
	}
	// Nothing to redact: the very same bytes back.
	clean := []byte(`{"kind": "List",  "items": [ {"kind":"Pod", "spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "b"}]}]}} ] }`)
	if out, n, err := r.KubeJSON("x", clean); !bytes.Equal(out, clean) || n != 0 || err != nil {
		t.Errorf("clean document changed: %s %d %v", out, n, err)
	}
	// Redacting the output again changes nothing.
	again, n2, err := r.KubeJSON("x", out)
	if err != nil || !bytes.Equal(again, out) || n2 != 0 {
		t.Errorf("second pass changed %d values", n2)
	}
}

func TestKubeJSONNotJSON(t *testing.T) {
	r := newTestRedactor(t)
	out, n, err := r.KubeJSON("kubernetes/pods.json", []byte("error: You must be logged in password=oops\n"))
	if err == nil {
		t.Error("no error for text")
	}
	if bytes.Contains(out, []byte("oops")) || n != 1 {
		t.Errorf("fallback output %q, %d", out, n)
	}
}

func TestSQLValueRedaction(t *testing.T) {
	r := newTestRedactor(t)
	props := `{"connector": {"type": "plaintext", "value": "kafka"}, "properties.sasl.password": {"type": "plaintext", "value": "sasl-pw"}, ` +
		`"properties.sasl.username": {"type": "plaintext", "value": "rw"}, "properties.ssl.key.password": {"type": "secret", "value": {"value": "ssl_secret_name"}}}`
	out, n := r.SQLValue("rw_sources", "connector_props", props)
	if strings.Contains(out, "sasl-pw") || n != 1 {
		t.Errorf("connector_props: %s (%d)", out, n)
	}
	for _, keep := range []string{`"value": "kafka"`, `"value": "rw"`, `"ssl_secret_name"`, `"type": "plaintext"`} {
		if !strings.Contains(out, keep) {
			t.Errorf("connector_props lost %s: %s", keep, out)
		}
	}
	def := "CREATE SOURCE s (id int) WITH (connector = 'kafka', properties.sasl.password = 'sasl-pw') FORMAT PLAIN ENCODE JSON"
	out, n = r.SQLValue("rw_sources", "definition", def)
	if strings.Contains(out, "sasl-pw") || n != 1 || !strings.Contains(out, r.Token("sasl-pw")) {
		t.Errorf("definition: %s", out)
	}
	// rw_event_logs.info: a definition inside JSON.
	info := `{"createStreamJobFail": {"definition": "CREATE SINK k FROM mv WITH (connector='kafka', properties.sasl.password='ev-pw')", "error": "x"}}`
	if out, _ := r.SQLValue("rw_event_logs", "info", info); strings.Contains(out, "ev-pw") || !json.Valid([]byte(out)) {
		t.Errorf("info: %s", out)
	}
	if out, n := r.SQLValue("rw_users", "password", "md5abc"); out != r.Token("md5abc") || n != 1 {
		t.Errorf("secret column: %s", out)
	}
	for _, v := range []string{"42", "2026-11-29 20:43:00+00", "t", "CREATE MATERIALIZED VIEW mv AS SELECT 1", "{1,2,3}"} {
		if out, n := r.SQLValue("rw_x", "definition", v); out != v || n != 0 {
			t.Errorf("%q became %q", v, out)
		}
	}
	row, n := r.SQLRow("show_parameters", []string{"Name", "Value", "Description", "Mutable"},
		[]string{"license_key", "lic-xyz", "The license key (password=not-here)", "t"})
	if row[1] != r.Token("lic-xyz") || row[0] != "license_key" || row[3] != "t" || n != 2 {
		t.Errorf("license_key row: %q (%d)", row, n)
	}
	row, n = r.SQLRow("show_parameters", []string{"Name", "Value"}, []string{"barrier_interval_ms", "1000"})
	if row[1] != "1000" || n != 0 {
		t.Errorf("ordinary parameter: %q", row)
	}
}

func TestRedactorConcurrent(t *testing.T) {
	r := newTestRedactor(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				r.Text("x", []byte("password=x\n"))
				r.Token("y")
			}
		}()
	}
	wg.Wait()
	if got := r.Report().Total; got != 800 {
		t.Errorf("total %d, want 800", got)
	}
}

func TestLoadRedactConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(`apiVersion: rwdiag/v1
kind: RedactConfig
patterns:
  - name: acme-token
    value: 'acme_[0-9a-f]{32}'
  - name: acme-env
    key: ^ACME_
`), 0o644)
	ps, err := LoadRedactConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0] != (RedactPattern{Name: "acme-token", Value: "acme_[0-9a-f]{32}"}) || ps[1].Key != "^ACME_" {
		t.Errorf("patterns %+v", ps)
	}
	if _, err := NewRedactor(ps); err != nil {
		t.Error(err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(`kind: Rules
patterns:
  - name: broken
    value: '(unclosed'
  - key: ok
    colour: red
  - name: empty
`), 0o644)
	_, err = LoadRedactConfig(bad)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		bad + `:1:7: kind: must be "RedactConfig"`,
		bad + `:4:12: patterns[0].value: error parsing regexp`,
		bad + `:6:5: patterns[1]: unknown field "colour"`,
		`patterns[1]: name is required`,
		`patterns[2]: want key, value or both`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	syntax := filepath.Join(dir, "syntax.yaml")
	os.WriteFile(syntax, []byte("patterns:\n  - name: [unclosed\n"), 0o644)
	if _, err := LoadRedactConfig(syntax); err == nil || !strings.HasPrefix(err.Error(), syntax+":") {
		t.Errorf("syntax error: %v", err)
	}
	if _, err := LoadRedactConfig(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
}

// Redacting is idempotent and keeps JSON valid; run with -fuzz to explore.
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{"password=x", "postgres://u:p@h/db", "a: b\n  token: 'q''r'\n", "-----BEGIN PRIVATE KEY-----\nAB\n",
		`{"secret":"v","k":"password=w"}`, "Authorization: Basic dXNlcjpwYXNz", "x AKIAIOSFODNN7EXAMPLE y"} {
		f.Add(s)
	}
	r, err := NewRedactor(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := r.Text("x", []byte(s))
		if again, n := r.Text("x", out); n != 0 || !bytes.Equal(again, out) {
			t.Errorf("second pass: %q -> %q -> %q (%d)", s, out, again, n)
		}
		if !json.Valid([]byte(s)) {
			return
		}
		j, _, err := r.KubeJSON("x", []byte(s))
		if err != nil {
			return
		}
		if !json.Valid(j) {
			t.Errorf("KubeJSON(%q) = %q: not JSON", s, j)
		}
		if again, n, _ := r.KubeJSON("x", j); n != 0 || !bytes.Equal(again, j) {
			t.Errorf("KubeJSON second pass: %q -> %q -> %q (%d)", s, j, again, n)
		}
	})
}

func BenchmarkText(b *testing.B) {
	r, _ := NewRedactor(nil)
	line := "2026-11-29T20:41:07.123456789Z 2026-11-29T20:41:07.123Z  INFO actor{otel.name=\"Actor 132\" actor_id=132}: " +
		"risingwave_stream::executor::source: connector kafka key=3 fetch kafka watermarks: low: 0, high: 100\n" +
		"2026-11-29T20:41:07.123456789Z 2026-11-29T20:41:07.123Z  INFO risingwave_meta::barrier: barrier complete epoch=8251479106256896\n"
	data := []byte(strings.Repeat(line, 2000))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r.Text("x", data)
	}
}
