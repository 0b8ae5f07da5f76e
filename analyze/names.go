package analyze

import "slices"

// MetricNamesOf returns the metric names the rules' PromQL signals
// reference, sorted and each once: what a collector must read from a
// Prometheus server for these rules. A selector without a fixed name
// ({job="x"}, {__name__=~"x.*"}) adds nothing, since it would need every
// metric.
func MetricNamesOf(rules []*Rule) []string {
	var names []string
	for _, r := range rules {
		for _, s := range r.Signals {
			if s.Kind == SignalPromQL {
				names = append(names, s.metricNames...)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
