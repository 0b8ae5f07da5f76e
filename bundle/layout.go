package bundle

import (
	"path"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the bundle format this package writes and
// the newest it reads.
const FormatVersion = 1

// ManifestPath is where the collector writes its manifest.
const ManifestPath = "manifest.json"

// Kind classifies a bundle file by its path.
type Kind int

// The kinds of file a bundle holds. KindUnknown files are kept and ignored.
const (
	KindUnknown         Kind = iota
	KindManifest             // manifest.json
	KindPods                 // kubernetes/pods.json
	KindEvents               // kubernetes/events.json
	KindNodes                // kubernetes/nodes.json
	KindKubeObjects          // kubernetes/<resource>.json, other resources
	KindDescribe             // kubernetes/describe/pods/<pod>.txt
	KindLog                  // logs/<pod>/<container>.log
	KindPreviousLog          // logs/<pod>/<container>.previous.log
	KindMetricsScrape        // metrics/<pod>/<unix-millis>.prom
	KindPrometheusRange      // metrics/prometheus/<name>.json
	KindSQLTable             // sql/<relation>.csv
	KindSQLExplain           // sql/explain/<relation>.txt
	KindDiagnoseReport       // diagnose/report.txt
	KindAwaitTreeText        // diagnose/await-tree.txt
	KindAwaitTreeJSON        // diagnose/await-tree.json
	KindKafkaGroups          // kafka/consumer-groups.txt
	KindPodsTable            // kubernetes/pods.txt: the kubectl get pods table
	numKinds
)

var kindNames = [...]string{
	KindUnknown:         "unknown",
	KindManifest:        "manifest",
	KindPods:            "pods",
	KindEvents:          "events",
	KindNodes:           "nodes",
	KindKubeObjects:     "kube-objects",
	KindDescribe:        "describe",
	KindLog:             "log",
	KindPreviousLog:     "previous-log",
	KindMetricsScrape:   "metrics-scrape",
	KindPrometheusRange: "prometheus-range",
	KindSQLTable:        "sql-table",
	KindSQLExplain:      "sql-explain",
	KindDiagnoseReport:  "diagnose-report",
	KindAwaitTreeText:   "await-tree-text",
	KindAwaitTreeJSON:   "await-tree-json",
	KindKafkaGroups:     "kafka-consumer-groups",
	KindPodsTable:       "pods-table",
}

// String returns the kind's name as used in reports and docs.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Kinds returns every kind, in order, for listings.
func Kinds() []Kind {
	ks := make([]Kind, 0, numKinds)
	for k := Kind(0); k < numKinds; k++ {
		ks = append(ks, k)
	}
	return ks
}

// Class is what a bundle path says about its file.
type Class struct {
	Kind Kind
	// Pod is the pod the file belongs to (describe, logs, metrics scrapes).
	Pod string
	// Container is the container of a log file.
	Container string
	// Name is the resource of a KindKubeObjects file ("statefulsets"), the
	// relation of a SQL file ("rw_worker_nodes"), or the name of a
	// Prometheus range file.
	Name string
	// ScrapedAt is the time of a metrics scrape, from its file name.
	ScrapedAt time.Time
}

// topLevelNames are the names that may stand first in a bundle path. Anything
// else standing first in an archive's first entry is taken to be a wrapping
// directory such as "rwdiag-prod-20261129T204300Z/".
var topLevelNames = map[string]bool{
	ManifestPath: true,
	"kubernetes": true,
	"logs":       true,
	"metrics":    true,
	"sql":        true,
	"diagnose":   true,
	"kafka":      true,
}

// Classify tells what a slash-separated path, relative to the bundle root,
// holds. It never fails: paths it does not know are KindUnknown.
func Classify(p string) Class {
	parts := strings.Split(p, "/")
	switch {
	case p == ManifestPath:
		return Class{Kind: KindManifest}
	case len(parts) == 2 && parts[0] == "kubernetes" && strings.HasSuffix(parts[1], ".json"):
		res := strings.TrimSuffix(parts[1], ".json")
		switch res {
		case "pods":
			return Class{Kind: KindPods, Name: res}
		case "events":
			return Class{Kind: KindEvents, Name: res}
		case "nodes":
			return Class{Kind: KindNodes, Name: res}
		case "":
			return Class{}
		}
		return Class{Kind: KindKubeObjects, Name: res}
	case p == "kubernetes/pods.txt":
		return Class{Kind: KindPodsTable, Name: "pods"}
	case p == "kubernetes/describe/pods.txt":
		return Class{Kind: KindDescribe} // several pods in one file
	case len(parts) == 4 && parts[0] == "kubernetes" && parts[1] == "describe" && parts[2] == "pods" && strings.HasSuffix(parts[3], ".txt"):
		if pod := strings.TrimSuffix(parts[3], ".txt"); pod != "" {
			return Class{Kind: KindDescribe, Pod: pod}
		}
	case len(parts) == 3 && parts[0] == "logs" && parts[1] != "":
		name := parts[2]
		if c := strings.TrimSuffix(name, ".previous.log"); c != name && c != "" {
			return Class{Kind: KindPreviousLog, Pod: parts[1], Container: c}
		}
		if c := strings.TrimSuffix(name, ".log"); c != name && c != "" {
			return Class{Kind: KindLog, Pod: parts[1], Container: c}
		}
	case len(parts) == 3 && parts[0] == "metrics" && parts[1] == "prometheus" && strings.HasSuffix(parts[2], ".json"):
		if name := strings.TrimSuffix(parts[2], ".json"); name != "" {
			return Class{Kind: KindPrometheusRange, Name: name}
		}
	case len(parts) == 3 && parts[0] == "metrics" && parts[1] != "" && strings.HasSuffix(parts[2], ".prom"):
		ms, err := strconv.ParseInt(strings.TrimSuffix(parts[2], ".prom"), 10, 64)
		if err == nil && ms > 0 {
			return Class{Kind: KindMetricsScrape, Pod: parts[1], ScrapedAt: time.UnixMilli(ms).UTC()}
		}
	case len(parts) == 2 && parts[0] == "sql" && strings.HasSuffix(parts[1], ".csv"):
		if rel := strings.TrimSuffix(parts[1], ".csv"); rel != "" {
			return Class{Kind: KindSQLTable, Name: rel}
		}
	case len(parts) == 3 && parts[0] == "sql" && parts[1] == "explain" && strings.HasSuffix(parts[2], ".txt"):
		if rel := strings.TrimSuffix(parts[2], ".txt"); rel != "" {
			return Class{Kind: KindSQLExplain, Name: rel}
		}
	case p == "diagnose/report.txt":
		return Class{Kind: KindDiagnoseReport}
	case p == "diagnose/await-tree.txt":
		return Class{Kind: KindAwaitTreeText}
	case p == "diagnose/await-tree.json":
		return Class{Kind: KindAwaitTreeJSON}
	case p == "kafka/consumer-groups.txt":
		return Class{Kind: KindKafkaGroups}
	}
	return Class{}
}

// Path helpers for writers, so the layout is spelled in one place.

// LogPath is where a container's log goes; previous selects the crashed instance's.
func LogPath(pod, container string, previous bool) string {
	if previous {
		return path.Join("logs", pod, container+".previous.log")
	}
	return path.Join("logs", pod, container+".log")
}

// ScrapePath is where a metrics scrape of pod taken at t goes.
func ScrapePath(pod string, t time.Time) string {
	return path.Join("metrics", pod, strconv.FormatInt(t.UnixMilli(), 10)+".prom")
}

// KubePath is where `kubectl get <resource> -o json` output goes.
func KubePath(resource string) string { return path.Join("kubernetes", resource+".json") }

// DescribePath is where `kubectl describe pod` output goes.
func DescribePath(pod string) string { return path.Join("kubernetes", "describe", "pods", pod+".txt") }

// SQLPath is where a relation's CSV dump goes.
func SQLPath(relation string) string { return path.Join("sql", relation+".csv") }

// ExplainPath is where the EXPLAIN of a job's definition goes.
func ExplainPath(relation string) string { return path.Join("sql", "explain", relation+".txt") }

// PrometheusRangePath is where a query_range response goes.
func PrometheusRangePath(name string) string {
	return path.Join("metrics", "prometheus", name+".json")
}
