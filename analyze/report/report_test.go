package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/rwdiag/rwdiag/analyze"
)

var updateGolden = flag.Bool("update", false, "rewrite the report golden files in testdata/golden")

const reportSchemaPath = "../../docs/report-schema.json"

func reportPtr[T any](v T) *T { return &v }

// reportSample has a critical finding with log, metric and SQL evidence, a
// warning, an info, an inconclusive critical and the rule list around them,
// in no particular order.
func reportSample() *analyze.Report {
	at := time.Date(2025, 3, 14, 9, 12, 7, 0, time.UTC)
	return &analyze.Report{
		SchemaVersion: analyze.ReportSchemaVersion,
		Tool:          "rwdiag v0.4.0",
		Bundle: analyze.BundleInfo{
			Path:              "rwdiag-prod-eu-1-20250314T093000Z.tar.zst",
			Archive:           "tar.zst",
			CollectedAt:       time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC),
			Namespace:         "risingwave",
			Cluster:           "prod-eu-1",
			RisingWaveVersion: "v2.2.1",
			Complete:          false,
			Files:             214,
			Problems: []string{
				"logs/risingwave-compute-1/compute.previous.log.gz: unexpected EOF (read 3.1 MiB)",
				"sql/rw_ddl_progress.csv: line 12: wrong number of fields",
			},
		},
		Findings: []analyze.Finding{
			{
				Rule:        "sink-blockage-retry-loop",
				Pattern:     "sink-blockage",
				Severity:    analyze.SeverityWarning,
				Status:      analyze.StatusFiring,
				Title:       "Sink retrying in a loop",
				Subject:     "orders_to_kafka",
				SubjectKind: "sink",
				Summary:     "Sink orders_to_kafka logged 57 delivery errors in 10 minutes; its last error was \"Local: Message timed out\".",
				Evidence: []analyze.Evidence{{
					Signal: "errors",
					Path:   "logs/risingwave-compute-0/compute.log",
					Line:   88213,
					Text:   `2025-03-14T09:28:41.512Z WARN risingwave_connector::sink::kafka: sink_id=1002 | failed to deliver: KafkaError (Message production error: MessageTimedOut (Local: Message timed out))`,
					Time:   time.Date(2025, 3, 14, 9, 28, 41, 512000000, time.UTC),
				}},
				Remediation: "Check the broker is reachable from the compute pods:\n\n```sh\nkubectl -n risingwave exec risingwave-compute-0 -- nc -zv kafka-0.kafka 9092\n```\n",
				Fingerprint: "0b5e1c7d2a9f4e36",
				Links:       []analyze.Link{{Relation: "caused-by", Rule: "barrier-stall-slow-compute-node", Subject: "risingwave-compute-1", Fingerprint: "1a2b3c4d5e6f7081"}},
			},
			{
				Rule:        "oom-crash-loop-compute",
				Pattern:     "oom-crash-loop",
				Severity:    analyze.SeverityCritical,
				Status:      analyze.StatusInconclusive,
				Title:       "Compute node killed for memory",
				Subject:     "cluster",
				SubjectKind: "cluster",
				Summary:     "Could not decide: kubernetes/pods.json is missing from the bundle (collection step kubernetes-pods failed).",
				Remediation: "Collect the pods again: `rwdiag collect --only kubernetes`.",
				Fingerprint: "5c0f3e99a1d27b40",
			},
			{
				Rule:        "barrier-stall-slow-compute-node",
				Pattern:     "barrier-stall",
				Severity:    analyze.SeverityCritical,
				Status:      analyze.StatusFiring,
				Title:       "Barrier stalled behind a slow compute node",
				Subject:     "risingwave-compute-1",
				SubjectKind: "pod",
				Summary:     "Barrier latency reached 312s (threshold 60s) and risingwave-compute-1 has the slowest actors; checkpoints have not advanced for 41 minutes.",
				Evidence: []analyze.Evidence{
					{
						Signal: "latency",
						Path:   "metrics/prometheus/meta_barrier_duration_seconds.json",
						Text:   `histogram_quantile(0.99, meta_barrier_duration_seconds_bucket) = 312.4`,
						Time:   at,
						Series: `{pod="risingwave-meta-0",component="meta"}`,
						Value:  reportPtr(312.4),
					},
					{
						Signal: "await",
						Path:   "logs/risingwave-compute-1/compute.log",
						Line:   40917,
						Text:   "2025-03-14T09:11:58.004Z WARN risingwave_stream::task::barrier_manager: barrier epoch 7856432112 not collected after 300s; actors: [1041, 1042]",
						Time:   time.Date(2025, 3, 14, 9, 11, 58, 4000000, time.UTC),
					},
					{
						Signal: "progress",
						Path:   "sql/rw_actors.csv",
						Text:   "actor_id=1041 fragment_id=27 worker_id=3 state=Running",
					},
					{
						Signal: "await",
						Path:   "await-tree/risingwave-compute-1.txt",
						Line:   3,
						Text:   "Actor 1041: `Epoch 7856432112` [312.401s]\n  Merge 27 [312.400s]",
					},
				},
				Remediation: "Find the slow actor's fragment and the materialized view it belongs to:\n\n```sql\nSELECT f.fragment_id, m.name FROM rw_fragments f JOIN rw_materialized_views m ON f.table_id = m.id WHERE f.fragment_id = 27;\n```\n\nThen see `await-tree/risingwave-compute-1.txt` for what it is waiting on.",
				References: []string{
					"https://docs.risingwave.com/troubleshoot/troubleshoot-high-latency",
					"field-guide/barrier-stall.md",
				},
				Fingerprint: "e3b0c44298fc1c14",
			},
			{
				Rule:        "backfill-starvation-slow-progress",
				Pattern:     "backfill-starvation",
				Severity:    analyze.SeverityInfo,
				Status:      analyze.StatusFiring,
				Title:       "Backfill making slow progress",
				Subject:     "mv_order_totals_by_region_hourly",
				SubjectKind: "materialized_view",
				Summary:     "Backfill of mv_order_totals_by_region_hourly is at 3.2% after 2h.",
				Evidence: []analyze.Evidence{{
					Signal: "progress",
					Path:   "sql/rw_ddl_progress.csv",
					Line:   4,
					Text:   "ddl_id=1077 ddl_statement=CREATE MATERIALIZED VIEW mv_order_totals_by_region_hourly AS ... progress=3.2% initialized_at=2025-03-14 07:29:10",
				}},
				Remediation: "- Usually fine to wait; see the progress again in an hour.",
				Fingerprint: "77d1a3c0fe9b2d55",
			},
		},
		Rules: []analyze.RuleResult{
			{ID: "sink-blockage-retry-loop", Status: analyze.RuleFired},
			{ID: "barrier-stall-slow-compute-node", Status: analyze.RuleFired},
			{ID: "oom-crash-loop-compute", Status: analyze.RuleInconclusive, Reason: "needs kubernetes/pods.json (collection step kubernetes-pods failed: forbidden)"},
			{ID: "offset-replay-source-reset", Status: analyze.RulePassed, Examined: []analyze.Examined{
				{Signal: "resumed", Kind: "log", Decisive: true, Read: true, Coverage: "compute logs of 3 of 3 pods (1 previous)"},
				{Signal: "stepped_back", Kind: "promql", Decisive: true, Read: false, Coverage: "source_latest_message_id not in the metrics scraped (metrics of meta (rw-meta-0), 5 scrapes 09:00-09:04)"},
			}},
			{ID: "backfill-starvation-slow-progress", Status: analyze.RuleFired},
			{ID: "sink-blockage-legacy-jdbc", Status: analyze.RuleSkipped, Reason: "applies to RisingWave <2.0, bundle has v2.2.1"},
			{ID: "barrier-stall-object-store", Status: analyze.RulePassed},
		},
	}
}

func renderReport(t *testing.T, r *analyze.Report, f Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r, f); err != nil {
		t.Fatalf("Write(%s): %v", f, err)
	}
	return buf.Bytes()
}

func compileReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(reportSchemaPath)
	if err != nil {
		t.Fatalf("compile %s: %v", reportSchemaPath, err)
	}
	return sch
}

func validateReportJSON(sch *jsonschema.Schema, b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestReportJSONMatchesSchema(t *testing.T) {
	sch := compileReportSchema(t)
	for name, r := range map[string]*analyze.Report{
		"sample": reportSample(),
		"empty":  {SchemaVersion: analyze.ReportSchemaVersion, Tool: "rwdiag", Bundle: analyze.BundleInfo{Path: "b", HandMade: true}},
		"stopped": {SchemaVersion: analyze.ReportSchemaVersion, Tool: "rwdiag", Bundle: analyze.BundleInfo{Path: "b.tar", HandMade: true,
			Problems: []string{analyze.StoppedPrefix + "archive damaged at byte 512"}, Stopped: "archive damaged at byte 512"}},
	} {
		t.Run(name, func(t *testing.T) {
			b := renderReport(t, r, FormatJSON)
			if err := validateReportJSON(sch, b); err != nil {
				t.Fatalf("JSON report does not validate against %s:\n%v\n%s", reportSchemaPath, err, b)
			}
		})
	}
}

// TestReportSchemaCatchesDrift makes sure the schema can fail: a field the Go
// types do not have, a wrong enum or a missing required key is rejected.
func TestReportSchemaCatchesDrift(t *testing.T) {
	sch := compileReportSchema(t)
	good := renderReport(t, reportSample(), FormatJSON)
	tests := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"unknown top-level field", func(m map[string]any) { m["generated_at"] = "2025-03-14T10:00:00Z" }},
		{"unknown finding field", func(m map[string]any) { reportFindingAt(m, 0)["confidence"] = 0.9 }},
		{"unknown evidence field", func(m map[string]any) {
			reportFindingAt(m, 0)["evidence"].([]any)[0].(map[string]any)["column"] = 3
		}},
		{"unknown bundle field", func(m map[string]any) { m["bundle"].(map[string]any)["size"] = 1 }},
		{"wrong severity", func(m map[string]any) { reportFindingAt(m, 0)["severity"] = "high" }},
		{"severity as number", func(m map[string]any) { reportFindingAt(m, 0)["severity"] = 3 }},
		{"wrong status", func(m map[string]any) { reportFindingAt(m, 0)["status"] = "passed" }},
		{"wrong rule status", func(m map[string]any) { m["rules"].([]any)[0].(map[string]any)["status"] = "ok" }},
		{"unknown examined field", func(m map[string]any) {
			for _, r := range m["rules"].([]any) {
				if ex, ok := r.(map[string]any)["examined"].([]any); ok {
					ex[0].(map[string]any)["rows"] = 3
				}
			}
		}},
		{"wrong link relation", func(m map[string]any) {
			for _, f := range m["findings"].([]any) {
				if ls, ok := f.(map[string]any)["links"].([]any); ok {
					ls[0].(map[string]any)["relation"] = "related"
				}
			}
		}},
		{"missing remediation", func(m map[string]any) { delete(reportFindingAt(m, 0), "remediation") }},
		{"line zero", func(m map[string]any) {
			reportFindingAt(m, 0)["evidence"].([]any)[1].(map[string]any)["line"] = 0
		}},
		{"bad time", func(m map[string]any) { m["bundle"].(map[string]any)["collected_at"] = "14/03/2025" }},
		{"null findings", func(m map[string]any) { m["findings"] = nil }},
		{"other schema version", func(m map[string]any) { m["schema_version"] = 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateReportJSON(sch, b); err == nil {
				t.Errorf("schema accepted a report with %s", tt.name)
			}
		})
	}
}

func reportFindingAt(m map[string]any, i int) map[string]any {
	return m["findings"].([]any)[i].(map[string]any)
}

var mdJSONBlockRE = regexp.MustCompile("(?s)```json\n(.*?)\n```")

// TestReportSchemaDocExample checks the example in docs/report-schema.md:
// it validates, and it is exactly what the Go types read and write.
func TestReportSchemaDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := mdJSONBlockRE.FindAllSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("docs/report-schema.md has no ```json block")
	}
	sch := compileReportSchema(t)
	for i, m := range blocks {
		example := m[1]
		if err := validateReportJSON(sch, example); err != nil {
			t.Errorf("example %d in docs/report-schema.md does not validate:\n%v", i+1, err)
			continue
		}
		var r analyze.Report
		dec := json.NewDecoder(bytes.NewReader(example))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Errorf("example %d: decode into Report: %v", i+1, err)
			continue
		}
		var want, got any
		if err := json.Unmarshal(example, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(renderReport(t, &r, FormatJSON), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("example %d does not survive a round trip through Report; rwdiag would write:\n%s",
				i+1, renderReport(t, &r, FormatJSON))
		}
	}
}

func TestReportGolden(t *testing.T) {
	empty := &analyze.Report{
		SchemaVersion: analyze.ReportSchemaVersion,
		Tool:          "rwdiag v0.4.0",
		Bundle:        analyze.BundleInfo{Path: "./my-bundle", Archive: "directory", HandMade: true, Complete: true, Files: 9},
		Rules: []analyze.RuleResult{
			{ID: "barrier-stall-slow-compute-node", Status: analyze.RulePassed},
			{ID: "sink-blockage-retry-loop", Status: analyze.RuleError, Reason: `signal "errors": sql: no such table: rw_sinks`},
		},
	}
	tests := []struct {
		file   string
		report *analyze.Report
		format Format
		opts   Options
	}{
		{"report.md", reportSample(), FormatMarkdown, Options{}},
		{"report.txt", reportSample(), FormatTable, Options{}}, // piped: DefaultWidth
		{"report-80.txt", reportSample(), FormatTable, Options{Width: 80}},
		{"report-100.txt", reportSample(), FormatTable, Options{Width: 100}},
		{"report-200.txt", reportSample(), FormatTable, Options{Width: 200}},
		{"report-wide.txt", reportSample(), FormatTable, Options{Width: 80, Wide: true}},
		{"report.json", reportSample(), FormatJSON, Options{}},
		{"empty.md", empty, FormatMarkdown, Options{}},
		{"empty.txt", empty, FormatTable, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.opts.Write(&buf, tt.report, tt.format, nil); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			path := filepath.Join("testdata", "golden", tt.file)
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./analyze/report -run TestReportGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the output (run with -update to accept it)\n--- got ---\n%s", path, got)
			}
		})
	}
}

// reportLongNames is reportSample with a pod name longer than 80 columns
// and a summary naming it, as a cluster with a long release name has.
func reportLongNames() *analyze.Report {
	r := reportSample()
	long := "risingwave-compute-with-a-very-long-release-name-for-the-production-cluster-eu-1-7c9f"
	r.Findings[0].Subject = long
	r.Findings[0].Summary = long + " logged 57 delivery errors in 10 minutes."
	return r
}

// reportVeryLongNames has a pod name longer than 200 columns.
func reportVeryLongNames() *analyze.Report {
	r := reportSample()
	long := "risingwave-compute-with-a-very-long-release-name-" + strings.Repeat("for-the-production-cluster-", 6) + "eu-1-7c9f"
	r.Findings[0].Subject = long
	r.Findings[0].Summary = long + " logged 57 delivery errors in 10 minutes."
	return r
}

func TestReportTableFitsTerminal(t *testing.T) {
	for _, width := range []int{80, 100, 120, 200} {
		for _, r := range []*analyze.Report{reportSample(), reportLongNames(), reportVeryLongNames()} {
			var buf bytes.Buffer
			if err := (Options{Width: width}).Write(&buf, r, FormatTable, nil); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkLineWidths(t, out, width)
			if strings.Contains(out, "\x1b") {
				t.Error("table output has escape sequences")
			}
			for _, h := range []string{"SEVERITY", "STATUS", "SUBJECT"} {
				if !strings.Contains(out, h) {
					t.Errorf("width %d: table output lacks header %s", width, h)
				}
			}
			// Identifiers are never broken: each subject and rule id is
			// on one line.
			for _, f := range r.Findings {
				for _, id := range []string{f.Subject, f.Rule} {
					if !strings.Contains(out, id) {
						t.Errorf("width %d: %q is broken or missing:\n%s", width, id, out)
					}
				}
			}
			// Every summary is somewhere, in the table or the list.
			if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(out, "|", " ")), " "), "checkpoints have not advanced for 41 minutes.") {
				t.Errorf("width %d: a summary is missing:\n%s", width, out)
			}
		}
	}
}

func TestReportColour(t *testing.T) {
	var plain, colour bytes.Buffer
	if err := (Options{}).Write(&plain, reportSample(), FormatTable, nil); err != nil {
		t.Fatal(err)
	}
	if err := (Options{Colour: true}).Write(&colour, reportSample(), FormatTable, nil); err != nil {
		t.Fatal(err)
	}
	out := colour.String()
	for _, want := range []string{sgrBold + sgrRed + "critical" + sgrReset, sgrYellow + "warning" + sgrReset,
		sgrBold + sgrRed + "[CRITICAL]" + sgrReset, sgrDim + "inconclusive" + sgrReset} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured table lacks %q:\n%s", want, out)
		}
	}
	// Colour changes nothing else: the same text, the same layout.
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, ""); stripped != plain.String() {
		t.Errorf("colour changed the layout:\n%s\n---\n%s", stripped, plain.String())
	}
	// Never in the formats that are not for a terminal.
	for _, f := range []Format{FormatJSON, FormatMarkdown, FormatHTML} {
		var buf bytes.Buffer
		if err := (Options{Colour: true}).Write(&buf, reportSample(), f, nil); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "\x1b[") {
			t.Errorf("%s output has colour", f)
		}
	}
}

func TestReportNoFindings(t *testing.T) {
	r := &analyze.Report{SchemaVersion: analyze.ReportSchemaVersion, Bundle: analyze.BundleInfo{Path: "b"}}
	if out := renderReport(t, r, FormatTable); !bytes.Contains(out, []byte("\nNo findings.\n")) {
		t.Errorf("table output of an empty report lacks \"No findings.\":\n%s", out)
	}
	out := renderReport(t, r, FormatJSON)
	for _, want := range []string{`"findings": []`, `"rules": []`, `"problems": []`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("JSON of an empty report lacks %s:\n%s", want, out)
		}
	}
}

// TestReportHostileText: bundle data cannot inject terminal escapes or break
// the Markdown evidence table.
func TestReportHostileText(t *testing.T) {
	r := reportSample()
	r.Findings[0].Evidence = []analyze.Evidence{{
		Signal: "errors",
		Path:   "logs/x|y.log",
		Line:   7,
		Text:   "\x1b[31mERROR\x1b[0m a|b ``code`` \x1b]0;title\x07\nsecond line\r\n" + strings.Repeat("x", 300),
	}}
	r.Findings[0].Subject = "evil\x1b[2J|`sink`"

	table := renderReport(t, r, FormatTable)
	if bytes.ContainsRune(table, '\x1b') {
		t.Errorf("table output carries an escape sequence:\n%q", table)
	}

	md := string(renderReport(t, r, FormatMarkdown))
	if strings.ContainsRune(md, '\x1b') {
		t.Error("Markdown output carries an escape sequence")
	}
	var row string
	for line := range strings.Lines(md) {
		if strings.HasPrefix(line, "| `logs/x") {
			row = strings.TrimSuffix(line, "\n")
		}
	}
	if row == "" {
		t.Fatalf("no evidence row for logs/x|y.log in:\n%s", md)
	}
	// Three cells: four unescaped pipes.
	if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(row, -1)); n != 4 {
		t.Errorf("evidence row has %d cell boundaries, want 4:\n%s", n, row)
	}
	for _, want := range []string{"``` ERROR a\\|b ``code`` ", "<br>`second line", "…`", "`logs/x\\|y.log:7`"} {
		if !strings.Contains(row, want) {
			t.Errorf("evidence row lacks %q:\n%s", want, row)
		}
	}
	if n := len([]rune(row)); n > 320 {
		t.Errorf("evidence row is %d characters; the excerpt was not cut", n)
	}
}

func TestReportWriteNonFiniteValue(t *testing.T) {
	r := reportSample()
	r.Findings[2].Evidence[0].Value = reportPtr(math.NaN())
	b := renderReport(t, r, FormatJSON)
	if err := validateReportJSON(compileReportSchema(t), b); err != nil {
		t.Fatal(err)
	}
	if r.Findings[2].Evidence[0].Value == nil {
		t.Error("Write changed the report")
	}
}

func TestReportSort(t *testing.T) {
	want := []string{
		"critical firing barrier-stall barrier-stall-slow-compute-node risingwave-compute-1",
		"critical inconclusive oom-crash-loop oom-crash-loop-compute cluster",
		"warning firing sink-blockage sink-blockage-retry-loop orders_to_kafka",
		"info firing backfill-starvation backfill-starvation-slow-progress mv_order_totals_by_region_hourly",
	}
	wantRules := []string{
		"backfill-starvation-slow-progress", "barrier-stall-object-store", "barrier-stall-slow-compute-node",
		"offset-replay-source-reset", "oom-crash-loop-compute", "sink-blockage-legacy-jdbc", "sink-blockage-retry-loop",
	}
	base := reportSample()
	first := renderReport(t, base, FormatJSON)
	// Every rotation of the input sorts the same way and writes the same bytes.
	for shift := range len(base.Findings) {
		r := reportSample()
		r.Findings = append(r.Findings[shift:], r.Findings[:shift]...)
		r.Rules = append(r.Rules[shift:], r.Rules[:shift]...)
		if got := renderReport(t, r, FormatJSON); !bytes.Equal(got, first) {
			t.Fatalf("rotation %d writes different JSON", shift)
		}
		r.Sort()
		var got []string
		for _, f := range r.Findings {
			got = append(got, strings.Join([]string{f.Severity.String(), string(f.Status), f.Pattern, f.Rule, f.Subject}, " "))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rotation %d: findings sorted as\n%s\nwant\n%s", shift, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var gotRules []string
		for _, rr := range r.Rules {
			gotRules = append(gotRules, rr.ID)
		}
		if !reflect.DeepEqual(gotRules, wantRules) {
			t.Errorf("rotation %d: rules sorted as %v", shift, gotRules)
		}
	}
	// Same rule, several subjects: by subject.
	r := &analyze.Report{Findings: []analyze.Finding{
		{Rule: "a", Pattern: "p", Severity: analyze.SeverityWarning, Status: analyze.StatusFiring, Subject: "pod-2"},
		{Rule: "a", Pattern: "p", Severity: analyze.SeverityWarning, Status: analyze.StatusFiring, Subject: "pod-10"},
		{Rule: "a", Pattern: "p", Severity: analyze.SeverityWarning, Status: analyze.StatusFiring, Subject: "pod-1"},
	}}
	r.Sort()
	if got := []string{r.Findings[0].Subject, r.Findings[1].Subject, r.Findings[2].Subject}; !reflect.DeepEqual(got, []string{"pod-1", "pod-10", "pod-2"}) {
		t.Errorf("subjects sorted as %v", got)
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "json", "markdown"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "yaml", "JSON", "md"} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q) succeeded", s)
		}
	}
	if err := Write(&bytes.Buffer{}, reportSample(), "yaml"); err == nil {
		t.Error("Write with an unknown format succeeded")
	}
}

// TestReportTerminalSafe: no format writes a character a terminal acts on
// (C0 and C1 controls, bidirectional overrides), and the JSON still decodes
// to the bundle's exact strings.
func TestReportTerminalSafe(t *testing.T) {
	r := reportSample()
	hostile := "rw-\u009b2J\u202egnp\u2066-0\r\x08\x07\x1b]52;c;cHduZWQ=\x07"
	r.Findings[0].Subject = hostile
	r.Findings[0].Evidence[0].Text = "line\ttext " + hostile + "\r\nnext"
	r.Bundle.Problems = []string{"refused " + hostile}
	for _, f := range []Format{FormatTable, FormatMarkdown, FormatJSON, FormatHTML} {
		out := string(renderReport(t, r, f))
		for i, c := range out {
			if (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) {
				t.Errorf("%s output carries %U at byte %d: %q", f, c, i, out[max(0, i-20):min(len(out), i+20)])
				break
			}
		}
		if f == FormatTable && !strings.Contains(out, `rw-\u009b2J\u202egnp\u2066-0`) {
			t.Errorf("table does not show the subject's controls visibly:\n%s", out)
		}
	}
	var back analyze.Report
	if err := json.Unmarshal(renderReport(t, r, FormatJSON), &back); err != nil {
		t.Fatal(err)
	}
	if back.Findings[0].Subject != hostile && !slices.ContainsFunc(back.Findings, func(f analyze.Finding) bool { return f.Subject == hostile }) {
		t.Errorf("JSON changed the subject")
	}
}

// What an inconclusive finding lacks is said once in each text format;
// the table row and the rule list point at it.
func TestReportInconclusiveSaidOnce(t *testing.T) {
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		for _, width := range []int{80, 200} {
			var buf bytes.Buffer
			if err := (Options{Width: width}).Write(&buf, reportSample(), f, nil); err != nil {
				t.Fatal(err)
			}
			out := strings.Join(strings.Fields(strings.ReplaceAll(buf.String(), "|", " ")), " ")
			if n := strings.Count(out, "kubernetes-pods failed"); n != 1 {
				t.Errorf("%s at %d: what is missing is said %d times, want once:\n%s", f, width, n, buf.String())
			}
			want := "see finding 2"
			if f == FormatMarkdown {
				want = "see [Inconclusive](#inconclusive)"
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s at %d: the rule list does not point at the finding (%q):\n%s", f, width, want, buf.String())
			}
		}
	}
}
