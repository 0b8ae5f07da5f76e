package analyze

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Budget bounds what evaluating one rule may cost, so that no rule file
// (--rules are third-party code) can hang analysis or exhaust the machine.
// A rule that exceeds it is reported as an error naming the rule and the
// budget; the other rules still run. PromQL and SQL queries are bounded
// inside their stores (max samples, time and row limits) and also get the
// rule's deadline through their context.
type Budget struct {
	// Time is the wall time of the rule's whole evaluation: its queries,
	// expressions and summaries.
	Time time.Duration
	// ExprSteps bounds the iterations of the closures of every expression
	// the rule runs (filter, map, any, reduce, ... bodies) and the values
	// they build, together: a quadratic expression over many rows stops.
	ExprSteps int64
	// ExprBytes bounds the sizes of the strings, lists and maps the rule's
	// expressions build, summed (each string byte, 16 per list element, 64
	// per map entry), and MaxValueBytes any one of them.
	ExprBytes     int64
	MaxValueBytes int64
	// TemplateSteps bounds the {{range}} iterations and template calls of
	// its summaries, and SummaryBytes the length of one summary.
	TemplateSteps int64
	SummaryBytes  int64
}

// DefaultBudget is what every rule gets by default: far above what the
// built-in rules use on the largest bundles measured (see
// BenchmarkBuiltinRuleCost), and small enough that a runaway rule fails
// within minutes and a few GB.
var DefaultBudget = Budget{
	Time:          2 * time.Minute,
	ExprSteps:     200_000_000,
	ExprBytes:     2 << 30,
	MaxValueBytes: 256 << 20,
	TemplateSteps: 10_000_000,
	SummaryBytes:  1 << 20,
}

// witnessBudget bounds the expressions run while loading rules, to learn
// the type of a let's result on empty rows.
var witnessBudget = Budget{Time: 5 * time.Second, ExprSteps: 1_000_000, ExprBytes: 64 << 20,
	MaxValueBytes: 16 << 20, TemplateSteps: 1_000_000, SummaryBytes: 1 << 20}

// ErrBudget is what a rule that exceeded its budget fails with.
var ErrBudget = errors.New("evaluation budget exceeded")

// budgetError names the budget a rule exceeded.
type budgetError struct{ msg string }

func (e *budgetError) Error() string        { return "exceeded its evaluation budget: " + e.msg }
func (e *budgetError) Is(target error) bool { return target == ErrBudget }

// budgetKey is the name under which expressions find the running rule's
// budget; no expression can spell it (it is not an identifier).
const budgetKey = "rwdiag budget"

// observeBudget, when set (by benchmarks), sees each rule's account once
// it was evaluated.
// Rules are evaluated concurrently: calls are serialised by
// observeBudgetMu.
var (
	observeBudget   func(rule string, b *budget)
	observeBudgetMu sync.Mutex
)

// budget is one rule evaluation's account against its Budget.
type budget struct {
	Budget
	ctx      context.Context
	deadline time.Time
	steps    int64
	bytes    int64
	tsteps   int64
	err      error // the first budget exceeded; sticky
}

func newBudget(ctx context.Context, b Budget) *budget {
	bu := &budget{Budget: b, ctx: ctx}
	if b.Time > 0 {
		bu.deadline = time.Now().Add(b.Time)
	}
	return bu
}

// String keeps the budget's internals out of a template that prints it.
func (b *budget) String() string { return "budget" }

func (b *budget) fail(format string, args ...any) error {
	if b.err == nil {
		b.err = &budgetError{fmt.Sprintf(format, args...)}
	}
	return b.err
}

// checkTime fails once the deadline passed or the context ended.
func (b *budget) checkTime() error {
	if b.err != nil {
		return b.err
	}
	if !b.deadline.IsZero() && !time.Now().Before(b.deadline) {
		return b.fail("its time limit of %v", b.Time)
	}
	if b.ctx != nil {
		if err := b.ctx.Err(); err != nil {
			return b.fail("analysis interrupted (%v)", err)
		}
	}
	return nil
}

// step counts one closure iteration that built v.
func (b *budget) step(v any) error {
	if b.err != nil {
		return b.err
	}
	b.steps++
	if b.ExprSteps > 0 && b.steps > b.ExprSteps {
		return b.fail("%d expression steps (closure iterations)", b.ExprSteps)
	}
	if n := sizeOf(v); n > 0 {
		if b.MaxValueBytes > 0 && n > b.MaxValueBytes {
			return b.fail("a value of %d bytes, over the limit of %d for one value", n, b.MaxValueBytes)
		}
		b.bytes += n
		if b.ExprBytes > 0 && b.bytes > b.ExprBytes {
			return b.fail("%d bytes of values built by expressions", b.ExprBytes)
		}
	}
	if b.steps&1023 == 0 {
		return b.checkTime()
	}
	return nil
}

// sizeOf estimates the bytes a value built: a string's bytes, 16 per
// element of a list, 64 per entry of a map; scalars count nothing.
func sizeOf(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return 0
	case string:
		return int64(len(x))
	case []any:
		return 16 * int64(len(x))
	case []string:
		n := int64(16 * len(x))
		for _, s := range x {
			n += int64(len(s))
		}
		return n
	case []Row:
		return 16 * int64(len(x))
	case map[string]any:
		return 64 * int64(len(x))
	case Row:
		return 64 * int64(len(x))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return int64(rv.Len())
	case reflect.Slice, reflect.Array:
		return 16 * int64(rv.Len())
	case reflect.Map:
		return 64 * int64(rv.Len())
	}
	return 0
}

// tickTypes are the static types whose values the budget's counting
// functions pass on unchanged, each under its own function so that the
// type checker still knows the type; values of other types pass through
// __tick_any and are known as interface values after it.
var tickTypes = []struct {
	name string
	typ  any
}{
	{"__tick_bool", new(func(any, bool) bool)},
	{"__tick_int", new(func(any, int) int)},
	{"__tick_float", new(func(any, float64) float64)},
	{"__tick_string", new(func(any, string) string)},
	{"__tick_list", new(func(any, []any) []any)},
	{"__tick_strings", new(func(any, []string) []string)},
	{"__tick_rows", new(func(any, []Row) []Row)},
	{"__tick_map", new(func(any, map[string]any) map[string]any)},
	{"__tick_time", new(func(any, time.Time) time.Time)},
	{"__tick_duration", new(func(any, time.Duration) time.Duration)},
	{"__tick_any", new(func(any, any) any)},
}

// tickName is the counting function for a node of type t; "" when a value
// of t would lose its static type through __tick_any.
func tickName(t reflect.Type) string {
	if t == nil || t.Kind() == reflect.Interface {
		return "__tick_any"
	}
	for _, tt := range tickTypes {
		ft := reflect.TypeOf(tt.typ).Elem()
		if ft.Out(0) == t {
			return tt.name
		}
	}
	return ""
}

// tickFunctions are the counting functions, for the expression compiler.
func tickFunctions() []expr.Option {
	opts := make([]expr.Option, 0, len(tickTypes))
	for _, tt := range tickTypes {
		opts = append(opts, expr.Function(tt.name, func(p ...any) (any, error) {
			if b, ok := p[0].(*budget); ok && b != nil {
				if err := b.step(p[1]); err != nil {
					return nil, err
				}
			}
			return p[1], nil
		}, tt.typ))
	}
	return opts
}

// budgetPatcher makes a compiled expression count against the running
// rule's budget: every closure body (each iteration of filter, map, all,
// reduce, sortBy, ...), every + (string and list concatenation) and every
// function call that builds a string, list or map passes its value through
// a counting function, which fails the expression once the budget is spent.
type budgetPatcher struct{}

func (budgetPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.PredicateNode:
		name := tickName(n.Node.Type())
		if name == "" {
			name = "__tick_any" // a closure's value is only handed to its builtin
		}
		wrapTick(&n.Node, name)
	case *ast.BinaryNode:
		if n.Operator == "+" {
			if name := tickName(n.Type()); name != "" && builds(n.Type()) {
				wrapTick(node, name)
			}
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && strings.HasPrefix(id.Value, "__tick_") {
			return
		}
		if name := tickName(n.Type()); name != "" && builds(n.Type()) {
			wrapTick(node, name)
		}
	case *ast.BuiltinNode:
		if name := tickName(n.Type()); name != "" && builds(n.Type()) {
			wrapTick(node, name)
		}
	}
}

// builds reports whether values of type t can be large: strings, lists,
// maps and values of unknown type.
func builds(t reflect.Type) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case reflect.Interface, reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return true
	}
	return false
}

func wrapTick(node *ast.Node, name string) {
	ast.Patch(node, &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: name},
		Arguments: []ast.Node{&ast.IdentifierNode{Value: budgetKey}, *node},
	})
}

// runExpr runs a compiled expression; when the rule's budget was exceeded
// the error says so.
func runExpr(p *vm.Program, env map[string]any) (any, error) {
	v, err := expr.Run(p, env)
	if err != nil {
		if b, _ := env[budgetKey].(*budget); b != nil && b.err != nil {
			return nil, b.err
		}
	}
	return v, err
}

// Templates.

// tickAction is {{__tick}}, inserted at the start of every {{range}} body
// and every template of a summary.
var tickAction = func() parse.Node {
	t := template.Must(template.New("tick").Funcs(template.FuncMap{"__tick": func() string { return "" }}).Parse("{{__tick}}"))
	return t.Tree.Root.Nodes[0]
}()

// instrumentTemplate makes a parsed summary count against the budget and
// rejects templates that call themselves, directly or through others: a
// summary is a sentence, not a program.
func instrumentTemplate(t *template.Template) error {
	calls := map[string][]string{}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		var names []string
		instrumentList(tt.Tree.Root, &names)
		calls[tt.Name()] = names
		tt.Tree.Root.Nodes = append([]parse.Node{tickAction}, tt.Tree.Root.Nodes...)
	}
	// A template reachable from itself recurses.
	for _, tt := range t.Templates() {
		if path := cycleFrom(tt.Name(), calls); path != nil {
			return fmt.Errorf("template %q calls itself (%s): templates may not recurse", tt.Name(), strings.Join(path, " -> "))
		}
	}
	return nil
}

// cycleFrom returns a path of template calls from start back to start, or nil.
func cycleFrom(start string, calls map[string][]string) []string {
	seen := map[string]bool{}
	var walk func(name string, path []string) []string
	walk = func(name string, path []string) []string {
		for _, c := range calls[name] {
			if c == start {
				return append(path, c)
			}
			if !seen[c] {
				seen[c] = true
				if p := walk(c, append(path, c)); p != nil {
					return p
				}
			}
		}
		return nil
	}
	return walk(start, []string{start})
}

// instrumentList inserts the tick in every range body under n and collects
// the names of the templates it calls.
func instrumentList(n parse.Node, calls *[]string) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			instrumentList(c, calls)
		}
	case *parse.RangeNode:
		instrumentList(x.List, calls)
		instrumentList(x.ElseList, calls)
		if x.List != nil {
			x.List.Nodes = append([]parse.Node{tickAction}, x.List.Nodes...)
		}
	case *parse.IfNode:
		instrumentList(x.List, calls)
		instrumentList(x.ElseList, calls)
	case *parse.WithNode:
		instrumentList(x.List, calls)
		instrumentList(x.ElseList, calls)
	case *parse.TemplateNode:
		*calls = append(*calls, x.Name)
	}
}

// templateTick counts one range iteration or template call.
func (b *budget) templateTick() (string, error) {
	if b.err != nil {
		return "", b.err
	}
	b.tsteps++
	if b.TemplateSteps > 0 && b.tsteps > b.TemplateSteps {
		return "", b.fail("%d template steps ({{range}} iterations and template calls)", b.TemplateSteps)
	}
	if b.tsteps&255 == 0 {
		return "", b.checkTime()
	}
	return "", nil
}

// execSummary runs a rule's summary template within the budget.
func (b *budget) execSummary(t *template.Template, data any) (string, error) {
	c, err := t.Clone()
	if err != nil {
		return "", err
	}
	c.Funcs(template.FuncMap{"__tick": b.templateTick})
	var sb strings.Builder
	w := &cappedWriter{w: &sb, max: b.SummaryBytes, b: b}
	if err := c.Execute(w, data); err != nil {
		if b.err != nil {
			return "", b.err
		}
		return "", err
	}
	return sb.String(), nil
}

// cappedWriter fails a write past max bytes.
type cappedWriter struct {
	w   io.Writer
	n   int64
	max int64
	b   *budget
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.max > 0 && c.n > c.max {
		return 0, c.b.fail("a summary longer than %d bytes", c.max)
	}
	return c.w.Write(p)
}
