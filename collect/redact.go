package collect

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/rwdiag/rwdiag/bundle"
)

// RedactPattern is a redaction rule added with --redact-config.
type RedactPattern struct {
	// Name is what the manifest counts the pattern's redactions under.
	Name string
	// Key is a regular expression on names: environment variables,
	// configmap keys, JSON keys, WITH option names and key=value keys. The
	// value of a matching name is redacted whole.
	Key string
	// Value is a regular expression on text, tried line by line: the first
	// capture group, or the whole match when there is none, is redacted.
	Value string
}

// Names of the built-in rules, as the manifest counts them.
const (
	ruleEnvSecret       = "env-secret-name"      // env {name, value} whose name looks secret
	ruleConfigMapSecret = "configmap-secret-key" // configmap data under a secret-looking key
	ruleKubeSecret      = "kube-secret"          // data of a Secret object (never collected, but redacted if met)
	ruleJSONSecret      = "json-secret-key"      // a JSON value under a secret-looking key (connector_props, ...)
	ruleAssignment      = "secret-assignment"    // key=value, key: value, 'key' = 'value' with a secret-looking key
	ruleUserinfo        = "url-userinfo"         // scheme://user:PASSWORD@host
	ruleAWSKeyID        = "aws-access-key-id"    // AKIA.../ASIA...
	rulePrivateKey      = "private-key"          // PEM private key blocks
	ruleBearer          = "bearer-token"         // Authorization: Bearer ...
	ruleSecretColumn    = "secret-column"        // an SQL column whose name looks secret
	ruleSecretParameter = "secret-parameter"     // a name/value row (SHOW PARAMETERS) whose name looks secret
)

// Redactor replaces secrets with tokens. The token of a value is an HMAC
// under a key drawn at random for the run and never stored, so equal values
// get equal tokens within a run and nothing can be recovered from them.
//
// A nil *Redactor means redaction is off: every method returns its input
// unchanged and counts nothing. A Redactor is safe for concurrent use.
type Redactor struct {
	key    []byte
	keys   []keyPattern   // --redact-config Key patterns
	values []valuePattern // --redact-config Value patterns

	// lineCap is the most of one line redacted at once (maxRedactLine;
	// tests lower it): a longer line is redacted in overlapping windows.
	lineCap int

	mu     sync.Mutex
	counts map[string]int
	files  map[string]map[string]int // bundle path -> rule -> count
}

type keyPattern struct {
	name string
	re   *regexp.Regexp
}

type valuePattern struct {
	name string
	re   *regexp.Regexp
}

// NewRedactor returns a Redactor with the built-in rules and extra.
func NewRedactor(extra []RedactPattern) (*Redactor, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("redaction key: %w", err)
	}
	r := &Redactor{key: key, lineCap: maxRedactLine, counts: map[string]int{}, files: map[string]map[string]int{}}
	for i, p := range extra {
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("pattern-%d", i+1)
		}
		if p.Key == "" && p.Value == "" {
			return nil, fmt.Errorf("redaction pattern %q: neither key nor value is set", name)
		}
		if p.Key != "" {
			re, err := regexp.Compile(p.Key)
			if err != nil {
				return nil, fmt.Errorf("redaction pattern %q: key: %w", name, err)
			}
			r.keys = append(r.keys, keyPattern{name, re})
		}
		if p.Value != "" {
			re, err := regexp.Compile(p.Value)
			if err != nil {
				return nil, fmt.Errorf("redaction pattern %q: value: %w", name, err)
			}
			r.values = append(r.values, valuePattern{name, re})
		}
	}
	return r, nil
}

// tokenPrefix starts every token; tokenLen is a token's length.
const (
	tokenPrefix = "[REDACTED:"
	tokenLen    = len(tokenPrefix) + 8 + 1
)

// Token returns the token that replaces value: "[REDACTED:" and the first 8
// hex digits of HMAC-SHA256(run key, value), then "]". A value that already
// is a token is returned as it is, so redacting twice changes nothing.
func (r *Redactor) Token(value string) string {
	if r == nil || isToken(value) {
		return value
	}
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(value))
	return tokenPrefix + hex.EncodeToString(m.Sum(nil)[:4]) + "]"
}

// isToken reports whether s is a redaction token.
func isToken(s string) bool {
	if len(s) != tokenLen || !strings.HasPrefix(s, tokenPrefix) || s[tokenLen-1] != ']' {
		return false
	}
	for _, c := range s[len(tokenPrefix) : tokenLen-1] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Report returns what was redacted so far, for the manifest: counts per
// rule, and per bundle path and rule for every value redacted by a call that
// named its path (Text, TextStream, KubeJSON, SQLRow, SQLRowAt, String).
func (r *Redactor) Report() bundle.RedactionReport {
	if r == nil {
		return bundle.RedactionReport{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := bundle.RedactionReport{Enabled: true}
	if len(r.counts) > 0 {
		rep.Counts = maps.Clone(r.counts)
	}
	for _, n := range r.counts {
		rep.Total += n
	}
	if len(r.files) > 0 {
		rep.Files = make(map[string]map[string]int, len(r.files))
		for p, c := range r.files {
			rep.Files[p] = maps.Clone(c)
		}
	}
	return rep
}

// tally counts the redactions of one call, under each rule's name, and
// returns their total.
type tally map[string]int

func (t tally) add(rule string) { t[rule]++ }

func (t tally) total() int {
	n := 0
	for _, c := range t {
		n += c
	}
	return n
}

// commit adds a call's tally to the run's counts, and to path's when path
// is not "", and returns its total.
func (r *Redactor) commit(path string, t tally) int {
	if len(t) == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var fc map[string]int
	if path != "" {
		if fc = r.files[path]; fc == nil {
			fc = map[string]int{}
			r.files[path] = fc
		}
	}
	for k, v := range t {
		r.counts[k] += v
		if fc != nil {
			fc[k] += v
		}
	}
	return t.total()
}

// secretName tells whether a name (an environment variable, a configmap key,
// a JSON key, a WITH option, a command-line flag) names a secret, and under
// which rule a custom pattern matched it ("" for the built-in classifier).
//
// The built-in classifier (looksSecret) splits the name into lower-case
// words (at punctuation and camelCase boundaries) and judges each word by
// the secret words it holds, also inside one-word and abbreviated names:
// PGPASSWORD, DBPASS, MYSQL_ROOT_PW, ADMINCREDS, REDIS_AUTH, masterauth,
// DATADOG_APIKEY, ACCESS_KEY_ID, s3.secret.key, ssl.key.pem, license_key,
// AZURE_STORAGE_KEY; unless the last word says the value is about the
// secret rather than the secret itself (password_policy, SECRET_NAME,
// TOKEN_FILE, sasl.mechanism, auth_url) or the word only looks like one
// (KEYSPACE, MONKEY, PASSTHROUGH, AUTHOR, TOKENIZER, max_tokens, BYPASS,
// primary_key, partition_key).
func (r *Redactor) secretName(name string) (bool, string) {
	for _, k := range r.keys {
		if k.re.MatchString(name) {
			return true, k.name
		}
	}
	return looksSecret(name), ""
}

// secretWords are whole words that name a secret.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pw": true, "passphrase": true, "pass": true, "passcode": true,
	"secret": true, "secrets": true,
	"token": true, "credential": true, "credentials": true, "creds": true, "cred": true,
	"apikey": true, "privatekey": true, "accesskey": true, "secretkey": true,
	"licensekey": true, "masterkey": true, "sas": true, "sig": true,
	"auth": true, "authorization": true, "cookie": true,
	"dsn": true, "connstr": true, "connectionstring": true,
	"private": true, "jaas": true, "requirepass": true, "masterauth": true,
}

// secretInfixes name a secret anywhere inside a word: PGPASSWORD,
// DBPASSWD, MYSECRET, GHTOKEN, ADMINCREDS, oauthtoken.
var secretInfixes = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "creds", "apikey", "privatekey", "accesskey"}

// lookalikes hold a secret infix or suffix but are ordinary words.
var lookalikes = map[string]bool{
	"tokenizer": true, "tokenizers": true, "tokenize": true, "tokenized": true, "tokens": true, "tokenization": true,
	"secretary": true, "secretariat": true, "bypass": true, "compass": true, "encompass": true, "surpass": true,
	"overpass": true, "underpass": true, "trespass": true, "multipass": true, "onepass": true, "firstpass": true,
}

// nonSecretKeyKinds are words before a last "key" that make it a data key,
// not a secret: primary_key, partition_key, message.key, OBJECT_KEY.
var nonSecretKeyKinds = map[string]bool{
	"primary": true, "partition": true, "foreign": true, "sort": true, "shard": true, "sharding": true,
	"distribution": true, "dist": true, "routing": true, "message": true, "row": true, "cache": true, "group": true,
	"hash": true, "order": true, "unique": true, "bucket": true, "join": true, "lookup": true, "pk": true, "fk": true,
	"object": true, "record": true, "index": true, "table": true, "column": true, "cluster": true, "clustering": true,
	"natural": true, "composite": true, "surrogate": true, "business": true, "idempotency": true, "dedup": true,
	"state": true, "stream": true, "topic": true, "map": true, "file": true, "schema": true, "public": true, "pub": true,
	"sequence": true, "upsert": true, "field": true, "sort_key": true, "range": true, "label": true, "metric": true,
	"event": true, "entity": true, "kafka": true, "json": true, "avro": true, "protobuf": true, "redis": true,
	"primary_key": true, "hot": true, "idx": true, "the": true, "a": true, "s3": true, "path": true, "prefix": true,
}

// keyQualifiers make "key" after them a secret anywhere in a name
// (ssl.key.password, s3.secret.key.id) and make WORDkey one (apikey).
var keyQualifiers = map[string]bool{
	"access": true, "secret": true, "private": true, "api": true, "account": true,
	"license": true, "master": true, "encryption": true, "encrypt": true, "signing": true,
	"client": true, "session": true, "shared": true, "ssl": true, "tls": true,
	"storage": true, "service": true, "auth": true, "hmac": true, "ssh": true, "app": true,
	"jwt": true, "sign": true, "crypt": true, "cipher": true, "aes": true, "rsa": true, "pass": true,
}

// notSecretLast are last words that make a name describe a secret rather
// than hold it.
var notSecretLast = map[string]bool{
	"enabled": true, "enable": true, "disabled": true, "disable": true, "required": true,
	"type": true, "method": true, "mechanism": true, "mode": true, "policy": true, "provider": true,
	"file": true, "path": true, "dir": true, "directory": true, "location": true, "mount": true,
	"ref": true, "name": true, "names": true, "kind": true, "format": true, "version": true,
	"length": true, "len": true, "size": true, "count": true, "prefix": true, "suffix": true,
	"timeout": true, "interval": true, "ttl": true, "expiry": true, "expires": true, "expiration": true,
	"endpoint": true, "algorithm": true, "rotation": true, "min": true, "max": true,
	"url": true, "uri": true, "host": true, "hostname": true, "port": true, "user": true, "username": true,
	"issuer": true, "scope": true, "audience": true, "realm": true, "region": true, "backend": true,
	"ip": true, "link": true, "network": true, "subnet": true, "registry": true, "dns": true, "address": true,
	"addr": true, "zone": true, "bucket": true, "image": true,
}

// wordSecret tells whether one lower-case word of a name names a secret.
func wordSecret(w string) bool {
	if secretWords[w] {
		return true
	}
	if lookalikes[w] {
		return false
	}
	for _, in := range secretInfixes {
		if strings.Contains(w, in) {
			return true
		}
	}
	// DBPASS, REDISPASS, ROOTPW, SASLPWD, masterauth, basicauth
	for _, suf := range []string{"pass", "pw", "pwd", "auth"} {
		if len(w) > len(suf)+1 && strings.HasSuffix(w, suf) && w != "oauth" {
			return true
		}
	}
	// apikey, storagekey, sshkey: not monkey, turkey, hotkey
	if len(w) > 3 && strings.HasSuffix(w, "key") && keyQualifiers[w[:len(w)-3]] {
		return true
	}
	// authkey, authtoken, authpass
	if strings.HasPrefix(w, "auth") && (w == "authkey" || w == "authpass" || w == "authstring") {
		return true
	}
	return false
}

func looksSecret(name string) bool {
	words := nameWords(name)
	if len(words) == 0 || notSecretLast[words[len(words)-1]] {
		return false
	}
	last := len(words) - 1
	for i, w := range words {
		if wordSecret(w) {
			return true
		}
		// "CONNECTION_STRING", "conn_str"
		if i > 0 && (w == "string" || w == "str") && (words[i-1] == "connection" || words[i-1] == "conn") {
			return true
		}
		if i > 0 && w == "key" && keyQualifiers[words[i-1]] {
			return true
		}
		// DATADOG_KEY, STRIPE_KEY: a last "key" after a word that does not
		// make it a data key
		if i > 0 && i == last && w == "key" && !nonSecretKeyKinds[words[i-1]] && len(words[i-1]) > 1 {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words at anything but letters and
// digits, and at camelCase boundaries: "secretAccessKeyID" is secret, access,
// key, id.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, c := range rs {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			flush()
			continue
		}
		if unicode.IsUpper(c) && len(cur) > 0 {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return words
}
