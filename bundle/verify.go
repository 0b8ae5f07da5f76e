package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrNoManifest is returned by Verify for a bundle without a manifest.
var ErrNoManifest = errors.New("bundle: no manifest.json (a hand-made bundle cannot be verified)")

// Mismatch is a file whose size or SHA-256 differs from the manifest's record.
type Mismatch struct {
	Path                  string
	WantSize, GotSize     int64
	WantSHA256, GotSHA256 string
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Manifest *Manifest // nil when the bundle has none
	// Checked is the number of files hashed whole, the manifest not included.
	Checked int
	// Missing lists files the manifest records and the bundle does not hold.
	Missing []string
	// Extra lists files the bundle holds and the manifest does not record.
	// manifest.json itself is not extra.
	Extra      []string
	Mismatched []Mismatch
	// Problems are the entries refused, the files cut by the per-entry limit
	// (they are neither hashed nor compared), duplicate entries (the first
	// copy is the one verified) and, last,
	// the fatal error that ended reading, if any.
	Problems []error
}

// OK reports whether the bundle is exactly what its manifest records. Extra
// files alone do not fail it.
func (v *VerifyReport) OK() bool {
	return v.Manifest != nil && len(v.Missing) == 0 && len(v.Mismatched) == 0 && len(v.Problems) == 0
}

// Verify reads every entry of r once, hashing each as it streams, and checks
// the files against the sizes and SHA-256 sums the manifest records. The
// manifest may sit anywhere in the archive. The report is always returned; the
// error is ErrNoManifest when the bundle has no manifest, or says why the
// manifest could not be decoded. Damage does not make the error non-nil: it is
// the last of the report's Problems.
func Verify(r *Reader) (*VerifyReport, error) {
	type sum struct {
		size int64
		sha  string
	}
	rep := &VerifyReport{}
	got := map[string]sum{}
	unhashed := map[string]bool{} // seen, but not read whole
	var manifestErr error
	buf := make([]byte, 64<<10)
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rep.Problems = append(rep.Problems, err)
			if Fatal(err) {
				break
			}
			continue
		}
		if e.Path == ManifestPath { // the first: the reader refuses later copies
			m, rerr, derr := readManifest(e, buf)
			if rerr != nil {
				rep.Problems = append(rep.Problems, rerr)
				manifestErr = rerr
				if Fatal(rerr) {
					break
				}
				continue
			}
			if derr != nil {
				manifestErr = derr
				continue
			}
			rep.Manifest = m
			continue
		}
		h := sha256.New()
		n, err, _ := copyEntry(h, e, buf)
		if err != nil {
			unhashed[e.Path] = true
			rep.Problems = append(rep.Problems, err)
			if Fatal(err) {
				break
			}
			continue
		}
		got[e.Path] = sum{size: n, sha: hex.EncodeToString(h.Sum(nil))}
		rep.Checked++
	}

	if rep.Manifest == nil {
		if manifestErr != nil {
			return rep, fmt.Errorf("verify %s: %w", r.Name(), manifestErr)
		}
		return rep, ErrNoManifest
	}
	listed := map[string]bool{}
	for _, f := range rep.Manifest.Files {
		if f.Path == ManifestPath || listed[f.Path] {
			continue
		}
		listed[f.Path] = true
		if unhashed[f.Path] {
			continue // already a problem
		}
		g, ok := got[f.Path]
		switch {
		case !ok:
			rep.Missing = append(rep.Missing, f.Path)
		case g.size != f.Size || !strings.EqualFold(g.sha, f.SHA256):
			rep.Mismatched = append(rep.Mismatched, Mismatch{Path: f.Path,
				WantSize: f.Size, GotSize: g.size, WantSHA256: f.SHA256, GotSHA256: g.sha})
		}
	}
	for p := range got {
		if !listed[p] {
			rep.Extra = append(rep.Extra, p)
		}
	}
	for p := range unhashed {
		if !listed[p] {
			rep.Extra = append(rep.Extra, p)
		}
	}
	slices.Sort(rep.Missing)
	slices.Sort(rep.Extra)
	slices.SortFunc(rep.Mismatched, func(a, b Mismatch) int { return strings.Compare(a.Path, b.Path) })
	return rep, nil
}

// readManifest reads and decodes a manifest entry. It returns the error
// reading it, as the reader gave it so Fatal can classify it, apart from the
// error decoding it.
func readManifest(e *Entry, buf []byte) (m *Manifest, readErr, decodeErr error) {
	b := &cappedBuffer{max: maxManifestBytes}
	_, rerr, werr := copyEntry(b, e, buf)
	if rerr != nil {
		return nil, rerr, nil
	}
	if werr != nil {
		return nil, nil, fmt.Errorf("%s: %w", ManifestPath, werr)
	}
	m, err := DecodeManifest(&b.Buffer)
	return m, nil, err
}

// cappedBuffer is a bytes.Buffer that refuses to grow past max bytes.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, fmt.Errorf("larger than %d bytes", c.max)
	}
	return c.Buffer.Write(p)
}

// copyEntry copies e to w and returns the bytes copied, the error reading e,
// as the reader gave it so Fatal can classify it, and the error writing w.
func copyEntry(w io.Writer, e *Entry, buf []byte) (n int64, readErr, writeErr error) {
	for {
		k, err := e.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, nil, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil, nil
		}
		if err != nil {
			return n, err, nil
		}
	}
}
