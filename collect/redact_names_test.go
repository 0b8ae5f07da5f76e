package collect

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// Names judged by their words: one-word and abbreviated secret names are
// secret, look-alikes are not.
func TestSecretNameWords(t *testing.T) {
	secret := []string{"PGPASSWORD", "DBPASSWORD", "MYSQL_ROOT_PW", "MYSQL_PWD", "REDISPASS", "KAFKA_SASLPW", "ADMINCREDS",
		"GHTOKEN", "DATADOG_APIKEY", "AZURE_STORAGE_KEY", "STRIPE_KEY", "masterauth", "requirepass", "sql-password",
		"x-auth-token", "X-Api-Key", "sasl.jaas.config", "snowflake.private_key", "private_key_id", "oauth.client.secret",
		"catalog.credential", "catalog.token", "auth.token", "sig", "SSH_PRIVATE", "Cookie", "Authorization", "license-key"}
	notSecret := []string{"KEYSPACE", "MONKEY", "PASSTHROUGH", "AUTHOR", "TOKENIZER", "max_tokens", "BYPASS_CACHE",
		"primary_key", "partition_key", "partition_key_columns", "sasl.mechanism", "SECRET_NAME", "TOKEN_FILE",
		"password_policy", "auth_url", "catalog.uri", "oauth", "compass", "properties.sasl.username", "secretKeyRef",
		"AUTH_ENABLED", "private_link", "message.key", "key", "hotkey", "PASSENGER_COUNT"}
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

// Values that only start like a reference are secrets; exact references
// and placeholders are not.
func TestReferenceValues(t *testing.T) {
	for _, v := range []string{"${DB_PASSWORD}", "$(PGPASSWORD)", "$PGPASSWORD", "{{ .Values.password }}", "%s",
		"<set to the key 'password' in secret 'pg'>", "<none>", "<redacted>"} {
		if !skipValue(v) {
			t.Errorf("%q: redacted, but it is a reference", v)
		}
	}
	for _, v := range []string{"$ecr3t!", "$Xq9-env!pw41", "<Zr7env-Kp2Lw", "%Hy4env", "${pw-Lk3x9Q}z", "$(echo pw)"} {
		if skipValue(v) {
			t.Errorf("%q: kept, but it is a secret", v)
		}
	}
}

// A secret straddling the cut of a long line is redacted whole, with the
// line cap lowered so the test stays small; so is one whose key lies in
// the window before the one holding its value.
func TestTextStreamSecretAtCut(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"straddling", "properties.sasl.password = '", "' FORMAT PLAIN"},
		{"url", "postgres://rw:", "@pg:5432/meta"},
		{"aws key id", "key ", " used"},
	} {
		for _, capSize := range []int{4096, 4099, 5000} {
			r := newTestRedactor(t)
			r.lineCap = capSize
			secret := "Cut-Secret-7Xq2Lm9Wz4"
			if tc.name == "aws key id" {
				secret = "AKIAZ7QWX3LONGLINE5K"
			}
			for shift := -len(secret); shift <= len(secret); shift += 3 {
				pad := capSize - len(tc.before) - len(secret)/2 + shift
				line := strings.Repeat("a ", pad/2) + strings.Repeat("b", pad%2) + tc.before + secret + tc.after + strings.Repeat(" z", 3*capSize) + "\nnext line\n"
				var out bytes.Buffer
				n, err := r.TextStream("logs/x.log", &out, strings.NewReader(line))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(out.String(), secret[:8]) || strings.Contains(out.String(), secret[len(secret)-8:]) || n == 0 {
					t.Fatalf("%s, cap %d, shift %d: part of the secret survives (n %d)", tc.name, capSize, shift, n)
				}
				want := strings.Replace(line, secret, r.Token(secret), 1)
				if out.String() != want {
					t.Fatalf("%s, cap %d, shift %d: output differs from the line with the token in place (len %d, want %d)", tc.name, capSize, shift, out.Len(), len(want))
				}
			}
		}
	}
}

// A line of many windows is streamed in bounded time and memory.
func TestTextStreamLongLineBounded(t *testing.T) {
	r := newTestRedactor(t)
	r.lineCap = 64 << 10
	start := time.Now()
	src := io.MultiReader(strings.NewReader("head password=first-Pw1 "), strings.NewReader(strings.Repeat("x y ", 2<<20)), strings.NewReader(" token=last-Tok2\n"))
	var out bytes.Buffer
	n, err := r.TextStream("x", &out, src)
	if err != nil || n != 2 || strings.Contains(out.String(), "first-Pw1") || strings.Contains(out.String(), "last-Tok2") {
		t.Fatalf("n %d, err %v", n, err)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("took %v", d)
	}
}
