package metrics

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// wantLimit runs q and wants it stopped at limit, with an error naming the
// query, within tens of seconds.
func wantLimit(t *testing.T, s *Store, q, limit string) *LimitError {
	t.Helper()
	start := time.Now()
	_, err := s.Query(context.Background(), q, time.Time{})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != limit || !errors.Is(err, ErrLimit) {
		t.Fatalf("Query(%q): err = %v, want a LimitError for %s", q, err, limit)
	}
	if !strings.Contains(err.Error(), q) || !strings.Contains(err.Error(), "metrics limit "+limit) {
		t.Errorf("err = %q, want it to name the query and the limit", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Query(%q) stopped after %v", q, d)
	}
	return le
}

// TestQuerySubquerySteps is the attack: a subquery with a 1 ms step
// over 10 years made Prometheus allocate 2.5 TB for its per-step statistics
// at once, a fatal error no recover catches. It is refused before
// evaluation, naming the query and the subquery.
func TestQuerySubquerySteps(t *testing.T) {
	s := clusterStore(t, nil)
	for _, tt := range []struct{ q, sub string }{
		{"max_over_time(up[10y:1ms])", "up[10y:1ms]"},
		{"max_over_time(process_resident_memory_bytes[10y:1ms])", "process_resident_memory_bytes[10y:1ms]"},
		// Nested: the inner one spans the outer's range too.
		{"max_over_time((max_over_time(process_resident_memory_bytes[1h:1s]))[300d:1d])", "process_resident_memory_bytes[1h:1s]"},
		// Without a step: the scrape interval, 15 s.
		{"max_over_time(process_resident_memory_bytes[1y:])", "process_resident_memory_bytes[1y:]"},
	} {
		le := wantLimit(t, s, tt.q, "MaxSubquerySteps")
		if !strings.Contains(le.Msg, tt.sub) {
			t.Errorf("%q: %q does not name the subquery %s", tt.q, le.Msg, tt.sub)
		}
	}
	// Within the limit, and at a lowered one: the same check.
	mustQuery(t, s, "max_over_time(process_resident_memory_bytes[1h:15s])", time.Time{})
	s.SetLimits(Limits{MaxSubquerySteps: 100})
	wantLimit(t, s, "max_over_time(process_resident_memory_bytes[1h:15s])", "MaxSubquerySteps")
	s.SetLimits(Limits{MaxSubquerySteps: -1, MaxSamples: 1000})
	wantLimit(t, s, "max_over_time(vector(1)[1h:1s])", "MaxSamples")
}

func TestQueryMaxSamplesAndTimeout(t *testing.T) {
	s := clusterStore(t, nil)
	s.SetLimits(Limits{MaxSamples: 100})
	wantLimit(t, s, "vector(1)[1h:1s]", "MaxSamples")

	// Quadratic: 86,401 outer steps over 86,401 inner samples each, for
	// one series; Prometheus would not look at its timeout for a minute.
	le := wantLimit(t, s, "max_over_time((max_over_time(vector(1)[1d:1s]))[1d:1s])", "MaxSeriesWork")
	if want := "1:16: max_over_time would read about 7465132801 samples per series (86401 steps × 86401 samples in each window of vector(1)[1d:1s]), more than 100000000"; le.Msg != want {
		t.Errorf("msg = %q\nwant  %q", le.Msg, want)
	}
	// A range's samples: at most the longest series', 4 here.
	s.SetLimits(Limits{MaxSeriesWork: 3})
	wantLimit(t, s, "max_over_time(process_resident_memory_bytes[1h])", "MaxSeriesWork")
	s.SetLimits(Limits{MaxSeriesWork: 4})
	mustQuery(t, s, "max_over_time(process_resident_memory_bytes[1h])", time.Time{})

	// 950,401 steps of an aggregation, within the static limits: the
	// engine's timeout ends it.
	heavy := "count_over_time((sum without () (vector(1) * vector(2) + vector(3)))[11d:1s])"
	s.SetLimits(Limits{Timeout: 10 * time.Millisecond})
	wantLimit(t, s, heavy, "Timeout")

	// The caller's own deadline is not the store's limit.
	s.SetLimits(Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Query(ctx, heavy, time.Time{}); err == nil || errors.Is(err, ErrLimit) {
		t.Errorf("a query the caller's context ended: err = %v, want the context's", err)
	}
	mustQuery(t, s, "process_resident_memory_bytes", time.Time{}) // still usable
}

func TestLimitsMaxSamples(t *testing.T) {
	for _, tt := range []struct {
		l       Limits
		n, want int
	}{
		{Limits{}, 0, DefaultMinSamples},
		{Limits{}, 10_000_000, 20_000_000},
		{Limits{}, 40_000_000, DefaultMaxSamples},
		{Limits{MaxSamples: 7}, 40_000_000, 7},
		{Limits{MaxSamples: -1}, 0, DefaultMaxSamples},
	} {
		if got := tt.l.maxSamples(tt.n); got != tt.want {
			t.Errorf("%+v.maxSamples(%d) = %d, want %d", tt.l, tt.n, got, tt.want)
		}
	}
}

func TestCheckQuery(t *testing.T) {
	tests := []struct {
		q        string
		scrape   time.Duration
		want     []string // substrings, one per error
		parseErr bool
	}{
		{q: "max_over_time(up[10y:1ms])", want: []string{
			`query "max_over_time(up[10y:1ms])": 1:15: subquery up[10y:1ms] steps by 1ms, under the scrape interval 15s`,
			`query "max_over_time(up[10y:1ms])": 1:15: subquery up[10y:1ms] would evaluate 315360000001 steps (10y / 1ms), more than 1000000 (metrics limit MaxSubquerySteps)`}},
		{q: "max_over_time((max_over_time(x[1d]))[1d:15s])"},
		{q: "max_over_time((max_over_time(x[1d]))[7d:15s])", want: []string{
			"1:16: max_over_time would read about 232289281 samples per series (40321 steps × 5761 samples in each window of x[1d]), more than 100000000 (metrics limit MaxSeriesWork)"}},
		{q: "rate(x[5m:1s])", want: []string{"subquery x[5m:1s] steps by 1s, under the scrape interval 15s"}},
		{q: "rate(x[5m:1s])", scrape: time.Second},
		{q: "max_over_time(x[400d:])", scrape: 30 * time.Second, want: []string{"would evaluate 1152001 steps (1y5w / 30s)"}},
		{q: "sum(\n  max_over_time((x offset $__interval - x)[$__range:$__interval])\n)", scrape: 15 * time.Second},
		{q: "max_over_time((max_over_time(x[1h:1s]))[2h:1m])", want: []string{"1:30: subquery x[1h:1s] steps by 1s"}},
		{q: "max_over_time(x[5m]", parseErr: true},
	}
	for _, tt := range tests {
		errs := CheckQuery(tt.q, tt.scrape)
		if tt.parseErr {
			if len(errs) != 1 || errs[0].Error() != CheckPromQL(tt.q).Error() {
				t.Errorf("CheckQuery(%q) = %v, want the parse error alone", tt.q, errs)
			}
			continue
		}
		if len(errs) != len(tt.want) {
			t.Errorf("CheckQuery(%q, %v) = %v, want %d errors", tt.q, tt.scrape, errs, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(errs[i].Error(), w) {
				t.Errorf("CheckQuery(%q)[%d] = %q, want it to contain %q", tt.q, i, errs[i], w)
			}
		}
	}
}

// TestDropScrapesOutside: scrape files named with a 1970 and a year-9999
// time. Before they are dropped, $__range spans 8,000 years and a subquery
// over it is refused (the offset rule used to evaluate over 55 years, 4-5 GB,
// then fail on too many samples); after, the store is what it would be
// without them.
func TestDropScrapesOutside(t *testing.T) {
	s := NewStore(nil)
	loadScrapes(t, s, clusterScrapes())
	early, late := time.UnixMilli(1000).UTC(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	pod := "risingwave-compute-0"
	text := computeScrape(99999, map[string]float64{"0": 1})
	loadScrapes(t, s, []scrapeFixture{{pod, late, text}, {pod, early, text}})
	rangeJSON := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"prom_only"},"values":[[` +
		unixSeconds(metricsT0.Add(-48*time.Hour)) + `,"1"],[` + unixSeconds(metricsT0) + `,"2"]]}]}}`
	if err := s.AddRange("metrics/prometheus/prom_only.json", strings.NewReader(rangeJSON)); err != nil {
		t.Fatal(err)
	}
	s.SetComponents(metricComponent)

	attack := "max_over_time(process_resident_memory_bytes[$__range:$__interval])"
	wantLimit(t, s, attack, "MaxSubquerySteps")
	if ts := s.ScrapeTimes(); len(ts) != 14 || !ts[0].Equal(early) || !ts[13].Equal(late) || !ts[1].Equal(metricsT0) {
		t.Errorf("ScrapeTimes() = %v", ts)
	}

	dropped := s.DropScrapesOutside(metricsT0.Add(-24*time.Hour), scrapeTime(3).Add(24*time.Hour))
	if want := []string{bundle.ScrapePath(pod, late), bundle.ScrapePath(pod, early)}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	first, last := s.Span()
	if !first.Equal(metricsT0.Add(-48*time.Hour)) || !last.Equal(scrapeTime(3)) {
		t.Errorf("Span() = %v, %v: want the range file's first sample (its window is its own) and the last scrape", first, last)
	}
	if got := len(s.ScrapeTimes()); got != 12 {
		t.Errorf("%d scrape times after dropping, want 12", got)
	}
	for _, c := range s.Coverage(metricComponent) {
		if c.Component == "compute" && (c.Scrapes != 8 || !c.First.Equal(metricsT0) || !c.Last.Equal(scrapeTime(3))) {
			t.Errorf("compute coverage = %+v, want 8 scrapes from the first to the fourth round", c)
		}
	}
	// The evaluation time is the last kept sample, and the dropped samples
	// are gone from every series.
	rows := mustQuery(t, s, `max_over_time(stream_barrier_manager_progress{pod="risingwave-compute-0"}[$__range])`, time.Time{})
	if len(rows) != 1 || rows[0]["value"] != 1090.0 || !rows[0]["time"].(time.Time).Equal(scrapeTime(3)) {
		t.Errorf("rows = %v, want compute-0's own maximum, 1090, at the last scrape", rows)
	}
	rows = mustQuery(t, s, `count_over_time(stream_barrier_manager_progress{pod="risingwave-compute-0"}[$__range])`, time.Time{})
	if len(rows) != 1 || rows[0]["value"] != 4.0 {
		t.Errorf("rows = %v, want 4 samples", rows)
	}
	mustQuery(t, s, attack, time.Time{})
	if again := s.DropScrapesOutside(metricsT0.Add(-24*time.Hour), scrapeTime(3).Add(24*time.Hour)); len(again) != 0 {
		t.Errorf("dropping again dropped %q", again)
	}

	// A series whose every sample is outside goes, and its name with it.
	s = NewStore(nil)
	loadScrapes(t, s, []scrapeFixture{{pod, early, "only_early 1\n"}, {pod, metricsT0, "kept 1\n"}})
	s.DropScrapesOutside(metricsT0, metricsT0)
	if ok, missing, err := s.Readable("only_early"); ok || err != nil || len(missing) != 1 {
		t.Errorf("Readable(only_early) = %v %v %v, want missing", ok, missing, err)
	}
	if n := s.SeriesCount(); n != 1 {
		t.Errorf("%d series left, want 1", n)
	}
}

func unixSeconds(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
}
