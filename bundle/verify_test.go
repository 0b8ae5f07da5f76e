package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func verifyFile(t *testing.T, name string) (*VerifyReport, error) {
	t.Helper()
	return verifyWith(t, name, Options{})
}

func verifyWith(t *testing.T, name string, opts Options) (*VerifyReport, error) {
	t.Helper()
	r, err := Open(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := Verify(r)
	if rep == nil {
		t.Fatal("Verify returned no report")
	}
	return rep, err
}

// rewriteTar copies the plain tar src to a new file, passing each entry
// through edit, which returns the entries to write in its place.
func rewriteTar(t *testing.T, src string, edit func(h *tar.Header, body []byte) []tarEntry, tail ...tarEntry) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	tr, tw := tar.NewReader(in), tar.NewWriter(&out)
	write := func(es []tarEntry) {
		for _, e := range es {
			if err := tw.WriteHeader(e.hdr); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		write(edit(h, body))
	}
	write(tail)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "edited.tar")
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

type tarEntry struct {
	hdr  *tar.Header
	body []byte
}

func regEntry(name, body string) tarEntry {
	return tarEntry{&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644}, []byte(body)}
}

func keep(h *tar.Header, body []byte) []tarEntry { return []tarEntry{{h, body}} }

func TestVerifyIntact(t *testing.T) {
	for _, f := range []Format{FormatTar, FormatTarZstd, FormatTarGzip} {
		name := writeBundle(t, t.TempDir(), WriterOptions{Format: f, Root: "rwdiag-x"}, testFiles())
		rep, err := verifyFile(t, name)
		if err != nil || !rep.OK() || rep.Checked != len(testFiles()) || rep.Manifest == nil {
			t.Errorf("%v: Verify = %+v, %v; want OK with %d files checked", f, rep, err, len(testFiles()))
		}
	}
}

func TestVerifyFlippedByte(t *testing.T) {
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	const target = "metrics/risingwave-compute-0/1796000000123.prom"
	i := bytes.Index(b, []byte("stream_barrier_latency_count 12"))
	if i < 0 || bytes.Count(b, []byte("stream_barrier_latency_count")) != 1 {
		t.Fatal("cannot find the file's data in the tar")
	}
	b[i+3] ^= 0x20
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := verifyFile(t, name)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Error("OK() after a flipped byte")
	}
	if len(rep.Mismatched) != 1 || rep.Mismatched[0].Path != target {
		t.Fatalf("Mismatched = %+v, want exactly %s", rep.Mismatched, target)
	}
	m := rep.Mismatched[0]
	if m.GotSize != m.WantSize || m.GotSHA256 == m.WantSHA256 || m.WantSHA256 != sha("stream_barrier_latency_count 12\n") {
		t.Errorf("mismatch = %+v", m)
	}
	if len(rep.Missing)+len(rep.Extra)+len(rep.Problems) != 0 || rep.Checked != len(testFiles()) {
		t.Errorf("report = %+v, want only the mismatch", rep)
	}
}

func TestVerifyMissingExtraAndOrder(t *testing.T) {
	src := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	var manifest tarEntry
	tests := []struct {
		name        string
		edit        func(h *tar.Header, body []byte) []tarEntry
		tail        func() []tarEntry
		ok          bool
		missing     []string
		extra       []string
		problemText string
	}{
		{
			name: "missing",
			edit: func(h *tar.Header, body []byte) []tarEntry {
				if h.Name == "sql/rw_worker_nodes.csv" || h.Name == "notes/README" {
					return nil
				}
				return keep(h, body)
			},
			missing: []string{"notes/README", "sql/rw_worker_nodes.csv"},
		},
		{
			name: "extra files alone do not fail",
			edit: keep,
			tail: func() []tarEntry {
				return []tarEntry{regEntry("zz/late.txt", "late\n"), regEntry("kafka/consumer-groups.txt", "g\n")}
			},
			ok:    true,
			extra: []string{"kafka/consumer-groups.txt", "zz/late.txt"},
		},
		{
			name: "manifest last",
			edit: func(h *tar.Header, body []byte) []tarEntry {
				if h.Name == ManifestPath {
					manifest = tarEntry{h, body}
					return nil
				}
				return keep(h, body)
			},
			tail: func() []tarEntry { return []tarEntry{manifest} },
			ok:   true,
		},
		{
			name: "duplicate entry",
			edit: func(h *tar.Header, body []byte) []tarEntry {
				if h.Name == "notes/README" {
					return []tarEntry{{h, body}, regEntry(h.Name, "other\n")}
				}
				return keep(h, body)
			},
			problemText: "another copy of",
		},
		{
			name: "refused entry",
			edit: keep,
			tail: func() []tarEntry {
				return []tarEntry{{&tar.Header{Typeflag: tar.TypeSymlink, Name: "logs/link", Linkname: "/etc"}, nil}}
			},
			problemText: "symbolic link",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tail []tarEntry
			name := rewriteTar(t, src, tt.edit)
			if tt.tail != nil {
				// Edit first, so edit may capture what tail writes.
				tail = tt.tail()
				name = rewriteTar(t, src, tt.edit, tail...)
			}
			rep, err := verifyFile(t, name)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() != tt.ok || !slices.Equal(rep.Missing, tt.missing) || !slices.Equal(rep.Extra, tt.extra) || len(rep.Mismatched) != 0 {
				t.Errorf("report OK %v, missing %q, extra %q, mismatched %v; want OK %v, missing %q, extra %q",
					rep.OK(), rep.Missing, rep.Extra, rep.Mismatched, tt.ok, tt.missing, tt.extra)
			}
			if tt.problemText == "" && len(rep.Problems) > 0 || tt.problemText != "" && (len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), tt.problemText)) {
				t.Errorf("problems = %v, want %q", rep.Problems, tt.problemText)
			}
		})
	}
}

func TestVerifyNoManifest(t *testing.T) {
	src := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTar}, testFiles())
	name := rewriteTar(t, src, func(h *tar.Header, body []byte) []tarEntry {
		if h.Name == ManifestPath {
			return nil
		}
		return keep(h, body)
	})
	rep, err := verifyFile(t, name)
	if !errors.Is(err, ErrNoManifest) || rep.OK() || rep.Manifest != nil || rep.Checked != len(testFiles()) {
		t.Errorf("Verify = %+v, %v; want ErrNoManifest and every file hashed", rep, err)
	}

	bad := rewriteTar(t, src, func(h *tar.Header, body []byte) []tarEntry {
		if h.Name == ManifestPath {
			return []tarEntry{regEntry(ManifestPath, `{"format_version": 1, "files": [`)}
		}
		return keep(h, body)
	})
	rep, err = verifyFile(t, bad)
	if err == nil || errors.Is(err, ErrNoManifest) || !strings.Contains(err.Error(), "manifest.json") || rep.OK() {
		t.Errorf("Verify of a broken manifest = %+v, %v; want a decode error", rep, err)
	}
}

func TestVerifyDamageAndLimits(t *testing.T) {
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, testFiles())
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar.zst")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := verifyFile(t, cut)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 1 || len(rep.Missing) == 0 || len(rep.Mismatched) != 0 {
		t.Fatalf("Verify of a cut archive = %+v", rep)
	}
	if de, ok := asError[*DamageError](rep.Problems[0]); !ok || de.Entry != "logs/risingwave-compute-0/compute.log" {
		t.Errorf("problem %v, want damage in the long log", rep.Problems[0])
	}
	// Everything after the damaged log is missing.
	if want := []string{"logs/risingwave-compute-0/compute.previous.log", "metrics/prometheus/barrier_latency.json",
		"metrics/risingwave-compute-0/1796000000123.prom", "notes/README", "sql/rw_worker_nodes.csv"}; !slices.Equal(rep.Missing, want) {
		t.Errorf("Missing = %q, want %q", rep.Missing, want)
	}

	rep, err = verifyWith(t, name, Options{MaxEntryBytes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 1 || len(rep.Missing)+len(rep.Mismatched) != 0 || rep.Checked != len(testFiles())-1 {
		t.Fatalf("Verify with a small entry limit = %+v", rep)
	}
	if le, ok := asError[*LimitError](rep.Problems[0]); !ok || le.Total || le.Path != "logs/risingwave-compute-0/compute.log" {
		t.Errorf("problem %v, want the per-entry limit on the long log", rep.Problems[0])
	}
}
