package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for p, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// notBundle reads the bundle at dir to its end and returns NotBundle's answer.
func notBundle(t *testing.T, r *Reader) error {
	t.Helper()
	defer r.Close()
	for _, g := range drainAll(t, r) {
		if Fatal(g.NextErr) || Fatal(g.ReadErr) {
			t.Fatalf("fatal error: %v %v", g.NextErr, g.ReadErr)
		}
	}
	return r.NotBundle()
}

func TestNotBundle(t *testing.T) {
	bundleTar := tarOf(t, map[string]string{"rwdiag-x/manifest.json": "{}"})
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // "" for a bundle
	}{
		{"empty directory", nil, "nothing in it is bundle content (it is empty)"},
		{"Go sources", map[string]string{"go.mod": "module x\n", "main.go": "package main\n", "cli/app.go": "package cli\n"},
			"nothing in it is bundle content (3 files, none of them manifest.json or under kubernetes/, logs/, metrics/, sql/, diagnose/ or kafka/"},
		{"one log is content", map[string]string{"README": "x", "logs/p/c.log": "x"}, ""},
		{"manifest alone is content", map[string]string{"manifest.json": "{}"}, ""},
		{"kubernetes/ but unknown shape", map[string]string{"kubernetes/pods.yaml": "x", "logs/p.log": "x"}, "nothing in it is bundle content (2 files"},
		{"folder of bundle directories", map[string]string{
			"a/manifest.json": "{}", "a/logs/p/c.log": "x",
			"b/rwdiag-b-20261129T204300Z/kubernetes/pods.json": "{}",
			"notes/todo.txt": "x"},
			"holds 2 bundles: a, b/rwdiag-b-20261129T204300Z; analyze one of them"},
		{"many bundles", map[string]string{
			"a/logs/p/c.log": "x", "b/logs/p/c.log": "x", "c/logs/p/c.log": "x", "d/logs/p/c.log": "x", "e/logs/p/c.log": "x",
			"f/logs/p/c.log": "x", "g/logs/p/c.log": "x", "h/logs/p/c.log": "x", "i/logs/p/c.log": "x", "j/logs/p/c.log": "x"},
			"holds 10 bundles: a, b, c, d, e, f, g, h, and 2 more; analyze one of them"},
		{"folder of archives", map[string]string{"one.tar": string(bundleTar), "two.bin": string(bundleTar), "notes.txt": "x"},
			"holds 2 bundles: one.tar, two.bin; analyze one of them"},
		{"one archive and a note", map[string]string{"x.tar.zst": "not really", "notes.txt": "x"},
			"holds 1 bundle: x.tar.zst; analyze it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			r, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = notBundle(t, r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NotBundle = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrNotBundle) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "not a bundle: "+dir) {
				t.Fatalf("NotBundle = %v\nwant ErrNotBundle containing %q", err, tc.want)
			}
		})
	}
}

func TestNotBundleArchive(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"sources", map[string]string{"src/main.go": "package main\n"}, "nothing in it is bundle content (1 file,"},
		{"archives of bundles", map[string]string{"a.tar.gz": "x", "b.tar.zst": "y"}, "holds 2 bundles: a.tar.gz, b.tar.zst"},
		{"a bundle", map[string]string{"w/sql/rw_actors.csv": "id\n1\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader("x.tar", bytes.NewReader(tarOf(t, tc.files)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = notBundle(t, r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NotBundle = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NotBundle = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFormatErrorSaysWhatTheFileIs(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"b.tar.xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4}, "b.tar.xz: this file is xz (a .tar.xz?), not tar, tar.zst or tar.gz: unpack it and analyze the directory"},
		{"b.zip", []byte("PK\x03\x04\x14\x00\x00\x00"), "this file is zip, not tar"},
		{"b.7z", []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c, 0, 4}, "this file is 7z, not tar"},
		{"b.bz2", []byte("BZh91AY&SY"), "this file is bzip2 (a .tar.bz2?), not"},
		{"b.lz4", []byte{0x04, 0x22, 0x4d, 0x18, 0x64}, "this file is lz4 (a .tar.lz4?), not"},
		{"b.rar", []byte("Rar!\x1a\x07\x01\x00"), "this file is rar, not"},
		{"notes.txt", []byte("these are my notes about the incident"), `notes.txt: this file is text (it starts "these are my not"), not a directory, tar, tar.zst or tar.gz archive`},
		{"random", []byte{0x00, 0x01, 0x02, 0xff, 0x10, 0x11, 0x12, 0x13, 0x14}, "random: not a directory, tar, tar.zst or tar.gz archive (it starts with the bytes 00 01 02 ff 10 11 12 13)"},
		{"empty", nil, "empty: empty file: not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(tc.name, bytes.NewReader(tc.head), Options{})
			if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewReader = %v\nwant ErrUnknownFormat containing %q", err, tc.want)
			}
		})
	}
}
