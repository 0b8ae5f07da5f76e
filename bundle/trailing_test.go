package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// How an archive ends: its end-of-archive marker and padding, data after
// it, bytes after the compressed stream, or no marker at all.

// trailingTar is a small bundle's tar stream: three entries, the
// end-of-archive marker, and tar's padding to its 10 KiB record.
func trailingTar(t *testing.T, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, name := range names {
		body := strings.Repeat(fmt.Sprintf("2026-12-02T01:00:%02d.000000Z  INFO risingwave_meta: line %d\n", i, i), 40+i)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if pad := buf.Len() % 10240; pad != 0 {
		buf.Write(make([]byte, 10240-pad)) // as GNU tar does
	}
	return buf.Bytes()
}

var trailingNames = []string{"logs/meta-0/meta.log", "logs/compute-0/compute.log", "logs/compute-1/compute.log"}

// compressAs compresses a tar stream as format: "tar" (as it is), "gz",
// "zst" (one frame, as `tar | zstd` writes it) or "frames" (rwdiag's
// writer).
func compressAs(t *testing.T, format string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch format {
	case "tar":
		return b
	case "gz":
		w = gzip.NewWriter(&buf)
	case "zst":
		w, err = zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	case "frames":
		w, err = NewFramedZstdWriter(&buf)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readEnd reads every entry of an archive and returns their paths and the
// errors Next returned on the way (none of them fatal but the last).
func readEnd(t *testing.T, archive []byte) (paths []string, errs []error) {
	t.Helper()
	r, err := NewReader("b.tar.x", bytes.NewReader(archive), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, g := range drainAll(t, r) {
		switch {
		case g.NextErr != nil:
			errs = append(errs, g.NextErr)
		case g.ReadErr != nil:
			t.Fatalf("%s: %v", g.Path, g.ReadErr)
		default:
			paths = append(paths, g.Path)
		}
	}
	if e, err := r.Next(); e != nil || (err != io.EOF && !Fatal(err)) {
		t.Fatalf("Next after the end = %v, %v; want io.EOF or the fatal error again", e, err)
	}
	return paths, errs
}

// oneTrailing reads archive b to its end and returns the one error it
// must give, a non-fatal *TrailingDataError, after every entry of
// trailingNames.
func oneTrailing(t *testing.T, b []byte) *TrailingDataError {
	t.Helper()
	paths, errs := readEnd(t, b)
	if strings.Join(paths, " ") != strings.Join(trailingNames, " ") {
		t.Fatalf("read %v; want every entry before the trailing data", paths)
	}
	if len(errs) != 1 {
		t.Fatalf("errors %v; want one *TrailingDataError", errs)
	}
	te, ok := asError[*TrailingDataError](errs[0])
	if !ok || Fatal(te) {
		t.Fatalf("error %T %v; want a *TrailingDataError, not fatal", errs[0], errs[0])
	}
	return te
}

func TestArchiveEndsCleanly(t *testing.T) {
	for _, format := range []string{"tar", "gz", "zst", "frames"} {
		t.Run(format, func(t *testing.T) {
			a := compressAs(t, format, trailingTar(t, trailingNames...))
			for _, tail := range []int{0, 1, 7, 4096, 100 << 10} {
				if format == "tar" && tail > 0 {
					continue // a tar's own padding is covered by its 10 KiB record
				}
				// Zeros after the compressed stream: a tape's or dd's padding.
				b := append(append([]byte(nil), a...), make([]byte, tail)...)
				paths, errs := readEnd(t, b)
				if len(errs) > 0 || strings.Join(paths, " ") != strings.Join(trailingNames, " ") {
					t.Errorf("%d zero bytes after it: read %v, errors %v; want every entry and no error", tail, paths, errs)
				}
			}
		})
	}
}

func TestJunkAfterCompressedStream(t *testing.T) {
	for _, format := range []string{"gz", "zst", "frames"} {
		for _, junk := range []string{"x", "PK\x03\x04 some zip", "\x00\x00\x00\x00garbage after zeros"} {
			t.Run(fmt.Sprintf("%s/%q", format, junk[:min(2, len(junk))]), func(t *testing.T) {
				a := compressAs(t, format, trailingTar(t, trailingNames...))
				te := oneTrailing(t, append(append([]byte(nil), a...), junk...))
				je, ok := asError[*JunkError](te)
				if !ok {
					t.Fatalf("%v: want a *JunkError inside", te)
				}
				if je.Offset != int64(len(a)) {
					t.Errorf("junk at byte %d; want %d, where the compressed stream ends", je.Offset, len(a))
				}
				unit := map[string]string{"gz": "gzip", "zst": "zstd", "frames": "zstd"}[format]
				msg := te.Error()
				for _, want := range []string{"b.tar.x: after the last entry: ", fmt.Sprintf("from byte %d of the file", len(a)), "are not " + unit + " data"} {
					if !strings.Contains(msg, want) {
						t.Errorf("message %q lacks %q", msg, want)
					}
				}
			})
		}
	}
}

func TestArchiveAppendedAfterEndMarker(t *testing.T) {
	first := trailingTar(t, trailingNames...)
	second := trailingTar(t, "logs/frontend-0/frontend.log")
	for _, format := range []string{"tar", "gz", "zst", "frames"} {
		t.Run(format, func(t *testing.T) {
			// cat a.tar b.tar | zstd: the second archive is inside the
			// compressed stream, after the first's marker and padding.
			te := oneTrailing(t, compressAs(t, format, append(append([]byte(nil), first...), second...)))
			if te.Data != int64(len(first)) || te.More || te.Err != nil {
				t.Errorf("data at %d (more %v, err %v); want at %d, where the second archive starts", te.Data, te.More, te.Err, len(first))
			}
			if want := fmt.Sprintf("%d bytes of data follow the tar archive's end-of-archive marker (from byte %d", len(second), len(first)); !strings.Contains(te.Error(), want) {
				t.Errorf("message %q lacks %q", te.Error(), want)
			}
		})
	}
}

func TestLongTailAfterEndMarkerIsBounded(t *testing.T) {
	first := trailingTar(t, trailingNames...)
	tail := bytes.Repeat([]byte("not a tar header "), (maxTrailingBytes/17)*3)
	te := oneTrailing(t, compressAs(t, "zst", append(append([]byte(nil), first...), tail...)))
	if !te.More || te.Bytes != maxTrailingBytes || te.Data != int64(len(first)) {
		t.Fatalf("%#v; want More, %d bytes looked at, data at %d", te, maxTrailingBytes, len(first))
	}
	if !strings.Contains(te.Error(), "more than ") {
		t.Errorf("message %q does not say more follows", te.Error())
	}
}

func TestArchiveCutBetweenEntries(t *testing.T) {
	full := trailingTar(t, trailingNames...)
	// Where the third entry's header starts: the tar stream cut there ends
	// cleanly for archive/tar, between two entries.
	tr := tar.NewReader(bytes.NewReader(full))
	var cut int64
	for i := 0; i < 2; i++ {
		h, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		cut += 512 + (h.Size+511)/512*512
	}
	for _, format := range []string{"tar", "gz", "zst", "frames"} {
		t.Run(format, func(t *testing.T) {
			paths, errs := readEnd(t, compressAs(t, format, full[:cut]))
			if strings.Join(paths, " ") != strings.Join(trailingNames[:2], " ") {
				t.Fatalf("read %v; want the two entries before the cut", paths)
			}
			if len(errs) != 1 {
				t.Fatalf("errors %v; want one *DamageError", errs)
			}
			de, ok := asError[*DamageError](errs[0])
			if !ok || !Fatal(de) || !errors.Is(de, errNoEndMarker) {
				t.Fatalf("error %T %v; want a fatal *DamageError saying the marker is missing", errs[0], errs[0])
			}
			if de.Entry != trailingNames[1] || !de.Between || de.Decompressed != cut {
				t.Errorf("damage after %q (between %v) at %d decompressed; want after %q, at %d", de.Entry, de.Between, de.Decompressed, trailingNames[1], cut)
			}
		})
	}
}

// A lone zero block ends an archive too, as archive/tar and GNU tar (with a
// warning) read it.
func TestLoneZeroBlockEndsArchive(t *testing.T) {
	full := trailingTar(t, trailingNames...)
	tr := tar.NewReader(bytes.NewReader(full))
	var end int64
	for range trailingNames {
		h, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		end += 512 + (h.Size+511)/512*512
	}
	paths, errs := readEnd(t, full[:end+512])
	if len(errs) > 0 || len(paths) != len(trailingNames) {
		t.Fatalf("read %v, errors %v; want every entry and no error", paths, errs)
	}
}

// An empty stream has no end-of-archive marker either, but it is no cut
// archive: it has no entries, and NotBundle says the bundle is empty.
// (rwdiag's writer writes no frame for no content: an empty file.)
func TestEmptyStreamIsNotDamage(t *testing.T) {
	for _, format := range []string{"gz", "zst"} {
		paths, errs := readEnd(t, compressAs(t, format, nil))
		if len(paths) > 0 || len(errs) > 0 {
			t.Errorf("%s: read %v, errors %v; want nothing", format, paths, errs)
		}
	}
}

// A cut right after an entry whose content ends in zero blocks is still a
// cut: the marker is told from the entry's own zeros by where the entry's
// data ends, not by the zeros.
func TestCutAfterZerosInContent(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := append([]byte("a log that ends in zero blocks\n"), make([]byte, 2048)...)
	for _, name := range []string{"logs/a/a.log", "logs/b/b.log"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		if name == "logs/a/a.log" {
			cut := buf.Len() // after the first entry's padded data
			for _, format := range []string{"tar", "zst"} {
				data := compressAs(t, format, append([]byte(nil), buf.Bytes()[:cut]...))
				_, errs := readEnd(t, data)
				if len(errs) != 1 || !errors.Is(errs[0], errNoEndMarker) {
					t.Errorf("%s cut after %q: errors %v; want the missing marker", format, name, errs)
				}
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	paths, errs := readEnd(t, buf.Bytes())
	if len(paths) != 2 || len(errs) > 0 {
		t.Errorf("whole: read %v, errors %v; want both entries and no error", paths, errs)
	}
}
