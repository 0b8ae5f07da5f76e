package report

import (
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
)

// knownReport is a report with one pattern finding, a known issue that
// explains it, and entries that were not checked or out of range.
func knownReport() *analyze.Report {
	r := &analyze.Report{SchemaVersion: analyze.ReportSchemaVersion, Tool: "rwdiag",
		Bundle: analyze.BundleInfo{Path: "b", HandMade: true, RisingWaveVersion: "1.10.2", Files: 3}}
	r.Findings = []analyze.Finding{{
		Rule: "hot-join-key", Pattern: "hot-join-key", Severity: analyze.SeverityWarning, Status: analyze.StatusFiring,
		Title: "A hot join key", Subject: "fragment 453", SubjectKind: "fragment", Summary: "hot", Remediation: "fix the key",
		Fingerprint: "1111111111111111",
		Links:       []analyze.Link{{Relation: "caused-by", Rule: "rw-17858-join-amplification-log-suppressed", Subject: "cluster", Fingerprint: "2222222222222222"}},
	}, {
		Rule: "rw-17858-join-amplification-log-suppressed", Pattern: analyze.PatternKnownIssue, Severity: analyze.SeverityWarning,
		Status: analyze.StatusFiring, Title: "Join amplification warnings suppressed", Subject: "cluster", SubjectKind: "cluster",
		Summary:     "Matches risingwavelabs/risingwave#17858 (affects v1.9.1 to before v2.0.0, fixed in v2.0.0); this cluster runs v1.10.2: upgrade to v2.0.0 or later.",
		Remediation: "Upgrade RisingWave to v2.0.0 or later.", Fingerprint: "2222222222222222", Kind: analyze.FindingKindKnownIssue,
		Links: []analyze.Link{{Relation: "explains", Rule: "hot-join-key", Subject: "fragment 453", Fingerprint: "1111111111111111"}},
		KnownIssue: &analyze.KnownIssueInfo{Issue: 17858, PRs: []int{17861}, Affects: ">= 1.9.1, < 2.0.0", FixedIn: []string{"v2.0.0"},
			Status: "fixed", UpgradeTo: "v2.0.0", Links: []string{"https://github.com/risingwavelabs/risingwave/issues/17858"}},
	}}
	k := analyze.FindingKindKnownIssue
	r.Rules = []analyze.RuleResult{
		{ID: "hot-join-key", Status: analyze.RuleFired},
		{ID: "barrier-stall-slow-compute-node", Status: analyze.RuleInconclusive, Reason: "progress: no metrics in the bundle"},
		{ID: "rw-17858-join-amplification-log-suppressed", Status: analyze.RuleFired, Kind: k},
		{ID: "rw-17923-backup-manifest-missing-state-table-info", Status: analyze.RuleInconclusive, Kind: k, Reason: "panic: no meta logs in the bundle"},
		{ID: "rw-22723-meta-panic", Status: analyze.RuleInconclusive, Kind: k, Reason: "panic: no meta logs in the bundle"},
		{ID: "rw-18401-compute-rejected-license-cpu-check", Status: analyze.RuleSkipped, Kind: k, Reason: "RisingWave 1.10.2 is outside the affected versions"},
		{ID: "rw-20544-recovery", Status: analyze.RulePassed, Kind: k},
	}
	return r
}

// Known-issue findings show their bug in every format; the entries are
// counted in one line, apart from the rules, and the ones not checked or
// out of range are not listed one by one.
func TestKnownIssueRendering(t *testing.T) {
	r := knownReport()
	if err := validateReportJSON(compileReportSchema(t), renderReport(t, r, FormatJSON)); err != nil {
		t.Fatalf("JSON with a known issue does not validate: %v", err)
	}
	json := string(renderReport(t, r, FormatJSON))
	for _, want := range []string{`"kind": "known-issue"`, `"upgrade_to": "v2.0.0"`, `"fixed_in": [`} {
		if !strings.Contains(json, want) {
			t.Errorf("JSON has no %s", want)
		}
	}
	line := "5 known issues: 1 matched, 1 not matched, 2 not checked (no meta logs in the bundle), 1 outside their versions"
	for f, wants := range map[Format][]string{
		FormatTable: {"2 rules: 1 fired, 1 inconclusive", "5 known issues: 1 matched, 1 not matched, 2 not checked (no meta logs in the bundle), 1 outside\ntheir versions",
			"known issue risingwavelabs/risingwave#17858, status fixed, upgrade to v2.0.0",
			"see https://github.com/risingwavelabs/risingwave/issues/17858",
			"caused by rw-17858-join-amplification-log-suppressed (cluster)"},
		FormatMarkdown: {"2 rules: 1 fired, 1 inconclusive", "5 known issues: 1 matched",
			"**Known issue:** risingwavelabs/risingwave#17858, status fixed, upgrade to v2.0.0"},
		FormatHTML: {"<p>2 rules: 1 fired, 1 inconclusive.</p>", "<p>" + line + ".</p>",
			`known issue <a href="https://github.com/risingwavelabs/risingwave/issues/17858" rel="noopener noreferrer">risingwavelabs/risingwave#17858</a> · affects <code>&gt;= 1.9.1, &lt; 2.0.0</code> · fixed in <code>v2.0.0</code> · status fixed · upgrade to <code>v2.0.0</code>`},
	} {
		out := string(renderReport(t, r, f))
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s has no %q:\n%s", f, w, out)
			}
		}
		// Entries not checked or out of range are in the count, not listed.
		for _, id := range []string{"rw-17923-backup-manifest-missing-state-table-info", "rw-18401-compute-rejected-license-cpu-check"} {
			if strings.Contains(out, id) {
				t.Errorf("%s lists %s one by one", f, id)
			}
		}
	}
	if got := tally(r).summaryLine(); got != "2 warning findings; 1 rule inconclusive" {
		t.Errorf("summary line %q: entries not checked are not inconclusive rules", got)
	}
}
