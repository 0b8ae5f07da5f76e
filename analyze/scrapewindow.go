package analyze

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// Scrapes are dated by their file names (metrics/<pod>/<unix-millis>.prom),
// and one misnamed file (a 1970 or a year-9999 time) stretches the span the
// PromQL rules evaluate over to decades: 4-5 GB and "too many samples", or
// an evaluation time past every real sample, where a firing rule passes. A
// scrape far outside the bundle's collection window is a bundle problem: it
// is reported and left out.
const (
	// windowMargin widens the manifest's collection window (collected_at
	// to finished_at) on both sides.
	windowMargin = 24 * time.Hour
	// handMadeReach is how far from the median of a hand-made bundle's
	// evidence times (scrapes, log events, pods.json and events.json) a
	// scrape may be.
	handMadeReach = 2 * 24 * time.Hour
)

// maxPendingScrapeBytes bounds the scrapes held in memory while the window
// is not known yet (no manifest read so far); a variable for tests.
var maxPendingScrapeBytes = 64 << 20

// riseOfRisingWave is RisingWave's epoch origin: no scrape of a RisingWave
// node is older.
var riseOfRisingWave = time.Date(2021, 4, 1, 0, 0, 0, 0, time.UTC)

// scrapeGate holds scrapes until the collection window is known, then adds
// those inside it to the metrics store.
type scrapeGate struct {
	fixed    bool
	from, to time.Time
	basis    string // what the window was worked out from, for messages
	pending  []pendingScrape
	bytes    int
	// now is the analysing machine's clock, for the last-resort bound.
	now func() time.Time
}

type pendingScrape struct {
	path, pod string
	at        time.Time
	data      []byte
}

// addScrape adds a scrape to the metrics store when it is inside the
// collection window, holds it while the window is not known yet, and
// returns an error naming the window when it is outside.
func (ev *Gathered) addScrape(e *bundle.Entry) error {
	g := &ev.scrapes
	if !g.fixed && ev.Manifest != nil {
		ev.fixWindowFromManifest()
	}
	if g.fixed || e.ScrapedAt.IsZero() {
		if err := g.check(e.ScrapedAt); err != nil {
			return err
		}
		return ev.Metrics.AddScrape(e.Path, e.Pod, e.ScrapedAt, e)
	}
	room := maxPendingScrapeBytes - g.bytes
	if e.Size > int64(room) {
		if len(g.pending) == 0 {
			// Too large to hold, and nothing to judge it against: only
			// the bounds no RisingWave scrape can be outside of.
			if err := g.plausible(e.ScrapedAt); err != nil {
				return err
			}
			return ev.Metrics.AddScrape(e.Path, e.Pod, e.ScrapedAt, e)
		}
		ev.fixWindowFromEvidence()
		return ev.addScrape(e)
	}
	data, err := io.ReadAll(io.LimitReader(e, int64(room)+1))
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(data) > room {
		// It said it was smaller (a compressed stream tells no size): the
		// window is worked out from what is held, and the rest is read on.
		ev.fixWindowFromEvidence()
		if err := g.check(e.ScrapedAt); err != nil {
			return err
		}
		return ev.Metrics.AddScrape(e.Path, e.Pod, e.ScrapedAt, io.MultiReader(bytes.NewReader(data), e))
	}
	g.pending = append(g.pending, pendingScrape{path: e.Path, pod: e.Pod, at: e.ScrapedAt, data: data})
	g.bytes += len(data)
	return nil
}

// check returns an error when t is outside the window.
func (g *scrapeGate) check(t time.Time) error {
	if t.IsZero() || (!t.Before(g.from) && !t.After(g.to)) {
		return nil
	}
	return fmt.Errorf("scraped at %s (its file name's time), far outside the collection window %s to %s (%s): left out",
		formatScrapeTime(t), g.from.Format(time.RFC3339), g.to.Format(time.RFC3339), g.basis)
}

// plausible returns an error when no RisingWave node can have been scraped
// at t: before RisingWave's epoch origin, or more than a day ahead of now.
func (g *scrapeGate) plausible(t time.Time) error {
	now := time.Now
	if g.now != nil {
		now = g.now
	}
	if t.Before(riseOfRisingWave) || t.After(now().Add(windowMargin)) {
		return fmt.Errorf("scraped at %s (its file name's time), when no RisingWave node can have been scraped: left out", formatScrapeTime(t))
	}
	return nil
}

func formatScrapeTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// fixWindowFromManifest takes the window from the manifest's collected_at
// and finished_at, widened by a day; it does nothing when neither is set.
func (ev *Gathered) fixWindowFromManifest() {
	m := ev.Manifest
	var times []time.Time
	for _, t := range []time.Time{m.CollectedAt, m.FinishedAt} {
		if !t.IsZero() {
			times = append(times, t.UTC())
		}
	}
	if len(times) == 0 {
		return
	}
	from, to := slices.MinFunc(times, time.Time.Compare), slices.MaxFunc(times, time.Time.Compare)
	ev.setWindow(from.Add(-windowMargin), to.Add(windowMargin), "manifest.json's collected_at to finished_at, and a day either side")
}

// fixWindowFromEvidence takes the window of a bundle without collection
// times: two days either side of the median of its scrape times, log
// file spans and Kubernetes object times, so that a minority of misdated
// files cannot move it.
func (ev *Gathered) fixWindowFromEvidence() {
	var times []time.Time
	for _, p := range ev.scrapes.pending {
		times = append(times, p.at)
	}
	for _, st := range ev.Logs.Files() {
		for _, t := range []time.Time{st.First, st.Last} {
			if !t.IsZero() {
				times = append(times, t)
			}
		}
	}
	if t := ev.Kube.Latest("pods", "events"); !t.IsZero() {
		times = append(times, t)
	}
	if len(times) == 0 {
		return
	}
	slices.SortFunc(times, time.Time.Compare)
	mid := times[(len(times)-1)/2]
	if len(times)%2 == 0 {
		// The upper middle when the lower one is implausible (one good and
		// one misdated time, say).
		if (&scrapeGate{}).plausible(mid) != nil {
			mid = times[len(times)/2]
		}
	}
	ev.setWindow(mid.Add(-handMadeReach), mid.Add(handMadeReach),
		"no manifest.json: 2 days either side of the median time of the scrapes, logs and Kubernetes objects")
}

// setWindow fixes the window and adds the held scrapes inside it.
func (ev *Gathered) setWindow(from, to time.Time, basis string) {
	g := &ev.scrapes
	g.fixed, g.from, g.to, g.basis = true, from.UTC(), to.UTC(), basis
	pending := g.pending
	g.pending, g.bytes = nil, 0
	for _, p := range pending {
		err := g.check(p.at)
		if err == nil {
			err = ev.Metrics.AddScrape(p.path, p.pod, p.at, bytes.NewReader(p.data))
		}
		if err != nil {
			ev.problem("%s", namingFile(err, p.path))
			ev.unreadable[p.path] = err.Error()
		}
	}
}

// flushScrapes decides the held scrapes once the whole bundle is read.
func (ev *Gathered) flushScrapes() {
	g := &ev.scrapes
	if g.fixed {
		return
	}
	if ev.Manifest != nil {
		ev.fixWindowFromManifest()
	}
	if !g.fixed && len(g.pending) > 0 {
		ev.fixWindowFromEvidence()
	}
}
