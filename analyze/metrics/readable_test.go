package metrics

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// A query is readable only when the families its selectors name were
// scraped from the components they select.
func TestReadable(t *testing.T) {
	s := NewStore(nil)
	at := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	for pod, text := range map[string]string{
		"rw-meta-0":    "all_barrier_nums 3\nlast_committed_barrier_time 1.7e9\n",
		"rw-compute-0": "stream_barrier_inflight_duration_seconds_count 10\n",
	} {
		if err := s.AddScrape("metrics/"+pod+"/1.prom", pod, at, strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
	}
	s.SetComponents(func(pod string) string {
		switch {
		case strings.Contains(pod, "meta"):
			return "meta"
		case strings.Contains(pod, "compute"):
			return "compute"
		}
		return ""
	})
	for _, tc := range []struct {
		q       string
		ok      bool
		missing []string
	}{
		{`sum(all_barrier_nums)`, true, nil},
		{`sum(all_barrier_nums{database_id="1"})`, true, nil}, // other matchers narrow, not gate
		{`rate(stream_barrier_manager_progress{component=~"compute|standalone"}[$__rate_interval])`, false,
			[]string{`stream_barrier_manager_progress{component=~"compute|standalone"}`}},
		{`all_barrier_nums{component="compute"}`, false, []string{`all_barrier_nums{component="compute"}`}},
		{`stream_barrier_manager_progress or stream_barrier_inflight_duration_seconds_count{component="compute"}`, true, nil},
		{`all_barrier_nums unless stream_barrier_manager_progress`, true, nil},
		{`all_barrier_nums and stream_barrier_manager_progress`, false, []string{"stream_barrier_manager_progress"}},
		{`max(timestamp(last_committed_barrier_time) - last_committed_barrier_time)`, true, nil},
		{`absent(user_sink_error_cnt)`, true, nil},
		{`sum(user_sink_error_cnt) + 1`, false, []string{"user_sink_error_cnt"}},
	} {
		ok, missing, err := s.Readable(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if ok != tc.ok || !slices.Equal(missing, tc.missing) {
			t.Errorf("Readable(%s) = %v %q, want %v %q", tc.q, ok, missing, tc.ok, tc.missing)
		}
	}
	cov := s.Coverage(func(pod string) string {
		if strings.Contains(pod, "meta") {
			return "meta"
		}
		return "compute"
	})
	if len(cov) != 2 || cov[0].Component != "compute" || cov[1].Component != "meta" || cov[1].Scrapes != 1 {
		t.Errorf("Coverage = %+v", cov)
	}
}

// A query's components are those its selectors read from, after their
// component matchers.
func TestComponents(t *testing.T) {
	s := NewStore(nil)
	at := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	for _, pod := range []string{"rw-meta-0", "rw-compute-0"} {
		if err := s.AddScrape("metrics/"+pod+"/1.prom", pod, at, strings.NewReader("process_cpu_seconds_total 3\n")); err != nil {
			t.Fatal(err)
		}
	}
	s.SetComponents(func(pod string) string { return strings.Split(pod, "-")[1] })
	got := s.Components(`rate(process_cpu_seconds_total{component=~"compute|standalone"}[1m])`)
	if len(got) != 1 || !got["compute"] {
		t.Errorf("Components = %v, want compute only", got)
	}
	if got := s.Components(`process_cpu_seconds_total`); len(got) != 2 {
		t.Errorf("Components = %v, want meta and compute", got)
	}
}

// $__interval is the scrape spacing rounded down, so that at a late
// scrape `x offset $__interval` still reaches the scrape before it.
func TestIntervalFindsThePreviousLateScrape(t *testing.T) {
	s := NewStore(nil)
	base := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	for i, v := range []string{"100", "200", "300", "120"} { // the last scrape steps back
		at := base.Add(time.Duration(i) * 15005 * time.Millisecond)
		if err := s.AddScrape("metrics/rw-compute-0/x.prom", "rw-compute-0", at, strings.NewReader("source_latest_message_id{partition=\"0\"} "+v+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.Query(context.Background(), `max(source_latest_message_id offset $__interval) - max(source_latest_message_id)`, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["value"] != 180.0 {
		t.Errorf("step back at the last scrape = %v, want 180 (300 before it, 120 now)", rows)
	}
}
