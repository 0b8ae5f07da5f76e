package analyze

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/expr-lang/expr/vm"
	version "github.com/hashicorp/go-version"

	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/analyze/metrics"
	"github.com/rwdiag/rwdiag/analyze/sqlstore"
	"github.com/rwdiag/rwdiag/bundle"
	knownissues "github.com/rwdiag/rwdiag/known-issues"
	"github.com/rwdiag/rwdiag/rules"
)

var updateBuiltinCache = flag.Bool("update-builtin-cache", false, "write load_cache_gen.go from the embedded rule files")

const builtinCacheFile = "load_cache_gen.go"

// builtinSets are the embedded rule sets the cache is generated from.
var builtinSets = []struct {
	fsys   fs.FS
	prefix string
}{{rules.FS, rules.Prefix}, {knownissues.FS, knownissues.Prefix}}

// parsedYAML is a rule file parsed from its YAML the slow way: its parsed
// form with positions (by key), or nil when it has a problem (it is not
// cached).
func parsedYAML(name string, data []byte) (*cachedSpec, []*Rule) {
	l := &loader{file: name, pos: map[string]pos{}}
	rs, err := l.parse(data)
	if err != nil || len(l.probs) > 0 || l.parsed == nil {
		return nil, nil
	}
	spec := *l.parsed
	for _, k := range slices.Sorted(mapKeys(l.pos)) {
		spec.Pos = append(spec.Pos, posEntry{k, l.pos[k].line, l.pos[k].col})
	}
	return &spec, rs
}

// goLiteral writes v as a Go expression of its type, for a generated file:
// zero struct fields left out, map keys sorted.
func goLiteral(b *bytes.Buffer, v reflect.Value) {
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64, reflect.Int32:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float64:
		fmt.Fprintf(b, "float64(%s)", strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("&")
		goLiteral(b, v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.String {
			// An untyped constant in an interface is a string: say so.
			fmt.Fprintf(b, "string(%s)", strconv.Quote(e.String()))
			return
		}
		goLiteral(b, e)
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString(goType(t) + "{")
		for i := 0; i < v.Len(); i++ {
			goLiteral(b, v.Index(i))
			b.WriteString(", ")
		}
		b.WriteString("}")
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString(goType(t) + "{")
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		for _, k := range keys {
			goLiteral(b, k)
			b.WriteString(": ")
			goLiteral(b, v.MapIndex(k))
			b.WriteString(", ")
		}
		b.WriteString("}")
	case reflect.Struct:
		if !v.CanAddr() {
			c := reflect.New(t).Elem()
			c.Set(v)
			v = c
		}
		b.WriteString(goType(t) + "{")
		for i := 0; i < t.NumField(); i++ {
			f := v.Field(i)
			if f.IsZero() {
				continue
			}
			b.WriteString(t.Field(i).Name + ": ")
			goLiteral(b, reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem())
			b.WriteString(", ")
		}
		b.WriteString("}")
	default:
		panic(fmt.Sprintf("goLiteral: %s", t))
	}
}

// goType is how the generated file names type t.
func goType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + goType(t.Elem())
	case reflect.Map:
		return "map[" + goType(t.Key()) + "]" + goType(t.Elem())
	case reflect.Pointer:
		return "*" + goType(t.Elem())
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any"
		}
	}
	if t.Name() == "" {
		panic(fmt.Sprintf("goType: %s", t))
	}
	return t.Name()
}

// builtinRuleFiles calls fn with every embedded rule file loadFS parses.
func builtinRuleFiles(t *testing.T, fn func(name string, data []byte)) {
	t.Helper()
	for _, set := range builtinSets {
		err := fs.WalkDir(set.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() || !isYAML(p) {
				return err
			}
			data, err := fs.ReadFile(set.fsys, p)
			if err != nil {
				return err
			}
			if topLevelKind(data) != KindRuleTest {
				fn(set.prefix+p, data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// gatherSQL are the queries Gather asks of every bundle's SQL store, given
// ahead answers too (a query that changes is asked of SQLite again).
var gatherSQL = []string{"SELECT rw_version FROM rw_worker_nodes"}

// generateBuiltinCache is load_cache_gen.go as it should be now.
func generateBuiltinCache(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("// Code generated by \"go test -run ^TestBuiltinCache$ -update-builtin-cache\" (go generate); DO NOT EDIT.\n\n")
	b.WriteString("package analyze\n\n")
	b.WriteString("import \"github.com/rwdiag/rwdiag/analyze/sqlstore\"\n\n")
	b.WriteString("// builtinCache is the built-in rule files' parsed form, by file name (see load_cache.go).\n")
	b.WriteString("var builtinCache = map[string]cachedFile{\n")
	queries, promql := map[string]bool{}, map[string]bool{}
	builtinRuleFiles(t, func(name string, data []byte) {
		spec, rs := parsedYAML(name, data)
		if spec == nil {
			return // a file with a problem is parsed at every load, and says so
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s: {sum: %q, spec: func() *cachedSpec {\nreturn ", strconv.Quote(name), hex.EncodeToString(sum[:]))
		goLiteral(&b, reflect.ValueOf(spec))
		b.WriteString("\n}},\n")
		for _, r := range rs {
			for _, s := range r.Signals {
				for _, q := range s.SQL {
					queries[q] = true
				}
				if s.PromQL != "" {
					promql[s.PromQL] = true
				}
			}
		}
	})
	b.WriteString("}\n\n")
	b.WriteString("// builtinSQLMissing is what sqlstore's MissingTables answers for the built-in\n")
	b.WriteString("// rules' SQL queries when no table is loaded (sqlstore.EmptyAnswer).\n")
	b.WriteString("var builtinSQLMissing = map[string][]string{\n")
	for _, q := range gatherSQL {
		queries[q] = true
	}
	for _, q := range slices.Sorted(mapKeys(queries)) {
		m, err := sqlstore.EmptyAnswer(q)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		quoted := make([]string, len(m))
		for i, s := range m {
			quoted[i] = strconv.Quote(s)
		}
		fmt.Fprintf(&b, "%s: {%s},\n", strconv.Quote(q), strings.Join(quoted, ", "))
	}
	b.WriteString("}\n\n")
	b.WriteString("// builtinSQLResults are the results of the built-in rules' SQL queries that\n")
	b.WriteString("// read no table, when no table is loaded (sqlstore.EmptyResult).\n")
	b.WriteString("var builtinSQLResults = map[string]sqlstore.Result{\n")
	for _, q := range slices.Sorted(mapKeys(queries)) {
		if lit, ok := emptyResultLiteral(t, q); ok {
			fmt.Fprintf(&b, "%s: %s,\n", strconv.Quote(q), lit)
		}
	}
	b.WriteString("}\n\n")
	b.WriteString("// builtinPromQLNames are the metric names of the built-in rules' PromQL\n")
	b.WriteString("// queries (metrics.Names).\n")
	b.WriteString("var builtinPromQLNames = map[string]promNames{\n")
	for _, q := range slices.Sorted(mapKeys(promql)) {
		names, all, err := metrics.Names(q)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		quoted := make([]string, len(names))
		for i, s := range names {
			quoted[i] = strconv.Quote(s)
		}
		fmt.Fprintf(&b, "%s: {names: []string{%s}, all: %v},\n", strconv.Quote(q), strings.Join(quoted, ", "), all)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// volatileSQL matches the SQLite functions whose value changes from one
// call to the next: a query that calls one is never answered ahead.
var volatileSQL = regexp.MustCompile(`(?i)random|now|current_|julianday|unixepoch|strftime|datetime|date\s*\(|time\s*\(|changes|last_insert_rowid`)

// emptyResultLiteral is the Go literal of query's result on a store with no
// table loaded, when it reads no table and its result cannot change; ok is
// false otherwise.
func emptyResultLiteral(t *testing.T, q string) (lit string, ok bool) {
	t.Helper()
	if m, err := sqlstore.EmptyAnswer(q); err != nil || len(m) > 0 || volatileSQL.MatchString(q) {
		return "", false
	}
	r, err := sqlstore.EmptyResult(q)
	if err != nil {
		return "", false // a fallback for a version whose columns differ, say
	}
	var b strings.Builder
	b.WriteString("{Cols: []string{")
	for i, c := range r.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(c))
	}
	b.WriteString("}, Rows: [][]any{")
	for _, row := range r.Rows {
		b.WriteString("{")
		for i, v := range row {
			if i > 0 {
				b.WriteString(", ")
			}
			switch v := v.(type) {
			case nil:
				b.WriteString("nil")
			case string:
				b.WriteString(strconv.Quote(v))
			case int64:
				fmt.Fprintf(&b, "int64(%d)", v)
			case float64:
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return "", false
				}
				fmt.Fprintf(&b, "float64(%s)", strconv.FormatFloat(v, 'g', -1, 64))
			default:
				return "", false
			}
		}
		b.WriteString("},")
	}
	b.WriteString("}}")
	return b.String(), true
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// load_cache_gen.go is what the embedded rule files and SQLite give now.
func TestBuiltinCache(t *testing.T) {
	want := generateBuiltinCache(t)
	if *updateBuiltinCache {
		if err := os.WriteFile(builtinCacheFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(builtinCacheFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (a built-in rule file changed): run go generate ./analyze", builtinCacheFile)
	}
}

// Every cached file decodes to exactly what its YAML parses to, and every
// embedded rule file is cached.
func TestBuiltinCacheSameAsYAML(t *testing.T) {
	n := 0
	builtinRuleFiles(t, func(name string, data []byte) {
		n++
		want, _ := parsedYAML(name, data)
		if want == nil {
			t.Errorf("%s: has a problem, so it is not cached", name)
			return
		}
		c, ok := builtinCache[name]
		if !ok {
			t.Errorf("%s: not in the cache", name)
			return
		}
		got := c.spec()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the cached spec differs from the YAML's:\n got %+v\nwant %+v", name, got, want)
		}
	})
	if n != len(builtinCache) || n == 0 {
		t.Errorf("%d rule files, %d cached", n, len(builtinCache))
	}
}

// Loading the built-in rules from the cache gives the rules, problems and
// lint warnings (with their positions) that parsing their YAML gives.
func TestBuiltinCacheSameRules(t *testing.T) {
	for _, set := range builtinSets {
		slow, slowProbs, slowWarns := loadFSCached(set.fsys, set.prefix, noCache)
		for _, mode := range []cacheMode{cacheEager, cacheLazy} {
			fast, fastProbs, fastWarns := loadFSCached(set.fsys, set.prefix, mode)
			if mode == cacheEager && (!reflect.DeepEqual(fastProbs, slowProbs) || !reflect.DeepEqual(fastWarns, slowWarns)) {
				t.Errorf("%s: problems %v, warnings %v; from YAML %v, %v", set.prefix, fastProbs, fastWarns, slowProbs, slowWarns)
			}
			if len(fast) != len(slow) || len(fastProbs) != len(slowProbs) {
				t.Fatalf("%s, mode %d: %d rules, %d problems, from YAML %d, %d", set.prefix, mode, len(fast), len(fastProbs), len(slow), len(slowProbs))
			}
			for i := range fast {
				if err := errors.Join(fast[i].compiledRequires(), fast[i].compiledValues()); err != nil {
					t.Errorf("%s, mode %d: rule %s: %v", set.prefix, mode, slow[i].ID, err)
				}
				if d := ruleDiff(fast[i], slow[i]); d != "" {
					t.Errorf("%s, mode %d: rule %s: %s", set.prefix, mode, slow[i].ID, d)
				}
			}
		}
	}
}

// ruleDiff compares two compilations of a rule: every field, the compiled
// programs by their bytecode and the templates by their parse trees; not
// deferred, the record of how the rule was compiled.
func ruleDiff(a, b *Rule) string {
	av, bv := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < av.NumField(); i++ {
		f := av.Type().Field(i)
		if f.Name == "deferred" {
			continue
		}
		x := reflect.NewAt(f.Type, av.Field(i).Addr().UnsafePointer()).Elem().Interface()
		y := reflect.NewAt(f.Type, bv.Field(i).Addr().UnsafePointer()).Elem().Interface()
		if f.Name == "Signals" {
			x, y = signalsBySource(x.([]*Signal)), signalsBySource(y.([]*Signal))
		}
		if comparableText(x) != comparableText(y) {
			return f.Name + " differs"
		}
		if comparableText(x) == "" && !reflect.DeepEqual(x, y) {
			return f.Name + " differs"
		}
	}
	return ""
}

// signalsBySource returns copies of signals whose log queries are given
// by source: a lazily loaded rule's are, an eagerly loaded one's are
// compiled, and they are the same when their expressions are.
func signalsBySource(signals []*Signal) []*Signal {
	var out []*Signal
	for _, s := range signals {
		c := *s
		if q := s.Log; q != nil {
			c.Log = &logs.Query{Name: q.Name, Source: q.Expr(), Kinds: q.Kinds, Container: q.Container,
				MinLevel: q.MinLevel, MaxRows: q.MaxRows, SectionSource: q.SectionSource}
			if q.Section != nil {
				c.Log.SectionSource = q.Section.String()
			}
		}
		out = append(out, &c)
	}
	return out
}

// comparableText is a program's bytecode, a template's parse tree, or ""
// for other values (compared as they are).
func comparableText(v any) string {
	switch x := v.(type) {
	case *vm.Program:
		if x == nil {
			return "nil program"
		}
		return "program " + x.Disassemble()
	case []namedProgram:
		var b strings.Builder
		for _, p := range x {
			b.WriteString(p.name + ": " + comparableText(p.prog) + "\n")
		}
		return "programs " + b.String()
	case version.Constraints:
		return "constraints " + x.String()
	case *KnownIssue:
		if x == nil {
			return "nil known issue"
		}
		k := *x
		var alts []string
		for _, c := range k.affects {
			alts = append(alts, c.String())
		}
		k.affects, k.fixed = nil, nil
		return fmt.Sprintf("known issue %+v affects %q fixed %v", k, alts, x.fixed)
	case *template.Template:
		if x == nil || x.Tree == nil {
			return "nil template"
		}
		return "template " + x.Tree.Root.String()
	}
	return ""
}

// A built-in file whose content is not what the cache was made from is
// parsed from its YAML: its problems keep their lines.
func TestBuiltinCacheChangedFile(t *testing.T) {
	var name string
	var data []byte
	builtinRuleFiles(t, func(n string, d []byte) {
		if name == "" && strings.HasPrefix(n, rules.Prefix) && !strings.Contains(n[len(rules.Prefix):], "/") {
			name, data = n, d
		}
	})
	if name == "" {
		t.Fatal("no built-in rule file")
	}
	// The same file with an unknown field in its first rule.
	changed := bytes.Replace(data, []byte("\n    pattern:"), []byte("\n    patern: x\n    pattern:"), 1)
	if bytes.Equal(changed, data) {
		t.Fatalf("%s: no pattern line to change", name)
	}
	fsys := fstest.MapFS{strings.TrimPrefix(name, rules.Prefix): {Data: changed}}
	_, probs, _ := loadFSCached(fsys, rules.Prefix, cacheLazy)
	if len(probs) == 0 || probs[0].Line == 0 || !strings.Contains(probs[0].Msg, `unknown field "patern"`) {
		t.Fatalf("changed %s: got problems %v, want the unknown field with its line", name, probs)
	}
	// Unchanged, it comes from the cache, and loads clean.
	fsys = fstest.MapFS{strings.TrimPrefix(name, rules.Prefix): {Data: data}}
	if _, ok := builtinCache[name]; !ok {
		t.Fatalf("%s is not cached", name)
	}
	if rs, probs, _ := loadFSCached(fsys, rules.Prefix, cacheLazy); len(probs) > 0 || len(rs) == 0 {
		t.Fatalf("%s: %d rules, problems %v", name, len(rs), probs)
	}
}

// The answers generated ahead are MissingTables' on an empty store, and
// the store uses them only while nothing is loaded.
func TestBuiltinSQLMissing(t *testing.T) {
	if len(builtinSQLMissing) == 0 {
		t.Fatal("no SQL query among the built-in rules")
	}
	for q, want := range builtinSQLMissing {
		got, err := sqlstore.EmptyAnswer(q)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("query %q: SQLite says %v (%v), generated %v", q, got, err, want)
		}
	}
}

// The results generated ahead are SQLite's on an empty store, for queries
// that read no table; Query returns them, without SQLite, only while
// nothing is loaded.
func TestBuiltinSQLResults(t *testing.T) {
	if len(builtinSQLResults) == 0 {
		t.Fatal("no built-in SQL query that reads no table: drop builtinSQLResults, or test it another way")
	}
	for q, want := range builtinSQLResults {
		if m := builtinSQLMissing[q]; len(m) > 0 {
			t.Errorf("query %q reads tables %v: it has no result ahead", q, m)
		}
		got, err := sqlstore.EmptyResult(q)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("query %q: SQLite says %#v (%v), generated %#v", q, got, err, want)
		}
	}
}

// With expressions deferred, a rule loads without compiling its condition,
// and one that does not compile says so when it is first decided, as the
// rule's error.
func TestDeferredCompile(t *testing.T) {
	src := `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: deferred-rule
    pattern: deferred-rule
    severity: warning
    title: t
    signals:
      pods:
        kube:
          resource: pods
    requires: pods
    condition: len(pods) > "x"
    summary: s
    remediation: r
`
	eager := &loader{file: "x.yaml", pos: map[string]pos{}}
	if _, err := eager.parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "condition") {
		t.Fatalf("eager: got %v, want the condition's compile error", err)
	}
	lazy := &loader{file: "x.yaml", pos: map[string]pos{}, lazy: true}
	rs, err := lazy.parse([]byte(src))
	if err != nil || len(rs) != 1 {
		t.Fatalf("lazy: %d rules, %v", len(rs), err)
	}
	r := rs[0]
	if r.condition != nil || r.requires != nil || r.SubjectKind != "cluster" || !r.requiresNames["pods"] {
		t.Fatalf("lazy: condition %v, requires %v (names %v), subject kind %q: want the condition and requires deferred", r.condition, r.requires, r.requiresNames, r.SubjectKind)
	}
	if err := r.compiledRequires(); err != nil || r.requires == nil {
		t.Fatalf("requires: %v, %v", r.requires, err)
	}
	if _, err := r.decide(map[string]any{}, map[string]*signalResult{"pods": {rows: []Row{}, available: true}}, newBudget(nil, DefaultBudget)); err == nil || !strings.Contains(err.Error(), "compiling the rule") || !strings.Contains(err.Error(), "condition") {
		t.Fatalf("decide: got %v, want the condition's compile error", err)
	}
}

// BenchmarkStartup is what `rwdiag analyze samples/handmade-minimal` does
// besides starting the process: load the built-in rules and known issues,
// and analyse the small sample.
func BenchmarkStartup(b *testing.B) {
	for b.Loop() {
		rs, err := LoadFS(rules.FS, rules.Prefix)
		if err != nil {
			b.Fatal(err)
		}
		known, err := LoadFS(knownissues.FS, knownissues.Prefix)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(context.Background(), "../samples/handmade-minimal", append(rs, known...), bundle.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadBuiltin loads the built-in rules and known issues, from the
// generated cache (lazily, as analyze does, or compiled whole, as lint
// does) or from their YAML.
func BenchmarkLoadBuiltin(b *testing.B) {
	for _, mode := range []struct {
		name string
		mode cacheMode
	}{{"yaml", noCache}, {"cache", cacheEager}, {"lazy", cacheLazy}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				for _, set := range builtinSets {
					if _, probs, _ := loadFSCached(set.fsys, set.prefix, mode.mode); len(probs) > 0 {
						b.Fatal(probs)
					}
				}
			}
		})
	}
}

// With expressions deferred, a rule's values compile only when it fires.
func TestDeferredValues(t *testing.T) {
	src := `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: deferred-values
    pattern: deferred-values
    severity: warning
    title: t
    signals:
      pods:
        kube:
          resource: pods
    requires: pods
    let:
      - n: len(pods)
    condition: n > 1
    values:
      count: n * 2
    summary: '{{ .values.count }} pods'
    remediation: r
`
	lazy := &loader{file: "x.yaml", pos: map[string]pos{}, lazy: true}
	rs, err := lazy.parse([]byte(src))
	if err != nil || len(rs) != 1 {
		t.Fatalf("lazy: %d rules, %v", len(rs), err)
	}
	r := rs[0]
	b := newBudget(nil, DefaultBudget)
	pods := func(n int) map[string]*signalResult {
		return map[string]*signalResult{"pods": {rows: make([]Row, n), available: true}}
	}
	if fs, err := r.decide(map[string]any{}, pods(1), b); err != nil || len(fs) != 0 {
		t.Fatalf("one pod: %v, %v", fs, err)
	}
	if r.condition == nil || r.values != nil || r.summary != nil {
		t.Fatalf("passed: condition %v, values %v, summary %v: want the condition compiled, not the values or summary", r.condition, r.values, r.summary)
	}
	fs, err := r.decide(map[string]any{}, pods(3), b)
	if err != nil || len(fs) != 1 || fs[0].Summary != "6 pods" {
		t.Fatalf("three pods: %+v, %v", fs, err)
	}
	if r.values == nil || r.summary == nil {
		t.Errorf("fired: values %v, summary %v: want both compiled", r.values, r.summary)
	}
}

// Loading a file system skips testdata/ and dot directories, as loading a
// directory does: the rule tests' bundles hold no rules.
func TestLoadFSSkipsTestdata(t *testing.T) {
	bad := &fstest.MapFile{Data: []byte("not: [a rule file")}
	fsys := fstest.MapFS{"testdata/x/kube.yaml": bad, ".git/y.yaml": bad, "sub/testdata/z.yml": bad}
	if rs, probs, _ := loadFSCached(fsys, "builtin:", cacheLazy); len(rs) != 0 || len(probs) != 0 {
		t.Fatalf("got %d rules, problems %v; want none", len(rs), probs)
	}
	fsys["sub/r.yaml"] = bad
	if _, probs, _ := loadFSCached(fsys, "builtin:", cacheLazy); len(probs) != 1 || probs[0].File != "builtin:sub/r.yaml" {
		t.Fatalf("got problems %v; want sub/r.yaml's", probs)
	}
}

// Rules loaded lazily can be evaluated by several goroutines at once (each
// compiles a rule's expressions once), and report what rules compiled whole
// do.
func TestDeferredConcurrent(t *testing.T) {
	load := func(mode cacheMode) []*Rule {
		var all []*Rule
		for _, set := range builtinSets {
			rs, probs, _ := loadFSCached(set.fsys, set.prefix, mode)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			all = append(all, rs...)
		}
		return all
	}
	const dir = "../samples/handmade-minimal"
	report := func(rs []*Rule) string {
		rep, err := Analyze(context.Background(), dir, rs, bundle.Options{})
		if err != nil {
			t.Error(err)
			return ""
		}
		js, _ := json.Marshal(rep)
		return string(js)
	}
	want := report(load(noCache))
	lazy := load(cacheLazy)
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = report(lazy)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("goroutine %d: the report differs from the one of rules compiled whole", i)
		}
	}
}

// countingFS counts the bytes read from its files.
type countingFS struct {
	fs.FS
	n *atomic.Int64
}

func (c countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, c.n}, nil
}

type countingFile struct {
	fs.File
	n *atomic.Int64
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n.Add(int64(n))
	return n, err
}

// Loading a file system reads a rule test no further than its head when
// its kind: line is there, and finds the kind further on, or cut at the
// head's end, by reading the file whole; a cached built-in file is read
// once, to check its content.
func TestLoadFSSniffsHead(t *testing.T) {
	filler := func(n int) string { // comment lines, n bytes
		var b strings.Builder
		for b.Len() < n {
			b.WriteString("# " + strings.Repeat("x", 60) + "\n")
		}
		return b.String()[:n-1] + "\n"
	}
	test := "apiVersion: rwdiag/v1\nkind: RuleTest\n" + filler(200<<10)
	for name, data := range map[string]string{
		"head":     test,
		"far":      filler(3*sniffHeadBytes) + "kind: RuleTest\n",
		"cut":      filler(sniffHeadBytes-8) + "kind: RuleTest\n" + filler(1000),
		"cut-kind": filler(sniffHeadBytes-3) + "kind: RuleTest\n",
	} {
		var n atomic.Int64
		fsys := countingFS{fstest.MapFS{"t_test.yaml": {Data: []byte(data)}}, &n}
		rs, probs, _ := loadFSCached(fsys, "builtin:", cacheLazy)
		if len(rs) != 0 || len(probs) != 0 {
			t.Errorf("%s: %d rules, problems %v: a rule test was loaded as rules", name, len(rs), probs)
		}
		if name == "head" && n.Load() > sniffHeadBytes {
			t.Errorf("%s: read %d bytes of a %d-byte rule test whose kind is on its second line", name, n.Load(), len(data))
		}
	}

	var name string
	var data []byte
	builtinRuleFiles(t, func(n string, d []byte) {
		if name == "" && strings.HasPrefix(n, rules.Prefix) && !strings.Contains(n[len(rules.Prefix):], "/") {
			name, data = n, d
		}
	})
	var n atomic.Int64
	fsys := countingFS{fstest.MapFS{strings.TrimPrefix(name, rules.Prefix): {Data: data}}, &n}
	if rs, probs, _ := loadFSCached(fsys, rules.Prefix, cacheLazy); len(probs) > 0 || len(rs) == 0 {
		t.Fatalf("%s: %d rules, problems %v", name, len(rs), probs)
	}
	if n.Load() != int64(len(data)) {
		t.Errorf("%s: read %d bytes of %d: want it read once", name, n.Load(), len(data))
	}
}
