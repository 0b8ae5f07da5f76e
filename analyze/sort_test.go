package analyze

import "testing"

func TestParseFailOn(t *testing.T) {
	tests := []struct {
		in        string
		threshold Severity
		never     bool
		err       bool
	}{
		{"critical", SeverityCritical, false, false},
		{"warning", SeverityWarning, false, false},
		{"info", SeverityInfo, false, false},
		{"never", 0, true, false},
		{"", 0, false, true},
		{"Warning", 0, false, true},
		{"error", 0, false, true},
	}
	for _, tt := range tests {
		threshold, never, err := ParseFailOn(tt.in)
		if (err != nil) != tt.err || threshold != tt.threshold || never != tt.never {
			t.Errorf("ParseFailOn(%q) = %v, %v, %v; want %v, %v, error %v", tt.in, threshold, never, err, tt.threshold, tt.never, tt.err)
		}
	}
}

func TestExceedsFailOn(t *testing.T) {
	f := func(sev Severity, st Status) Finding {
		return Finding{Rule: "r", Pattern: "p", Severity: sev, Status: st, Subject: "s"}
	}
	tests := []struct {
		name      string
		findings  []Finding
		threshold Severity
		want      bool
	}{
		{"no findings", nil, SeverityInfo, false},
		{"inconclusive critical at info", []Finding{f(SeverityCritical, StatusInconclusive)}, SeverityInfo, false},
		{"inconclusive critical at critical", []Finding{f(SeverityCritical, StatusInconclusive)}, SeverityCritical, false},
		{"warning at warning", []Finding{f(SeverityWarning, StatusFiring)}, SeverityWarning, true},
		{"warning at critical", []Finding{f(SeverityWarning, StatusFiring)}, SeverityCritical, false},
		{"warning at info", []Finding{f(SeverityWarning, StatusFiring)}, SeverityInfo, true},
		{"info at warning", []Finding{f(SeverityInfo, StatusFiring)}, SeverityWarning, false},
		{"critical at warning", []Finding{f(SeverityCritical, StatusFiring)}, SeverityWarning, true},
		{"mixed at critical", []Finding{f(SeverityWarning, StatusFiring), f(SeverityCritical, StatusInconclusive), f(SeverityCritical, StatusFiring)}, SeverityCritical, true},
	}
	for _, tt := range tests {
		r := &Report{Findings: tt.findings}
		if got := r.ExceedsFailOn(tt.threshold); got != tt.want {
			t.Errorf("%s: ExceedsFailOn(%s) = %v, want %v", tt.name, tt.threshold, got, tt.want)
		}
	}
}
