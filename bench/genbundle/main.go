// Command genbundle writes a synthetic RisingWave bundle of a requested
// uncompressed size, for measuring the reader. The files' contents are
// deterministic (a seeded math/rand); the manifest's timestamps are the
// writer's clock.
//
//	go run ./bench/genbundle -size 1GiB -o /tmp/bench-1g.tar.zst
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

func main() {
	size := flag.String("size", "1GiB", "uncompressed size of the bundle's files (e.g. 64MiB, 1GiB, 500MB)")
	out := flag.String("o", "bench.tar.zst", "output `path`")
	format := flag.String("format", "tar.zst", "archive format: tar.zst, tar.gz or tar")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genbundle:", err)
		os.Exit(2)
	}
	f, ok := map[string]bundle.Format{"tar.zst": bundle.FormatTarZstd, "tar.gz": bundle.FormatTarGzip, "tar": bundle.FormatTar}[*format]
	if !ok {
		fmt.Fprintf(os.Stderr, "genbundle: unknown format %q\n", *format)
		os.Exit(2)
	}
	if err := generate(*out, f, n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "genbundle:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}

type pod struct {
	name, component, container string
	weight                     int // share of the log bytes
}

var pods = []pod{
	{"risingwave-meta-0", "meta", "meta", 2},
	{"risingwave-frontend-0", "frontend", "frontend", 1},
	{"risingwave-compute-0", "compute", "compute", 5},
	{"risingwave-compute-1", "compute", "compute", 5},
	{"risingwave-compute-2", "compute", "compute", 5},
	{"risingwave-compactor-0", "compactor", "compactor", 2},
}

// start is the time of the first log line.
var start = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

const scrapesPerPod = 8

func generate(dest string, format bundle.Format, size int64, seed uint64) (err error) {
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Format: format, Root: "rwdiag-bench-20261129T204300Z"})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "genbundle", Version: "bench"}
		m.CollectedAt = start
		m.Namespace = "risingwave"
		m.Cluster = "bench"
		m.RisingWaveVersion = "v2.6.2"
	})
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	podsJSON, err := podList()
	if err != nil {
		return err
	}
	if err := w.WriteFile(bundle.KubePath("pods"), "genbundle", podsJSON); err != nil {
		return err
	}
	rest := size - int64(len(podsJSON))
	scrapeBytes := rest / 10
	logBytes := rest - scrapeBytes
	totalWeight := 0
	for _, p := range pods {
		totalWeight += p.weight
	}
	for _, p := range pods {
		want := logBytes * int64(p.weight) / int64(totalWeight)
		if err := writeFile(w, bundle.LogPath(p.name, p.container, false), func(bw *bufio.Writer) error {
			return writeLog(bw, rng, p, want)
		}); err != nil {
			return err
		}
		per := scrapeBytes / int64(len(pods)*scrapesPerPod)
		for i := range scrapesPerPod {
			at := start.Add(time.Duration(i) * 15 * time.Second)
			if err := writeFile(w, bundle.ScrapePath(p.name, at), func(bw *bufio.Writer) error {
				return writeScrape(bw, rng, p, at, per)
			}); err != nil {
				return err
			}
		}
	}
	return w.Close()
}

func writeFile(w *bundle.Writer, path string, fill func(*bufio.Writer) error) error {
	f, err := w.Create(path, "genbundle")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = fill(bw)
	err = errors.Join(err, bw.Flush())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func podList() ([]byte, error) {
	type container struct {
		Name  string `json:"name"`
		Image string `json:"image"`
	}
	type item struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Containers []container `json:"containers"`
		} `json:"spec"`
		Status struct {
			Phase             string           `json:"phase"`
			ContainerStatuses []map[string]any `json:"containerStatuses"`
		} `json:"status"`
	}
	var items []item
	for _, p := range pods {
		var it item
		it.APIVersion, it.Kind = "v1", "Pod"
		it.Metadata.Name, it.Metadata.Namespace = p.name, "risingwave"
		it.Metadata.Labels = map[string]string{
			"risingwave/component":       p.component,
			"risingwave/name":            "risingwave",
			"app.kubernetes.io/instance": "risingwave",
		}
		it.Spec.Containers = []container{{Name: p.container, Image: "risingwavelabs/risingwave:v2.6.2"}}
		it.Status.Phase = "Running"
		it.Status.ContainerStatuses = []map[string]any{{"name": p.container, "ready": true, "restartCount": 0}}
		items = append(items, it)
	}
	return json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
}

// logTemplates are RisingWave-shaped log lines; %d/%s are filled at random.
var logTemplates = map[string][]string{
	"compute": {
		" INFO risingwave_stream::task::barrier_manager::managed_state: collected barrier epoch=%d prev_epoch=%d actor_count=%d",
		" INFO risingwave_stream::executor::source::source_executor: source split assigned actor_id=%d split_id=%d offset=%d",
		" INFO risingwave_storage::hummock::event_handler::uploader: start upload task epoch=%d imm_count=%d size=%d",
		" WARN risingwave_stream::executor::hash_join: high join amplification actor_id=%d fragment_id=%d rows=%d",
		" INFO risingwave_storage::hummock::store::version: sync finished epoch=%d sst_count=%d bytes=%d",
	},
	"meta": {
		" INFO risingwave_meta::barrier::rpc: inject barrier epoch=%d kind=Checkpoint prev_epoch=%d in_flight=%d",
		" INFO risingwave_meta::hummock::manager::compaction: compaction task assigned task_id=%d group=%d input_ssts=%d",
		" INFO risingwave_meta::barrier::progress: create mview progress job_id=%d consumed_rows=%d progress=%d%%",
	},
	"frontend": {
		" INFO risingwave_frontend::session: new session session_id=%d process_id=%d user_id=%d",
		" INFO pgwire::pg_server: connection established conn_id=%d peer=10.0.%d.%d:5432",
	},
	"compactor": {
		" INFO risingwave_storage::hummock::compactor::compactor_runner: Ready to handle compaction task task_id=%d input_ssts=%d target_level=%d",
		" INFO risingwave_storage::hummock::compactor: Finish task task_id=%d output_ssts=%d elapsed_ms=%d",
	},
}

func writeLog(w *bufio.Writer, rng *rand.Rand, p pod, want int64) error {
	tmpls := logTemplates[p.component]
	t := start
	var written int64
	buf := make([]byte, 0, 512)
	for written < want {
		t = t.Add(time.Duration(rng.IntN(20_000_000)))
		buf = t.AppendFormat(buf[:0], "2006-01-02T15:04:05.000000000Z07:00")
		buf = append(buf, ' ')
		buf = fmt.Appendf(buf, tmpls[rng.IntN(len(tmpls))], 7_000_000_000+rng.Int64N(1<<40), rng.IntN(100_000), rng.IntN(1_000_000))
		buf = append(buf, '\n')
		n, err := w.Write(buf)
		written += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}

var metrics = []string{
	"stream_barrier_latency_bucket", "stream_actor_input_buffer_blocking_duration_ns", "state_store_sync_duration_bucket",
	"stream_source_output_rows_counts", "hummock_manager_lsm_level_size", "stream_executor_row_count",
}

func writeScrape(w *bufio.Writer, rng *rand.Rand, p pod, at time.Time, want int64) error {
	var written int64
	ms := at.UnixMilli()
	for i := 0; written < want; i++ {
		name := metrics[i%len(metrics)]
		n, err := fmt.Fprintf(w, "%s{job=%q,instance=\"%s:1222\",actor_id=\"%d\",fragment_id=\"%d\"} %g %d\n",
			name, p.component, p.name, rng.IntN(10_000), rng.IntN(500), rng.Float64()*1e6, ms)
		written += int64(n)
		if err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "# EOF\n")
	return err
}
