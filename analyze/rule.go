package analyze

import (
	"text/template"

	"github.com/expr-lang/expr/vm"
	version "github.com/hashicorp/go-version"

	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/analyze/logs"
)

// APIVersion and KindRuleSet head every rule file.
const (
	APIVersion  = "rwdiag/v1"
	KindRuleSet = "RuleSet"
)

// The YAML form of a rule file. Field names are the documented keys; the
// loader rejects keys that are not listed here.

type ruleSetSpec struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Rules      []ruleSpec `yaml:"rules"`
}

type ruleSpec struct {
	ID            string                `yaml:"id"`
	Pattern       string                `yaml:"pattern"`
	Severity      string                `yaml:"severity"`
	Title         string                `yaml:"title"`
	Description   string                `yaml:"description"`
	Versions      string                `yaml:"versions"`
	Subject       subjectSpec           `yaml:"subject"`
	Signals       map[string]signalSpec `yaml:"signals"`
	Requires      string                `yaml:"requires"`
	Undecided     *undecidedSpec        `yaml:"undecided"`
	Let           []map[string]string   `yaml:"let"`
	Condition     string                `yaml:"condition"`
	Values        map[string]string     `yaml:"values"`
	Summary       string                `yaml:"summary"`
	Remediation   string                `yaml:"remediation"`
	Evidence      []string              `yaml:"evidence"`
	CausedBy      []string              `yaml:"caused_by"`
	CausedByMatch string                `yaml:"caused_by_match"`
	DeferTo       []string              `yaml:"defer_to"`
	References    []string              `yaml:"references"`
}

// undecidedSpec makes a rule inconclusive when its inputs were read but
// did not hold what would decide it (no scrape before the restart, say).
type undecidedSpec struct {
	When    string `yaml:"when"`
	Reason  string `yaml:"reason"`
	Collect string `yaml:"collect"`
}

type subjectSpec struct {
	Kind  string `yaml:"kind"`
	Field string `yaml:"field"`
	Expr  string `yaml:"expr"`
	Name  string `yaml:"name"`
}

type signalSpec struct {
	Description string         `yaml:"description"`
	PromQL      string         `yaml:"promql"`
	SQL         string         `yaml:"sql"`
	SQLFallback []string       `yaml:"sql_fallback"`
	Kube        *kubeSpec      `yaml:"kube"`
	Log         *logSpec       `yaml:"log"`
	AwaitTree   *awaitTreeSpec `yaml:"awaittree"`
}

type awaitTreeSpec struct {
	Rows       string  `yaml:"rows"`
	Span       string  `yaml:"span"`
	MinSeconds float64 `yaml:"min_seconds"`
}

type kubeSpec struct {
	Resource  string            `yaml:"resource"`
	Component string            `yaml:"component"`
	Labels    map[string]string `yaml:"labels"`
	Path      string            `yaml:"path"`
	Fields    map[string]string `yaml:"fields"`
}

type logSpec struct {
	Files     []string `yaml:"files"`
	Component string   `yaml:"component"`
	Container string   `yaml:"container"`
	Regex     string   `yaml:"regex"`
	MinLevel  string   `yaml:"min_level"`
	MaxRows   int      `yaml:"max_rows"`
	Section   string   `yaml:"section"`
}

// SignalKind is the evidence language a signal is written in.
type SignalKind string

// Signal kinds.
const (
	SignalPromQL SignalKind = "promql"
	SignalSQL    SignalKind = "sql"
	SignalKube   SignalKind = "kube"
	SignalLog    SignalKind = "log"
	// SignalAwaitTree reads the await-tree dumps (diagnose/await-tree.txt,
	// .json, and the one inside diagnose/report.txt) as parsed trees.
	SignalAwaitTree SignalKind = "awaittree"
)

// Signal is a compiled, named query of one evidence source.
type Signal struct {
	Name        string
	Kind        SignalKind
	Description string

	PromQL      string
	metricNames []string
	allMetrics  bool

	SQL []string // the query, then its fallbacks

	Kube *kube.Query

	Log       *logs.Query
	component string // log signals: keep matches of pods of this component

	AwaitTree *AwaitTreeQuery

	// promExpr is the parsed query, for telling which metric families it
	// needs (see metrics.Readable).
	promExpr string
}

// Rule is a compiled rule, ready to run.
type Rule struct {
	ID          string
	Pattern     string
	Severity    Severity
	Title       string
	Description string
	Remediation string
	References  []string
	// File is where the rule was loaded from ("builtin:barrier.yaml" for
	// embedded rules).
	File string
	// Versions is the RisingWave version constraint as written; "" for all.
	Versions string

	// deferred, for a built-in rule loaded with its expressions left
	// until needed (loader.lazy), is that compilation (see Rule.compiled).
	deferred *deferredCompile

	SubjectKind  string
	subjectField string
	subjectExpr  *vm.Program
	subjectName  *vm.Program // with subjectField: the name to show for a subject value

	// CausedBy are the rules whose findings can cause this rule's: when
	// both fire, the findings are linked (see linkFindings).
	CausedBy []string
	// CausedByMatch narrows the links: "pod" links a finding about a pod
	// only to causes whose subject or evidence names that pod (a finding
	// about the cluster links to every cause); "" links on time alone.
	CausedByMatch string
	// DeferTo are rules of CausedBy whose finding, when it is linked as
	// this finding's cause, takes precedence: this finding's severity is
	// lowered one step and its link says so (see deferFindings).
	DeferTo []string

	Signals  []*Signal
	evidence []string
	requires *vm.Program
	// undecided, when it holds over the whole bundle, makes the rule
	// inconclusive with undecidedReason (and what to collect).
	undecided        *vm.Program
	undecidedReason  string
	undecidedCollect string
	// requiresNames are the signals the requires expression names; only
	// their absence explains an inconclusive result.
	requiresNames map[string]bool
	// lets are the rule's named intermediate results, in order: each sees
	// the signals and the lets before it, and the condition, values,
	// subject expressions and undecided see them all.
	lets      []namedProgram
	condition *vm.Program
	values    []namedProgram
	summary   *template.Template
	// remediation is the remediation as a template (the summary's data);
	// remediationDefault is it run with no data, its placeholders in place,
	// for findings that know no names (inconclusive ones). A remediation
	// with no action ({{ }}), such as every known issue's, is not parsed:
	// remediation is nil and remediationPlain set, and it is its text.
	remediation        *template.Template
	remediationDefault string
	remediationPlain   bool
	versions           version.Constraints

	// Known is set for a rule compiled from a known-issue file (pattern
	// known-issue): the upstream bug, its range and its fix.
	Known *KnownIssue
}

type namedProgram struct {
	name string
	prog *vm.Program
}

// AppliesTo reports whether the rule applies to a RisingWave version. An
// unknown or unparsable version applies to every rule.
func (r *Rule) AppliesTo(v string) bool {
	if r.Known != nil {
		return r.Known.AppliesTo(v)
	}
	if r.versions == nil || v == "" {
		return true
	}
	ver, err := version.NewVersion(v)
	if err != nil {
		return true
	}
	// Pre-release and build suffixes (v2.1.0-rc.1, nightly-20261101) must not
	// take a version out of its range.
	core, err := version.NewVersion(ver.Core().String())
	if err == nil {
		ver = core
	}
	return r.versions.Check(ver)
}
