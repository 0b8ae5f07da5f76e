package metrics

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Readable reports whether the store holds what a query reads, so that an
// empty answer means "nothing there" rather than "nothing scraped". A
// selector is readable when some series of its metric family was scraped
// from a component its `component` matcher accepts (from any component
// when it has none); other label matchers narrow the answer, not what was
// collected, and are not checked. `a or b` needs one side, `a unless b`
// needs a, every other operator and function all of their vector
// arguments; absent() needs nothing. missing names the selectors that made
// the query unreadable, e.g. `stream_barrier_manager_progress
// {component=~"compute|standalone"}`; it is empty when ok.
func (s *Store) Readable(query string) (ok bool, missing []string, err error) {
	expr, err := parsePromQL(expandGrafanaVars(query, placeholderIntervals))
	if err != nil {
		return false, nil, err
	}
	fams := s.families()
	present := func(name string, comp *labels.Matcher) bool {
		for c := range fams[name] {
			if comp == nil || comp.Matches(c) {
				return true
			}
		}
		return false
	}
	ok, missing = readable(expr, present)
	return ok, missing, nil
}

func readable(e parser.Expr, present func(name string, component *labels.Matcher) bool) (bool, []string) {
	var missing []string
	var walk func(e parser.Expr) bool
	walk = func(e parser.Expr) bool {
		switch n := e.(type) {
		case *parser.VectorSelector:
			var comp *labels.Matcher
			name := n.Name
			for _, m := range n.LabelMatchers {
				switch {
				case m.Name == labels.MetricName && m.Type == labels.MatchEqual:
					name = m.Value
				case m.Name == "component":
					comp = m
				}
			}
			if name == "" {
				return true // {__name__=~...}: cannot tell; do not block
			}
			if present(name, comp) {
				return true
			}
			sel := name
			if comp != nil {
				sel += "{" + comp.String() + "}"
			}
			if !slices.Contains(missing, sel) {
				missing = append(missing, sel)
			}
			return false
		case *parser.MatrixSelector:
			return walk(n.VectorSelector)
		case *parser.BinaryExpr:
			l, r := walk(n.LHS), walk(n.RHS)
			switch n.Op {
			case parser.LOR:
				return l || r
			case parser.LUNLESS:
				return l
			}
			return l && r
		case *parser.AggregateExpr:
			return walk(n.Expr)
		case *parser.Call:
			if n.Func != nil && (n.Func.Name == "absent" || n.Func.Name == "absent_over_time") {
				return true
			}
			ok := true
			for _, a := range n.Args {
				ok = walk(a) && ok
			}
			return ok
		case *parser.ParenExpr:
			return walk(n.Expr)
		case *parser.UnaryExpr:
			return walk(n.Expr)
		case *parser.SubqueryExpr:
			return walk(n.Expr)
		case *parser.StepInvariantExpr:
			return walk(n.Expr)
		}
		return true // number and string literals
	}
	if walk(e) {
		return true, nil
	}
	return false, missing
}

// families maps each metric name in the store to the components (by the
// component label; "" for none) it was scraped from.
func (s *Store) families() map[string]map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fams != nil && !s.famsDirty {
		return s.fams
	}
	fams := map[string]map[string]bool{}
	for _, ms := range s.series {
		name, comp := ms.lset.Get(labels.MetricName), ms.lset.Get("component")
		if fams[name] == nil {
			fams[name] = map[string]bool{}
		}
		fams[name][comp] = true
	}
	s.fams, s.famsDirty = fams, false
	return fams
}

// ScrapeCoverage is what the store holds of one component's pods.
type ScrapeCoverage struct {
	Component   string // "" for pods of no known component
	Pods        []string
	Scrapes     int
	First, Last time.Time
}

// Coverage returns, per component, the pods whose scrapes the store read,
// with how many scrapes and when, plus one entry for query_range files
// (Component "prometheus"). component maps a pod to its component.
func (s *Store) Coverage(component func(pod string) string) []ScrapeCoverage {
	by := map[string]*ScrapeCoverage{}
	for pod, files := range s.scrapes {
		c := ""
		if component != nil {
			c = component(pod)
		}
		sc := by[c]
		if sc == nil {
			sc = &ScrapeCoverage{Component: c}
			by[c] = sc
		}
		sc.Pods = append(sc.Pods, pod)
		for _, f := range files {
			sc.Scrapes++
			t := time.UnixMilli(f.t).UTC()
			if sc.First.IsZero() || t.Before(sc.First) {
				sc.First = t
			}
			if t.After(sc.Last) {
				sc.Last = t
			}
		}
	}
	out := make([]ScrapeCoverage, 0, len(by)+1)
	for _, sc := range by {
		sort.Strings(sc.Pods)
		out = append(out, *sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Component < out[j].Component })
	if len(s.rangeSteps) > 0 {
		first, last := s.Span()
		out = append(out, ScrapeCoverage{Component: "prometheus", First: first, Last: last})
	}
	return out
}

// String reads as "compute 3 pods, 12 scrapes 14:00-14:30".
func (c ScrapeCoverage) String() string {
	name := c.Component
	if name == "" {
		name = "other"
	}
	if c.Component == "prometheus" {
		return fmt.Sprintf("Prometheus range queries %s-%s", c.First.Format("15:04"), c.Last.Format("15:04"))
	}
	pods := fmt.Sprintf("%d pods", len(c.Pods))
	if len(c.Pods) == 1 {
		pods = c.Pods[0]
	}
	return fmt.Sprintf("%s (%s), %d scrapes %s-%s", name, pods, c.Scrapes, c.First.Format("15:04"), c.Last.Format("15:04"))
}

// Components returns the components (by the component label, "" for none)
// that the query's selectors read series from: a family's components that
// the selector's component matcher accepts.
func (s *Store) Components(query string) map[string]bool {
	expr, err := parsePromQL(expandGrafanaVars(query, placeholderIntervals))
	if err != nil {
		return nil
	}
	fams := s.families()
	out := map[string]bool{}
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		var comp *labels.Matcher
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			switch {
			case m.Name == labels.MetricName && m.Type == labels.MatchEqual:
				name = m.Value
			case m.Name == "component":
				comp = m
			}
		}
		for c := range fams[name] {
			if comp == nil || comp.Matches(c) {
				out[c] = true
			}
		}
		return nil
	})
	return out
}
