package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/bundle"
)

// -size writes a bundle of about the size asked for, in the shape the
// benchmark needs: 32 pods, 2,000+ series per compute scrape, mostly logs.
func TestSize(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const name, size = "compound-incident", 64 << 20
	dir := t.TempDir()
	if err := generateWith(dir, name, 1, largeFor(size)); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, name)
	var total, logs int
	pods := map[string]bool{}
	series := 0
	for p, b := range files(t, root) {
		total += len(b)
		c := bundle.Classify(p)
		switch c.Kind {
		case bundle.KindLog, bundle.KindPreviousLog:
			logs += len(b)
		case bundle.KindMetricsScrape:
			pods[c.Pod] = true
			if strings.Contains(c.Pod, "compute-0") && series == 0 {
				for _, l := range bytes.Split(b, []byte("\n")) {
					if len(l) > 0 && l[0] != '#' {
						series++
					}
				}
			}
		}
	}
	if total < size*85/100 || total > size*115/100 {
		t.Errorf("%d bytes, want %d within 15%%", total, size)
	}
	if logs < total/2 {
		t.Errorf("%d bytes of logs in %d, want most", logs, total)
	}
	if len(pods) != largePods {
		t.Errorf("%d pods scraped, want %d", len(pods), largePods)
	}
	if series < 2000 {
		t.Errorf("%d series in a compute scrape, want 2,000 or more", series)
	}
	r, err := bundle.Open(root, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rep, err := bundle.Verify(r); err != nil || !rep.OK() {
		t.Errorf("does not verify: %v %+v", err, rep)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "2GiB": 2 << 30, "1.5GB": 1.5e9, "8 GiB": 8 << 30, "3000000": 3e6} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "2TB", "1KiB", "x"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q): no error", in)
		}
	}
	// Scrapes and log lines grow with the size; pods and jobs do not.
	a, b := largeFor(512<<20), largeFor(2<<30)
	if a.Pods != b.Pods || a.Jobs != b.Jobs || b.Scrapes != 4*a.Scrapes || b.Logs < 3*a.Logs || b.Logs > 5*a.Logs {
		t.Errorf("512MiB %+v, 2GiB %+v", a, b)
	}
}
