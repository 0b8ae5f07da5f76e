package bundle

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownFormat is returned when a file is neither a directory nor a tar,
// tar.zst or tar.gz archive.
var ErrUnknownFormat = errors.New("bundle: not a directory, tar, tar.zst or tar.gz archive")

// UnsafeEntryError reports an archive entry the reader refused: an absolute
// path, a ".." component, a link or a device. The entry is skipped and the
// reader stays usable.
type UnsafeEntryError struct {
	Path   string // the name as the archive spells it
	Reason string
}

func (e *UnsafeEntryError) Error() string {
	return fmt.Sprintf("refused entry %q: %s", e.Path, e.Reason)
}

// DuplicateEntryError reports an archive entry at a path an earlier entry
// already had (two manifest.json, the same log twice). The first copy is the
// one every reader of the bundle uses; this one is skipped, unread, and the
// reader stays usable.
type DuplicateEntryError struct {
	Path string // the path in the bundle, as Entry.Path spells it
	Name string // the name as the archive spells it
}

func (e *DuplicateEntryError) Error() string {
	return fmt.Sprintf("refused entry %q: another copy of %q, which an earlier entry holds; the first copy is the one read", e.Name, e.Path)
}

// LimitError reports that a size limit was reached. For the per-entry limit it
// is returned by the entry's Read and the reader stays usable; for the total
// limit it is returned by Next and reading stops.
type LimitError struct {
	Path  string // the entry being read when the limit was reached
	Limit int64
	Total bool // the limit on all entries together, not on one entry
}

func (e *LimitError) Error() string {
	if e.Total {
		return fmt.Sprintf("entry %q: total uncompressed size passed the limit of %d bytes (possible decompression bomb; raise --max-total-bytes to read further)", e.Path, e.Limit)
	}
	return fmt.Sprintf("entry %q: larger than the per-entry limit of %d bytes; the first %d bytes were read (raise --max-entry-bytes to read it whole)", e.Path, e.Limit, e.Limit)
}

// DamageError reports a truncated or corrupt archive. Every entry handed out
// before it is intact up to the damage; Next keeps returning the same error.
type DamageError struct {
	Archive string // the file being read
	// Entry is the entry being read when the damage was found, or the last
	// entry read whole when the damage sits between entries ("" if none).
	Entry   string
	Between bool
	// Offset is how many bytes of the archive file had been consumed, and
	// Decompressed how many bytes of tar stream had been produced.
	Offset       int64
	Decompressed int64
	Err          error
}

func (e *DamageError) Error() string {
	where := "at the start of the archive"
	switch {
	case e.Entry != "" && e.Between:
		where = fmt.Sprintf("after entry %q", e.Entry)
	case e.Entry != "":
		where = fmt.Sprintf("in entry %q", e.Entry)
	}
	return fmt.Sprintf("%s: archive damaged %s, at byte %d of the file (%d bytes decompressed): %v",
		e.Archive, where, e.Offset, e.Decompressed, e.Err)
}

func (e *DamageError) Unwrap() error { return e.Err }

// Fatal reports whether err ends reading: damage, the total limit, or a
// failure to read the source. An *UnsafeEntryError, a *DuplicateEntryError
// or a per-entry *LimitError is not fatal; the caller may go on calling Next.
func Fatal(err error) bool {
	if err == nil {
		return false
	}
	var ue *UnsafeEntryError
	if errors.As(err, &ue) {
		return false
	}
	var de *DuplicateEntryError
	if errors.As(err, &de) {
		return false
	}
	var le *LimitError
	if errors.As(err, &le) {
		return le.Total
	}
	var te *TrailingDataError
	if errors.As(err, &te) {
		return false
	}
	return true
}

// TrailingDataError reports bytes after the end of a bundle's tar archive
// that are neither its padding nor read: data after the end-of-archive
// marker (a second archive appended to the first, which GNU tar reads only
// with --ignore-zeros), or bytes after the last compressed frame (zstd) or
// member (gzip) that do not decompress. Every entry of the archive was read
// before it; Next returns it once, after the last entry, and then io.EOF.
type TrailingDataError struct {
	Archive string
	// End is where the tar archive ends in its tar stream: the byte after
	// its end-of-archive marker.
	End int64
	// Data is the offset in the tar stream of the first byte after End
	// that is not zero, -1 when there is none; Bytes is how many bytes
	// follow End, and More is set when more than that follow, unread.
	Data  int64
	Bytes int64
	More  bool
	// Err is why the compressed stream could not be read to its end, when
	// it could not: a *JunkError for bytes that are not compressed data.
	Err error
}

func (e *TrailingDataError) Error() string {
	var parts []string
	if e.Data >= 0 {
		n := fmt.Sprintf("%d bytes", e.Bytes-(e.Data-e.End))
		if e.More {
			n = "more than " + n
		}
		parts = append(parts, fmt.Sprintf("%s of data follow the tar archive's end-of-archive marker (from byte %d of the tar stream) and were not read: "+
			"another archive appended to this one? (GNU tar reads such archives with --ignore-zeros)", n, e.Data))
	} else if e.More {
		parts = append(parts, fmt.Sprintf("more than %d bytes follow the tar archive's end-of-archive marker (byte %d of the tar stream); the rest was not read", e.Bytes, e.End))
	}
	var je *JunkError
	switch {
	case errors.As(e.Err, &je):
		parts = append(parts, e.Err.Error()+"; they were not read")
	case e.Err != nil:
		parts = append(parts, fmt.Sprintf("the compressed stream is damaged or cut after the tar archive's end (byte %d of the tar stream): %v", e.End, e.Err))
	}
	return fmt.Sprintf("%s: after the last entry: %s", e.Archive, strings.Join(parts, "; "))
}

func (e *TrailingDataError) Unwrap() error { return e.Err }

// JunkError reports bytes after a compressed stream's last frame or member
// that do not begin another: what `zstd -d` calls an unknown header and
// `gzip -d` trailing garbage.
type JunkError struct {
	Format string // "zstd" or "gzip"
	Offset int64  // where the bytes start in the archive file
	Err    error  // the decoder's word on them, if it had one
}

func (e *JunkError) Error() string {
	unit := "frame"
	if e.Format == "gzip" {
		unit = "member"
	}
	msg := fmt.Sprintf("the bytes from byte %d of the file on are not %s data (no %s begins there)", e.Offset, e.Format, unit)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *JunkError) Unwrap() error { return e.Err }
