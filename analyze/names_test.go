package analyze

import (
	"slices"
	"testing"
)

func TestMetricNamesOf(t *testing.T) {
	rs, err := ParseRules("names.yaml", []byte(`apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: a
    pattern: p
    severity: info
    title: a
    subject: {kind: cluster}
    signals:
      x:
        promql: rate(stream_barrier_manager_progress[1m]) > 0 and on() all_barrier_nums > 200
      y:
        promql: '{__name__=~"meta_.*"}'
    condition: len(x) > 0
    summary: s
    remediation: r
  - id: b
    pattern: p
    severity: info
    title: b
    subject: {kind: cluster}
    signals:
      z:
        promql: max(all_barrier_nums) by (database_id)
      w:
        log: {regex: 'x'}
    condition: len(z) > 0
    summary: s
    remediation: r
`))
	if err != nil {
		t.Fatal(err)
	}
	got := MetricNamesOf(rs)
	want := []string{"all_barrier_nums", "stream_barrier_manager_progress"}
	if !slices.Equal(got, want) {
		t.Errorf("MetricNamesOf = %q, want %q", got, want)
	}
	if MetricNamesOf(nil) != nil {
		t.Error("no rules, some names")
	}
}
