package analyze

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/analyze/kube"
	"github.com/rwdiag/rwdiag/analyze/logs"
	"github.com/rwdiag/rwdiag/analyze/metrics"
	"github.com/rwdiag/rwdiag/analyze/sqlstore"
	"github.com/rwdiag/rwdiag/bundle"
)

// Gathered is what one streaming pass over a bundle gathered for a set of
// rules: the stores each evidence language queries, and what could not be read.
type Gathered struct {
	Info     BundleInfo
	Manifest *bundle.Manifest
	Pods     []bundle.Pod
	Metrics  *metrics.Store
	SQL      *sqlstore.Store
	Kube     *kube.Store
	Logs     *logs.Scanner

	// Time is when the bundle was collected: the manifest's finished_at (or
	// collected_at), else the last metric sample, else the latest moment in
	// pods.json and events.json. Zero when none says.
	Time time.Time

	// containers seen per pod in log paths, for pods missing from pods.json.
	containers map[string][]string
	components map[string]string
	kinds      map[bundle.Kind]int
	tap        *timelineTap // what GatherWith keeps for the timeline; nil for Gather

	files      []fileInfo        // every entry read, in bundle order
	unreadable map[string]string // bundle path -> why it could not be read

	podTexts []podText // kubectl describe and get-pods text, parsed

	needTree bool         // some rule reads await-tree dumps
	dumps    []parsedDump // the await-tree dumps found, in bundle order

	// stopped is why reading ended before the end of the bundle (damage,
	// --max-total-bytes, an interruption); "" when it was read to its end.
	stopped      string
	manifestSeen bool // a manifest.json entry was met, readable or not

	restoreMemory func() // undoes limitReadingMemory, at Close
}

// problem records something that could not be read.
func (ev *Gathered) problem(format string, args ...any) {
	ev.Info.Problems = append(ev.Info.Problems, fmt.Sprintf(format, args...))
}

// maxKubeBytes bounds one kubernetes/*.json file held in memory.
const maxKubeBytes = 512 << 20

// Gather reads the bundle at path once, feeding each entry to the store that
// the rules need it for. It fails only when the bundle cannot be opened at
// all; damage and unreadable files are recorded in Info.Problems and the
// pass goes on with what is readable.
func Gather(ctx context.Context, path string, rules []*Rule, opts bundle.Options) (*Gathered, error) {
	return gather(ctx, path, rules, opts, GatherOptions{})
}

// readingMemoryLimit is the Go runtime's soft memory limit while a bundle
// is read and its evidence evaluated (from Gather to Close), when nothing
// else set one (GOMEMLIMIT, or the program): the
// reading's garbage (decoded chunks, scrapes, copies of entries) is made
// at the speed of decompression, and with GOGC alone the heap, and the
// pages the runtime keeps after it, reach twice the live heap. Under the
// limit the collector runs, and returns pages to the system, earlier.
// It is soft: a live heap above it is not an error, only more collections.
// Measured (issue 14, docs/performance.md): with samples in XOR chunks
// (analyze/metrics) the live heap peaks at about 35 MB on the 8 GiB
// benchmark bundle (it was 66 MB, when 80 MiB was chosen). 64 MiB keeps
// peak RSS at 131-134 MB at 8 GiB and 123-128 MB at 2 GiB (80 MiB: 141-145
// and 121-142; none: 142-162 at 8 GiB) with as many collections as without
// a limit (11-15 in a run); 48 MiB starts costing collections (85 on the
// 8 GiB frames bundle, whose decoded frames count too). A bundle whose live
// heap nears the limit costs more collections, never a failure.
// GOMEMLIMIT=off turns it off.
const readingMemoryLimit = 64 << 20

// analysisGCPercent is the garbage collector's GOGC for a whole analysis
// run (TuneMemory). At Go's default of 100 the collector starts at a 4 MiB
// heap, so analysing even a 92 KB bundle (6.7 MB allocated: loading the
// rules, compiling the decided ones, reading) ran it several times, on
// both cores, and its workers' page faults: 30-40% of the run's CPU
// (issue 14, docs/performance.md "Start-up"). At 400 the small sample
// runs without a collection for 0.7 MiB more peak RSS; a big bundle's heap
// is held by the memory limit instead of GOGC.
const analysisGCPercent = 400

// TuneMemory sets the garbage collector for a process that runs one
// analysis and exits (rwdiag analyze, diff): GOGC analysisGCPercent under
// the soft memory limit readingMemoryLimit, for the whole run (loading,
// reading, evaluating, writing the report), each unless the environment
// (GOGC, GOMEMLIMIT) or the program set it. It returns what restores them.
func TuneMemory() (restore func()) {
	restoreLimit := limitReadingMemory()
	if _, set := os.LookupEnv("GOGC"); set {
		return restoreLimit
	}
	old := debug.SetGCPercent(analysisGCPercent)
	return func() {
		debug.SetGCPercent(old)
		restoreLimit()
	}
}

// limitReadingMemory sets readingMemoryLimit unless a limit is set, and
// returns what restores the previous one.
func limitReadingMemory() (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(readingMemoryLimit)
	return func() { debug.SetMemoryLimit(math.MaxInt64) }
}

func gather(ctx context.Context, path string, rules []*Rule, opts bundle.Options, extra GatherOptions) (*Gathered, error) {
	restore := limitReadingMemory() // until Close: evaluation allocates too
	r, err := bundle.Open(path, opts)
	if err != nil {
		restore()
		return nil, err
	}
	defer r.Close()

	names, allMetrics, needTree := map[string]bool{}, false, false
	var queries []*logs.Query
	for _, rule := range rules {
		for _, s := range rule.Signals {
			switch s.Kind {
			case SignalPromQL:
				allMetrics = allMetrics || s.allMetrics
				for _, n := range s.metricNames {
					names[n] = true
				}
			case SignalLog:
				queries = append(queries, s.Log)
			case SignalAwaitTree:
				needTree = true
			}
		}
	}
	if allMetrics {
		names = nil
	}
	sqlStore, err := sqlstore.NewStore()
	if err != nil {
		restore()
		return nil, err
	}
	ev := &Gathered{
		restoreMemory: restore,
		Info:          BundleInfo{Path: path, Archive: r.Format().String(), HandMade: true},
		Metrics:       metrics.NewStore(names),
		SQL:           sqlStore,
		Kube:          kube.NewStore(),
		Logs:          logs.NewScanner(queries),
		containers:    map[string][]string{},
		kinds:         map[bundle.Kind]int{},
		tap:           newTimelineTap(extra.Timeline),
		needTree:      needTree,
		unreadable:    map[string]string{},
	}
	problem := ev.problem
	for {
		if err := ctx.Err(); err != nil {
			ev.stop(fmt.Sprintf("analysis interrupted: %v", err))
			break
		}
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if bundle.Fatal(err) {
				ev.stop(err.Error())
				break
			}
			problem("%v", err)
			continue
		}
		ev.Info.Files++
		ev.kinds[e.Kind]++
		ev.manifestSeen = ev.manifestSeen || e.Kind == bundle.KindManifest
		if e.Container != "" && !slices.Contains(ev.containers[e.Pod], e.Container) {
			ev.containers[e.Pod] = append(ev.containers[e.Pod], e.Container)
		}
		ev.files = append(ev.files, fileInfo{path: e.Path, kind: e.Kind, pod: e.Pod, container: e.Container})
		if err := ev.add(e); err != nil {
			if stop := readingStops(err); stop != nil {
				// The damage (or the total limit) met inside this entry
				// ends reading: said once, as what stopped it.
				ev.unreadable[e.Path] = entryCut(stop)
				ev.stop(stop.Error())
				break
			}
			problem("%s", namingFile(err, e.Path))
			switch {
			case errors.Is(err, sqlstore.ErrLimit): // a dump cut by a cap is read, in part
			default:
				ev.unreadable[e.Path] = entryReason(err)
			}
		}
	}
	if ev.stopped == "" {
		if err := r.NotBundle(); err != nil {
			ev.Close()
			return nil, err
		}
	}
	ev.finish()
	return ev, nil
}

// StoppedPrefix starts the bundle problem that says reading ended early
// (BundleInfo.Stopped holds the reason alone).
const StoppedPrefix = "reading stopped early: "

// stop records why reading ended before the end of the bundle.
func (ev *Gathered) stop(why string) {
	ev.stopped = why
	ev.Info.Stopped = why
	ev.problem("%s%s; the rest of the bundle was not read", StoppedPrefix, why)
}

// stoppedNote is what a reason that something is missing adds when reading
// ended early: the file may sit after the point where it stopped. "" when
// the bundle was read to its end.
func (ev *Gathered) stoppedNote() string {
	if ev.stopped == "" {
		return ""
	}
	return " (not read: reading stopped before the end of the bundle: " + ev.stopped + ")"
}

// ReadingStopped returns why reading a bundle ended before its end (damage,
// --max-total-bytes, an interruption), or "" when it was read to its end.
func ReadingStopped(b BundleInfo) string { return b.Stopped }

// readingStops returns the reader's error inside err when it ends reading:
// damage, or the limit on the whole bundle.
func readingStops(err error) error {
	var de *bundle.DamageError
	if errors.As(err, &de) {
		return de
	}
	var le *bundle.LimitError
	if errors.As(err, &le) && le.Total {
		return le
	}
	return nil
}

// entryCut says why the entry in which reading stopped is unreadable.
func entryCut(err error) string {
	var de *bundle.DamageError
	if errors.As(err, &de) {
		if errors.Is(de.Err, io.ErrUnexpectedEOF) {
			return fmt.Sprintf("the archive is cut inside it, at byte %d of the file", de.Offset)
		}
		return fmt.Sprintf("the archive is damaged inside it, at byte %d of the file: %v", de.Offset, de.Err)
	}
	var le *bundle.LimitError
	if errors.As(err, &le) {
		return fmt.Sprintf("reading stopped inside it at --max-total-bytes (%d bytes in all)", le.Limit)
	}
	return err.Error()
}

// entryReason says why a file that was there could not be used: cut by the
// per-entry limit, or what the error says.
func entryReason(err error) string {
	var le *bundle.LimitError
	if errors.As(err, &le) && !le.Total {
		return fmt.Sprintf("cut at %d bytes by --max-entry-bytes", le.Limit)
	}
	return err.Error()
}

// namingFile returns the error's message naming the file p once, as
// "p: msg" or "p:line: msg".
func namingFile(err error, p string) string {
	msg := err.Error()
	if strings.HasPrefix(msg, p+":") {
		return msg
	}
	return p + ": " + msg
}

func (ev *Gathered) add(e *bundle.Entry) error {
	var text io.Reader = e // what the text stores read: the entry, or a copy to the timeline too
	if ev.tap.wants(e.Class) {
		var done func()
		text, done = ev.tap.tee(e)
		defer done()
	}
	switch e.Kind {
	case bundle.KindManifest:
		m, err := bundle.DecodeManifest(e)
		if err != nil {
			if readingStops(err) != nil {
				return err
			}
			return fmt.Errorf("present but unreadable, so the collection's times and failed steps are unknown: %w", err)
		}
		ev.Manifest = m
	case bundle.KindPods, bundle.KindEvents, bundle.KindNodes, bundle.KindKubeObjects:
		data, err := io.ReadAll(io.LimitReader(e, maxKubeBytes+1))
		if err != nil {
			return err
		}
		if len(data) > maxKubeBytes {
			return fmt.Errorf("larger than %d bytes; not read", maxKubeBytes)
		}
		if capped, n := kube.CapObjects(data, kube.MaxObjects); n > kube.MaxObjects {
			ev.problem("%s: %d objects, more than a namespace holds; the first %d are read", e.Path, n, kube.MaxObjects)
			data = capped
		}
		if err := ev.Kube.Add(e.Name, e.Path, bytes.NewReader(data)); err != nil {
			return err
		}
		if e.Kind == bundle.KindPods {
			pods, err := bundle.ParsePods(bytes.NewReader(data))
			if err != nil {
				return err
			}
			ev.Pods = pods
		}
	case bundle.KindMetricsScrape:
		return ev.Metrics.AddScrape(e.Path, e.Pod, e.ScrapedAt, e)
	case bundle.KindPrometheusRange:
		return ev.Metrics.AddRange(e.Path, e)
	case bundle.KindSQLTable:
		return ev.SQL.LoadCSV(e.Name, e.Path, text)
	case bundle.KindDescribe, bundle.KindPodsTable:
		data, err := ev.readPodText(e, text)
		if data == nil {
			return err
		}
		if err != nil {
			ev.problem("%s", namingFile(err, e.Path))
		}
		text = bytes.NewReader(data)
	case bundle.KindAwaitTreeText, bundle.KindAwaitTreeJSON, bundle.KindDiagnoseReport:
		if ev.needTree {
			data, err := ev.readAwaitTree(e, text)
			if data == nil {
				return err
			}
			if err != nil {
				ev.problem("%s", namingFile(err, e.Path))
			}
			text = bytes.NewReader(data)
		}
	}
	if ev.Logs.Wants(e.Class) {
		return ev.Logs.Scan(e.Path, e.Class, text)
	}
	return nil
}

// knownRoles are RisingWave's component names, which both installers also
// use as container names.
var knownRoles = []string{"meta", "compute", "frontend", "compactor", "standalone"}

func (ev *Gathered) finish() {
	ev.podsFromText()
	ev.noteLogStats()
	ev.dropScrapesOutsideWindow()
	ev.components = map[string]string{}
	for _, p := range ev.Pods {
		if p.Component != "" {
			ev.components[p.Name] = p.Component
		} else {
			for _, c := range p.Containers {
				if slices.Contains(knownRoles, c) {
					ev.components[p.Name] = c
					break
				}
			}
		}
	}
	ev.Metrics.SetComponents(ev.Component)
	if m := ev.Manifest; m != nil {
		ev.Info.HandMade = false
		ev.Info.Complete = m.Complete
		ev.Info.CollectedAt = m.CollectedAt
		ev.Info.Namespace = m.Namespace
		ev.Info.Cluster = m.Cluster
		ev.Info.RisingWaveVersion = m.RisingWaveVersion
		if !m.Complete {
			reason := m.IncompleteReason
			if reason == "" {
				reason = "no reason recorded"
			}
			ev.Info.Problems = append(ev.Info.Problems, "collection incomplete: "+reason)
		}
	} else if ev.manifestSeen || ev.stopped != "" {
		// Not hand-made: its manifest is there but unreadable (said among
		// the problems), or reading stopped before one could be met.
		ev.Info.HandMade = false
		if !ev.manifestSeen {
			ev.problem("%s: not reached: reading stopped before it, so whether the bundle has one (and what it records) is unknown", bundle.ManifestPath)
		}
	} else {
		ev.Info.Complete = true
	}
	if ev.Info.RisingWaveVersion == "" {
		ev.Info.RisingWaveVersion = ev.detectVersion()
	}
	switch _, last := ev.Metrics.Span(); {
	case ev.Manifest != nil && !ev.Manifest.FinishedAt.IsZero():
		ev.Time = ev.Manifest.FinishedAt.UTC()
	case ev.Manifest != nil && !ev.Manifest.CollectedAt.IsZero():
		ev.Time = ev.Manifest.CollectedAt.UTC()
	case !last.IsZero():
		ev.Time = last.UTC()
	default:
		ev.Time = ev.Kube.Latest("pods", "events")
	}
}

// Component names the RisingWave component of a pod: from its labels in
// pods.json, else from its container names, else from its name.
func (ev *Gathered) Component(pod string) string {
	if c, ok := ev.components[pod]; ok {
		return c
	}
	for _, c := range ev.containers[pod] {
		if slices.Contains(knownRoles, c) {
			return c
		}
	}
	for _, role := range knownRoles {
		if strings.Contains(pod, "-"+role+"-") || strings.HasSuffix(pod, "-"+role) {
			return role
		}
	}
	return ""
}

// detectVersion finds the RisingWave version where a hand-made bundle
// records it: rw_worker_nodes, else the image tags in pods.json.
func (ev *Gathered) detectVersion() string {
	ctx := context.Background()
	if len(ev.SQL.MissingTables("SELECT rw_version FROM rw_worker_nodes")) == 0 {
		_, rows, err := ev.SQL.Query(ctx, "SELECT rw_version FROM rw_worker_nodes WHERE rw_version IS NOT NULL AND rw_version != '' GROUP BY rw_version ORDER BY count(*) DESC, rw_version DESC LIMIT 1")
		if err == nil && len(rows) == 1 {
			if v := normalizeVersion(fmt.Sprint(rows[0]["rw_version"])); v != "" {
				return v
			}
		}
	}
	if ev.Kube.Has("pods") {
		rows, err := ev.Kube.Query(kube.Query{Resource: "pods", Path: "spec.containers.#.image"})
		if err == nil {
			counts := map[string]int{}
			for _, r := range rows {
				if s, ok := r["value"].(string); ok && strings.Contains(s, "risingwave") {
					_, tag, ok := strings.Cut(s[strings.LastIndex(s, "/")+1:], ":")
					if v := normalizeVersion(tag); ok && v != "" {
						counts[v]++
					}
				}
			}
			best := ""
			for v, n := range counts {
				if best == "" || n > counts[best] || (n == counts[best] && v > best) {
					best = v
				}
			}
			return best
		}
	}
	return ""
}

// normalizeVersion turns "v2.1.0", "2.1.0 (abc123)" or "v2.1.0-rc.1" into
// a version string; "" when it holds none (e.g. "latest", "nightly-2026").
func normalizeVersion(s string) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, " ")
	s = strings.TrimPrefix(s, "v")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return ""
	}
	return s
}

// Close releases the SQL database.
func (ev *Gathered) Close() error {
	if ev.restoreMemory != nil {
		ev.restoreMemory()
		ev.restoreMemory = nil
	}
	if ev.SQL != nil {
		return ev.SQL.Close()
	}
	return nil
}

// EvalTime is the time metric queries are evaluated at: the last sample.
func (ev *Gathered) EvalTime() time.Time {
	_, last := ev.Metrics.Span()
	return last
}

// collectionFailure returns what the manifest says about a failed collection
// step that would have produced the evidence, or "".
func (ev *Gathered) collectionFailure(match func(e bundle.CollectError) bool) string {
	if ev.Manifest == nil {
		return ""
	}
	var msgs []string
	for _, e := range ev.Manifest.Errors {
		if match(e) {
			msgs = append(msgs, fmt.Sprintf("%s %s: %s", e.Step, e.Target, e.Error))
		}
	}
	sort.Strings(msgs)
	return strings.Join(msgs, "; ")
}

var errUnavailable = errors.New("unavailable")
