package bundle

import (
	"archive/tar"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

type testFile struct {
	path  string
	body  string
	class Class
}

var scrapeTime = time.UnixMilli(1796000000123).UTC()

// bigLog is a log longer than the reader's and the tar's buffers.
func bigLog() string {
	var b strings.Builder
	for i := 0; b.Len() < 300<<10; i++ {
		b.WriteString(hostileLogLine(i))
	}
	return b.String()
}

func testFiles() []testFile {
	return []testFile{
		{"kubernetes/pods.json", goodFirstBody, Class{Kind: KindPods, Name: "pods"}},
		{"kubernetes/statefulsets.json", `{"items":[]}`, Class{Kind: KindKubeObjects, Name: "statefulsets"}},
		{"kubernetes/describe/pods/risingwave-meta-0.txt", "Name: risingwave-meta-0\n", Class{Kind: KindDescribe, Pod: "risingwave-meta-0"}},
		{"kubernetes/describe/pods.txt", "Name: risingwave-meta-0\n\n\nName: risingwave-compute-0\n", Class{Kind: KindDescribe}},
		{"kubernetes/pods.txt", "NAME READY STATUS RESTARTS AGE\n", Class{Kind: KindPodsTable, Name: "pods"}},
		{"logs/risingwave-compute-0/compute.log", bigLog(), Class{Kind: KindLog, Pod: "risingwave-compute-0", Container: "compute"}},
		{"logs/risingwave-compute-0/compute.previous.log", "panicked at 'oom'\n", Class{Kind: KindPreviousLog, Pod: "risingwave-compute-0", Container: "compute"}},
		{"metrics/risingwave-compute-0/1796000000123.prom", "stream_barrier_latency_count 12\n", Class{Kind: KindMetricsScrape, Pod: "risingwave-compute-0", ScrapedAt: scrapeTime}},
		{"metrics/prometheus/barrier_latency.json", `{"status":"success"}`, Class{Kind: KindPrometheusRange, Name: "barrier_latency"}},
		{"sql/rw_worker_nodes.csv", goodLastBody, Class{Kind: KindSQLTable, Name: "rw_worker_nodes"}},
		{"diagnose/await-tree.txt", "", Class{Kind: KindAwaitTreeText}}, // empty file
		{"notes/README", "hand-added\n", Class{}},
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// writeBundle writes files (in reverse order, to show the writer sorts) to
// a new bundle in dir and returns its path.
func writeBundle(t *testing.T, dir string, opts WriterOptions, files []testFile) string {
	t.Helper()
	dest := filepath.Join(dir, "bundle."+opts.Format.String())
	w, err := NewWriter(dest, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Update(func(m *Manifest) { m.Namespace = "rw"; m.Cluster = "prod" })
	for _, f := range slices.Backward(files) {
		if err := w.WriteFile(f.path, "test "+f.path, []byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dest
}

func TestRoundTrip(t *testing.T) {
	files := testFiles()
	byPath := map[string]testFile{}
	var sorted []string
	for _, f := range files {
		byPath[f.path] = f
		sorted = append(sorted, f.path)
	}
	slices.Sort(sorted)

	type form struct {
		name   string
		format Format // of the archive written
		root   string
		dir    bool // extract it and read the directory
	}
	var forms []form
	for _, f := range []Format{FormatTarZstd, FormatTarGzip, FormatTar} {
		for _, root := range []string{"", "rwdiag-prod-20261129T204300Z"} {
			forms = append(forms, form{name: fmt.Sprintf("%v/root=%q", f, root), format: f, root: root})
		}
	}
	forms = append(forms, form{name: "directory", format: FormatTarZstd, root: "rwdiag-prod-20261129T204300Z", dir: true})

	for _, fm := range forms {
		t.Run(fm.name, func(t *testing.T) {
			tmp := t.TempDir()
			name := writeBundle(t, tmp, WriterOptions{Format: fm.format, Root: fm.root}, files)
			wantPaths := append([]string{ManifestPath}, sorted...)
			if fm.dir {
				r, err := Open(name, Options{})
				if err != nil {
					t.Fatal(err)
				}
				name = filepath.Join(tmp, "extracted")
				if n, problems, err := Extract(r, name); err != nil || len(problems) > 0 || n != len(files)+1 {
					t.Fatalf("Extract = %d, %v, %v", n, problems, err)
				}
				r.Close()
				wantPaths = append([]string(nil), wantPaths...)
				slices.Sort(wantPaths) // a directory is read in lexical order
			}
			r, err := Open(name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			wantFormat := fm.format
			if fm.dir {
				wantFormat = FormatDir
			}
			if r.Format() != wantFormat || r.Name() != name {
				t.Errorf("Format, Name = %v, %q; want %v, %q", r.Format(), r.Name(), wantFormat, name)
			}
			gots := drainAll(t, r)
			var paths []string
			var manifest *Manifest
			for _, g := range gots {
				if g.NextErr != nil || g.ReadErr != nil {
					t.Fatalf("unexpected errors: %v, %v", g.NextErr, g.ReadErr)
				}
				paths = append(paths, g.Path)
				if g.Size != int64(len(g.Data)) {
					t.Errorf("%s: Size %d, read %d bytes", g.Path, g.Size, len(g.Data))
				}
				if g.Path == ManifestPath {
					if g.Class.Kind != KindManifest {
						t.Errorf("manifest classified %v", g.Class.Kind)
					}
					if manifest, err = DecodeManifest(bytes.NewReader(g.Data)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				f := byPath[g.Path]
				if string(g.Data) != f.body {
					t.Errorf("%s: content differs (%d bytes, want %d)", g.Path, len(g.Data), len(f.body))
				}
				if g.Class != f.class {
					t.Errorf("%s: class %+v, want %+v", g.Path, g.Class, f.class)
				}
			}
			if !slices.Equal(paths, wantPaths) {
				t.Errorf("paths\n got %q\nwant %q", paths, wantPaths)
			}
			if manifest == nil {
				t.Fatal("no manifest")
			}
			if manifest.Namespace != "rw" || manifest.Cluster != "prod" || !manifest.Complete || manifest.FormatVersion != FormatVersion {
				t.Errorf("manifest header = %+v", manifest)
			}
			var listed []string
			for _, fe := range manifest.Files {
				listed = append(listed, fe.Path)
				f := byPath[fe.Path]
				if fe.Size != int64(len(f.body)) || fe.SHA256 != sha(f.body) || fe.Source != "test "+f.path {
					t.Errorf("manifest entry %+v, want size %d sha256 %s", fe, len(f.body), sha(f.body))
				}
			}
			if !slices.Equal(listed, sorted) {
				t.Errorf("manifest lists\n %q\nwant %q", listed, sorted)
			}
		})
	}
}

func TestWrappingDir(t *testing.T) {
	tests := []struct{ name, prefix string }{
		{"manifest.json", ""},
		{"logs/p/c.log", ""},
		{"rwdiag-x", ""}, // a directory entry alone does not tell yet
		{"rwdiag-x/manifest.json", "rwdiag-x/"},
		{"rwdiag-x/logs/p/c.log", "rwdiag-x/"},
		{"README", ""},
		{"notes/a.txt", ""}, // an unknown directory at the root is kept, not taken for a wrapper
		{"a/b/kubernetes/pods.json", ""},
	}
	for _, tt := range tests {
		if got := wrappingDir(tt.name); got != tt.prefix {
			t.Errorf("wrappingDir(%q) = %q, want %q", tt.name, got, tt.prefix)
		}
	}
}

// An unknown directory first in an archive at the root is not taken for a
// wrapping directory; the wrapper is found by the first entry that shows it.
func TestReaderWrapperDecidedByEvidence(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{[]string{"notes/x.txt", "kubernetes/pods.json"}, []string{"notes/x.txt", "kubernetes/pods.json"}},
		// An unknown file before the evidence keeps its full path: one pass
		// cannot look ahead, and it is ignored either way.
		{[]string{"rwdiag-p-1/", "rwdiag-p-1/README", "rwdiag-p-1/logs/p/c.log", "rwdiag-p-1/NOTES", "other/y"},
			[]string{"rwdiag-p-1/README", "logs/p/c.log", "NOTES", "other/y"}},
		{[]string{"logs/p/c.log", "rwdiag-p-1/logs/p/c.log"}, []string{"logs/p/c.log", "rwdiag-p-1/logs/p/c.log"}},
	} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, n := range tc.names {
			hdr := &tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg}
			if strings.HasSuffix(n, "/") {
				hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
			}
			if err := tw.WriteHeader(hdr); err != nil {
				t.Fatal(err)
			}
		}
		tw.Close()
		r, err := NewReader("t.tar", &buf, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, e.Path)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%v read as %v, want %v", tc.names, got, tc.want)
		}
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct{ in, clean, reason string }{
		{"logs/p/c.log", "logs/p/c.log", ""},
		{"./logs/p/c.log", "logs/p/c.log", ""},
		{"logs//p/./c.log", "logs/p/c.log", ""},
		{"dir/", "dir", ""},
		{"", "", "empty name"},
		{"/etc/passwd", "", "absolute path"},
		{"../evil", "", `".." path component`},
		{"logs/../../evil", "", `".." path component`},
		{"logs/..", "", `".." path component`},
		{`logs\..\evil`, "", "backslash in name"},
		{"C:/evil", "", "drive letter in path"},
		{"a\x00b", "", "NUL byte in name"},
		{".", "", "names the archive root"},
		{"./", "", "names the archive root"},
	}
	for _, tt := range tests {
		clean, reason := cleanName(tt.in)
		if clean != tt.clean || reason != tt.reason {
			t.Errorf("cleanName(%q) = %q, %q; want %q, %q", tt.in, clean, reason, tt.clean, tt.reason)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nope.tar.zst"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file = %v", err)
	}
}

func TestEntryReadsAreIndependentOfConsumerBufferSize(t *testing.T) {
	// Reading with a 1-byte buffer gives the same bytes as io.ReadAll.
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, testFiles()[:4])
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		one := make([]byte, 1)
		for {
			n, err := e.Read(one)
			b.Write(one[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if int64(b.Len()) != e.Size {
			t.Errorf("%s: read %d bytes one at a time, want %d", e.Path, b.Len(), e.Size)
		}
		if e.Path == "logs/risingwave-compute-0/compute.log" {
			break // long enough
		}
	}
}

func TestReaderZstdWindowLimit(t *testing.T) {
	// The writer's frames hold 4 MiB each, so a bundle larger than that asks
	// for a window larger than 1 MiB; a reader limited to 1 MiB refuses the
	// archive, fatally, and says why.
	files := testFiles()
	files = append(files, testFile{path: "logs/risingwave-meta-0/meta.log",
		body: strings.Repeat("2026-11-29T20:43:00Z INFO meta: a line of its own\n", 5<<20/50)})
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, files)
	r, err := Open(name, Options{MaxZstdWindow: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gots := drainAll(t, r)
	last := gots[len(gots)-1]
	err = cmp.Or(last.NextErr, last.ReadErr)
	if !errors.Is(err, zstd.ErrWindowSizeExceeded) || !Fatal(err) || !strings.Contains(err.Error(), "max-zstd-window") {
		t.Errorf("reading with a 1 MiB window limit ended with %v", err)
	}
	// With the default limit it reads.
	if rep, err := verifyFile(t, name); err != nil || !rep.OK() {
		t.Errorf("Verify = %+v, %v", rep, err)
	}
}

func TestEntryReadAfterNext(t *testing.T) {
	// An entry read after Next has moved on fails rather than giving the
	// next entry's bytes.
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if n, err := first.Read(make([]byte, 10)); n != 0 || err == nil {
		t.Errorf("Read of a stale entry = %d, %v; want an error", n, err)
	}
}

func TestReaderArchivesMadeByOtherTools(t *testing.T) {
	type hdr struct {
		typ  byte
		name string
	}
	tests := []struct {
		name    string
		entries []hdr
		paths   []string
	}{
		{
			// git archive --prefix writes a pax global header before the
			// first file; the wrapping directory is still found.
			name: "git archive",
			entries: []hdr{{tar.TypeXGlobalHeader, "pax_global_header"}, {tar.TypeDir, "rwdiag-x/"},
				{tar.TypeReg, "rwdiag-x/manifest.json"}, {tar.TypeReg, "rwdiag-x/logs/p/c.log"}},
			paths: []string{ManifestPath, "logs/p/c.log"},
		},
		{
			// tar -C rwdiag-x -cf b.tar . names the root "./".
			name:    "tar -C dir .",
			entries: []hdr{{tar.TypeDir, "./"}, {tar.TypeReg, "./manifest.json"}, {tar.TypeDir, "./logs/"}, {tar.TypeReg, "./logs/p/c.log"}},
			paths:   []string{ManifestPath, "logs/p/c.log"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tw := tar.NewWriter(&b)
			for _, e := range tt.entries {
				h := &tar.Header{Typeflag: e.typ, Name: e.name}
				switch e.typ {
				case tar.TypeXGlobalHeader:
					h.PAXRecords = map[string]string{"comment": "0123abcd"}
				case tar.TypeReg:
					h.Size, h.Mode = 2, 0o644
				default:
					h.Mode = 0o755
				}
				if err := tw.WriteHeader(h); err != nil {
					t.Fatal(err)
				}
				if e.typ == tar.TypeReg {
					tw.Write([]byte("{}"))
				}
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(tt.name, &b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, g := range drainAll(t, r) {
				if g.NextErr != nil || g.ReadErr != nil {
					t.Errorf("errors %v, %v", g.NextErr, g.ReadErr)
				}
				paths = append(paths, g.Path)
			}
			if !slices.Equal(paths, tt.paths) {
				t.Errorf("paths %q, want %q", paths, tt.paths)
			}
		})
	}
}
