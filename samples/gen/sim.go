package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Installer is how the cluster was deployed; it decides names and labels.
type Installer int

const (
	operator   Installer = iota // risingwave-operator: <name>-compute-0, risingwave/* labels
	helm                        // helm chart 0.2.x: <release>-risingwave-compute-0, both label sets
	helmLegacy                  // helm chart 0.1.x: app.kubernetes.io/* and risingwave.risingwavelabs.com/component only
	manual                      // hand-written manifests: app.kubernetes.io/component only
)

// Version is the RisingWave release a sample runs, with the version
// differences the generator models (facts §2.5).
type Version struct {
	Tag     string // the image tag: v3.0.3, v1.10.0, nightly-20261124
	Semver  string // what rw_version and the logs print: 3.0.3, 3.1.0-alpha
	Major   int
	Minor   int
	Nightly bool // main after v3.0.3: partial_graph labels, no send-duration metric
	GitSHA  string
}

func (v Version) atLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// databaseLabels: meta barrier metrics carry database_id (per-database
// isolation, v2.3 and later).
func (v Version) databaseLabels() bool { return v.atLeast(2, 3) }

// LogStyle is how a cluster's logs look in the bundle.
type LogStyle struct {
	JSON       bool           // RISINGWAVE_CLOUD=true
	Prefix     bool           // current logs taken with kubectl logs --timestamps
	PrevPrefix bool           // previous logs taken with --timestamps
	Zone       *time.Location // RisingWave's own timestamps (UTC when nil)
	Digits     int            // fractional digits of RisingWave's timestamps: 6 or 9
}

// run is one container instance: when it started, and how it ended (a zero
// end: still running).
type run struct {
	start  time.Time
	end    time.Time
	reason string // OOMKilled, Completed, Error
	exit   int
}

// Pod is one RisingWave pod (or, with Other set, another pod of the namespace).
type Pod struct {
	Name      string
	Component string // meta, compute, frontend, compactor
	Index     int
	WorkerID  int
	IP        string
	Node      string
	HostIP    string
	CPU       int
	Mem       string  // container memory limit, e.g. 8Gi
	MemBytes  float64 // the same in bytes
	TotalMem  string  // RW_TOTAL_MEMORY_BYTES; "" when not set
	Created   time.Time
	Runs      []run  // container instances, oldest first
	Waiting   string // state.waiting.reason when the last run ended
	Workload  string // StatefulSet or Deployment name
	Rev       string // controller-revision-hash or pod-template-hash
	Noise     bool   // an extra healthy pod added by -scale
	Other     string // a non-RisingWave pod (etcd): its app name
	Liveness  bool   // has a liveness probe
	m         podMetrics
	advertise string
}

// current is the last run.
func (p *Pod) current() run { return p.Runs[len(p.Runs)-1] }

// restarts is the container's restartCount.
func (p *Pod) restarts() int { return len(p.Runs) - 1 }

// runAt is the run up at t, if any.
func (p *Pod) runAt(t time.Time) (run, bool) {
	for i := len(p.Runs) - 1; i >= 0; i-- {
		r := p.Runs[i]
		if !t.Before(r.start) {
			if r.end.IsZero() || t.Before(r.end) {
				return r, true
			}
			return run{}, false
		}
	}
	return run{}, false
}

// host is the advertise address the pod registers with (rw_worker_nodes.host).
func (p *Pod) host() string { return p.advertise }

// podMetrics are the knobs a pod's scrapes are computed from.
type podMetrics struct {
	cpu        step // cores busy
	rss        lin  // resident bytes
	jeActive   lin  // jemalloc active bytes; from rss when nil
	lru        step // lru_eviction_policy
	progress   step // barriers collected per second (stream_barrier_manager_progress)
	inflight   lin  // per-CN barrier inflight latency, seconds
	syncLat    lin  // barrier sync latency, seconds
	epochLag   lin  // how far the CN's actors' epochs lag the wall clock, seconds
	blockRatio lin  // output-buffer blocking, fraction of time
}

// Catalog is the streaming graph: jobs, fragments, actors, sources, sinks.
type Catalog struct {
	DatabaseID int
	SchemaID   int
	Jobs       []*Job
	Sources    []*Source
	Sinks      []*Sink
	nextID     int // jobs, sources, sinks and state tables share an id space
	nextFrag   int
	nextActor  int
	frags      []*Fragment // fragments(), cached
	acts       []*Actor    // actors(), cached
}

// Job is a table, materialized view, source or sink.
type Job struct {
	ID         int
	Name       string
	Kind       string // table, materialized view, source, sink
	Definition string
	Status     string // CREATED, CREATING
	Created    time.Time
	Init       time.Time
	Frags      []*Fragment
	Plan       []string // EXPLAIN lines
	Noise      bool
	Background bool
	Parallel   string // ADAPTIVE, FIXED(4)
	Progress   string // ddl progress while creating
	Rows       float64
	Total      float64
	Source     *Source
	Sink       *Sink
	Upstream   string // for backfill progress: the upstream table name
}

// Fragment is a fragment of a job.
type Fragment struct {
	ID          int
	Job         *Job
	Kind        string // source, dml, scan, agg, join, mview, sink, project
	Flags       []string
	Dist        string // HASH, SINGLE
	StateTables []int
	Upstream    []*Fragment
	Actors      []*Actor
	Rate        step         // rows per second per actor
	AggEntries  lin          // cached agg groups per actor
	AggDirty    lin          // dirty groups per actor
	AggOn       map[*Pod]lin // cached agg groups per actor, for actors on one pod
	Backfill    step         // backfill snapshot rows per second per actor
	Op          string
	mview       bool // the fragment ends in the job's Materialize executor
}

// asMview makes f the fragment that materializes its job.
func (f *Fragment) asMview() *Fragment {
	f.mview = true
	f.Flags = append(f.Flags, "MVIEW")
	f.StateTables = append(f.StateTables, f.Job.ID)
	return f
}

// Actor is one actor of a fragment, placed on a compute pod.
type Actor struct {
	ID   int
	Frag *Fragment
	Pod  *Pod
}

// Source is a Kafka source (a CREATE SOURCE or a table with a connector).
type Source struct {
	ID         int
	Name       string
	Topic      string
	Partitions int
	Bootstrap  string
	Props      [][2]string
	Job        *Job
	Frag       *Fragment
	Shared     bool
	perSec     float64 // messages per second per partition; drawn when 0
	// offsetFn is the last consumed offset of a partition at t, rateFn its
	// messages per second, hwFn the broker's high watermark; nil means
	// steady consumption at perSec. inputSince is when the partition's input
	// counter last restarted (actors rebuilt); zero means the process start.
	offsetFn   func(part int, t time.Time) float64
	rateFn     func(part int, t time.Time) float64
	hwFn       func(part int, t time.Time) float64
	inputSince func(part int, t time.Time) time.Time
}

func (src *Source) rate(part int, t time.Time) float64 {
	if src.rateFn != nil {
		return src.rateFn(part, t)
	}
	return src.perSec
}

func (src *Source) offset(part int, t time.Time) float64 {
	if src.offsetFn != nil {
		return src.offsetFn(part, t)
	}
	base := 1e7 + 4e7*unit(src.Name)
	return math.Floor(base + float64(part)*911 + src.perSec*t.Sub(baseTime).Seconds())
}

func (src *Source) hw(part int, t time.Time) float64 {
	if src.hwFn != nil {
		return src.hwFn(part, t)
	}
	return src.offset(part, t) + math.Floor(src.perSec*0.6) + float64(part*13)
}

// consumed is how many messages a partition delivered over [from, to].
func (src *Source) consumed(part int, from, to time.Time) float64 {
	if src.rateFn == nil {
		return src.perSec * to.Sub(from).Seconds()
	}
	n := 0.0
	if lim := baseTime.Add(-time.Hour); from.Before(lim) {
		n += src.rateFn(part, from) * lim.Sub(from).Seconds()
		from = lim
	}
	for u := from; u.Before(to); u = u.Add(5 * time.Second) {
		end := u.Add(5 * time.Second)
		if end.After(to) {
			end = to
		}
		n += src.rateFn(part, u) * end.Sub(u).Seconds()
	}
	return n
}

// Sink is an external sink.
type Sink struct {
	ID        int
	Name      string
	Connector string // kafka, jdbc
	Type      string // append-only, upsert
	Decoupled bool
	Props     [][2]string
	Target    string
	From      *Job
	Job       *Job
	errRate   step        // failed attempts per second (user_sink_error_cnt)
	readLag   lin         // log store read lag behind the write epoch, seconds
	rewind    step        // kv log store rewinds per second
	fails     []time.Time // when each write failed (variety samples' error metrics)
}

// Sim is one sample: the cluster, its catalog, its timeline and the
// evidence planted in it.
type Sim struct {
	Dir       string
	Seed      uint64
	Scale     int
	Large     large // -size's knobs; zero leaves -scale's choices
	Handmade  bool
	Summary   string
	Cluster   string
	Namespace string
	Inst      Installer
	Release   string
	Chart     string
	Version   Version
	Logs      LogStyle
	Debug     bool   // metric level debug: actor_id kept on relabelled metrics
	MetaStore string // postgresql, sqlite, etcd
	Bucket    string
	Cloud     string // aws, gcp, azure: node names
	Pods      []*Pod
	Cat       *Catalog
	Meta      metaModel

	Collect     time.Time     // first scrape, collection start
	ScrapeEvery time.Duration // between scrapes
	Scrapes     int
	Done        time.Time     // logs, kube objects and SQL captured
	LogSince    time.Duration // how far back the logs reach

	// extraMetrics add a scenario's own families to every scrape, after
	// the built-in ones (c.set replaces a built-in family of the same
	// name); extraSQL writes more rw_catalog dumps after the built-in
	// ones, at is the running capture time writeSQL uses. Nil for the
	// samples that need nothing more.
	extraMetrics []func(c *scrapeCtx)
	extraSQL     []func(b *bundleWriter, at *time.Time)

	Params   map[string]string // SHOW PARAMETERS values that differ from the defaults
	events   []kevent
	lines    map[string][]logLine // by "pod/container" or "pod/container.previous"
	eventLog []rwEvent
	await    func(*Sim) string
	report   bool
	groups   string
	rateLims [][5]string
	nodes    []string
	logOnly  map[string]bool // when set, only these pods' logs were gathered
	rnd      *rand.Rand
	seq      int

	// Shape, when set, writes the sample in its release's exact shapes
	// (the variety samples); the regular samples leave it nil.
	Shape *Shapes
	// noBacktrace leaves RUST_BACKTRACE out of the pods' environment, so
	// that errors logged with ?err.as_report() carry no backtrace.
	noBacktrace bool
}

// metaModel are the meta node's barrier and recovery knobs.
type metaModel struct {
	barrier     histModel
	waitCommit  histModel
	send        histModel
	allBarriers lin
	inFlight    lin
	commitLag   lin // seconds the last committed barrier lags the wall clock
	recoveries  []time.Time
	recoveryDur float64
	snapLag     lin // meta_snapshot_backfill_upstream_lag, seconds; nil when none
}

// scrapeTimes are the scrape instants; -scale and -size make them denser,
// over the same window.
func (s *Sim) scrapeTimes() []time.Time {
	k := 1 + log2(s.Scale)
	n := s.Scrapes * k
	every := s.ScrapeEvery / time.Duration(k)
	if s.Large.Scrapes > 0 {
		n = s.Large.Scrapes
		every = s.ScrapeEvery * time.Duration(s.Scrapes) / time.Duration(n)
	}
	out := make([]time.Time, n)
	for i := range out {
		out[i] = s.Collect.Add(time.Duration(i) * every)
	}
	return out
}

// log2 is ⌊log₂ n⌋ for n ≥ 1.
func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// fullname is the prefix of every workload name.
func (s *Sim) fullname() string {
	switch s.Inst {
	case helm, helmLegacy:
		return s.Release + "-risingwave"
	}
	return s.Cluster
}

// ip draws a pod IP in the node's range.
func (s *Sim) ip(node int) string {
	return fmt.Sprintf("10.%d.%d.%d", 40+node%3, 1+node, 10+s.rnd.IntN(240))
}

// addPod adds a RisingWave pod; idx is its ordinal among its component's pods.
func (s *Sim) addPod(component string, idx int, cpu int, mem string, created time.Time) *Pod {
	p := &Pod{Component: component, Index: idx, CPU: cpu, Mem: mem, Created: created}
	p.MemBytes = parseQuantity(mem)
	p.TotalMem = strconv.FormatInt(int64(p.MemBytes), 10)
	node := (idx + len(s.Pods)) % len(s.nodes)
	p.Node = s.nodes[node]
	p.HostIP = fmt.Sprintf("10.0.%d.%d", 1+node, 17+node*13)
	p.IP = s.ip(node)
	p.Workload = s.fullname() + "-" + component
	p.Rev = p.Workload + "-" + hexID(s.Dir+p.Workload, 10)[:10]
	switch component {
	case "meta", "compute":
		p.Name = fmt.Sprintf("%s-%d", p.Workload, idx)
		if s.Inst == operator {
			p.Rev = p.Workload + "-" + podTemplateHash(s.Dir+p.Workload)
		}
	default:
		h := podTemplateHash(s.Dir + p.Workload)
		p.Rev = h
		p.Name = fmt.Sprintf("%s-%s-%s", p.Workload, h, alnum5(s.Dir+p.Workload+strconv.Itoa(idx)))
	}
	p.Runs = []run{{start: created.Add(13 * time.Second)}}
	s.Pods = append(s.Pods, p)
	return p
}

// pods returns the RisingWave pods of a component.
func (s *Sim) pods(component string) []*Pod {
	var out []*Pod
	for _, p := range s.Pods {
		if p.Component == component && p.Other == "" {
			out = append(out, p)
		}
	}
	return out
}

// pod returns the first pod of a component.
func (s *Sim) pod(component string) *Pod { return s.pods(component)[0] }

// assignWorkers numbers the workers the way meta registers them and sets
// advertise addresses.
func (s *Sim) assignWorkers(first int) {
	id := first
	for _, comp := range []string{"meta", "frontend", "compactor", "compute"} {
		for _, p := range s.pods(comp) {
			p.WorkerID = id
			id++
			switch {
			case (comp == "compute" || comp == "meta") && (s.Inst == helm || s.Inst == helmLegacy):
				p.advertise = fmt.Sprintf("%s.%s-headless.%s.svc", p.Name, p.Workload, s.Namespace)
			case comp == "compute" || comp == "meta":
				p.advertise = fmt.Sprintf("%s.%s", p.Name, p.Workload)
			default:
				p.advertise = p.IP
			}
		}
	}
}

// parseQuantity reads a Kubernetes memory quantity such as 8Gi.
func parseQuantity(q string) float64 {
	for _, u := range []struct {
		suf string
		mul float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}} {
		if strings.HasSuffix(q, u.suf) {
			v, _ := strconv.ParseFloat(strings.TrimSuffix(q, u.suf), 64)
			return v * u.mul
		}
	}
	v, _ := strconv.ParseFloat(q, 64)
	return v
}

// newCatalog starts a catalog whose ids begin at first.
func newCatalog(first int) *Catalog {
	return &Catalog{DatabaseID: 1, SchemaID: 2, nextID: first, nextFrag: 1, nextActor: 1}
}

func (c *Catalog) id() int {
	c.nextID++
	return c.nextID - 1
}

// job adds a job; its fragments are added with frag.
func (c *Catalog) job(kind, name, def string, created time.Time) *Job {
	j := &Job{ID: c.id(), Kind: kind, Name: name, Definition: def, Status: "CREATED",
		Init: created, Created: created.Add(2 * time.Second), Parallel: "ADAPTIVE"}
	c.Jobs = append(c.Jobs, j)
	return j
}

// frag adds a fragment of kind to j with one actor per pod in on (round
// robin, n actors), fed by upstream.
func (c *Catalog) frag(j *Job, kind string, on []*Pod, n int, rate float64, upstream ...*Fragment) *Fragment {
	c.frags, c.acts = nil, nil
	f := &Fragment{ID: c.nextFrag, Job: j, Kind: kind, Dist: "HASH", Upstream: upstream, Rate: flat(rate)}
	c.nextFrag++
	switch kind {
	case "source":
		f.Flags = []string{"SOURCE"}
	case "dml":
		f.Flags = []string{"DML"}
	case "scan":
		f.Flags = []string{"STREAM_SCAN"}
	case "mview":
		f.Flags = []string{"MVIEW"}
	case "sink":
		f.Flags = []string{"SINK"}
	case "agg", "join", "project":
		f.Flags = []string{}
	}
	if kind == "mview" && j.Kind == "table" {
		f.Flags = []string{"MVIEW", "DML"}
	}
	if n == 1 {
		f.Dist = "SINGLE"
	}
	switch kind {
	case "agg":
		f.StateTables = []int{c.id(), c.id()}
		f.Op = "HashAgg"
	case "join":
		f.StateTables = []int{c.id(), c.id(), c.id(), c.id()}
		f.Op = "HashJoin"
	case "mview":
		f.StateTables = []int{j.ID}
		f.Op = "Materialize"
		f.mview = true
	case "source":
		f.StateTables = []int{c.id()}
		f.Op = "Source"
	case "scan":
		f.StateTables = []int{c.id()}
		f.Op = "StreamScan"
	case "sink":
		f.Op = "Sink"
	case "dml":
		f.Op = "Dml"
	default:
		f.Op = "Project"
	}
	for i := 0; i < n; i++ {
		a := &Actor{ID: c.nextActor, Frag: f, Pod: on[i%len(on)]}
		c.nextActor++
		f.Actors = append(f.Actors, a)
	}
	j.Frags = append(j.Frags, f)
	return f
}

// fragments returns every fragment, in id order. The list is cached until
// the catalog changes.
func (c *Catalog) fragments() []*Fragment {
	if c.frags != nil {
		return c.frags
	}
	var out []*Fragment
	for _, j := range c.Jobs {
		out = append(out, j.Frags...)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].ID < out[k].ID })
	c.frags = out
	return out
}

// actors returns every actor, in id order, cached like fragments.
// actorIDsOn are the ids of the actors running on pod p, in catalog order.
func (c *Catalog) actorIDsOn(p *Pod) []int {
	var ids []int
	for _, a := range c.actors() {
		if a.Pod == p {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

func (c *Catalog) actors() []*Actor {
	if c.acts != nil {
		return c.acts
	}
	var out []*Actor
	for _, f := range c.fragments() {
		out = append(out, f.Actors...)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].ID < out[k].ID })
	c.acts = out
	return out
}

// jobByName finds a job.
func (c *Catalog) jobByName(name string) *Job {
	for _, j := range c.Jobs {
		if j.Name == name {
			return j
		}
	}
	return nil
}

// fragOf returns a job's fragment of kind.
func (j *Job) fragOf(kind string) *Fragment {
	for _, f := range j.Frags {
		if f.Kind == kind {
			return f
		}
	}
	return nil
}

// actorsOn returns the fragment's actors on a pod.
func (f *Fragment) actorsOn(p *Pod) []*Actor {
	var out []*Actor
	for _, a := range f.Actors {
		if a.Pod == p {
			out = append(out, a)
		}
	}
	return out
}

// identity is the executor identity the await tree and logs print:
// the actor id and operator index packed as RisingWave packs them.
func identity(op string, actor, opIdx int) string {
	return fmt.Sprintf("%s %X", op, uint64(actor)<<32|uint64(opIdx))
}
