package bundle

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Manifest is manifest.json: what the collector captured, from where, and
// what it could not capture. Hand-made bundles have none.
type Manifest struct {
	FormatVersion     int       `json:"format_version"`
	Tool              Tool      `json:"tool"`
	CollectedAt       time.Time `json:"collected_at"`
	FinishedAt        time.Time `json:"finished_at,omitzero"`
	Namespace         string    `json:"namespace"`
	Cluster           string    `json:"cluster"`
	RisingWaveVersion string    `json:"risingwave_version"`
	// Complete is false when collection was interrupted (Ctrl-C, deadline);
	// IncompleteReason then says why.
	Complete         bool            `json:"complete"`
	IncompleteReason string          `json:"incomplete_reason,omitempty"`
	Files            []FileEntry     `json:"files"`
	Errors           []CollectError  `json:"errors"`
	Redaction        RedactionReport `json:"redaction"`
}

// Tool names the program that wrote the bundle.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// FileEntry records one file of the bundle.
type FileEntry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Source is what produced the file, e.g. "kubectl get pods -n rw -o json".
	Source   string    `json:"source"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// Error is set when the source failed part-way; the file holds what was
	// captured before the failure.
	Error string `json:"error,omitempty"`
	// Truncated is set when a size cap cut the file (logs keep the newest lines).
	Truncated bool `json:"truncated,omitempty"`
	// Redacted is how many values in the file were replaced by redaction tokens.
	Redacted int `json:"redacted,omitempty"`
}

// CollectError records a collection step that failed and produced no file.
type CollectError struct {
	Step   string    `json:"step"`   // e.g. "logs", "sql", "metrics"
	Target string    `json:"target"` // e.g. the pod or relation
	Error  string    `json:"error"`
	Time   time.Time `json:"time,omitzero"`
	// Path is the bundle path the step would have written, when there is one,
	// so the analyzer can tell "collection failed" from "not collected".
	Path string `json:"path,omitempty"`
}

// RedactionReport summarises what was redacted; the values themselves are never kept.
type RedactionReport struct {
	Enabled bool `json:"enabled"`
	// Counts is the number of values redacted per rule, e.g. {"env-secret-name": 4}.
	Counts map[string]int `json:"counts,omitempty"`
	Total  int            `json:"total"`
	// Files is the number of values redacted per bundle path and rule, e.g.
	// {"kubernetes/pods.json": {"env-secret-name": 3}, "manifest.json":
	// {"url-userinfo": 1}}, for a security team to review before the
	// bundle leaves. Values redacted outside any file (error messages) are
	// counted in Counts only, so Files may sum to less than Total.
	Files map[string]map[string]int `json:"files,omitempty"`
}

// File returns the entry for path, if the manifest lists it.
func (m *Manifest) File(path string) (FileEntry, bool) {
	for _, f := range m.Files {
		if f.Path == path {
			return f, true
		}
	}
	return FileEntry{}, false
}

// maxManifestBytes bounds how much of a manifest is decoded.
const maxManifestBytes = 64 << 20

// DecodeManifest reads a manifest and checks its format version.
func DecodeManifest(r io.Reader) (*Manifest, error) {
	dec := json.NewDecoder(io.LimitReader(r, maxManifestBytes))
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", ManifestPath, err)
	}
	if m.FormatVersion < 1 || m.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%s: format_version %d is not supported (this rwdiag reads 1 to %d)",
			ManifestPath, m.FormatVersion, FormatVersion)
	}
	return &m, nil
}

// Encode writes the manifest as indented JSON.
func (m *Manifest) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
