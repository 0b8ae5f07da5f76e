package awaittree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Parse reads one await-tree dump in any shape RisingWave has produced (see
// the package doc) and returns what it understood and what it did not. It
// sniffs the shape: a '{' first means JSON (the dashboard's pbjson
// StackTraceResponse, or one serde tree); `report created at:` first means a
// diagnose report, whose await-tree part it finds; anything else is read as
// sectioned text (risectl, the dashboard page's text, a compute node's own
// print-out).
//
// Parse never fails on content: what it cannot read goes to Dump.Unknown.
// It returns an error only when reading r fails.
func Parse(r io.Reader) (*Dump, error) {
	return ParseLimits(r, DefaultLimits())
}

// ParseLimits is Parse with explicit limits.
func ParseLimits(r io.Reader, lim Limits) (*Dump, error) {
	lim = lim.sane()
	p := &parser{d: &Dump{}, lim: lim}
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	if first == '{' {
		data, err := io.ReadAll(io.LimitReader(br, lim.MaxJSONBytes+1))
		if err != nil {
			return nil, fmt.Errorf("awaittree: read JSON: %w", err)
		}
		if int64(len(data)) > lim.MaxJSONBytes {
			p.d.Stats.Truncated = true
			p.unknown(1, string(data[:min(len(data), 64)]), fmt.Sprintf("JSON document larger than %d bytes; not parsed", lim.MaxJSONBytes))
			return p.d, nil
		}
		p.parseJSONDocument(data)
		return p.d, nil
	}
	if err := p.parseText(br); err != nil {
		return nil, err
	}
	return p.d, nil
}

func (l Limits) sane() Limits {
	def := DefaultLimits()
	if l.MaxInputBytes <= 0 {
		l.MaxInputBytes = def.MaxInputBytes
	}
	if l.MaxJSONBytes <= 0 {
		l.MaxJSONBytes = def.MaxJSONBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = def.MaxLineBytes
	}
	if l.MaxSpans <= 0 {
		l.MaxSpans = def.MaxSpans
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = def.MaxDepth
	}
	if l.MaxUnknown <= 0 {
		l.MaxUnknown = def.MaxUnknown
	}
	if l.MaxUnknownText <= 0 {
		l.MaxUnknownText = def.MaxUnknownText
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = def.MaxTextBytes
	}
	if l.MaxEpochs <= 0 {
		l.MaxEpochs = def.MaxEpochs
	}
	if l.MaxNameLines <= 0 {
		l.MaxNameLines = def.MaxNameLines
	}
	return l
}

// firstByte returns the first byte that is not white space or a UTF-8 byte
// order mark, without consuming anything; 0 for empty input.
func firstByte(br *bufio.Reader) (byte, error) {
	off := 0
	if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
		off = 3
	}
	for {
		b, err := br.Peek(off + 1)
		if len(b) <= off {
			if err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
				return 0, nil // empty, or 64 KiB of white space: not JSON
			}
			return 0, fmt.Errorf("awaittree: read: %w", err)
		}
		switch c := b[off]; c {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return c, nil
		}
	}
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// parser holds the dump being filled and the limits.
type parser struct {
	d   *Dump
	lim Limits
}

func (p *parser) unknown(line int, text, reason string) {
	if len(p.d.Unknown) >= p.lim.MaxUnknown {
		p.d.Stats.UnknownDropped++
		return
	}
	p.d.Unknown = append(p.d.Unknown, Unparsed{Line: line, Text: clip(text, p.lim.MaxUnknownText), Reason: reason})
}

// takeSpan counts one more span, or reports that the cap is reached.
func (p *parser) takeSpan() bool {
	if p.d.Stats.Spans >= p.lim.MaxSpans {
		p.d.Stats.SpansDropped++
		return false
	}
	p.d.Stats.Spans++
	return true
}

func (p *parser) addSection(name string, kind Kind, line int, understood bool) *Section {
	p.d.Sections = append(p.d.Sections, Section{Name: name, Kind: kind, Line: line, Understood: understood})
	return &p.d.Sections[len(p.d.Sections)-1]
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// lineReader reads lines of any length, keeping at most max bytes of each.
type lineReader struct {
	br      *bufio.Reader
	max     int
	budget  int64 // bytes left to read
	n       int   // lines read
	buf     []byte
	cut     bool // the last line was longer than max
	stopped bool // the budget ran out
}

// next returns the next line without its line ending.
func (lr *lineReader) next() (string, bool, error) {
	lr.buf = lr.buf[:0]
	lr.cut = false
	if lr.budget <= 0 {
		if _, err := lr.br.Peek(1); err == nil {
			lr.stopped = true
		}
		return "", false, nil
	}
	read, total, ended := false, 0, false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
			total += len(chunk)
			ended = chunk[len(chunk)-1] == '\n'
			lr.budget -= int64(len(chunk))
			if room := lr.max - len(lr.buf); room > 0 {
				lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if lr.budget <= 0 {
				lr.stopped = true
				break
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", false, fmt.Errorf("awaittree: read line %d: %w", lr.n+1, err)
		}
		if err != nil && !read {
			return "", false, nil
		}
		break
	}
	if ended {
		total--
	}
	lr.cut = total > lr.max
	lr.n++
	b := bytes.TrimSuffix(lr.buf, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if lr.n == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	b = bytes.TrimRight(b, " \t")
	return string(b), true, nil
}
