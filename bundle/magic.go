package bundle

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// FormatError reports a file that is not a tar, tar.zst or tar.gz archive,
// saying what it is when its first bytes tell: another archive or
// compression format, or text. errors.Is(err, ErrUnknownFormat) holds.
type FormatError struct {
	Path  string
	Found string // "xz", "zip", ...: what the magic bytes say; "" if unknown
	Text  bool   // the first bytes are printable UTF-8 text
	Head  []byte // up to the first 8 bytes
}

func (e *FormatError) Error() string {
	switch {
	case len(e.Head) == 0:
		return fmt.Sprintf("%s: empty file: not a directory, tar, tar.zst or tar.gz archive", e.Path)
	case e.Found != "":
		return fmt.Sprintf("%s: this file is %s, not tar, tar.zst or tar.gz: unpack it and analyze the directory", e.Path, e.Found)
	case e.Text:
		return fmt.Sprintf("%s: this file is text (it starts %q), not a directory, tar, tar.zst or tar.gz archive", e.Path, e.Head)
	}
	return fmt.Sprintf("%s: not a directory, tar, tar.zst or tar.gz archive (it starts with the bytes % x)", e.Path, e.Head)
}

// Is makes errors.Is(err, ErrUnknownFormat) hold.
func (e *FormatError) Is(target error) bool { return target == ErrUnknownFormat }

// foreignMagic are the first bytes of the archive and compression formats a
// bundle is sometimes sent in instead, with what to call them.
var foreignMagic = []struct {
	magic []byte
	name  string
}{
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0x00}, "xz (a .tar.xz?)"},
	{[]byte{'P', 'K', 0x03, 0x04}, "zip"},
	{[]byte{'P', 'K', 0x05, 0x06}, "zip (an empty one)"},
	{[]byte{'P', 'K', 0x07, 0x08}, "zip"},
	{[]byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, "7z"},
	{[]byte{'B', 'Z', 'h'}, "bzip2 (a .tar.bz2?)"},
	{[]byte{0x04, 0x22, 0x4d, 0x18}, "lz4 (a .tar.lz4?)"},
	{[]byte{'R', 'a', 'r', '!', 0x1a, 0x07}, "rar"},
	{[]byte{'L', 'Z', 'I', 'P'}, "lzip"},
	{[]byte{0x5d, 0x00, 0x00}, "lzma"},
	{[]byte{0x1f, 0x9d}, "compress'd (.Z)"},
}

// formatError says what the first bytes of a file that sniff refused are.
func formatError(name string, head []byte) *FormatError {
	e := &FormatError{Path: name, Head: head[:min(len(head), 8)]}
	for _, m := range foreignMagic {
		if bytes.HasPrefix(head, m.magic) {
			e.Found = m.name
			return e
		}
	}
	e.Text = printable(head)
	if e.Text {
		e.Head = head[:min(len(head), 16)]
		for !utf8.Valid(e.Head) { // do not cut a character in two
			e.Head = e.Head[:len(e.Head)-1]
		}
	}
	return e
}

// printable reports whether b reads as text: valid UTF-8 (but maybe a
// character cut at the end) without control characters but tab, CR, LF.
func printable(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:])
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
		i += n
	}
	return true
}
