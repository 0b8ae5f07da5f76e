package analyze

import (
	"fmt"
	"slices"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// Scrapes are dated by their file names (metrics/<pod>/<unix-millis>.prom),
// and one misnamed file (a 1970 or a year-9999 time) stretches the span the
// PromQL rules evaluate over to decades: 4-5 GB and "too many samples", or
// an evaluation time past every real sample, where a firing rule passes. A
// scrape far outside the bundle's collection window is a bundle problem: it
// is reported and left out, once the whole bundle is read (a hand-made
// bundle's window is known only then, and a manifest may come after the
// scrapes).
const (
	// windowMargin widens the manifest's collection window (collected_at
	// to finished_at) on both sides.
	windowMargin = 24 * time.Hour
	// handMadeReach is how far from the median of a hand-made bundle's
	// evidence times (scrapes, log events, pods.json and events.json) a
	// scrape may be.
	handMadeReach = 2 * 24 * time.Hour
)

// riseOfRisingWave is RisingWave's epoch origin: no scrape of a RisingWave
// node is older.
var riseOfRisingWave = time.Date(2021, 4, 1, 0, 0, 0, 0, time.UTC)

// dropScrapesOutsideWindow works out the collection window and leaves the
// scrapes outside it out of the metrics store, each reported as a problem.
func (ev *Gathered) dropScrapesOutsideWindow() {
	from, to, basis, ok := ev.manifestWindow()
	if !ok {
		from, to, basis, ok = ev.evidenceWindow()
	}
	if !ok {
		return
	}
	for _, p := range ev.Metrics.DropScrapesOutside(from, to) {
		at := bundle.Classify(p).ScrapedAt
		msg := fmt.Sprintf("scraped at %s (its file name's time), far outside the collection window %s to %s (%s): left out",
			at.UTC().Format("2006-01-02T15:04:05.000Z07:00"), from.Format(time.RFC3339), to.Format(time.RFC3339), basis)
		ev.problem("%s: %s", p, msg)
		ev.unreadable[p] = msg
	}
}

// manifestWindow is the manifest's collected_at to finished_at, widened by
// a day; not ok when neither is set.
func (ev *Gathered) manifestWindow() (from, to time.Time, basis string, ok bool) {
	m := ev.Manifest
	if m == nil {
		return
	}
	var times []time.Time
	for _, t := range []time.Time{m.CollectedAt, m.FinishedAt} {
		if !t.IsZero() {
			times = append(times, t.UTC())
		}
	}
	if len(times) == 0 {
		return
	}
	from, to = slices.MinFunc(times, time.Time.Compare), slices.MaxFunc(times, time.Time.Compare)
	return from.Add(-windowMargin), to.Add(windowMargin), "manifest.json's collected_at to finished_at, and a day either side", true
}

// evidenceWindow is the window of a bundle without collection times: two
// days either side of the median of its scrape times, log file spans and
// Kubernetes object times, so that a minority of misdated files cannot
// move it; not ok when nothing is dated.
func (ev *Gathered) evidenceWindow() (from, to time.Time, basis string, ok bool) {
	times := ev.Metrics.ScrapeTimes()
	for _, f := range ev.files {
		for _, t := range []time.Time{f.first, f.last} {
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
	if len(times)%2 == 0 && !plausibleScrapeTime(mid) {
		// The upper middle when the lower one cannot be a RisingWave
		// scrape (one good and one misdated time, say).
		mid = times[len(times)/2]
	}
	return mid.Add(-handMadeReach).UTC(), mid.Add(handMadeReach).UTC(),
		"no manifest.json: 2 days either side of the median time of the scrapes, logs and Kubernetes objects", true
}

// plausibleScrapeTime: no RisingWave node was scraped before RisingWave's
// epoch origin, nor more than a day ahead of now.
func plausibleScrapeTime(t time.Time) bool {
	return !t.Before(riseOfRisingWave) && !t.After(time.Now().Add(windowMargin))
}
