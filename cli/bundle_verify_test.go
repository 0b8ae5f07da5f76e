package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

func TestVerifyGood(t *testing.T) {
	for _, format := range []bundle.Format{bundle.FormatTarZstd, bundle.FormatTarGzip, bundle.FormatTar} {
		name := writeBundle(t, format)
		r := run(t, "bundle", "verify", name)
		if r.code != exitOK {
			t.Errorf("%v: exit %d, want 0\n%v", format, r.code, r)
		}
		if want := "checked 3 files against manifest.json (3 listed)"; !strings.Contains(r.stdout, want) || !strings.HasSuffix(r.stdout, "\nOK\n") {
			t.Errorf("%v: stdout lacks %q and OK\n%v", format, want, r)
		}
	}
}

func TestVerifyFlippedByte(t *testing.T) {
	name := writeBundle(t, bundle.FormatTar)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	// Flip one byte of the log's content; the tar headers stay valid.
	i := bytes.Index(data, []byte("Starting compute node"))
	if i < 0 {
		t.Fatal("log content not found in the uncompressed archive")
	}
	data[i] ^= 0x20
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bundle", "verify", name)
	if r.code != exitFailed {
		t.Errorf("exit %d, want %d\n%v", r.code, exitFailed, r)
	}
	for _, want := range []string{"Mismatched", "logs/rw-compute-0/compute.log", "sha256  want ", "FAILED"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not contain %q\n%v", want, r)
		}
	}
	size := len(testFiles[1].content)
	if want := fmt.Sprintf("size    want %d, got %d\n", size, size); !strings.Contains(r.stdout, want) {
		t.Errorf("stdout does not contain %q\n%v", want, r)
	}
	if !strings.Contains(r.stderr, name) || !strings.Contains(r.stderr, "1 mismatched") {
		t.Errorf("stderr does not name the bundle and the mismatch\n%v", r)
	}
}

func TestVerifyMissingAndExtra(t *testing.T) {
	// Extract, then remove one file and add another: verify the directory.
	dir := t.TempDir()
	if r := run(t, "bundle", "extract", writeBundle(t, bundle.FormatTarZstd), dir); r.code != exitOK {
		t.Fatalf("extract failed\n%v", r)
	}
	if err := os.Remove(dir + "/sql/rw_worker_nodes.csv"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/notes.txt", []byte("added by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "bundle", "verify", dir)
	if r.code != exitFailed {
		t.Errorf("exit %d, want %d\n%v", r.code, exitFailed, r)
	}
	for _, want := range []string{"Missing: listed in the manifest, not in the bundle (1)\n  sql/rw_worker_nodes.csv", "Extra: in the bundle, not in the manifest (1; not a failure)\n  notes.txt"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not contain %q\n%v", want, r)
		}
	}
}

func TestVerifyHandMade(t *testing.T) {
	r := run(t, "bundle", "verify", sample)
	if r.code != exitUsage {
		t.Errorf("exit %d, want %d: a hand-made bundle cannot be verified\n%v", r.code, exitUsage, r)
	}
	if !strings.Contains(r.stderr, sample) || !strings.Contains(r.stderr, "no manifest.json") {
		t.Errorf("stderr does not name the bundle and the missing manifest\n%v", r)
	}
}
