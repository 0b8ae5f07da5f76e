package analyze

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/analyze/sqlstore"
	"github.com/rwdiag/rwdiag/bundle"
)

// Analyze reads the bundle once and evaluates the rules over it.
func Analyze(ctx context.Context, path string, rules []*Rule, opts bundle.Options) (*Report, error) {
	ev, err := Gather(ctx, path, rules, opts)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	return Evaluate(ctx, ev, rules), nil
}

// Evaluate applies the rules to gathered evidence, each within
// DefaultBudget.
func Evaluate(ctx context.Context, ev *Gathered, rules []*Rule) *Report {
	return EvaluateWith(ctx, ev, rules, DefaultBudget)
}

// EvaluateWith applies the rules to gathered evidence, each within budget:
// a rule that exceeds it, fails or panics is reported as an error (its
// result's reason says why) and the others still run.
//
// Rules are independent, so they are evaluated on GOMAXPROCS goroutines
// (issue 14: on the small sample most of the evaluation is compiling the
// decided rules' expressions, see Rule.compiled) and their results gathered
// in rule order: the report is the same as one rule after another
// (TestEvaluateConcurrentSameReport). What they share is safe for
// concurrent reading once gathered: the stores (sqlstore serialises its
// calls, metrics.Store's Query may run concurrently, kube.Store indexes its
// pods under a lock, the log scanner hands out copies of its rows), the
// Gathered fields, and each rule's deferred compilation (sync.Once). Each
// rule keeps its own budget; its Time counts wall time, so a rule's time
// limit also covers waiting for a core or for the SQL store while another
// rule runs.
func EvaluateWith(ctx context.Context, ev *Gathered, rules []*Rule, budget Budget) *Report {
	rep := &Report{SchemaVersion: ReportSchemaVersion, Tool: "rwdiag", Bundle: ev.Info}
	type result struct {
		findings []Finding
		res      RuleResult
	}
	results := make([]result, len(rules))
	var next atomic.Int64
	eval := func() {
		for i := next.Add(1) - 1; i < int64(len(rules)); i = next.Add(1) - 1 {
			results[i].findings, results[i].res = evaluateRuleSafely(ctx, ev, rules[i], budget)
		}
	}
	var wg sync.WaitGroup
	for range min(evalWorkers(), len(rules)) - 1 {
		wg.Go(eval)
	}
	eval() // this goroutine is one of the workers
	wg.Wait()
	for _, r := range results {
		rep.Findings = append(rep.Findings, r.findings...)
		rep.Rules = append(rep.Rules, r.res)
	}
	linkFindings(rep.Findings, rules)
	deferFindings(rep.Findings, rules)
	linkKnownIssues(rep.Findings, rules)
	rep.Sort()
	return rep
}

// evalSignals evaluates a rule's signals. Its PromQL signals, when it has
// more than one, are evaluated at once on goroutines of their own: a query
// over every per-table series of a big bundle takes tens of milliseconds
// (60 ms each for compute-oom-crash-loop's two at 2 GiB), and one rule's
// queries evaluated in turn were the tail of the whole evaluation while
// the other cores had finished the other rules (issue 14). The error is
// the first failing signal's, in the rule's order, as one after another.
func (ev *Gathered) evalSignals(ctx context.Context, r *Rule) (map[string]*signalResult, error) {
	srs := make([]*signalResult, len(r.Signals))
	errs := make([]error, len(r.Signals))
	promql := 0
	for _, s := range r.Signals {
		if s.Kind == SignalPromQL {
			promql++
		}
	}
	concurrent := promql > 1 && evalWorkers() > 1
	var wg sync.WaitGroup
	for i, s := range r.Signals {
		if concurrent && s.Kind == SignalPromQL {
			wg.Go(func() { srs[i], errs[i] = ev.evalSignal(ctx, s) })
			continue
		}
		if srs[i], errs[i] = ev.evalSignal(ctx, s); errs[i] != nil && !concurrent {
			return nil, fmt.Errorf("signal %s: %w", s.Name, errs[i])
		}
	}
	wg.Wait()
	results := make(map[string]*signalResult, len(r.Signals))
	for i, s := range r.Signals {
		if errs[i] != nil {
			return nil, fmt.Errorf("signal %s: %w", s.Name, errs[i])
		}
		results[s.Name] = srs[i]
	}
	return results, nil
}

// evalWorkers is how many goroutines EvaluateWith runs the rules on:
// GOMAXPROCS; tests set it to 1 to get the sequential reference.
var evalWorkers = func() int { return runtime.GOMAXPROCS(0) }

// signalResult is a signal's rows, or why it has none.
type signalResult struct {
	rows      []Row
	available bool
	reason    string // why it is unavailable
	collect   string // what to collect to make it available
	coverage  string // what was read, when available
}

// evaluateRuleSafely evaluates one rule within its budget; a panic is the
// rule's error, not the end of the analysis.
func evaluateRuleSafely(ctx context.Context, ev *Gathered, r *Rule, limits Budget) (findings []Finding, res RuleResult) {
	ctx, cancel := ctx, context.CancelFunc(func() {})
	b := newBudget(ctx, limits)
	if limits.Time > 0 {
		// The same deadline for both: the context's fires first otherwise
		// (it was made first), and a rule out of time would read as an
		// analysis interrupted.
		ctx, cancel = context.WithDeadline(ctx, b.deadline)
		b.ctx = ctx
	}
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			findings = nil
			res = RuleResult{ID: r.ID, Status: RuleError, Reason: fmt.Sprintf("evaluation panicked: %v", p)}
		}
	}()
	findings, res = evaluateRule(ctx, ev, r, b)
	if r.Known != nil {
		findings, res = r.finishKnown(ev.Info.RisingWaveVersion, findings, res)
	}
	if observeBudget != nil {
		observeBudgetMu.Lock()
		observeBudget(r.ID, b)
		observeBudgetMu.Unlock()
	}
	if res.Status == RuleError && b.err == nil && ctx.Err() != nil {
		// A query stopped by the rule's deadline.
		_ = b.checkTime()
		res.Reason = fmt.Sprintf("%v (%s)", b.err, res.Reason)
	}
	return findings, res
}

func evaluateRule(ctx context.Context, ev *Gathered, r *Rule, b *budget) ([]Finding, RuleResult) {
	res := RuleResult{ID: r.ID}
	if v := ev.Info.RisingWaveVersion; !r.AppliesTo(v) {
		res.Status, res.Reason = RuleSkipped, fmt.Sprintf("RisingWave %s is outside the rule's versions %q", v, r.Versions)
		return nil, res
	}
	results, err := ev.evalSignals(ctx, r)
	if err != nil {
		res.Status, res.Reason = RuleError, err.Error()
		return nil, res
	}
	res.Examined = examine(r, results)

	// Inconclusive when what the rule requires is absent.
	avail := map[string]any{budgetKey: b}
	allAvail := true
	for name, sr := range results {
		avail[name] = sr.available
		allAvail = allAvail && sr.available
	}
	ok := allAvail
	if err := r.compiledRequires(); err != nil {
		res.Status, res.Reason = RuleError, err.Error()
		return nil, res
	}
	if r.requires != nil {
		v, err := runExpr(r.requires, avail)
		if err != nil {
			res.Status, res.Reason = RuleError, fmt.Sprintf("requires: %v", err)
			return nil, res
		}
		ok, _ = v.(bool)
	}
	if !ok {
		reason, collect := missingInputs(r, results)
		return r.inconclusive(res, reason, collect)
	}

	findings, err := r.decide(ev.bundleEnv(), results, b)
	if err != nil {
		res.Status, res.Reason = RuleError, err.Error()
		return nil, res
	}
	res.Status = RulePassed
	for _, f := range findings {
		switch {
		case f.Status == StatusFiring:
			res.Status = RuleFired
		case res.Status == RulePassed:
			res.Status, res.Reason = RuleInconclusive, r.undecidedReason
		}
	}
	if res.Status == RuleFired {
		res.Reason = ""
	}
	return findings, res
}

// bind evaluates the rule's lets, in order, into env.
func (r *Rule) bind(env map[string]any) error {
	for _, l := range r.lets {
		v, err := runExpr(l.prog, env)
		if err != nil {
			return fmt.Errorf("let %s: %w", l.name, err)
		}
		env[l.name] = v
	}
	return nil
}

// nameOf is the name a subject is shown by (subject.name), else its value;
// env's subject becomes the name and subject_id the value.
func (r *Rule) nameOf(subj string, env map[string]any) (string, error) {
	if r.subjectName == nil {
		return subj, nil
	}
	v, err := runExpr(r.subjectName, env)
	if err != nil {
		return "", fmt.Errorf("subject.name for %s: %w", subj, err)
	}
	if s := fmt.Sprint(v); v != nil && s != "" {
		env["subject_id"] = subj
		env["subject"] = s
		return s, nil
	}
	return subj, nil
}

// bundleEnv is what expressions see as bundle.
func (ev *Gathered) bundleEnv() map[string]any {
	return map[string]any{"time": ev.Time, "version": normalizeVersion(ev.Info.RisingWaveVersion), "namespace": ev.Info.Namespace}
}

// decide evaluates a rule whose required inputs are there: per subject or
// once, each with its lets, undecided and condition. It returns the firing
// findings and those it could not decide.
func (r *Rule) decide(bundleEnv map[string]any, results map[string]*signalResult, b *budget) ([]Finding, error) {
	if err := r.compiled(); err != nil {
		return nil, err
	}
	available := map[string]bool{}
	env := map[string]any{"bundle": bundleEnv, "available": available, budgetKey: b}
	cluster := map[string][]Row{}
	for name, sr := range results {
		available[name] = sr.available
		env[name] = sr.rows
		cluster[name] = sr.rows
	}
	env["cluster"] = cluster
	if r.subjectField != "" {
		return r.perSubject(env, results)
	}
	return r.once(env, results)
}

// inconclusive is the result of a rule that could not be decided.
func (r *Rule) inconclusive(res RuleResult, reason, collect string) ([]Finding, RuleResult) {
	res.Status, res.Reason = RuleInconclusive, reason
	f := r.finding("cluster", "cluster")
	f.Status = StatusInconclusive
	f.Summary = "Could not be decided: " + reason + "."
	if collect != "" {
		f.Summary += " To decide it, collect " + collect + "."
	}
	return []Finding{f}, res
}

// perSubject evaluates the condition once for every value of the subject
// field, with each signal's rows narrowed to that subject. The rows are
// indexed by subject once per signal, so the work is linear in the rows and
// subjects (narrowing every signal for every subject was quadratic: 32,000
// pods took minutes).
func (r *Rule) perSubject(env map[string]any, results map[string]*signalResult) ([]Finding, error) {
	field := r.subjectField
	seen := map[string]bool{}
	var subjects []string
	index := make(map[string]*subjectIndex, len(results))
	for name, sr := range results {
		ix := indexBySubject(sr.rows, field)
		index[name] = ix
		for s := range ix.by {
			if !seen[s] {
				seen[s] = true
				subjects = append(subjects, s)
			}
		}
	}
	sort.Strings(subjects)
	var out []Finding
	for _, subj := range subjects {
		senv := map[string]any{"subject": subj, "subject_id": subj, "subject_kind": r.SubjectKind,
			"cluster": env["cluster"], "bundle": env["bundle"], "available": env["available"], budgetKey: env[budgetKey]}
		for name, ix := range index {
			senv[name] = ix.rowsOf(subj)
		}
		if err := r.bind(senv); err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.SubjectKind, subj, err)
		}
		if r.undecided != nil {
			undecided, err := runBool(r.undecided, senv)
			if err != nil {
				return nil, fmt.Errorf("undecided.when for %s %s: %w", r.SubjectKind, subj, err)
			}
			if undecided {
				fs, _ := r.inconclusive(RuleResult{}, r.undecidedReason, r.undecidedCollect)
				name, err := r.nameOf(subj, senv)
				if err != nil {
					return nil, err
				}
				f := r.finding(name, r.SubjectKind)
				f.Status, f.Summary = StatusInconclusive, fs[0].Summary
				out = append(out, f)
				continue
			}
		}
		fired, err := runBool(r.condition, senv)
		if err != nil {
			return nil, fmt.Errorf("condition for %s %s: %w", r.SubjectKind, subj, err)
		}
		if !fired {
			continue
		}
		name, err := r.nameOf(subj, senv)
		if err != nil {
			return nil, err
		}
		subj = name
		f, err := r.fire(subj, senv)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// subjectIndex is a signal's rows grouped by the subject they name. Rows
// that do not name a subject (no such field, or an empty value: a diagnose
// report has no pod) are about the whole cluster and belong to every subject.
type subjectIndex struct {
	rows    []Row
	by      map[string][]int // subject -> positions of its rows
	cluster []int            // positions of the rows that name no subject
	// clusterRows are those rows, shared by every subject that has none
	// of its own (capacity clipped, so an append copies).
	clusterRows []Row
}

func indexBySubject(rows []Row, field string) *subjectIndex {
	ix := &subjectIndex{rows: rows, by: map[string][]int{}}
	for i, row := range rows {
		s := subjectOf(row, field)
		if s == "" {
			ix.cluster = append(ix.cluster, i)
			continue
		}
		ix.by[s] = append(ix.by[s], i)
	}
	ix.clusterRows = make([]Row, len(ix.cluster))
	for k, i := range ix.cluster {
		ix.clusterRows[k] = rows[i]
	}
	ix.clusterRows = ix.clusterRows[:len(ix.clusterRows):len(ix.clusterRows)]
	return ix
}

// subjectOf is the subject a row names in field, "" for none.
func subjectOf(row Row, field string) string {
	v, ok := row[field]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// rowsOf returns the rows about subj and the cluster-wide ones, in the
// signal's order.
func (ix *subjectIndex) rowsOf(subj string) []Row {
	own := ix.by[subj]
	if len(own) == 0 {
		return ix.clusterRows
	}
	out := make([]Row, 0, len(own)+len(ix.cluster))
	i, j := 0, 0
	for i < len(own) || j < len(ix.cluster) {
		if j == len(ix.cluster) || (i < len(own) && own[i] < ix.cluster[j]) {
			out = append(out, ix.rows[own[i]])
			i++
		} else {
			out = append(out, ix.rows[ix.cluster[j]])
			j++
		}
	}
	return out
}

// once evaluates the condition over the whole bundle; the subject is the
// subject expression's result, or "cluster".
func (r *Rule) once(env map[string]any, _ map[string]*signalResult) ([]Finding, error) {
	env["subject"], env["subject_id"], env["subject_kind"] = "cluster", "cluster", r.SubjectKind
	if err := r.bind(env); err != nil {
		return nil, err
	}
	if r.undecided != nil {
		undecided, err := runBool(r.undecided, env)
		if err != nil {
			return nil, fmt.Errorf("undecided.when: %w", err)
		}
		if undecided {
			fs, _ := r.inconclusive(RuleResult{}, r.undecidedReason, r.undecidedCollect)
			return fs, nil
		}
	}
	fired, err := runBool(r.condition, env)
	if err != nil || !fired {
		return nil, err
	}
	subjects := []string{"cluster"}
	if r.subjectExpr != nil {
		v, err := runExpr(r.subjectExpr, env)
		if err != nil {
			return nil, fmt.Errorf("subject.expr: %w", err)
		}
		subjects = subjectList(v)
		if len(subjects) == 0 {
			subjects = []string{"cluster"}
		}
	}
	var out []Finding
	for _, s := range subjects {
		senv := make(map[string]any, len(env))
		for k, v := range env {
			senv[k] = v
		}
		senv["subject"], senv["subject_id"] = s, s
		f, err := r.fire(s, senv)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func subjectList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			if s := fmt.Sprint(e); s != "" && e != nil {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return out
	}
	return []string{fmt.Sprint(v)}
}

func runBool(p *vm.Program, env map[string]any) (bool, error) {
	v, err := runExpr(p, env)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

func (r *Rule) finding(subject, kind string) Finding {
	sum := sha256.Sum256([]byte(r.ID + "\x00" + subject))
	return Finding{Rule: r.ID, Pattern: r.Pattern, Severity: r.Severity, Status: StatusFiring,
		Title: r.Title, Subject: subject, SubjectKind: kind, Remediation: r.remediationDefault,
		References: r.References, Fingerprint: hex.EncodeToString(sum[:8])}
}

// fire builds a firing finding: its values, summary and evidence.
func (r *Rule) fire(subject string, env map[string]any) (Finding, error) {
	kind := r.SubjectKind
	if subject == "cluster" {
		kind = "cluster"
	}
	f := r.finding(subject, kind)
	if err := r.compiledValues(); err != nil {
		return f, err
	}
	values := map[string]any{}
	for _, v := range r.values {
		out, err := runExpr(v.prog, env)
		if err != nil {
			return f, fmt.Errorf("values.%s for %s: %w", v.name, subject, err)
		}
		// Numbers reach templates as float64, whatever expr made of them,
		// so `gt .values.x 0.0` works for 0 and 0.5 alike.
		switch n := out.(type) {
		case int:
			out = float64(n)
		case int64:
			out = float64(n)
		}
		values[v.name] = out
	}
	data := make(map[string]any, len(env)+1)
	for k, v := range env {
		data[k] = v
	}
	data["values"] = values
	if subject != "cluster" {
		data["subject_name"] = subject // the name the finding shows (subject may be an id)
	}
	delete(data, budgetKey)
	b, _ := env[budgetKey].(*budget)
	if b == nil {
		b = newBudget(context.Background(), DefaultBudget)
	}
	summary, err := b.execSummary(r.summary, data)
	if err != nil {
		return f, fmt.Errorf("summary for %s: %w", subject, err)
	}
	f.Summary = strings.TrimSpace(summary)
	if r.remediationPlain && b.SummaryBytes > 0 && int64(len(r.Remediation)) > b.SummaryBytes {
		// What running it as a template would fail with (cappedWriter).
		return f, fmt.Errorf("remediation for %s: %w", subject, b.fail("a summary longer than %d bytes", b.SummaryBytes))
	}
	if r.remediation != nil {
		rem, err := b.execSummary(r.remediation, data)
		if err != nil {
			return f, fmt.Errorf("remediation for %s: %w", subject, err)
		}
		f.Remediation = strings.TrimSpace(rem)
	}
	names := r.evidence
	if len(names) == 0 {
		for _, s := range r.Signals {
			names = append(names, s.Name)
		}
	}
	for _, name := range names {
		rows, _ := env[name].([]Row)
		var metrics []string
		for _, s := range r.Signals {
			if s.Name == name {
				metrics = s.metricNames
			}
		}
		for _, row := range pickEvidence(rows, maxEvidencePerSignal) {
			f.Evidence = append(f.Evidence, rowEvidence(name, metrics, row))
		}
	}
	return f, nil
}

const maxEvidencePerSignal = 5

// pickEvidence keeps the first two and the last rows up to n: the start of a
// story and its latest state.
func pickEvidence(rows []Row, n int) []Row {
	if len(rows) <= n {
		return rows
	}
	out := append([]Row{}, rows[:2]...)
	return append(out, rows[len(rows)-(n-2):]...)
}

// rowEvidence is a row as evidence. A metric value whose series lost its
// name (an aggregation) says which signal it is and what it was computed
// from: "memory (process_resident_memory_bytes) {pod="rw-compute-1"} = 1.6e+10",
// not "{pod="rw-compute-1"} = 1.6e+10"; metrics are the signal's metric
// names.
func rowEvidence(signal string, metrics []string, row Row) Evidence {
	e := Evidence{Signal: signal}
	e.Path, _ = row["path"].(string)
	switch l := row["line"].(type) {
	case int:
		e.Line = l
	case int64:
		e.Line = int(l)
	}
	if t, ok := row["time"].(time.Time); ok {
		e.Time = t.UTC()
	}
	if s, ok := row["series"].(string); ok {
		if s == "" || s == "{}" {
			s = signal // an aggregate with no labels left: name it by its signal
		}
		e.Series = s
		if v := toFloat(row["value"]); !math.IsNaN(v) && !math.IsInf(v, 0) {
			e.Value = &v
		}
	}
	switch {
	case row["text"] != nil && fmt.Sprint(row["text"]) != "":
		e.Text = fmt.Sprint(row["text"])
	case e.Series != "" && e.Value != nil:
		e.Text = metricText(signal, metrics, e.Series) + " = " + strconv.FormatFloat(*e.Value, 'g', 6, 64)
	default:
		e.Text = rowText(row)
	}
	return e
}

// metricText names a series for evidence: as it is when it has a metric
// name, else the signal and the metrics it reads, then its labels.
func metricText(signal string, metrics []string, series string) string {
	if series != signal && !strings.HasPrefix(series, "{") {
		return series // named: process_resident_memory_bytes{pod="..."}
	}
	name := signal
	if len(metrics) > 0 {
		name += " (" + strings.Join(metrics, ", ") + ")"
	}
	if series == signal || series == "{}" {
		return name
	}
	return name + " " + series
}

// rowText renders a row as "k=v, ..." in key order, skipping bookkeeping keys.
func rowText(row Row) string {
	keys := make([]string, 0, len(row))
	for k := range row {
		switch k {
		case "path", "line", "time", "text", "series":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := fmt.Sprint(row[k])
		if len(v) > 120 {
			v = v[:117] + "..."
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

// missingInputs explains which signals are unavailable and what to collect.
func missingInputs(r *Rule, results map[string]*signalResult) (reason, collect string) {
	// Signals missing for the same reason are named together: "latency,
	// piled: no metrics in the bundle", not the reason once per signal.
	var order, collects []string
	bySame := map[string][]string{}
	seen := map[string]bool{}
	for _, s := range r.Signals {
		sr := results[s.Name]
		if sr.available || (r.requiresNames != nil && !r.requiresNames[s.Name]) {
			continue
		}
		if bySame[sr.reason] == nil {
			order = append(order, sr.reason)
		}
		bySame[sr.reason] = append(bySame[sr.reason], s.Name)
		if sr.collect != "" && !seen[sr.collect] {
			seen[sr.collect] = true
			collects = append(collects, sr.collect)
		}
	}
	reasons := make([]string, len(order))
	for i, why := range order {
		reasons[i] = strings.Join(bySame[why], ", ") + ": " + why
	}
	return strings.Join(reasons, "; "), strings.Join(collects, "; ")
}

// evalSignal runs one signal over the evidence. An error is a failure of the
// query itself; absent inputs are an unavailable result, not an error.
func (ev *Gathered) evalSignal(ctx context.Context, s *Signal) (*signalResult, error) {
	switch s.Kind {
	case SignalPromQL:
		if ev.Metrics.Empty() {
			return ev.unavailable("no metrics in the bundle",
				"metrics scrapes (metrics/<pod>/<unix-millis>.prom: curl http://<pod>:<metrics-port>/metrics)",
				func(e bundle.CollectError) bool { return e.Step == "metrics" }), nil
		}
		ok, missing, err := ev.Metrics.Readable(s.PromQL)
		if err != nil {
			return nil, err
		}
		if !ok {
			return ev.unavailable(fmt.Sprintf("%s not in any scrape", strings.Join(missing, ", ")),
				"metrics scrapes of every RisingWave pod, compute and meta alike (metrics/<pod>/<unix-millis>.prom: curl http://<pod>:<metrics-port>/metrics; a RisingWave version may export other names)",
				func(e bundle.CollectError) bool { return e.Step == "metrics" }), nil
		}
		rows, err := ev.Metrics.Query(ctx, s.PromQL, ev.EvalTime())
		if err != nil {
			return nil, err
		}
		return &signalResult{rows: nonNil(rows), available: true, coverage: ev.metricsCoverageOf(s.PromQL)}, nil
	case SignalSQL:
		var reasons, absent []string
		for _, q := range s.SQL {
			if missing := ev.SQL.MissingTables(q); len(missing) > 0 {
				// The query and its fallbacks often lack the same dumps:
				// name each once.
				for _, m := range missing {
					absent = append(absent, bundle.SQLPath(m))
				}
				continue
			}
			_, rows, err := ev.SQL.Query(ctx, q)
			if err != nil && (errors.Is(err, sqlstore.ErrLimit) || ctx.Err() != nil) {
				// Stopped by the SQL budget: the rule's error, not a
				// reason to try the fallback.
				return nil, err
			}
			if err != nil {
				// A column this RisingWave version lacks: try the fallback.
				reasons = append(reasons, err.Error())
				continue
			}
			ev.annotateSQL(q, rows)
			return &signalResult{rows: nonNil(rows), available: true, coverage: ev.sqlCoverage(q)}, nil
		}
		if absent = dedupe(absent); len(absent) > 0 {
			reasons = append([]string{ev.absentFiles(absent)}, reasons...)
		}
		return ev.unavailable(strings.Join(dedupe(reasons), "; "),
			"the rw_catalog dumps (sql/<relation>.csv: psql --csv -c 'SELECT * FROM rw_catalog.<relation>')",
			func(e bundle.CollectError) bool { return e.Step == "sql" }), nil
	case SignalKube:
		if !ev.Kube.Has(s.Kube.Resource) {
			p := bundle.KubePath(s.Kube.Resource)
			return ev.unavailable(ev.absentFiles([]string{p}),
				fmt.Sprintf("%s (kubectl get %s -n <namespace> -o json)", p, s.Kube.Resource),
				func(e bundle.CollectError) bool { return e.Path == p || e.Target == s.Kube.Resource }), nil
		}
		rows, err := ev.Kube.Query(*s.Kube)
		if err != nil {
			return nil, err
		}
		return &signalResult{rows: nonNil(rows), available: true, coverage: ev.kubeCoverage(s.Kube.Resource)}, nil
	case SignalLog:
		rows, _, nfiles := ev.Logs.Results(s.Log.Name)
		if nfiles == 0 {
			var kinds []string
			for _, k := range s.Log.Kinds {
				kinds = append(kinds, k.String())
			}
			return ev.unavailable(fmt.Sprintf("no %s files in the bundle", strings.Join(kinds, " or ")),
				collectHint(s.Log.Kinds),
				func(e bundle.CollectError) bool { return e.Step == "logs" || e.Step == "diagnose" }), nil
		}
		files := ev.logFilesOf(s.Log.Kinds, s.component)
		if len(files) == 0 {
			what := "no " + s.component + " logs in the bundle"
			if others := ev.logComponents(s.Log.Kinds); others != "" {
				what += " (" + others + ")"
			}
			if bad := ev.unparsedLogsOf(s.component); len(bad) > 0 {
				what = "no line of " + strings.Join(bad, ", ") + " could be parsed as a log line"
			}
			return ev.unavailable(what, "the "+s.component+" pods' logs (logs/<pod>/<container>.log: kubectl logs <pod> -c <container> --timestamps, and --previous)",
				func(e bundle.CollectError) bool { return e.Step == "logs" }), nil
		}
		out := make([]Row, 0, len(rows))
		seen := map[string]bool{} // a line's container, time and text, and whether it was in .previous.log
		for _, row := range rows {
			pod, _ := row["pod"].(string)
			comp := ev.Component(pod)
			if !kube.ComponentMatches(s.component, comp) {
				continue
			}
			// The same line (same time and text) in a container's .log and
			// .previous.log is one event (a container's log cut twice), not
			// two: one start logged in both is one start.
			if key, prev, ok := logLineKey(row); ok {
				if seen[key+"\x00"+strconv.FormatBool(!prev)] {
					continue
				}
				seen[key+"\x00"+strconv.FormatBool(prev)] = true
			}
			row["component"] = comp
			out = append(out, row)
		}
		return &signalResult{rows: out, available: true, coverage: ev.logCoverage(files, s.component)}, nil
	case SignalAwaitTree:
		return ev.evalAwaitTree(s.AwaitTree), nil
	}
	return nil, fmt.Errorf("unknown signal kind %q", s.Kind)
}

func (ev *Gathered) unavailable(reason, collect string, failed func(bundle.CollectError) bool) *signalResult {
	if f := ev.collectionFailure(failed); f != "" {
		reason += " (collection failed: " + f + ")"
	}
	// "no metrics in the bundle" is not true when reading stopped early:
	// they may sit after the damage.
	if n := ev.stoppedNote(); n != "" && !strings.Contains(reason, "reading stopped") {
		reason += n
	}
	return &signalResult{rows: []Row{}, reason: reason, collect: collect}
}

// logLineKey identifies a log row by its container, time and text, and
// says whether it came from a .previous.log; ok is false for a row without
// a time.
func logLineKey(row Row) (key string, previous, ok bool) {
	t, ok := row["time"].(time.Time)
	if !ok || t.IsZero() {
		return "", false, false
	}
	pod, _ := row["pod"].(string)
	container, _ := row["container"].(string)
	previous, _ = row["previous"].(bool)
	return pod + "\x00" + container + "\x00" + t.UTC().Format(time.RFC3339Nano) + "\x00" + fmt.Sprint(row["text"]), previous, true
}

func nonNil(rows []Row) []Row {
	if rows == nil {
		return []Row{}
	}
	return rows
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// annotateSQL gives SQL rows a path (of the dumped table the query names
// whose columns hold most of the row's fields) and a text, for evidence.
func (ev *Gathered) annotateSQL(q string, rows []Row) {
	tables := map[string][]string{}
	for _, t := range ev.SQL.Tables() {
		tables[t.Name] = t.Columns
	}
	path, best := "", -1
	for _, id := range identRE.FindAllString(q, -1) {
		cols, ok := tables[id]
		if !ok {
			continue
		}
		score := 0
		if len(rows) > 0 {
			for _, c := range cols {
				if _, ok := rows[0][c]; ok {
					score++
				}
			}
		}
		if score > best {
			path, best = bundle.SQLPath(id), score
		}
	}
	for _, row := range rows {
		if _, ok := row["path"]; !ok && path != "" {
			row["path"] = path
		}
		if _, ok := row["text"]; !ok {
			row["text"] = rowText(row)
		}
	}
}

// collectHint says how to capture the files of the given kinds.
func collectHint(kinds []bundle.Kind) string {
	var hints []string
	seen := map[string]bool{}
	for _, k := range kinds {
		var h string
		switch k {
		case bundle.KindLog, bundle.KindPreviousLog:
			h = "pod logs (logs/<pod>/<container>.log: kubectl logs <pod> -c <container> --timestamps, and --previous)"
		case bundle.KindDescribe:
			h = "kubectl describe pod output (kubernetes/describe/pods/<pod>.txt)"
		case bundle.KindDiagnoseReport, bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON:
			h = "the meta node's diagnose report (diagnose/report.txt: GET /api/monitor/diagnose/ on the meta dashboard)"
		case bundle.KindKafkaGroups:
			h = "Kafka consumer groups (kafka/consumer-groups.txt: kafka-consumer-groups.sh --describe --all-groups)"
		case bundle.KindSQLExplain:
			h = "EXPLAIN of each job (sql/explain/<relation>.txt)"
		}
		if h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	return strings.Join(hints, "; ")
}
