package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Format is the container a bundle comes in.
type Format int

// The formats a bundle comes in.
const (
	FormatDir Format = iota
	FormatTar
	FormatTarZstd
	FormatTarGzip
)

func (f Format) String() string {
	switch f {
	case FormatDir:
		return "directory"
	case FormatTar:
		return "tar"
	case FormatTarZstd:
		return "tar.zst"
	case FormatTarGzip:
		return "tar.gz"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Default limits. They are generous: they exist to stop decompression bombs,
// not to second-guess real bundles.
const (
	DefaultMaxEntryBytes = 8 << 30  // 8 GiB for one file
	DefaultMaxTotalBytes = 64 << 30 // 64 GiB for the whole bundle
	DefaultMaxZstdWindow = 128 << 20
)

// Options bound what the reader will do. Zero values take the defaults.
type Options struct {
	MaxEntryBytes int64  // uncompressed bytes of one entry
	MaxTotalBytes int64  // uncompressed bytes of the whole tar stream
	MaxZstdWindow uint64 // largest zstd window accepted (memory the decoder may need)
}

func (o Options) withDefaults() Options {
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxZstdWindow == 0 {
		o.MaxZstdWindow = DefaultMaxZstdWindow
	}
	return o
}

// Entry is one file of a bundle. It is an io.Reader over the file's bytes,
// valid until the next call to Next.
type Entry struct {
	// Path is slash-separated and relative to the bundle root, with any
	// wrapping top-level directory removed.
	Path string
	Class
	// Size is the size the archive header or the file system declares.
	Size    int64
	ModTime time.Time

	r io.Reader
}

// Read reads the entry's content. Past the per-entry limit it returns a
// *LimitError; on archive damage a *DamageError.
func (e *Entry) Read(p []byte) (int, error) { return e.r.Read(p) }

// Reader hands out the entries of a bundle in one streaming pass.
type Reader struct {
	name   string
	format Format
	opts   Options
	next   func() (*Entry, error)
	closer io.Closer
	err    error  // sticky fatal error
	root   string // a directory bundle's directory, as read (inside a wrapping one)
	tally  contentTally
}

// Open opens a bundle: a directory, or a tar, tar.zst or tar.gz file, told
// apart by magic bytes rather than by name.
func Open(name string, opts Options) (*Reader, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	if fi.IsDir() {
		return openDir(name, opts.withDefaults())
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	var src io.Reader = f
	closeFile := closerFunc(f.Close)
	if fi.Mode().IsRegular() {
		// Not a pipe or a device, whose reads may block: Close waits for
		// the read in progress.
		ra := fileReadAhead(f)
		src = ra
		closeFile = func() error { ra.Close(); return f.Close() }
	}
	r, err := newArchiveReader(name, src, opts)
	if err != nil {
		closeFile()
		return nil, err
	}
	r.closer = multiCloser{r.closer, closeFile}
	return r, nil
}

// NewReader reads an archive bundle from a stream; name is used in messages.
func NewReader(name string, src io.Reader, opts Options) (*Reader, error) {
	return newArchiveReader(name, src, opts)
}

// Name returns the name the bundle was opened with.
func (r *Reader) Name() string { return r.name }

// Format returns the bundle's container format.
func (r *Reader) Format() Format { return r.format }

// Next returns the next entry, or io.EOF after the last. Errors that are not
// Fatal (an *UnsafeEntryError, a per-entry *LimitError) leave the reader
// usable; fatal ones are returned again by every later call.
func (r *Reader) Next() (*Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if Fatal(err) {
		r.err = err
	}
	if err == nil && e != nil {
		r.tally.note(e)
	}
	return e, err
}

// Close releases the bundle's file and decoder.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var errs []error
	for _, c := range m {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// countingReader counts the bytes read through it and, when limit > 0, fails
// once more than limit bytes have gone through. The count may be read
// (count) while another goroutine reads through it: the zstd decoder's
// goroutines read the archive while a damage report asks how far they got.
type countingReader struct {
	r     io.Reader
	n     atomic.Int64
	limit int64
	hit   bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	done := c.n.Load()
	if c.limit > 0 && int64(len(p)) > c.limit-done+1 {
		p = p[:c.limit-done+1]
	}
	n, err := c.r.Read(p)
	done = c.n.Add(int64(n))
	if c.limit > 0 && done > c.limit {
		c.hit = true
		return n, errTotalLimit
	}
	return n, err
}

// count is how many bytes have been read through c.
func (c *countingReader) count() int64 { return c.n.Load() }

var errTotalLimit = errors.New("total size limit reached")

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

func sniff(b []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(b, zstdMagic):
		return FormatTarZstd, true
	case len(b) >= 4 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18 && b[0]&0xf0 == 0x50:
		return FormatTarZstd, true // a zstd skippable frame
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return FormatTarGzip, true
	case len(b) >= 262 && bytes.Equal(b[257:262], []byte("ustar")):
		return FormatTar, true
	}
	return 0, false
}

func newArchiveReader(name string, src io.Reader, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	raw := &countingReader{r: src}
	br := bufio.NewReaderSize(raw, 64<<10)
	head, err := br.Peek(512)
	if err != nil && len(head) == 0 {
		if err == io.EOF {
			return nil, formatError(name, nil)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	format, ok := sniff(head)
	if !ok {
		return nil, formatError(name, head)
	}
	r := &Reader{name: name, format: format, opts: opts}
	var stream io.Reader = br
	var offset func() int64 // where damage is, when not how far raw has read
	var window uint64
	if format == FormatTarZstd {
		// Now: head is br's buffer, which the decoder's goroutines refill.
		window = zstdWindow(head)
	}
	switch format {
	case FormatTarZstd:
		if parallelFrames(head) {
			pz, err := newParallelZstd(br, raw, opts)
			if err != nil {
				return nil, fmt.Errorf("%s: zstd: %w", name, err)
			}
			stream = pz
			offset = pz.offset
			r.closer = closerFunc(func() error { pz.Close(); return nil })
			break
		}
		zc, err := newStreamChunks(br, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		ra := newZstdReadAhead(zc)
		stream = ra
		r.closer = closerFunc(func() error { ra.Close(); zc.Close(); return nil })
	case FormatTarGzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &DamageError{Archive: name, Offset: raw.count(), Err: fmt.Errorf("gzip: %w", err)}
		}
		zr.Multistream(false)
		ra := newReadAhead(&gzipMembers{zr: zr, br: br, raw: raw})
		stream = ra
		r.closer = closerFunc(func() error { ra.Close(); return zr.Close() })
	}
	tr := &tarWalker{
		name:   name,
		opts:   opts,
		raw:    raw,
		dec:    &countingReader{r: stream, limit: opts.MaxTotalBytes},
		offset: offset,
		window: window,
	}
	tr.tr = tar.NewReader(tr.dec)
	r.next = tr.next
	return r, nil
}

// gzipMembers reads a gzip stream member by member, as gzip.Reader does
// in its multistream mode, but tells bytes after the last member that
// begin none (`gzip -d` ignores them with a warning) from a damaged member:
// a *JunkError, with where they start.
type gzipMembers struct {
	zr  *gzip.Reader
	br  *bufio.Reader // read by zr byte by byte: its position is the member's end
	raw *countingReader
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != io.EOF {
		return n, err
	}
	b, perr := g.br.Peek(2)
	switch {
	case len(b) == 0 && perr == io.EOF:
		return n, io.EOF
	case len(b) < 2 && perr != nil && perr != io.EOF:
		return n, perr
	case len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b:
		if err := g.zr.Reset(g.br); err != nil {
			return n, err
		}
		g.zr.Multistream(false)
		return n, nil
	}
	at := g.raw.count() - int64(g.br.Buffered())
	if pad, err := zeroPadding(g.br); err != nil || pad {
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return n, &JunkError{Format: "gzip", Offset: at}
}

// zeroPadding reads r to its end and reports whether every byte was zero:
// the padding a tape or `dd conv=sync` may leave after a compressed
// stream, which `gzip -d` passes over (`zstd -d` refuses it; no evidence
// is in it either way). It stops at the first byte that is not zero.
func zeroPadding(r io.Reader) (bool, error) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if firstNonZero(buf[:n]) >= 0 {
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// tarWalker turns tar headers into entries.
type tarWalker struct {
	name   string
	opts   Options
	raw    *countingReader // archive bytes consumed
	dec    *countingReader // tar stream bytes produced
	tr     *tar.Reader
	prefix string // wrapping top-level directory, with trailing slash
	rooted bool   // an entry showed the bundle sits at the archive root
	last   string // the last entry handed out
	cur    *tarEntryReader
	out    int64 // bytes handed out by all entries
	err    error // the fatal error, once there is one
	seen   seenPaths
	window uint64 // the window the first zstd frame asks for, 0 if unknown
	// offset, when set, says where in the archive file the damage is (the
	// parallel zstd reader reads ahead of the tar stream by frames).
	offset func() int64
	// dataEnd is where in the tar stream the last header's data ends,
	// padded to its block, or -1 when unknown (a sparse entry): the tar
	// reader ends at the end-of-archive marker's zero blocks there, or, in
	// a stream cut between entries, at a clean EOF right there.
	dataEnd int64
	ended   bool // the end was checked (see end)
}

// noteDataEnd sets dataEnd for the header the tar reader just read (it has
// read the header's blocks and nothing more).
func (w *tarWalker) noteDataEnd(hdr *tar.Header) {
	size := max(hdr.Size, 0)
	switch hdr.Typeflag {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		size = 0 // no data, whatever the header says (as archive/tar reads it)
	case tar.TypeGNUSparse:
		w.dataEnd = -1 // its data in the stream is not Size long
		return
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			w.dataEnd = -1
			return
		}
	}
	w.dataEnd = w.dec.count() + (size+511)/512*512
}

// maxTrailingBytes bounds what is read after the tar archive's end to check
// that it is padding (GNU tar pads to 10 KiB records; `tar -b` to at most
// 2 MiB and a bit).
const maxTrailingBytes = 4 << 20

// errNoEndMarker is a tar stream that ends between two entries, without
// the end-of-archive marker every tar writer puts there.
var errNoEndMarker = errors.New("the archive ends without tar's end-of-archive marker, so it was probably cut here: the entries before are whole, any after are missing")

// end checks, once, how the archive ends, when the tar reader has found its
// end: a *DamageError when the stream ended between two entries without the
// end-of-archive marker; a *TrailingDataError when data, or bytes that do
// not decompress, follow it; nil when only padding does.
func (w *tarWalker) end() error {
	if w.ended {
		return nil
	}
	w.ended = true
	if w.dec.count() == 0 {
		return nil // an empty stream: no bundle, as NotBundle says
	}
	if w.dataEnd >= 0 && w.dec.count()-w.dataEnd < 512 {
		return w.damage(errNoEndMarker, true)
	}
	te := &TrailingDataError{Archive: w.name, End: w.dec.count(), Data: -1}
	buf := make([]byte, 32<<10)
	for {
		n, err := w.dec.Read(buf[:min(int64(len(buf)), maxTrailingBytes+1-te.Bytes)])
		if te.Data < 0 {
			if i := firstNonZero(buf[:n]); i >= 0 {
				te.Data = te.End + te.Bytes + int64(i)
			}
		}
		te.Bytes += int64(n)
		if te.Bytes > maxTrailingBytes || w.dec.hit {
			te.Bytes = min(te.Bytes, maxTrailingBytes)
			te.More = true
			break
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			te.Err = err
			break
		}
	}
	if te.Data < 0 && !te.More && te.Err == nil {
		return nil
	}
	return te
}

// firstNonZero returns the index of b's first byte that is not zero, or -1.
func firstNonZero(b []byte) int {
	for off := 0; off < len(b); off += len(zeroBlock) {
		c := b[off:min(off+len(zeroBlock), len(b))]
		if bytes.Equal(c, zeroBlock[:len(c)]) {
			continue
		}
		for i, v := range c {
			if v != 0 {
				return off + i
			}
		}
	}
	return -1
}

// damage turns an error from the tar stream into the fatal error, once: the
// entry's Read and every later Next return the same value.
func (w *tarWalker) damage(err error, between bool) error {
	if w.err != nil {
		return w.err
	}
	if w.dec.hit {
		w.err = &LimitError{Path: w.last, Limit: w.opts.MaxTotalBytes, Total: true}
		return w.err
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		asks := "more than that"
		window := w.window
		if we, ok := errors.AsType[*windowError](err); ok {
			window = we.window
		}
		if window > 0 {
			asks = sizeText(int64(window))
		}
		err = fmt.Errorf("%w: the zstd stream asks for a window of %s, more than the %s of decoder memory allowed (`zstd --long=31` writes 2 GiB windows): "+
			"raise --max-zstd-window to read it, if the file is a real archive (reading costs that much memory)",
			err, asks, sizeText(int64(w.opts.MaxZstdWindow)))
	}
	var offset int64
	if w.offset != nil {
		offset = w.offset()
	} else {
		offset = w.raw.count()
	}
	w.err = &DamageError{Archive: w.name, Entry: w.last, Between: between,
		Offset: offset, Decompressed: w.dec.count(), Err: err}
	return w.err
}

func (w *tarWalker) next() (*Entry, error) {
	if w.err != nil {
		return nil, w.err
	}
	between := w.cur == nil || w.cur.done
	if w.cur != nil {
		w.cur.stale = true
	}
	for {
		hdr, err := w.tr.Next()
		if err == io.EOF {
			if err := w.end(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, w.damage(err, between)
		}
		w.noteDataEnd(hdr)
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			// Metadata, not a file (git archive writes one first): it must
			// not be taken for the first entry.
			continue
		}
		name, reason := cleanName(hdr.Name)
		if reason != "" {
			if hdr.Typeflag == tar.TypeDir && name == "" && path.Clean(hdr.Name) == "." {
				continue // "./", written by tar -C dir .
			}
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: reason}
		}
		if w.prefix == "" && !w.rooted {
			// The first entry that shows where the bundle's root is decides:
			// "rwdiag-x/logs/..." wraps it in rwdiag-x/, "logs/..." does not.
			if p := wrappingDir(name); p != "" {
				w.prefix = p
			} else if top, _, _ := strings.Cut(name, "/"); topLevelNames[top] {
				w.rooted = true
			}
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
		case tar.TypeDir:
			continue
		case tar.TypeSymlink:
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: fmt.Sprintf("symbolic link to %q", hdr.Linkname)}
		case tar.TypeLink:
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: fmt.Sprintf("hard link to %q", hdr.Linkname)}
		case tar.TypeChar, tar.TypeBlock:
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: "device file"}
		case tar.TypeFifo:
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: "named pipe"}
		default:
			return nil, &UnsafeEntryError{Path: hdr.Name, Reason: fmt.Sprintf("unsupported entry type %q", hdr.Typeflag)}
		}
		if w.prefix != "" && strings.HasPrefix(name, w.prefix) {
			name = strings.TrimPrefix(name, w.prefix)
		}
		if w.seen.add(name) {
			return nil, &DuplicateEntryError{Path: name, Name: hdr.Name}
		}
		w.last = name
		w.cur = &tarEntryReader{w: w, path: name, remaining: w.opts.MaxEntryBytes}
		return &Entry{Path: name, Class: Classify(name), Size: hdr.Size, ModTime: hdr.ModTime, r: w.cur}, nil
	}
}

// tarEntryReader reads one entry, turning archive errors into *DamageError
// and enforcing the per-entry limit.
type tarEntryReader struct {
	w         *tarWalker
	path      string
	remaining int64
	done      bool
	stale     bool // Next has moved past this entry
	err       error
}

func (t *tarEntryReader) Read(p []byte) (int, error) {
	if t.stale {
		return 0, errStaleEntry
	}
	if t.err != nil {
		return 0, t.err
	}
	if t.w.err != nil {
		return 0, t.w.err
	}
	// Bytes handed out count against the total limit as well as the tar
	// stream does: a sparse entry's holes are not in the stream.
	allow := min(t.remaining, t.w.opts.MaxTotalBytes-t.w.out)
	if allow <= 0 {
		// Is there more? Probe one byte.
		var one [1]byte
		n, err := t.w.tr.Read(one[:])
		switch {
		case n > 0 && t.remaining <= 0:
			t.err = &LimitError{Path: t.path, Limit: t.w.opts.MaxEntryBytes}
			return 0, t.err
		case n > 0:
			t.w.err = &LimitError{Path: t.path, Limit: t.w.opts.MaxTotalBytes, Total: true}
			return 0, t.w.err
		}
		return 0, t.fail(err)
	}
	if int64(len(p)) > allow {
		p = p[:allow]
	}
	n, err := t.w.tr.Read(p)
	t.remaining -= int64(n)
	t.w.out += int64(n)
	return n, t.fail(err)
}

var errStaleEntry = errors.New("bundle: entry read after the next call to Next")

func (t *tarEntryReader) fail(err error) error {
	switch {
	case err == nil:
		return nil
	case err == io.EOF:
		t.done = true
		return io.EOF
	}
	t.err = t.w.damage(err, false)
	return t.err
}

// cleanName checks an archive entry name and returns it cleaned, or the
// reason it is refused.
func cleanName(name string) (string, string) {
	switch {
	case name == "":
		return "", "empty name"
	case strings.ContainsRune(name, 0):
		return "", "NUL byte in name"
	case strings.Contains(name, `\`):
		return "", "backslash in name"
	case strings.HasPrefix(name, "/"):
		return "", "absolute path"
	case len(name) >= 2 && name[1] == ':':
		return "", "drive letter in path"
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", `".." path component`
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", "names the archive root"
	}
	return clean, ""
}

// wrappingDir returns "dir/" when an entry shows the bundle sits under a
// top-level directory: its first component is no bundle name and its second
// is one. Anything else ("notes/x", "README") says nothing and is kept as an
// unknown file.
// sits under a top-level directory, and "" when the bundle is at the root.
func wrappingDir(name string) string {
	top, rest, nested := strings.Cut(name, "/")
	if !nested || topLevelNames[top] {
		return ""
	}
	if second, _, _ := strings.Cut(rest, "/"); topLevelNames[second] {
		return top + "/"
	}
	return ""
}

// maxSeenBytes bounds the memory a reader spends remembering entries'
// paths to find duplicates: some hundreds of thousands of paths, where a real
// bundle holds some thousands of files. A bomb of tiny entries past it is
// still bounded by the total limit; its later duplicates are not detected.
const maxSeenBytes = 32 << 20

// seenPaths remembers the paths of the entries handed out.
type seenPaths struct {
	set   map[string]struct{}
	bytes int
}

// add records p and reports whether an earlier entry had it.
func (s *seenPaths) add(p string) bool {
	if s.set == nil {
		s.set = map[string]struct{}{}
	}
	if _, ok := s.set[p]; ok {
		return true
	}
	if cost := len(p) + 48; s.bytes+cost <= maxSeenBytes { // 48: string header and map slot
		s.set[p] = struct{}{}
		s.bytes += cost
	}
	return false
}

// zstdWindow returns the window size the zstd frame at the start of b asks
// for (RFC 8878, 3.1.1.1), or 0 when b starts with no frame header.
func zstdWindow(b []byte) uint64 {
	if len(b) < 6 || !bytes.HasPrefix(b, zstdMagic) {
		return 0
	}
	fhd := b[4]
	if fhd&0x20 == 0 { // not single-segment: a window descriptor follows
		wd := b[5]
		base := uint64(1) << (10 + wd>>3)
		return base + base/8*uint64(wd&7)
	}
	// Single segment: the window is the frame content size.
	pos := 5 + [4]int{0, 1, 2, 4}[fhd&3] // past the dictionary id
	size := [4]int{1, 2, 4, 8}[fhd>>6]
	if len(b) < pos+size {
		return 0
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[pos+i])
	}
	if size == 2 {
		v += 256
	}
	return v
}

// sizeText writes a byte count for people: "128 MiB", "2 GiB", "1000 B".
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// newStreamDecoder returns the decoder of a zstd stream that is not cut
// into frames the parallel reader takes (`tar | zstd`), read one frame at a
// time through a readAhead, which checks the frames' checksums (the decoder
// skips them: see zstdstream.go). It decodes on the goroutine that calls
// Read (concurrency 1):
// the readAhead's goroutine, which then hands a megabyte at a time to the
// tar reader. The decoder's own asynchronous mode (concurrency 2 and more)
// passes every 128 KiB block between three goroutines and through its
// channels, on top of the readAhead's hand-off: on the 2 GiB single-frame
// benchmark bundle it made 12,000-13,000 voluntary context switches against
// 4,000-5,000 (bench/readall, issue 14), for no less CPU.
// No WithDecoderMaxMemory: when streaming it caps the window, so a small
// MaxTotalBytes would refuse ordinary archives as damaged. The total is
// counted on the decoded stream (tarWalker.dec).
func newStreamDecoder(src io.Reader, opts Options) (*zstd.Decoder, error) {
	return zstd.NewReader(src,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(opts.MaxZstdWindow),
		zstd.IgnoreChecksum(true))
}
