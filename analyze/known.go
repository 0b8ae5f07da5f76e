package analyze

import (
	"fmt"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	version "github.com/hashicorp/go-version"

	"github.com/rwdiag/rwdiag/internal/yamlast"
)

// KindKnownIssue heads a known-issue file: one upstream RisingWave bug, the
// versions it affects, where it is fixed and its signature. See
// docs/known-issues.md.
const KindKnownIssue = "KnownIssue"

// PatternKnownIssue is the pattern of every known-issue finding, and
// FindingKindKnownIssue the kind of finding and rule result it makes.
const (
	PatternKnownIssue     = "known-issue"
	FindingKindKnownIssue = "known-issue"
)

// Known-issue statuses.
const (
	KnownFixed      = "fixed"
	KnownOpen       = "open"
	KnownWorkaround = "workaround"
)

// knownIssueSpec is the YAML form of a known-issue file. The signature
// fields (signals to evidence) are a rule's.
type knownIssueSpec struct {
	APIVersion  string                `yaml:"apiVersion"`
	Kind        string                `yaml:"kind"`
	ID          string                `yaml:"id"`
	Issue       int                   `yaml:"issue"`
	PR          []int                 `yaml:"pr"`
	Title       string                `yaml:"title"`
	Description string                `yaml:"description"`
	Severity    string                `yaml:"severity"`
	Affects     any                   `yaml:"affects"` // a string, or a list of alternatives
	FixedIn     []string              `yaml:"fixed_in"`
	Status      string                `yaml:"status"`
	Workaround  string                `yaml:"workaround"`
	Confirmed   string                `yaml:"confirmed"`
	SourceText  []sourceTextSpec      `yaml:"source_text"`
	Stale       bool                  `yaml:"stale"`
	Explains    []string              `yaml:"explains"`
	Links       []string              `yaml:"links"`
	Signals     map[string]signalSpec `yaml:"signals"`
	Requires    string                `yaml:"requires"`
	Let         []map[string]string   `yaml:"let"`
	Condition   string                `yaml:"condition"`
	Values      map[string]string     `yaml:"values"`
	Subject     subjectSpec           `yaml:"subject"`
	Summary     string                `yaml:"summary"`
	Evidence    []string              `yaml:"evidence"`
}

type sourceTextSpec struct {
	Text string `yaml:"text"`
	At   string `yaml:"at"`
	Path string `yaml:"path"`
}

// KnownIssue is what a rule compiled from a known-issue file knows of the
// upstream bug (Rule.Known).
type KnownIssue struct {
	// Issue is the risingwavelabs/risingwave issue number; 0 for a bug
	// known only by its fix PR.
	Issue int
	// PRs are the fix pull requests (backports share the number).
	PRs []int
	// Affects is the version range as written: go-version constraints,
	// alternatives joined by "||".
	Affects string
	// FixedIn are the first releases with the fix, one per release line,
	// lowest first.
	FixedIn []string
	// Status is fixed, open or workaround.
	Status     string
	Workaround string
	// Confirmed says how FixedIn was checked.
	Confirmed string
	// SourceText are texts of the signature and the release tag whose
	// source holds each: the staleness check greps for them.
	SourceText []SourceText
	// Stale: the entry acknowledges that its source text no longer
	// occurs at its tag.
	Stale bool
	// Explains are the pattern rules whose findings this bug can explain.
	Explains []string
	Links    []string

	affects []version.Constraints // alternatives
	fixed   []*version.Version    // FixedIn, parsed and sorted
}

// SourceText is a text the entry's signature matches, with the RisingWave
// release tag (and optionally the file) whose source holds it.
type SourceText struct {
	Text string
	At   string
	Path string
	// Line is where it is written in the entry's file.
	Line int
}

// KnownIssueInfo is the known issue behind a finding of kind known-issue,
// in the report.
type KnownIssueInfo struct {
	// Issue is the risingwavelabs/risingwave issue number, 0 (absent) when
	// the bug is known by its fix PR alone.
	Issue int `json:"issue,omitempty"`
	// PRs are the fix pull requests.
	PRs []int `json:"pr"`
	// Affects is the affected version range, as the entry writes it.
	Affects string `json:"affects"`
	// FixedIn are the first releases with the fix, one per release line.
	FixedIn []string `json:"fixed_in"`
	// Status is fixed, open or workaround.
	Status string `json:"status"`
	// UpgradeTo is the release to upgrade to: the fix on the cluster's
	// release line, else the lowest later one; "" without a fix.
	UpgradeTo string `json:"upgrade_to,omitempty"`
	// VersionUnknown: the bundle does not say which version runs, so the
	// signature matched but the range could not be checked.
	VersionUnknown bool     `json:"version_unknown,omitempty"`
	Workaround     string   `json:"workaround,omitempty"`
	Links          []string `json:"links"`
}

// Ref is how the report names the bug: "risingwavelabs/risingwave#17858".
func (k *KnownIssue) Ref() string {
	n := k.Issue
	if n == 0 && len(k.PRs) > 0 {
		n = k.PRs[0]
	}
	return fmt.Sprintf("risingwavelabs/risingwave#%d", n)
}

// AppliesTo reports whether RisingWave version v is in the affected range;
// an unknown or unparsable version is (the finding then says so).
func (k *KnownIssue) AppliesTo(v string) bool {
	ver := parseRunningVersion(v)
	if ver == nil {
		return true
	}
	return k.inRange(ver)
}

func (k *KnownIssue) inRange(ver *version.Version) bool {
	for _, c := range k.affects {
		if c.Check(ver) {
			return true
		}
	}
	return false
}

// parseRunningVersion parses a bundle's version to its core (v2.1.0-rc.1
// is 2.1.0); nil when there is none.
func parseRunningVersion(v string) *version.Version {
	v = normalizeVersion(v)
	if v == "" {
		return nil
	}
	ver, err := version.NewVersion(v)
	if err != nil {
		return nil
	}
	if core, err := version.NewVersion(ver.Core().String()); err == nil {
		return core
	}
	return ver
}

// UpgradeTarget is the release a cluster running v should upgrade to: the
// fix on v's release line (same major.minor) when there is one later than
// v, else the lowest fix later than v, else the highest fix; "" when there
// is no fix. An unknown v gets the lowest fix.
func (k *KnownIssue) UpgradeTarget(v string) string {
	if len(k.fixed) == 0 {
		return ""
	}
	ver := parseRunningVersion(v)
	if ver == nil {
		return tagName(k.fixed[0])
	}
	seg := ver.Segments()
	for _, f := range k.fixed {
		fs := f.Segments()
		if fs[0] == seg[0] && fs[1] == seg[1] && f.GreaterThan(ver) {
			return tagName(f)
		}
	}
	for _, f := range k.fixed {
		if f.GreaterThan(ver) {
			return tagName(f)
		}
	}
	return tagName(k.fixed[len(k.fixed)-1])
}

func tagName(v *version.Version) string { return "v" + v.String() }

// AffectsText is the range for a reader: "v1.9.0 to before v2.0.1" (or
// "v1.9.0 and later", "before v2.0.1"), alternatives joined by "and";
// the constraint as written when it has other operators.
func (k *KnownIssue) AffectsText() string {
	var parts []string
	for _, alt := range splitAlternatives(k.Affects) {
		if m := exactRE.FindStringSubmatch(alt); m != nil {
			parts = append(parts, "v"+m[1])
			continue
		}
		lo, hi, ok := rangeBounds(alt)
		if !ok {
			return k.Affects
		}
		switch {
		case lo.ver != "" && hi.ver != "":
			if hi.inclusive {
				parts = append(parts, "v"+lo.ver+" to v"+hi.ver)
			} else {
				parts = append(parts, "v"+lo.ver+" to before v"+hi.ver)
			}
		case lo.ver != "":
			parts = append(parts, "v"+lo.ver+" and later")
		case hi.ver != "":
			if hi.inclusive {
				parts = append(parts, "v"+hi.ver+" and earlier")
			} else {
				parts = append(parts, "before v"+hi.ver)
			}
		default:
			return k.Affects
		}
	}
	return strings.Join(parts, " and ")
}

func splitAlternatives(s string) []string {
	var out []string
	for alt := range strings.SplitSeq(s, "||") {
		out = append(out, strings.TrimSpace(alt))
	}
	return out
}

type bound struct {
	ver       string
	inclusive bool
}

var exactRE = regexp.MustCompile(`^=?\s*v?([0-9]+(?:\.[0-9]+)*)$`)

var boundRE = regexp.MustCompile(`^(>=|<=|>|<)\s*v?([0-9]+(?:\.[0-9]+)*)$`)

// rangeBounds reads a constraint of at most one lower (>=, >) and one upper
// (<, <=) bound; ok is false for any other shape.
func rangeBounds(alt string) (lo, hi bound, ok bool) {
	for part := range strings.SplitSeq(alt, ",") {
		m := boundRE.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return lo, hi, false
		}
		b := bound{ver: m[2], inclusive: m[1] == ">=" || m[1] == "<="}
		if m[1][0] == '>' {
			if lo.ver != "" {
				return lo, hi, false
			}
			lo = b
		} else {
			if hi.ver != "" {
				return lo, hi, false
			}
			hi = b
		}
	}
	return lo, hi, true
}

// Info is what the report says of the known issue for a cluster running v.
func (k *KnownIssue) Info(v string) *KnownIssueInfo {
	return &KnownIssueInfo{Issue: k.Issue, PRs: nonNilInts(k.PRs), Affects: k.Affects, FixedIn: nonNilStrings(k.FixedIn),
		Status: k.Status, UpgradeTo: k.UpgradeTarget(v), VersionUnknown: parseRunningVersion(v) == nil,
		Workaround: k.Workaround, Links: nonNilStrings(k.Links)}
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Text is the finding's first sentence for a cluster running v:
// "Matches risingwavelabs/risingwave#17858 (affects v1.9.0 to before v2.0.1,
// fixed in v2.0.1); this cluster runs v2.0.0: upgrade to v2.0.1 or later."
func (k *KnownIssue) Text(v string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Matches %s (affects %s", k.Ref(), k.AffectsText())
	if len(k.FixedIn) > 0 {
		b.WriteString(", fixed in " + joinAnd(k.FixedIn))
	} else {
		b.WriteString(", no fix yet")
	}
	b.WriteString(")")
	target := k.UpgradeTarget(v)
	ver := parseRunningVersion(v)
	switch {
	case ver == nil:
		b.WriteString("; the bundle does not say which RisingWave version runs (rw_version in sql/rw_worker_nodes.csv, or the image tag in kubernetes/pods.json), so whether it is affected is unknown: check with SELECT version()")
		if target != "" {
			b.WriteString(" and, if affected, upgrade to " + target + " or later")
		}
	case target != "":
		fmt.Fprintf(&b, "; this cluster runs %s: upgrade to %s or later", tagName(ver), target)
	default:
		fmt.Fprintf(&b, "; this cluster runs %s", tagName(ver))
	}
	if target == "" && k.Workaround != "" {
		b.WriteString("; workaround: " + strings.Join(strings.Fields(k.Workaround), " "))
	}
	s := b.String()
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// Remediation is the finding's remediation: the upgrade, the workaround,
// the fix PRs and links.
func (k *KnownIssue) Remediation(v string) string {
	var parts []string
	if t := k.UpgradeTarget(v); t != "" {
		s := "Upgrade RisingWave to " + t + " or later"
		if len(k.PRs) > 0 {
			var prs []string
			for _, p := range k.PRs {
				prs = append(prs, fmt.Sprintf("risingwavelabs/risingwave#%d", p))
			}
			s += " (the fix: " + joinAnd(prs) + ")"
		}
		parts = append(parts, s+".")
		if w := strings.TrimSpace(k.Workaround); w != "" {
			parts = append(parts, "Workaround until then:", w)
		}
	} else if w := strings.TrimSpace(k.Workaround); w != "" {
		parts = append(parts, "No fix yet. Workaround:", w)
	} else {
		parts = append(parts, "No fix yet: follow "+k.Ref()+".")
	}
	return strings.Join(parts, "\n\n")
}

func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// finishKnown turns a known-issue rule's results into what the report
// shows: firing findings carry the bug, its range and the upgrade target
// (at one severity lower when the version is unknown); an issue that could
// not be checked for lack of evidence gives no finding, only its result
// (the report counts those in one line).
func (r *Rule) finishKnown(v string, findings []Finding, res RuleResult) ([]Finding, RuleResult) {
	k := r.Known
	res.Kind = FindingKindKnownIssue
	out := findings[:0]
	for _, f := range findings {
		if f.Status != StatusFiring {
			continue
		}
		f.Kind = FindingKindKnownIssue
		f.KnownIssue = k.Info(v)
		text := k.Text(v)
		if extra := strings.TrimSpace(f.Summary); extra != "" {
			text += " " + extra
		}
		f.Summary = text
		f.Remediation = k.Remediation(v)
		if f.KnownIssue.VersionUnknown && f.Severity > SeverityInfo {
			f.Severity--
		}
		out = append(out, f)
	}
	if res.Status == RuleSkipped {
		res.Reason = fmt.Sprintf("RisingWave %s is outside the affected versions (%s)", v, k.AffectsText())
	}
	return out, res
}

// parseKnownIssue parses and compiles a known-issue file into a rule of
// pattern known-issue.
func (l *loader) parseKnownIssue(body ast.Node) ([]*Rule, error) {
	var spec knownIssueSpec
	l.walkKnown(body)
	if err := yaml.NodeToValue(body, &spec); err != nil {
		l.probs = append(l.probs, l.yamlProblem(err))
		return nil, l.probs
	}
	l.parsed = &cachedSpec{Kind: KindKnownIssue, Known: &spec}
	return l.compileKnownIssue(spec)
}

// compileKnownIssue checks and compiles a known-issue file's parsed form;
// the problems found so far are the walk's.
func (l *loader) compileKnownIssue(spec knownIssueSpec) ([]*Rule, error) {
	walkProblems := len(l.probs)
	l.rule = spec.ID
	for _, p := range l.probs {
		p.Rule = spec.ID
	}
	if spec.APIVersion != APIVersion {
		l.add("", "apiVersion", "must be %q, not %q", APIVersion, spec.APIVersion)
	}
	k := l.compileKnown(spec)
	summary := spec.Summary
	if strings.TrimSpace(summary) == "" {
		summary = `{{- "" -}}` // the known-issue text is the summary
	}
	sev := spec.Severity
	if sev == "" {
		sev = SeverityWarning.String()
	}
	rs := ruleSpec{ID: spec.ID, Pattern: PatternKnownIssue, Severity: sev, Title: spec.Title,
		Description: spec.Description, Signals: spec.Signals, Requires: spec.Requires, Let: spec.Let,
		Condition: spec.Condition, Values: spec.Values, Subject: spec.Subject, Summary: summary,
		Remediation: "Upgrade RisingWave, or apply the workaround.", Evidence: spec.Evidence, References: spec.Links}
	r := l.compileRule("", rs)
	// compileRule names a signal's fields ".signals.NAME...." under the
	// empty prefix: place them as the walk recorded them.
	for _, p := range l.probs {
		if path, ok := strings.CutPrefix(p.yamlPath, "."); ok {
			p.yamlPath, p.Field = path, path
			for k := path; k != ""; k = parentPath(k) {
				if ps, ok := l.pos[k]; ok {
					p.Line, p.Column = ps.line, ps.col
					break
				}
			}
		}
	}
	if r == nil || k == nil || len(l.probs) > 0 || walkProblems > 0 {
		return nil, l.probs
	}
	r.Known = k
	r.Versions = k.Affects
	return []*Rule{r}, nil
}

// walkKnown is walk for a known-issue file, whose affects is a string or
// a list of strings (the alternatives).
func (l *loader) walkKnown(body ast.Node) {
	t := reflect.TypeOf(knownIssueSpec{})
	vals, ok := yamlast.Mapping(body)
	if !ok {
		l.probAt(body, "", "want a mapping, got %s", nodeKind(body))
		return
	}
	l.pos[""] = nodePos(body)
	fields := map[string]reflect.Type{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		fields[tag] = t.Field(i).Type
		names = append(names, tag)
	}
	for _, mv := range vals {
		key := mv.Key.String()
		ft, ok := fields[key]
		switch {
		case !ok:
			l.probAt(mv.Key, key, "unknown field %q (known: %s)", key, strings.Join(names, ", "))
		case key == "affects":
			v := yamlast.Unwrap(mv.Value)
			if seq, isSeq := v.(*ast.SequenceNode); isSeq {
				l.walkAt(seq, reflect.TypeOf([]string{}), key, nodePos(mv.Key))
			} else {
				l.walkAt(v, reflect.TypeOf(""), key, nodePos(mv.Key))
			}
		default:
			l.walkAt(mv.Value, ft, key, nodePos(mv.Key))
		}
	}
}

// affectsString is affects as one string, alternatives joined by " || ".
func affectsString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case []any:
		var alts []string
		for _, a := range x {
			alts = append(alts, strings.TrimSpace(fmt.Sprint(a)))
		}
		return strings.Join(alts, " || ")
	}
	return ""
}

var knownIDRE = regexp.MustCompile(`^rw-([0-9]+)-[a-z0-9]+(-[a-z0-9]+)*$`)

// compileKnown checks the entry's bug fields; nil when one is wrong.
func (l *loader) compileKnown(s knownIssueSpec) *KnownIssue {
	before := len(l.probs)
	k := &KnownIssue{Issue: s.Issue, PRs: s.PR, Affects: affectsString(s.Affects), Status: s.Status,
		Workaround: strings.TrimSpace(s.Workaround), Confirmed: strings.TrimSpace(s.Confirmed), Stale: s.Stale,
		Explains: s.Explains, Links: s.Links}

	if s.Issue < 0 {
		l.add("", "issue", "want a positive issue number")
	}
	if s.Issue == 0 && len(s.PR) == 0 {
		l.addAt("id", "issue", "required (or pr: [N] for a bug known only by its fix)")
	}
	for i, p := range s.PR {
		if p <= 0 {
			l.add("", fmt.Sprintf("pr[%d]", i), "want a positive PR number")
		}
	}
	if m := knownIDRE.FindStringSubmatch(s.ID); m == nil {
		l.add("", "id", "%q: want rw-<issue or PR number>-<kebab-case words>, e.g. rw-17858-join-amplification-log-suppressed", s.ID)
	} else if n, _ := strconv.Atoi(m[1]); n != s.Issue && !slices.Contains(s.PR, n) {
		l.add("", "id", "%q: the number after rw- is neither the issue nor a fix PR", s.ID)
	}
	if base := strings.TrimSuffix(strings.TrimSuffix(path.Base(strings.ReplaceAll(l.file, `\`, "/")), ".yaml"), ".yml"); base != s.ID {
		l.add("", "id", "%q differs from the file name %q: name the file <id>.yaml", s.ID, base)
	}

	// The affected range: go-version constraints, alternatives by "||".
	if k.Affects == "" {
		l.addAt("id", "affects", "required: the affected versions, e.g. \">= 1.9.0, < 2.0.1\"")
	}
	rangeOK := k.Affects != "" // the checks against the range are only worth making on a good one
	for _, alt := range splitAlternatives(k.Affects) {
		if k.Affects == "" {
			break
		}
		c, err := version.NewConstraint(alt)
		if err != nil {
			l.add("", "affects", "%q: %v", alt, err)
			rangeOK = false
			continue
		}
		// A built-in entry loaded lazily (l.lazy) is not checked again:
		// its tests prove it (here and below, issue 14).
		if lo, hi, ok := rangeBounds(alt); !l.lazy && ok && lo.ver != "" && hi.ver != "" {
			lv, _ := version.NewVersion(lo.ver)
			hv, _ := version.NewVersion(hi.ver)
			if lv != nil && hv != nil && (lv.GreaterThan(hv) || lv.Equal(hv) && !(lo.inclusive && hi.inclusive)) {
				l.add("", "affects", "%q: no version is in this range", alt)
				rangeOK = false
			}
		}
		k.affects = append(k.affects, c)
	}

	switch s.Status {
	case KnownFixed:
		if len(s.FixedIn) == 0 {
			l.addAt("status", "fixed_in", "required with status fixed: the first release with the fix on each release line")
		}
		if k.Confirmed == "" {
			l.addAt("status", "confirmed", "required with status fixed: how fixed_in was checked (git log <tag> --format=%%s | grep '(#PR)')")
		}
	case KnownOpen, KnownWorkaround:
		if len(s.FixedIn) > 0 {
			l.add("", "fixed_in", "given with status %s: a bug with a released fix has status fixed", s.Status)
		}
		if k.Workaround == "" && s.Status == KnownWorkaround {
			l.addAt("status", "workaround", "required with status workaround")
		}
		if k.Workaround == "" && s.Status == KnownOpen {
			l.addAt("status", "workaround", "required with status open: what to do until it is fixed (even \"none known: restart the meta node\")")
		}
	default:
		l.addAt("id", "status", "%q: want fixed, open or workaround", s.Status)
	}
	for i, f := range s.FixedIn {
		field := fmt.Sprintf("fixed_in[%d]", i)
		if !strings.HasPrefix(f, "v") {
			l.add("", field, "%q: write the release tag, e.g. v2.0.1", f)
			continue
		}
		v, err := version.NewVersion(f)
		if err != nil {
			l.add("", field, "%q: %v", f, err)
			continue
		}
		if rangeOK && k.inRange(v) {
			l.add("", field, "%s is inside affects %q: a release with the fix cannot be affected", f, k.Affects)
		}
		k.fixed = append(k.fixed, v)
	}
	slices.SortFunc(k.fixed, func(a, b *version.Version) int { return a.Compare(b) })
	for _, v := range k.fixed {
		k.FixedIn = append(k.FixedIn, tagName(v))
	}

	if len(s.SourceText) == 0 {
		l.addAt("id", "source_text", "required: a text of the signature (a log message, a metric name) and the release tag whose source holds it, for the staleness check")
	}
	for i, st := range s.SourceText {
		field := fmt.Sprintf("source_text[%d]", i)
		if strings.TrimSpace(st.Text) == "" {
			l.add("", field+".text", "required")
		}
		line := 0
		if p, ok := l.pos[field+".text"]; ok {
			line = p.line
		}
		k.SourceText = append(k.SourceText, SourceText{Text: st.Text, At: st.At, Path: st.Path, Line: line})
		if l.lazy {
			continue
		}
		v, err := version.NewVersion(st.At)
		switch {
		case !strings.HasPrefix(st.At, "v") || err != nil:
			l.add("", field+".at", "%q: want a release tag, e.g. v2.0.0", st.At)
		case rangeOK && !k.inRange(v):
			l.add("", field+".at", "%s is outside affects %q: give an affected release (the newest, ideally)", st.At, k.Affects)
		}
		if strings.HasPrefix(st.Path, "/") || strings.Contains(st.Path, "..") {
			l.add("", field+".path", "%q: want a path inside the repository, e.g. src/stream/src/executor/hash_join.rs", st.Path)
		}
	}
	for i, e := range s.Explains {
		if !l.lazy && !idRE.MatchString(e) {
			l.add("", fmt.Sprintf("explains[%d]", i), "%q is not a kebab-case rule id", e)
		}
	}
	for i, link := range s.Links {
		if l.lazy {
			break
		}
		if u, err := url.Parse(link); err != nil || u.Scheme != "https" || u.Host == "" {
			l.add("", fmt.Sprintf("links[%d]", i), "%q: want an https:// address", link)
		}
	}
	if len(l.probs) > before {
		return nil
	}
	return k
}

// addAt is add for a field that may be absent: the problem is placed at
// the field, else at the field at (the status that requires it, say).
func (l *loader) addAt(at, field, format string, args ...any) {
	n := len(l.probs)
	l.add("", field, format, args...)
	if p := l.probs[n]; p.Line == 0 {
		if ps, ok := l.pos[at]; ok {
			p.Line, p.Column = ps.line, ps.col
		}
	}
}

// CheckExplains reports the known issues among entries whose explains name
// no rule of rules or entries (a typo would silently never link).
func CheckExplains(entries, rules []*Rule) Problems {
	ids := map[string]bool{}
	for _, set := range [][]*Rule{rules, entries} {
		for _, r := range set {
			ids[r.ID] = true
		}
	}
	var probs Problems
	for _, r := range entries {
		if r.Known == nil {
			continue
		}
		for _, e := range r.Known.Explains {
			if !ids[e] {
				probs = append(probs, &Problem{File: r.File, Rule: r.ID, Field: "explains", Msg: fmt.Sprintf("%q names no loaded rule", e)})
			}
		}
	}
	return probs
}

// linkKnownIssues links each firing known-issue finding to the firing
// findings of the rules its entry explains, as linkFindings links a cause
// rule's finding to its effect's: the known issue "explains" the pattern
// finding, which is "caused-by" it.
func linkKnownIssues(fs []Finding, rules []*Rule) {
	byID := map[string]*KnownIssue{}
	for _, r := range rules {
		if r.Known != nil && len(r.Known.Explains) > 0 {
			byID[r.ID] = r.Known
		}
	}
	if len(byID) == 0 {
		return
	}
	for i := range fs {
		cause := &fs[i]
		k := byID[cause.Rule]
		if k == nil || cause.Status != StatusFiring {
			continue
		}
		for j := range fs {
			effect := &fs[j]
			if i == j || effect.Status != StatusFiring || !slices.Contains(k.Explains, effect.Rule) {
				continue
			}
			effect.Links = append(effect.Links, Link{Relation: "caused-by", Rule: cause.Rule, Subject: cause.Subject, Fingerprint: cause.Fingerprint})
			cause.Links = append(cause.Links, Link{Relation: "explains", Rule: effect.Rule, Subject: effect.Subject, Fingerprint: effect.Fingerprint})
		}
	}
}
