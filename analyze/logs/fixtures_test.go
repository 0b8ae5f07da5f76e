package logs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The shape fixtures: RisingWave's log lines as each release prints them
// (see ../testdata/shapes/logs/SOURCES.md).
const shapesDir = "../testdata/shapes/logs"

const (
	kafkaTimeout = "Kafka error: Message production error: MessageTimedOut (Local: Message timed out)"
	sinkErr5     = "Executor error: Sink error: sink_id=5, error: " + kafkaTimeout
)

// wantEvent is what an event of a fixture parses to. time is RFC 3339
// ("" for none), with the offset the line has.
type wantEvent struct {
	first, last                  int
	time, level, target, message string
	thread, location             string
	panic                        bool
	fields                       []Field
	spans                        []Span
}

func kv(s ...string) []Field {
	var out []Field
	for i := 0; i+1 < len(s); i += 2 {
		out = append(out, Field{Key: s[i], Value: s[i+1]})
	}
	return out
}

func span(name string, s ...string) Span { return Span{Name: name, Fields: kv(s...)} }

// fixtureEvents are the events of every fixture, by file: every line of a
// fixture after its "# " header belongs to one of them.
var fixtureEvents = map[string][]wantEvent{
	"HEAD-text-sink-retry-backoff.log": {
		{first: 4, last: 4, time: "2026-08-20T03:05:12.3121Z", level: "WARN", target: "risingwave_connector::sink::kafka", message: "producer queue is full, awaiting an outstanding delivery before retry",
			fields: kv("suppressed_count", "0", "future_count", "65536", "retry", "0"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "10113024066551808", "curr_epoch", "10113024132087808"), span("executor", "otel.name", "Sink 90000000C")}},
		{first: 5, last: 5, time: "2026-08-20T03:05:42.8015Z", level: "ERROR", target: "risingwave_stream::executor::sink", message: "reset log reader stream successfully after sink error; retrying after backoff",
			fields: kv("error", kafkaTimeout, "executor_id", "38654705676", "sink_id", "6", "retry_delay", "1.6s"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "10113026035417088", "curr_epoch", "10113026100953088"), span("executor", "otel.name", "Sink 90000000C")}},
		{first: 6, last: 6, time: "2026-08-20T03:05:47.41Z", level: "ERROR", target: "risingwave_stream::executor::sink", message: "reset log reader stream successfully after sink error; retrying after backoff",
			fields: kv("error", kafkaTimeout, "executor_id", "38654705676", "sink_id", "6", "retry_delay", "3.2s"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "10113026362572800", "curr_epoch", "10113026428108800"), span("executor", "otel.name", "Sink 90000000C")}},
	},
	"kubectl-timestamps-panic.log": {
		{first: 4, last: 4, time: "2025-04-22T16:44:02.903Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 5, last: 7, time: "2025-04-22T16:51:19.118034765Z", level: "ERROR", target: "", message: "upstream actor 12 not found in the barrier's mutation", thread: "rw-streaming", location: "src/stream/src/executor/merge.rs:303:21", panic: true},
	},
	"kubectl-timestamps-v1.0.0-pretty.log": {
		{first: 4, last: 4, time: "2023-08-02T06:38:02.110034188Z", level: "", target: "", message: "launching `meta`"},
		{first: 5, last: 7, time: "2023-08-02T06:38:02.114205903Z", level: "INFO", target: "risingwave_meta", message: "Starting meta node", location: "src/meta/src/lib.rs:210"},
		{first: 8, last: 10, time: "2023-08-02T06:38:02.1143816Z", level: "INFO", target: "risingwave_meta", message: "> version: 1.0.0 (9d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a)", location: "src/meta/src/lib.rs:214"},
	},
	"kubectl-timestamps.log": {
		{first: 6, last: 6, time: "2025-03-20T08:00:01.40201Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 7, last: 7, time: "2025-03-20T08:00:01.4021992Z", level: "INFO", target: "risingwave_compute::server", message: "> version: 2.0.7 (0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c)"},
		{first: 8, last: 13, time: "2025-03-20T08:15:40.0161Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5+"\n\nBacktrace:\n   0: <risingwave_stream::executor::error::StreamExecutorError as core::convert::From<(risingwave_connector::sink::SinkError,u32)>>::from\n             at ./src/stream/src/executor/error.rs:135:9")},
		{first: 14, last: 14, time: "2025-03-20T08:15:40.02273Z", level: "WARN", target: "risingwave_stream::task::barrier_manager", message: "control stream reset with error",
			fields: kv("error", "gRPC request failed: Internal error: failed to collect barrier: Actor 7 exited unexpectedly: "+sinkErr5)},
	},
	"pasted-no-timestamp.log": {
		{first: 4, last: 4, time: "", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5)},
		{first: 5, last: 5, time: "", level: "INFO", target: "risingwave_meta::barrier::worker", message: "recovery start!",
			spans: []Span{span("failure_recovery", "error", "database 1 reset")}},
		{first: 6, last: 6, time: "2025-04-22T14:20:51.6046Z", level: "WARN", target: "risingwave_meta::barrier::rpc", message: "get error from response stream",
			fields: kv("node", "WorkerNode { id: 2 }", "err", "gRPC request to stream service failed: Internal error: transport error")},
		{first: 7, last: 16, time: "2025-04-22T14:20:51.60419877Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "8", "error", "Executor error: exchange channel from local upstream actor 7 closed unexpectedly")},
	},
	"v1.0.0-panic-old-format.log": {
		{first: 4, last: 6, time: "2023-08-02T07:10:44.61803Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node", location: "src/compute/src/server.rs:90"},
		{first: 7, last: 8, time: "2023-08-02T07:10:44.61803Z", level: "ERROR", target: "", message: "attempt to subtract with overflow", thread: "risingwave-streaming-actor", location: "src/stream/src/executor/over_window/general.rs:412:21", panic: true},
	},
	"v1.0.0-pretty-compute-sink-actor-exit.log": {
		{first: 5, last: 5, time: "", level: "", target: "", message: "launching `compute`"},
		{first: 6, last: 8, time: "2023-08-02T06:40:11.5012083Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node", location: "src/compute/src/server.rs:90"},
		{first: 9, last: 13, time: "2023-08-02T06:52:37.90471822Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit", location: "src/stream/src/task/stream_manager.rs:656",
			fields: kv("actor", "7", "error", "Executor error: Sink error: "+kafkaTimeout+"\n  backtrace of `StreamExecutorError`:\ndisabled backtrace")},
		{first: 14, last: 18, time: "2023-08-02T06:52:37.9113Z", level: "ERROR", target: "risingwave_compute::rpc::service::stream_service", message: "failed to collect barrier: Actor 7 exit unexpectedly: Executor error: Sink error: " + kafkaTimeout + "\n  backtrace of `StreamExecutorError`:\ndisabled backtrace", location: "src/compute/src/rpc/service/stream_service.rs:185"},
	},
	"v1.0.0-pretty-meta-recovery.log": {
		{first: 5, last: 5, time: "", level: "", target: "", message: "launching `meta`"},
		{first: 6, last: 8, time: "2023-08-02T06:38:02.114205903Z", level: "INFO", target: "risingwave_meta", message: "Starting meta node", location: "src/meta/src/lib.rs:210"},
		{first: 9, last: 12, time: "2023-08-02T06:52:38.02217Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery start!", location: "src/meta/src/barrier/recovery.rs:117",
			spans: []Span{span("failure_recovery", "err", "gRPC error (Internal error): Actor 7 exit unexpectedly: Executor error: Sink error: "+kafkaTimeout, "prev_epoch", "4893921386086400")}},
		{first: 13, last: 16, time: "2023-08-02T06:52:39.7301933Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery success", location: "src/meta/src/barrier/recovery.rs:223",
			spans: []Span{span("failure_recovery", "err", "gRPC error (Internal error): Actor 7 exit unexpectedly: Executor error: Sink error: "+kafkaTimeout, "prev_epoch", "4893921386086400")}},
	},
	"v1.10.0-standalone-thread-names.log": {
		{first: 4, last: 4, time: "2024-08-06T09:00:00.2047Z", level: "INFO", target: "risingwave_cmd_all::standalone", message: "launching Risingwave in standalone mode", thread: "rw-main"},
		{first: 5, last: 5, time: "2024-08-06T09:00:00.31955Z", level: "INFO", target: "risingwave_meta_node", message: "Starting meta node", thread: "rw-standalone-meta"},
		{first: 6, last: 6, time: "2024-08-06T09:00:01.0043121Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node", thread: "rw-standalone-compute"},
		{first: 7, last: 7, time: "2024-08-06T09:14:22.88Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error", thread: "rw-streaming",
			fields: kv("actor_id", "3", "error", "Executor error: Sink error: "+kafkaTimeout)},
	},
	"v1.10.0-text-decoupled-sink-rewind.log": {
		{first: 4, last: 4, time: "2024-08-06T12:40:02.40188Z", level: "WARN", target: "risingwave_stream::executor::sink", message: "rewind successfully after sink error",
			fields: kv("error", kafkaTimeout, "executor_id", "38654705676"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "6976620112003072", "curr_epoch", "6976620177539072"), span("executor", "otel.name", "Sink 90000000C")}},
		{first: 5, last: 5, time: "2024-08-06T12:41:02.77213Z", level: "WARN", target: "risingwave_stream::executor::sink", message: "rewind successfully after sink error",
			fields: kv("error", kafkaTimeout, "executor_id", "38654705676"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "6976624045768704", "curr_epoch", "6976624111304704"), span("executor", "otel.name", "Sink 90000000C")}},
	},
	"v1.10.0-text-meta-recovery.log": {
		{first: 7, last: 7, time: "2024-08-06T10:58:40.117004Z", level: "INFO", target: "risingwave_meta_node", message: "Starting meta node"},
		{first: 8, last: 8, time: "2024-08-06T11:21:06.34402Z", level: "WARN", target: "risingwave_meta::barrier::rpc", message: "get error from response stream",
			fields: kv("node", "WorkerNode { id: 2, r#type: ComputeNode, host: Some(HostAddress { host: \"rw-compute-0.rw-compute\", port: 5688 }), state: Running, parallel_units: [], property: None, transactional_id: Some(2), resource: None, started_at: None }", "err", "gRPC request to stream service failed: Internal error: failed to collect barrier for epoch [6976309386739712]: Actor 7 exited unexpectedly: Executor error: Sink error: "+kafkaTimeout)},
		{first: 9, last: 9, time: "2024-08-06T11:21:06.3451Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery start!",
			spans: []Span{span("failure_recovery", "error", "get error from control stream: worker node 2, gRPC request to stream service failed: Internal error: failed to collect barrier for epoch [6976309386739712]: Actor 7 exited unexpectedly: Executor error: Sink error: "+kafkaTimeout+";", "prev_epoch", "6976309321203712")}},
		{first: 10, last: 10, time: "2024-08-06T11:21:07.01291Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovering mview progress",
			spans: []Span{span("failure_recovery", "error", "get error from control stream: worker node 2, gRPC request to stream service failed: Internal error: failed to collect barrier for epoch [6976309386739712]: Actor 7 exited unexpectedly: Executor error: Sink error: "+kafkaTimeout+";", "prev_epoch", "6976309321203712"), span("recovery_attempt")}},
		{first: 11, last: 11, time: "2024-08-06T11:21:09.5537Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery success",
			fields: kv("epoch", "6976309321203712", "paused", "None"),
			spans:  []Span{span("failure_recovery", "error", "get error from control stream: worker node 2, gRPC request to stream service failed: Internal error: failed to collect barrier for epoch [6976309386739712]: Actor 7 exited unexpectedly: Executor error: Sink error: "+kafkaTimeout+";", "prev_epoch", "6976309321203712")}},
	},
	"v1.10.0-text-sink-messagetimedout.log": {
		{first: 5, last: 5, time: "2024-08-06T11:02:55.810204339Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 6, last: 6, time: "2024-08-06T11:02:55.810311Z", level: "INFO", target: "risingwave_compute::server", message: "> version: 1.10.0 (a1b2c3d4e5f60718293a4b5c6d7e8f9012345678)"},
		{first: 7, last: 7, time: "2024-08-06T11:20:31.5527Z", level: "WARN", target: "risingwave_connector::sink::kafka", message: "producing message (key Some(b\"order-1177\")) to topic orders_out failed",
			fields: kv("error", "Message production error: QueueFull (Local: Queue full)"),
			spans:  []Span{span("actor", "otel.name", "Actor 7", "actor_id", "7", "prev_epoch", "6976309321203712", "curr_epoch", "6976309386739712"), span("executor", "otel.name", "Sink 70000000C")}},
		{first: 8, last: 8, time: "2024-08-06T11:20:31.552781Z", level: "WARN", target: "risingwave_connector::sink::kafka", message: "Producer queue full. Delivery future buffer size=65536. Await and retry #0",
			spans: []Span{span("actor", "otel.name", "Actor 7", "actor_id", "7", "prev_epoch", "6976309321203712", "curr_epoch", "6976309386739712"), span("executor", "otel.name", "Sink 70000000C")}},
		{first: 9, last: 9, time: "2024-08-06T11:21:01.604472911Z", level: "WARN", target: "librdkafka", message: "librdkafka: REQTMOUT [thrd:kafka-0.kafka:9092/0]: kafka-0.kafka:9092/0: Timed out ProduceRequest in flight (after 30003ms, timeout #0)"},
		{first: 10, last: 10, time: "2024-08-06T11:21:06.33871Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", "Executor error: Sink error: "+kafkaTimeout)},
		{first: 11, last: 11, time: "2024-08-06T11:21:06.3391Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "8", "error", "Executor error: exchange channel from local upstream actor 7 closed unexpectedly")},
	},
	"v1.5.0-json-cloud.log": {
		{first: 5, last: 5, time: "2023-12-19T04:02:13.3391Z", level: "INFO", target: "risingwave_stream::executor::source::source_executor", message: "start with state",
			fields: kv("actor_id", "3", "state", "Some([Kafka(KafkaSplit { topic: \"orders_in\", partition: 0, start_offset: Some(18230), stop_offset: None })])"),
			spans:  []Span{span("actor", "actor_id", "3", "otel.name", "Actor 3"), span("executor", "actor_id", "3", "otel.name", "Source 30000000B (actor 3)")}},
		{first: 6, last: 6, time: "2023-12-19T04:05:40.051207Z", level: "WARN", target: "librdkafka", message: "librdkafka: FAIL [thrd:kafka-1.kafka:9092/1]: kafka-1.kafka:9092/1: Connect to ipv4#10.8.3.17:9092 failed: Connection refused (after 0ms in state CONNECT)",
			fields: kv("log.target", "librdkafka", "log.module_path", "madsim_rdkafka::std_::client", "log.file", "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/madsim-rdkafka-0.3.0+0.34.0/src/std/client.rs", "log.line", "72")},
		{first: 7, last: 7, time: "2023-12-19T04:06:11.90316Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit",
			fields: kv("actor", "7", "error", "Executor error: Sink error: "+kafkaTimeout+"\n  backtrace of `StreamExecutorError`:\ndisabled backtrace")},
	},
	"v1.5.0-text-sink-actor-exit.log": {
		{first: 5, last: 5, time: "2023-12-19T03:21:07.40521Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 6, last: 6, time: "2023-12-19T03:33:50.27763115Z", level: "WARN", target: "librdkafka", message: "librdkafka: FAIL [thrd:kafka-1.kafka:9092/1]: kafka-1.kafka:9092/1: Connect to ipv4#10.8.3.17:9092 failed: Connection refused (after 1ms in state CONNECT)"},
		{first: 7, last: 7, time: "2023-12-19T03:34:20.1184Z", level: "WARN", target: "risingwave_connector::sink::kafka", message: "producing message (key Some(b\"order-1177\")) to topic orders_out failed, err MessageProduction(QueueFull).",
			spans: []Span{span("actor", "otel.name", "Actor 7", "actor_id", "7", "prev_epoch", "5508837027184640", "curr_epoch", "5508837092720640"), span("executor", "otel.name", "Sink 70000000C (actor 7)", "actor_id", "7")}},
		{first: 8, last: 10, time: "2023-12-19T03:35:20.90316Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit",
			fields: kv("actor", "7", "error", "Executor error: Sink error: "+kafkaTimeout+"\n  backtrace of `StreamExecutorError`:\ndisabled backtrace")},
		{first: 11, last: 13, time: "2023-12-19T03:35:20.9037781Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit",
			fields: kv("actor", "8", "error", "Executor error: Channel closed: exchange channel from upstream actor 7 closed\n  backtrace of `StreamExecutorError`:\ndisabled backtrace")},
	},
	"v1.5.0-text-source-start-with-state.log": {
		{first: 6, last: 6, time: "2023-12-19T04:02:13.3391Z", level: "INFO", target: "risingwave_stream::executor::source::source_executor", message: "start with state",
			fields: kv("actor_id", "3", "state", "Some([Kafka(KafkaSplit { topic: \"orders_in\", partition: 0, start_offset: Some(18230), stop_offset: None })])"),
			spans:  []Span{span("actor", "otel.name", "Actor 3", "actor_id", "3"), span("executor", "otel.name", "Source 30000000B (actor 3)", "actor_id", "3")}},
		{first: 7, last: 7, time: "2023-12-19T04:02:13.33918Z", level: "INFO", target: "risingwave_stream::executor::source::source_executor", message: "start with state",
			fields: kv("actor_id", "4", "state", "Some([Kafka(KafkaSplit { topic: \"orders_in\", partition: 1, start_offset: Some(17994), stop_offset: None })])"),
			spans:  []Span{span("actor", "otel.name", "Actor 4", "actor_id", "4"), span("executor", "otel.name", "Source 40000000B (actor 4)", "actor_id", "4")}},
		{first: 8, last: 8, time: "2023-12-19T04:02:13.34007Z", level: "INFO", target: "risingwave_stream::executor::source::source_executor", message: "start with state",
			fields: kv("actor_id", "5", "state", "Some([Kafka(KafkaSplit { topic: \"orders_in\", partition: 2, start_offset: None, stop_offset: None })])"),
			spans:  []Span{span("actor", "otel.name", "Actor 5", "actor_id", "5"), span("executor", "otel.name", "Source 50000000B (actor 5)", "actor_id", "5")}},
	},
	"v2.0.7-text-sink-sinkid.log": {
		{first: 5, last: 5, time: "2025-03-20T08:15:40.0161Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5)},
		{first: 6, last: 6, time: "2025-03-20T08:15:40.02273Z", level: "WARN", target: "risingwave_meta::barrier::rpc", message: "get error from response stream",
			fields: kv("node", "WorkerNode { id: 2, r#type: ComputeNode, host: Some(HostAddress { host: \"rw-compute-0.rw-compute\", port: 5688 }), state: Running, property: None, transactional_id: Some(2), resource: None, started_at: None, parallelism: 4, node_label: \"\" }", "err", "gRPC request to stream service failed: Internal error: failed to collect barrier: Actor 7 exited unexpectedly: "+sinkErr5)},
		{first: 7, last: 7, time: "2025-03-20T08:15:40.0231Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery start!",
			spans: []Span{span("failure_recovery", "error", "get error from control stream, in worker node 2: gRPC request to stream service failed: Internal error: failed to collect barrier: Actor 7 exited unexpectedly: "+sinkErr5, "prev_epoch", "8207021105201152")}},
		{first: 8, last: 8, time: "2025-03-20T08:15:42.5219Z", level: "INFO", target: "risingwave_meta::barrier::recovery", message: "recovery success",
			fields: kv("epoch", "8207021105201152", "paused", "None"),
			spans:  []Span{span("failure_recovery", "error", "get error from control stream, in worker node 2: gRPC request to stream service failed: Internal error: failed to collect barrier: Actor 7 exited unexpectedly: "+sinkErr5, "prev_epoch", "8207021105201152")}},
	},
	"v2.3.0-json-meta-database-recovery.log": {
		{first: 5, last: 5, time: "2025-04-22T14:20:51.6072Z", level: "WARN", target: "risingwave_meta::barrier::worker", message: "database entering recovery",
			fields: kv("database_id", "1")},
		{first: 6, last: 6, time: "2025-04-22T14:20:52.0133Z", level: "INFO", target: "risingwave_meta::barrier::checkpoint::recovery", message: "database enter initializing",
			fields: kv("remaining_workers", "{2}", "database_id", "DatabaseId { database_id: 1 }")},
		{first: 7, last: 7, time: "2025-04-22T14:20:53.80001Z", level: "INFO", target: "risingwave_meta::barrier::checkpoint::recovery", message: "database enter running",
			fields: kv("database_id", "DatabaseId { database_id: 1 }")},
	},
	"v2.3.0-json-sink.log": {
		{first: 5, last: 5, time: "2025-04-22T14:03:11.1834Z", level: "INFO", target: "risingwave_connector::source::kafka::source::reader", message: "fetch kafka watermarks: low: 0, high: 52210, split: KafkaSplit { topic: \"orders_in\", partition: 0, start_offset: Some(50117), stop_offset: None }",
			spans: []Span{span("actor", "actor_id", "3", "otel.name", "Actor 3"), span("executor", "otel.name", "Source 30000000B")}},
		{first: 6, last: 6, time: "2025-04-22T14:20:51.60419877Z", level: "ERROR", target: "risingwave_stream::task::stream_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5)},
		{first: 7, last: 7, time: "2025-04-22T14:20:51.6046Z", level: "ERROR", target: "risingwave_stream::task::barrier_manager", message: "suspend database on error",
			fields: kv("database_id", "1", "failed_actor", "Some(7)", "message", "recv actor failure", "err", "Actor 7 exited unexpectedly: "+sinkErr5)},
	},
	"v2.3.0-panic-new-format.log": {
		{first: 3, last: 3, time: "2025-04-22T16:44:02.903Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 4, last: 6, time: "2025-04-22T16:44:02.903Z", level: "ERROR", target: "", message: "mem-table operation inconsistent! table_id: 1042, vnode: 17", thread: "rw-streaming", location: "src/stream/src/executor/hash_join.rs:1187:17", panic: true},
	},
	"v2.3.0-text-meta-global-recovery.log": {
		{first: 6, last: 6, time: "2025-04-22T13:59:58.91Z", level: "INFO", target: "risingwave_meta_node", message: "Starting meta node"},
		{first: 7, last: 7, time: "2025-04-22T14:20:51.6071Z", level: "INFO", target: "risingwave_meta::barrier::worker", message: "recovery start!",
			spans: []Span{span("failure_recovery", "error", "database 1 reset")}},
		{first: 8, last: 8, time: "2025-04-22T14:21:01.6177Z", level: "WARN", target: "risingwave_meta::barrier::context::recovery", message: "waiting for new workers to join, elapsed: 10s",
			spans: []Span{span("failure_recovery", "error", "database 1 reset"), span("recovery_attempt")}},
		{first: 9, last: 9, time: "2025-04-22T14:21:06.2209Z", level: "ERROR", target: "risingwave_meta::barrier::worker", message: "recovery failed",
			fields: kv("error", "get error from control stream, in worker node 2: gRPC request to stream service failed: Internal error: failed to inject barrier: Actor 7 exited unexpectedly: "+sinkErr5),
			spans:  []Span{span("failure_recovery", "error", "database 1 reset"), span("recovery_attempt")}},
		{first: 10, last: 10, time: "2025-04-22T14:21:09.44Z", level: "INFO", target: "risingwave_meta::barrier::worker", message: "recovery success",
			spans: []Span{span("failure_recovery", "error", "database 1 reset")}},
	},
	"v2.3.0-text-slow-query.log": {
		{first: 3, last: 3, time: "2025-04-22T15:01:12.2218Z", level: "INFO", target: "pgwire_slow_query_log", message: "slow query",
			fields: kv("elapsed", "60000ms"),
			spans:  []Span{span("handle_query", "mode", "simple query", "session_id", "12", "sql", "SELECT count(*) FROM orders_enriched")}},
		{first: 4, last: 4, time: "2025-04-22T15:02:12.2231Z", level: "INFO", target: "pgwire_slow_query_log", message: "slow query",
			fields: kv("elapsed", "120000ms"),
			spans:  []Span{span("handle_query", "mode", "simple query", "session_id", "12", "sql", "SELECT count(*) FROM orders_enriched")}},
	},
	"v2.5.0-panic-backtrace-full.log": {
		{first: 3, last: 21, time: "", level: "ERROR", target: "", message: "called `Option::unwrap()` on a `None` value", thread: "rw-main", location: "src/meta/src/barrier/checkpoint/control.rs:402:38", panic: true},
	},
	"v2.5.0-text-fetch-kafka-watermarks.log": {
		{first: 4, last: 4, time: "2025-08-04T09:31:05.23107Z", level: "INFO", target: "risingwave_connector::source::kafka::source::reader", message: "fetch kafka watermarks: low: 0, high: 52210, split: KafkaSplit { topic: \"orders_in\", partition: 0, start_offset: Some(50117), stop_offset: None }",
			spans: []Span{span("actor", "otel.name", "Actor 3", "actor_id", "3"), span("executor", "otel.name", "Source 30000000B")}},
		{first: 5, last: 5, time: "2025-08-04T09:31:05.2318Z", level: "INFO", target: "risingwave_connector::source::kafka::source::reader", message: "backfill_info: {\"0\": HasDataToBackfill { latest_offset: \"52209\" }}",
			fields: kv("topic", "orders_in", "source_name", "orders_src", "fragment_id", "3", "source_id", "11", "actor_id", "3"),
			spans:  []Span{span("actor", "otel.name", "Actor 3", "actor_id", "3"), span("executor", "otel.name", "Source 30000000B")}},
		{first: 6, last: 6, time: "2025-08-04T09:31:05.24427Z", level: "INFO", target: "risingwave_connector::source::kafka::source::reader", message: "fetch kafka watermarks: low: 0, high: 51987, split: KafkaSplit { topic: \"orders_in\", partition: 1, start_offset: Some(49850), stop_offset: None }",
			spans: []Span{span("actor", "otel.name", "Actor 4", "actor_id", "4"), span("executor", "otel.name", "Source 40000000B")}},
		{first: 7, last: 7, time: "2025-08-04T09:31:05.2451Z", level: "INFO", target: "risingwave_connector::source::kafka::source::reader", message: "backfill_info: {\"1\": HasDataToBackfill { latest_offset: \"51986\" }}",
			fields: kv("topic", "orders_in", "source_name", "orders_src", "fragment_id", "3", "source_id", "11", "actor_id", "4"),
			spans:  []Span{span("actor", "otel.name", "Actor 4", "actor_id", "4"), span("executor", "otel.name", "Source 40000000B")}},
		{first: 8, last: 8, time: "2025-08-04T09:31:06.00431Z", level: "WARN", target: "risingwave_stream::executor::source::source_executor", message: "source paused, wait barrier for 1.204861337s",
			spans: []Span{span("actor", "otel.name", "Actor 3", "actor_id", "3", "prev_epoch", "8601034817224704", "curr_epoch", "8601034882760704"), span("executor", "otel.name", "Source 30000000B")}},
	},
	"v2.5.0-text-local-offset.log": {
		{first: 5, last: 5, time: "2025-08-04T05:31:05-04:00", level: "INFO", target: "risingwave_meta_node", message: "Starting meta node"},
		{first: 6, last: 6, time: "2025-08-04T05:31:05.2-04:00", level: "INFO", target: "risingwave_meta_node", message: "> version: 2.5.0 (5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f)"},
		{first: 7, last: 7, time: "2025-08-04T05:31:05.34-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "elected as leader, shutting down follower services"},
		{first: 8, last: 8, time: "2025-08-04T05:31:05.347-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "starting leader services"},
		{first: 9, last: 9, time: "2025-08-04T05:31:05.3525-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "MetaSrvEnv started"},
		{first: 10, last: 10, time: "2025-08-04T05:31:05.41007-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "CompactorManager started"},
		{first: 11, last: 11, time: "2025-08-04T05:31:05.410111-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "HeartbeatServiceImpl started"},
		{first: 12, last: 12, time: "2025-08-04T05:31:05.4288123-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "HummockManager started"},
		{first: 13, last: 13, time: "2025-08-04T05:31:05.51200341-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "BarrierScheduler started"},
		{first: 14, last: 14, time: "2025-08-04T05:31:05.512014507-04:00", level: "INFO", target: "risingwave_meta_node::server", message: "BackupManager started"},
	},
	"v2.8.0-json-panic-stderr.log": {
		{first: 4, last: 4, time: "2026-03-09T02:10:58.4417Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 5, last: 7, time: "2026-03-09T02:10:58.4417Z", level: "ERROR", target: "", message: "dispatcher for actor 12 should exist", thread: "rw-streaming", location: "src/stream/src/executor/dispatch.rs:611:18", panic: true,
			fields: kv("thread_id", "27")},
	},
	"v2.8.0-json-string-ids.log": {
		{first: 5, last: 5, time: "2026-03-09T05:31:02.7104Z", level: "INFO", target: "risingwave_compute::server", message: "Starting compute node"},
		{first: 6, last: 6, time: "2026-03-09T05:52:30.55403Z", level: "ERROR", target: "risingwave_stream::task::actor_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5)},
		{first: 7, last: 7, time: "2026-03-09T05:52:30.5547Z", level: "ERROR", target: "risingwave_stream::task::barrier_worker", message: "suspend partial graph on error",
			fields: kv("partial_graph_id", "1", "failed_actor", "Some(7)", "message", "recv actor failure", "err", "Actor 7 exited unexpectedly: "+sinkErr5)},
	},
	"v2.8.0-panic-backtrace.log": {
		{first: 3, last: 3, time: "2026-03-09T02:11:45.170034Z", level: "INFO", target: "risingwave_meta::barrier::worker", message: "recovery success"},
		{first: 4, last: 15, time: "2026-03-09T02:11:45.170034Z", level: "ERROR", target: "", message: "fragment should exist", thread: "rw-main", location: "src/meta/src/barrier/info.rs:1288:30", panic: true,
			fields: kv("thread_id", "11")},
	},
	"v2.8.0-text-sink-partial-graph.log": {
		{first: 5, last: 5, time: "2026-03-09T05:40:17.0921Z", level: "ERROR", target: "risingwave_stream::executor::sink", message: "reset log reader stream successfully after sink error",
			fields: kv("error", kafkaTimeout, "executor_id", "38654705676", "sink_id", "6"),
			spans:  []Span{span("actor", "otel.name", "Actor 9", "actor_id", "9", "prev_epoch", "9637440012451840", "curr_epoch", "9637440077987840"), span("executor", "otel.name", "Sink 90000000C")}},
		{first: 6, last: 6, time: "2026-03-09T05:52:30.55403Z", level: "ERROR", target: "risingwave_stream::task::actor_manager", message: "actor exit with error",
			fields: kv("actor_id", "7", "error", sinkErr5)},
		{first: 7, last: 7, time: "2026-03-09T05:52:30.5547Z", level: "ERROR", target: "risingwave_stream::task::barrier_worker", message: "suspend partial graph on error",
			fields: kv("partial_graph_id", "1", "failed_actor", "Some(7)", "message", "recv actor failure", "err", "Actor 7 exited unexpectedly: "+sinkErr5)},
	},
	"v3.0.0-text-meta-database-recovery.log": {
		{first: 5, last: 5, time: "2026-06-15T07:00:03.1104Z", level: "INFO", target: "risingwave_meta_node", message: "Starting meta node"},
		{first: 6, last: 6, time: "2026-06-15T07:00:04.93Z", level: "INFO", target: "risingwave_meta_node::server", message: "elected as leader, shutting down follower services"},
		{first: 7, last: 7, time: "2026-06-15T07:00:04.9318Z", level: "INFO", target: "risingwave_meta_node::server", message: "starting leader services"},
		{first: 8, last: 8, time: "2026-06-15T09:12:40.40212Z", level: "WARN", target: "risingwave_meta::barrier::rpc", message: "get error from response stream",
			fields: kv("worker_id", "2", "host", "Some(HostAddress { host: \"rw-compute-0.rw-compute\", port: 5688 })", "err", "gRPC request to stream service failed: Internal error: transport error")},
		{first: 9, last: 9, time: "2026-06-15T09:12:40.4026Z", level: "WARN", target: "risingwave_meta::barrier::worker", message: "database entering recovery on node failure",
			fields: kv("worker_id", "2", "database_id", "1")},
		{first: 10, last: 10, time: "2026-06-15T09:12:41.8871Z", level: "WARN", target: "risingwave_meta::barrier::worker", message: "database entering recovery",
			fields: kv("database_id", "3")},
	},
}

// fixtureLines reads a fixture: its lines, and the number of lines of its
// "# " header, which the tests skip.
func fixtureLines(t *testing.T, name string) (lines [][]byte, header int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shapesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := bytes.Clone(sc.Bytes())
		if len(lines) == header && bytes.HasPrefix(l, []byte("# ")) {
			header++
		}
		lines = append(lines, l)
	}
	return lines, header
}

// fixtureNames are the fixture files.
func fixtureNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(shapesDir, "*.log"))
	if err != nil || len(files) < 20 {
		t.Fatalf("fixtures: %v, %v", files, err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}

// readEvents groups a fixture's lines after its header into events.
func readEvents(lines [][]byte, header int) []Event {
	var e Events
	var out []Event
	for i := header; i < len(lines); i++ {
		if ev, ok := e.Add(lines[i], i+1); ok {
			out = append(out, ev)
		}
	}
	if ev, ok := e.Flush(); ok {
		out = append(out, ev)
	}
	return out
}

// checkEvent compares a parsed event, or line, with what it should be.
func checkEvent(t *testing.T, what string, got Line, w wantEvent) {
	t.Helper()
	if w.time == "" {
		if !got.Time.IsZero() {
			t.Errorf("%s: time %v, want none", what, got.Time)
		}
	} else {
		want, err := time.Parse(time.RFC3339Nano, w.time)
		if err != nil {
			t.Fatal(err)
		}
		_, gotOff := got.Time.Zone()
		_, wantOff := want.Zone()
		if !got.Time.Equal(want) || gotOff != wantOff {
			t.Errorf("%s: time %v, want %v", what, got.Time, want)
		}
	}
	g := [...]string{got.Level, got.Target, got.Message, got.Thread, got.Location, fmt.Sprint(got.Panic)}
	ws := [...]string{w.level, w.target, w.message, w.thread, w.location, fmt.Sprint(w.panic)}
	for i, name := range []string{"level", "target", "message", "thread", "location", "panic"} {
		if g[i] != ws[i] {
			t.Errorf("%s: %s %q, want %q", what, name, g[i], ws[i])
		}
	}
	if f := got.Fields(); !reflect.DeepEqual(f, w.fields) {
		t.Errorf("%s: fields\n got %q\nwant %q", what, f, w.fields)
	}
	if s := got.Spans(); !reflect.DeepEqual(s, w.spans) {
		t.Errorf("%s: spans\n got %q\nwant %q", what, s, w.spans)
	}
}

// Every line of every fixture belongs to the right event, and every event
// parses to the right time, level, target, message, fields and spans.
func TestFixtureEvents(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			want, ok := fixtureEvents[name]
			if !ok {
				t.Fatalf("no expected events for %s", name)
			}
			lines, header := fixtureLines(t, name)
			got := readEvents(lines, header)
			if len(got) != len(want) {
				t.Errorf("%d events, want %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				g, w := got[i], want[i]
				what := fmt.Sprintf("event %d (lines %d-%d)", i, g.First, g.Last)
				if g.First != w.first || g.Last != w.last {
					t.Errorf("%s: want lines %d-%d", what, w.first, w.last)
				}
				checkEvent(t, what, g.Line, w)
			}
			if len(got) > 0 && got[len(got)-1].Last != len(lines) || len(got) > 0 && got[0].First != header+1 {
				t.Errorf("the events do not cover lines %d-%d", header+1, len(lines))
			}
		})
	}
}

// ParseLine reads every head line of the fixtures as its event has it,
// but what continuation lines add; a one-line event, whole.
func TestFixtureHeadLines(t *testing.T) {
	for _, name := range fixtureNames(t) {
		lines, _ := fixtureLines(t, name)
		for _, w := range fixtureEvents[name] {
			raw := lines[w.first-1]
			got := ParseLine(raw)
			what := fmt.Sprintf("%s:%d", name, w.first)
			if w.first == w.last && !w.panic {
				checkEvent(t, what, got, w)
				continue
			}
			multiJSON := strings.TrimSpace(string(raw)) == "{" // the object is on the lines after
			if !multiJSON && (got.Level != w.level || got.Target != w.target || got.Thread != w.thread) {
				t.Errorf("%s: ParseLine level %q target %q thread %q, want %q %q %q", what, got.Level, got.Target, got.Thread, w.level, w.target, w.thread)
			}
			if !w.panic && w.time != "" && !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
				if want, _ := time.Parse(time.RFC3339Nano, w.time); !got.Time.Equal(want) {
					t.Errorf("%s: ParseLine time %v, want %v", what, got.Time, want)
				}
			}
			// A continuation line is no event of its own.
			for n := w.first + 1; n <= w.last; n++ {
				if h := scanHead(lines[n-1]); h.head() {
					t.Errorf("%s:%d: continuation line read as a head", name, n)
				}
			}
		}
	}
}

// SOURCES.md has a row for every fixture, and names no file that is not
// there; every fixture starts with its "# " header.
func TestFixtureSources(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shapesDir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([^ |]+\.log) \| ([^|]*\S[^|]*) \| ([^|]*\S[^|]*) \|`)
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		listed[m[1]] = true
	}
	names := fixtureNames(t)
	for _, name := range names {
		if !listed[name] {
			t.Errorf("SOURCES.md has no row (file | tag | source) for %s", name)
		}
		if _, header := fixtureLines(t, name); header == 0 {
			t.Errorf("%s: no \"# \" header naming its tag and source", name)
		}
	}
	for name := range listed {
		if !slices.Contains(names, name) {
			t.Errorf("SOURCES.md lists %s, which is not in %s", name, shapesDir)
		}
	}
}
