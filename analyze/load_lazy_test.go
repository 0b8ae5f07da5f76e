package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// A remediation with no action is not parsed as a template (every known
// issue's): its findings and errors are those of the same text run as one.
func TestPlainRemediation(t *testing.T) {
	dir := podsBundle(t, 3)
	rule := func(id, remediation string) string {
		return strings.Replace(budgetRule(id, "", "len(rows) > 0", "s"), "    remediation: r\n", "    remediation: "+quoteYAML(remediation)+"\n", 1)
	}
	const text = "Restart the pods, then look at their memory (GiB, not MiB)."
	rs, err := ParseRules("r.yaml", []byte("apiVersion: rwdiag/v1\nkind: RuleSet\nrules:\n"+rule("plain", text)+rule("templated", text+`{{ "" }}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].remediationPlain || rs[0].remediation != nil || rs[1].remediationPlain || rs[1].remediation == nil {
		t.Fatalf("plain: %v %v; templated: %v %v", rs[0].remediationPlain, rs[0].remediation, rs[1].remediationPlain, rs[1].remediation)
	}
	for _, sb := range []int64{DefaultBudget.SummaryBytes, int64(len(text)), int64(len(text)) - 1} {
		b := DefaultBudget
		b.SummaryBytes = sb
		b.Time = time.Minute
		rep := evalWithin(t, dir, b, rule("plain", text), rule("templated", text+`{{ "" }}`))
		var got [2]string
		for i, id := range []string{"plain", "templated"} {
			r := ruleResult(rep, id)
			got[i] = string(r.Status) + " " + strings.ReplaceAll(r.Reason, id, "ID")
			for _, f := range rep.Findings {
				if f.Rule == id {
					got[i] += " | " + f.Remediation
				}
			}
		}
		if got[0] != got[1] {
			t.Errorf("summary bytes %d: plain %q, templated %q", sb, got[0], got[1])
		}
		if want := sb >= int64(len(text)); want != strings.Contains(got[0], "| "+text) {
			t.Errorf("summary bytes %d: %q", sb, got[0])
		}
	}
}

// A lazily loaded rule compiles its requires when first evaluated within
// its versions: never for a rule outside them, and one that does not
// compile is that rule's error.
func TestDeferredRequires(t *testing.T) {
	src := `apiVersion: rwdiag/v1
kind: RuleSet
rules:
  - id: broken-requires
    pattern: p
    severity: warning
    title: t
    signals:
      rows:
        kube: {resource: pods}
    requires: rows + 1
    condition: len(rows) > 0
    summary: s
    remediation: r
  - id: old-versions
    pattern: p
    severity: warning
    title: t
    versions: "< 0.1"
    signals:
      rows:
        kube: {resource: pods}
    requires: rows
    condition: len(rows) > 0
    summary: s
    remediation: r
`
	lazy := &loader{file: "x.yaml", pos: map[string]pos{}, lazy: true}
	rs, err := lazy.parse([]byte(src))
	if err != nil || len(rs) != 2 {
		t.Fatalf("lazy: %d rules, %v", len(rs), err)
	}
	dir := podsBundle(t, 2)
	ctx := context.Background()
	ev, err := Gather(ctx, dir, rs, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	ev.Info.RisingWaveVersion = "2.3.1"
	rep := Evaluate(ctx, ev, rs)
	if r := ruleResult(rep, "broken-requires"); r.Status != RuleError || !strings.Contains(r.Reason, "compiling the rule's requires") {
		t.Errorf("broken requires: %s %q", r.Status, r.Reason)
	}
	if r := ruleResult(rep, "old-versions"); r.Status != RuleSkipped || rs[1].requires != nil {
		t.Errorf("outside its versions: %s %q, requires compiled: %v", r.Status, r.Reason, rs[1].requires != nil)
	}
}
