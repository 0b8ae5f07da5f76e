package bundle_test

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// summaryPodsJSON is a trimmed `kubectl get pods -o json` of an operator-run
// cluster: two compute pods (one restarting), one meta, and a pod with no
// component label.
const summaryPodsJSON = `{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"kind": "Pod", "metadata": {"name": "rw-compute-1", "namespace": "rw", "labels": {"risingwave/component": "compute", "risingwave/name": "rw"}},
     "spec": {"containers": [{"name": "compute"}]},
     "status": {"phase": "Running", "containerStatuses": [{"name": "compute", "restartCount": 0}]}},
    {"kind": "Pod", "metadata": {"name": "rw-compute-0", "namespace": "rw", "labels": {"risingwave/component": "compute", "risingwave/name": "rw"}},
     "spec": {"containers": [{"name": "compute"}]},
     "status": {"phase": "Running", "containerStatuses": [{"name": "compute", "restartCount": 4}]}},
    {"kind": "Pod", "metadata": {"name": "rw-meta-0", "namespace": "rw", "labels": {"risingwave/component": "meta", "risingwave/name": "rw"}},
     "spec": {"containers": [{"name": "meta"}]},
     "status": {"phase": "Running", "containerStatuses": [{"name": "meta", "restartCount": 1}]}},
    {"kind": "Pod", "metadata": {"name": "kafka-ui", "namespace": "rw", "labels": {"app": "kafka-ui", "risingwave/name": "rw"}},
     "spec": {"containers": [{"name": "ui"}]},
     "status": {"phase": "Running"}}
  ]
}
`

type summaryFile struct{ path, content string }

var summaryFiles = []summaryFile{
	{"kubernetes/pods.json", summaryPodsJSON},
	{"kubernetes/events.json", `{"apiVersion":"v1","kind":"List","items":[]}` + "\n"},
	{"logs/rw-compute-0/compute.log", "line one\nline two\n"},
	{"logs/rw-compute-0/compute.previous.log", "crashed\n"},
	{"metrics/rw-compute-0/1796000000000.prom", "process_resident_memory_bytes 1.2e+09\n"},
	{"metrics/rw-compute-0/1796000015000.prom", "process_resident_memory_bytes 1.3e+09\n"},
	{"notes/readme.txt", "kept and ignored\n"},
}

// writeSummaryBundle writes summaryFiles as a bundle archive with a manifest.
func writeSummaryBundle(t *testing.T, format bundle.Format) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "b.tar")
	w, err := bundle.NewWriter(dest, bundle.WriterOptions{Root: "rwdiag-rw-20261129T204300Z", Format: format})
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "rwdiag", Version: "v0.1.0"}
		m.CollectedAt = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)
		m.Namespace = "rw"
		m.Cluster = "rw-from-manifest"
		m.RisingWaveVersion = "v2.5.0"
	})
	w.RecordError(bundle.CollectError{Step: "sql", Target: "rw_ddl_progress", Error: "connection refused"})
	for _, f := range summaryFiles {
		if err := w.WriteFile(f.path, "test", []byte(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dest
}

// writeSummaryDir writes files as a hand-made bundle directory.
func writeSummaryDir(t *testing.T, files []summaryFile) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func summarize(t *testing.T, name string, opts bundle.Options) (*bundle.Summary, error) {
	t.Helper()
	r, err := bundle.Open(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := bundle.Summarize(r)
	if s == nil {
		t.Fatal("Summarize returned a nil summary")
	}
	return s, err
}

func kindCount(s *bundle.Summary, k bundle.Kind) bundle.KindCount {
	for _, c := range s.Kinds {
		if c.Kind == k {
			return c
		}
	}
	return bundle.KindCount{Kind: k}
}

func TestSummarizeArchive(t *testing.T) {
	for _, format := range []bundle.Format{bundle.FormatTarZstd, bundle.FormatTarGzip, bundle.FormatTar} {
		t.Run(format.String(), func(t *testing.T) {
			s, err := summarize(t, writeSummaryBundle(t, format), bundle.Options{})
			if err != nil {
				t.Fatalf("Summarize: %v", err)
			}
			if s.Format != format {
				t.Errorf("Format = %v, want %v", s.Format, format)
			}
			if len(s.Problems) != 0 || s.Partial {
				t.Errorf("Problems = %v, Partial = %v; want none", s.Problems, s.Partial)
			}
			if !s.HasManifest || s.Manifest == nil {
				t.Fatalf("HasManifest = %v, Manifest = %v; want the manifest", s.HasManifest, s.Manifest)
			}
			if s.Manifest.RisingWaveVersion != "v2.5.0" || !s.Manifest.Complete || len(s.Manifest.Errors) != 1 {
				t.Errorf("Manifest = %+v", s.Manifest)
			}
			if ns, from := s.Namespace(); ns != "rw" || from != "manifest.json" {
				t.Errorf("Namespace() = %q, %q; want rw from manifest.json", ns, from)
			}
			if c, from := s.Cluster(); c != "rw-from-manifest" || from != "manifest.json" {
				t.Errorf("Cluster() = %q, %q; want the manifest's", c, from)
			}
			// The manifest and every file written, the unknown one included.
			if want := len(summaryFiles) + 1; s.Files != want {
				t.Errorf("Files = %d, want %d", s.Files, want)
			}
			var total int64
			for _, f := range summaryFiles {
				total += int64(len(f.content))
			}
			if got := s.Bytes - kindCount(s, bundle.KindManifest).Bytes; got != total {
				t.Errorf("Bytes without the manifest = %d, want %d", got, total)
			}
			for k, want := range map[bundle.Kind]bundle.KindCount{
				bundle.KindManifest:      {Files: 1},
				bundle.KindPods:          {Files: 1, Bytes: int64(len(summaryPodsJSON))},
				bundle.KindLog:           {Files: 1, Bytes: int64(len("line one\nline two\n"))},
				bundle.KindPreviousLog:   {Files: 1, Bytes: int64(len("crashed\n"))},
				bundle.KindMetricsScrape: {Files: 2, Bytes: 2 * int64(len("process_resident_memory_bytes 1.2e+09\n"))},
				bundle.KindUnknown:       {Files: 1, Bytes: int64(len("kept and ignored\n"))},
			} {
				got := kindCount(s, k)
				if got.Files != want.Files || (want.Bytes != 0 && got.Bytes != want.Bytes) {
					t.Errorf("kind %v: %d files, %d bytes; want %d files, %d bytes", k, got.Files, got.Bytes, want.Files, want.Bytes)
				}
			}
			for i := 1; i < len(s.Kinds); i++ {
				if s.Kinds[i-1].Kind >= s.Kinds[i].Kind {
					t.Errorf("Kinds not in Kind order: %v", s.Kinds)
				}
			}
		})
	}
}

func TestSummarizeHandMadeDirectory(t *testing.T) {
	s, err := summarize(t, writeSummaryDir(t, summaryFiles), bundle.Options{})
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	if s.Format != bundle.FormatDir || s.HasManifest || s.Manifest != nil {
		t.Errorf("Format = %v, HasManifest = %v; want a directory without manifest", s.Format, s.HasManifest)
	}
	if ns, from := s.Namespace(); ns != "rw" || from != "kubernetes/pods.json" {
		t.Errorf("Namespace() = %q, %q; want rw from kubernetes/pods.json", ns, from)
	}
	if c, from := s.Cluster(); c != "rw" || from != "kubernetes/pods.json" {
		t.Errorf("Cluster() = %q, %q; want rw from kubernetes/pods.json", c, from)
	}
	want := []bundle.ComponentPods{
		{Component: "meta", Names: []string{"rw-meta-0"}, Restarts: 1},
		{Component: "compute", Names: []string{"rw-compute-0", "rw-compute-1"}, Restarts: 4},
		{Component: "", Names: []string{"kafka-ui"}},
	}
	if got := s.Components(); !reflect.DeepEqual(got, want) {
		t.Errorf("Components() =\n%+v\nwant\n%+v", got, want)
	}
	if s.Files != len(summaryFiles) {
		t.Errorf("Files = %d, want %d", s.Files, len(summaryFiles))
	}
}

func TestSummarizeNamespaceDisagreement(t *testing.T) {
	pods := `{"kind":"List","items":[
	  {"metadata":{"name":"a","namespace":"one","labels":{"risingwave/name":"x"}}},
	  {"metadata":{"name":"b","namespace":"two","labels":{"risingwave/name":"y"}}}]}`
	s, err := summarize(t, writeSummaryDir(t, []summaryFile{{"kubernetes/pods.json", pods}}), bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ns, from := s.Namespace(); ns != "" || from != "" {
		t.Errorf("Namespace() = %q, %q; want nothing when pods disagree", ns, from)
	}
	if c, from := s.Cluster(); c != "" || from != "" {
		t.Errorf("Cluster() = %q, %q; want nothing when pods disagree", c, from)
	}
}

func TestSummarizeUndecodableFiles(t *testing.T) {
	s, err := summarize(t, writeSummaryDir(t, []summaryFile{
		{"kubernetes/pods.json", `{"kind": "List", "items": [`},
		{"logs/p/c.log", "x\n"},
		{"manifest.json", `{"format_version": 99}`},
	}), bundle.Options{})
	if err != nil {
		t.Fatalf("Summarize: %v; undecodable files are not fatal", err)
	}
	if !s.HasManifest || s.Manifest != nil || !s.HasPods || s.Pods != nil {
		t.Errorf("HasManifest = %v, Manifest = %v, HasPods = %v, Pods = %v; want both seen and neither decoded",
			s.HasManifest, s.Manifest, s.HasPods, s.Pods)
	}
	if len(s.Problems) != 2 {
		t.Fatalf("Problems = %v, want two", s.Problems)
	}
	if msg := s.Problems[0].Error(); !strings.Contains(msg, "kubernetes/pods.json") {
		t.Errorf("problem %q does not name kubernetes/pods.json", msg)
	}
	if msg := s.Problems[1].Error(); !strings.Contains(msg, "manifest.json") || !strings.Contains(msg, "format_version 99") {
		t.Errorf("problem %q does not name manifest.json and its version", msg)
	}
	if s.Files != 3 || s.Partial {
		t.Errorf("Files = %d, Partial = %v; want 3 files read whole", s.Files, s.Partial)
	}
}

func TestSummarizeRefusedEntry(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []struct {
		hdr  tar.Header
		body string
	}{
		{tar.Header{Name: "kubernetes/events.json", Typeflag: tar.TypeReg, Mode: 0o644}, "{}"},
		{tar.Header{Name: "logs/p/c.log", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""},
		{tar.Header{Name: "logs/p/d.log", Typeflag: tar.TypeReg, Mode: 0o644}, "ok\n"},
	} {
		h.hdr.Size = int64(len(h.body))
		if err := tw.WriteHeader(&h.hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(h.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "symlink.tar")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := summarize(t, name, bundle.Options{})
	if err != nil {
		t.Fatalf("Summarize: %v; a refused entry is not fatal", err)
	}
	var ue *bundle.UnsafeEntryError
	if len(s.Problems) != 1 || !errors.As(s.Problems[0], &ue) || ue.Path != "logs/p/c.log" {
		t.Fatalf("Problems = %v, want the refused symlink", s.Problems)
	}
	if s.Files != 2 || kindCount(s, bundle.KindLog).Files != 1 {
		t.Errorf("Files = %d, logs = %d; want the entries around the refused one read", s.Files, kindCount(s, bundle.KindLog).Files)
	}
}

func TestSummarizeEntryLimit(t *testing.T) {
	dir := writeSummaryDir(t, []summaryFile{
		{"logs/p/c.log", strings.Repeat("x", 100)},
		{"sql/rw_worker_nodes.csv", "id\n1\n"},
	})
	s, err := summarize(t, dir, bundle.Options{MaxEntryBytes: 10})
	if err != nil {
		t.Fatalf("Summarize: %v; the per-entry limit is not fatal", err)
	}
	var le *bundle.LimitError
	if len(s.Problems) != 1 || !errors.As(s.Problems[0], &le) || le.Total || le.Path != "logs/p/c.log" {
		t.Fatalf("Problems = %v, want the per-entry limit on logs/p/c.log", s.Problems)
	}
	if got := kindCount(s, bundle.KindLog).Bytes; got != 10 {
		t.Errorf("log bytes = %d, want the 10 read before the limit", got)
	}
	if kindCount(s, bundle.KindSQLTable).Files != 1 {
		t.Errorf("the file after the cut one was not read: %+v", s.Kinds)
	}
}

func TestSummarizeDamagedArchive(t *testing.T) {
	whole := writeSummaryBundle(t, bundle.FormatTarGzip)
	full, err := summarize(t, whole, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := summarize(t, cut, bundle.Options{})
	var de *bundle.DamageError
	if !errors.As(err, &de) {
		t.Fatalf("Summarize error = %v, want a *DamageError", err)
	}
	if !s.Partial || len(s.Problems) == 0 || s.Problems[len(s.Problems)-1] != err {
		t.Errorf("Partial = %v, Problems = %v; want the fatal error last", s.Partial, s.Problems)
	}
	if !s.HasManifest || s.Files >= full.Files {
		t.Errorf("HasManifest = %v, Files = %d (whole: %d); want what came before the damage", s.HasManifest, s.Files, full.Files)
	}
}

func TestSummaryJSON(t *testing.T) {
	s, err := summarize(t, writeSummaryDir(t, summaryFiles), bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format      string          `json:"format"`
		HasManifest bool            `json:"has_manifest"`
		Manifest    json.RawMessage `json:"manifest"`
		Namespace   string          `json:"namespace"`
		Components  []struct {
			Component string   `json:"component"`
			Pods      int      `json:"pods"`
			Names     []string `json:"names"`
			Restarts  int      `json:"restarts"`
		} `json:"components"`
		Kinds []struct {
			Kind  string `json:"kind"`
			Files int    `json:"files"`
		} `json:"kinds"`
		Problems json.RawMessage `json:"problems"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if got.Format != "directory" || got.HasManifest || string(got.Manifest) != "null" || got.Namespace != "rw" {
		t.Errorf("header fields wrong in %s", b)
	}
	if len(got.Components) != 3 || got.Components[1].Component != "compute" || got.Components[1].Pods != 2 || got.Components[1].Restarts != 4 {
		t.Errorf("components wrong in %s", b)
	}
	if len(got.Kinds) == 0 || got.Kinds[0].Kind != "unknown" {
		t.Errorf("kinds wrong in %s", b)
	}
	if string(got.Problems) != "[]" {
		t.Errorf("problems = %s, want []", got.Problems)
	}
}
