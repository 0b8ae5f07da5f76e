// Command gen regenerates rwdiag's sample bundles: deterministic bundles of
// RisingWave clusters on Kubernetes, each showing one failure pattern (or
// none), in the layout of docs/bundle-format.md.
//
//	go run ./samples/gen -out samples                 # every sample
//	go run ./samples/gen -out samples -only sink-blockage
//	go run ./samples/gen -out /tmp/big -scale 64      # more noise
//	go run ./samples/gen -out /tmp/big -only compound-incident -size 2GiB
//	go run ./samples/gen -out samples -variety        # samples/variety/<pattern>-v<N>/
//
// The same flags always produce the same bytes. The generator owns the
// sample directories it writes (it deletes and rewrites them) and nothing
// else in -out.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

func main() {
	out := flag.String("out", "samples", "directory to write the sample bundles into")
	only := flag.String("only", "", "generate only the sample with this name")
	scale := flag.Int("scale", 1, "noise multiplier: more unrelated jobs, series, log lines, scrapes and compute pods")
	size := flag.String("size", "", "write a large bundle of about this uncompressed `size` (e.g. 512MiB, 2GiB, 8GiB) around the sample's evidence: 32 pods, scrapes and log lines in proportion; needs -only, replaces -scale")
	variety := flag.Bool("variety", false, "write the variety samples instead: each pattern in the shapes of a v1.x, a v2.x and a v3.x release, into OUT/variety/<pattern>-v<N>/ (-only names one)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gen: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if *variety {
		if *size != "" || *scale != 1 {
			// The variety bundles show shapes, not volume: their noise is
			// written for scale 1 only.
			fmt.Fprintln(os.Stderr, "gen: -size and -scale do not combine with -variety")
			os.Exit(2)
		}
		if err := generateVariety(*out, *only, *scale); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	var lg large
	if *size != "" {
		n, err := parseSize(*size)
		if err == nil && *only == "" {
			err = fmt.Errorf("-size writes one large bundle: name its sample with -only")
		}
		if err == nil && *scale != 1 {
			err = fmt.Errorf("-size and -scale do not combine")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(2)
		}
		lg = largeFor(n)
	}
	if err := generateWith(*out, *only, *scale, lg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generateAll generates the samples into out.
func generateAll(out, only string, scale int) error {
	return generateWith(out, only, scale, large{})
}

// generateWith generates the samples into out, large ones when lg is set.
func generateWith(out, only string, scale int, lg large) error {
	if err := checkScale(scale); err != nil {
		return err
	}
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.name
	}
	return eachNamed(names, only, "no sample %q; the samples are %s", func(i int) error {
		sc := scenarios[i]
		if err := generate(sc, filepath.Join(out, sc.name), scale, lg); err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		return nil
	})
}

// checkScale rejects a -scale below 1.
func checkScale(scale int) error {
	if scale < 1 {
		return fmt.Errorf("-scale must be at least 1, not %d", scale)
	}
	return nil
}

// eachNamed calls gen with the index of every name, or of only the one
// equal to only when only is set. When only matches none, the error is
// notFound formatted with only and the names, comma-separated.
func eachNamed(names []string, only, notFound string, gen func(i int) error) error {
	found := false
	for i, name := range names {
		if only != "" && name != only {
			continue
		}
		found = true
		if err := gen(i); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf(notFound, only, strings.Join(names, ", "))
	}
	return nil
}

// scenario is one sample: a name, a seed and the function that builds it.
type scenario struct {
	name  string
	seed  uint64
	build func(s *Sim)
}

// generate builds a scenario and writes its bundle to dir, replacing
// whatever was there.
func generate(sc scenario, dir string, scale int, lg large) error {
	if err := emptyDir(dir); err != nil {
		return err
	}
	s := &Sim{Dir: sc.name, Seed: sc.seed, Scale: scale, Large: lg, rnd: newRand(sc.seed, "sim")}
	sc.build(s)
	s.finalize()
	b := newBundleWriter(dir)
	if !s.Handmade {
		s.writeMetrics(b)
	}
	s.writeKube(b)
	s.writeLogs(b)
	if !s.Handmade {
		s.writeDiagnose(b)
		s.writeSQL(b)
		if s.groups != "" {
			t := s.Done.Add(70 * time.Second)
			b.writeString("kafka/consumer-groups.txt", "kubectl exec -n kafka kafka-0 -- kafka-consumer-groups.sh --bootstrap-server localhost:9092 --describe --all-groups",
				t, t.Add(3*time.Second), s.groups)
		}
	}
	if s.Handmade {
		return b.finish(nil)
	}
	version := "v" + strings.TrimPrefix(s.Version.Semver, "v")
	if s.Version.Nightly {
		version = s.Version.Tag
	}
	return b.finish(s.manifest(b, version))
}

// emptyDir replaces dir, and whatever was in it, with an empty directory.
func emptyDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// manifest is the manifest of the bundle b holds, collected from s running
// version: it finishes 0.8 s after the last file.
func (s *Sim) manifest(b *bundleWriter, version string) *bundle.Manifest {
	var last time.Time
	for _, f := range b.files {
		if f.Finished.After(last) {
			last = f.Finished
		}
	}
	return &bundle.Manifest{
		FormatVersion:     bundle.FormatVersion,
		Tool:              bundle.Tool{Name: toolName, Version: toolVersion},
		CollectedAt:       s.Collect.Add(-1500 * time.Millisecond).UTC(),
		FinishedAt:        last.Add(800 * time.Millisecond).UTC(),
		Namespace:         s.Namespace,
		Cluster:           s.Cluster,
		RisingWaveVersion: version,
		Complete:          true,
		Redaction:         s.redaction(),
	}
}

// redaction counts what the collector would have redacted.
func (s *Sim) redaction() bundle.RedactionReport {
	r := bundle.RedactionReport{Enabled: true, Counts: map[string]int{}}
	for _, src := range s.Cat.Sources {
		for _, p := range src.Props {
			if strings.HasPrefix(p[1], "[REDACTED:") {
				r.Counts["sql-connector-props"]++
			}
		}
	}
	for _, sk := range s.Cat.Sinks {
		for _, p := range sk.Props {
			if strings.HasPrefix(p[1], "[REDACTED:") {
				r.Counts["sql-connector-props"]++
			}
		}
	}
	if s.Version.atLeast(2, 0) {
		r.Counts["system-param-license-key"] = 1
	}
	for k, v := range r.Counts {
		if v == 0 {
			delete(r.Counts, k)
		}
		r.Total += v
	}
	return r
}

// finalize fills every knob a scenario left unset with a healthy default.
func (s *Sim) finalize() {
	if s.Cat == nil {
		s.Cat = newCatalog(1001)
	}
	for _, p := range s.Pods {
		m := &p.m
		u := unit(s.Dir + p.Name)
		if m.cpu == nil {
			base := map[string]float64{"meta": 0.35, "compute": 1.1, "frontend": 0.2, "compactor": 0.7}[p.Component]
			m.cpu = flat(base * (0.8 + 0.5*u) * float64(max(p.CPU, 1)) / 4)
		}
		if m.rss == nil {
			m.rss = constant(p.MemBytes * (0.42 + 0.18*u))
		}
		if m.lru == nil {
			m.lru = flat(0)
		}
		if m.progress == nil {
			m.progress = flat(1)
		}
		if m.inflight == nil {
			m.inflight = constant(0.22 + 0.2*u)
		}
		if m.syncLat == nil {
			m.syncLat = constant(0.08 + 0.1*u)
		}
		if m.epochLag == nil {
			m.epochLag = constant(0.9 + 0.4*u)
		}
		if m.blockRatio == nil {
			m.blockRatio = constant(0.04 + 0.1*u)
		}
	}
	mm := &s.Meta
	if mm.barrier.rate == nil {
		mm.barrier = histModel{rate: flat(1), lat: constant(0.62)}
	}
	if mm.waitCommit.rate == nil {
		mm.waitCommit = histModel{rate: mm.barrier.rate, lat: constant(0.045)}
	}
	if mm.send.rate == nil {
		mm.send = histModel{rate: mm.barrier.rate, lat: constant(1.0)}
	}
	if mm.allBarriers == nil {
		mm.allBarriers = constant(2)
	}
	if mm.inFlight == nil {
		mm.inFlight = constant(1)
	}
	if mm.commitLag == nil {
		mm.commitLag = constant(1.3)
	}
	if mm.recoveryDur == 0 {
		mm.recoveryDur = 3.2
	}
	for _, src := range s.Cat.Sources {
		if src.perSec == 0 {
			src.perSec = math.Round(400 + 3000*unit(src.Name+"r"))
		}
		for _, f := range src.Job.Frags {
			if f.Rate.at(s.Collect) == 0 {
				f.Rate = flat(math.Round(src.perSec * float64(src.Partitions) / float64(len(f.Actors))))
			}
		}
	}
	for _, sk := range s.Cat.Sinks {
		if sk.readLag == nil {
			sk.readLag = constant(0.8)
		}
	}
}
