package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/collect/secretcorpus"
)

// corpusPath is the planted-secret corpus, shared with collect's tests.
const corpusPath = "../collect/testdata/secrets/corpus.yaml"

func loadCorpus(t *testing.T) []secretcorpus.Entry {
	t.Helper()
	entries, err := secretcorpus.Load(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// writeCorpusBundle writes the corpus planted in an unredacted bundle: a
// tar.zst archive with its manifest, and the same as a directory.
func writeCorpusBundle(t *testing.T, entries []secretcorpus.Entry) (archive, dir string, planted *secretcorpus.Planted) {
	t.Helper()
	planted, err := secretcorpus.Build(entries)
	if err != nil {
		t.Fatal(err)
	}
	archive = filepath.Join(t.TempDir(), "rwdiag-rw-corpus-20261129T204300Z.tar.zst")
	w, err := bundle.NewWriter(archive, bundle.WriterOptions{Root: "rwdiag-rw-corpus-20261129T204300Z"})
	if err != nil {
		t.Fatal(err)
	}
	m := planted.Manifest
	w.Update(func(wm *bundle.Manifest) {
		wm.Tool = bundle.Tool{Name: "rwdiag", Version: "v0.1.0"}
		wm.CollectedAt = time.Date(2026, 11, 29, 20, 43, 0, 0, time.UTC)
		wm.Namespace, wm.Cluster, wm.RisingWaveVersion = m.Namespace, m.Cluster, m.RisingWaveVersion
		wm.Complete, wm.IncompleteReason = m.Complete, m.IncompleteReason
		wm.Redaction = bundle.RedactionReport{Enabled: false}
	})
	for _, e := range m.Errors {
		w.RecordError(e)
	}
	for path, data := range planted.Files {
		fe, _ := m.File(path)
		source := fe.Source
		if source == "" {
			source = "hand-made for the corpus test"
		}
		f, err := w.Create(path, source)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data)
		if fe.Error != "" {
			f.SetError(errors.New(fe.Error))
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The directory: the archive's entries, manifest included, as files.
	dir = filepath.Join(t.TempDir(), "corpus-bundle")
	files, _ := readAll(t, archive)
	for p, b := range files {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return archive, dir, planted
}

// The planted-secret corpus through `bundle redact`, from an archive and from
// a directory: no secret survives in any byte of OUT, manifest included, in
// any form, and equal secrets get equal tokens.
func TestBundleRedactCorpus(t *testing.T) {
	entries := loadCorpus(t)
	archive, dir, planted := writeCorpusBundle(t, entries)

	// The input holds every secret: the check can fail.
	inFiles, _ := readAll(t, archive)
	if s := secretcorpus.Survivors(entries, inFiles); len(uniqueIDs(s)) != len(entries) {
		t.Fatalf("the unredacted bundle holds %d of %d secrets: the planting is wrong\n%s",
			len(uniqueIDs(s)), len(entries), secretcorpus.Table(entries, s))
	}
	for _, in := range []struct{ name, path string }{{"archive", archive}, {"directory", dir}} {
		t.Run(in.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "redacted.tar.zst")
			r := run(t, "bundle", "redact", in.path, out)
			if r.code != exitOK {
				t.Fatalf("want exit 0\n%v", r)
			}
			files, m := readAll(t, out)
			if len(files) != len(inFiles) {
				t.Errorf("%d files in OUT, %d in IN", len(files), len(inFiles))
			}
			if survivors := secretcorpus.Survivors(entries, files); len(survivors) > 0 {
				t.Errorf("%d of %d planted secrets survive `bundle redact`:\n%s",
					len(uniqueIDs(survivors)), len(entries), secretcorpus.Table(entries, survivors))
			} else {
				t.Logf("0 of %d planted secrets survive:\n%s", len(entries), secretcorpus.Table(entries, nil))
			}
			for _, p := range secretcorpus.SameTokenProblems(entries, func(e secretcorpus.Entry) ([]string, bool) {
				if ml, ok := planted.ManifestAt[e.ID]; ok {
					return secretcorpus.ManifestTokens(m, ml), true
				}
				at, ok := planted.At[e.ID]
				if !ok {
					return nil, false
				}
				return secretcorpus.LineTokens(files[at.File], at.Line), true
			}) {
				t.Error(p)
			}
			if m == nil || !m.Redaction.Enabled || m.Redaction.Total == 0 {
				t.Errorf("redaction report %+v", m.Redaction)
			}
		})
	}
}

func uniqueIDs(ss []secretcorpus.Survivor) map[string]bool {
	ids := map[string]bool{}
	for _, s := range ss {
		ids[s.Entry.ID] = true
	}
	return ids
}
