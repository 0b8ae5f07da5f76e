package bundle

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// The streaming zstd path (`tar | zstd`: one frame, or frames without a
// content size) decodes on the readAhead's goroutine, which is the critical
// path of reading such a bundle: decoding takes the whole of a core while
// the analysis has time to spare (on the 2 GiB benchmark bundle it waited
// for the decoder 1.7-2.6 s of a 3.4 s run). So the frames' checksums (the
// low 32 bits of the content's XXH64, RFC 8878 3.1.1) are not checked by the
// decoder but by the reading side, as it takes each chunk (see
// readAhead.Read), which moves about a tenth of the decoding goroutine's
// work (0.24 s at 2 GiB) to the side that waits for it. For that the
// decoder is given one frame at a time by a frameSplitter, which follows
// the frame's headers to find where it ends and notes its checksum; the
// readAhead's chunks end where frames end.

// frameSplitter is an io.Reader over the current frame of a zstd stream:
// the frame's bytes, as its frame and block headers say where it ends,
// then io.EOF. nextFrame moves on to the next frame. Skippable frames
// between frames are passed over. Bytes that are not a frame as it reads
// them (a wrong magic number, a reserved block type, a cut stream) are
// handed to the decoder as they are, to the end of the stream, for the
// decoder to report.
type frameSplitter struct {
	br    *bufio.Reader
	left  int64 // bytes of the current piece still to hand out
	state splitState
	fhd   byte // the frame header descriptor
	// sum is the frame's checksum, when hasSum.
	sum    uint32
	hasSum bool
	// through is set once the bytes are handed out as they are (see rest).
	through bool
	// pos is how many bytes of br have been consumed: where br's next byte
	// sits in the archive file. junk, when isJunk, is where bytes that
	// begin no frame begin.
	pos    int64
	junk   int64
	isJunk bool
}

type splitState int

const (
	splitMagic splitState = iota // at a frame's start
	splitBlock                   // at a block header
	splitSum                     // at the checksum
	splitDone                    // the frame's last byte handed out
)

func newFrameSplitter(br *bufio.Reader) *frameSplitter {
	return &frameSplitter{br: br}
}

// Read hands out the current frame's bytes.
func (s *frameSplitter) Read(p []byte) (int, error) {
	for s.left == 0 {
		if s.state == splitDone {
			return 0, io.EOF
		}
		if err := s.piece(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.br.Read(p)
	s.left -= int64(n)
	s.pos += int64(n)
	if err == io.EOF {
		// Cut short: the decoder reports it.
		s.left, s.state = 0, splitDone
	}
	if err == nil && n == 0 {
		err = io.ErrNoProgress
	}
	return n, err
}

// piece reads the next header and sets left to the bytes up to the next
// one.
func (s *frameSplitter) piece() error {
	switch s.state {
	case splitMagic:
		for {
			b, err := s.br.Peek(8)
			if len(b) >= 4 && b[0]&0xf0 == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18 {
				if len(b) < 8 {
					s.rest(len(b))
					return nil
				}
				n := 8 + int64(binary.LittleEndian.Uint32(b[4:]))
				m, err := io.CopyN(io.Discard, s.br, n)
				s.pos += m
				if err != nil {
					return unexpected(err)
				}
				continue
			}
			if len(b) == 0 && err != nil {
				if err == io.EOF {
					// Skippable frames, and then the end.
					s.state = splitDone
					return nil
				}
				return err
			}
			if len(b) < 5 || [4]byte(b[:4]) != [4]byte(zstdMagic) {
				if len(b) < 4 || [4]byte(b[:4]) != [4]byte(zstdMagic) {
					s.junk, s.isJunk = s.pos, true // not a frame: the decoder says so
				}
				s.rest(len(b))
				return nil
			}
			break
		}
		b, _ := s.br.Peek(5)
		d := b[4]
		single := d&0x20 != 0
		n := 5 + [4]int{0, 1, 2, 4}[d&3] + [4]int{0, 2, 4, 8}[d>>6]
		if single && d>>6 == 0 {
			n++ // a one-byte content size
		}
		if !single {
			n++ // the window descriptor
		}
		s.fhd, s.hasSum, s.sum = d, false, 0
		s.left, s.state = int64(n), splitBlock
	case splitBlock:
		b, _ := s.br.Peek(3)
		if len(b) < 3 {
			s.rest(len(b))
			return nil
		}
		v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		size := int64(v >> 3)
		switch (v >> 1) & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3: // reserved: the decoder refuses it
			s.rest(math.MaxInt64)
			return nil
		}
		s.left = 3 + size
		if v&1 != 0 { // the last block
			s.state = splitDone
			if s.fhd&0x04 != 0 {
				s.state = splitSum
			}
		}
	case splitSum:
		b, _ := s.br.Peek(4)
		if len(b) < 4 {
			s.rest(len(b))
			return nil
		}
		s.sum, s.hasSum = binary.LittleEndian.Uint32(b), true
		s.left, s.state = 4, splitDone
	}
	return nil
}

// rest hands out the rest of the stream as it is (n bytes are there), and
// then ends: no frame the splitter can follow, so no checksum.
func (s *frameSplitter) rest(n int) {
	s.state, s.hasSum, s.through = splitDone, false, true
	if n > 0 {
		s.left = math.MaxInt64
	}
}

// nextFrame moves to the next frame, and reports whether there is one.
func (s *frameSplitter) nextFrame() (bool, error) {
	if s.state != splitDone || s.left != 0 || s.through {
		return false, errFrameEnd
	}
	s.state, s.left, s.hasSum = splitMagic, 0, false
	b, err := s.br.Peek(1)
	if len(b) == 0 {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	if b[0] == 0 { // begins no frame: padding, or junk
		at := s.pos
		pad, err := zeroPadding(s.br)
		switch {
		case err != nil:
			return false, err
		case !pad:
			return false, &JunkError{Format: "zstd", Offset: at}
		}
		return false, nil
	}
	return true, nil
}

// errFrameEnd is a frame whose end the decoder and the frame's headers do
// not agree on, or bytes after a frame that begin none and that the decoder
// took for the end of the stream.
var errFrameEnd = errors.New("zstd: the stream does not end where its frame headers say")

// frameEnd marks a chunk of the readAhead as the end of a frame: the
// reading side checks the frame's content against sum, when check.
type frameEnd struct {
	end   bool
	check bool
	sum   uint32
}

// zstdChunks fills the readAhead's chunks from the streaming decoder, one
// frame at a time, a chunk ending where a frame ends.
type zstdChunks struct {
	sp  *frameSplitter
	dec *zstd.Decoder
}

// newStreamChunks returns the streaming decoder over br's frames, and the
// chunk source the readAhead reads it by.
func newStreamChunks(br *bufio.Reader, opts Options) (*zstdChunks, error) {
	sp := newFrameSplitter(br)
	dec, err := newStreamDecoder(sp, opts)
	if err != nil {
		return nil, err
	}
	return &zstdChunks{sp: sp, dec: dec}, nil
}

func (z *zstdChunks) fill(buf []byte) (int, frameEnd, error) {
	n := 0
	for n < len(buf) {
		m, err := z.dec.Read(buf[n:])
		n += m
		if err == io.EOF {
			end := frameEnd{end: true, check: z.sp.hasSum, sum: z.sp.sum}
			more, err := z.sp.nextFrame()
			if err != nil {
				return n, frameEnd{}, z.junk(err)
			}
			if !more {
				return n, end, io.EOF
			}
			if err := z.dec.Reset(z.sp); err != nil {
				return n, end, z.junk(err)
			}
			return n, end, nil
		}
		if err != nil {
			return n, frameEnd{}, z.junk(err)
		}
	}
	return n, frameEnd{}, nil
}

// junk is err, or a *JunkError when the decoder failed on bytes that begin
// no frame.
func (z *zstdChunks) junk(err error) error {
	if z.sp.isJunk {
		return &JunkError{Format: "zstd", Offset: z.sp.junk, Err: err}
	}
	return err
}

func (z *zstdChunks) Close() { z.dec.Close() }
