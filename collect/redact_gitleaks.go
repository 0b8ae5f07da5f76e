package collect

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// The free-text detector is gitleaks' (github.com/zricethezav/gitleaks/v8)
// with its default rule set, some 220 rules for vendors' tokens and keys
// (GitHub, GitLab, Slack, Stripe, Google, private keys, JWTs, generic API
// keys with an entropy floor) and its keyword prefilter: a rule's regular
// expression runs only on text holding one of its keywords. rwdiag's own
// rules (redact_text.go, redact_rules.go) run first and cover RisingWave's
// WITH options and CREATE SECRET, Kafka SASL/JAAS, JDBC and PostgreSQL
// DSNs, URL userinfo and kubectl's shapes; gitleaks catches what has no
// name around it. Which lines reach gitleaks at all is decided by
// leakScanner (redact_leakgate.go): only those on which a rule can match.
//
// Building the detector parses its TOML and compiles its expressions
// (about 70 ms): it is built on first use, never at start-up, so commands
// that redact nothing do not pay for it.
var (
	leakOnce sync.Once
	leakDet  *detect.Detector
	leakErr  error
	leakSc   *leakScanner
)

func leakDetector() (*detect.Detector, error) {
	leakOnce.Do(func() {
		// gitleaks logs to stderr at info level; a library must not.
		logging.Logger = logging.Logger.Level(zerolog.Disabled)
		leakDet, leakErr = detect.NewDetectorDefaultConfig()
		if leakErr != nil {
			leakErr = fmt.Errorf("gitleaks default rules: %w", leakErr)
			return
		}
		leakSc = newLeakScanner(leakDet.Config.Rules)
	})
	return leakDet, leakErr
}

// ruleLeakPrefix starts the report's rule name of a gitleaks finding:
// "gitleaks:slack-webhook-url".
const ruleLeakPrefix = "gitleaks:"

// redactLeaks replaces what gitleaks finds in text (one or more whole
// lines, already through rwdiag's rules) with tokens: every occurrence of
// each secret found, outside tokens. Without a detector (its rules failed
// to load, which a test catches) text is returned as it is.
func (r *Redactor) redactLeaks(text string, t tally) string {
	if len(text) < 8 {
		return text
	}
	if _, err := leakDetector(); err != nil {
		return text
	}
	// gitleaks' own prefilter picks the rules whose keywords occur
	// anywhere in what it is given; give it one line at a time, and only
	// the lines on which some rule can match (leakScanner), so a keyword on
	// one line does not send the batch's other lines through that rule's
	// expression, nor a common keyword every line.
	var lines []span
	gs := leakSc.newState()
	for off := 0; off < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if leakSc.mayLeak(text[off:end], gs) {
			lines = append(lines, span{off, end})
		}
		off = end
	}
	return r.redactLeaksIn(text, lines, t)
}

// span is a stretch [start, end) of a text.
type span struct{ start, end int }

// redactLeaksIn is redactLeaks when the lines of text that gitleaks must
// see are known: lines.
func (r *Redactor) redactLeaksIn(text string, lines []span, t tally) string {
	if len(lines) == 0 {
		return text
	}
	d, err := leakDetector()
	if err != nil {
		return text
	}
	var findings []report.Finding
	for _, l := range lines {
		findings = append(findings, d.DetectString(text[l.start:l.end])...)
	}
	if len(findings) == 0 {
		return text
	}
	type secret struct{ value, rule string }
	var secrets []secret
	seen := map[string]bool{}
	for _, f := range findings {
		v := strings.TrimSpace(f.Secret)
		if len(v) < 6 || seen[v] || strings.Contains(v, tokenPrefix) || strings.Contains(v, "\n") || skipValue(v) {
			continue
		}
		seen[v] = true
		secrets = append(secrets, secret{v, ruleLeakPrefix + f.RuleID})
	}
	// longest first, so a secret inside another is replaced with it
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i].value) > len(secrets[j].value) })
	for _, s := range secrets {
		text = replaceAllOutsideTokens(text, s.value, func() string {
			t.add(s.rule)
			return r.Token(s.value)
		})
	}
	return text
}

// replaceAllOutsideTokens replaces every occurrence of v in s that does not
// overlap a token with repl().
func replaceAllOutsideTokens(s, v string, repl func() string) string {
	if !strings.Contains(s, v) {
		return s
	}
	tokens := tokenSpans(s)
	var b strings.Builder
	last := 0
	for off := 0; ; {
		i := strings.Index(s[off:], v)
		if i < 0 {
			break
		}
		i += off
		if overlaps(tokens, i, i+len(v)) {
			off = i + 1
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl())
		last = i + len(v)
		off = last
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
