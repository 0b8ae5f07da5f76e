//go:build ignore

// gen writes the hostile archives in this directory and the seed corpus of
// FuzzReader. It is deterministic: run it again and git shows no change.
//
// Run it from the bundle directory:
//
//	go run ./testdata/gen.go
//
// The tests in hostile_test.go rebuild the expected content of the good
// entries with the same functions (goodEntries, hostileLogLine), so a change
// here must be mirrored there.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/rwdiag/rwdiag/bundle"
)

var mtime = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)

// entry is one tar entry; a nil body with size > 0 is that many zero bytes.
type entry struct {
	hdr  tar.Header
	body []byte
}

func reg(name, body string) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))}, body: []byte(body)}
}

func zeros(name string, size int64) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: size}}
}

func special(typ byte, name, link string) entry {
	h := tar.Header{Typeflag: typ, Name: name, Linkname: link, Mode: 0o644}
	if typ == tar.TypeChar {
		h.Devmajor, h.Devminor = 1, 3 // /dev/null
	}
	return entry{hdr: h}
}

// Good entries, identical in every hostile archive: one before the hostile
// part and one after it.
const (
	goodFirstPath = "kubernetes/pods.json"
	goodFirstBody = `{"apiVersion":"v1","kind":"List","items":[]}` + "\n"
	goodLastPath  = "sql/rw_worker_nodes.csv"
	goodLastBody  = "id,host,type\n1,compute-0,WORKER_TYPE_COMPUTE_NODE\n"
)

// hostileLogLine is line i of the long log in the truncated archives. The
// hash makes it compress poorly, so the log dominates the archive's bytes.
func hostileLogLine(i int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "line %d", i)
	return fmt.Sprintf("2026-11-29T20:41:%02d.%06dZ  INFO risingwave_stream::task::barrier_manager: collected barrier epoch=%d seq=%d digest=%016x\n",
		i/1000%60, i%1000*997, 7000000000+int64(i)*65536, i, h.Sum64())
}

const truncatedLogPath = "logs/risingwave-compute-0/compute.log"
const truncatedLogLines = 4000

func truncatedLog() string {
	var b bytes.Buffer
	for i := range truncatedLogLines {
		b.WriteString(hostileLogLine(i))
	}
	return b.String()
}

const longLinePath = "logs/risingwave-compute-0/compute.log"

func longLineLog() string {
	return string(bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16)) + "\n" +
		"2026-11-29T20:41:08.000001Z  INFO risingwave_stream::task::barrier_manager: after the long line\n"
}

func writeTar(w io.Writer, entries []entry) error {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := e.hdr
		h.ModTime = mtime
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
		var body io.Reader = bytes.NewReader(e.body)
		if e.body == nil {
			body = io.LimitReader(zeroReader{}, h.Size)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.Copy(tw, body); err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func archive(format string, entries []entry) []byte {
	var buf bytes.Buffer
	var wc io.WriteCloser
	switch format {
	case "tar":
		wc = nopCloser{&buf}
	case "tar.zst":
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		if err != nil {
			log.Fatal(err)
		}
		wc = zw
	case "tar.gz":
		gw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			log.Fatal(err)
		}
		wc = gw
	}
	if err := writeTar(wc, entries); err != nil {
		log.Fatal(err)
	}
	if err := wc.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func framed(hostile ...entry) []entry {
	es := []entry{reg(goodFirstPath, goodFirstBody)}
	es = append(es, hostile...)
	return append(es, reg(goodLastPath, goodLastBody))
}

// truncate cuts a compressed archive half-way through and checks that the cut
// falls inside the long log, after some of it was decoded.
func truncate(name string, full []byte) []byte {
	cut := full[:len(full)/2]
	r, err := bundle.NewReader(name, bytes.NewReader(cut), bundle.Options{})
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	for {
		e, err := r.Next()
		if err != nil {
			var de *bundle.DamageError
			if !errors.As(err, &de) || de.Entry != truncatedLogPath || de.Between {
				log.Fatalf("%s: cut does not fall inside %s: %v", name, truncatedLogPath, err)
			}
			return cut
		}
		n, err := io.Copy(io.Discard, e)
		if e.Path == truncatedLogPath && (err == nil || n == 0) {
			log.Fatalf("%s: cut at %d leaves %d bytes of %s, err %v", name, len(cut), n, e.Path, err)
		}
	}
}

// gnuSparse is an old-GNU sparse entry (typeflag 'S') whose one data byte,
// "x", starts a file of realSize bytes: the rest are holes, which are in no
// stream and cost nothing to store. archive/tar cannot write these.
func gnuSparse(name string, realSize int64) []byte {
	h := make([]byte, 512)
	copy(h[0:], name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", 1)) // bytes stored
	copy(h[136:], fmt.Sprintf("%011o\x00", mtime.Unix()))
	h[156] = 'S'
	copy(h[257:], "ustar  \x00")
	copy(h[386:], fmt.Sprintf("%011o\x00%011o\x00", 0, 1)) // one fragment: offset 0, 1 byte
	copy(h[483:], fmt.Sprintf("%011o\x00", realSize))
	copy(h[148:], "        ")
	sum := 0
	for _, b := range h {
		sum += int(b)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	data := make([]byte, 512)
	data[0] = 'x'
	return append(h, data...)
}

// sparseBomb is a tar of the good entries around four sparse entries of
// 1 GiB each, in 5 KiB.
func sparseBomb() []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	write := func(e entry) {
		h := e.hdr
		h.ModTime = mtime
		if err := tw.WriteHeader(&h); err != nil {
			log.Fatal(err)
		}
		tw.Write(e.body)
		if err := tw.Flush(); err != nil {
			log.Fatal(err)
		}
	}
	write(reg(goodFirstPath, goodFirstBody))
	for i := range 4 {
		buf.Write(gnuSparse(fmt.Sprintf("logs/sparse/c%d.log", i), 1<<30))
	}
	write(reg(goodLastPath, goodLastBody))
	if err := tw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func pngHeader() []byte {
	// The signature and an IHDR chunk of a 1x1 greyscale image.
	return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00\x3a\x7e\x9b\x55")
}

func zipFile() []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: goodFirstPath, Method: zip.Store, Modified: mtime})
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, goodFirstBody)
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

// seedBundle is a small valid bundle for the fuzz corpus.
func seedBundle(root string) []entry {
	p := func(s string) string {
		if root == "" {
			return s
		}
		return root + "/" + s
	}
	es := []entry{}
	if root != "" {
		es = append(es, entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: root + "/", Mode: 0o755}})
	}
	return append(es,
		reg(p("manifest.json"), `{"format_version":1,"files":[{"path":"logs/p/c.log","size":6,"sha256":"x"}]}`+"\n"),
		reg(p("kubernetes/pods.json"), goodFirstBody),
		reg(p("logs/p/c.log"), "a\nbb\n\n"),
		reg(p("metrics/p/1796000000000.prom"), "up 1\n"),
	)
}

func main() {
	if _, err := os.Stat("testdata/gen.go"); err != nil {
		log.Fatal("run from the bundle directory: go run ./testdata/gen.go")
	}
	files := map[string][]byte{
		"traversal.tar": archive("tar", framed(reg("../evil", "evil\n"), reg("logs/../../evil", "evil\n"))),
		"absolute.tar":  archive("tar", framed(reg("/etc/evil", "evil\n"))),
		// The link points out of the bundle; the file after it would be
		// written through it by a naive extractor.
		"symlink.tar":  archive("tar", framed(special(tar.TypeSymlink, "logs/link", "../../../../../../tmp"), reg("logs/link/evil", "evil\n"))),
		"hardlink.tar": archive("tar", framed(special(tar.TypeLink, "logs/passwd", "/etc/passwd"))),
		"device.tar":   archive("tar", framed(special(tar.TypeChar, "logs/null", ""))),
		"bomb.tar.zst": archive("tar.zst", framed(zeros("logs/bomb/compute.log", 1<<30))),
		"longline.tar.zst": archive("tar.zst", []entry{
			reg(goodFirstPath, goodFirstBody), reg(longLinePath, longLineLog()), reg(goodLastPath, goodLastBody)}),
		"sparse.tar":     sparseBomb(),
		"notabundle.png": pngHeader(),
		"notabundle.zip": zipFile(),
	}
	trunc := []entry{reg(goodFirstPath, goodFirstBody), reg(truncatedLogPath, truncatedLog()), reg(goodLastPath, goodLastBody)}
	files["truncated.tar.zst"] = truncate("truncated.tar.zst", archive("tar.zst", trunc))
	files["truncated.tar.gz"] = truncate("truncated.tar.gz", archive("tar.gz", trunc))
	if n := len(files["bomb.tar.zst"]); n >= 200<<10 {
		log.Fatalf("bomb.tar.zst is %d bytes; it must stay under 200 KiB", n)
	}

	seeds := map[string][]byte{
		"valid-tar":         archive("tar", seedBundle("")),
		"valid-tar-zst":     archive("tar.zst", seedBundle("")),
		"valid-tar-gz":      archive("tar.gz", seedBundle("")),
		"valid-wrapped-tar": archive("tar", seedBundle("rwdiag-prod-20261129T204300Z")),
		"traversal":         files["traversal.tar"],
		"symlink":           files["symlink.tar"],
		"sparse":            files["sparse.tar"],
		"truncated-tar-gz":  archive("tar.gz", seedBundle(""))[:300],
		"truncated-tar-zst": archive("tar.zst", seedBundle(""))[:150],
		"not-a-bundle":      pngHeader(),
	}
	for name, b := range files {
		write(filepath.Join("testdata", name), b)
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, b := range seeds {
		write(filepath.Join(dir, name), []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(b))+")\n"))
	}
}

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%8d %s\n", len(b), name)
}
