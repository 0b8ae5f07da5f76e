package bundle

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Summary is what one pass over a bundle tells about it without analysing
// anything: its manifest, its pods, and how many files and bytes of each kind
// it holds. `rwdiag bundle inspect` prints it.
type Summary struct {
	// Name and Format are the bundle's, as opened.
	Name   string
	Format Format
	// Manifest is manifest.json, decoded. It is nil when the bundle has none
	// (a hand-made bundle) or when it could not be decoded; HasManifest tells
	// the two apart and Problems says why.
	Manifest    *Manifest
	HasManifest bool
	// Pods is kubernetes/pods.json, decoded. It is nil when the bundle has
	// none or when it could not be decoded; HasPods tells the two apart.
	Pods    []Pod
	HasPods bool
	// Kinds counts the files and bytes of each kind, in Kind order; kinds the
	// bundle holds no file of are left out.
	Kinds []KindCount
	// Files and Bytes count every file read, manifest.json included, and the
	// uncompressed bytes read from them.
	Files int
	Bytes int64
	// Problems are the errors met while reading, in the order met: refused
	// entries, files cut by the per-entry limit, a manifest.json or
	// kubernetes/pods.json that could not be decoded, and, last, the fatal
	// error that ended reading, if one did.
	Problems []error
	// Partial is set when a fatal error (damage, the total limit) ended
	// reading before the end of the bundle: the counts cover what came before.
	Partial bool
}

// KindCount is how many files of one kind a bundle holds, and their bytes.
type KindCount struct {
	Kind  Kind
	Files int
	Bytes int64
}

// ComponentPods are the pods of one RisingWave component.
type ComponentPods struct {
	// Component is the value of the pods' component label, "" when they have none.
	Component string
	Names     []string // sorted
	Restarts  int      // over all their containers
}

// Summarize reads every entry of r once. It decodes manifest.json and
// kubernetes/pods.json as they come, wherever they sit in the archive, and
// counts the files and bytes of everything. Errors that are not Fatal are kept
// in Problems and reading goes on. A fatal one ends reading: it is kept in
// Problems too, Partial is set, and it is returned along with the summary of
// what was read before it. The summary is never nil.
func Summarize(r *Reader) (*Summary, error) {
	s := &Summary{Name: r.Name(), Format: r.Format()}
	var counts [numKinds]KindCount
	var fatal error
	for fatal == nil {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Problems = append(s.Problems, err)
			if Fatal(err) {
				fatal = err
			}
			continue
		}
		n, readErr, decodeErr := s.read(e)
		counts[e.Kind].Files++
		counts[e.Kind].Bytes += n
		s.Files++
		s.Bytes += n
		switch {
		case readErr != nil:
			s.Problems = append(s.Problems, readErr)
			if Fatal(readErr) {
				fatal = readErr
			}
		case decodeErr != nil:
			s.Problems = append(s.Problems, decodeErr)
		}
	}
	for k, c := range counts {
		if c.Files > 0 {
			c.Kind = Kind(k)
			s.Kinds = append(s.Kinds, c)
		}
	}
	s.Partial = fatal != nil
	return s, fatal
}

// read consumes one entry, decoding it when it is the first manifest or pods
// file. It returns the bytes read, the error reading the entry, as the reader
// gave it so that Fatal can classify it, and the error decoding it. A failed
// read fails the decoding too; only the read error is returned then.
func (s *Summary) read(e *Entry) (n int64, readErr, decodeErr error) {
	cr := &entryCounter{r: e}
	switch {
	case e.Kind == KindManifest && !s.HasManifest:
		s.HasManifest = true
		s.Manifest, decodeErr = DecodeManifest(cr)
	case e.Kind == KindPods && !s.HasPods:
		s.HasPods = true
		if s.Pods, decodeErr = ParsePods(cr); decodeErr != nil {
			decodeErr = fmt.Errorf("%s: %w", e.Path, decodeErr)
		}
	}
	if cr.err == nil {
		io.Copy(io.Discard, cr) // an error is kept in cr.err
	}
	if cr.err != nil {
		return cr.n, cr.err, nil
	}
	return cr.n, nil, decodeErr
}

// entryCounter counts the bytes read from an entry and keeps the first error
// other than io.EOF.
type entryCounter struct {
	r   io.Reader
	n   int64
	err error
}

func (c *entryCounter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// Count returns how many files of kind k the bundle holds.
func (s *Summary) Count(k Kind) int {
	for _, c := range s.Kinds {
		if c.Kind == k {
			return c.Files
		}
	}
	return 0
}

// Namespace returns the namespace the bundle was collected from and the file
// that says so: the manifest's, or else the namespace every pod in
// kubernetes/pods.json shares. It returns "", "" when neither says.
func (s *Summary) Namespace() (namespace, from string) {
	if s.Manifest != nil && s.Manifest.Namespace != "" {
		return s.Manifest.Namespace, ManifestPath
	}
	if ns := s.shared(func(p Pod) string { return p.Namespace }); ns != "" {
		return ns, KubePath("pods")
	}
	return "", ""
}

// Cluster returns the RisingWave cluster's name and the file that says so: the
// manifest's, or else the ClusterLabel every pod in kubernetes/pods.json
// shares. It returns "", "" when neither says.
func (s *Summary) Cluster() (cluster, from string) {
	if s.Manifest != nil && s.Manifest.Cluster != "" {
		return s.Manifest.Cluster, ManifestPath
	}
	if c := s.shared(func(p Pod) string { return p.Labels[ClusterLabel] }); c != "" {
		return c, KubePath("pods")
	}
	return "", ""
}

// shared returns the value f gives for every pod, or "" when there are no
// pods or they disagree.
func (s *Summary) shared(f func(Pod) string) string {
	v := ""
	for i, p := range s.Pods {
		switch pv := f(p); {
		case i == 0:
			v = pv
		case pv != v:
			return ""
		}
	}
	return v
}

// Components groups the pods by RisingWave component: meta, compute,
// frontend, compactor, then any other component in name order, then pods with
// no component label.
func (s *Summary) Components() []ComponentPods {
	var out []ComponentPods
	index := map[string]int{}
	for _, p := range s.Pods {
		i, ok := index[p.Component]
		if !ok {
			i = len(out)
			index[p.Component] = i
			out = append(out, ComponentPods{Component: p.Component})
		}
		out[i].Names = append(out[i].Names, p.Name)
		out[i].Restarts += p.Restarts
	}
	for i := range out {
		slices.Sort(out[i].Names)
	}
	slices.SortFunc(out, func(a, b ComponentPods) int {
		if ra, rb := componentRank(a.Component), componentRank(b.Component); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Component, b.Component)
	})
	return out
}

func componentRank(c string) int {
	switch c {
	case "meta":
		return 0
	case "compute":
		return 1
	case "frontend":
		return 2
	case "compactor":
		return 3
	case "":
		return 5
	}
	return 4
}

// MarshalJSON writes the summary in the form `rwdiag bundle inspect --format
// json` prints, documented in docs/cli.md. Errors become their messages.
func (s *Summary) MarshalJSON() ([]byte, error) {
	type kind struct {
		Kind  string `json:"kind"`
		Files int    `json:"files"`
		Bytes int64  `json:"bytes"`
	}
	type component struct {
		Component string   `json:"component"`
		Pods      int      `json:"pods"`
		Names     []string `json:"names"`
		Restarts  int      `json:"restarts"`
	}
	type pod struct {
		Name       string   `json:"name"`
		Namespace  string   `json:"namespace"`
		Component  string   `json:"component"`
		Phase      string   `json:"phase"`
		Containers []string `json:"containers"`
		Restarts   int      `json:"restarts"`
	}
	type problem struct {
		Error string `json:"error"`
		Fatal bool   `json:"fatal"`
	}
	out := struct {
		Bundle        string      `json:"bundle"`
		Format        string      `json:"format"`
		HasManifest   bool        `json:"has_manifest"`
		Manifest      *Manifest   `json:"manifest"`
		Namespace     string      `json:"namespace"`
		NamespaceFrom string      `json:"namespace_from"`
		Cluster       string      `json:"cluster"`
		ClusterFrom   string      `json:"cluster_from"`
		CollectedAt   *time.Time  `json:"collected_at"`
		HasPods       bool        `json:"has_pods"`
		Components    []component `json:"components"`
		Pods          []pod       `json:"pods"`
		Kinds         []kind      `json:"kinds"`
		Files         int         `json:"files"`
		Bytes         int64       `json:"bytes"`
		Problems      []problem   `json:"problems"`
		Partial       bool        `json:"partial"`
	}{
		Bundle:      s.Name,
		Format:      s.Format.String(),
		HasManifest: s.HasManifest,
		Manifest:    s.Manifest,
		HasPods:     s.HasPods,
		Components:  []component{},
		Pods:        []pod{},
		Kinds:       []kind{},
		Files:       s.Files,
		Bytes:       s.Bytes,
		Problems:    []problem{},
		Partial:     s.Partial,
	}
	out.Namespace, out.NamespaceFrom = s.Namespace()
	out.Cluster, out.ClusterFrom = s.Cluster()
	if s.Manifest != nil && !s.Manifest.CollectedAt.IsZero() {
		out.CollectedAt = &s.Manifest.CollectedAt
	}
	for _, c := range s.Components() {
		out.Components = append(out.Components, component{c.Component, len(c.Names), c.Names, c.Restarts})
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, pod{p.Name, p.Namespace, p.Component, p.Phase, p.Containers, p.Restarts})
	}
	for _, k := range s.Kinds {
		out.Kinds = append(out.Kinds, kind{k.Kind.String(), k.Files, k.Bytes})
	}
	for i, err := range s.Problems {
		out.Problems = append(out.Problems, problem{err.Error(), s.Partial && i == len(s.Problems)-1})
	}
	return json.Marshal(out)
}
