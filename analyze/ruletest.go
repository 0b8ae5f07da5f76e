package analyze

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/rwdiag/rwdiag/bundle"
)

// KindRuleTest heads a rule test file.
const KindRuleTest = "RuleTest"

type testFileSpec struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Tests      []TestCase `yaml:"tests"`
}

// TestCase is one rule test: a bundle (a directory or archive, relative to
// the test file), inline files laid over it, the rules to run (all when
// empty) and the findings expected, exactly.
type TestCase struct {
	Name string `yaml:"name"`
	// Shape names the RisingWave release tag(s) and source files whose
	// output the case's bundle reproduces ("v1.10.0: src/stream/src/task/
	// stream_manager.rs (actor exit), ..."); required for real-shape cases.
	Shape  string            `yaml:"shape"`
	Bundle string            `yaml:"bundle"`
	Files  map[string]string `yaml:"files"`
	Rules  []string          `yaml:"rules"`
	Expect []Expectation     `yaml:"expect"`

	file string
	fsys fs.FS // set for tests loaded from a file system, else nil
}

// Expectation is one expected finding. An empty Severity matches any;
// an empty Status means firing. Summary, when set, is an RE2 regular
// expression the finding's summary must match (the suspect it names, say);
// NotSummary one it must not match. Remediation, when set, is one the
// finding's remediation must match (the names filled into its template).
type Expectation struct {
	Rule        string `yaml:"rule"`
	Subject     string `yaml:"subject"`
	Severity    string `yaml:"severity"`
	Status      string `yaml:"status"`
	Summary     string `yaml:"summary"`
	NotSummary  string `yaml:"not_summary"`
	Remediation string `yaml:"remediation"`
	// CausedBy, when given (even empty), are exactly the rules of the
	// findings this one is linked to as "caused-by"; Explains likewise for
	// "explains" links.
	CausedBy []string `yaml:"caused_by"`
	Explains []string `yaml:"explains"`

	summary       string // the finding's, for a got expectation
	remediation   string // the finding's, for a got expectation
	summaryRE     *regexp.Regexp
	notSummary    *regexp.Regexp
	remediationRE *regexp.Regexp
}

func (e Expectation) String() string {
	s := e.Rule + " " + e.Subject
	if e.Severity != "" {
		s += " " + e.Severity
	}
	if e.Status != "" && e.Status != string(StatusFiring) {
		s += " (" + e.Status + ")"
	}
	if e.Summary != "" {
		s += fmt.Sprintf(" summary ~ %q", e.Summary)
	}
	if e.NotSummary != "" {
		s += fmt.Sprintf(" summary !~ %q", e.NotSummary)
	}
	if e.Remediation != "" {
		s += fmt.Sprintf(" remediation ~ %q", e.Remediation)
	}
	if e.CausedBy != nil {
		s += " caused_by [" + strings.Join(e.CausedBy, ", ") + "]"
	}
	if e.Explains != nil {
		s += " explains [" + strings.Join(e.Explains, ", ") + "]"
	}
	return s
}

// File is the test file the case came from.
func (c *TestCase) File() string { return c.file }

// Runs reports whether the case evaluates the rule.
func (c *TestCase) Runs(id string) bool {
	if len(c.Rules) == 0 {
		return true
	}
	for _, r := range c.Rules {
		if r == id {
			return true
		}
	}
	return false
}

// Expects reports whether the case expects the rule to fire.
func (c *TestCase) Expects(id string) bool {
	for _, e := range c.Expect {
		if e.Rule == id && (e.Status == "" || e.Status == string(StatusFiring)) {
			return true
		}
	}
	return false
}

// LoadTestPaths loads the rule test files among paths (files, or
// directories searched for *.yaml files whose kind is RuleTest).
func LoadTestPaths(paths []string) ([]*TestCase, error) {
	var cases []*TestCase
	probs := readYAMLFiles(paths, func(name string, data []byte) error {
		cs, err := parseTests(name, data, nil)
		cases = append(cases, cs...)
		return err
	})
	if len(probs) > 0 {
		return cases, probs
	}
	return cases, nil
}

// LoadTestFS loads the rule test files of a file system.
func LoadTestFS(fsys fs.FS) ([]*TestCase, error) {
	var cases []*TestCase
	var probs Problems
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if !isYAML(p) {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		cs, err := parseTests(p, data, fsys)
		cases = append(cases, cs...)
		probs = appendProblems(probs, err)
		return nil
	})
	if err != nil {
		probs = append(probs, &Problem{Msg: err.Error()})
	}
	if len(probs) > 0 {
		return cases, probs
	}
	return cases, nil
}

func parseTests(name string, data []byte, fsys fs.FS) ([]*TestCase, error) {
	l := &loader{file: name, pos: map[string]pos{}}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, Problems{l.yamlProblem(err)}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, nil
	}
	body := file.Docs[0].Body
	if topLevelString(body, "kind") != KindRuleTest {
		return nil, nil
	}
	var spec testFileSpec
	l.walk(body, reflect.TypeOf(spec), "")
	if err := yaml.NodeToValue(body, &spec); err != nil {
		return nil, append(l.probs, l.yamlProblem(err))
	}
	if spec.APIVersion != APIVersion {
		l.add("", "apiVersion", "must be %q, not %q", APIVersion, spec.APIVersion)
	}
	var cases []*TestCase
	for i := range spec.Tests {
		c := &spec.Tests[i]
		c.file, c.fsys = name, fsys
		prefix := fmt.Sprintf("tests[%d]", i)
		if c.Name == "" {
			l.add(prefix, "name", "required")
		}
		if c.Bundle == "" && len(c.Files) == 0 {
			l.add(prefix, "", "give a bundle, inline files, or both")
		}
		for j, e := range c.Expect {
			if e.Rule == "" || e.Subject == "" {
				l.add(prefix, fmt.Sprintf("expect[%d]", j), "rule and subject are required")
			}
			if e.Severity != "" {
				if _, err := ParseSeverity(e.Severity); err != nil {
					l.add(prefix, fmt.Sprintf("expect[%d].severity", j), "%v", err)
				}
			}
			if e.Status != "" && e.Status != string(StatusFiring) && e.Status != string(StatusInconclusive) {
				l.add(prefix, fmt.Sprintf("expect[%d].status", j), "want firing or inconclusive")
			}
			for field, src := range map[string]string{"summary": e.Summary, "not_summary": e.NotSummary, "remediation": e.Remediation} {
				if src == "" {
					continue
				}
				re, err := regexp.Compile(src)
				if err != nil {
					l.add(prefix, fmt.Sprintf("expect[%d].%s", j, field), "%v", err)
					continue
				}
				switch field {
				case "summary":
					c.Expect[j].summaryRE = re
				case "not_summary":
					c.Expect[j].notSummary = re
				default:
					c.Expect[j].remediationRE = re
				}
			}
		}
		cases = append(cases, c)
	}
	if len(l.probs) > 0 {
		return cases, l.probs
	}
	return cases, nil
}

// CaseResult is the outcome of one test case.
type CaseResult struct {
	Case     *TestCase
	Pass     bool
	Expected []Expectation
	Got      []Expectation
	Findings []Finding
	Err      error
	// Version is the RisingWave version the case's bundle runs, as the
	// analysis detected it ("" when it says none).
	Version string
}

// String describes a failed case the way promtool does: the case, what was
// expected and what came.
func (r CaseResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Case.file, r.Case.Name)
	if r.Err != nil {
		fmt.Fprintf(&b, "  error: %v\n", r.Err)
		return b.String()
	}
	b.WriteString("  expected:\n")
	writeExpectations(&b, r.Expected)
	b.WriteString("  got:\n")
	writeExpectations(&b, r.Got)
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  - %s %s: %s\n", f.Rule, f.Subject, f.Summary)
	}
	return b.String()
}

func writeExpectations(w io.Writer, es []Expectation) {
	if len(es) == 0 {
		fmt.Fprintln(w, "    (no findings)")
	}
	for _, e := range es {
		fmt.Fprintf(w, "    %s\n", e)
	}
}

// RunTests runs the cases whose "file: name" matches run (all when nil)
// against the rules.
func RunTests(ctx context.Context, cases []*TestCase, rules []*Rule, run *regexp.Regexp) []CaseResult {
	var results []CaseResult
	for _, c := range cases {
		if run != nil && !run.MatchString(c.Name) {
			continue
		}
		results = append(results, runCase(ctx, c, rules))
	}
	return results
}

func runCase(ctx context.Context, c *TestCase, all []*Rule) CaseResult {
	res := CaseResult{Case: c, Expected: normalize(c.Expect)}
	var rules []*Rule
	byID := map[string]bool{}
	for _, r := range all {
		if c.Runs(r.ID) {
			rules = append(rules, r)
			byID[r.ID] = true
		}
	}
	for _, id := range c.Rules {
		if !byID[id] {
			res.Err = fmt.Errorf("no loaded rule %q", id)
			return res
		}
	}
	dir, err := os.MkdirTemp("", "rwdiag-ruletest-")
	if err != nil {
		res.Err = err
		return res
	}
	defer os.RemoveAll(dir)
	if err := c.materialize(dir); err != nil {
		res.Err = err
		return res
	}
	rep, err := Analyze(ctx, dir, rules, bundle.Options{})
	if err != nil {
		res.Err = err
		return res
	}
	for _, f := range rep.Findings {
		got := Expectation{Rule: f.Rule, Subject: f.Subject, Severity: f.Severity.String(), Status: string(f.Status), summary: f.Summary, remediation: f.Remediation}
		for _, l := range f.Links {
			switch l.Relation {
			case "caused-by":
				got.CausedBy = append(got.CausedBy, l.Rule)
			case "explains":
				got.Explains = append(got.Explains, l.Rule)
			}
		}
		res.Got = append(res.Got, got)
	}
	res.Findings = rep.Findings
	res.Version = rep.Bundle.RisingWaveVersion
	res.Got = normalize(res.Got)
	res.Pass = matches(res.Expected, res.Got)
	// A rule that failed to evaluate produced no finding, which an
	// `expect: []` would take for a pass: it is a failure of the case.
	var failed []string
	for _, rr := range rep.Rules {
		if rr.Status == RuleError {
			failed = append(failed, rr.ID+": "+rr.Reason)
		}
	}
	if len(failed) > 0 {
		res.Pass = false
		res.Err = fmt.Errorf("rule evaluation failed: %s", strings.Join(failed, "; "))
	}
	return res
}

func normalize(es []Expectation) []Expectation {
	out := make([]Expectation, len(es))
	for i, e := range es {
		if e.Status == "" {
			e.Status = string(StatusFiring)
		}
		out[i] = e
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// matches pairs every expectation with one finding; an expectation without
// a severity matches any severity.
func matches(want, got []Expectation) bool {
	if len(want) != len(got) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if used[i] || g.Rule != w.Rule || g.Subject != w.Subject || g.Status != w.Status {
				continue
			}
			if w.Severity != "" && w.Severity != g.Severity {
				continue
			}
			if w.summaryRE != nil && !w.summaryRE.MatchString(g.summary) || w.notSummary != nil && w.notSummary.MatchString(g.summary) {
				continue
			}
			if w.remediationRE != nil && !w.remediationRE.MatchString(g.remediation) {
				continue
			}
			if w.CausedBy != nil && !sameRules(w.CausedBy, g.CausedBy) || w.Explains != nil && !sameRules(w.Explains, g.Explains) {
				continue
			}
			used[i], found = true, true
			break
		}
		if !found {
			return false
		}
	}
	return true
}

// materialize lays the case's bundle and inline files out in dir.
func (c *TestCase) materialize(dir string) error {
	if c.Bundle != "" {
		if err := c.copyBundle(dir); err != nil {
			return fmt.Errorf("bundle %s: %w", c.Bundle, err)
		}
	}
	for p, content := range c.Files {
		clean := path.Clean(p)
		if clean != p || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") {
			return fmt.Errorf("files: %q is not a clean relative path", p)
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (c *TestCase) copyBundle(dir string) error {
	if c.fsys != nil {
		src := path.Join(path.Dir(c.file), c.Bundle)
		sub, err := fs.Sub(c.fsys, src)
		if err != nil {
			return err
		}
		return os.CopyFS(dir, sub)
	}
	src := filepath.Join(filepath.Dir(c.file), filepath.FromSlash(c.Bundle))
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return os.CopyFS(dir, os.DirFS(src))
	}
	r, err := bundle.Open(src, bundle.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	_, _, err = bundle.Extract(r, dir)
	return err
}

// sameRules reports whether a and b name the same set of rules.
func sameRules(a, b []string) bool {
	set := func(xs []string) string {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		return strings.Join(slices.Compact(xs), "\x00")
	}
	return set(a) == set(b)
}
