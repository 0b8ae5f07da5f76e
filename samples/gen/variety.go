package main

// The variety samples (-variety): each of the five patterns written in the
// shapes of a v1.x, a v2.x and a v3.x release, into variety/<pattern>-<v>/.
// Where the regular samples show one pattern in one version's shapes, these
// follow each release's own output exactly: its log format (v1.0's
// multi-line pretty events, the one-line full format, JSON with RISINGWAVE_CLOUD),
// the messages, targets and fields it prints, the metric families and labels
// it registers, the rw_catalog columns it has, its await-tree layout, and
// Kubernetes input as customers paste it (kubectl describe and get pods text).
// The shapes come from RisingWave's source at each tag, as recorded in
// analyze/testdata/shapes/ (logs, catalog, awaittree, kubetext); the content
// (names, ids, times, numbers) is our own.

import (
	"fmt"
	"path/filepath"
)

// logFormat is how a release writes its log lines.
type logFormat int

const (
	fmtFull   logFormat = iota // tracing-subscriber Full: one line per event (v1.1+ default)
	fmtPretty                  // tracing-subscriber Pretty: multi-line events (v1.0 default)
	fmtJSON                    // RISINGWAVE_CLOUD: one JSON object per line
)

// kubeInput is what the bundle holds of the pods.
type kubeInput int

const (
	kubeJSON     kubeInput = iota // kubectl get -o json of pods, events, workloads; describe per pod
	kubeDescribe                  // only `kubectl describe pods` text: kubernetes/describe/pods.txt
	kubeTable                     // `kubectl get pods` table (kubernetes/pods.txt) and the crashing pod's describe text
)

// awaitLayout is the await-tree dump a bundle carries, in its release's layout.
type awaitLayout int

const (
	awaitNone          awaitLayout = iota
	awaitV1_0Trace                 // `risectl trace` v1.0: actor and RPC traces, collect_barrier (epoch N)
	awaitV2_0Text                  // `risectl await-tree dump` v2.0: Barrier Worker States with --- Partial Group N
	awaitV2_3Report                // the v2.3 diagnose report, await tree before the event logs
	awaitV3_0Dashboard             // the v3.0 dashboard's /api/monitor/await_tree/ pbjson
)

// Shapes are the version-exact shapes a variety sample is written in. A Sim
// without them (the regular samples) is written as before.
type Shapes struct {
	Log     logFormat
	Kube    kubeInput
	Kubectl string // kubectl version whose describe/get text is written: "1.37", "1.28"
	Await   awaitLayout
}

// variant is one variety sample and what rwdiag must find in it.
type variant struct {
	name     string // <pattern>-v<major>
	seed     uint64
	build    func(s *Sim)
	rule     string // expected finding
	subject  string
	severity string // "" when the rule's default is not asserted
	shows    string // what the sample shows, for the README
	shape    string // the release tag and the source files each shape follows
}

// Release versions the variety samples run: the tags whose shapes
// analyze/testdata/shapes/ records. GitSHA is the tag's commit, as the
// release prints it in "> version: X (SHA)".
var (
	v1_0_0  = Version{Tag: "v1.0.0", Semver: "1.0.0", Major: 1, Minor: 0, GitSHA: "c320675ef628c0c8d6bab7d60b90141d9c41adf2"}
	v1_5_0  = Version{Tag: "v1.5.0", Semver: "1.5.0", Major: 1, Minor: 5, GitSHA: "0bc2da252ca1402ca4c5a25fc34468f3f61bc184"}
	v1_10_x = Version{Tag: "v1.10.0", Semver: "1.10.0", Major: 1, Minor: 10, GitSHA: "0542faf14d9a1871e9385c82748d7102aeeea42c"}
	v2_0_7  = Version{Tag: "v2.0.7", Semver: "2.0.7", Major: 2, Minor: 0, GitSHA: "b38a3995526d8376eabb821c68fc852989e826f9"}
	v2_3_0  = Version{Tag: "v2.3.0", Semver: "2.3.0", Major: 2, Minor: 3, GitSHA: "e8f053e09651e3f956a9944063dccc746794dfe2"}
	v2_5_0  = Version{Tag: "v2.5.0", Semver: "2.5.0", Major: 2, Minor: 5, GitSHA: "e21c37449a133796334467a4910ca60ab0439065"}
	v3_0_0  = Version{Tag: "v3.0.0", Semver: "3.0.0", Major: 3, Minor: 0, GitSHA: "ef12f3adbcb637008d8db322514b999b5b6556a4"}
)

// varietyDir is the directory under -out that holds the variety samples.
const varietyDir = "variety"

// maxVarietyBytes is the size every variety sample must stay under.
const maxVarietyBytes = 300 << 10

// generateVariety writes the variety samples (or the one named only) into
// out/variety/.
func generateVariety(out, only string, scale int) error {
	if err := checkScale(scale); err != nil {
		return err
	}
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.name
	}
	return eachNamed(names, only, "no variety sample %q; they are %s", func(i int) error {
		v := variants[i]
		if err := generateVariant(v, filepath.Join(out, varietyDir, v.name), scale); err != nil {
			return fmt.Errorf("%s/%s: %w", varietyDir, v.name, err)
		}
		return nil
	})
}

// generateVariant builds one variety sample and writes its bundle to dir,
// replacing whatever was there.
func generateVariant(v variant, dir string, scale int) error {
	if err := emptyDir(dir); err != nil {
		return err
	}
	s := &Sim{Dir: varietyDir + "/" + v.name, Seed: v.seed, Scale: scale, rnd: newRand(v.seed, "sim")}
	v.build(s)
	if s.Shape == nil {
		return fmt.Errorf("the builder set no shapes")
	}
	s.finalize()
	b := newBundleWriter(dir)
	s.writeVarietyMetrics(b)
	s.writeVarietyKube(b)
	s.writeLogs(b)
	s.writeVarietyDiagnose(b)
	s.writeVarietySQL(b)
	return b.finish(s.manifest(b, s.Version.Tag))
}

// varietySetup is setup for a variety sample: its shapes, and the metric
// level each release exports by default (actor ids on every per-actor
// series before v2.3; v2.3 relabels some to "" at the info level).
func (s *Sim) varietySetup(c clusterSpec, sh Shapes) {
	s.setup(c)
	s.Shape = &sh
	s.Logs.JSON = sh.Log == fmtJSON
}
