package sqlstore

import (
	"bytes"
	"io"
	"sort"
)

// csvCapper passes a psql --csv stream through to encoding/csv with every
// field cut at maxField bytes and every record at maxRecord bytes, reading
// at most maxKept bytes besides what it drops, so that what the CSV reader
// buffers and the table holds stay bounded
// however long a field of the input is: a cut field ends in the output with
// a marker and is closed at once, and the rest of it is read and dropped
// without being kept. Input within the limits passes through unchanged.
//
// It follows RFC 4180 as psql writes it (comma, double quotes doubled inside
// quoted fields, records ending with a newline outside quotes); input that is
// not valid CSV is passed on for encoding/csv to report. Cuts never split a
// UTF-8 sequence. Newlines dropped inside cut quoted fields are remembered,
// so that line numbers of the output can be turned back into lines of the
// input (inputLine).
type csvCapper struct {
	r         io.Reader
	maxField  int   // content bytes kept of one field
	maxRecord int   // bytes kept of one record
	maxKept   int64 // input bytes read, less those dropped from cut fields; < 0 for no limit

	fieldMarker, recordMarker string

	in    []byte // the chunk being processed
	inPos int
	out   []byte // processed, not yet read
	err   error  // from r, handed out once out is drained

	state     capState
	skip      capSkip
	quoted    bool // the current field started with a quote
	kept      int  // content bytes of the current field kept
	record    int  // bytes of the current record kept
	col       int  // index of the current field in its record
	pend      [4]byte
	npend     int // bytes of an incomplete UTF-8 sequence held back
	need      int // length of that sequence
	readBytes int64
	skipped   int64 // input bytes dropped: read while skip was set

	outLines int         // newlines written
	dropped  int         // newlines dropped
	shifts   []lineShift // where dropped newlines shift the output's lines

	recLine    int // output line the current record starts on, less one
	records    int // records with something in them ended
	cuts       int // fields cut
	firstCut   int // input line of the record of the first cut field
	firstCol   int // its field index
	firstInRec int // records ended before it: 0 for the header
	stopped    bool
	stopMid    bool  // stopped inside a record, which was closed and must be dropped
	stopOffset int64 // output offset just past that closed record
	written    int64 // output bytes handed out or queued
}

type capState uint8

const (
	capFieldStart capState = iota
	capBare                // in an unquoted field
	capQuoted              // in a quoted field
	capQuote               // in a quoted field, just after a quote
)

type capSkip uint8

const (
	skipNone   capSkip = iota
	skipField          // the rest of the current field is dropped
	skipRecord         // the rest of the current record is dropped
)

// lineShift says that output lines after line `after` are `total` lines
// earlier than in the input.
type lineShift struct{ after, total int }

const capChunk = 32 << 10

func newCSVCapper(r io.Reader, maxField, maxRecord int, maxKept int64) *csvCapper {
	return &csvCapper{
		r: r, maxField: maxField, maxRecord: maxRecord, maxKept: maxKept,
		fieldMarker:  "…[cut by rwdiag: field longer than " + sizeText(int64(maxField)) + "]",
		recordMarker: "…[cut by rwdiag: row longer than " + sizeText(int64(maxRecord)) + "]",
		in:           make([]byte, capChunk),
		out:          make([]byte, 0, capChunk+256),
	}
}

func (c *csvCapper) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.fill()
	}
	n := copy(p, c.out)
	c.out = c.out[:copy(c.out, c.out[n:])]
	return n, nil
}

// fill reads one chunk of input and processes it into out.
func (c *csvCapper) fill() {
	want := len(c.in)
	if c.maxKept >= 0 {
		// One byte past the limit tells whether there is more.
		want = int(min(int64(want), c.maxKept-c.keptBytes()+1))
	}
	n, err := c.r.Read(c.in[:want])
	if c.maxKept >= 0 && n == want && c.keptBytes()+int64(n) > c.maxKept {
		// The last byte may be one too many: it is, unless it belongs to
		// the dropped part of a cut field or bytes before it were dropped.
		c.process(c.in[:n-1])
		c.readBytes += int64(n - 1)
		if c.keptBytes() >= c.maxKept && c.skip == skipNone {
			c.stop()
			c.err = io.EOF
			return
		}
		c.process(c.in[n-1 : n])
		c.readBytes++
	} else {
		c.process(c.in[:n])
		c.readBytes += int64(n)
	}
	if err != nil {
		c.err = err
	}
}

// keptBytes is the input bytes read that were not dropped from cut fields.
func (c *csvCapper) keptBytes() int64 { return c.readBytes - c.skipped }

// stop ends the output at the input limit, closing a record cut short.
func (c *csvCapper) stop() {
	c.stopped = true
	if c.col == 0 && c.record == 0 && c.skip == skipNone {
		return // at a record boundary, or nothing of the record written
	}
	if c.skip == skipNone {
		c.npend = 0
		if c.state == capQuoted || c.state == capQuote {
			c.emit('"')
		}
	}
	c.emit('\n')
	c.stopMid = true
	c.stopOffset = c.written
}

func (c *csvCapper) emit(b byte) {
	c.out = append(c.out, b)
	c.written++
	c.record++
	if b == '\n' {
		c.outLines++
	}
}

func (c *csvCapper) emitString(s string) {
	c.out = append(c.out, s...)
	c.written += int64(len(s))
	c.record += len(s)
}

func (c *csvCapper) flushPending() {
	for i := range c.npend {
		c.emit(c.pend[i])
	}
	c.npend = 0
}

// content handles one content byte of the current field; pair is set for a
// doubled quote inside a quoted field, one content byte written as two.
func (c *csvCapper) content(b byte, pair bool) {
	if c.skip != skipNone {
		if b == '\n' {
			c.dropNewline()
		}
		return
	}
	w := 1
	if pair {
		w = 2
	}
	if c.kept+1 > c.maxField {
		c.cut(skipField)
		if b == '\n' {
			c.dropNewline()
		}
		return
	}
	if c.record+c.npend+w > c.maxRecord {
		c.cut(skipRecord)
		if b == '\n' {
			c.dropNewline()
		}
		return
	}
	c.kept++
	switch {
	case pair:
		c.flushPending()
		c.emit('"')
		c.emit('"')
	case c.npend > 0 && b&0xC0 == 0x80:
		c.pend[c.npend] = b
		c.npend++
		if c.npend == c.need {
			c.flushPending()
		}
	case b >= 0xC0 && b < 0xF8:
		c.flushPending()
		c.pend[0] = b
		c.npend = 1
		switch {
		case b < 0xE0:
			c.need = 2
		case b < 0xF0:
			c.need = 3
		default:
			c.need = 4
		}
	default:
		c.flushPending()
		c.emit(b)
	}
}

// cut ends the current field in the output with a marker, dropping the
// held-back bytes of an unfinished UTF-8 sequence, and drops the rest of
// the field (skipField) or of the record (skipRecord) from the input.
func (c *csvCapper) cut(how capSkip) {
	c.npend = 0
	if how == skipRecord {
		c.emitString(c.recordMarker)
	} else {
		c.emitString(c.fieldMarker)
	}
	if c.quoted {
		c.emit('"')
	}
	if c.cuts == 0 {
		c.firstCut = c.inputLine(c.recLine + 1)
		c.firstCol = c.col
		c.firstInRec = c.records
	}
	c.cuts++
	c.skip = how
}

func (c *csvCapper) dropNewline() {
	c.dropped++
	line := c.outLines + 1
	if n := len(c.shifts); n > 0 && c.shifts[n-1].after == line {
		c.shifts[n-1].total = c.dropped
		return
	}
	c.shifts = append(c.shifts, lineShift{after: line, total: c.dropped})
}

// inputLine returns the input line of output line n.
func (c *csvCapper) inputLine(n int) int {
	i := sort.Search(len(c.shifts), func(i int) bool { return c.shifts[i].after >= n })
	if i == 0 {
		return n
	}
	return n + c.shifts[i-1].total
}

// endField finishes the current field at a comma or a newline.
func (c *csvCapper) endField() {
	if c.skip == skipNone {
		c.flushPending()
	}
	if c.skip == skipField {
		c.skip = skipNone
	}
	c.kept = 0
	c.quoted = false
	c.state = capFieldStart
}

// structural writes a comma or newline that ends a field.
func (c *csvCapper) structural(b byte) {
	c.endField()
	if b == '\n' {
		if c.record > 0 || c.col > 0 {
			c.records++
		}
		c.skip = skipNone
		c.emit('\n')
		c.record = 0
		c.col = 0
		c.recLine = c.outLines
		return
	}
	if c.skip == skipNone {
		c.emit(b)
	}
	c.col++
}

func (c *csvCapper) process(in []byte) {
	for i := 0; i < len(in); i++ {
		b := in[i]
		if c.skip != skipNone {
			c.skipped++
		}
		switch c.state {
		case capFieldStart:
			switch b {
			case '"':
				c.state = capQuoted
				c.quoted = true
				if c.skip == skipNone {
					c.emit('"')
				}
				continue
			case ',', '\n':
				c.structural(b)
				continue
			}
			c.state = capBare
			fallthrough
		case capBare:
			if b == ',' || b == '\n' {
				c.structural(b)
				continue
			}
			if c.skip != skipNone {
				// Dropping: jump to the end of the field.
				j := i
				for j < len(in) && in[j] != ',' && in[j] != '\n' {
					j++
				}
				c.skipped += int64(j - i - 1)
				i = j - 1
				continue
			}
			// The common case: a run of plain bytes with room to keep them.
			if c.npend == 0 && b < 0x80 {
				if j := c.keepPlain(in, i, ','); j > i {
					i = j - 1
					continue
				}
			}
			c.content(b, false)
		case capQuoted:
			if b == '"' {
				c.state = capQuote
				continue
			}
			if c.skip != skipNone {
				// Dropping: jump to the next quote, counting the newlines.
				j := bytes.IndexByte(in[i:], '"')
				if j < 0 {
					j = len(in) - i
				}
				for range bytes.Count(in[i:i+j], []byte{'\n'}) {
					c.dropNewline()
				}
				c.skipped += int64(j - 1)
				i += j - 1
				continue
			}
			if c.npend == 0 && b < 0x80 && b != '\n' {
				if j := c.keepPlain(in, i, '"'); j > i {
					i = j - 1
					continue
				}
			}
			c.content(b, false)
		case capQuote:
			if b == '"' {
				c.state = capQuoted
				c.content(b, true)
				continue
			}
			// The closing quote: what follows it is a comma or a newline
			// (encoding/csv also takes "\r\n"), else an error for it to find.
			if c.skip == skipNone {
				c.flushPending()
				c.emit('"')
			}
			c.quoted = false
			switch b {
			case ',', '\n':
				c.structural(b)
			default:
				c.state = capBare
				c.kept = 0
				c.content(b, false)
			}
		}
	}
}

// keepPlain keeps the run of plain ASCII bytes of in from i that ends
// before stop, a newline, a non-ASCII byte or the field's or record's room,
// and returns where it ended (i when nothing was kept): the common case,
// copied without going byte by byte through content.
func (c *csvCapper) keepPlain(in []byte, i int, stop byte) int {
	j := i
	room := min(c.maxField-c.kept, c.maxRecord-c.record)
	for j < len(in) && j-i < room && in[j] != stop && in[j] != '\n' && in[j] < 0x80 {
		j++
	}
	c.out = append(c.out, in[i:j]...)
	c.kept += j - i
	c.record += j - i
	c.written += int64(j - i)
	return j
}
