package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// FuzzReader feeds arbitrary bytes to NewReader and drains every entry with
// small limits. The seed corpus in testdata/fuzz/FuzzReader holds small valid
// tar, tar.zst and tar.gz bundles and hostile ones; testdata/gen.go writes it.
func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("not a bundle"))
	f.Fuzz(fuzzReaderOnce)
}

func fuzzReaderOnce(t *testing.T, data []byte) {
	opts := Options{MaxEntryBytes: 64 << 10, MaxTotalBytes: 1 << 20, MaxZstdWindow: 1 << 20}
	r, err := NewReader("fuzz", bytes.NewReader(data), opts)
	if err != nil {
		if r != nil {
			t.Fatalf("NewReader returned a reader and an error: %v", err)
		}
		return
	}
	defer r.Close()
	buf := make([]byte, 8<<10)
	seen := map[string]bool{} // no path is handed out twice
	// Every Next consumes at least one 512-byte tar block of the
	// decompressed stream, which the total limit bounds.
	for range opts.MaxTotalBytes/512 + 2 {
		e, err := r.Next()
		if err == io.EOF {
			if _, again := r.Next(); again != io.EOF {
				t.Fatalf("Next after io.EOF = %v", again)
			}
			return
		}
		if err != nil {
			if e != nil {
				t.Fatalf("Next returned an entry and an error: %v", err)
			}
			checkError(t, err)
			if Fatal(err) {
				checkRepeats(t, r, err)
				return
			}
			continue
		}
		checkPath(t, e.Path)
		if seen[e.Path] {
			t.Fatalf("entry %q handed out twice", e.Path)
		}
		seen[e.Path] = true
		var n int64
		for {
			k, err := e.Read(buf)
			n += int64(k)
			if n > opts.MaxEntryBytes {
				t.Fatalf("entry %q gave %d bytes, past the limit of %d", e.Path, n, opts.MaxEntryBytes)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				checkError(t, err)
				if Fatal(err) {
					checkRepeats(t, r, err)
					return
				}
				break
			}
		}
	}
	t.Fatal("reader never ended")
}

func checkPath(t *testing.T, p string) {
	t.Helper()
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		t.Fatalf("unclean path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || part == "" {
			t.Fatalf("unclean path %q", p)
		}
	}
}

// checkError checks an error is one of the documented kinds.
func checkError(t *testing.T, err error) {
	t.Helper()
	var (
		ue *UnsafeEntryError
		le *LimitError
		de *DamageError
		du *DuplicateEntryError
		te *TrailingDataError
	)
	switch {
	case errors.As(err, &ue):
		if Fatal(err) || ue.Reason == "" {
			t.Fatalf("unsafe entry error %v: fatal %v", err, Fatal(err))
		}
	case errors.As(err, &te):
		if Fatal(err) || te.Data < 0 && !te.More && te.Err == nil {
			t.Fatalf("trailing data error %v: fatal %v, says nothing", err, Fatal(err))
		}
	case errors.As(err, &du):
		if Fatal(err) || du.Path == "" {
			t.Fatalf("duplicate entry error %v: fatal %v", err, Fatal(err))
		}
	case errors.As(err, &le):
		if Fatal(err) != le.Total {
			t.Fatalf("limit error %v: fatal %v", err, Fatal(err))
		}
	case errors.As(err, &de):
		if !Fatal(err) || de.Err == nil {
			t.Fatalf("damage error %v: fatal %v", err, Fatal(err))
		}
	default:
		t.Fatalf("undocumented error %T: %v", err, err)
	}
}

// checkRepeats checks that after a fatal error every Next returns it again.
func checkRepeats(t *testing.T, r *Reader, err error) {
	t.Helper()
	for range 3 {
		e, again := r.Next()
		if e != nil || again != err {
			t.Fatalf("Next after fatal %v = %v, %v; want the same error", err, e, again)
		}
	}
}

// TestFuzzSeedsAreValid keeps the valid seeds meaningful: if they stopped
// reading as bundles the fuzzer would start from nothing.
func TestFuzzSeedsAreValid(t *testing.T) {
	for _, name := range []string{"valid-tar", "valid-tar-zst", "valid-tar-gz", "valid-wrapped-tar"} {
		b := readFile(t, "testdata/fuzz/FuzzReader/"+name)
		_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "\n[]byte(")
		if !ok || !strings.HasSuffix(lit, ")") {
			t.Fatalf("%s: not a fuzz corpus file", name)
		}
		data, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := NewReader(name, strings.NewReader(data), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var paths []string
		for _, g := range drainAll(t, r) {
			if g.NextErr != nil || g.ReadErr != nil {
				t.Errorf("%s: %v %v", name, g.NextErr, g.ReadErr)
			}
			paths = append(paths, g.Path)
		}
		if want := "[manifest.json kubernetes/pods.json logs/p/c.log metrics/p/1796000000000.prom]"; fmt.Sprint(paths) != want {
			t.Errorf("%s: paths %v, want %s", name, paths, want)
		}
	}
}
