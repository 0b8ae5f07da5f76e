package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The hostile archives in testdata are written by testdata/gen.go
// (go run ./testdata/gen.go). These mirror its good entries and logs.
const (
	goodFirstPath     = "kubernetes/pods.json"
	goodFirstBody     = `{"apiVersion":"v1","kind":"List","items":[]}` + "\n"
	goodLastPath      = "sql/rw_worker_nodes.csv"
	goodLastBody      = "id,host,type\n1,compute-0,WORKER_TYPE_COMPUTE_NODE\n"
	truncatedLogPath  = "logs/risingwave-compute-0/compute.log"
	truncatedLogLines = 4000
	longLinePath      = "logs/risingwave-compute-0/compute.log"
	bombPath          = "logs/bomb/compute.log"
)

func hostileLogLine(i int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "line %d", i)
	return fmt.Sprintf("2026-11-29T20:41:%02d.%06dZ  INFO risingwave_stream::task::barrier_manager: collected barrier epoch=%d seq=%d digest=%016x\n",
		i/1000%60, i%1000*997, 7000000000+int64(i)*65536, i, h.Sum64())
}

func truncatedLog() []byte {
	var b bytes.Buffer
	for i := range truncatedLogLines {
		b.WriteString(hostileLogLine(i))
	}
	return b.Bytes()
}

func TestHostileUnsafeEntries(t *testing.T) {
	type refusal struct{ path, reason string }
	tests := []struct {
		file    string
		refused []refusal
		// passed are the entries handed out besides the two good ones,
		// between them.
		passed []string
	}{
		{"traversal.tar", []refusal{{"../evil", `".." path component`}, {"logs/../../evil", `".." path component`}}, nil},
		{"absolute.tar", []refusal{{"/etc/evil", "absolute path"}}, nil},
		// The file "through" the refused link is an ordinary file named
		// logs/link/evil, and extracts as one, inside the target.
		{"symlink.tar", []refusal{{"logs/link", "symbolic link"}}, []string{"logs/link/evil"}},
		{"hardlink.tar", []refusal{{"logs/passwd", "hard link"}}, nil},
		{"device.tar", []refusal{{"logs/null", "device file"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			gots := drainAll(t, openTestdata(t, tt.file, Options{}))
			var paths []string
			var refused []refusal
			for _, g := range gots {
				if g.NextErr != nil {
					ue, ok := asError[*UnsafeEntryError](g.NextErr)
					if !ok {
						t.Fatalf("Next: %v (%T), want *UnsafeEntryError", g.NextErr, g.NextErr)
					}
					if Fatal(g.NextErr) {
						t.Errorf("Fatal(%v) = true, want false", g.NextErr)
					}
					refused = append(refused, refusal{ue.Path, ue.Reason})
					continue
				}
				if g.ReadErr != nil {
					t.Errorf("read %s: %v", g.Path, g.ReadErr)
				}
				paths = append(paths, g.Path)
			}
			wantPaths := append(append([]string{goodFirstPath}, tt.passed...), goodLastPath)
			if fmt.Sprint(paths) != fmt.Sprint(wantPaths) {
				t.Errorf("entries handed out = %q, want %q", paths, wantPaths)
			}
			if len(refused) != len(tt.refused) {
				t.Fatalf("refused = %q, want %q", refused, tt.refused)
			}
			for i, r := range refused {
				if r.path != tt.refused[i].path || !strings.Contains(r.reason, tt.refused[i].reason) {
					t.Errorf("refusal %d = %q (%s), want %q (%s)", i, r.path, r.reason, tt.refused[i].path, tt.refused[i].reason)
				}
			}
			checkGoodEntries(t, gots, true)

			target, files, problems, err := extractContained(t, openTestdata(t, tt.file, Options{}))
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if files != len(wantPaths) || len(problems) != len(tt.refused) {
				t.Errorf("Extract = %d files, problems %v; want %d files, %d problems", files, problems, len(wantPaths), len(tt.refused))
			}
			for _, p := range problems {
				if _, ok := asError[*UnsafeEntryError](p); !ok {
					t.Errorf("problem %v (%T), want *UnsafeEntryError", p, p)
				}
			}
			if got := filesUnder(t, target); fmt.Sprint(got) != fmt.Sprint(wantPaths) {
				t.Errorf("extracted %q, want %q", got, wantPaths)
			}
			if got := readFile(t, filepath.Join(target, goodFirstPath)); string(got) != goodFirstBody {
				t.Errorf("extracted %s = %q, want %q", goodFirstPath, got, goodFirstBody)
			}
		})
	}
}

// checkGoodEntries checks that the good first entry was handed out first and
// intact, and, when wantLast, that the good last entry was too.
func checkGoodEntries(t *testing.T, gots []got, wantLast bool) {
	t.Helper()
	if len(gots) == 0 || gots[0].Path != goodFirstPath || string(gots[0].Data) != goodFirstBody || gots[0].ReadErr != nil {
		t.Errorf("first entry = %+v, want %s intact", first(gots), goodFirstPath)
	}
	if !wantLast {
		return
	}
	last := gots[len(gots)-1]
	if last.Path != goodLastPath || string(last.Data) != goodLastBody || last.ReadErr != nil {
		t.Errorf("last entry = %+v, want %s intact", last, goodLastPath)
	}
}

func first(gots []got) any {
	if len(gots) == 0 {
		return "none"
	}
	return gots[0]
}

func TestHostileTruncated(t *testing.T) {
	wantLog := truncatedLog()
	for _, file := range []string{"truncated.tar.zst", "truncated.tar.gz"} {
		t.Run(file, func(t *testing.T) {
			r := openTestdata(t, file, Options{})
			gots := drainAll(t, r)
			if len(gots) != 2 {
				t.Fatalf("got %d results, want the good entry and the damaged log: %+v", len(gots), gots)
			}
			checkGoodEntries(t, gots, false)
			g := gots[1]
			if g.Path != truncatedLogPath {
				t.Fatalf("second entry = %q, want %q", g.Path, truncatedLogPath)
			}
			de, ok := asError[*DamageError](g.ReadErr)
			if !ok {
				t.Fatalf("read %s: %v (%T), want *DamageError", g.Path, g.ReadErr, g.ReadErr)
			}
			if de.Entry != truncatedLogPath || de.Between || de.Offset <= 0 || de.Archive != filepath.Join("testdata", file) {
				t.Errorf("DamageError = %+v, want entry %q, not between, offset > 0", de, truncatedLogPath)
			}
			if len(g.Data) == 0 || !isPrefix(g.Data, wantLog) || len(g.Data) == len(wantLog) {
				t.Errorf("handed out %d bytes of the damaged log; want a non-empty strict prefix of its %d bytes", len(g.Data), len(wantLog))
			}
			// The damage is sticky.
			for range 2 {
				if _, err := r.Next(); err != g.ReadErr {
					t.Errorf("Next after damage = %v, want the same %v", err, g.ReadErr)
				}
			}

			target, files, problems, err := extractContained(t, openTestdata(t, file, Options{}))
			if _, ok := asError[*DamageError](err); !ok || len(problems) != 0 || files != 2 {
				t.Fatalf("Extract = %d, %v, %v; want 2 files and a *DamageError", files, problems, err)
			}
			if got := readFile(t, filepath.Join(target, goodFirstPath)); string(got) != goodFirstBody {
				t.Errorf("extracted %s = %q", goodFirstPath, got)
			}
			if got := readFile(t, filepath.Join(target, truncatedLogPath)); !bytes.Equal(got, g.Data) {
				t.Errorf("extracted %s holds %d bytes, want the %d read before the damage", truncatedLogPath, len(got), len(g.Data))
			}
		})
	}
}

func TestHostileBombCommittedSmall(t *testing.T) {
	fi, err := os.Stat(filepath.Join("testdata", "bomb.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 200<<10 {
		t.Errorf("testdata/bomb.tar.zst is %d bytes, want < 200 KiB", fi.Size())
	}
}

// readCounting reads e to its end or first error and returns how many bytes
// it gave and whether they were all zero.
func readCounting(e *Entry) (n int64, allZero bool, err error) {
	buf := make([]byte, 256<<10)
	allZero = true
	for {
		k, err := e.Read(buf)
		n += int64(k)
		if allZero && bytes.ContainsFunc(buf[:k], func(r rune) bool { return r != 0 }) {
			allZero = false
		}
		if err == io.EOF {
			return n, allZero, nil
		}
		if err != nil {
			return n, allZero, err
		}
	}
}

func TestHostileBombEntryLimit(t *testing.T) {
	const limit = 64 << 20
	r := openTestdata(t, "bomb.tar.zst", Options{MaxEntryBytes: limit})
	e, err := r.Next()
	if err != nil || e.Path != goodFirstPath {
		t.Fatalf("Next = %v, %v; want %s", e, err, goodFirstPath)
	}
	if e, err = r.Next(); err != nil || e.Path != bombPath {
		t.Fatalf("Next = %v, %v; want %s", e, err, bombPath)
	}
	n, zero, err := readCounting(e)
	le, ok := asError[*LimitError](err)
	if !ok || le.Total || le.Limit != limit || le.Path != bombPath {
		t.Fatalf("read bomb: %v (%T), want a per-entry *LimitError for %s", err, err, bombPath)
	}
	if Fatal(err) {
		t.Error("a per-entry limit error is fatal")
	}
	if n != limit || !zero {
		t.Errorf("read %d bytes (all zero: %v) before the limit, want %d zeros", n, zero, limit)
	}
	if _, err := e.Read(make([]byte, 10)); err != le {
		t.Errorf("Read after the limit = %v, want the same error again", err)
	}
	e, err = r.Next()
	if err != nil || e.Path != goodLastPath {
		t.Fatalf("Next after the bomb = %v, %v; want %s", e, err, goodLastPath)
	}
	if b, err := io.ReadAll(e); err != nil || string(b) != goodLastBody {
		t.Errorf("read %s = %q, %v", goodLastPath, b, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next at the end = %v, want io.EOF", err)
	}
}

func TestHostileBombTotalLimit(t *testing.T) {
	const limit = 64 << 20
	for _, readBomb := range []bool{true, false} {
		t.Run(fmt.Sprintf("read=%v", readBomb), func(t *testing.T) {
			r := openTestdata(t, "bomb.tar.zst", Options{MaxTotalBytes: limit})
			if e, err := r.Next(); err != nil || e.Path != goodFirstPath {
				t.Fatalf("Next = %v, %v; want %s", e, err, goodFirstPath)
			}
			e, err := r.Next()
			if err != nil || e.Path != bombPath {
				t.Fatalf("Next = %v, %v; want %s", e, err, bombPath)
			}
			if readBomb {
				n, _, err := readCounting(e)
				if le, ok := asError[*LimitError](err); !ok || !le.Total || le.Limit != limit {
					t.Fatalf("read bomb: %v (%T), want a total *LimitError", err, err)
				}
				if n > limit {
					t.Errorf("read %d bytes, past the total limit of %d", n, limit)
				}
			}
			_, err = r.Next()
			le, ok := asError[*LimitError](err)
			if !ok || !le.Total || le.Limit != limit || le.Path != bombPath {
				t.Fatalf("Next = %v (%T), want a total *LimitError naming %s", err, err, bombPath)
			}
			if !Fatal(err) {
				t.Error("the total limit error is not fatal")
			}
			if _, again := r.Next(); again != err {
				t.Errorf("Next again = %v, want the same %v", again, err)
			}
		})
	}
}

func TestHostileBombExtract(t *testing.T) {
	const limit = 1 << 20
	target, files, problems, err := extractContained(t, openTestdata(t, "bomb.tar.zst", Options{MaxEntryBytes: limit}))
	if err != nil || files != 3 || len(problems) != 1 {
		t.Fatalf("Extract = %d files, %v, %v; want 3 files and one problem", files, problems, err)
	}
	if le, ok := asError[*LimitError](problems[0]); !ok || le.Total {
		t.Errorf("problem %v, want a per-entry *LimitError", problems[0])
	}
	fi, err := os.Stat(filepath.Join(target, bombPath))
	if err != nil || fi.Size() != limit {
		t.Errorf("extracted bomb: %v, %v; want the first %d bytes kept", fi, err, limit)
	}
	if got := readFile(t, filepath.Join(target, goodLastPath)); string(got) != goodLastBody {
		t.Errorf("extracted %s = %q", goodLastPath, got)
	}

	_, files, _, err = extractContained(t, openTestdata(t, "bomb.tar.zst", Options{MaxTotalBytes: limit}))
	if le, ok := asError[*LimitError](err); !ok || !le.Total || files != 2 {
		t.Errorf("Extract with a total limit = %d files, %v; want 2 files and a total *LimitError", files, err)
	}
}

func TestHostileWrongMagic(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.tar")
	text := filepath.Join(dir, "notes.tar.zst")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte("this is not an archive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"testdata/notabundle.png", "testdata/notabundle.zip", empty, text} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			r, err := Open(name, Options{})
			if !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("Open = %v, %v; want ErrUnknownFormat", r, err)
			}
			if err != nil && !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name the file", err)
			}
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := NewReader(name, f, Options{}); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("NewReader: %v, want ErrUnknownFormat", err)
			}
		})
	}
}

func TestHostileLongLine(t *testing.T) {
	const limit = 1 << 20
	r := openTestdata(t, "longline.tar.zst", Options{})
	if e, err := r.Next(); err != nil || e.Path != goodFirstPath {
		t.Fatalf("Next = %v, %v; want %s", e, err, goodFirstPath)
	}
	e, err := r.Next()
	if err != nil || e.Path != longLinePath {
		t.Fatalf("Next = %v, %v; want %s", e, err, longLinePath)
	}
	lr := NewLineReader(e, limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, n, cut, err := lr.Next()
	if err != nil || n != 1 || !cut || len(line) != limit {
		t.Fatalf("first line: %d bytes, number %d, cut %v, %v; want %d bytes, 1, cut", len(line), n, cut, err, limit)
	}
	if want := bytes.Repeat([]byte("0123456789abcdef"), limit/16); !bytes.Equal(line, want) {
		t.Error("the cut line is not the first MiB of the long line")
	}
	line, n, cut, err = lr.Next()
	if err != nil || n != 2 || cut || !strings.HasSuffix(string(line), "after the long line") {
		t.Errorf("second line: %q, number %d, cut %v, %v", line, n, cut, err)
	}
	runtime.ReadMemStats(&after)
	if _, _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("Next at the end = %v, want io.EOF", err)
	}
	if lr.Cut() != 1 || lr.Err() != nil {
		t.Errorf("Cut() = %d, Err() = %v; want 1, nil", lr.Cut(), lr.Err())
	}
	// The 8 MiB line must not be held whole: allow the 1 MiB kept, the
	// decoder's buffers and the read-ahead's (at most 5 MiB, made as the
	// stream flows), all under the line's own size; holding the line whole
	// would allocate at least 8 MiB more.
	if grew := after.TotalAlloc - before.TotalAlloc; grew >= 8<<20 {
		t.Errorf("reading an 8 MiB line allocated %d bytes; the line is being buffered whole", grew)
	}
	if e, err := r.Next(); err != nil || e.Path != goodLastPath {
		t.Errorf("Next = %v, %v; want %s", e, err, goodLastPath)
	}
}

// TestHostileSparse reads sparse.tar: four old-GNU sparse entries of 1 GiB
// each, whose holes are in no stream. What the entries hand out counts
// against the total limit all the same.
func TestHostileSparse(t *testing.T) {
	const limit = 64 << 20
	t.Run("total limit", func(t *testing.T) {
		r := openTestdata(t, "sparse.tar", Options{MaxTotalBytes: limit})
		gots := drainAll(t, r)
		checkGoodEntries(t, gots, false)
		if len(gots) != 2 || gots[1].Path != "logs/sparse/c0.log" || gots[1].Size != 1<<30 {
			t.Fatalf("got %d results, want the good entry and the first sparse one", len(gots))
		}
		err := gots[1].ReadErr
		if le, ok := asError[*LimitError](err); !ok || !le.Total || le.Limit != limit || !Fatal(err) {
			t.Fatalf("read sparse entry: %v, want a fatal total *LimitError", err)
		}
		if n := int64(len(gots[1].Data)); n+int64(len(goodFirstBody)) > limit || gots[1].Data[0] != 'x' {
			t.Errorf("handed out %d bytes (first %q) before the total limit of %d", n, gots[1].Data[:1], limit)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("Next after the limit = %v, want the same %v", again, err)
		}
	})
	t.Run("entry limit", func(t *testing.T) {
		gots := drainAll(t, openTestdata(t, "sparse.tar", Options{MaxEntryBytes: limit, MaxTotalBytes: 1 << 30}))
		checkGoodEntries(t, gots, true)
		if len(gots) != 6 {
			t.Fatalf("got %d results, want 6", len(gots))
		}
		for _, g := range gots[1:5] {
			if le, ok := asError[*LimitError](g.ReadErr); !ok || le.Total || len(g.Data) != limit {
				t.Errorf("%s: read %d bytes, %v; want %d and a per-entry *LimitError", g.Path, len(g.Data), g.ReadErr, limit)
			}
		}
	})
}
