package bundle

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Parallel zstd. The Writer cuts the tar stream into independent zstd frames
// of frameBytes of input each, every one with its content size in its header;
// the result is still one .tar.zst that `zstd -d` reads. The reader walks the
// frame and block headers (RFC 8878, 3.1.1) to find where each frame ends,
// without decoding it, and decodes frames on every core, handing their bytes
// to the tar reader in order. A stream whose first frame has no content size
// or a larger one (`tar | zstd`, `zstd file.tar`) is read by the streaming
// decoder, as before; so is the rest of a stream from the first such frame on.
const (
	frameBytes = 4 << 20 // uncompressed bytes per frame the Writer writes
	// maxParallelFrame is the largest content size a frame may declare to
	// be decoded whole in memory; larger ones go to the streaming decoder.
	maxParallelFrame = 8 << 20
	// maxParallelCompressed bounds a frame's compressed bytes held in memory
	// (an incompressible frame is its content plus 3 bytes per 128 KiB block).
	maxParallelCompressed = maxParallelFrame + maxParallelFrame/64 + 64
	maxFrameWorkers       = 16
)

// frameWriter is the Writer's compressor: it encodes each frameBytes of input
// as its own frame, on up to GOMAXPROCS goroutines, and writes the frames in
// order.
type frameWriter struct {
	dst  io.Writer
	enc  *zstd.Encoder
	buf  []byte
	jobs chan *encodeJob // in order, to the goroutine writing dst
	free chan []byte
	done chan error
	err  error
}

type encodeJob struct {
	src, out []byte
	ready    chan struct{}
}

func newFrameWriter(dst io.Writer) (*frameWriter, error) {
	workers := min(runtime.GOMAXPROCS(0), maxFrameWorkers)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(workers), zstd.WithEncoderCRC(true))
	if err != nil {
		return nil, err
	}
	fw := &frameWriter{dst: dst, enc: enc,
		jobs: make(chan *encodeJob, workers),
		free: make(chan []byte, workers+2),
		done: make(chan error, 1),
	}
	go fw.drain()
	return fw, nil
}

// NewFramedZstdWriter returns the compressor the Writer packs a tar.zst with:
// independent frames of 4 MiB of input, each with its content size, encoded
// on up to GOMAXPROCS goroutines and written to dst in order, which readers
// decode on every core. It is for tools that pack an existing tar stream the
// way rwdiag does (bench/pack); Close writes the last frame and returns the
// first write error.
func NewFramedZstdWriter(dst io.Writer) (io.WriteCloser, error) {
	return newFrameWriter(dst)
}

// drain writes the frames in order; after an error it only discards them.
func (fw *frameWriter) drain() {
	var err error
	for j := range fw.jobs {
		<-j.ready
		if err == nil {
			_, err = fw.dst.Write(j.out)
		}
		select {
		case fw.free <- j.src[:0]:
		default:
		}
	}
	fw.done <- err
}

func (fw *frameWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if fw.buf == nil {
			select {
			case fw.buf = <-fw.free:
			default:
				fw.buf = make([]byte, 0, frameBytes)
			}
		}
		m := copy(fw.buf[len(fw.buf):frameBytes], p)
		fw.buf = fw.buf[:len(fw.buf)+m]
		p = p[m:]
		n += m
		if len(fw.buf) == frameBytes {
			fw.flush()
		}
	}
	return n, nil
}

func (fw *frameWriter) flush() {
	if len(fw.buf) == 0 {
		return
	}
	j := &encodeJob{src: fw.buf, ready: make(chan struct{})}
	fw.buf = nil
	fw.jobs <- j // blocks while workers frames are queued: bounded memory
	go func() {
		j.out = fw.enc.EncodeAll(j.src, make([]byte, 0, len(j.src)/2))
		close(j.ready)
	}()
}

// Close writes the last frame and waits for every frame to be written.
func (fw *frameWriter) Close() error {
	fw.flush()
	close(fw.jobs)
	err := <-fw.done
	fw.enc.Close()
	return err
}

// zstdFrame is one frame as its headers describe it.
type zstdFrame struct {
	skippable   bool
	window      uint64
	contentSize uint64
	hasSize     bool
}

var errReservedBlock = errors.New("zstd: reserved block type")

// readFrame reads one whole frame from br into buf (reused), starting at its
// magic number, by its frame and block headers. It stops early, with the
// bytes read so far, when the frame must go to the streaming decoder: no
// content size, a content size over maxParallelFrame, or more than
// maxParallelCompressed bytes; stream is then true. A window over maxWindow
// is a *windowError.
func readFrame(br io.Reader, buf []byte, maxWindow uint64) (out []byte, f zstdFrame, stream bool, err error) {
	out = buf[:0]
	take := func(n int) ([]byte, error) {
		start := len(out)
		// Grown, not appended zeros: a reused buffer is not cleared only
		// to be overwritten (it was 2% of the CPU of reading frames).
		out = slices.Grow(out, n)[:start+n]
		m, err := io.ReadFull(br, out[start:])
		out = out[:start+m]
		if err == io.EOF && start > 0 {
			err = io.ErrUnexpectedEOF
		}
		return out[start:], err
	}
	magic, err := take(4)
	if err != nil {
		return out, f, false, err
	}
	if magic[0]&0xf0 == 0x50 && magic[1] == 0x2a && magic[2] == 0x4d && magic[3] == 0x18 {
		sz, err := take(4)
		if err != nil {
			return out, f, false, unexpected(err)
		}
		n := int64(binary.LittleEndian.Uint32(sz))
		if _, err := io.CopyN(io.Discard, br, n); err != nil {
			return out, f, false, unexpected(err)
		}
		return out[:0], zstdFrame{skippable: true}, false, nil
	}
	if !bytes.Equal(magic, zstdMagic) {
		return out, f, false, zstd.ErrMagicMismatch
	}
	fhd, err := take(1)
	if err != nil {
		return out, f, false, unexpected(err)
	}
	d := fhd[0]
	if d&0x08 != 0 {
		return out, f, false, errors.New("zstd: reserved bit set in frame header")
	}
	single := d&0x20 != 0
	dictLen := [4]int{0, 1, 2, 4}[d&3]
	fcsLen := [4]int{0, 2, 4, 8}[d>>6]
	if single && d>>6 == 0 {
		fcsLen = 1
	}
	n := dictLen + fcsLen
	if !single {
		n++ // the window descriptor
	}
	hdr, err := take(n)
	if err != nil {
		return out, f, false, unexpected(err)
	}
	pos := 0
	if !single {
		base := uint64(1) << (10 + hdr[0]>>3)
		f.window = base + base/8*uint64(hdr[0]&7)
		pos = 1
	}
	pos += dictLen
	if fcsLen > 0 {
		var v uint64
		for i := fcsLen - 1; i >= 0; i-- {
			v = v<<8 | uint64(hdr[pos+i])
		}
		if fcsLen == 2 {
			v += 256
		}
		f.hasSize, f.contentSize = true, v
		if single {
			f.window = v
		}
	}
	if f.window > maxWindow {
		return out, f, false, &windowError{window: f.window}
	}
	if !f.hasSize || f.contentSize > maxParallelFrame {
		return out, f, true, nil
	}
	for {
		bh, err := take(3)
		if err != nil {
			return out, f, false, unexpected(err)
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		size := int(v >> 3)
		switch (v >> 1) & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3:
			return out, f, false, errReservedBlock
		}
		if len(out)+size > maxParallelCompressed {
			return out, f, true, nil
		}
		if _, err := take(size); err != nil {
			return out, f, false, unexpected(err)
		}
		if v&1 != 0 {
			break
		}
	}
	if d&0x04 != 0 {
		if _, err := take(4); err != nil {
			return out, f, false, unexpected(err)
		}
	}
	return out, f, false, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// windowError is a frame asking for a larger window than allowed.
type windowError struct{ window uint64 }

func (e *windowError) Error() string { return zstd.ErrWindowSizeExceeded.Error() }
func (e *windowError) Unwrap() error { return zstd.ErrWindowSizeExceeded }

// frameJob is one frame on its way through the parallel reader.
type frameJob struct {
	offset int64  // where the frame starts in the archive file
	comp   []byte // the compressed frame
	size   int    // its content size, from its header
	out    []byte // its content, once ready is closed
	err    error
	rest   io.Reader // the rest of the stream, for the streaming decoder
	ready  chan struct{}
}

// parallelZstd is an io.Reader over the content of a multi-frame zstd stream,
// decoding frames on several goroutines. At most workers frames are queued
// ahead of the one being handed out, and one more is being read; compressed
// and decoded buffers are reused, each kind in its own pool, so that a
// decoded frame never grows a compressed frame's smaller buffer.
type parallelZstd struct {
	opts  Options
	dec   *zstd.Decoder
	order chan *frameJob
	work  chan *frameJob
	comps chan []byte // compressed buffers to reuse
	outs  chan []byte // decoded buffers to reuse
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once

	cur    *frameJob
	pos    int       // bytes of cur.out handed out
	stream io.Reader // the streaming decoder, from a frame it must decode on
	sclose func()
	// salvage is the error of the damaged frame the streaming decoder is
	// reading what it can of, returned if that decoder finds none.
	salvage error
	err     error
	raw     *countingReader
	failAt  int64 // the offset of the frame whose error was returned
}

func newParallelZstd(br *bufio.Reader, raw *countingReader, opts Options) (*parallelZstd, error) {
	workers := min(runtime.GOMAXPROCS(0), maxFrameWorkers)
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(workers),
		zstd.WithDecoderMaxWindow(opts.MaxZstdWindow),
		zstd.WithDecoderMaxMemory(maxParallelFrame))
	if err != nil {
		return nil, err
	}
	p := &parallelZstd{opts: opts, dec: dec, raw: raw,
		order: make(chan *frameJob, workers),
		work:  make(chan *frameJob, workers),
		comps: make(chan []byte, workers+3),
		outs:  make(chan []byte, workers+3),
		stop:  make(chan struct{}),
	}
	p.wg.Add(1 + workers)
	go p.split(br)
	for range workers {
		go p.decode()
	}
	return p, nil
}

// buffer returns a buffer of pool to reuse, or nil.
func buffer(pool chan []byte) []byte {
	select {
	case b := <-pool:
		return b[:0]
	default:
		return nil
	}
}

func recycle(pool chan []byte, b []byte) {
	if cap(b) == 0 {
		return
	}
	select {
	case pool <- b[:0]:
	default:
	}
}

// split reads frames off the stream and queues them, in order for Read and
// to the decoders, until the end, an error, a frame for the streaming
// decoder, or Close.
func (p *parallelZstd) split(br io.Reader) {
	defer p.wg.Done()
	defer close(p.order)
	defer close(p.work)
	in := &countingReader{r: br} // where each frame starts
	for {
		j := &frameJob{offset: in.count(), ready: make(chan struct{})}
		comp, f, stream, err := readFrame(in, buffer(p.comps), p.opts.MaxZstdWindow)
		j.comp, j.size = comp, int(f.contentSize)
		switch {
		case err == io.EOF && len(comp) == 0:
			return
		case errors.Is(err, zstd.ErrMagicMismatch) || err == io.ErrUnexpectedEOF && len(comp) < 4:
			// Bytes that begin no frame, after the last one: zero padding
			// ends the stream, anything else is junk.
			if firstNonZero(comp) < 0 {
				pad, perr := zeroPadding(in)
				if perr == nil && pad {
					return
				}
				if perr != nil {
					err = perr
				}
			}
			j.err = &JunkError{Format: "zstd", Offset: j.offset, Err: err}
			close(j.ready)
		case err != nil:
			j.err = err
			close(j.ready)
		case stream:
			j.rest = io.MultiReader(bytes.NewReader(comp), br)
			close(j.ready)
		case f.skippable:
			recycle(p.comps, comp)
			continue
		}
		select {
		case p.order <- j:
		case <-p.stop:
			return
		}
		if j.err != nil || j.rest != nil {
			return
		}
		select {
		case p.work <- j:
		case <-p.stop:
			return
		}
	}
}

func (p *parallelZstd) decode() {
	defer p.wg.Done()
	for j := range p.work {
		select {
		case <-p.stop:
			close(j.ready)
			continue
		default:
		}
		out := buffer(p.outs)
		if cap(out) < j.size {
			out = make([]byte, 0, j.size) // content sizes are at most maxParallelFrame
		}
		j.out, j.err = p.dec.DecodeAll(j.comp, out)
		close(j.ready)
	}
}

func (p *parallelZstd) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if p.stream != nil {
		n, err := p.stream.Read(b)
		if err == io.EOF && p.salvage != nil {
			err = p.salvage // the frame decoded whole here but not in DecodeAll
		}
		if err != nil && err != io.EOF {
			p.err = err
		}
		return n, err
	}
	for p.cur == nil || p.pos == len(p.cur.out) {
		if p.cur != nil {
			recycle(p.comps, p.cur.comp)
			recycle(p.outs, p.cur.out)
			p.cur = nil
		}
		j, ok := <-p.order
		if !ok {
			return 0, io.EOF
		}
		<-j.ready
		p.cur, p.pos = j, 0
		switch {
		case j.err != nil:
			p.failAt = j.offset
			if _, ok := errors.AsType[*windowError](j.err); ok {
				p.err = j.err
				return 0, p.err
			}
			if _, ok := errors.AsType[*JunkError](j.err); ok {
				p.err = j.err // nothing there to salvage
				return 0, p.err
			}
			// A damaged or cut frame: the streaming decoder hands out what
			// it can of it, block by block, before the error, as it does
			// for a stream of one frame.
			zr, err := zstd.NewReader(bytes.NewReader(j.comp),
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxWindow(p.opts.MaxZstdWindow))
			if err != nil {
				p.err = j.err
				return 0, p.err
			}
			p.stream, p.salvage = zr, j.err
			p.sclose = zr.Close
			return p.Read(b)
		case j.rest != nil:
			// Every frame before this one has been handed out and the
			// splitter has stopped: the stream is the caller's now.
			zr, err := newStreamDecoder(j.rest, p.opts)
			if err != nil {
				p.err = err
				return 0, err
			}
			ra := newReadAhead(zr)
			p.stream = ra
			p.sclose = func() { ra.Close(); zr.Close() }
			return p.Read(b)
		}
	}
	n := copy(b, p.cur.out[p.pos:])
	p.pos += n
	return n, nil
}

// offset is where in the archive file damage was found: the start of the
// frame that failed or is being read, or, once the streaming decoder has the
// stream, how far it has read.
func (p *parallelZstd) offset() int64 {
	switch {
	case p.salvage != nil:
		return p.failAt
	case p.stream != nil:
		return p.raw.count()
	case p.err != nil:
		return p.failAt
	case p.cur != nil:
		return p.cur.offset
	}
	return 0
}

// Close stops the goroutines and waits for them, so the source may be
// closed next.
func (p *parallelZstd) Close() {
	p.once.Do(func() {
		close(p.stop)
		// Unblock the splitter if it waits on a full queue, and the decoders.
		go func() {
			for range p.order {
			}
		}()
		p.wg.Wait()
		if p.sclose != nil {
			p.sclose()
		}
		p.dec.Close()
	})
}

// parallelFrames reports whether a zstd stream starting with head goes to
// the parallel reader: its first frame, after any skippable frames (pzstd
// writes one before each), declares a content size small enough.
func parallelFrames(head []byte) bool {
	r := bytes.NewReader(head)
	for {
		_, f, stream, err := readFrame(r, nil, ^uint64(0))
		switch {
		case f.skippable && err == nil:
			continue
		case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
			return false
		}
		return !f.skippable && !stream && f.hasSize
	}
}
