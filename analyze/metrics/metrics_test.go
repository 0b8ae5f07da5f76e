package metrics

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// metricsT0 is the time of the first scrape in the fixtures; scrapes follow
// every 15 s.
var metricsT0 = time.Date(2026, 11, 29, 20, 40, 0, 0, time.UTC)

func scrapeTime(i int) time.Time { return metricsT0.Add(time.Duration(i) * 15 * time.Second) }

// computeScrape is the i-th scrape of a compute node, as RisingWave exposes
// it: progress is its barrier progress counter, ids its sources' latest
// message ids by partition.
func computeScrape(progress float64, ids map[string]float64) string {
	var b strings.Builder
	b.WriteString(`# HELP stream_barrier_manager_progress The number of actors that have processed the latest barrier
# TYPE stream_barrier_manager_progress counter
`)
	fmt.Fprintf(&b, "stream_barrier_manager_progress %g\n", progress)
	b.WriteString(`# HELP source_latest_message_id Latest message id for a exec per partition
# TYPE source_latest_message_id gauge
`)
	parts := make([]string, 0, len(ids))
	for p := range ids {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		fmt.Fprintf(&b, "source_latest_message_id{actor_id=\"10%s\",partition=\"%s\",source_id=\"5\",source_name=\"orders\"} %g\n", p, p, ids[p])
	}
	b.WriteString(`# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.23456789e+09
`)
	return b.String()
}

// metaScrape is the i-th scrape of the meta node: a barrier latency
// histogram whose buckets grow by 10, 50, 90, 100, 100 per scrape.
func metaScrape(i int) string {
	n := float64(i)
	return fmt.Sprintf(`# HELP meta_barrier_duration_seconds barrier latency
# TYPE meta_barrier_duration_seconds histogram
meta_barrier_duration_seconds_bucket{le="0.1"} %g
meta_barrier_duration_seconds_bucket{le="0.5"} %g
meta_barrier_duration_seconds_bucket{le="1"} %g
meta_barrier_duration_seconds_bucket{le="5"} %g
meta_barrier_duration_seconds_bucket{le="+Inf"} %g
meta_barrier_duration_seconds_sum %g
meta_barrier_duration_seconds_count %g
`, 1000+10*n, 5000+50*n, 9000+90*n, 10000+100*n, 10000+100*n, 1234+150*n, 10000+100*n)
}

type scrapeFixture struct {
	pod  string
	at   time.Time
	text string
}

// clusterScrapes are 4 scrapes, 15 s apart, of two compute nodes and a
// meta node. compute-0's progress counter grows by 30 per scrape (2/s) and
// its partition 0 message id steps back once; compute-1's counter is flat.
func clusterScrapes() []scrapeFixture {
	var fs []scrapeFixture
	p0 := []float64{100, 200, 50, 150}
	for i := range 4 {
		fs = append(fs,
			scrapeFixture{"risingwave-compute-0", scrapeTime(i), computeScrape(1000+30*float64(i), map[string]float64{"0": p0[i], "1": 10 * float64(i+1)})},
			scrapeFixture{"risingwave-compute-1", scrapeTime(i), computeScrape(500, map[string]float64{"2": 7 + float64(i), "3": 9 + float64(i)})},
			scrapeFixture{"risingwave-meta-0", scrapeTime(i), metaScrape(i)},
		)
	}
	return fs
}

func loadScrapes(t testing.TB, s *Store, fs []scrapeFixture) {
	t.Helper()
	for _, f := range fs {
		if err := s.AddScrape(bundle.ScrapePath(f.pod, f.at), f.pod, f.at, strings.NewReader(f.text)); err != nil {
			t.Fatal(err)
		}
	}
}

func metricComponent(pod string) string {
	for _, c := range []string{"compute", "meta"} {
		if strings.Contains(pod, "-"+c+"-") {
			return c
		}
	}
	return ""
}

func clusterStore(t testing.TB, names map[string]bool) *Store {
	t.Helper()
	s := NewStore(names)
	loadScrapes(t, s, clusterScrapes())
	s.SetComponents(metricComponent)
	return s
}

func mustQuery(t testing.TB, s *Store, q string, at time.Time) []evidence.Row {
	t.Helper()
	rows, err := s.Query(context.Background(), q, at)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(a, b evidence.Row) int { return strings.Compare(fmt.Sprint(a["series"]), fmt.Sprint(b["series"])) })
	return rows
}

// wantRow is a result series: some of its fields and its value.
type wantRow struct {
	fields map[string]string
	value  float64
}

func checkRows(t *testing.T, got []evidence.Row, want []wantRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		for k, v := range w.fields {
			if g[k] != v {
				t.Errorf("row %d: %s = %v, want %q (row %v)", i, k, g[k], v, g)
			}
		}
		if v, _ := g["value"].(float64); math.Abs(v-w.value) > 1e-9 {
			t.Errorf("row %d (%v): value = %v, want %v", i, g["series"], g["value"], w.value)
		}
	}
}

func TestMetricStoreQuery(t *testing.T) {
	s := clusterStore(t, nil)
	last := scrapeTime(3)
	c0 := map[string]string{"pod": "risingwave-compute-0"}
	c1 := map[string]string{"pod": "risingwave-compute-1"}
	tests := []struct {
		name  string
		query string
		want  []wantRow
	}{
		{
			name:  "rate over four scrapes",
			query: `rate(stream_barrier_manager_progress[1m])`,
			// (1090-1000)/45s, extrapolated to the 1m window and back.
			want: []wantRow{{c0, 2}, {c1, 0}},
		},
		{
			name:  "max by pod",
			query: `max by (pod) (rate(stream_barrier_manager_progress[1m]))`,
			want:  []wantRow{{c0, 2}, {c1, 0}},
		},
		{
			name:  "flat counter",
			query: `rate(stream_barrier_manager_progress[$__rate_interval]) == 0`,
			want:  []wantRow{{c1, 0}},
		},
		{
			name:  "increase over the bundle",
			query: `increase(stream_barrier_manager_progress{pod="risingwave-compute-0"}[$__range])`,
			// 90 over 45 s, extrapolated by the 1 ms the window adds.
			want: []wantRow{{c0, 90 * 45.001 / 45}},
		},
		{
			name:  "histogram quantile",
			query: `histogram_quantile(0.99, sum by (le) (rate(meta_barrier_duration_seconds_bucket[$__rate_interval])))`,
			// Rank 0.99*100 = 99 of 100 per scrape falls 9/10 into (1, 5].
			want: []wantRow{{map[string]string{"series": "{}"}, 4.6}},
		},
		{
			name:  "gauge stepped back",
			query: `resets(source_latest_message_id[10m]) > 0`,
			want:  []wantRow{{map[string]string{"pod": "risingwave-compute-0", "partition": "0", "source_name": "orders", "component": "compute"}, 1}},
		},
		{
			name:  "sum by component",
			query: `sum by (component) (stream_barrier_manager_progress)`,
			want:  []wantRow{{map[string]string{"component": "compute", "series": `{component="compute"}`}, 1090 + 500}},
		},
		{
			name:  "count by component",
			query: `count by (component) ({__name__=~"stream_.*|meta_.*_count"})`,
			want:  []wantRow{{map[string]string{"component": "compute"}, 2}, {map[string]string{"component": "meta"}, 1}},
		},
		{
			name:  "plain selector",
			query: `stream_barrier_manager_progress{pod="risingwave-compute-1"}`,
			want: []wantRow{{map[string]string{
				"__name__": "stream_barrier_manager_progress",
				"series":   `stream_barrier_manager_progress{component="compute", pod="risingwave-compute-1"}`,
			}, 500}},
		},
		{
			name:  "scalar",
			query: `scalar(sum(stream_barrier_manager_progress)) * 2`,
			want:  []wantRow{{nil, 3180}},
		},
		{
			name:  "nothing",
			query: `stream_barrier_manager_progress{pod="nope"}`,
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := mustQuery(t, s, tt.query, last)
			checkRows(t, rows, tt.want)
			for _, r := range rows {
				if _, ok := r["time"].(time.Time); !ok || !r["time"].(time.Time).Equal(last) {
					t.Errorf("time = %v, want %v", r["time"], last)
				}
			}
		})
	}
}

func TestMetricStoreQueryMatrix(t *testing.T) {
	s := clusterStore(t, nil)
	rows := mustQuery(t, s, `stream_barrier_manager_progress{pod="risingwave-compute-0"}[5m]`, scrapeTime(3))
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1: %v", len(rows), rows)
	}
	r := rows[0]
	if want := []float64{1000, 1030, 1060, 1090}; !slices.Equal(r["values"].([]float64), want) {
		t.Errorf("values = %v, want %v", r["values"], want)
	}
	if r["value"] != 1090.0 || !r["time"].(time.Time).Equal(scrapeTime(3)) {
		t.Errorf("value, time = %v, %v; want 1090 at the last scrape", r["value"], r["time"])
	}
}

func TestMetricStoreConcurrentQuery(t *testing.T) {
	s := clusterStore(t, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if s.Empty() {
				t.Error("empty")
			}
			_, last := s.Span()
			rows, err := s.Query(context.Background(), `sum(rate(stream_barrier_manager_progress[$__rate_interval]))`, last)
			if err != nil || len(rows) != 1 || math.Abs(rows[0]["value"].(float64)-2) > 1e-9 {
				t.Errorf("rows, err = %v, %v; want 2", rows, err)
			}
		})
	}
	wg.Wait()
}

func TestMetricStorePath(t *testing.T) {
	s := clusterStore(t, nil)
	c0 := "risingwave-compute-0"
	tests := []struct {
		query string
		at    time.Time
		want  string
	}{
		{`stream_barrier_manager_progress{pod="` + c0 + `"}`, scrapeTime(3), bundle.ScrapePath(c0, scrapeTime(3))},
		{`stream_barrier_manager_progress{pod="` + c0 + `"}`, scrapeTime(2), bundle.ScrapePath(c0, scrapeTime(2))},
		{`stream_barrier_manager_progress{pod="` + c0 + `"}`, scrapeTime(1).Add(5 * time.Second), bundle.ScrapePath(c0, scrapeTime(1))},
		{`max by (pod) (rate(stream_barrier_manager_progress{pod="` + c0 + `"}[1m]))`, scrapeTime(3), bundle.ScrapePath(c0, scrapeTime(3))},
		{`sum(stream_barrier_manager_progress)`, scrapeTime(3), ""},
	}
	for _, tt := range tests {
		rows := mustQuery(t, s, tt.query, tt.at)
		if len(rows) != 1 {
			t.Fatalf("%s: got %d rows, want 1", tt.query, len(rows))
		}
		if got := rows[0]["path"]; got != tt.want {
			t.Errorf("%s at %s: path = %q, want %q", tt.query, tt.at.Format(time.TimeOnly), got, tt.want)
		}
	}
}

func TestMetricStoreFiltersByName(t *testing.T) {
	queries := []string{
		`max by (pod) (rate(stream_barrier_manager_progress[1m]))`,
		`histogram_quantile(0.99, sum by (le) (rate(meta_barrier_duration_seconds_bucket[$__rate_interval])))`,
	}
	names := map[string]bool{}
	for _, q := range queries {
		ns, all, err := Names(q)
		if err != nil || all {
			t.Fatalf("Names(%q) = %v, %v, %v", q, ns, all, err)
		}
		for _, n := range ns {
			names[n] = true
		}
	}
	s := clusterStore(t, names)
	// 2 progress series and 5 buckets; no _sum, _count, message ids or memory.
	if got := s.SeriesCount(); got != 7 {
		t.Errorf("SeriesCount = %d, want 7", got)
	}
	if got := s.SampleCount(); got != 7*4 {
		t.Errorf("SampleCount = %d, want %d", got, 7*4)
	}
	if rows := mustQuery(t, s, `process_resident_memory_bytes`, time.Time{}); len(rows) != 0 {
		t.Errorf("unreferenced metric was kept: %v", rows)
	}
	rows := mustQuery(t, s, queries[1], time.Time{})
	checkRows(t, rows, []wantRow{{nil, 4.6}})
}

func TestMetricStoreOrderAndDuplicates(t *testing.T) {
	fs := clusterScrapes()
	slices.Reverse(fs)
	s := NewStore(map[string]bool{"stream_barrier_manager_progress": true})
	loadScrapes(t, s, fs)
	// A second file for the last scrape time: its value wins.
	pod := "risingwave-compute-1"
	if err := s.AddScrape("metrics/"+pod+"/again.prom", pod, scrapeTime(3), strings.NewReader("stream_barrier_manager_progress 530\n")); err != nil {
		t.Fatal(err)
	}
	rows := mustQuery(t, s, `rate(stream_barrier_manager_progress[1m])`, time.Time{})
	// compute-1: 500, 500, 500, 530 over 45 s.
	checkRows(t, rows, []wantRow{{map[string]string{"pod": "risingwave-compute-0"}, 2}, {map[string]string{"pod": pod}, 30.0 / 45}})
	if got := s.SampleCount(); got != 8 {
		t.Errorf("SampleCount after dedupe = %d, want 8", got)
	}
	first, last := s.Span()
	if !first.Equal(scrapeTime(0)) || !last.Equal(scrapeTime(3)) {
		t.Errorf("Span = %v, %v; want %v, %v", first, last, scrapeTime(0), scrapeTime(3))
	}
}

func TestAddScrapeMalformed(t *testing.T) {
	pod := "risingwave-compute-0"
	at := scrapeTime(0)
	path := bundle.ScrapePath(pod, at)
	text := `# HELP stream_barrier_manager_progress progress
# TYPE stream_barrier_manager_progress counter
stream_barrier_manager_progress 1000

source_latest_message_id{partition="0"} 100
source_latest_message_id{partition="1" 200
source_latest_message_id{partition="2"} 300
`
	s := NewStore(nil)
	err := s.AddScrape(path, pod, at, strings.NewReader(text))
	if err == nil {
		t.Fatal("no error")
	}
	if want := path + ":6: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	rows := mustQuery(t, s, `{__name__=~".+"}`, at)
	checkRows(t, rows, []wantRow{
		{map[string]string{"__name__": "source_latest_message_id", "partition": "0"}, 100},
		{map[string]string{"__name__": "stream_barrier_manager_progress", "path": path}, 1000},
	})

	// With a name filter, lines of other metrics are not parsed, a bad
	// one goes unnoticed, and line numbers still count every line.
	s = NewStore(map[string]bool{"source_latest_message_id": true})
	err = s.AddScrape(path, pod, at, strings.NewReader("other{ 1\n"+text))
	if want := path + ":7: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("filtered: error %v, want it to start with %q", err, want)
	}
	checkRows(t, mustQuery(t, s, `{__name__=~".+"}`, at), []wantRow{{map[string]string{"partition": "0"}, 100}})

	// A bad first line, and a bad last line without a newline.
	for _, tt := range []struct {
		text string
		line int
	}{
		{"\n\n{} 1\nx 2\n", 3},
		{"x 1\ny 2\nz", 3},
		{"# TYPE x bogus\n", 1},
	} {
		err := NewStore(nil).AddScrape(path, pod, at, strings.NewReader(tt.text))
		if want := fmt.Sprintf("%s:%d: ", path, tt.line); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want it to start with %q", tt.text, err, want)
		}
	}
}

func TestAddScrapeOwnTimestampAndPodLabel(t *testing.T) {
	s := NewStore(nil)
	at := scrapeTime(3)
	own := scrapeTime(1).UnixMilli()
	text := fmt.Sprintf("up{pod=\"elsewhere\"} 1 %d\n{\"quoted.name\",a=\"b\"} 2\n", own)
	if err := s.AddScrape("metrics/p/1.prom", "p", at, strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	rows := mustQuery(t, s, `up`, time.Time{})
	checkRows(t, rows, []wantRow{{map[string]string{"pod": "p", "exported_pod": "elsewhere"}, 1}})
	if first, _ := s.Span(); !first.Equal(scrapeTime(1)) {
		t.Errorf("first sample at %v, want the sample's own timestamp %v", first, scrapeTime(1))
	}
	rows = mustQuery(t, s, `{"quoted.name"}`, time.Time{})
	checkRows(t, rows, []wantRow{{map[string]string{"a": "b", "pod": "p"}, 2}})
}

const rangeJSON = `{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"__name__":"stream_barrier_manager_progress","namespace":"rw","pod":"risingwave-compute-0"},
  "values":[[1795884000,"1000"],[1795884015,"1030"],[1795884030,"1060"],[1795884045,"1090"]]},
 {"metric":{"__name__":"stream_barrier_manager_progress","namespace":"rw"},
  "values":[[1795884000,"7"],[1795884045.5,"NaN"]]},
 {"metric":{"__name__":"other_metric"},"values":[[1795884000,"1"]]}
]}}`

func TestAddRange(t *testing.T) {
	path := bundle.PrometheusRangePath("barrier")
	s := NewStore(map[string]bool{"stream_barrier_manager_progress": true})
	if err := s.AddRange(path, strings.NewReader(rangeJSON)); err != nil {
		t.Fatal(err)
	}
	s.SetComponents(metricComponent)
	if got := s.SeriesCount(); got != 2 {
		t.Errorf("SeriesCount = %d, want 2", got)
	}
	first, last := s.Span()
	if first.Unix() != 1795884000 || last.UnixMilli() != 1795884045500 {
		t.Errorf("Span = %v, %v", first, last)
	}
	rows := mustQuery(t, s, `rate(stream_barrier_manager_progress{pod!=""}[$__rate_interval])`, time.Time{})
	checkRows(t, rows, []wantRow{{map[string]string{"pod": "risingwave-compute-0", "component": "compute", "namespace": "rw", "path": path}, 2}})
	rows = mustQuery(t, s, `stream_barrier_manager_progress{pod=""}`, time.Time{})
	if len(rows) != 1 || rows[0]["path"] != path || !math.IsNaN(rows[0]["value"].(float64)) {
		t.Errorf("series without pod: %v, want one, NaN, from %s", rows, path)
	}

	for _, bad := range []string{
		`{"status":"error","errorType":"bad_data","error":"invalid query"}`,
		`{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}`,
		`{"status":"success"`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1,"1"],[2,"one"]]}]}}`,
	} {
		s := NewStore(nil)
		err := s.AddRange(path, strings.NewReader(bad))
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: error %v, want one naming %s", bad, err, path)
		}
		if strings.Contains(bad, `"one"`) && s.SampleCount() != 1 {
			t.Errorf("samples before the bad one: %d, want 1", s.SampleCount())
		}
	}
}

func TestMetricNames(t *testing.T) {
	tests := []struct {
		query string
		names []string
		all   bool
	}{
		{`rate(stream_barrier_manager_progress[1m])`, []string{"stream_barrier_manager_progress"}, false},
		{`histogram_quantile(0.99, sum by (le) (rate(meta_barrier_duration_seconds_bucket[$__rate_interval])))`, []string{"meta_barrier_duration_seconds_bucket"}, false},
		{`b / on (pod) group_left a{x="1"} or b`, []string{"a", "b"}, false},
		{`{__name__="x", job="y"}`, []string{"x"}, false},
		{`{__name__=~"x.*"}`, nil, true},
		{`up or {job="rw"}`, []string{"up"}, true},
		{`max_over_time(x[$__range:$__interval])`, []string{"x"}, false},
		{`1 + 2`, nil, false},
	}
	for _, tt := range tests {
		names, all, err := Names(tt.query)
		if err != nil {
			t.Errorf("Names(%q): %v", tt.query, err)
			continue
		}
		if !slices.Equal(names, tt.names) || all != tt.all {
			t.Errorf("Names(%q) = %q, %v; want %q, %v", tt.query, names, all, tt.names, tt.all)
		}
	}
	if _, _, err := Names(`rate(x[1m]`); err == nil {
		t.Error("Names accepted a bad query")
	}
}

func TestCheckPromQL(t *testing.T) {
	tests := []struct {
		query   string
		wantErr string // prefix; "" for none
	}{
		{`rate(x[1m])`, ""},
		{`sum by (le) (rate(x_bucket[$__rate_interval])) / ${__range_s}`, ""},
		{`increase(x[$__range]) > $__interval_ms`, ""},
		{`rate(x[1m]`, "1:11: parse error: unclosed left parenthesis"},
		// Positions count in the query as written, variables included.
		{`rate(x[$__rate_interval]) +`, "1:28: parse error:"},
		{`avg_over_time(x[$__interval]) + $__range_ms +`, "1:46: parse error:"},
		{`sum(x) by (`, "1:"},
	}
	for _, tt := range tests {
		err := CheckPromQL(tt.query)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CheckPromQL(%q): %v", tt.query, err)
		case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
			t.Errorf("CheckPromQL(%q) = %v, want an error starting %q", tt.query, err, tt.wantErr)
		}
	}
}

func TestGrafanaIntervals(t *testing.T) {
	s := clusterStore(t, nil)
	iv := s.prepare()
	if iv.scrape != 15*time.Second || iv.span != 45*time.Second {
		t.Fatalf("intervals = %+v, want 15s scrapes over 45s", iv)
	}
	tests := []struct{ in, want string }{
		{`x[$__rate_interval]`, `x[00000000045001ms]`},
		{`x[${__rate_interval}]`, `x[0000000000045001ms]`},
		{`x[$__range]`, `x[045001ms]`},
		{`x[$__interval]`, `x[0000000015s]`},
		{`$__range_s $__range_ms $__interval_ms`, `46         45001       15000         `},
	}
	for _, tt := range tests {
		if got := expandGrafanaVars(tt.in, iv); got != tt.want {
			t.Errorf("expandGrafanaVars(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := metricIntervals{scrape: 30 * time.Second, span: time.Hour}
	if got := long.rateInterval(); got != 2*time.Minute {
		t.Errorf("rate interval over an hour of 30s scrapes = %v, want 2m", got)
	}
	if got := (metricIntervals{}).rangeVar(); got != time.Minute {
		t.Errorf("range of a single scrape = %v, want 1m", got)
	}
}

// BenchmarkAddScrape parses a 2,000-series scrape of which rules reference
// 20 of 100 metric names.
func BenchmarkAddScrape(b *testing.B) {
	const families, perFamily = 100, 20
	var sb strings.Builder
	names := map[string]bool{}
	for f := range families {
		name := fmt.Sprintf("stream_executor_metric_%03d_total", f)
		if f%5 == 0 {
			names[name] = true
		}
		fmt.Fprintf(&sb, "# HELP %s Synthetic executor metric %d.\n# TYPE %s counter\n", name, f, name)
		for i := range perFamily {
			fmt.Fprintf(&sb, "%s{actor_id=\"%d\",fragment_id=\"%d\",executor_identity=\"HashAggExecutor %X\"} %d\n", name, 1000+i, 10+i%4, 0xabc00+i, 12345*i+f)
		}
	}
	text := []byte(sb.String())
	s := NewStore(names)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		at := metricsT0.Add(time.Duration(n) * 15 * time.Second)
		if err := s.AddScrape(bundle.ScrapePath("risingwave-compute-0", at), "risingwave-compute-0", at, bytes.NewReader(text)); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(families*perFamily*n)/b.Elapsed().Seconds(), "samples/s")
	if got := s.SeriesCount(); got != 20*perFamily {
		b.Fatalf("SeriesCount = %d, want %d", got, 20*perFamily)
	}
}
