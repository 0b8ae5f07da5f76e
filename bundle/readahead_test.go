package bundle

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"testing/iotest"
	"time"
)

// A read-ahead reader hands out the source's bytes in order, then its
// error, whatever the sizes of the reads.
func TestReadAhead(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boom := errors.New("boom")
	for _, n := range []int{0, 1, readAheadBytes - 1, readAheadBytes, readAheadBytes + 1, 7*readAheadBytes + 12345} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		for _, fail := range []bool{false, true} {
			var src io.Reader = iotest.HalfReader(bytes.NewReader(data))
			want := io.EOF
			if fail {
				src, want = io.MultiReader(src, iotest.ErrReader(boom)), boom
			}
			ra := newReadAhead(src)
			got, err := io.ReadAll(iotest.HalfReader(ra))
			if !bytes.Equal(got, data) {
				t.Errorf("%d bytes, fail %v: read %d bytes, not the source's", n, fail, len(got))
			}
			if want == io.EOF && err != nil || want != io.EOF && !errors.Is(err, want) {
				t.Errorf("%d bytes, fail %v: error %v, want %v", n, fail, err, want)
			}
			if _, err := ra.Read(make([]byte, 1)); want == io.EOF && err != io.EOF || want != io.EOF && !errors.Is(err, want) {
				t.Errorf("%d bytes, fail %v: read after the end: %v", n, fail, err)
			}
			ra.Close()
		}
	}
}

// Closing stops the goroutine though nobody reads, and a read after Close
// fails rather than blocks.
func TestReadAheadClose(t *testing.T) {
	ra := newReadAhead(neverEnding{})
	buf := make([]byte, 100)
	if _, err := io.ReadFull(ra, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		ra.Close()
		ra.Close() // twice is fine
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	for {
		// What was read ahead may still come out; then the error.
		if _, err := ra.Read(buf); err != nil {
			if !errors.Is(err, errReadAheadClosed) {
				t.Errorf("read after Close: %v", err)
			}
			break
		}
	}
}

type neverEnding struct{}

func (neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A bundle file is read ahead of its decompressor (fileReadAhead): closing
// the bundle before its end stops that goroutine too, and a bundle that is
// not a regular file (a named pipe, whose reads may block) is read without
// it, to the same entries.
func TestOpenReadsFileAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, 8*fileReadAheadBytes*fileReadAheadChunks)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	archive := tarOf(t, map[string]string{"logs/a.log": string(big), "logs/b.log": "tail\n"})
	dir := t.TempDir()
	file := filepath.Join(dir, "b.tar")
	if err := os.WriteFile(file, archive, 0o644); err != nil {
		t.Fatal(err)
	}

	before := runtime.NumGoroutine()
	r, err := Open(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	for err == nil && e.Path != "logs/a.log" {
		e, err = r.Next()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(e, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine(); n <= before {
		t.Errorf("%d goroutines while reading, %d before: the file is not read ahead", n, before)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before: the read-ahead goes on", n, before)
	}

	fifo := filepath.Join(dir, "b.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(archive)
		f.Close()
	}()
	r, err = Open(fifo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, g := range drainAll(t, r) {
		if g.NextErr != nil || g.ReadErr != nil {
			t.Fatalf("from a named pipe: %+v", g)
		}
		if g.Path == "logs/a.log" && !bytes.Equal(g.Data, big) {
			t.Errorf("%s from a named pipe: %d bytes, not what was written", g.Path, len(g.Data))
		}
		names = append(names, g.Path)
	}
	if len(names) != 2 {
		t.Errorf("from a named pipe: entries %q, want both", names)
	}
}
