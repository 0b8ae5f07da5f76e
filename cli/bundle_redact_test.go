package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// Secrets planted in the bundle redact reads.
var redactSecrets = []string{"pg-Pa55-meta", "SASL-pw-1", "log-url-pw", "describe-pw", "AKIAIOSFODNN7EXAMPLE", "err-pw", "cm-secret"}

var redactInput = []testFile{
	{"kubernetes/pods.json", `{"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "rw-meta-0",
	  "labels": {"risingwave/component": "meta"}},
	  "spec": {"containers": [{"name": "meta", "env": [
	    {"name": "RW_POSTGRES_PASSWORD", "value": "pg-Pa55-meta"},
	    {"name": "RW_META_ADDR", "value": "load-balance+http://rw-meta:5690"}]}]}}]}`},
	{"kubernetes/configmaps.json", `{"kind": "List", "items": [{"kind": "ConfigMap", "data": {"s3_secret_key": "cm-secret", "plain": "x"}}]}`},
	{"kubernetes/describe/pods/rw-meta-0.txt", "Containers:\n  meta:\n    Environment:\n      RW_POSTGRES_PASSWORD:  describe-pw\n      RW_META_ADDR:          load-balance+http://rw-meta:5690\n"},
	{"logs/rw-meta-0/meta.log", "2026-11-29T20:41:07Z  INFO risingwave_meta: connecting to postgres://rw:log-url-pw@pg:5432/meta\n" +
		"2026-11-29T20:41:08Z  INFO risingwave_meta: connecting to postgres://rw:pg-Pa55-meta@pg:5432/meta\n"},
	{"sql/rw_sinks.csv", "id,name,definition\n1,sink_k,\"CREATE SINK sink_k FROM mv WITH (connector = 'kafka', properties.sasl.password = 'SASL-pw-1', topic = 't')\"\n"},
	{"sql/rw_worker_nodes.csv", "id,host,port\n1,\"rw-compute-0.rw-compute\",5688\n"},
	{"diagnose/report.txt", "aws key AKIAIOSFODNN7EXAMPLE in use\n"},
}

func writeRedactInput(t *testing.T) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "in.tar.zst")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Root: "rwdiag-rw-20261129T204300Z"})
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "rwdiag", Version: "v0.1.0"}
		m.CollectedAt = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)
		m.Namespace, m.Cluster, m.RisingWaveVersion = "rw", "rw", "v3.0.3"
		m.Complete, m.IncompleteReason = false, "interrupted"
		m.Redaction = bundle.RedactionReport{Enabled: true, Counts: map[string]int{"env-secret-name": 2}, Total: 2}
	})
	w.RecordError(bundle.CollectError{Step: "sql", Target: "rw_ddl_progress", Error: "connect postgres://root:err-pw@fe:4567: refused"})
	for _, f := range redactInput {
		file, err := w.Create(f.path, "source of "+f.path)
		if err != nil {
			t.Fatal(err)
		}
		file.Write([]byte(f.content))
		if f.path == "logs/rw-meta-0/meta.log" {
			file.SetTruncated()
			file.AddRedacted(2)
		}
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dest
}

// readAll reads a bundle's files and manifest.
func readAll(t *testing.T, name string) (map[string][]byte, *bundle.Manifest) {
	t.Helper()
	r, err := bundle.Open(name, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string][]byte{}
	var m *bundle.Manifest
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(e)
		if err != nil {
			t.Fatal(err)
		}
		files[e.Path] = b
		if e.Kind == bundle.KindManifest {
			if m, err = bundle.DecodeManifest(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return files, m
}

func TestBundleRedact(t *testing.T) {
	in := writeRedactInput(t)
	out := filepath.Join(t.TempDir(), "rwdiag-rw-redacted.tar.zst")
	r := run(t, "bundle", "redact", in, out)
	if r.code != exitOK || !strings.Contains(r.stdout, "wrote "+out) {
		t.Fatalf("want exit 0\n%v", r)
	}
	files, m := readAll(t, out)
	var all bytes.Buffer
	for _, b := range files {
		all.Write(b)
	}
	for _, s := range redactSecrets {
		if bytes.Contains(all.Bytes(), []byte(s)) {
			t.Errorf("secret %q in the redacted bundle", s)
		}
	}
	// Equal secrets, equal tokens, across files and kinds.
	tokRe := regexp.MustCompile(`RW_POSTGRES_PASSWORD", "value": "(\[REDACTED:[0-9a-f]{8}\])"`)
	mm := tokRe.FindSubmatch(files["kubernetes/pods.json"])
	if mm == nil {
		t.Fatalf("pods.json:\n%s", files["kubernetes/pods.json"])
	}
	if !bytes.Contains(files["logs/rw-meta-0/meta.log"], []byte("postgres://rw:"+string(mm[1])+"@pg")) {
		t.Errorf("the password's token in the log differs from the one in pods.json:\n%s", files["logs/rw-meta-0/meta.log"])
	}
	// What holds no secret is unchanged.
	for _, f := range redactInput {
		if f.path == "sql/rw_worker_nodes.csv" && string(files[f.path]) != f.content {
			t.Errorf("%s changed: %q", f.path, files[f.path])
		}
	}
	if !bytes.Contains(files["kubernetes/describe/pods/rw-meta-0.txt"], []byte("RW_META_ADDR:          load-balance+http://rw-meta:5690")) {
		t.Error("describe lost RW_META_ADDR")
	}
	// The manifest: header kept, errors redacted, files re-hashed, counts added.
	if m.Cluster != "rw" || m.RisingWaveVersion != "v3.0.3" || m.Complete || m.IncompleteReason != "interrupted" || m.Tool.Version != "v0.1.0" {
		t.Errorf("header not kept: %+v", m)
	}
	if len(m.Errors) != 1 || strings.Contains(m.Errors[0].Error, "err-pw") || m.Errors[0].Target != "rw_ddl_progress" {
		t.Errorf("errors: %+v", m.Errors)
	}
	log, _ := m.File("logs/rw-meta-0/meta.log")
	if !log.Truncated || log.Redacted != 4 || log.Source != "source of logs/rw-meta-0/meta.log" {
		t.Errorf("log entry %+v: want truncated kept, 2 + 2 redacted, the source kept", log)
	}
	if !m.Redaction.Enabled || m.Redaction.Counts["env-secret-name"] < 3 || m.Redaction.Total < 2+len(redactSecrets) {
		t.Errorf("redaction %+v", m.Redaction)
	}
	if r := run(t, "bundle", "verify", out); r.code != exitOK {
		t.Errorf("the redacted bundle does not verify\n%v", r)
	}
	// Redacting again finds nothing new.
	again := filepath.Join(t.TempDir(), "again.tar")
	if r := run(t, "bundle", "redact", out, again); r.code != exitOK || !strings.Contains(r.stdout, "redacted 0 values") {
		t.Errorf("second redaction\n%v", r)
	}
	files2, _ := readAll(t, again)
	for p, b := range files {
		if p != bundle.ManifestPath && !bytes.Equal(files2[p], b) {
			t.Errorf("%s changed on the second pass", p)
		}
	}
}

func TestBundleRedactHandMade(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sample.tar.gz")
	r := run(t, "bundle", "redact", sample, out)
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	files, m := readAll(t, out)
	if m == nil || m.Tool.Name != "rwdiag" || !m.Redaction.Enabled {
		t.Errorf("manifest %+v", m)
	}
	// The sample holds no secret: every file comes out as it went in.
	err := filepath.Walk(sample, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(sample, p)
		want, _ := os.ReadFile(p)
		if got, ok := files[filepath.ToSlash(rel)]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s changed or missing", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := run(t, "bundle", "verify", out); r.code != exitOK {
		t.Errorf("does not verify\n%v", r)
	}
}

func TestBundleRedactUsage(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "out.tar.zst")
	os.WriteFile(existing, []byte("mine"), 0o644)
	if r := run(t, "bundle", "redact", sample, existing); r.code != exitUsage || !strings.Contains(r.stderr, "never overwrites") {
		t.Errorf("existing OUT\n%v", r)
	}
	if got, _ := os.ReadFile(existing); string(got) != "mine" {
		t.Error("existing OUT overwritten")
	}
	inside := t.TempDir()
	if r := run(t, "bundle", "redact", inside, filepath.Join(inside, "x.tar")); r.code != exitUsage || !strings.Contains(r.stderr, "inside the bundle directory") {
		t.Errorf("OUT inside IN\n%v", r)
	}
	if r := run(t, "bundle", "redact", sample); r.code != exitUsage || !strings.Contains(r.stderr, "missing OUT") {
		t.Errorf("missing OUT\n%v", r)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("patterns:\n  - name: x\n    value: '('\n"), 0o644)
	r := run(t, "bundle", "redact", "--redact-config", bad, sample, filepath.Join(t.TempDir(), "o.tar"))
	if r.code != exitUsage || !strings.Contains(r.stderr, bad+":3:12") {
		t.Errorf("bad config\n%v", r)
	}
	if r := run(t, "bundle", "redact", "--help"); r.code != exitOK || !strings.Contains(r.stdout, "Examples:") {
		t.Errorf("help\n%v", r)
	}
}
