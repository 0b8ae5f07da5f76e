package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rwdiag/rwdiag/analyze"
	"github.com/rwdiag/rwdiag/bundle"
)

// varietyGenerated writes every variety sample into a fresh directory and
// returns it.
func varietyGenerated(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := generateVariety(dir, "", 1); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, varietyDir)
}

// Two runs write byte-identical variety samples.
func TestVarietyDeterministic(t *testing.T) {
	a, b := files(t, varietyGenerated(t)), files(t, varietyGenerated(t))
	if len(a) != len(b) {
		t.Errorf("first run wrote %d files, second %d", len(a), len(b))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s: differs between runs", name)
		}
	}
}

// Every variety sample is a valid bundle well under 300 KiB whose files all
// verify against its manifest, and it records its release tag.
func TestVarietySamples(t *testing.T) {
	dir := varietyGenerated(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			root := filepath.Join(dir, v.name)
			fs := files(t, root)
			size := 0
			for name, b := range fs {
				size += len(b)
				if bundle.Classify(name).Kind == bundle.KindUnknown {
					t.Errorf("%s: not a path the bundle format knows", name)
				}
			}
			if size >= maxVarietyBytes {
				t.Errorf("%d bytes, want under %d", size, maxVarietyBytes)
			}
			r, err := bundle.Open(root, bundle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rep, err := bundle.Verify(r)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || len(rep.Extra) > 0 {
				t.Errorf("verify: missing %v, extra %v, mismatched %v, problems %v", rep.Missing, rep.Extra, rep.Mismatched, rep.Problems)
			}
			m := rep.Manifest
			tag := v.shape[:strings.Index(v.shape, ":")]
			if m.RisingWaveVersion != tag || m.Tool.Name != toolName || !m.Complete {
				t.Errorf("manifest header: version %q (shape says %s), tool %q, complete %t", m.RisingWaveVersion, tag, m.Tool.Name, m.Complete)
			}
			for _, f := range m.Files {
				if f.Source == "" {
					t.Errorf("%s: no source in the manifest", f.Path)
				}
			}
		})
	}
}

// The checked-in samples/variety/ is what the generator writes: run
// `go run ./samples/gen -out samples -variety` after changing it.
func TestVarietyCheckedIn(t *testing.T) {
	want := varietyGenerated(t)
	have := filepath.Join("..", varietyDir)
	entries, err := os.ReadDir(have)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var vs []string
	for _, v := range variants {
		vs = append(vs, v.name)
	}
	slices.Sort(vs)
	if !slices.Equal(names, vs) {
		t.Errorf("samples/variety holds %v, the generator writes %v", names, vs)
	}
	a, b := files(t, want), files(t, have)
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("samples/variety/%s is not what the generator writes; regenerate with go run ./samples/gen -out samples -variety", name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("samples/variety/%s is not written by the generator", name)
		}
	}
}

// The catalog headers the generator writes are the fixtures' headers, tag
// by tag and relation by relation.
func TestCatalogHeadersMatchFixtures(t *testing.T) {
	for tag, rels := range catalogHeaders {
		dir := filepath.Join("..", "..", "analyze", "testdata", "shapes", "catalog", tag)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			rel := strings.TrimSuffix(e.Name(), ".csv")
			seen[rel] = true
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			hdr := strings.Split(strings.SplitN(string(b), "\n", 2)[0], ",")
			if !slices.Equal(hdr, rels[rel]) {
				t.Errorf("%s %s: generator has %v, fixture %v", tag, rel, rels[rel], hdr)
			}
		}
		for rel := range rels {
			if !seen[rel] {
				t.Errorf("%s %s: not among the fixtures", tag, rel)
			}
		}
	}
}

// Each variant has a row in samples/README.md naming its tag, and a case in
// samples/expectations_test.yaml expecting its finding on its subject.
func TestVarietyDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := analyze.LoadTestPaths([]string{filepath.Join("..", "expectations_test.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		tag := v.shape[:strings.Index(v.shape, ":")]
		row := regexp.MustCompile("(?m)^\\| `variety/" + regexp.QuoteMeta(v.name) + "` \\|.*" + regexp.QuoteMeta(tag))
		if !row.Match(readme) {
			t.Errorf("samples/README.md: no table row for variety/%s naming %s", v.name, tag)
		}
		found := false
		for _, c := range cases {
			if c.Bundle != varietyDir+"/"+v.name {
				continue
			}
			for _, e := range c.Expect {
				if e.Rule == v.rule && e.Subject == v.subject && (e.Status == "" || e.Status == "firing") {
					found = true
				}
			}
			if !strings.HasPrefix(c.Shape, tag+":") {
				t.Errorf("%s: shape %q does not start with %s:", c.Name, c.Shape, tag)
			}
		}
		if !found {
			t.Errorf("samples/expectations_test.yaml: no case for variety/%s expecting %s on %s", v.name, v.rule, v.subject)
		}
	}
}

// scrapeFamilies are the metric families of every scrape of a component.
func scrapeFamilies(t *testing.T, root, component string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	paths, _ := filepath.Glob(filepath.Join(root, "metrics", "*-"+component+"*", "*.prom"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
				out[f[2]] = true
			}
		}
	}
	return out
}

// The variety samples keep the version facts the brief and the research
// notes name: which metric families exist when, how logs are formatted,
// what Kubernetes input a bundle holds.
func TestVarietyVersionShapes(t *testing.T) {
	dir := varietyGenerated(t)
	kubelet := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z `)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			s := &Sim{Dir: varietyDir + "/" + v.name, Seed: v.seed, Scale: 1, rnd: newRand(v.seed, "sim")}
			v.build(s)
			ver := s.Version
			root := filepath.Join(dir, v.name)
			compute := scrapeFamilies(t, root, "compute")
			meta := scrapeFamilies(t, root, "meta")
			check := func(fams map[string]bool, name string, want bool) {
				if fams[name] != want {
					t.Errorf("%s: family %s present %t, want %t", ver.Tag, name, fams[name], want)
				}
			}
			check(compute, "stream_barrier_manager_progress", ver.atLeast(1, 3))
			check(meta, "last_committed_barrier_time", ver.atLeast(1, 8))
			check(meta, "all_barrier_nums", true)
			if len(s.Cat.Sources) > 0 {
				check(compute, "source_latest_message_id", ver.atLeast(1, 5))
			}
			if len(s.Cat.Sinks) > 0 && !s.Cat.Sinks[0].Decoupled && v.rule == "sink-blocking-barriers" {
				check(compute, "user_sink_error", ver.atLeast(1, 4) && !ver.atLeast(2, 7))
				check(compute, "user_sink_error_cnt", ver.atLeast(2, 7))
			}
			for _, p := range []string{"metrics"} {
				paths, _ := filepath.Glob(filepath.Join(root, p, "*", "*.prom"))
				for _, f := range paths {
					b, _ := os.ReadFile(f)
					if bytes.Contains(b, []byte(`partial_graph="`)) {
						t.Errorf("%s: partial_graph labels exist only after v3.0.3", f)
					}
					if ver.atLeast(2, 3) != bytes.Contains(b, []byte(`database_id="`)) && strings.Contains(f, "-meta-") {
						t.Errorf("%s: database_id labels on meta's barrier metrics from v2.3 only", f)
					}
				}
			}
			// Logs: the release's format, and kubectl's prefix when taken
			// with --timestamps.
			logs, _ := filepath.Glob(filepath.Join(root, "logs", "*", "*.log"))
			if len(logs) == 0 {
				t.Fatal("no logs")
			}
			for _, f := range logs {
				b, _ := os.ReadFile(f)
				prev := strings.HasSuffix(f, ".previous.log")
				prefixed := s.Logs.Prefix && !prev || s.Logs.PrevPrefix && prev
				for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					if prefixed {
						if !kubelet.MatchString(line) {
							t.Fatalf("%s:%d: no kubelet prefix: %q", f, i+1, line)
						}
						line = line[31:]
					}
					switch {
					case strings.HasPrefix(line, "launching `"):
					case s.Shape.Log == fmtJSON:
						var ev map[string]any
						if err := json.Unmarshal([]byte(line), &ev); err != nil {
							t.Fatalf("%s:%d: not JSON: %v", f, i+1, err)
						}
						if _, ok := ev["span"]; ok != !ver.atLeast(1, 10) {
							t.Fatalf("%s:%d: a current span only before v1.10", f, i+1)
						}
					case s.Shape.Log == fmtPretty:
						if !(line == "" || strings.HasPrefix(line, "  20") || strings.HasPrefix(line, "    at src/") || strings.HasPrefix(line, "    in ")) {
							t.Fatalf("%s:%d: not a pretty event line: %q", f, i+1, line)
						}
					}
				}
			}
			// Kubernetes input.
			_, jsonErr := os.Stat(filepath.Join(root, "kubernetes", "pods.json"))
			_, tableErr := os.Stat(filepath.Join(root, "kubernetes", "pods.txt"))
			_, describeErr := os.Stat(filepath.Join(root, "kubernetes", "describe", "pods.txt"))
			switch s.Shape.Kube {
			case kubeJSON:
				if jsonErr != nil {
					t.Error("no pods.json")
				}
			case kubeTable:
				if jsonErr == nil || tableErr != nil {
					t.Error("want kubernetes/pods.txt and no pods.json")
				}
			case kubeDescribe:
				if jsonErr == nil || describeErr != nil {
					t.Error("want kubernetes/describe/pods.txt and no pods.json")
				}
			}
		})
	}
}

// Every shape the brief asks for is covered by some variant.
func TestVarietyCoverage(t *testing.T) {
	have := map[string]bool{}
	majors := map[string]map[int]bool{}
	for _, v := range variants {
		s := &Sim{Dir: varietyDir + "/" + v.name, Seed: v.seed, Scale: 1, rnd: newRand(v.seed, "sim")}
		v.build(s)
		pattern := strings.TrimSuffix(v.name, v.name[strings.LastIndex(v.name, "-"):])
		if majors[pattern] == nil {
			majors[pattern] = map[int]bool{}
		}
		majors[pattern][s.Version.Major] = true
		have[map[logFormat]string{fmtFull: "full", fmtPretty: "pretty", fmtJSON: "json"}[s.Shape.Log]] = true
		if s.Logs.Prefix {
			have["prefix"] = true
		}
		if s.Shape.Kube == kubeDescribe && v.rule == "compute-oom-crash-loop" {
			have["describe-oom"] = true
		}
		if s.Shape.Kube == kubeTable && v.rule == "compute-oom-crash-loop" {
			have["table-oom"] = true
		}
		have[map[awaitLayout]string{awaitV1_0Trace: "await-v1.0", awaitV2_0Text: "await-v2.0", awaitV2_3Report: "await-v2.3", awaitV3_0Dashboard: "await-v3.0"}[s.Shape.Await]] = true
	}
	var missing []string
	for _, k := range []string{"full", "pretty", "json", "prefix", "describe-oom", "table-oom", "await-v1.0", "await-v2.0", "await-v2.3", "await-v3.0"} {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	for _, p := range []string{"barrier-stall", "offset-replay", "oom-crash-loop", "backfill-starvation", "sink-blockage"} {
		for _, m := range []int{1, 2, 3} {
			if !majors[p][m] {
				missing = append(missing, p+" on v"+string(rune('0'+m)))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no variant covers %v", missing)
	}
}
