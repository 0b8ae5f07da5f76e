package collect_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/collect"
)

// BenchmarkCollectLogs is a whole collection from the test API server with
// large logs: every container of the sample cluster (five pods, six logs
// with compute-0's previous one) serves RWDIAG_BENCH_LOG_MIB MiB (default
// 64) of RisingWave-shaped log text (collect.GenLog), collected into a
// tar.zst, with redaction on and off. MB/s is log bytes collected per
// second of the whole run; docs/performance.md quotes it. SQL is skipped
// (no server), one metrics scrape a pod.
//
//	RWDIAG_BENCH_LOG_MIB=96 go test -run XXX -bench CollectLogs -benchtime 3x ./collect/
func BenchmarkCollectLogs(b *testing.B) {
	mib := 64
	if s := os.Getenv("RWDIAG_BENCH_LOG_MIB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("RWDIAG_BENCH_LOG_MIB=%q: want a positive number of MiB", s)
		}
		mib = n
	}
	api := newFakeAPI(b)
	var total int64
	seed := uint64(1)
	for key := range api.logs {
		api.logs[key] = collect.GenLog(mib<<20, seed)
		total += int64(len(api.logs[key]))
		seed++
	}
	_, cfg := api.start(b)
	for _, mode := range []struct {
		name     string
		noRedact bool
	}{{"no-redact", true}, {"redact", false}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(total)
			dir := b.TempDir()
			i := 0
			for b.Loop() {
				o := collect.DefaultOptions()
				o.RESTConfig = cfg
				o.Namespace = testNS
				o.Output = filepath.Join(dir, "bundle-"+strconv.Itoa(i)+".tar.zst")
				i++
				o.NoRedact = mode.noRedact
				o.LogBytes = int64(mib+1) << 20
				o.LogBudget = 64 << 30
				o.Since = 0
				o.MetricsSamples = 1
				o.Skip = []string{collect.StepSQL}
				o.Timeout = 30 * time.Minute
				res, err := collect.Run(context.Background(), o, nil)
				if err != nil {
					b.Fatal(err)
				}
				m := res.Manifest
				if m == nil || !m.Complete {
					b.Fatalf("incomplete: %+v", res)
				}
				var logs int64
				for _, f := range m.Files {
					if filepath.Ext(f.Path) == ".log" {
						logs += f.Size
					}
				}
				if logs < total*9/10 {
					b.Fatalf("the bundle holds %d bytes of logs, want about %d", logs, total)
				}
				os.Remove(res.Path)
			}
		})
	}
}
