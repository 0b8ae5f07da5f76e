package collect

// The words whose presence lets a line's rules run, found for all rules in
// one pass over the line (kwMatcher, ASCII case ignored): a line without
// any of them skips the rule altogether. Most RisingWave log lines hold
// none, or only "conn" (connection, connector).
const (
	hintPass = 1 << iota
	hintPW
	hintSecret
	hintToken
	hintCred
	hintKey
	hintAuth
	hintSas
	hintSig
	hintCookie
	hintDSN
	hintConn
	hintPrivate
	hintJaas
	// the words of particular rules
	hintPassword      // redactSQL
	hintLicense       // redactSQL: SET license_key
	hintSet           // redactSQL: "set "
	hintSecureCompare // redactSQL
	hintPwd           // redactFreeText
	hintAPI           // redactFreeText
	hintBegin         // PEM blocks: "-----BEGIN" (case-sensitive, checked after)
	hintWebhook       // redactWebhooks (case-sensitive, checked after)
	hintAKIA          // AWS key ids (case-sensitive, checked after)
	hintASIA
	hintEarer // bearer tokens (Bearer, BEARER, bearer)
	hintName  // redactEnvPair
	hintURL   // "://" of URL userinfo
)

// hintWords are the words of the hints, in the order of their bits, then
// more words for some bits (hintMore).
var hintWords = append([]string{
	"pass", "pw", "secret", "token", "cred", "key", "auth", "sas", "sig", "cookie", "dsn", "connstr", "private", "jaas",
	"password", "license", "set ", "secure_compare", "pwd", "api",
	"-----begin", "webhook", "akia", "asia", "earer", "name", "://",
}, hintMore...)

// hintMore are the other words of hintConn: a secret name with "conn" in
// it is a connection string (connStr, CONNECTION_STRING, conn.str), so
// "connection" and "connector", in most RisingWave log lines, are none.
var hintMore = []string{"conn_str", "conn-str", "conn.str", "conn str",
	"connectionstr", "connection_str", "connection-str", "connection.str", "connection str"}

// hintBits is the bit of each word of hintWords.
var hintBits = func() []uint64 {
	b := make([]uint64, len(hintWords))
	for i := range b {
		if i < len(hintWords)-len(hintMore) {
			b[i] = 1 << i
		} else {
			b[i] = hintConn
		}
	}
	return b
}()

// secretHintMask: the line holds a fragment of some built-in secret name;
// every name looksSecret takes for a secret holds one
// (TestSecretNamesHaveHints).
const secretHintMask = hintPass | hintPW | hintSecret | hintToken | hintCred | hintKey | hintAuth | hintSas |
	hintSig | hintCookie | hintDSN | hintConn | hintPrivate | hintJaas

// freeTextHintMask: the line may hold one of freeTextRe's words.
const freeTextHintMask = hintPass | hintPwd | hintToken | hintAPI

var hintMatcher = newKWMatcher(hintWords)

// lineHints returns the hints s holds. Replacing values with tokens never
// adds one (a token's letters make none of the words), so the hints of a
// line before its rules ran hold every hint of it after.
func lineHints(s string) uint64 {
	var h uint64
	hintMatcher.scan(s, func(id, _ int) bool {
		h |= hintBits[id]
		return true
	})
	return h
}
