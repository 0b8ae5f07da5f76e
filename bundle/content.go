package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotBundle is what a *NotBundleError is (errors.Is): the input opened, as
// a directory or an archive, but nothing in it is bundle content.
var ErrNotBundle = errors.New("not a bundle")

// NotBundleError reports a directory or archive read to its end in which no
// file is bundle content: no entry's path classifies as a known Kind (an
// empty directory, a Go source folder, a folder of bundles).
type NotBundleError struct {
	Path  string // as opened
	Files int    // files read, none of them bundle content
	// Bundles are what it holds that looks like bundles, sorted: directories
	// (one or two levels down) whose files are bundle content, and archives
	// (by their magic bytes in a directory, by their names in an archive).
	Bundles []string
}

func (e *NotBundleError) Error() string {
	switch len(e.Bundles) {
	case 0:
	case 1:
		return fmt.Sprintf("not a bundle: %s holds 1 bundle: %s; analyze it", e.Path, e.Bundles[0])
	default:
		names := e.Bundles
		if len(names) > maxNamed {
			names = append(names[:maxNamed:maxNamed], fmt.Sprintf("and %d more", len(e.Bundles)-maxNamed))
		}
		return fmt.Sprintf("not a bundle: %s holds %d bundles: %s; analyze one of them", e.Path, len(e.Bundles), strings.Join(names, ", "))
	}
	what := "it is empty"
	if e.Files > 0 {
		what = fmt.Sprintf("%d %s, none of them manifest.json or under kubernetes/, logs/, metrics/, sql/, diagnose/ or kafka/ as docs/bundle-format.md lays them out", e.Files, plural(e.Files, "file", "files"))
	}
	return fmt.Sprintf("not a bundle: %s: nothing in it is bundle content (%s)", e.Path, what)
}

// Is makes errors.Is(err, ErrNotBundle) hold.
func (e *NotBundleError) Is(target error) bool { return target == ErrNotBundle }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// contentTally is what a Reader notes of the entries it hands out, to tell
// a bundle from something else once reading ends.
type contentTally struct {
	files      int
	recognised int
	candidates map[string]bool // first path components that look like bundles
	topFiles   []string        // files at the top (a directory's), to sniff; bounded
}

const maxTopFiles = 1000

// maxNamed is how many bundles the error names.
const maxNamed = 8

func (t *contentTally) note(e *Entry) {
	t.files++
	if e.Kind != KindUnknown {
		t.recognised++
		return
	}
	if t.recognised > 0 {
		return
	}
	parts := strings.Split(e.Path, "/")
	if len(parts) == 1 {
		if archiveName(e.Path) {
			t.candidate(e.Path)
		} else if len(t.topFiles) < maxTopFiles {
			t.topFiles = append(t.topFiles, e.Path)
		}
		return
	}
	// A bundle one level down (a/logs/...) or two (a/rwdiag-x/logs/...).
	for k := 1; k <= 2 && k < len(parts); k++ {
		if Classify(strings.Join(parts[k:], "/")).Kind != KindUnknown {
			t.candidate(strings.Join(parts[:k], "/"))
			return
		}
	}
	if len(parts) == 2 && archiveName(parts[1]) {
		t.candidate(parts[0] + "/" + parts[1])
	}
}

func (t *contentTally) candidate(name string) {
	if t.candidates == nil {
		t.candidates = map[string]bool{}
	}
	t.candidates[name] = true
}

// archiveName reports whether a file's name says it is an archive a
// bundle may come in.
func archiveName(name string) bool {
	n := strings.ToLower(name)
	for _, ext := range []string{".tar", ".tar.zst", ".tzst", ".tar.gz", ".tgz"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// NotBundle returns a *NotBundleError when the entries handed out so far
// hold no bundle content, nil when one did. Call it once Next has returned
// io.EOF; after a fatal error the answer covers only what came before. In
// a directory, the top-level files are told apart as archives by their
// first bytes.
func (r *Reader) NotBundle() error {
	t := &r.tally
	if t.recognised > 0 {
		return nil
	}
	e := &NotBundleError{Path: r.name, Files: t.files}
	for c := range t.candidates {
		e.Bundles = append(e.Bundles, c)
	}
	if r.format == FormatDir && r.root != "" {
		for _, p := range t.topFiles {
			if sniffFile(filepath.Join(r.root, filepath.FromSlash(p))) {
				e.Bundles = append(e.Bundles, p)
			}
		}
	}
	slices.Sort(e.Bundles)
	return e
}

// sniffFile reports whether the file at p starts as a tar, tar.zst or
// tar.gz archive does.
func sniffFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	_, ok := sniff(head[:n])
	return ok
}
