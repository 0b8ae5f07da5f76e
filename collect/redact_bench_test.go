package collect

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchLogLines are the line shapes of benchLog.
var benchLogLines = []string{
	`%s 2026-11-29T20:41:07.%06dZ  INFO actor{otel.name="Actor 132" actor_id=132 prev_epoch=8251479106256896 curr_epoch=8251479171792896}:executor{otel.name="SourceExecutor 8400000001" actor_id=132}: risingwave_connector::source::kafka::source::reader: fetch kafka watermarks: low: 0, high: 1048576, split: KafkaSplit { topic: "orders", partition: 3, start_offset: Some(41), stop_offset: None }`,
	`%s 2026-11-29T20:41:07.%06dZ  INFO risingwave_meta::barrier::worker: recovery success`,
	`%s 2026-11-29T20:41:07.%06dZ  WARN risingwave_meta::barrier::rpc: get error from response stream worker_id=2 host=Some(HostAddress { host: "rw-compute-0.rw-compute", port: 5688 }) err=gRPC request to stream service failed: Internal error: failed to collect barrier`,
	`%s 2026-11-29T20:41:07.%06dZ ERROR risingwave_stream::task::barrier_manager: suspend database on error database_id=1 failed_actor=Some(7) recv actor failure err=Actor 7 exited unexpectedly: Executor error: Sink error: sink_id=5, error: Kafka error: Message production error: MessageTimedOut (Local: Message timed out)`,
	`%s {"timestamp":"2026-11-29T20:41:07.%06dZ","level":"INFO","fields":{"message":"slow query","elapsed":"1532ms"},"target":"pgwire_slow_query_log","spans":[{"mode":"simple query","session_id":7,"sql":"SELECT count(*) FROM orders_mv WHERE region = 'eu'","name":"handle_query"}]}`,
	`%s 2026-11-29T20:41:07.%06dZ  INFO risingwave_storage::hummock::event_handler::hummock_event_handler: epoch has been synced epoch=8251479171792896 sync_size=1048576 table_ids=[1001, 1002, 1003]`,
	`%s 2026-11-29T20:41:07.%06dZ ERROR librdkafka: librdkafka: FAIL [thrd:kafka-0.kafka:9092/bootstrap]: kafka-0.kafka:9092/bootstrap: Connect to ipv4#10.0.3.17:9092 failed: Connection refused (after 1ms in state CONNECT)`,
	`%s 2026-11-29T20:41:07.%06dZ  INFO handle_query{mode="extended query execute" session_id=12 sql=INSERT INTO events VALUES ($1, $2)}: pgwire_slow_query_log: slow query elapsed=2210ms`,
}

// benchLog is about 4 MiB of RisingWave compute and meta log lines in the
// shapes `kubectl logs --timestamps` returns them (see
// /work/notes/log-shapes.md): the Full format of tracing-subscriber 0.3.17
// (v2.3.0 src/utils/runtime/src/logger.rs:291-306) with its span prefixes,
// the cloud JSON format, an ERROR chain from a Kafka sink, a panic, and one
// line in 500 carrying a secret (a CREATE SINK definition with a SASL
// password). All ids, names and values are invented.
func benchLog() []byte {
	lines := benchLogLines
	secretLine := `%s 2026-11-29T20:41:07.%06dZ  INFO risingwave_frontend::handler::create_sink: create sink definition=CREATE SINK s%d FROM mv WITH (connector = 'kafka', properties.bootstrap.server = 'kafka-0:9092', topic = 'out', properties.sasl.mechanism = 'PLAIN', properties.sasl.username = 'rw', properties.sasl.password = 'bench-Pw-%d') FORMAT PLAIN ENCODE JSON`
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		ts := fmt.Sprintf("2026-11-29T20:41:%02d.%09dZ", i/1000%60, i%1000000000)
		if i%500 == 499 {
			fmt.Fprintf(&b, secretLine, ts, i%1000000, i, i)
		} else {
			fmt.Fprintf(&b, lines[i%len(lines)], ts, i%1000000)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkRedactLogText is Text over realistic log text; MB/s is the
// figure docs/performance.md quotes.
func BenchmarkRedactLogText(b *testing.B) {
	r, _ := NewRedactor(nil)
	data := benchLog()
	r.Text("warm-up", data[:4096])
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.Text("logs/rw/compute-0/compute.log", data)
	}
}

// BenchmarkRedactLogStream is TextStream over the same text.
func BenchmarkRedactLogStream(b *testing.B) {
	r, _ := NewRedactor(nil)
	data := benchLog()
	r.Text("warm-up", data[:4096])
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.TextStream("logs/rw/compute-0/compute.log", io.Discard, bytes.NewReader(data))
	}
}

// BenchmarkRedactLogCopy is the floor: copying the same text line by line
// without redaction.
func BenchmarkRedactLogCopy(b *testing.B) {
	data := benchLog()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var r *Redactor
		r.TextStream("x", io.Discard, strings.NewReader(string(data)))
	}
}

// genLog returns about size bytes of log text for a container, in the
// shapes `kubectl logs --timestamps` returns: the lines of the sample
// bundle's logs (samples/oom-crash-loop/logs, which follow v2.3.0-v2.8.0's
// Full format; see their sources there) and benchLog's shapes (spans, the
// cloud JSON format, librdkafka, barrier and actor errors), drawn at random
// with every number run replaced by another of the same length, under
// increasing kubelet timestamps; one line in 500 is a CREATE SINK with a
// SASL password (a secret to redact). seed makes it reproducible.
func genLog(size int, seed uint64) []byte {
	templates := genLogTemplates()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b bytes.Buffer
	b.Grow(size + 4096)
	secret := `2026-11-29T20:41:07.123456Z  INFO risingwave_frontend::handler::create_sink: create sink definition=CREATE SINK s%d FROM mv WITH (connector = 'kafka', properties.bootstrap.server = 'kafka-0:9092', topic = 'out', properties.sasl.mechanism = 'PLAIN', properties.sasl.username = 'rw', properties.sasl.password = 'gen-Pw-%d') FORMAT PLAIN ENCODE JSON`
	base := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := 0; b.Len() < size; i++ {
		ts := base.Add(time.Duration(i) * 1700 * time.Microsecond)
		b.WriteString(ts.Format("2006-01-02T15:04:05.000000000Z07:00"))
		b.WriteByte(' ')
		var line string
		if i%500 == 499 {
			line = fmt.Sprintf(secret, i, rng.Uint32())
		} else {
			line = templates[rng.IntN(len(templates))]
		}
		// every run of digits becomes another of the same length
		for j := 0; j < len(line); j++ {
			c := line[j]
			if c >= '0' && c <= '9' && (j == 0 || line[j-1] < '0' || line[j-1] > '9') && j > 30 {
				b.WriteByte(byte('1' + rng.IntN(9)))
				continue
			}
			if c >= '0' && c <= '9' && j > 30 {
				b.WriteByte(byte('0' + rng.IntN(10)))
				continue
			}
			b.WriteByte(c)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

var genLogOnce = sync.OnceValue(func() []string {
	var out []string
	files, _ := filepath.Glob("../samples/oom-crash-loop/logs/*/*.log")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			line = strings.TrimRight(line, "\n")
			// drop the kubelet's timestamp: genLog writes its own
			if i := strings.IndexByte(line, ' '); i == 30 || i == 29 || i == 28 {
				line = line[i+1:]
			}
			if line != "" {
				out = append(out, line)
			}
		}
	}
	for _, l := range benchLogLines {
		out = append(out, fmt.Sprintf(strings.TrimPrefix(l, "%s "), 123456))
	}
	return out
})

func genLogTemplates() []string { return genLogOnce() }

// BenchmarkRedactLogMixed is TextStream over genLog's text: the sample
// bundle's lines and benchLog's, one line in 500 with a secret.
func BenchmarkRedactLogMixed(b *testing.B) {
	r, _ := NewRedactor(nil)
	data := genLog(8<<20, 1)
	r.Text("warm-up", data[:4096])
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r.TextStream("logs/rw/compute-0/compute.log", io.Discard, bytes.NewReader(data))
	}
}

// BenchmarkScanLine is the one pass that finds a line's hints and
// gitleaks' keywords, alone.
func BenchmarkScanLine(b *testing.B) {
	if _, err := leakDetector(); err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(genLog(4<<20, 1)), "\n")
	st := leakSc.newState()
	b.SetBytes(4 << 20)
	for b.Loop() {
		for _, l := range lines {
			leakSc.scanLine(l, st)
		}
	}
}
