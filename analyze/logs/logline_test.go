package logs

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseLogLine(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 41, 7, 123456789, time.UTC)
	kube := time.Date(2026, 11, 29, 20, 41, 7, 200000000, time.UTC)
	plus8 := time.Date(2026, 11, 30, 4, 41, 7, 123456000, time.FixedZone("", 8*3600))
	tests := []struct {
		name   string
		raw    string
		want   Line
		fields []Field
		spans  []Span
	}{{
		name: "text",
		raw:  `2026-11-29T20:41:07.123456789Z  INFO risingwave_compute::server: Starting compute node`,
		want: Line{Text: `2026-11-29T20:41:07.123456789Z  INFO risingwave_compute::server: Starting compute node`, Time: t0, Level: "INFO", Target: "risingwave_compute::server", Message: "Starting compute node"},
	}, {
		name:   "text, +08:00 offset, 6 digits, actor span, fields",
		raw:    `2026-11-30T04:41:07.123456+08:00  WARN actor{otel.name="Actor 12" actor_id=12}:executor{otel.name="Source: x {y}"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.1s actor_id=12`,
		want:   Line{Text: `2026-11-30T04:41:07.123456+08:00  WARN actor{otel.name="Actor 12" actor_id=12}:executor{otel.name="Source: x {y}"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.1s actor_id=12`, Time: plus8, Level: "WARN", Target: "risingwave_stream::executor::source::source_executor", Message: "source paused, wait barrier for 5.1s"},
		fields: []Field{{"actor_id", "12"}},
		spans:  []Span{{"actor", []Field{{"otel.name", "Actor 12"}, {"actor_id", "12"}}}, {"executor", []Field{{"otel.name", "Source: x {y}"}}}},
	}, {
		name:   "text, ERROR has one space",
		raw:    `2026-11-29T20:41:07.123456789Z ERROR risingwave_stream::task::actor_manager: actor exit with error actor_id=7`,
		want:   Line{Text: `2026-11-29T20:41:07.123456789Z ERROR risingwave_stream::task::actor_manager: actor exit with error actor_id=7`, Time: t0, Level: "ERROR", Target: "risingwave_stream::task::actor_manager", Message: "actor exit with error"},
		fields: []Field{{"actor_id", "7"}},
	}, {
		name: "kubectl prefix and text",
		raw:  `2026-11-29T20:41:07.2Z 2026-11-29T20:41:07.123456789Z  INFO risingwave_meta::barrier::worker: recovery start!`,
		want: Line{Text: `2026-11-29T20:41:07.123456789Z  INFO risingwave_meta::barrier::worker: recovery start!`, Time: t0, Level: "INFO", Target: "risingwave_meta::barrier::worker", Message: "recovery start!"},
	}, {
		name:  "span chain without fields",
		raw:   `2026-11-29T20:41:07.123456789Z  INFO adhoc_recovery:recovery_attempt: risingwave_meta::barrier::worker: recovery start!`,
		want:  Line{Text: `2026-11-29T20:41:07.123456789Z  INFO adhoc_recovery:recovery_attempt: risingwave_meta::barrier::worker: recovery start!`, Time: t0, Level: "INFO", Target: "risingwave_meta::barrier::worker", Message: "recovery start!"},
		spans: []Span{{Name: "adhoc_recovery"}, {Name: "recovery_attempt"}},
	}, {
		name:  "lone span without fields",
		raw:   `2026-11-29T20:41:07.123456789Z  INFO recovery_attempt: risingwave_meta::barrier::worker: recovery success`,
		want:  Line{Text: `2026-11-29T20:41:07.123456789Z  INFO recovery_attempt: risingwave_meta::barrier::worker: recovery success`, Time: t0, Level: "INFO", Target: "risingwave_meta::barrier::worker", Message: "recovery success"},
		spans: []Span{{Name: "recovery_attempt"}},
	}, {
		name: "target without ::, message with colons",
		raw:  `2026-11-29T20:41:07.123456789Z ERROR librdkafka: librdkafka: FAIL [thrd:kafka-0:9092/0]: Connect failed`,
		want: Line{Text: `2026-11-29T20:41:07.123456789Z ERROR librdkafka: librdkafka: FAIL [thrd:kafka-0:9092/0]: Connect failed`, Time: t0, Level: "ERROR", Target: "librdkafka", Message: "librdkafka: FAIL [thrd:kafka-0:9092/0]: Connect failed"},
	}, {
		name:   "JSON",
		raw:    `{"timestamp":"2026-11-29T20:41:07.123456789Z","level":"WARN","fields":{"message":"source paused, wait barrier for 5.1s","actor_id":12,"error":"a b"},"target":"risingwave_stream::executor::source::source_executor","spans":[{"otel.name":"Actor 12","actor_id":12,"name":"actor"},{"name":"executor"}]}`,
		want:   Line{Text: `2026-11-29T20:41:07.123456789Z  WARN actor{otel.name="Actor 12" actor_id=12}:executor: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.1s actor_id=12 error="a b"`, Time: t0, Level: "WARN", Target: "risingwave_stream::executor::source::source_executor", Message: "source paused, wait barrier for 5.1s", JSON: true},
		fields: []Field{{"actor_id", "12"}, {"error", "a b"}},
		spans:  []Span{{"actor", []Field{{"otel.name", "Actor 12"}, {"actor_id", "12"}}}, {Name: "executor"}},
	}, {
		name:   "kubectl prefix and JSON with a top-level message",
		raw:    `2026-11-29T20:41:07.2Z {"timestamp":"2026-11-29T20:41:07.123456789Z","level":"info","message":"Starting meta node","target":"risingwave_meta_node","pid":1}`,
		want:   Line{Text: `2026-11-29T20:41:07.123456789Z  INFO risingwave_meta_node: Starting meta node pid=1`, Time: t0, Level: "INFO", Target: "risingwave_meta_node", Message: "Starting meta node", JSON: true},
		fields: []Field{{"pid", "1"}},
	}, {
		name: "JSON without a timestamp takes the prefix's",
		raw:  `2026-11-29T20:41:07.2Z {"level":"ERROR","fields":{"message":"Sink error: sink_id=3, error: \"boom\"\nnext"}}`,
		want: Line{Text: "ERROR Sink error: sink_id=3, error: \"boom\"\nnext", Time: kube, Level: "ERROR", Message: "Sink error: sink_id=3, error: \"boom\"\nnext", JSON: true},
	}, {
		name: "Java connector log4j",
		raw:  `2026-11-29 20:41:07,123 ERROR [pool-3-thread-1] com.risingwave.connector.JDBCSink:112 - Failed to write: connection refused`,
		want: Line{Text: `2026-11-29 20:41:07,123 ERROR [pool-3-thread-1] com.risingwave.connector.JDBCSink:112 - Failed to write: connection refused`, Time: time.Date(2026, 11, 29, 20, 41, 7, 123000000, time.UTC), Level: "ERROR", Target: "com.risingwave.connector.JDBCSink", Message: "Failed to write: connection refused"},
	}, {
		name: "kubectl prefix and log4j: the prefix has a zone",
		raw:  `2026-11-29T20:41:07.2Z 2026-11-29 21:41:07,123 INFO  [main] com.risingwave.connector.Foo:1 - hello`,
		want: Line{Text: `2026-11-29 21:41:07,123 INFO  [main] com.risingwave.connector.Foo:1 - hello`, Time: kube, Level: "INFO", Target: "com.risingwave.connector.Foo", Message: "hello"},
	}, {
		name: "continuation line",
		raw:  `> total_memory: 8.00 GiB`,
		want: Line{Text: `> total_memory: 8.00 GiB`, Message: `> total_memory: 8.00 GiB`},
	}, {
		name: "kubectl prefix and continuation line",
		raw:  `2026-11-29T20:41:07.2Z > total_memory: 8.00 GiB`,
		want: Line{Text: `> total_memory: 8.00 GiB`, Time: kube, Message: `> total_memory: 8.00 GiB`},
	}, {
		name: "kubectl prefix and empty line",
		raw:  `2026-11-29T20:41:07.2Z `,
		want: Line{Time: kube},
	}, {
		name: "own timestamp with an offset is never the prefix",
		raw:  `2026-11-30T04:41:07.123456+08:00 Memory outline:`,
		want: Line{Text: `2026-11-30T04:41:07.123456+08:00 Memory outline:`, Time: plus8, Message: "Memory outline:"},
	}, {
		name: "invalid JSON stays text",
		raw:  `{"level":"WARN",`,
		want: Line{Text: `{"level":"WARN",`, Message: `{"level":"WARN",`},
	}, {
		name: "not a timestamp",
		raw:  `2026-13-99T99:99:99Z  INFO x::y: m`,
		want: Line{Text: `2026-13-99T99:99:99Z  INFO x::y: m`, Level: "INFO", Target: "x::y", Message: "m"},
	}, {
		name: "empty",
		raw:  ``,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseLine([]byte(tt.raw))
			if !got.Time.Equal(tt.want.Time) {
				t.Errorf("Time = %v, want %v", got.Time, tt.want.Time)
			}
			got.Time, tt.want.Time = time.Time{}, time.Time{}
			if g, w := lineView(got), lineView(tt.want); g != w {
				t.Errorf("ParseLine(%q)\n got %+v\nwant %+v", tt.raw, g, w)
			}
			if !reflect.DeepEqual(got.Fields(), tt.fields) {
				t.Errorf("Fields() = %q, want %q", got.Fields(), tt.fields)
			}
			if !reflect.DeepEqual(got.Spans(), tt.spans) {
				t.Errorf("Spans() = %q, want %q", got.Spans(), tt.spans)
			}
		})
	}
}

// view is a Line's exported fields, comparable.
type view struct {
	Text                   string
	Time                   time.Time
	Level, Target, Message string
	JSON, Panic            bool
	Thread, Location       string
}

func lineView(l Line) view {
	return view{Text: l.Text, Time: l.Time, Level: l.Level, Target: l.Target, Message: l.Message, JSON: l.JSON, Panic: l.Panic,
		Thread: l.Thread, Location: l.Location}
}

// TestParseLogLineOffsetKept checks that a "+08:00" timestamp keeps its
// offset and names the same instant as its UTC twin.
func TestParseLogLineOffsetKept(t *testing.T) {
	a := ParseLine([]byte(`2026-11-30T04:41:07.123456+08:00  INFO a::b: m`))
	b := ParseLine([]byte(`2026-11-29T20:41:07.123456Z  INFO a::b: m`))
	if !a.Time.Equal(b.Time) {
		t.Errorf("%v != %v", a.Time, b.Time)
	}
	if _, off := a.Time.Zone(); off != 8*3600 {
		t.Errorf("offset %d, want +08:00", off)
	}
}

// TestJSONRenderingMatchesText checks the point of the rendering: a JSON
// line reads as its text-format twin.
func TestJSONRenderingMatchesText(t *testing.T) {
	text := `2026-11-29T20:41:07.123456Z  WARN actor{otel.name="Actor 12" actor_id=12}:executor{otel.name="SourceExecutor 1"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.1s`
	json := `{"timestamp":"2026-11-29T20:41:07.123456Z","level":"WARN","fields":{"message":"source paused, wait barrier for 5.1s"},"target":"risingwave_stream::executor::source::source_executor","spans":[{"name":"actor","otel.name":"Actor 12","actor_id":12},{"name":"executor","otel.name":"SourceExecutor 1"}]}`
	a, b := ParseLine([]byte(text)), ParseLine([]byte(json))
	if a.Text != b.Text {
		t.Errorf("text %q\njson %q", a.Text, b.Text)
	}
	b.JSON = false
	if va, vb := lineView(a), lineView(b); va != vb {
		t.Errorf("text %+v\njson %+v", va, vb)
	}
	if fa, fb := fmt.Sprintf("%q %q", a.Fields(), a.Spans()), fmt.Sprintf("%q %q", b.Fields(), b.Spans()); fa != fb {
		t.Errorf("text fields, spans %s\njson fields, spans %s", fa, fb)
	}
}

func FuzzParseLogLine(f *testing.F) {
	for _, s := range []string{
		`2026-11-29T20:41:07.123456789Z  INFO risingwave_compute::server: Starting compute node`,
		`2026-11-29T20:41:07.2Z 2026-11-29T20:41:07.123456789Z  INFO a{b="c}"}:d: e::f: g`,
		`2026-11-29T20:41:07.2Z {"timestamp":"x","level":"WARN","fields":{"message":"m","k":[1,{"a":"b"}]},"spans":[{"name":"s","x":"y z"}]}`,
		`2026-11-29 20:41:07,123 ERROR [t] c:1 - m`,
		`{"span":{"name":"s"},"message":1}`,
		"2026-11-29T20:41:07+08:00\xff\xfe WARN \x00",
		`{`, `2026-`, `2026-11-29T20:41:07.Z `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ll := ParseLine(raw)
		if !ll.JSON && !bytes.HasSuffix(raw, []byte(ll.Text)) {
			t.Errorf("Text %q is not a suffix of the line %q", ll.Text, raw)
		}
		if !ll.JSON && !strings.Contains(ll.Text, ll.Message) {
			t.Errorf("Message %q not in Text %q", ll.Message, ll.Text)
		}
		if ll.Level != "" && ParseLevel(ll.Level) == levelNone {
			t.Errorf("Level %q", ll.Level)
		}
		if utf8.Valid(raw) && !utf8.ValidString(ll.Text) {
			t.Errorf("Text %q not valid UTF-8", ll.Text)
		}
	})
}

func BenchmarkParseLogLine(b *testing.B) {
	for _, bc := range []struct{ name, line string }{
		{"text", `2026-11-29T20:41:07.2Z 2026-11-29T20:41:07.123456789Z  WARN actor{otel.name="Actor 12" actor_id=12}:executor{otel.name="SourceExecutor 1"}: risingwave_stream::executor::source::source_executor: source paused, wait barrier for 5.1s`},
		{"json", `{"timestamp":"2026-11-29T20:41:07.123456Z","level":"WARN","fields":{"message":"source paused, wait barrier for 5.1s"},"target":"risingwave_stream::executor::source::source_executor","spans":[{"name":"actor","otel.name":"Actor 12","actor_id":12}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			raw := []byte(bc.line)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				ParseLine(raw)
			}
		})
	}
}
