package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type object = map[string]any

// sample is a sample bundle directory, read.
type sample struct {
	dir       string
	namespace string
	cluster   string
	finished  time.Time // the manifest's finished_at: the kubelet's clock
	lists     map[string][]object
	logs      map[string]*logFile // "pod/container" or "pod/container/previous"
	scrapes   map[string][]scrape // pod -> snapshots, oldest first
	dashboard map[string][]byte   // proxy suffix -> body
	dashFiles map[string]string   // proxy suffix -> the file it came from
	sqlFiles  []string            // sql/rw_*.csv, sorted
}

type scrape struct {
	at   time.Time // from the file name (unix ms)
	body []byte
}

// kubeFiles are the kubernetes/<name>.json lists a sample may have.
var kubeFiles = []string{"pods", "events", "services", "statefulsets", "deployments", "risingwaves",
	"configmaps", "persistentvolumeclaims", "nodes"}

// dashboardFiles are the meta dashboard's endpoints and the bundle files
// the collector writes them to (collect/diagnose.go).
var dashboardFiles = []struct{ suffix, path string }{
	{"api/monitor/diagnose/", "diagnose/report.txt"},
	{"api/monitor/await_tree/", "diagnose/await-tree.json"},
}

// readSample reads a sample bundle. A sample without a diagnose/ directory
// gets the meta dashboard answers of fallbackDir (collect/testdata/apiserver,
// written for samples/oom-crash-loop), when that exists.
func readSample(dir, fallbackDir string) (*sample, error) {
	s := &sample{dir: dir, lists: map[string][]object{}, logs: map[string]*logFile{},
		scrapes: map[string][]scrape{}, dashboard: map[string][]byte{}, dashFiles: map[string]string{}}
	var man struct {
		Namespace  string    `json:"namespace"`
		Cluster    string    `json:"cluster"`
		FinishedAt time.Time `json:"finished_at"`
		CollectAt  time.Time `json:"collected_at"`
	}
	mp := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(mp)
	if err != nil {
		return nil, fmt.Errorf("sample %s: %w", dir, err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		return nil, fmt.Errorf("%s: %w", mp, err)
	}
	s.namespace, s.cluster, s.finished = man.Namespace, man.Cluster, man.FinishedAt
	if s.finished.IsZero() {
		s.finished = man.CollectAt
	}
	if s.namespace == "" || s.finished.IsZero() {
		return nil, fmt.Errorf("%s: no namespace or finished_at", mp)
	}
	for _, name := range kubeFiles {
		p := filepath.Join(dir, "kubernetes", name+".json")
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var l struct{ Items []object }
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		s.lists[name] = l.Items
	}
	if len(s.lists["pods"]) == 0 {
		return nil, fmt.Errorf("sample %s: no pods in kubernetes/pods.json", dir)
	}

	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*", "*.log"))
	for _, p := range logs {
		pod, name := filepath.Base(filepath.Dir(p)), filepath.Base(p)
		key := pod + "/" + strings.TrimSuffix(name, ".log")
		if c, ok := strings.CutSuffix(name, ".previous.log"); ok {
			key = pod + "/" + c + "/previous"
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		lf, err := parseLog(p, b)
		if err != nil {
			return nil, err
		}
		s.logs[key] = lf
	}

	proms, _ := filepath.Glob(filepath.Join(dir, "metrics", "*", "*.prom"))
	for _, p := range proms {
		pod := filepath.Base(filepath.Dir(p))
		ms, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(p), ".prom"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: the file name is not a unix time in milliseconds", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		s.scrapes[pod] = append(s.scrapes[pod], scrape{time.UnixMilli(ms).UTC(), b})
	}
	for pod := range s.scrapes {
		slices.SortFunc(s.scrapes[pod], func(a, b scrape) int { return a.at.Compare(b.at) })
	}

	for _, d := range dashboardFiles {
		for _, base := range []string{dir, fallbackDir} {
			if base == "" {
				continue
			}
			p := filepath.Join(base, d.path)
			if b, err := os.ReadFile(p); err == nil {
				s.dashboard[d.suffix], s.dashFiles[d.suffix] = b, p
				break
			}
		}
	}

	s.sqlFiles, _ = filepath.Glob(filepath.Join(dir, "sql", "rw_*.csv"))
	slices.Sort(s.sqlFiles)
	return s, nil
}

// serverFields are the metadata fields the API server sets itself.
var serverFields = []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// forCreate copies a sample object without what the server sets, in the
// namespace ns.
func forCreate(o object, ns string) object {
	c := deepCopy(o)
	md, _ := c["metadata"].(object)
	if md == nil {
		md = object{}
		c["metadata"] = md
	}
	for _, f := range serverFields {
		delete(md, f)
	}
	if ns != "" {
		md["namespace"] = ns
	}
	delete(c, "status")
	return c
}

func deepCopy(o object) object {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	var c object
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return c
}

func name(o object) string {
	md, _ := o["metadata"].(object)
	s, _ := md["name"].(string)
	return s
}

func labelsOf(o object) map[string]string {
	md, _ := o["metadata"].(object)
	l, _ := md["labels"].(object)
	out := map[string]string{}
	for k, v := range l {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// containerNames returns a pod's containers, init containers first.
func containerNames(pod object) []string {
	spec, _ := pod["spec"].(object)
	var names []string
	for _, key := range []string{"initContainers", "containers"} {
		cs, _ := spec[key].([]any)
		for _, c := range cs {
			if n, _ := c.(object)["name"].(string); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// namedPorts returns a pod's container ports by name.
func namedPorts(pod object) map[string]int {
	spec, _ := pod["spec"].(object)
	ports := map[string]int{}
	cs, _ := spec["containers"].([]any)
	for _, c := range cs {
		ps, _ := c.(object)["ports"].([]any)
		for _, p := range ps {
			po, _ := p.(object)
			n, _ := po["name"].(string)
			v, _ := po["containerPort"].(float64)
			if n != "" && v > 0 {
				if _, ok := ports[n]; !ok {
					ports[n] = int(v)
				}
			}
		}
	}
	return ports
}

// restartCounts returns each container's restart count in a pod's status.
func restartCounts(pod object) map[string]int {
	st, _ := pod["status"].(object)
	out := map[string]int{}
	for _, key := range []string{"initContainerStatuses", "containerStatuses"} {
		css, _ := st[key].([]any)
		for _, c := range css {
			cs, _ := c.(object)
			n, _ := cs["name"].(string)
			r, _ := cs["restartCount"].(float64)
			out[n] = int(r)
		}
	}
	return out
}
