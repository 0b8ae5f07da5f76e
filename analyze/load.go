package analyze

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	version "github.com/hashicorp/go-version"

	"github.com/rwdiag/rwdiag/internal/yamlast"
)

// Problem is one defect in a rule file, with its position.
type Problem struct {
	File   string
	Line   int
	Column int
	Rule   string // the rule's id, when known
	Field  string // e.g. "signals.lag.promql"
	Msg    string
	// Warning: the rule loads and runs, but lint flags it (a recursive
	// SQL CTE, a subquery step finer than any scrape interval).
	Warning bool

	yamlPath string // e.g. "rules[2].signals.lag.promql"
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString("warning: ")
	}
	if p.Rule != "" {
		fmt.Fprintf(&b, "rule %q: ", p.Rule)
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every defect found while loading rules; loading reports them
// all at once rather than stopping at the first.
type Problems []*Problem

func (ps Problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

// LoadPaths loads rule files and directories of rule files (*.yaml, *.yml;
// files whose kind is RuleTest are skipped).
func LoadPaths(paths []string) ([]*Rule, error) {
	rules, probs, _ := loadPaths(paths)
	if len(probs) > 0 {
		return rules, probs
	}
	return rules, nil
}

func loadPaths(paths []string) (rules []*Rule, probs, warns Problems) {
	probs = readYAMLFiles(paths, func(name string, data []byte) error {
		rs, ws, err := parseRules(name, data)
		rules = append(rules, rs...)
		warns = append(warns, ws...)
		return err
	})
	probs = append(probs, duplicateIDs(rules)...)
	return rules, probs, warns
}

// readYAMLFiles hands every YAML file among paths (files, or directories
// searched below) to parse, and gathers the problems of all of them.
func readYAMLFiles(paths []string, parse func(name string, data []byte) error) Problems {
	var probs Problems
	for _, p := range paths {
		files, err := ruleFiles(p)
		if err != nil {
			probs = append(probs, &Problem{File: p, Msg: err.Error()})
			continue
		}
		for _, f := range files {
			data, err := readRuleFile(f)
			if err == nil && len(data) > maxRuleFileBytes {
				err = fmt.Errorf("larger than %d MiB: not a rule file", maxRuleFileBytes>>20)
			}
			if err != nil {
				probs = append(probs, &Problem{File: f, Msg: err.Error()})
				continue
			}
			probs = appendProblems(probs, parse(f, data))
		}
	}
	return probs
}

// LoadFS loads every rule file of a file system, such as the embedded
// built-in rules; names are given as prefix + path.
func LoadFS(fsys fs.FS, prefix string) ([]*Rule, error) {
	rules, probs, _ := loadFSCached(fsys, prefix, cacheLazy)
	if len(probs) > 0 {
		return rules, probs
	}
	return rules, nil
}

func loadFS(fsys fs.FS, prefix string) (rules []*Rule, probs, warns Problems) {
	return loadFSCached(fsys, prefix, cacheEager)
}

// loadFSCached is loadFS; files whose parsed form was generated ahead
// (load_cache.go) are not parsed from their YAML unless mode is noCache,
// and with cacheLazy their rules' expressions are compiled when first
// needed.
func loadFSCached(fsys fs.FS, prefix string, mode cacheMode) (rules []*Rule, probs, warns Problems) {
	type ruleFile struct {
		name, path string
		data       []byte // nil when cached (its content matches the cache's)
		cached     *cachedFile
		rules      []*Rule
		warns      Problems
		err        error
	}
	var files []*ruleFile
	var head []byte
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// As in a directory of rule files (ruleFiles): the rule tests'
		// bundles (testdata/, 500 directories for the built-in rules)
		// hold no rules.
		if d.IsDir() && p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return fs.SkipDir
		}
		if d.IsDir() || !isYAML(p) {
			return nil
		}
		f := &ruleFile{name: prefix + p, path: p}
		if mode != noCache {
			// Read whole only what has to be parsed: a rule test is
			// known by its head (its kind: line comes first), and a file
			// the cache holds by its SHA-256, taken as it is read. Half
			// the built-in YAML is tests; copying it all cost 3% of
			// analysing a small bundle.
			var entry *cachedFile
			if c, found := builtinCache[f.name]; found {
				entry = &c
			}
			var kind string
			var match bool
			kind, match, head, err = sniffRuleFile(fsys, p, entry, head)
			if err != nil {
				return err
			}
			if kind == KindRuleTest {
				return nil
			}
			if match {
				f.cached = entry
				files = append(files, f)
				return nil
			}
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		// A rule test holds no rules: parseRules would parse it whole to
		// find that out. `rwdiag rules test` (ruletest.go) reads them.
		if topLevelKind(data) == KindRuleTest {
			return nil
		}
		f.data = data
		files = append(files, f)
		return nil
	})
	// Files are independent: parse and compile them on every core, and
	// gather the results in the walk's order, so that rules, problems and
	// warnings come out as they would one file after another.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(files)); i = next.Add(1) - 1 {
				f := files[i]
				if f.cached != nil {
					var ok bool
					if f.rules, f.warns, ok = fromCache(f.name, f.cached, mode == cacheLazy); ok {
						continue
					}
					// A problem in the file: parseRules says where.
					if f.data, f.err = fs.ReadFile(fsys, f.path); f.err != nil {
						continue
					}
				} else if mode != noCache {
					var ok bool
					if f.rules, f.warns, ok = parseCached(f.name, f.data, mode == cacheLazy); ok {
						continue
					}
				}
				f.rules, f.warns, f.err = parseRules(f.name, f.data)
			}
		}()
	}
	wg.Wait()
	for _, f := range files {
		rules = append(rules, f.rules...)
		warns = append(warns, f.warns...)
		probs = appendProblems(probs, f.err)
	}
	if err != nil {
		probs = append(probs, &Problem{File: prefix, Msg: err.Error()})
	}
	probs = append(probs, duplicateIDs(rules)...)
	return rules, probs, warns
}

// sniffHeadBytes is how much of a rule file sniffRuleFile reads to find
// its kind.
const sniffHeadBytes = 4 << 10

// sniffRuleFile reads the file p of fsys through buf (grown as needed and
// returned, for the next file) without keeping it: kind is its top-level
// kind when its head (sniffHeadBytes) holds the whole line, else "", and
// match whether its SHA-256 is c's (c nil: not read past the head).
func sniffRuleFile(fsys fs.FS, p string, c *cachedFile, buf []byte) (kind string, match bool, _ []byte, err error) {
	if cap(buf) < sniffHeadBytes {
		buf = make([]byte, 32<<10)
	}
	buf = buf[:cap(buf)]
	f, err := fsys.Open(p)
	if err != nil {
		return "", false, buf, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf[:sniffHeadBytes])
	end := err == io.EOF || err == io.ErrUnexpectedEOF // the file is shorter than the head
	if err != nil && !end {
		return "", false, buf, err
	}
	h := buf[:n]
	if !end {
		// Only whole lines: a kind: line cut at the head's end is no answer.
		h = h[:bytes.LastIndexByte(h, '\n')+1]
	}
	kind = topLevelKind(h)
	if kind == KindRuleTest || c == nil {
		return kind, false, buf, nil
	}
	sum := sha256.New()
	sum.Write(buf[:n])
	if !end {
		if _, err := io.CopyBuffer(sum, f, buf); err != nil {
			return kind, false, buf, err
		}
	}
	return kind, hex.EncodeToString(sum.Sum(nil)) == c.sum, buf, nil
}

// topLevelKind is the value of a file's first top-level "kind:" line, found
// without parsing the YAML (to skip rule tests); "" when there is none.
func topLevelKind(data []byte) string {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		v, ok := bytes.CutPrefix(line, []byte("kind:"))
		if !ok {
			continue
		}
		if i := bytes.Index(v, []byte(" #")); i >= 0 {
			v = v[:i]
		}
		return strings.Trim(string(v), "\"' \t\r")
	}
	return ""
}

// Merge lays extra rules over base ones: a rule with the same id replaces
// the base rule. Rules whose ids are in disable are dropped; an id in
// disable that names no rule is an error.
func Merge(base, extra []*Rule, disable []string) ([]*Rule, error) {
	byID := map[string]*Rule{}
	var order []string
	for _, set := range [][]*Rule{base, extra} {
		for _, r := range set {
			if _, seen := byID[r.ID]; !seen {
				order = append(order, r.ID)
			}
			byID[r.ID] = r
		}
	}
	var unknown []string
	for _, id := range disable {
		if _, ok := byID[id]; !ok {
			unknown = append(unknown, id)
		}
		delete(byID, id)
	}
	var out []*Rule
	for _, id := range order {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	if len(unknown) > 0 {
		return out, fmt.Errorf("--disable names no loaded rule: %s", strings.Join(unknown, ", "))
	}
	return out, nil
}

func appendProblems(probs Problems, err error) Problems {
	if err == nil {
		return probs
	}
	var ps Problems
	if errors.As(err, &ps) {
		return append(probs, ps...)
	}
	return append(probs, &Problem{Msg: err.Error()})
}

func duplicateIDs(rules []*Rule) Problems {
	var probs Problems
	seen := map[string]*Rule{}
	for _, r := range rules {
		if first, dup := seen[r.ID]; dup {
			probs = append(probs, &Problem{File: r.File, Rule: r.ID, Field: "id",
				Msg: fmt.Sprintf("duplicate rule id, first defined in %s", first.File)})
			continue
		}
		seen[r.ID] = r
	}
	return probs
}

// readRuleFile reads a file of at most maxRuleFileBytes (one byte more, to
// tell it is larger).
func readRuleFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxRuleFileBytes+1))
}

func isYAML(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}

func ruleFiles(p string) ([]string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && f != p && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && isYAML(f) {
			files = append(files, f)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// ParseRules parses and compiles one rule file. A file whose kind is
// RuleTest holds no rules and yields none.
func ParseRules(name string, data []byte) ([]*Rule, error) {
	rules, _, err := parseRules(name, data)
	return rules, err
}

// parseRules is ParseRules that also returns lint's warnings.
func parseRules(name string, data []byte) ([]*Rule, Problems, error) {
	l := &loader{file: name, pos: map[string]pos{}}
	rules, err := l.parse(data)
	return rules, l.warns, err
}

func (l *loader) parse(data []byte) ([]*Rule, error) {
	name := l.file
	if err := checkRuleFileShape(data); err != nil {
		return nil, Problems{{File: name, Msg: err.Error()}}
	}
	l.lines = strings.Split(string(data), "\n")
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, Problems{l.yamlProblem(err)}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, Problems{{File: name, Msg: "want exactly one YAML document"}}
	}
	body := file.Docs[0].Body
	// Aliases repeat what they name: a few lines can stand for millions of
	// expressions (a "billion laughs"). Rule files write values out.
	for _, typ := range []ast.NodeType{ast.AliasType, ast.MergeKeyType} {
		if nodes := ast.Filter(typ, body); len(nodes) > 0 {
			ps := nodePos(nodes[0])
			return nil, Problems{{File: name, Line: ps.line, Column: ps.col,
				Msg: "YAML aliases (*name) and merge keys (<<) are not supported in rule files: write the value out"}}
		}
	}
	switch topLevelString(body, "kind") {
	case KindRuleTest:
		return nil, nil
	case KindKnownIssue:
		return l.parseKnownIssue(body)
	}
	var spec ruleSetSpec
	l.walk(body, reflect.TypeOf(spec), "")
	if err := yaml.NodeToValue(body, &spec); err != nil {
		l.probs = append(l.probs, l.yamlProblem(err))
		return nil, l.probs
	}
	l.parsed = &cachedSpec{Kind: KindRuleSet, RuleSet: &spec}
	// Name the rule in problems found by walk before the ids were known.
	for _, p := range l.probs {
		var i int
		if _, err := fmt.Sscanf(p.yamlPath, "rules[%d]", &i); err == nil && i < len(spec.Rules) {
			p.Rule = spec.Rules[i].ID
		}
	}
	return l.compileRuleSet(spec)
}

// compileRuleSet checks and compiles a rule set's parsed form.
func (l *loader) compileRuleSet(spec ruleSetSpec) ([]*Rule, error) {
	if spec.APIVersion != APIVersion {
		l.add("", "apiVersion", "must be %q, not %q", APIVersion, spec.APIVersion)
	}
	if spec.Kind != KindRuleSet {
		l.add("", "kind", "must be %q, not %q", KindRuleSet, spec.Kind)
	}
	if len(spec.Rules) == 0 && len(l.probs) == 0 {
		l.add("", "rules", "no rules")
	}
	var rules []*Rule
	for i, rs := range spec.Rules {
		if r := l.compileRule(fmt.Sprintf("rules[%d]", i), rs); r != nil {
			rules = append(rules, r)
		}
	}
	if len(l.probs) > 0 {
		return rules, l.probs
	}
	return rules, nil
}

// Rule files are small (the built-in ones are under 64 KiB); these bound
// what a hostile one costs the YAML parser, which is slow on deep nesting.
const (
	maxRuleFileBytes = 4 << 20
	maxRuleNesting   = 64
)

// checkRuleFileShape rejects a rule file too large, or with brackets nested
// too deep, to be a rule file, before it is parsed.
func checkRuleFileShape(data []byte) error {
	if len(data) > maxRuleFileBytes {
		return fmt.Errorf("larger than %d MiB: not a rule file", maxRuleFileBytes>>20)
	}
	depth, line := 0, 1
	for _, c := range data {
		switch c {
		case '[', '{', '(':
			depth++
			if depth > maxRuleNesting {
				return fmt.Errorf("line %d: brackets nested more than %d deep: not a rule file", line, maxRuleNesting)
			}
		case ']', '}', ')':
			depth = max(depth-1, 0)
		case '\n':
			line++
		}
	}
	return nil
}

type pos struct{ line, col int }

type loader struct {
	file  string
	pos   map[string]pos // yaml path ("rules[0].signals.lag.promql") -> value position
	probs Problems
	warns Problems
	rule  string
	lines []string // the file's lines, for positions the parser leaves out
	// witness bounds the expressions run while loading the file (see
	// typeWitness).
	witness *budget
	// parsed is the file's parsed form, once decoded from YAML: what the
	// built-in cache stores (load_cache.go).
	parsed *cachedSpec
	// lazy defers compiling a rule's expressions (but requires) until it
	// is first decided, and skips the checks of its queries that cannot
	// fail: for the built-in rules, which their tests prove compile and
	// check clean (load_cache.go).
	lazy bool
	// exprs, when set, compiles the expressions with reused expr
	// configurations (load_expr.go): the built-in rules loaded lazily.
	exprs *exprCompiler
}

func (l *loader) yamlProblem(err error) *Problem {
	p := &Problem{File: l.file, Msg: err.Error()}
	// goccy's errors carry the position as "[line:col] msg".
	msg := err.Error()
	if m := yamlPosRE.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Column, _ = strconv.Atoi(m[2])
		p.Msg = strings.TrimSpace(firstLineOf(msg[len(m[0]):]))
	}
	return p
}

var yamlPosRE = regexp.MustCompile(`^\[(\d+):(\d+)\]`)

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// add records a problem at the position of a YAML path under the current
// rule's prefix.
func (l *loader) add(prefix, field, format string, args ...any) {
	full := joinPath(prefix, field)
	p := &Problem{File: l.file, Rule: l.rule, Field: stripRulePrefix(full), Msg: fmt.Sprintf(format, args...), yamlPath: full}
	// Find the nearest position: the field itself, else its parents.
	for k := full; k != ""; k = parentPath(k) {
		if ps, ok := l.pos[k]; ok {
			p.Line, p.Column = ps.line, ps.col
			break
		}
	}
	l.probs = append(l.probs, p)
}

// warn records a warning, as add records a problem.
func (l *loader) warn(prefix, field, format string, args ...any) {
	n := len(l.probs)
	l.add(prefix, field, format, args...)
	p := l.probs[n]
	l.probs = l.probs[:n]
	p.Warning = true
	l.warns = append(l.warns, p)
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

func nodePos(n ast.Node) pos {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return pos{}
	}
	p := n.GetToken().Position
	return pos{p.Line, p.Column}
}

func topLevelString(body ast.Node, key string) string {
	vals, _ := yamlast.Mapping(body)
	for _, mv := range vals {
		if mv.Key.String() == key {
			return strings.Trim(mv.Value.String(), `"' `)
		}
	}
	return ""
}

// walk records the position of every value and reports keys that the
// target type does not have, all of them, before decoding.
func (l *loader) walk(n ast.Node, t reflect.Type, path string) {
	l.walkAt(n, t, path, pos{})
}

// walkAt is walk with the position of the key that holds n: problems with a
// whole mapping or list point at its key, problems with a scalar at the value.
func (l *loader) walkAt(n ast.Node, t reflect.Type, path string, key pos) {
	if n == nil {
		return
	}
	n = yamlast.Unwrap(n)
	switch v := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
		l.pos[path] = key
		if key == (pos{}) {
			l.pos[path] = nodePos(n)
		}
	case *ast.LiteralNode:
		// A block scalar (| or >): point at its first line, not the
		// indicator, where its text begins (the parser says column 0).
		ps := nodePos(v.Value)
		if ps.col == 0 && ps.line > 0 && ps.line <= len(l.lines) {
			line := l.lines[ps.line-1]
			ps.col = len(line) - len(strings.TrimLeft(line, " ")) + 1
		}
		l.pos[path] = ps
	default:
		l.pos[path] = nodePos(n)
	}
	if _, isNull := n.(*ast.NullNode); isNull {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		vals, ok := yamlast.Mapping(n)
		if !ok {
			l.probAt(n, path, "want a mapping, got %s", nodeKind(n))
			return
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
				names = append(names, tag)
			}
		}
		for _, mv := range vals {
			key := mv.Key.String()
			ft, ok := fields[key]
			if !ok {
				l.probAt(mv.Key, joinPath(path, key), "unknown field %q (known: %s)", key, strings.Join(names, ", "))
				continue
			}
			l.walkAt(mv.Value, ft, joinPath(path, key), nodePos(mv.Key))
		}
	case reflect.Map:
		vals, ok := yamlast.Mapping(n)
		if !ok {
			l.probAt(n, path, "want a mapping, got %s", nodeKind(n))
			return
		}
		for _, mv := range vals {
			l.walkAt(mv.Value, t.Elem(), joinPath(path, mv.Key.String()), nodePos(mv.Key))
		}
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			l.probAt(n, path, "want a list, got %s", nodeKind(n))
			return
		}
		for i, v := range seq.Values {
			l.walkAt(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), pos{})
		}
	default:
		if _, scalar := n.(ast.ScalarNode); !scalar {
			l.probAt(n, path, "want a %s, got %s", t.Kind(), nodeKind(n))
		}
	}
}

func (l *loader) probAt(n ast.Node, path, format string, args ...any) {
	ps := nodePos(n)
	l.probs = append(l.probs, &Problem{File: l.file, Line: ps.line, Column: ps.col,
		Field: stripRulePrefix(path), Msg: fmt.Sprintf(format, args...), yamlPath: path})
}

var rulePrefixRE = regexp.MustCompile(`^rules\[\d+\]\.?`)

func stripRulePrefix(p string) string {
	if s := rulePrefixRE.ReplaceAllString(p, ""); s != "" {
		return s
	}
	return p
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	if key == "" {
		return path
	}
	return path + "." + key
}

func nodeKind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	return "a scalar"
}

var (
	idRE     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	signalRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
)

// reserved names cannot name a signal: the condition's environment has them.
var reserved = map[string]bool{"subject": true, "subject_kind": true, "subject_id": true, "values": true, "bundle": true, "cluster": true, "available": true}

func (l *loader) compileRule(prefix string, rs ruleSpec) *Rule {
	l.rule = rs.ID
	before := len(l.probs)
	for _, p := range l.probs {
		if strings.HasPrefix(p.yamlPath, prefix+".") {
			before-- // the walk found a defect in this rule: do not run it
		}
	}
	r := &Rule{ID: rs.ID, Pattern: rs.Pattern, Title: strings.TrimSpace(rs.Title),
		Description: strings.TrimSpace(rs.Description), Remediation: strings.TrimSpace(rs.Remediation),
		References: rs.References, File: l.file, Versions: rs.Versions, evidence: rs.Evidence}
	if !idRE.MatchString(rs.ID) {
		l.add(prefix, "id", "%q is not a kebab-case id", rs.ID)
	}
	for i, c := range rs.CausedBy {
		if !idRE.MatchString(c) {
			l.add(prefix, fmt.Sprintf("caused_by[%d]", i), "%q is not a kebab-case rule id", c)
		} else if c == rs.ID {
			l.add(prefix, fmt.Sprintf("caused_by[%d]", i), "a rule cannot cause itself")
		}
	}
	r.CausedBy = rs.CausedBy
	for i, d := range rs.DeferTo {
		if !slices.Contains(rs.CausedBy, d) {
			l.add(prefix, fmt.Sprintf("defer_to[%d]", i), "%q is not in caused_by", d)
		}
	}
	r.DeferTo = rs.DeferTo
	switch rs.CausedByMatch {
	case "", "pod":
		if rs.CausedByMatch != "" && len(rs.CausedBy) == 0 {
			l.add(prefix, "caused_by_match", "has no effect without caused_by")
		}
		r.CausedByMatch = rs.CausedByMatch
	default:
		l.add(prefix, "caused_by_match", "%q: want pod, or leave it out", rs.CausedByMatch)
	}
	if !idRE.MatchString(rs.Pattern) {
		l.add(prefix, "pattern", "%q is not a kebab-case pattern name", rs.Pattern)
	}
	sev, err := ParseSeverity(rs.Severity)
	if err != nil {
		l.add(prefix, "severity", "%v", err)
	}
	r.Severity = sev
	for field, v := range map[string]string{"title": rs.Title, "condition": rs.Condition, "summary": rs.Summary, "remediation": rs.Remediation} {
		if strings.TrimSpace(v) == "" {
			l.add(prefix, field, "required")
		}
	}
	if rs.Versions != "" {
		c, err := version.NewConstraint(rs.Versions)
		if err != nil {
			l.add(prefix, "versions", "%v", err)
		}
		r.versions = c
	}

	// Signals.
	if len(rs.Signals) == 0 {
		l.add(prefix, "signals", "a rule needs at least one signal")
	}
	names := make([]string, 0, len(rs.Signals))
	for name := range rs.Signals {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sp := prefix + ".signals." + name
		if !signalRE.MatchString(name) || reserved[name] {
			l.add(prefix, "signals."+name, "signal names must be lower_snake_case identifiers other than %s", strings.Join(slices.Sorted(mapsKeys(reserved)), ", "))
			continue
		}
		if s := l.compileSignal(sp, name, rs.Signals[name]); s != nil {
			r.Signals = append(r.Signals, s)
		}
	}
	for i, e := range rs.Evidence {
		if _, ok := rs.Signals[e]; !ok {
			l.add(prefix, fmt.Sprintf("evidence[%d]", i), "no signal named %q", e)
		}
	}

	// Expressions. Deferred (l.lazy), they are compiled when the rule is
	// first decided (Rule.compiled), requires when it is first evaluated
	// within its versions (Rule.compiledRequires: on the small sample 14
	// of 29 rules are not); the subject's kind, which every finding shows,
	// is not deferred.
	if l.lazy {
		r.requiresNames = requiresNames(rs)
		l.compileSubject(prefix, rs, nil, r)
		file, pos := l.file, l.pos
		var env map[string]any // the lets' witnesses, for the values
		deferCompile(r, func() error {
			ll := &loader{file: file, pos: pos, rule: rs.ID, exprs: &exprCompiler{}}
			ll.compileRequires(prefix, rs, names, r)
			if len(ll.probs) > 0 {
				return ll.probs
			}
			return nil
		}, func() error {
			ll := &loader{file: file, pos: pos, rule: rs.ID, exprs: &exprCompiler{}}
			env = conditionEnv(names)
			ll.compileLets(prefix, rs, env, r)
			ll.compileDecision(prefix, rs, env, r)
			ll.compileSubjectExprs(prefix, rs, env, r)
			if len(ll.probs) > 0 {
				return ll.probs
			}
			return nil
		}, func() error {
			// Only a firing finding has values and a summary: a rule
			// that passes never compiles them.
			ll := &loader{file: file, pos: pos, rule: rs.ID, exprs: &exprCompiler{}}
			ll.compileValues(prefix, rs, env, r)
			ll.compileSummary(prefix, rs, r)
			if len(ll.probs) > 0 {
				return ll.probs
			}
			return nil
		})
	} else {
		env := conditionEnv(names)
		l.compileLets(prefix, rs, env, r)
		l.compileRequires(prefix, rs, names, r)
		l.compileDecision(prefix, rs, env, r)
		l.compileValues(prefix, rs, env, r)
		l.compileSubject(prefix, rs, env, r)
	}

	if !l.lazy {
		l.compileSummary(prefix, rs, r)
	}

	// The remediation is a template too, so that it can name the subject
	// and the rule's values ({{ or .subject_name "<mv>" }}); without
	// names (an inconclusive finding) its placeholders stay. Text with no
	// action is what it runs to: it is not parsed (issue 14: 16 known
	// issues' parses and runs at every start).
	if !strings.Contains(r.Remediation, "{{") && int64(len(r.Remediation)) <= DefaultBudget.SummaryBytes {
		r.remediationPlain, r.remediationDefault = true, strings.TrimSpace(r.Remediation)
		if len(l.probs) > before {
			return nil
		}
		return r
	}
	rem, err := template.New(rs.ID + ".remediation").Funcs(templateFuncs).Option("missingkey=zero").Parse(r.Remediation)
	if err == nil {
		err = instrumentTemplate(rem)
	}
	if err != nil {
		l.add(prefix, "remediation", "%v", err)
	} else {
		r.remediation = rem
		def, err := newBudget(context.Background(), DefaultBudget).execSummary(rem, map[string]any{"values": map[string]any{}, "bundle": map[string]any{}, "cluster": map[string]any{}})
		if err != nil {
			l.add(prefix, "remediation", "with no names known (an inconclusive finding): %v", err)
		}
		r.remediationDefault = strings.TrimSpace(def)
	}

	if len(l.probs) > before {
		return nil
	}
	return r
}

// compileLets compiles a rule's lets, in order, each type-checked against
// the signals and the lets before it (added to env).
func (l *loader) compileLets(prefix string, rs ruleSpec, env map[string]any, r *Rule) {
	for i, item := range rs.Let {
		field := fmt.Sprintf("let[%d]", i)
		if len(item) != 1 {
			l.add(prefix, field, "want one name: expression per item, got %d", len(item))
			continue
		}
		for name, src := range item {
			_, isSignal := rs.Signals[name]
			_, taken := env[name]
			switch {
			case !signalRE.MatchString(name):
				l.add(prefix, field, "%q is not a lower_snake_case name", name)
			case reserved[name] || isSignal || taken:
				l.add(prefix, field, "%q is already a signal or a reserved name", name)
			default:
				p := l.compileExpr(prefix, field+"."+name, src, env)
				if p != nil {
					r.lets = append(r.lets, namedProgram{name: name, prog: p})
				}
				if l.witness == nil {
					l.witness = newBudget(nil, witnessBudget)
				}
				env[name] = typeWitness(p, env, l.witness)
			}
		}
	}
}

// compileRequires compiles a rule's requires expression.
func (l *loader) compileRequires(prefix string, rs ruleSpec, names []string, r *Rule) {
	if rs.Requires != "" {
		availEnv := map[string]any{budgetKey: (*budget)(nil)}
		for _, n := range names {
			availEnv[n] = false
		}
		r.requires = l.compileExpr(prefix, "requires", rs.Requires, availEnv, expr.AsBool())
		if r.requiresNames == nil {
			// Deferred (Rule.compiledRequires), loading set them already,
			// and other analyses of the same rules may be reading them.
			r.requiresNames = requiresNames(rs)
		}
	}
}

// requiresNames are the signals a rule's requires names; nil without
// requires.
func requiresNames(rs ruleSpec) map[string]bool {
	if rs.Requires == "" {
		return nil
	}
	names := map[string]bool{}
	for _, id := range identRE.FindAllString(rs.Requires, -1) {
		if _, ok := rs.Signals[id]; ok {
			names[id] = true
		}
	}
	return names
}

// compileDecision compiles a rule's undecided and condition.
func (l *loader) compileDecision(prefix string, rs ruleSpec, env map[string]any, r *Rule) {
	if u := rs.Undecided; u != nil {
		if u.When == "" || strings.TrimSpace(u.Reason) == "" {
			l.add(prefix, "undecided", "needs when and reason")
		} else {
			r.undecided = l.compileExpr(prefix, "undecided.when", u.When, env, expr.AsBool())
			r.undecidedReason = strings.TrimSpace(u.Reason)
			r.undecidedCollect = strings.TrimSpace(u.Collect)
		}
	}
	r.condition = l.compileExpr(prefix, "condition", rs.Condition, env, expr.AsBool())
}

// compileSummary parses a rule's summary template.
func (l *loader) compileSummary(prefix string, rs ruleSpec, r *Rule) {
	tmpl, err := template.New(rs.ID).Funcs(templateFuncs).Option("missingkey=zero").Parse(rs.Summary)
	if err == nil {
		err = instrumentTemplate(tmpl)
	}
	if err != nil {
		l.add(prefix, "summary", "%v", err)
	}
	r.summary = tmpl
}

// compileValues compiles a rule's values.
func (l *loader) compileValues(prefix string, rs ruleSpec, env map[string]any, r *Rule) {
	valueNames := make([]string, 0, len(rs.Values))
	for n := range rs.Values {
		valueNames = append(valueNames, n)
	}
	sort.Strings(valueNames)
	for _, n := range valueNames {
		if p := l.compileExpr(prefix, "values."+n, rs.Values[n], env); p != nil {
			r.values = append(r.values, namedProgram{n, p})
		}
	}
}

// compileSubject sets a rule's subject: its kind and field, and its
// expressions compiled against env; with env nil (deferred: see
// compileRule) they are left to compileSubjectExprs, and taken to compile.
func (l *loader) compileSubject(prefix string, rs ruleSpec, env map[string]any, r *Rule) {
	r.SubjectKind = rs.Subject.Kind
	hasExpr := false
	switch {
	case rs.Subject.Field != "" && rs.Subject.Expr != "":
		l.add(prefix, "subject", "give either field or expr, not both")
	case rs.Subject.Field != "":
		r.subjectField = rs.Subject.Field
	case rs.Subject.Expr != "":
		if env != nil {
			r.subjectExpr = l.compileExpr(prefix, "subject.expr", rs.Subject.Expr, env)
			hasExpr = r.subjectExpr != nil
		} else {
			hasExpr = strings.TrimSpace(rs.Subject.Expr) != ""
		}
	}
	if rs.Subject.Name != "" {
		if r.subjectField == "" {
			l.add(prefix, "subject.name", "only with subject.field")
		} else if env != nil {
			r.subjectName = l.compileExpr(prefix, "subject.name", rs.Subject.Name, env)
		}
	}
	if r.SubjectKind == "" {
		if r.subjectField == "" && !hasExpr {
			r.SubjectKind = "cluster"
		} else {
			l.add(prefix, "subject.kind", "required with subject.field or subject.expr (pod, sink, source, materialized-view, ...)")
		}
	}
}

// compileSubjectExprs compiles the subject expressions compileSubject
// left, with env nil.
func (l *loader) compileSubjectExprs(prefix string, rs ruleSpec, env map[string]any, r *Rule) {
	if rs.Subject.Field == "" && rs.Subject.Expr != "" {
		r.subjectExpr = l.compileExpr(prefix, "subject.expr", rs.Subject.Expr, env)
	}
	if rs.Subject.Name != "" && r.subjectField != "" {
		r.subjectName = l.compileExpr(prefix, "subject.name", rs.Subject.Name, env)
	}
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (l *loader) compileExpr(prefix, field, src string, env map[string]any, opts ...expr.Option) *vm.Program {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	var prog *vm.Program
	var err error
	if l.exprs != nil {
		prog, err = l.exprs.compile(src, env, opts...)
	} else {
		all := append([]expr.Option{expr.Env(env)}, exprFunctions()...)
		all = append(all, tickFunctions()...)
		all = append(all, expr.Patch(budgetPatcher{}))
		all = append(all, opts...)
		prog, err = expr.Compile(src, all...)
	}
	if err != nil {
		l.add(prefix, field, "%s", oneLine(err.Error()))
		return nil
	}
	return prog
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	// expr's errors draw a caret under the source on extra lines; keep the
	// message and the caret line readable on one line.
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}

// typeWitness is a value of the type a compiled expression yields, for
// type-checking the expressions that use its result: the zero value when
// the type is known; else what it yields on the type-checking environment
// (empty rows), e.g. [] for `c ? split(...) : []`, which can be indexed;
// else a pointer to an empty interface, which the checker lets be used as
// most things.
//
// Every witness of a file runs within one budget (b), so a file of many
// costly lets cannot make loading slow: once it is spent, witnesses are the
// pointer.
func typeWitness(p *vm.Program, env map[string]any, b *budget) (w any) {
	var v any
	w = &v
	if p == nil {
		return w
	}
	if t := p.Node().Type(); t != nil && t.Kind() != reflect.Interface {
		return reflect.Zero(t).Interface()
	}
	defer func() { _ = recover() }() // a witness only; the rule's own run reports errors
	if b.err != nil {
		return w
	}
	env[budgetKey] = b
	defer func() { env[budgetKey] = (*budget)(nil) }()
	if out, err := expr.Run(p, env); err == nil && out != nil {
		return out
	}
	return w
}

// conditionEnv is the environment a condition, value or subject expression
// is type-checked against.
func conditionEnv(signals []string) map[string]any {
	cluster := map[string][]Row{}
	env := map[string]any{
		"subject":      "",
		"subject_kind": "",
		"subject_id":   "",
		"cluster":      cluster,
		"bundle":       map[string]any{"time": time.Time{}, "version": "", "namespace": ""},
		budgetKey:      (*budget)(nil),
	}
	available := map[string]bool{}
	for _, n := range signals {
		env[n] = []Row{}
		cluster[n] = []Row{}
		available[n] = false
	}
	env["available"] = available
	return env
}
