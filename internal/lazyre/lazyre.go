// Package lazyre holds regular expressions compiled when first used, not
// at program start: a package-level regexp.MustCompile costs every run of
// rwdiag its compilation, also the runs that never use it (issue 14: the
// kubectl-text parsers' and the HTML report's expressions were a millisecond
// of `rwdiag analyze`'s start, on bundles with no kubectl text and for text
// or JSON output).
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled by its first Re. Its source must
// compile (Re panics otherwise, as regexp.MustCompile does): a package's
// tests call CompileAll to find out before anyone runs it.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns src, to be compiled when first used.
func New(src string) *Regexp {
	r := &Regexp{src: src}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Re is the compiled expression; safe for concurrent use.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// String is the expression's source.
func (r *Regexp) String() string { return r.src }

// CompileAll compiles every Regexp made so far (in a test binary: those of
// the packages it links) and returns the first whose source does not
// compile, with the error; nil, nil when all do.
func CompileAll() (*Regexp, error) {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		re, err := regexp.Compile(r.src)
		if err != nil {
			return r, err
		}
		r.once.Do(func() { r.re = re })
	}
	return nil, nil
}
