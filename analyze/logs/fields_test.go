package logs

import (
	"reflect"
	"testing"
	"time"
)

// Where a text line's message ends and its fields begin, and where each
// value ends, is read off the shapes values have.
func TestSplitFields(t *testing.T) {
	tests := []struct {
		name, text, message string
		fields              []Field
	}{
		{"k=v inside a message", "Producer queue full. Delivery future buffer size=65536. Await and retry #0",
			"Producer queue full. Delivery future buffer size=65536. Await and retry #0", nil},
		{"a token followed by words is no field", "evicted count=5 entries", "evicted count=5 entries", nil},
		{"an error runs to the next field", "rewind error=Sink error: sink_id=5, error: e executor_id=3",
			"rewind", kv("error", "Sink error: sink_id=5, error: e", "executor_id", "3")},
		{"an error at the end keeps its k=v", "actor exit actor_id=7 error=Sink error: sink_id=5, error: x=1 y",
			"actor exit", kv("actor_id", "7", "error", "Sink error: sink_id=5, error: x=1 y")},
		{"second message printed without its name", "suspend failed_actor=Some(7) recv actor failure err=x y",
			"suspend", kv("failed_actor", "Some(7)", "message", "recv actor failure", "err", "x y")},
		{"quoted, with escapes", `m k="a \"b\" \\ c\n\u{e9}" j=1`, "m", kv("k", "a \"b\" \\ c\n\u00e9", "j", "1")},
		{"Debug struct with spaces", `m node=WorkerNode { id: 2, host: "a b" } err=x y`, "m", kv("node", `WorkerNode { id: 2, host: "a b" }`, "err", "x y")},
		{"Some(struct)", `m host=Some(HostAddress { host: "h", port: 1 }) k=2`, "m", kv("host", `Some(HostAddress { host: "h", port: 1 })`, "k", "2")},
		{"empty value", "m k= j=1", "m", kv("k", "", "j", "1")},
		{"raw identifier", "m r#type=x", "m", kv("type", "x")},
		{"no message", "k=1", "k=1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, fields := splitFields(tt.text, textFields)
			if msg != tt.message || !reflect.DeepEqual(fields, tt.fields) {
				t.Errorf("splitFields(%q)\n got %q %q\nwant %q %q", tt.text, msg, fields, tt.message, tt.fields)
			}
			if e := messageEnd(tt.text, textFields); tt.text[:e] != tt.message {
				t.Errorf("messageEnd: %q", tt.text[:e])
			}
		})
	}
	// The pretty format: ", k: v".
	msg, fields := splitFields("actor exit, actor: 7, error: Executor error: Sink error: x, y", prettyFields)
	if msg != "actor exit" || !reflect.DeepEqual(fields, kv("actor", "7", "error", "Executor error: Sink error: x, y")) {
		t.Errorf("pretty: %q %q", msg, fields)
	}
	if got := parseFieldList(`err: gRPC error (Internal error): a, b, prev_epoch: 1, name: "x, y"`, prettyFields); !reflect.DeepEqual(got,
		kv("err", "gRPC error (Internal error): a, b", "prev_epoch", "1", "name", "x, y")) {
		t.Errorf("pretty span fields: %q", got)
	}
}

func TestParseSpans(t *testing.T) {
	got := parseSpans(`a{x="}{ y=" y=2}:b:c{sql=SELECT a FROM t WHERE b = 1}`)
	want := []Span{span("a", "x", "}{ y=", "y", "2"), {Name: "b"}, span("c", "sql", "SELECT a FROM t WHERE b = 1")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Events at or above MinLevel only, the lines of the others looked at but
// not kept.
func TestEventsMinLevel(t *testing.T) {
	lines, header := fixtureLines(t, "v1.5.0-text-sink-actor-exit.log")
	e := Events{MinLevel: ParseLevel("WARN")}
	var got []string
	add := func(ev Event) {
		got = append(got, ev.Level+" "+ev.Message)
		if ev.Level == "ERROR" && ev.Last != ev.First+2 {
			t.Errorf("ERROR event lines %d-%d, want its two continuation lines", ev.First, ev.Last)
		}
	}
	for i := header; i < len(lines); i++ {
		if ev, ok := e.Add(lines[i], i+1); ok {
			add(ev)
		}
	}
	if ev, ok := e.Flush(); ok {
		add(ev)
	}
	want := []string{
		"WARN librdkafka: FAIL [thrd:kafka-1.kafka:9092/1]: kafka-1.kafka:9092/1: Connect to ipv4#10.8.3.17:9092 failed: Connection refused (after 1ms in state CONNECT)",
		"WARN producing message (key Some(b\"order-1177\")) to topic orders_out failed, err MessageProduction(QueueFull).",
		"ERROR actor exit", "ERROR actor exit",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A panic message of several lines in the one-line header format of Rust
// before 1.73 runs to the line that ends with "', FILE:L:C".
func TestParseEventOldPanicOfSeveralLines(t *testing.T) {
	prev := time.Date(2023, 8, 2, 7, 10, 44, 0, time.UTC)
	ll := ParseEvent([][]byte{
		[]byte("thread 'risingwave-main' panicked at 'failed to execute barrier: a"),
		[]byte("b: c', src/meta/src/barrier/mod.rs:912:17"),
		[]byte("note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"),
	}, prev)
	if ll.Message != "failed to execute barrier: a\nb: c" || ll.Location != "src/meta/src/barrier/mod.rs:912:17" || ll.Level != "ERROR" ||
		!ll.Time.Equal(prev) || ll.Thread != "risingwave-main" {
		t.Errorf("%+v", lineView(ll))
	}
	if got, want := EntryText(ll, levelError), "thread 'risingwave-main' panicked at 'failed to execute barrier: a b: c', src/meta/src/barrier/mod.rs:912:17"; got != want {
		t.Errorf("entry text %q, want %q", got, want)
	}
	ll = ParseEvent([][]byte{[]byte("thread 'rw-main' (11) panicked at src/x.rs:1:2:"), []byte("fragment should exist")}, prev)
	if got, want := EntryText(ll, levelError), "thread 'rw-main' (11) panicked at src/x.rs:1:2: fragment should exist"; got != want {
		t.Errorf("entry text %q, want %q", got, want)
	}
}
