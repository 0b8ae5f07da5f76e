package analyze

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/analyze/metrics"
	"github.com/rwdiag/rwdiag/analyze/sqlstore"
	"github.com/rwdiag/rwdiag/bundle"
)

// validLevels are the levels a log signal's min_level may name.
var validLevels = map[string]bool{"": true, "TRACE": true, "DEBUG": true, "INFO": true, "WARN": true, "ERROR": true}

// compileSignal checks and compiles one signal of a rule, in whichever
// evidence language it is written; nil when it has a problem.
func (l *loader) compileSignal(path, name string, ss signalSpec) *Signal {
	s := &Signal{Name: name, Description: ss.Description}
	set := 0
	if ss.PromQL != "" {
		set++
		s.Kind = SignalPromQL
	}
	if ss.SQL != "" {
		set++
		s.Kind = SignalSQL
	}
	if ss.Kube != nil {
		set++
		s.Kind = SignalKube
	}
	if ss.Log != nil {
		set++
		s.Kind = SignalLog
	}
	if ss.AwaitTree != nil {
		set++
		s.Kind = SignalAwaitTree
	}
	if set != 1 {
		l.add(path, "", "give exactly one of promql, sql, kube, log or awaittree")
		return nil
	}
	if len(ss.SQLFallback) > 0 && s.Kind != SignalSQL {
		l.add(path, "sql_fallback", "only with sql")
	}
	before := len(l.probs)
	switch s.Kind {
	case SignalPromQL:
		s.PromQL = ss.PromQL
		if n, ok := builtinPromQLNames[ss.PromQL]; ok && l.lazy {
			// A built-in rule's query: it parses and lints clean, and its
			// metric names were worked out ahead (load_cache.go).
			s.metricNames, s.allMetrics = slices.Clone(n.names), n.all
			break
		}
		if err := metrics.CheckPromQL(ss.PromQL); err != nil {
			l.add(path, "promql", "%s", oneLine(err.Error()))
			break
		}
		l.lintNotes(path, "promql", lintPromQL(ss.PromQL))
		names, all, err := metrics.Names(ss.PromQL)
		if err != nil {
			l.add(path, "promql", "%s", oneLine(err.Error()))
		}
		s.metricNames, s.allMetrics = names, all
	case SignalSQL:
		s.SQL = append([]string{ss.SQL}, ss.SQLFallback...)
		for i, q := range s.SQL {
			field := "sql"
			if i > 0 {
				field = fmt.Sprintf("sql_fallback[%d]", i-1)
			}
			if l.lazy {
				continue // a built-in rule's query, which checks and lints clean
			}
			if err := sqlstore.Check(q); err != nil {
				l.add(path, field, "%s", oneLine(err.Error()))
				continue
			}
			l.lintNotes(path, field, lintSQL(q))
		}
	case SignalKube:
		k := ss.Kube
		if k.Resource == "" {
			l.add(path, "kube.resource", "required (pods, events, nodes, statefulsets, ...)")
		}
		if err := kube.CheckPath(k.Path); k.Path != "" && err != nil {
			l.add(path, "kube.path", "%v", err)
		}
		for f, p := range k.Fields {
			if err := kube.CheckPath(p); err != nil {
				l.add(path, "kube.fields."+f, "%v", err)
			}
		}
		s.Kube = &kube.Query{Resource: k.Resource, Component: k.Component, Labels: k.Labels, Path: k.Path, Fields: k.Fields}
	case SignalAwaitTree:
		q, err := compileAwaitTreeQuery(ss.AwaitTree)
		if err != nil {
			l.add(path, "awaittree", "%v", err)
		}
		s.AwaitTree = q
	case SignalLog:
		lg := ss.Log
		q := &logs.Query{Name: l.rule + "/" + name, Container: lg.Container,
			MinLevel: strings.ToUpper(lg.MinLevel), MaxRows: lg.MaxRows}
		s.Log = q
		s.component = lg.Component
		var err error
		if l.lazy {
			// A built-in rule's query: its expressions compile and it
			// checks clean (its tests prove it), so they are compiled
			// when first needed, most of them never: the scanner's
			// prefilter lets no line through to them.
			q.Source, q.SectionSource = lg.Regex, lg.Section
		} else {
			if lg.Regex == "" {
				l.add(path, "log.regex", "required")
			}
			if q.Regex, err = regexp.Compile(lg.Regex); err != nil {
				l.add(path, "log.regex", "%v", err)
			}
		}
		if q.Kinds, err = parseKinds(lg.Files); err != nil {
			l.add(path, "log.files", "%v", err)
		}
		if !validLevels[q.MinLevel] {
			l.add(path, "log.min_level", "%q is not one of TRACE, DEBUG, INFO, WARN, ERROR", lg.MinLevel)
		}
		if lg.MaxRows < 0 {
			l.add(path, "log.max_rows", "must not be negative")
		}
		if lg.Section != "" && !l.lazy {
			if q.Section, err = regexp.Compile(lg.Section); err != nil {
				l.add(path, "log.section", "%v", err)
			}
		}
		if q.Regex != nil && len(l.probs) == before {
			if err := logs.CheckQuery(q); err != nil {
				l.add(path, "log.regex", "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("log query %q: ", q.Name)))
			}
		}
	}
	if len(l.probs) > before {
		return nil
	}
	return s
}

// lintNotes records what lint found in a field: errors as problems,
// the rest as warnings.
func (l *loader) lintNotes(path, field string, notes []lintNote) {
	for _, n := range notes {
		if n.err {
			l.add(path, field, "%s", n.msg)
		} else {
			l.warn(path, field, "%s", n.msg)
		}
	}
}

// logFileKinds are the kinds a log signal may read, by name.
var logFileKinds = []bundle.Kind{
	bundle.KindLog, bundle.KindPreviousLog, bundle.KindDescribe, bundle.KindDiagnoseReport,
	bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON, bundle.KindKafkaGroups, bundle.KindSQLExplain,
}

func parseKinds(names []string) ([]bundle.Kind, error) {
	if len(names) == 0 {
		return []bundle.Kind{bundle.KindLog, bundle.KindPreviousLog}, nil
	}
	var kinds []bundle.Kind
	for _, n := range names {
		found := false
		for _, k := range logFileKinds {
			if k.String() == n {
				kinds = append(kinds, k)
				found = true
			}
		}
		if !found {
			var known []string
			for _, k := range logFileKinds {
				known = append(known, k.String())
			}
			return nil, fmt.Errorf("unknown file kind %q (known: %s)", n, strings.Join(known, ", "))
		}
	}
	return kinds, nil
}
