package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Severity ranks findings.
type Severity int

// Severities, lowest first.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityCritical
)

func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityCritical:
		return "critical"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "info":
		return SeverityInfo, nil
	case "warning":
		return SeverityWarning, nil
	case "critical":
		return SeverityCritical, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want critical, warning or info)", s)
}

// MarshalText makes severities read as words in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity word.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Status is a finding's status.
type Status string

// Finding statuses.
const (
	// StatusFiring: the rule's condition held.
	StatusFiring Status = "firing"
	// StatusInconclusive: the rule's inputs are absent from the bundle, or
	// their collection failed, so it could not be decided.
	StatusInconclusive Status = "inconclusive"
)

// Evidence is one piece of evidence behind a finding: a line of a file, a
// metric series' value, a SQL row or a Kubernetes object field.
type Evidence struct {
	// Signal is the rule's signal that produced it.
	Signal string `json:"signal"`
	// Path is the bundle path it came from.
	Path string `json:"path"`
	// Line is the 1-based line number in Path; 0 when it has none (a metric,
	// a SQL row, a JSON document).
	Line int `json:"line,omitempty"`
	// Text is a short excerpt: the log line, the series and value, the row.
	Text string `json:"text"`
	// Time is when it happened, when known.
	Time time.Time `json:"time,omitzero"`
	// Series and Value are set for metric evidence.
	Series string   `json:"series,omitempty"`
	Value  *float64 `json:"value,omitempty"`
}

// Location is where in the bundle the evidence comes from: "path:line", or
// the path when it has no line.
func (e Evidence) Location() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return e.Path
}

// Finding is what a rule found.
type Finding struct {
	Rule     string   `json:"rule"`
	Pattern  string   `json:"pattern"`
	Severity Severity `json:"severity"`
	Status   Status   `json:"status"`
	Title    string   `json:"title"`
	// Summary is plain text, one paragraph.
	// Subject names what the finding is about: a pod, sink, source or
	// materialized view, or "cluster". SubjectKind says which.
	Subject     string     `json:"subject"`
	SubjectKind string     `json:"subject_kind"`
	Summary     string     `json:"summary"`
	Evidence    []Evidence `json:"evidence"`
	Remediation string     `json:"remediation"`
	References  []string   `json:"references,omitempty"`
	// Fingerprint is stable for the same rule and subject across bundles.
	Fingerprint string `json:"fingerprint"`
	// Links name the other findings of the report that this one was caused
	// by or explains.
	Links []Link `json:"links,omitempty"`
	// Kind is "known-issue" for a finding of a known upstream bug (then
	// KnownIssue says which); absent for a pattern rule's finding.
	Kind       string          `json:"kind,omitempty"`
	KnownIssue *KnownIssueInfo `json:"known_issue,omitempty"`
}

// Link points from a finding to another finding of the same report.
type Link struct {
	// Relation is "caused-by" (the other finding is this one's likely
	// cause) or "explains" (this finding is the other's likely cause).
	Relation    string `json:"relation"`
	Rule        string `json:"rule"`
	Subject     string `json:"subject"`
	Fingerprint string `json:"fingerprint"`
	// Deferred is set on a caused-by link to a cause this finding defers
	// to (its rule's defer_to): the cause is what to fix, and this
	// finding's severity was lowered one step for it.
	Deferred bool `json:"deferred,omitempty"`
}

// String reads as "caused by backfill-starving-live-jobs (mv_x)".
func (l Link) String() string {
	s := strings.ReplaceAll(l.Relation, "-", " ") + " " + l.Rule + " (" + l.Subject + ")"
	if l.Deferred {
		s += ": fix that first (this finding defers to it, one severity lower)"
	}
	return s
}

// RuleStatus says what became of a rule on a bundle.
type RuleStatus string

// Rule statuses in a report.
const (
	RuleFired        RuleStatus = "fired"
	RulePassed       RuleStatus = "passed"
	RuleInconclusive RuleStatus = "inconclusive"
	RuleSkipped      RuleStatus = "skipped" // outside its version range, or disabled
	RuleError        RuleStatus = "error"   // evaluation failed; the reason says why
)

// RuleResult is one line of the report's rule list.
type RuleResult struct {
	ID     string     `json:"id"`
	Status RuleStatus `json:"status"`
	// Kind is "known-issue" for a known-issue entry; absent for a
	// pattern rule.
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Examined lists, per signal, whether its input was read and what it
	// covered; absent for rules that were skipped or failed.
	Examined []Examined `json:"examined,omitempty"`
}

// BundleInfo describes the analysed bundle in a report.
type BundleInfo struct {
	Path string `json:"path"`
	// Archive is how the bundle is packed: directory, tar, tar.zst or tar.gz.
	Archive           string    `json:"archive"`
	CollectedAt       time.Time `json:"collected_at,omitzero"`
	Namespace         string    `json:"namespace,omitempty"`
	Cluster           string    `json:"cluster,omitempty"`
	RisingWaveVersion string    `json:"risingwave_version,omitempty"`
	// HandMade is true when the bundle has no manifest.
	HandMade bool `json:"hand_made"`
	Complete bool `json:"complete"`
	Files    int  `json:"files"`
	// Problems are what could not be read: refused entries, damage, files
	// that failed to parse. Analysis went on without them.
	Problems []string `json:"problems"`
	// Stopped says why reading ended before the end of the bundle (damage,
	// --max-total-bytes, an interruption); "" when it was read to its end.
	// The findings then cover only what came before.
	Stopped string `json:"stopped,omitempty"`
}

// Report is the result of analysing one bundle. Its JSON form is a stable
// contract, documented in docs/report-schema.md.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          string `json:"tool"`
	// ToolVersion is the version of the rwdiag that wrote the report.
	ToolVersion string       `json:"tool_version,omitempty"`
	Bundle      BundleInfo   `json:"bundle"`
	Findings    []Finding    `json:"findings"`
	Rules       []RuleResult `json:"rules"`
}

// ReportSchemaVersion is the version of the JSON report schema.
const ReportSchemaVersion = 1

// MarshalJSON keeps empty lists as [] rather than null, and leaves "<", ">"
// and "&" in remediation Markdown as they are.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := plain(r)
	if p.Findings == nil {
		p.Findings = []Finding{}
	}
	for i := range p.Findings {
		if p.Findings[i].Evidence == nil {
			p.Findings[i].Evidence = []Evidence{}
		}
	}
	if p.Rules == nil {
		p.Rules = []RuleResult{}
	}
	if p.Bundle.Problems == nil {
		p.Bundle.Problems = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
