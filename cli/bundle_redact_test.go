package cli

import (
	"bytes"
	"encoding/json"
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

// A file that is not what its name says (a .json that is not JSON, a .csv
// that is not psql's CSV) is redacted as text, with a warning naming it,
// and the copy is finished.
func TestBundleRedactNotWhatItsNameSays(t *testing.T) {
	in := t.TempDir()
	files := map[string]string{
		// cut off mid-object, as a partial copy leaves it
		"kubernetes/pods.json": `{"kind": "List", "items": [{"metadata": {"name": "rw-meta-0"}, "spec": {"containers": [{"env": [` + "\n" +
			`  {"name": "RW_POSTGRES_PASSWORD", "value": "json-broken-pw-1"}` + "\n" +
			`  connecting to postgres://rw:json-broken-pw-2@pg:5432/meta` + "\n",
		// a stray quote in an unquoted field: not psql CSV
		"sql/rw_sinks.csv": "id,name,definition\n" +
			`1,sink_k,CREATE SINK sink_k WITH (connector = 'kafka', properties.sasl.password = 'csv-broken-pw-1') "x` + "\n",
		"sql/rw_worker_nodes.csv": "id,host,port\n1,rw-compute-0,5688\n",
		"logs/rw-meta-0/meta.log": "2026-11-29T20:41:07Z  INFO connecting to postgres://rw:log-pw-3@pg:5432/meta\n",
	}
	for p, c := range files {
		dst := filepath.Join(in, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out.tar.zst")
	r := run(t, "bundle", "redact", in, out)
	if r.code != exitOK {
		t.Fatalf("want exit 0: the copy is finished\n%v", r)
	}
	for _, p := range []string{"kubernetes/pods.json", "sql/rw_sinks.csv"} {
		if !strings.Contains(r.stderr, "warning: ") || !strings.Contains(r.stderr, p) || !strings.Contains(r.stderr, "redacted as text") {
			t.Errorf("no warning naming %s\n%v", p, r)
		}
	}
	if strings.Contains(r.stderr, "rw_worker_nodes") || strings.Contains(r.stderr, "meta.log") {
		t.Errorf("a warning about a file that is what its name says\n%v", r)
	}
	if !strings.Contains(r.stdout, "2 files were not what their names say") {
		t.Errorf("the summary does not count the files redacted as text\n%v", r)
	}
	got, _ := readAll(t, out)
	for p := range files {
		if _, ok := got[p]; !ok {
			t.Errorf("%s missing from OUT", p)
		}
	}
	var all bytes.Buffer
	for _, b := range got {
		all.Write(b)
	}
	for _, s := range []string{"json-broken-pw-1", "json-broken-pw-2", "csv-broken-pw-1", "log-pw-3"} {
		if bytes.Contains(all.Bytes(), []byte(s)) {
			t.Errorf("secret %q in OUT", s)
		}
	}
	if string(got["sql/rw_worker_nodes.csv"]) != files["sql/rw_worker_nodes.csv"] {
		t.Errorf("rw_worker_nodes.csv changed: %q", got["sql/rw_worker_nodes.csv"])
	}
	if r := run(t, "bundle", "verify", out); r.code != exitOK {
		t.Errorf("OUT does not verify\n%v", r)
	}
}

// The manifest's strings are redacted: files' sources and errors, errors'
// targets and messages, the incomplete reason.
func TestBundleRedactManifestFields(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "in.tar")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Format: bundle.FormatTar})
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "rwdiag", Version: "v0.1.0"}
		m.Complete, m.IncompleteReason = false, "stopped: dial postgres://root:mf-reason-pw@fe:4567/dev: refused"
	})
	w.RecordError(bundle.CollectError{Step: "sql", Target: "postgres://root:mf-target-pw@fe:4567/dev", Error: "refused"})
	w.RecordError(bundle.CollectError{Step: "sql", Target: "frontend", Error: "connect postgres://root:mf-message-pw@fe:4567/dev: refused"})
	f, _ := w.Create("sql/rw_sinks.csv", "psql --csv 'postgresql://root:mf-source-pw@fe:4567/dev' -c 'SELECT * FROM rw_catalog.rw_sinks'")
	f.Write([]byte("id\n1\n"))
	f.SetError(errors.New("the connection to postgres://root:mf-file-error-pw@fe:4567/dev was lost"))
	f.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.tar")
	if r := run(t, "bundle", "redact", "--report", dest, out); r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	} else if !regexp.MustCompile(`(?m)^manifest\.json +5 +url-userinfo 5$`).MatchString(r.stdout) {
		t.Errorf("the report does not count the manifest's 5 values\n%v", r)
	}
	files, m := readAll(t, out)
	for _, s := range []string{"mf-reason-pw", "mf-target-pw", "mf-message-pw", "mf-source-pw", "mf-file-error-pw"} {
		if bytes.Contains(files[bundle.ManifestPath], []byte(s)) {
			t.Errorf("%s in the manifest:\n%s", s, files[bundle.ManifestPath])
		}
	}
	if fe, _ := m.File("sql/rw_sinks.csv"); !strings.Contains(fe.Source, "[REDACTED:") || !strings.Contains(fe.Error, "[REDACTED:") {
		t.Errorf("file entry %+v", fe)
	}
}

// --report lists per file how many values of which class were replaced; as
// a table on stdout, or JSON with the summary line moved to stderr.
func TestBundleRedactReport(t *testing.T) {
	in := writeRedactInput(t)
	out := filepath.Join(t.TempDir(), "out.tar.zst")
	r := run(t, "bundle", "redact", "--report", in, out)
	if r.code != exitOK {
		t.Fatalf("want exit 0\n%v", r)
	}
	for _, want := range []string{
		`(?m)^FILE +REPLACED +CLASSES$`,
		`(?m)^kubernetes/pods\.json +1 +env-secret-name 1$`,
		`(?m)^kubernetes/configmaps\.json +1 +configmap-secret-key 1$`,
		`(?m)^logs/rw-meta-0/meta\.log +2 +url-userinfo 2$`,
		`(?m)^manifest\.json +1 +url-userinfo 1$`,
		`(?m)^total +\d+ +`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("report lacks %s\n%v", want, r)
		}
	}
	if strings.Contains(r.stdout, "rw_worker_nodes") {
		t.Errorf("a file with nothing replaced is listed\n%v", r)
	}

	out2 := filepath.Join(t.TempDir(), "out2.tar.zst")
	r = run(t, "bundle", "redact", "--report-format", "json", in, out2)
	if r.code != exitOK || !strings.Contains(r.stderr, "wrote "+out2) {
		t.Fatalf("want exit 0 and the summary on stderr\n%v", r)
	}
	var rep struct {
		Files []struct {
			Path   string
			Total  int
			Counts map[string]int
		}
		Total  int
		Counts map[string]int
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%v", err, r)
	}
	sum := 0
	for _, f := range rep.Files {
		sum += f.Total
		if f.Path == "kubernetes/pods.json" && f.Counts["env-secret-name"] != 1 {
			t.Errorf("pods.json: %+v", f)
		}
	}
	if len(rep.Files) < 5 || sum != rep.Total || rep.Total < len(redactSecrets) {
		t.Errorf("report %+v", rep)
	}
	if r := run(t, "bundle", "redact", "--report-format", "yaml", in, filepath.Join(t.TempDir(), "x.tar")); r.code != exitUsage || !strings.Contains(r.stderr, `--report-format "yaml"`) {
		t.Errorf("bad format\n%v", r)
	}
}

// OUT must be a bundle archive: a zip name or a directory is a usage error
// before IN is read.
func TestBundleRedactRefusesOut(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(dir, "out.zip"), "a bundle is written as tar.zst"},
		{filepath.Join(dir, "out.7z"), "not 7z"},
		{dir, "is a directory: give a file name, e.g. " + filepath.Join(dir, "oom-crash-loop-redacted.tar.zst")},
	} {
		r := run(t, "bundle", "redact", "../samples/oom-crash-loop", tc.out)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("OUT %s: want exit 2 and %q\n%v", tc.out, tc.want, r)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("something was written: %v", entries)
	}
}
