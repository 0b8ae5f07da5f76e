package analyze

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	knownissues "github.com/rwdiag/rwdiag/known-issues"
	"github.com/rwdiag/rwdiag/rules"
)

// The built-in rules' log queries are loaded by source by LoadFS (their
// expressions compiled when the scanner first needs them), and compiled
// by LintFS, with the same expressions.
func TestBuiltinLogQueriesBySource(t *testing.T) {
	n := 0
	for _, set := range []struct {
		name   string
		fsys   fs.FS
		prefix string
	}{{"rules", rules.FS, rules.Prefix}, {"known issues", knownissues.FS, knownissues.Prefix}} {
		lazy, err := LoadFS(set.fsys, set.prefix)
		linted, probs := LintFS(set.fsys, set.prefix)
		if err != nil || len(probs) > 0 {
			t.Fatalf("%s: %v; lint: %v", set.name, err, probs)
		}
		eager := map[string]string{}
		for _, r := range linted {
			for _, s := range r.Signals {
				if s.Kind != SignalLog {
					continue
				}
				if s.Log.Regex == nil || s.Log.Source != "" {
					t.Errorf("lint: %s: Regex %v, Source %q: want it compiled", s.Log.Name, s.Log.Regex, s.Log.Source)
					continue
				}
				eager[s.Log.Name] = s.Log.Regex.String()
			}
		}
		for _, r := range lazy {
			for _, s := range r.Signals {
				if s.Kind != SignalLog {
					continue
				}
				n++
				q := s.Log
				if q.Regex != nil || q.Section != nil || q.Source == "" {
					t.Errorf("%s: Regex %v, Section %v, Source %q: want it by source", q.Name, q.Regex, q.Section, q.Source)
				}
				if e, ok := eager[q.Name]; !ok || e != q.Source {
					t.Errorf("%s: source %q; lint compiled %q", q.Name, q.Source, e)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("%d built-in log queries, want at least 40", n)
	}
}

// A user's rule still has its log expressions compiled and checked at
// load, with the same messages, where they are.
func TestUserLogRegexChecked(t *testing.T) {
	const rule = `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: r
    pattern: p
    severity: warning
    title: t
    signals:
      s:
        log: {regex: 'REGEX', section: 'SECTION'}
    condition: len(s) > 0
    summary: s
    remediation: r
`
	for _, tc := range []struct {
		regex, section string
		want           string
	}{
		{`Sink error: (sink_id=\d+`, `>>`, "10:22: rule \"r\": signals.s.log.regex: error parsing regexp: missing closing ): `Sink error: (sink_id=\\d+`"},
		{`x`, `>> (?P<w>\w+`, "10:36: rule \"r\": signals.s.log.section: error parsing regexp: missing closing ): `>> (?P<w>\\w+`"},
		{`(?P<pod>\w+)`, `>>`, `10:22: rule "r": signals.s.log.regex: capture name "pod" is a row field (pod, container, path, line, time, text, message, level, target, previous, kind, component, name)`},
		{`x`, `>>`, ""},
	} {
		f := filepath.Join(t.TempDir(), "r.yaml")
		src := strings.NewReplacer("REGEX", tc.regex, "SECTION", tc.section).Replace(rule)
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := LoadPaths([]string{f})
		if tc.want == "" {
			if err != nil || len(rs) != 1 || rs[0].Signals[0].Log.Regex == nil || rs[0].Signals[0].Log.Section == nil {
				t.Errorf("%s, %s: %v", tc.regex, tc.section, err)
			}
			continue
		}
		var probs Problems
		if !errors.As(err, &probs) || len(probs) != 1 || probs[0].Error() != f+":"+tc.want {
			t.Errorf("%s, %s: %v\nwant %s:%s", tc.regex, tc.section, err, f, tc.want)
		}
	}
}
