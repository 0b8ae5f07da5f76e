package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// framedFiles is testFiles with a 12 MiB log in the middle, so that a bundle
// the Writer writes has several frames and the second lies wholly inside
// that log.
func framedFiles() []testFile {
	var b strings.Builder
	for i := 0; b.Len() < 12<<20; i++ {
		b.WriteString(hostileLogLine(i))
	}
	return append(testFiles(), testFile{path: "logs/risingwave-meta-0/meta.log", body: b.String(),
		class: Class{Kind: KindLog, Pod: "risingwave-meta-0", Container: "meta"}})
}

// frameStarts walks a zstd stream's frames by their headers and returns
// where each starts, and the first block's offset within it.
func frameStarts(t testing.TB, b []byte) (starts []int64) {
	t.Helper()
	in := &countingReader{r: bytes.NewReader(b)}
	for {
		at := in.count()
		_, f, stream, err := readFrame(in, nil, ^uint64(0))
		if err == io.EOF {
			return starts
		}
		if err != nil || stream || !f.hasSize {
			t.Fatalf("frame at %d: stream %v, size %v, %v", at, stream, f.hasSize, err)
		}
		starts = append(starts, at)
	}
}

// oneFrame rewrites a .tar.zst as a single frame without a content size, as
// `tar | zstd` writes it.
func oneFrame(t testing.TB, name string) string {
	t.Helper()
	src, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	zr, err := zstd.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dest := filepath.Join(filepath.Dir(name), "one-frame.tar.zst")
	out, err := os.Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := zstd.NewWriter(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(zw, zr); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dest
}

func TestMultiFrameReadsLikeOneFrame(t *testing.T) {
	files := framedFiles()
	multi := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd, Root: "rwdiag-prod"}, files)
	b := readFile(t, multi)
	if n := len(frameStarts(t, b)); n < 4 {
		t.Fatalf("the writer wrote %d frames, want one per 4 MiB (4 or more)", n)
	}
	if !parallelFrames(b[:512]) {
		t.Fatal("the writer's bundle does not go to the parallel reader")
	}
	single := oneFrame(t, multi)
	if parallelFrames(readFile(t, single)[:512]) {
		t.Fatal("a single frame without a content size goes to the parallel reader")
	}

	read := func(name string) ([]got, *Summary) {
		gots := drainAll(t, openFile(t, name))
		sum, err := Summarize(openFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		sum.Name = ""
		return gots, sum
	}
	gm, sm := read(multi)
	gs, ss := read(single)
	if len(gm) != len(files)+1 { // and manifest.json
		t.Errorf("read %d entries of the multi-frame bundle, want %d", len(gm), len(files)+1)
	}
	if !reflect.DeepEqual(gm, gs) {
		t.Errorf("the multi-frame bundle reads differently from the same tar in one frame")
	}
	for i, g := range gm {
		if g.ReadErr != nil || g.NextErr != nil {
			t.Errorf("entry %d %s: %v %v", i, g.Path, g.NextErr, g.ReadErr)
		}
	}
	want := map[string]string{}
	for _, f := range files {
		want[f.path] = f.body
	}
	for _, g := range gm {
		if body, ok := want[g.Path]; ok && string(g.Data) != body {
			t.Errorf("%s: read %d bytes that differ from the %d written", g.Path, len(g.Data), len(body))
		}
	}
	if !reflect.DeepEqual(sm, ss) {
		t.Errorf("Summarize differs:\nmulti  %+v\nsingle %+v", sm, ss)
	}

	// The system's zstd and tar read it as one .tar.zst.
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Log("no zstd command: the check with it is skipped")
		return
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `zstd -dc "$1" | tar -xf - -C "$2"`, "sh", multi, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zstd -dc | tar -x: %v: %s", err, out)
	}
	for _, f := range files {
		if got := readFile(t, filepath.Join(dir, "rwdiag-prod", f.path)); string(got) != f.body {
			t.Errorf("zstd -d | tar -x: %s differs", f.path)
		}
	}
}

func openFile(t *testing.T, name string) *Reader {
	t.Helper()
	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestMultiFrameDamage(t *testing.T) {
	files := framedFiles()
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, files)
	b := readFile(t, name)
	starts := frameStarts(t, b)
	// Spoil a byte a third of the way into the second frame, which holds
	// part of the 12 MiB meta.log.
	spoilAt := starts[1] + (starts[2]-starts[1])/3
	b[spoilAt] ^= 0x55
	bad := filepath.Join(t.TempDir(), "bad.tar.zst")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gots := drainAll(t, r)
	last := gots[len(gots)-1]
	de, ok := asError[*DamageError](errors.Join(last.NextErr, last.ReadErr))
	if !ok || de.Entry != "logs/risingwave-meta-0/meta.log" || de.Between || last.Path != de.Entry {
		t.Fatalf("reading a bundle with a damaged second frame ended with %+v, want damage in meta.log", last)
	}
	if de.Offset != starts[1] {
		t.Errorf("damage at byte %d, want the damaged frame's start, %d", de.Offset, starts[1])
	}
	if !strings.Contains(de.Error(), `in entry "logs/risingwave-meta-0/meta.log"`) {
		t.Errorf("message %q does not name the entry", de)
	}
	// What was handed out of the log before the damage is the log's start,
	// at least as far as the first frame reached.
	var body string
	for _, f := range files {
		if f.path == de.Entry {
			body = f.body
		}
	}
	if !strings.HasPrefix(body, string(last.Data)) || len(last.Data) < 1<<20 {
		t.Errorf("read %d bytes of meta.log before the damage, not a prefix of it or too few", len(last.Data))
	}
	// Every entry before it is whole.
	for _, g := range gots[:len(gots)-1] {
		if g.ReadErr != nil || g.NextErr != nil {
			t.Errorf("%s: %v %v", g.Path, g.NextErr, g.ReadErr)
		}
	}
}

// tarOfFiles is a tar stream of files, in order.
func tarOfFiles(t *testing.T, files []testFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.path, Size: int64(len(f.body)), Mode: 0o644, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, f.body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestMultiFrameWindowLimit(t *testing.T) {
	// A later frame with a small content size but an 8 MiB window (not
	// single-segment) is refused by a reader limited to 4 MiB, naming the
	// window; the frames before it are read.
	stream := tarOfFiles(t, framedFiles())
	small, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := zstd.NewWriter(nil, zstd.WithWindowSize(8<<20), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	cut := 2 << 20
	b := small.EncodeAll(stream[:cut], nil)
	b = wide.EncodeAll(stream[cut:cut+1<<20], b)
	b = small.EncodeAll(stream[cut+1<<20:], b)
	name := filepath.Join(t.TempDir(), "wide.tar.zst")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(name, Options{MaxZstdWindow: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gots := drainAll(t, r)
	last := gots[len(gots)-1]
	err = errors.Join(last.NextErr, last.ReadErr)
	if !errors.Is(err, zstd.ErrWindowSizeExceeded) || !Fatal(err) || !strings.Contains(err.Error(), "a window of 8 MiB, more than the 4 MiB") {
		t.Fatalf("reading ended with %v", err)
	}
	if len(gots) < 2 {
		t.Errorf("no entry was read before the wide frame")
	}
	// With the default limit every entry reads.
	r2, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	for _, g := range drainAll(t, r2) {
		if g.NextErr != nil || g.ReadErr != nil {
			t.Errorf("%s: %v %v", g.Path, g.NextErr, g.ReadErr)
		}
	}
}

func TestMultiFrameMemoryBounded(t *testing.T) {
	// Reading a 96 MiB multi-frame bundle holds a few frames, not the
	// bundle: the live heap, sampled as it is read, stays far below it.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var b strings.Builder
	for i := 0; b.Len() < 96<<20; i++ {
		fmt.Fprintf(&b, "2026-11-29T20:41:%02dZ INFO line %d of a long log\n", i/1000%60, i)
	}
	files := []testFile{{path: "logs/risingwave-compute-0/compute.log", body: b.String()}}
	name := writeBundle(t, t.TempDir(), WriterOptions{Format: FormatTarZstd}, files)
	b.Reset()
	files = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc

	r, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var peak uint64
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(e, 1<<20)
		var n int64
		for {
			m, err := br.Discard(1 << 20)
			n += int64(m)
			if err != nil {
				break
			}
			if n%(8<<20) == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
			}
		}
		if n != e.Size {
			t.Fatalf("read %d bytes of %d", n, e.Size)
		}
	}
	// 4 decoders, 5 queued frames, one being read and one being split, each
	// 4 MiB decoded and less compressed: well under 64 MiB.
	if peak == 0 || peak > 64<<20 {
		t.Errorf("live heap while reading went up to %d MiB over the start", peak>>20)
	}
	t.Logf("peak live heap over the start: %.1f MiB", float64(peak)/(1<<20))
}

// BenchmarkReadZstd reads a generated bundle of 256 MiB of logs written by
// the Writer (frames of 4 MiB, decoded on every core) and the same tar
// stream in one frame (the streaming decoder), reporting uncompressed MB/s.
func BenchmarkReadZstd(b *testing.B) {
	dir := b.TempDir()
	var files []testFile
	var total int64
	line := 0
	for i := range 32 {
		var sb strings.Builder
		for sb.Len() < 8<<20 {
			sb.WriteString(hostileLogLine(line))
			line++
		}
		total += int64(sb.Len())
		files = append(files, testFile{path: fmt.Sprintf("logs/risingwave-compute-%d/compute.log", i), body: sb.String()})
	}
	w, err := NewWriter(filepath.Join(dir, "frames.tar.zst"), WriterOptions{Format: FormatTarZstd})
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if err := w.WriteFile(f.path, "bench", []byte(f.body)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	files = nil
	multi := filepath.Join(dir, "frames.tar.zst")
	single := oneFrame(b, multi)
	for _, f := range []string{single, multi} {
		if fi, err := os.Stat(f); err == nil {
			b.Logf("%s: %d bytes of tar.zst for %d of logs", filepath.Base(f), fi.Size(), total)
		}
	}
	for _, c := range []struct{ name, file string }{{"one-frame", single}, {"frames", multi}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(total)
			for b.Loop() {
				r, err := Open(c.file, Options{})
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for {
					e, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					m, err := io.Copy(io.Discard, e)
					if err != nil {
						b.Fatal(err)
					}
					n += m
				}
				r.Close()
				if n < total { // the logs and manifest.json
					b.Fatalf("read %d bytes, want %d", n, total)
				}
			}
		})
	}
}

func TestMultiFrameMixedStreams(t *testing.T) {
	// Frames the parallel reader takes, then a frame with no content size
	// (the streaming decoder's from there on), and skippable frames before
	// and between (pzstd writes one before each frame): every entry reads.
	files := framedFiles()
	stream := tarOfFiles(t, files)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'r', 'w', 'd'}
	b := append([]byte{}, skippable...)
	b = enc.EncodeAll(stream[:3<<20], b)
	b = append(b, skippable...)
	b = enc.EncodeAll(stream[3<<20:6<<20], b)
	var tail bytes.Buffer
	zw, err := zstd.NewWriter(&tail)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(stream[6<<20:])
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b = append(b, tail.Bytes()...)
	if !parallelFrames(b[:512]) {
		t.Fatal("a stream starting with a skippable frame does not go to the parallel reader")
	}
	name := filepath.Join(t.TempDir(), "mixed.tar.zst")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	gots := drainAll(t, openFile(t, name))
	if len(gots) != len(files) {
		t.Fatalf("read %d entries, want %d", len(gots), len(files))
	}
	for i, g := range gots {
		if g.NextErr != nil || g.ReadErr != nil || g.Path != files[i].path || string(g.Data) != files[i].body {
			t.Errorf("entry %d %s: %v %v, %d bytes; want %s, %d bytes", i, g.Path, g.NextErr, g.ReadErr, len(g.Data), files[i].path, len(files[i].body))
		}
	}
	// Cut in the streaming part: damage in the entry being read there.
	cut := filepath.Join(t.TempDir(), "cut.tar.zst")
	if err := os.WriteFile(cut, b[:len(b)-len(tail.Bytes())/2], 0o644); err != nil {
		t.Fatal(err)
	}
	gots = drainAll(t, openFile(t, cut))
	last := gots[len(gots)-1]
	if de, ok := asError[*DamageError](errors.Join(last.NextErr, last.ReadErr)); !ok || de.Entry != "logs/risingwave-meta-0/meta.log" {
		t.Errorf("a cut in the streaming part ended with %+v", last)
	}
}

// FuzzReaderFrames is FuzzReader seeded with streams the parallel reader
// takes: frames with content sizes, a skippable frame, a frame without one.
func FuzzReaderFrames(f *testing.F) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for i, body := range []string{"manifest", strings.Repeat("2026-11-29T20:43:00Z INFO x\n", 100), "a,b\n1,2\n"} {
		name := []string{"manifest.json", "logs/p/c.log", "sql/t.csv"}[i]
		tw.WriteHeader(&tar.Header{Name: name, Size: int64(len(body)), Mode: 0o644, Typeflag: tar.TypeReg})
		io.WriteString(tw, body)
	}
	tw.Close()
	stream := tb.Bytes()
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	two := enc.EncodeAll(stream[:1000], nil)
	two = enc.EncodeAll(stream[1000:], two)
	f.Add(two)
	f.Add(append([]byte{0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 'x'}, two...))
	var rest bytes.Buffer
	zw, _ := zstd.NewWriter(&rest)
	zw.Write(stream[1000:])
	zw.Close()
	f.Add(append(enc.EncodeAll(stream[:1000], nil), rest.Bytes()...))
	f.Fuzz(fuzzReaderOnce)
}
