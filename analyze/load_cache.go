package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/rwdiag/rwdiag/analyze/sqlstore"
)

// What `rwdiag analyze` does at every start for the built-in rules and
// known issues, generated ahead or left until needed (issue 14; on the
// small sample it cut the CPU time from about 160 to 60 ms):
//
//   - load_cache_gen.go holds, per embedded file name, the SHA-256 of the
//     file and its parsed form (the spec and the position of every value)
//     as Go literals, so no YAML is parsed; the answers of sqlstore's
//     MissingTables for the rules' SQL queries on a store with no table
//     loaded, and the results of those that read no table, so a bundle
//     without sql/ never opens SQLite (the store opens it when first
//     needed: 2.5 MiB less peak RSS); and the metric names of their
//     PromQL queries.
//   - LoadFS (analyze) loads them lazily: the checks their tests prove pass
//     are skipped (PromQL parse and lint, SQL prepare, log regex cost), and
//     a rule's expressions but requires are compiled when it is first
//     decided (Rule.compiled), its values and summary at its first firing
//     finding (Rule.compiledValues). LintFS and LoadPaths (user rules, which
//     must report every error at load) compile everything at load.
//
// A file whose content differs from what was generated is parsed from its
// YAML as before, and compiled whole; TestBuiltinCache fails until the
// cache is generated again (go generate ./analyze):
//
//go:generate go test -run ^TestBuiltinCache$ -update-builtin-cache .

// cachedSpec is a rule file's parsed form: what loader.parse decodes from
// the YAML before it checks and compiles it, and where each value is.
type cachedSpec struct {
	Kind    string
	RuleSet *ruleSetSpec
	Known   *knownIssueSpec
	Pos     []posEntry // loader.pos, by key
}

// posEntry is one entry of loader.pos: a YAML path and its value's line and
// column.
type posEntry struct {
	key       string
	line, col int
}

// promNames are a PromQL query's metric names, as metrics.Names gives
// them.
type promNames struct {
	names []string
	all   bool
}

// cachedFile is one generated entry: the file's SHA-256 (hex) and its
// cachedSpec, as Go literals built when called.
type cachedFile struct {
	sum  string
	spec func() *cachedSpec
}

func init() {
	sqlstore.SetEmptyAnswers(builtinSQLMissing)
	sqlstore.SetEmptyResults(builtinSQLResults)
}

// cacheMode says how loadFSCached uses the generated cache.
type cacheMode int

const (
	noCache    cacheMode = iota // parse every file's YAML
	cacheEager                  // the cache, rules compiled whole (lint)
	cacheLazy                   // the cache, expressions compiled when first needed (analyze)
)

// parseCached is parseRules for a file whose parsed form was generated
// ahead (builtinCache, by name, with the same content): the same rules and
// warnings, without the YAML parser. ok is false when there is no such
// entry, or when the file has a problem (parseRules then says where,
// with the YAML parser's own messages). With lazy, the rules' expressions
// but requires are compiled when first needed (Rule.compiled).
func parseCached(name string, data []byte, lazy bool) (rules []*Rule, warns Problems, ok bool) {
	c, found := builtinCache[name]
	if !found {
		return nil, nil, false
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != c.sum {
		return nil, nil, false
	}
	return fromCache(name, &c, lazy)
}

// fromCache is parseCached for a file known to have c's content.
func fromCache(name string, c *cachedFile, lazy bool) (rules []*Rule, warns Problems, ok bool) {
	spec := c.spec()
	l := &loader{file: name, lazy: lazy}
	if lazy {
		l.exprs = &exprCompiler{}
		// Positions only place problems and warnings, which a built-in
		// file loaded lazily has none of, and a known issue's source
		// texts, which the report does not show but keep.
		l.pos = map[string]pos{}
		for _, e := range spec.Pos {
			if strings.HasPrefix(e.key, "source_text[") {
				l.pos[e.key] = pos{e.line, e.col}
			}
		}
	} else {
		l.pos = make(map[string]pos, len(spec.Pos))
		for _, e := range spec.Pos {
			l.pos[e.key] = pos{e.line, e.col}
		}
	}
	var err error
	switch {
	case spec.Kind == KindRuleSet && spec.RuleSet != nil:
		rules, err = l.compileRuleSet(*spec.RuleSet)
	case spec.Kind == KindKnownIssue && spec.Known != nil:
		rules, err = l.compileKnownIssue(*spec.Known)
	default:
		return nil, nil, false
	}
	if err != nil || len(l.probs) > 0 {
		return nil, nil, false
	}
	return rules, l.warns, true
}

// deferredCompile is a rule's compilation in three stages: its requires,
// which every evaluation within its versions runs; what deciding it needs
// (lets, undecided, condition, subject); then its values, which only a
// firing finding needs.
type deferredCompile struct {
	requires, decide, values      func() error
	reqOnce, decideOnce, valsOnce sync.Once
	reqErr, decideErr, valsErr    error
}

// deferCompile leaves requires, decide and values to r's first evaluation
// within its versions, first decision and first firing finding
// (Rule.deferred: set while the rule loads, before any goroutine reads it,
// and never changed after).
func deferCompile(r *Rule, requires, decide, values func() error) {
	r.deferred = &deferredCompile{requires: requires, decide: decide, values: values}
}

// compiledRequires compiles, once, the rule's requires if loading left it.
func (r *Rule) compiledRequires() error {
	d := r.deferred
	if d == nil {
		return nil
	}
	d.reqOnce.Do(func() {
		if err := d.requires(); err != nil {
			d.reqErr = fmt.Errorf("compiling the rule's requires: %w", err)
		}
	})
	return d.reqErr
}

// compiled compiles, once, what deciding the rule needs of what loading
// left; an error says why the rule cannot be decided (a built-in rule whose
// expressions no longer compile, which TestBuiltinCacheSameRules rules
// out).
func (r *Rule) compiled() error {
	d := r.deferred
	if d == nil {
		return nil
	}
	d.decideOnce.Do(func() {
		if err := d.decide(); err != nil {
			d.decideErr = fmt.Errorf("compiling the rule: %w", err)
		}
	})
	return d.decideErr
}

// compiledValues is compiled, and the rule's values too.
func (r *Rule) compiledValues() error {
	if err := r.compiled(); err != nil {
		return err
	}
	d := r.deferred
	if d == nil {
		return nil
	}
	d.valsOnce.Do(func() {
		if err := d.values(); err != nil {
			d.valsErr = fmt.Errorf("compiling the rule's values: %w", err)
		}
	})
	return d.valsErr
}
