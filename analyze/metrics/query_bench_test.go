package metrics

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// BenchmarkQuery evaluates range and instant queries over 4 pods' 240
// scrapes of 500 series each (counters, a histogram's buckets, gauges), at
// the last scrape and at one in the middle, as a history does.
func BenchmarkQuery(b *testing.B) {
	s := NewStore(nil)
	for pod := range 4 {
		name := fmt.Sprintf("risingwave-compute-%d", pod)
		for k := range 240 {
			var sb strings.Builder
			for i := range 200 {
				fmt.Fprintf(&sb, "stream_actor_row_count{actor_id=\"%d\"} %d\n", i, k*1000+i*k%7)
				fmt.Fprintf(&sb, "stream_actor_input_buffer_blocking_duration_ns{actor_id=\"%d\"} %d\n", i, k*k*1000+i)
			}
			for i, le := range []string{"0.001", "0.01", "0.1", "1", "10", "+Inf"} {
				for f := range 10 {
					fmt.Fprintf(&sb, "state_store_get_duration_bucket{le=%q,table_id=\"%d\"} %d\n", le, f, k*(i+1)*10+f)
				}
			}
			for f := range 40 {
				fmt.Fprintf(&sb, "memory_usage_bytes{table_id=\"%d\"} %d\n", f, 1<<30+(k*37+f)%1000*4096)
			}
			at := metricsT0.Add(time.Duration(k) * 15 * time.Second)
			if err := s.AddScrape(bundle.ScrapePath(name, at), name, at, bytes.NewReader([]byte(sb.String()))); err != nil {
				b.Fatal(err)
			}
		}
	}
	queries := []string{
		`sum by (pod) (rate(stream_actor_row_count[1m]))`,
		`max by (pod, actor_id) (rate(stream_actor_input_buffer_blocking_duration_ns[$__rate_interval])) / 1e9`,
		`histogram_quantile(0.99, sum by (le, pod) (rate(state_store_get_duration_bucket[$__rate_interval])))`,
		`max_over_time(memory_usage_bytes[$__range])`,
		`memory_usage_bytes`,
	}
	last := metricsT0.Add(239 * 15 * time.Second)
	mid := metricsT0.Add(120 * 15 * time.Second)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range queries {
			for _, at := range []time.Time{last, mid} {
				if _, err := s.Query(ctx, q, at); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
