package metrics

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"
	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// maxMetricsFileSize caps one scrape or query_range file.
const maxMetricsFileSize = 256 << 20

// Names returns the metric names a PromQL query references, from the
// __name__ equality matchers of its selectors, sorted. all is true when some
// selector has no fixed name (`{job="x"}`, `{__name__=~"x.*"}`), so every
// metric must be kept. Grafana's $__rate_interval, $__interval and $__range
// are accepted, as in CheckPromQL.
func Names(query string) (names []string, all bool, err error) {
	expr, err := parsePromQL(expandGrafanaVars(query, placeholderIntervals))
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := ""
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
				break
			}
		}
		if name == "" {
			all = true
		} else if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return nil
	})
	slices.Sort(names)
	return names, all, nil
}

// CheckPromQL parses a query, with Grafana's $__rate_interval, $__interval
// and $__range standing for a placeholder duration, and returns the parse
// error, whose message starts with the line:column it is at in the query.
func CheckPromQL(query string) error {
	_, err := parsePromQL(expandGrafanaVars(query, placeholderIntervals))
	return err
}

// parsePromQL parses with the same (default, stable-only) options as the
// engine in Query.
func parsePromQL(q string) (parser.Expr, error) {
	return parser.NewParser(parser.Options{}).ParseExpr(q)
}

// Store holds metric samples in memory and evaluates PromQL over them
// with the Prometheus engine. It is filled by AddScrape and AddRange, which
// must not run concurrently with each other or with Query; once it is
// filled, Query may be called concurrently.
type Store struct {
	names     map[string]bool
	component func(pod string) string
	symbols   *labels.SymbolTable

	series []*memSeries
	index  map[uint64]*memSeries // by labels hash, chained through memSeries.next
	// raw finds a scrape's series by its exposition text, per pod, so that
	// a series seen before costs a map lookup instead of building labels.
	raw        map[string]map[string]*memSeries
	scrapes    map[string][]scrapeFile // by pod
	nscrapes   int                     // AddScrape calls
	rangeSteps []int64                 // sample spacing seen in query_range files, ms
	nsamples   int
	minT, maxT int64

	mu           sync.Mutex // guards what prepare builds
	dirty        bool       // something was added since prepare
	sorted       []*memSeries
	ranged       []*memSeries // the sorted series that came from query_range files
	byName       map[string][]*memSeries
	bounds       metricIntervals
	engine       *promql.Engine
	engineN      int   // the engine's MaxSamples
	maxSeriesLen int   // samples of the longest series
	subqStep     int64 // ms, default step of subqueries without one
	limits       Limits

	fams      map[string]map[string]bool // see families
	famsDirty bool

	// Reused from scrape to scrape while the store is filled; prepare lets
	// them go.
	readBuf []byte
	lineBuf []int32
	nameBuf []byte
	known   []knownSample

	parseAll bool // tests: the parser reads every scrape (no addKnown)
	nknown   int  // scrapes addKnown added
}

// maxReadBuf is the largest scrape buffer kept for the next scrape.
const maxReadBuf = 16 << 20

type memSeries struct {
	lset labels.Labels
	hash uint64
	next *memSeries
	samples
	scraped bool   // has samples from scrape files
	src     string // the query_range file it first came from, if any
}

type scrapeFile struct {
	t    int64
	path string
	seq  int // order of addition
}

// NewStore returns an empty store that keeps only the series whose
// metric name is in names; a nil map keeps everything. Names match series
// names exactly, so a histogram or summary is kept series by series: a
// query on x_bucket keeps x_bucket, and x_sum only if it is named too.
func NewStore(names map[string]bool) *Store {
	return &Store{
		names:   names,
		symbols: labels.NewSymbolTable(),
		index:   map[uint64]*memSeries{},
		raw:     map[string]map[string]*memSeries{},
		scrapes: map[string][]scrapeFile{},
		minT:    math.MaxInt64,
		maxT:    math.MinInt64,
	}
}

func (s *Store) wants(name string) bool {
	return s.names == nil || s.names[name]
}

// AddScrape reads one Prometheus text-format scrape of pod, taken at `at`,
// from r. Each sample is stamped with `at` unless it carries its own
// timestamp, and gets the label pod=<pod> (an exposed pod label that
// differs is kept as exported_pod, as Prometheus does). On malformed input
// it returns an error naming path and line; the samples before it are kept.
func (s *Store) AddScrape(path, pod string, at time.Time, r io.Reader) error {
	// The file is read into the buffer of the one before: nothing kept
	// points into it (labels and the raw index's keys are copies).
	b, err := readMetricsFile(path, r, s.readBuf)
	if err != nil {
		return err
	}
	if cap(b) <= maxReadBuf {
		s.readBuf = b[:0]
	}
	atMs := at.UnixMilli()
	s.nscrapes++
	s.scrapes[pod] = append(s.scrapes[pod], scrapeFile{t: atMs, path: path, seq: s.nscrapes})
	s.dirty, s.famsDirty = true, true
	if len(b) == 0 {
		return nil
	}
	// The parser appends a missing final newline to a copy; do it here so
	// that what it returns points into b and tells the line.
	if b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	var lineNos []int32
	if s.names != nil {
		b, lineNos = s.wantedLines(b)
	}
	if lineNos != nil && s.addKnown(b, s.raw[pod], atMs) {
		return nil
	}
	p, err := textparse.New(b, "text/plain; version=0.0.4", s.symbols, textparse.ParserOptions{})
	if p == nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	raw := s.raw[pod]
	if raw == nil {
		raw = map[string]*memSeries{}
		s.raw[pod] = raw
	}
	var lset labels.Labels
	last := -1 // offset in b of the last entry read, for error lines
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			line := scrapeErrorLine(b, last)
			if lineNos != nil {
				line = int(lineNos[min(line, len(lineNos))-1])
			}
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		switch e {
		case textparse.EntrySeries:
			ser, tp, v := p.Series()
			last = offsetIn(b, ser, last)
			ms := raw[string(ser)]
			if ms == nil {
				if name, ok := exposedName(ser); ok && !s.wants(string(name)) {
					continue
				}
				p.Labels(&lset)
				if !s.wants(lset.Get(labels.MetricName)) {
					continue
				}
				ms = s.getOrCreate(s.podLabels(lset, pod))
				ms.scraped = true
				raw[string(ser)] = ms
			}
			t := atMs
			if tp != nil {
				t = *tp
			}
			s.append(ms, t, v)
		case textparse.EntryType:
			name, _ := p.Type()
			last = offsetIn(b, name, last)
		case textparse.EntryHelp:
			name, _ := p.Help()
			last = offsetIn(b, name, last)
		case textparse.EntryComment:
			last = offsetIn(b, p.Comment(), last)
		}
	}
}

// wantedLines keeps, moving them to the front of b, the lines the parser
// needs when not every metric is wanted: the samples of wanted metrics,
// every TYPE line (the type decides how le and quantile values are
// normalised) and the lines whose metric name cannot be read without
// parsing. The lexer is most of the cost of a scrape, and rules want a few
// of its thousands of series. lineNos[i] is the line number in b of the
// i-th line kept.
func (s *Store) wantedLines(b []byte) (kept []byte, lineNos []int32) {
	lineNos = s.lineBuf[:0]
	// The name of the last sample line read and whether it was kept: the
	// lines of a family come together, so most lines start with the name
	// of the one before, followed by one of the bytes that end a name in
	// exposedName. The name is copied, since kept lines move over it.
	prev, prevKeep := s.nameBuf[:0], false
	w, n := 0, int32(0)
	for r := 0; r < len(b); {
		end := r + bytes.IndexByte(b[r:], '\n') + 1
		if end == r { // no newline
			end = len(b)
		}
		line := b[r:end]
		n++
		keep := true
		switch line[0] {
		case '#':
			keep = bytes.HasPrefix(bytes.TrimLeft(line[1:], " \t"), []byte("TYPE"))
		case '\n':
			keep = false
		default:
			if k := len(prev); k > 0 && len(line) > k && nameEnd(line[k]) && bytes.Equal(line[:k], prev) {
				keep = prevKeep
			} else if name, ok := exposedName(line); ok {
				keep = s.names[string(name)]
				prev, prevKeep = append(prev[:0], name...), keep
			}
		}
		if keep {
			w += copy(b[w:], line)
			lineNos = append(lineNos, n)
		}
		r = end
	}
	s.lineBuf, s.nameBuf = lineNos[:0], prev[:0]
	return b[:w], lineNos
}

// nameEnd reports whether c ends a metric name in exposedName.
func nameEnd(c byte) bool { return c == '{' || c == ' ' || c == '\t' || c == '\n' }

// exposedName returns the metric name at the start of a series' exposition
// text, `name{...}` or `name`; ok is false when the name is not there
// (quoted names inside the braces).
func exposedName(ser []byte) (name []byte, ok bool) {
	ser = bytes.TrimLeft(ser, " \t")
	if len(ser) == 0 || ser[0] == '{' || ser[0] == '"' {
		return nil, false
	}
	for i, c := range ser {
		if nameEnd(c) {
			return ser[:i], true
		}
	}
	return ser, true
}

// offsetIn returns where sub starts in b when it is a slice of b, else
// fallback.
func offsetIn(b, sub []byte, fallback int) int {
	if len(sub) == 0 {
		return fallback
	}
	off := cap(b) - cap(sub)
	if off < 0 || off >= len(b) || &b[off] != &sub[0] {
		return fallback
	}
	return off
}

// scrapeErrorLine returns the 1-based line of a parse error: the first
// non-blank line after the one holding offset last (-1: none read yet).
func scrapeErrorLine(b []byte, last int) int {
	line, i := 1, 0
	if last >= 0 {
		line += bytes.Count(b[:last], []byte{'\n'})
		nl := bytes.IndexByte(b[last:], '\n')
		if nl < 0 {
			return line
		}
		i = last + nl + 1
		line++
	}
	for i < len(b) {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 || len(bytes.Trim(b[i:i+nl], " \t")) > 0 {
			return line
		}
		i += nl + 1
		line++
	}
	return line
}

// podLabels adds pod (and component, once known) to a scraped series.
func (s *Store) podLabels(lset labels.Labels, pod string) labels.Labels {
	if pod == "" && s.component == nil {
		return lset
	}
	lb := labels.NewBuilder(lset)
	if pod != "" {
		if old := lset.Get("pod"); old != "" && old != pod {
			lb.Set("exported_pod", old)
		}
		lb.Set("pod", pod)
	}
	s.addComponent(lb)
	return lb.Labels()
}

// addComponent sets the component label from the pod label, unless set.
func (s *Store) addComponent(lb *labels.Builder) bool {
	if s.component == nil || lb.Get("component") != "" {
		return false
	}
	pod := lb.Get("pod")
	if pod == "" {
		return false
	}
	c := s.component(pod)
	if c == "" {
		return false
	}
	lb.Set("component", c)
	return true
}

func (s *Store) getOrCreate(lset labels.Labels) *memSeries {
	h := lset.Hash()
	for ms := s.index[h]; ms != nil; ms = ms.next {
		if labels.Equal(ms.lset, lset) {
			return ms
		}
	}
	ms := &memSeries{lset: lset, hash: h, next: s.index[h], samples: newSamples()}
	s.index[h] = ms
	s.series = append(s.series, ms)
	s.dirty, s.famsDirty = true, true
	return ms
}

func (s *Store) append(ms *memSeries, t int64, v float64) {
	ms.add(t, v)
	s.nsamples++
	s.minT = min(s.minT, t)
	s.maxT = max(s.maxT, t)
	s.dirty, s.famsDirty = true, true
}

// AddRange reads a Prometheus HTTP API query_range response (a matrix; an
// instant vector is accepted too) and adds its series with their labels. A
// series without a metric name is kept only when the store keeps
// everything. On malformed input the samples before it are kept.
func (s *Store) AddRange(path string, r io.Reader) error {
	b, err := readMetricsFile(path, r, nil)
	if err != nil {
		return err
	}
	if !gjson.ValidBytes(b) {
		return fmt.Errorf("%s: invalid JSON", path)
	}
	doc := gjson.ParseBytes(b)
	if st := doc.Get("status").String(); st != "success" {
		return fmt.Errorf("%s: query status %q: %s", path, st, doc.Get("error").String())
	}
	var key string
	switch rt := doc.Get("data.resultType").String(); rt {
	case "matrix":
		key = "values"
	case "vector":
		key = "value"
	default:
		return fmt.Errorf("%s: result type %q, want matrix", path, rt)
	}
	var firstErr error
	steps := false
	doc.Get("data.result").ForEach(func(_, res gjson.Result) bool {
		metric := res.Get("metric")
		if !s.wants(metric.Get(labels.MetricName).String()) {
			return true
		}
		var sb labels.ScratchBuilder
		metric.ForEach(func(k, v gjson.Result) bool {
			sb.Add(k.String(), v.String())
			return true
		})
		sb.Sort()
		lset := sb.Labels()
		if s.component != nil {
			lb := labels.NewBuilder(lset)
			if s.addComponent(lb) {
				lset = lb.Labels()
			}
		}
		ms := s.getOrCreate(lset)
		if ms.src == "" {
			ms.src = path
		}
		points := res.Get(key)
		if key == "value" {
			points = gjson.Parse("[" + points.Raw + "]")
		}
		var prev int64
		n := 0
		points.ForEach(func(_, pt gjson.Result) bool {
			a := pt.Array()
			if len(a) != 2 || a[0].Type != gjson.Number {
				firstErr = fmt.Errorf("%s: series %s: bad sample %s", path, metricSeriesString(lset), pt.Raw)
				return false
			}
			v, err := strconv.ParseFloat(a[1].String(), 64)
			if err != nil {
				firstErr = fmt.Errorf("%s: series %s: %w", path, metricSeriesString(lset), err)
				return false
			}
			t := int64(math.Round(a[0].Float() * 1000))
			s.append(ms, t, v)
			if !steps && n > 0 && t > prev {
				s.rangeSteps = append(s.rangeSteps, t-prev)
			}
			prev = t
			n++
			return true
		})
		if n > 1 {
			steps = true // the first series tells the file's step
		}
		return firstErr == nil
	})
	return firstErr
}

// readMetricsFile reads a whole file of at most maxMetricsFileSize bytes
// into buf, which it grows as needed (sized up front when r tells its
// size), and returns it; buf may be nil.
func readMetricsFile(path string, r io.Reader, buf []byte) ([]byte, error) {
	size := int64(512)
	switch r := r.(type) {
	case *bundle.Entry:
		size = r.Size
	case interface{ Len() int }:
		size = int64(r.Len())
	}
	// One spare byte, so that neither reading EOF nor adding a final
	// newline grows the buffer.
	if want := int(min(max(size, 0), maxMetricsFileSize) + 1); cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	b := buf[:0]
	lr := io.LimitReader(r, maxMetricsFileSize+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if len(b) > maxMetricsFileSize {
		return nil, fmt.Errorf("read %s: larger than %d MiB", path, maxMetricsFileSize>>20)
	}
	return b, nil
}

// SetComponents gives every series with a pod label, and no component label
// of its own, component=<component(pod)> (none when it returns ""). It is
// called once the whole bundle is read, since pods.json may come after the
// metrics; series added later get the label as they come.
func (s *Store) SetComponents(component func(pod string) string) {
	s.component = component
	if component == nil {
		return
	}
	changed := false
	for _, ms := range s.series {
		lb := labels.NewBuilder(ms.lset)
		if s.addComponent(lb) {
			ms.lset = lb.Labels()
			ms.hash = ms.lset.Hash()
			changed = true
		}
	}
	if !changed {
		return
	}
	// Rebuild the index; a relabelled series may now equal another one,
	// which then takes its samples.
	s.index = map[uint64]*memSeries{}
	s.raw = map[string]map[string]*memSeries{}
	kept := s.series[:0]
	for _, ms := range s.series {
		if dup := s.lookup(ms.lset, ms.hash); dup != nil {
			ms.each(dup.add)
			dup.scraped = dup.scraped || ms.scraped
			if dup.src == "" {
				dup.src = ms.src
			}
			continue
		}
		ms.next = s.index[ms.hash]
		s.index[ms.hash] = ms
		kept = append(kept, ms)
	}
	clear(s.series[len(kept):])
	s.series = kept
	s.dirty, s.famsDirty = true, true
}

func (s *Store) lookup(lset labels.Labels, h uint64) *memSeries {
	for ms := s.index[h]; ms != nil; ms = ms.next {
		if labels.Equal(ms.lset, lset) {
			return ms
		}
	}
	return nil
}

// Empty reports whether the store holds no samples.
func (s *Store) Empty() bool { return s.SampleCount() == 0 }

// Span returns the times of the earliest and the latest sample; zero times
// when the store is empty.
func (s *Store) Span() (first, last time.Time) {
	if s.SampleCount() == 0 {
		return time.Time{}, time.Time{}
	}
	return time.UnixMilli(s.minT).UTC(), time.UnixMilli(s.maxT).UTC()
}

// SeriesCount returns the number of series held.
func (s *Store) SeriesCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.series)
}

// SampleCount returns the number of samples held. Samples of a series
// with the same time count until the first Query keeps the last of them.
func (s *Store) SampleCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nsamples
}

// prepare orders samples, indexes series and works out the intervals, once
// after the last addition.
func (s *Store) prepare() metricIntervals {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty || s.sorted == nil {
		s.reorder()
	}
	if n := s.limits.maxSamples(s.nsamples); s.engine == nil || s.engineN != n {
		s.engineN = n
		s.engine = promql.NewEngine(promql.EngineOpts{
			MaxSamples:           n,
			Timeout:              s.limits.timeout(),
			EnableAtModifier:     true,
			EnableNegativeOffset: true,
			// A subquery without a step, x[10m:], steps by the scrape
			// interval. Read under mu: it is written only by prepare.
			NoStepSubqueryIntervalFn: func(int64) int64 {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.subqStep
			},
		})
	}
	return s.bounds
}

// maxSpan bounds the span of the samples the intervals are worked out from.
const maxSpan = 200 * 365 * 24 * time.Hour

// reorder orders samples, indexes series and works out the intervals; mu is
// held.
func (s *Store) reorder() {
	s.nsamples, s.maxSeriesLen = 0, 0
	for _, ms := range s.series {
		ms.order()
		ms.compact()
		s.nsamples += ms.n
		s.maxSeriesLen = max(s.maxSeriesLen, ms.n)
	}
	s.sorted = slices.Clone(s.series)
	slices.SortFunc(s.sorted, func(a, b *memSeries) int { return labels.Compare(a.lset, b.lset) })
	s.byName = map[string][]*memSeries{}
	s.ranged = nil
	for _, ms := range s.sorted {
		n := ms.lset.Get(labels.MetricName)
		s.byName[n] = append(s.byName[n], ms)
		if ms.src != "" {
			s.ranged = append(s.ranged, ms)
		}
	}
	steps := slices.Clone(s.rangeSteps)
	for _, files := range s.scrapes {
		slices.SortStableFunc(files, func(a, b scrapeFile) int { return cmp.Compare(a.t, b.t) })
		for i := 1; i < len(files); i++ {
			if d := files[i].t - files[i-1].t; d > 0 {
				steps = append(steps, d)
			}
		}
	}
	s.bounds = metricIntervals{}
	if len(steps) > 0 {
		slices.Sort(steps)
		s.bounds.scrape = time.Duration(steps[len(steps)/2]) * time.Millisecond
	}
	if s.nsamples > 0 {
		// At most maxSpan: a sample dated 1970 and one in year 9999 are
		// 8,000 years apart, which a Duration cannot hold.
		s.bounds.span = time.Duration(min(s.maxT-s.minT, maxSpan.Milliseconds())) * time.Millisecond
	}
	s.subqStep = s.bounds.interval().Milliseconds()
	s.dirty = false
	s.readBuf, s.lineBuf, s.nameBuf = nil, nil, nil
}

// Query evaluates an instant PromQL query at `at` (zero: the last sample)
// with the Prometheus engine. Grafana's $__rate_interval, $__interval and
// $__range stand for durations worked out from the data (see
// metricIntervals); the lookback is max(5m, span+1m) so that every series'
// last value is seen at the last sample time.
//
// A vector gives one Row per series: its labels as strings, "value"
// (float64), "time" (the evaluation time), "series" (`name{a="b"}`) and
// "path": the pod's latest scrape file at or before the evaluation time
// when the series has a pod label and the pod was scraped, else the
// query_range file it came from, else "". A matrix (`x[5m]`) gives one Row
// per series with "value" and "time" of its last sample and "values", all
// of them. A scalar gives one Row with "value" and "time", a string one Row
// with "value". These fields win over labels of the same name.
func (s *Store) Query(ctx context.Context, query string, at time.Time) ([]evidence.Row, error) {
	iv := s.prepare()
	if at.IsZero() {
		_, at = s.Span()
	}
	lookback := max(5*time.Minute, iv.span+time.Minute)
	qs := expandGrafanaVars(query, iv)
	s.mu.Lock()
	engine, limits, maxSamples := s.engine, s.limits, s.engineN
	cost := costCheck{
		maxSteps:     limitOr(limits.MaxSubquerySteps, DefaultMaxSubquerySteps),
		maxWork:      limitOr(limits.MaxSeriesWork, DefaultMaxSeriesWork),
		defaultStep:  time.Duration(s.subqStep) * time.Millisecond,
		scrape:       iv.scrape,
		maxSeriesLen: int64(s.maxSeriesLen),
	}
	s.mu.Unlock()
	if expr, err := parsePromQL(qs); err == nil {
		// The engine allocates per subquery step before it counts samples,
		// and checks for its timeout between series only.
		if errs := cost.check(query, qs, expr); len(errs) > 0 {
			return nil, errs[0]
		}
	}
	q, err := engine.NewInstantQuery(ctx, storage.QueryableFunc(s.querier), promql.NewPrometheusQueryOpts(false, lookback, nil), qs, at)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", query, err)
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		return nil, evalError(query, limits, maxSamples, res.Err, ctx.Err() != nil)
	}
	o := &metricOrigins{s: s, query: qs}
	var rows []evidence.Row
	switch v := res.Value.(type) {
	case promql.Vector:
		// Aggregations hand series out in map order: sort them, so the same
		// bundle always gives the same report.
		slices.SortFunc(v, func(a, b promql.Sample) int { return labels.Compare(a.Metric, b.Metric) })
		for _, smp := range v {
			row := seriesRow(smp.Metric)
			row["value"] = smp.F
			row["time"] = time.UnixMilli(smp.T).UTC()
			row["path"] = o.path(smp.Metric, smp.T)
			rows = append(rows, row)
		}
	case promql.Matrix:
		for _, ser := range v {
			if len(ser.Floats) == 0 {
				continue
			}
			row := seriesRow(ser.Metric)
			lastP := ser.Floats[len(ser.Floats)-1]
			values := make([]float64, len(ser.Floats))
			for i, p := range ser.Floats {
				values[i] = p.F
			}
			row["value"] = lastP.F
			row["values"] = values
			row["time"] = time.UnixMilli(lastP.T).UTC()
			row["path"] = o.path(ser.Metric, lastP.T)
			rows = append(rows, row)
		}
	case promql.Scalar:
		rows = append(rows, evidence.Row{"value": v.V, "time": time.UnixMilli(v.T).UTC()})
	case promql.String:
		rows = append(rows, evidence.Row{"value": v.V})
	}
	return rows, nil
}

func seriesRow(lset labels.Labels) evidence.Row {
	row := make(evidence.Row, lset.Len()+4)
	lset.Range(func(l labels.Label) { row[l.Name] = l.Value })
	row["series"] = metricSeriesString(lset)
	return row
}

// metricSeriesString writes a series as Prometheus does: name{a="b", c="d"}.
func metricSeriesString(lset labels.Labels) string {
	var b strings.Builder
	b.WriteString(lset.Get(labels.MetricName))
	b.WriteByte('{')
	first := true
	lset.Range(func(l labels.Label) {
		if l.Name == labels.MetricName {
			return
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(l.Name)
		b.WriteByte('=')
		b.WriteString(strconv.Quote(l.Value))
	})
	b.WriteByte('}')
	return b.String()
}

// metricOrigins finds the bundle file a result series comes from.
type metricOrigins struct {
	s     *Store
	query string
	names map[string]bool // referenced by the query; nil: all
	done  bool
}

func (o *metricOrigins) path(lset labels.Labels, t int64) string {
	s := o.s
	pod := lset.Get("pod")
	if ms := s.lookup(lset, lset.Hash()); ms != nil {
		if ms.scraped && pod != "" {
			return s.scrapeAt(pod, t)
		}
		return ms.src
	}
	// A computed series: its pod's scrape, or the query_range file that
	// holds a series of a referenced metric with all its labels.
	if pod != "" && len(s.scrapes[pod]) > 0 {
		return s.scrapeAt(pod, t)
	}
	if !o.done {
		o.done = true
		if names, all, err := Names(o.query); err == nil && !all {
			o.names = map[string]bool{}
			for _, n := range names {
				o.names[n] = true
			}
		}
	}
	best := ""
	for _, ms := range s.ranged { // only they have a src to give
		if best != "" && ms.src >= best {
			continue
		}
		if o.names != nil && !o.names[ms.lset.Get(labels.MetricName)] {
			continue
		}
		sub := true
		lset.Range(func(l labels.Label) {
			if sub && l.Name != labels.MetricName && ms.lset.Get(l.Name) != l.Value {
				sub = false
			}
		})
		if sub {
			best = ms.src
		}
	}
	return best
}

// scrapeAt returns the path of pod's latest scrape file at or before t.
func (s *Store) scrapeAt(pod string, t int64) string {
	files := s.scrapes[pod]
	i := sort.Search(len(files), func(i int) bool { return files[i].t > t })
	if i == 0 {
		return ""
	}
	return files[i-1].path
}

// The storage.Querier over the store, for the engine.

// EvalTimes are the times to evaluate a history at: the end of each scrape
// round (samples less than a quarter of the scrape interval, at least a
// second, apart belong to one round), at most n of them, evenly picked, the
// last always kept.
func (s *Store) EvalTimes(n int) []time.Time {
	iv := s.prepare()
	s.mu.Lock()
	var ts []int64
	for _, ms := range s.sorted {
		ms.each(func(t int64, _ float64) { ts = append(ts, t) })
	}
	s.mu.Unlock()
	slices.Sort(ts)
	ts = slices.Compact(ts)
	gap := max(time.Second, iv.scrape/4).Milliseconds()
	var rounds []int64
	for i, t := range ts {
		if i+1 == len(ts) || ts[i+1]-t > gap {
			rounds = append(rounds, t)
		}
	}
	if len(rounds) > n && n > 1 {
		picked := make([]int64, 0, n)
		for i := range n {
			picked = append(picked, rounds[i*(len(rounds)-1)/(n-1)])
		}
		rounds = slices.Compact(picked)
	}
	out := make([]time.Time, len(rounds))
	for i, t := range rounds {
		out[i] = time.UnixMilli(t).UTC()
	}
	return out
}

// ScrapeOf is a scrape file at or before t of a pod that exposes a metric
// one of the PromQL queries reads: the source of an aggregated series, which
// has no pod label. Queries that do not parse are passed over.
func (s *Store) ScrapeOf(queries []string, t time.Time) string {
	for _, q := range queries {
		names, _, err := Names(q)
		if err != nil {
			continue
		}
		for _, n := range names {
			s.mu.Lock()
			series := s.byName[n]
			s.mu.Unlock()
			for _, ms := range series {
				if pod := ms.lset.Get("pod"); ms.scraped && pod != "" {
					if p := s.scrapeAt(pod, t.UnixMilli()); p != "" {
						return p
					}
				}
			}
		}
	}
	return ""
}
