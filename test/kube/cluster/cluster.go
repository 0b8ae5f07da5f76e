package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Options choose the cluster. The zero value is samples/oom-crash-loop in
// its own namespace, with PostgreSQL.
type Options struct {
	// Sample is the sample bundle directory; "" is samples/oom-crash-loop of
	// the repository the working directory is in.
	Sample string
	// Namespace to create the cluster in; "" is the sample's. It may exist
	// (Start then creates what it lacks), but without the namespace
	// controller a namespace is never emptied, so each fixture of one API
	// server needs a namespace of its own.
	Namespace string
	// FillerPods adds healthy compute pods (labelled as the sample's), each
	// with a current log of FillerLogBytes (default 64 KiB) of lines of this
	// package's own, and a /metrics all of them share on one address.
	FillerPods     int
	FillerLogBytes int
	// WithoutCRD is a helm install: the RisingWave CRD is not installed (it
	// is deleted, and Start waits until it is gone, if an earlier fixture
	// made it) and no RisingWave resource is created. Use it with a sample of
	// a helm install (samples/compound-incident) for the helm labels.
	WithoutCRD bool
	// NoSQL starts no PostgreSQL.
	NoSQL bool
	// KubeletAddr is where the kubelet stand-in listens; "" is 127.0.0.1 on
	// a free port (the nodes say which).
	KubeletAddr string
	// Logf, when set, is told what takes time.
	Logf func(format string, args ...any)
}

// Cluster is a running fixture.
type Cluster struct {
	opts      Options
	sample    *sample
	ns        string
	dyn       dynamic.Interface
	kubelet   *Kubelet
	pods      *podServers
	pg        *pgServer
	addrs     []string
	nodeNames map[string]string // the sample's node name -> the fixture's
	planted   []string
	expected  Expected
	podIP     map[string]string
	uids      map[string]string // "kind/name" -> uid

	fillerContainer string // the filler pods' container
	fillerMetrics   bool   // they have a metrics port

	// Timings of Start.
	Timings Timings
	// Repairs are what Start changed in the sample's objects for the API
	// server to take them (what its validation refused).
	Repairs []string
}

// Timings say how long Start took, by part.
type Timings struct {
	CRD      time.Duration // installing (or removing) the CRD until the server serves it (or not)
	Objects  time.Duration // every API object, statuses included, the CRD too
	Postgres time.Duration // initdb, start and load
	Total    time.Duration
}

var (
	gvrPods        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	gvrEvents      = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	gvrServices    = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	gvrConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrSecrets     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrNodes       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	gvrNamespaces  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	gvrSAs         = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	gvrStatefulSet = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	gvrDeployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	gvrRisingWaves = schema.GroupVersionResource{Group: "risingwave.risingwavelabs.com", Version: "v1alpha1", Resource: "risingwaves"}
	gvrCRDs        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// RepoRoot finds the rwdiag repository from the working directory upward:
// the directory holding samples/oom-crash-loop/manifest.json.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "samples", "oom-crash-loop", "manifest.json")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no samples/oom-crash-loop in %s or above it", dir)
		}
	}
}

// Start creates the cluster and starts its stand-ins. On error, what was
// started is stopped again (API objects stay: the namespace cannot go).
func Start(ctx context.Context, admin *rest.Config, o Options) (c *Cluster, err error) {
	t0 := time.Now()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	root, rerr := RepoRoot()
	if o.Sample == "" {
		if rerr != nil {
			return nil, rerr
		}
		o.Sample = filepath.Join(root, "samples", "oom-crash-loop")
	}
	if o.FillerLogBytes <= 0 {
		o.FillerLogBytes = 64 << 10
	}
	if o.KubeletAddr == "" {
		o.KubeletAddr = "127.0.0.1:0"
	}
	fallback := ""
	if filepath.Base(o.Sample) == "oom-crash-loop" && rerr == nil {
		fallback = filepath.Join(root, "collect", "testdata", "apiserver") // its diagnose/ answers were written for this sample
	}
	s, err := readSample(o.Sample, fallback)
	if err != nil {
		return nil, err
	}
	c = &Cluster{opts: o, sample: s, ns: o.Namespace, nodeNames: map[string]string{}, podIP: map[string]string{},
		uids: map[string]string{}, pods: &podServers{served: map[string]int{}}}
	if c.ns == "" {
		c.ns = s.namespace
	}
	defer func() {
		if err != nil {
			c.Close()
			c = nil
		}
	}()
	cfg := rest.CopyConfig(admin)
	cfg.QPS, cfg.Burst = 500, 1000
	if c.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.kubelet, err = startKubelet(o.KubeletAddr, s.finished); err != nil {
		return nil, err
	}
	n := len(s.lists["pods"])
	if o.FillerPods > 0 {
		n++
	}
	if c.addrs, err = takeAddresses(n); err != nil {
		return nil, err
	}
	c.planted = plantedSecrets(c.ns)

	var pgErr error
	var pgWG sync.WaitGroup
	if !o.NoSQL {
		pgWG.Add(1)
		go func() { // initdb takes seconds: alongside the API objects
			defer pgWG.Done()
			t := time.Now()
			c.pg, pgErr = startPG()
			if pgErr == nil {
				var tables []string
				tables, pgErr = c.pg.loadCatalog(s.sqlFiles, sampleVersion(s.dir))
				for _, t := range tables {
					c.expected.SQLTables = append(c.expected.SQLTables, "sql/"+t+".csv")
				}
			}
			c.Timings.Postgres = time.Since(t)
		}()
	}
	t1 := time.Now()
	err = c.createObjects(ctx)
	c.Timings.Objects = time.Since(t1)
	pgWG.Wait()
	if err != nil {
		return nil, err
	}
	if pgErr != nil {
		return nil, pgErr
	}
	if err := c.serve(); err != nil {
		return nil, err
	}
	if err := c.fillExpected(root); err != nil {
		return nil, err
	}
	c.Timings.Total = time.Since(t0)
	logf("cluster %s from %s: %d pods (+%d filler), objects %v (CRD %v), postgres %v, total %v", c.ns, filepath.Base(o.Sample),
		len(s.lists["pods"]), o.FillerPods, c.Timings.Objects.Round(time.Millisecond), c.Timings.CRD.Round(time.Millisecond),
		c.Timings.Postgres.Round(time.Millisecond), c.Timings.Total.Round(time.Millisecond))
	return c, nil
}

// sampleVersion is the sample manifest's risingwave_version.
func sampleVersion(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	var m struct {
		V string `json:"risingwave_version"`
	}
	_ = jsonUnmarshal(b, &m)
	return m.V
}

// Close stops the stand-ins and PostgreSQL and deletes the nodes. The
// namespace and its objects stay.
func (c *Cluster) Close() {
	if c == nil {
		return
	}
	if c.kubelet != nil {
		c.kubelet.close()
	}
	c.pods.close()
	if c.pg != nil {
		c.pg.stop()
	}
	giveAddresses(c.addrs)
	c.addrs = nil
	if c.dyn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, n := range c.nodeNames {
			_ = c.dyn.Resource(gvrNodes).Delete(ctx, n, metav1.DeleteOptions{})
		}
	}
}

// Namespace is where the cluster is.
func (c *Cluster) Namespace() string { return c.ns }

// SQLDSN is the PostgreSQL DSN for `rwdiag collect --sql-dsn` ("" with NoSQL).
func (c *Cluster) SQLDSN() string {
	if c.pg == nil {
		return ""
	}
	return c.pg.dsn()
}

// SQLServerLog is PostgreSQL's log: every statement run (log_statement=all).
func (c *Cluster) SQLServerLog() string {
	if c.pg == nil {
		return ""
	}
	return c.pg.serverLog()
}

// Kubelet is the kubelet stand-in.
func (c *Cluster) Kubelet() *Kubelet { return c.kubelet }

// OnLogRequest calls f for every log request the kubelet stand-in gets,
// before it answers.
func (c *Cluster) OnLogRequest(f func(LogRequest)) { c.kubelet.OnRequest(f) }

// SlowLogs makes the kubelet stand-in wait d before answering for pod.
func (c *Cluster) SlowLogs(pod string, d time.Duration) { c.kubelet.Slow(c.ns, pod, d) }

// ProxyRequests returns what the pod servers received through the API
// server's pod proxy, in order.
func (c *Cluster) ProxyRequests() []ProxyRequest {
	c.pods.mu.Lock()
	defer c.pods.mu.Unlock()
	return append([]ProxyRequest(nil), c.pods.requests...)
}

// PodIP is the address a pod of the fixture has.
func (c *Cluster) PodIP(pod string) string { return c.podIP[pod] }

// DeletePod deletes a pod at once (grace period 0: no kubelet confirms a
// graceful deletion here), and the kubelet stand-in forgets it.
func (c *Cluster) DeletePod(ctx context.Context, pod string) error {
	zero := int64(0)
	err := c.dyn.Resource(gvrPods).Namespace(c.ns).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	c.kubelet.removePod(c.ns, pod)
	return err
}

// PlantedSecrets are values of this package's own placed in the cluster
// where the collector reads (configmap values, pod env, a Secret it must not
// read, the risingwave.toml a pod mounts): none may appear in a bundle.
func (c *Cluster) PlantedSecrets() []string { return slices.Clone(c.planted) }

// plantedSecrets are invented for this fixture; the namespace makes them
// differ between fixtures of one run.
func plantedSecrets(ns string) []string {
	tag := strings.NewReplacer("-", "", ".", "").Replace(ns)
	return []string{
		"Pl4nted-tomlPw-" + tag + "-7Hq2",    // 0: URL password in risingwave.toml
		"Pl4nted-pgPass-" + tag + "-K9xz",    // 1: RW_POSTGRES_PASSWORD in a configmap
		"Pl4ntedAwsSecret" + tag + "Zq81Vb",  // 2: AWS_SECRET_ACCESS_KEY in a configmap
		"Pl4nted-license-" + tag + "-Ld0N3",  // 3: RW_LICENSE_KEY in a configmap
		"Pl4nted-secretObj-" + tag + "-W4rN", // 4: the Secret's data (never read)
		"Pl4nted-podEnvKey-" + tag + "-R2d7", // 5: RW_S3_SECRET_KEY in the compute pods' env
	}
}

// Expected is what a bundle of this cluster must hold.
type Expected struct {
	Namespace string
	// Objects are the names of the objects each kubernetes/<file>.json
	// must list ("pods", "events", "risingwaves", "nodes", ...).
	Objects map[string][]string
	// Logs are the log files by bundle path (logs/POD/CONTAINER.log,
	// .previous.log) and the bytes the kubelet serves for them with
	// timestamps and no since, tail or limit, before redaction.
	Logs map[string][]byte
	// NoPrevious are the containers ("pod/container") that restarted but
	// whose crashed instance's log the kubelet does not have: the collector
	// records a 400 for each.
	NoPrevious []string
	// Scraped are the pods with a port named metrics; Snapshots says how
	// many different scrapes a pod serves (then the last one again; filler
	// pods serve one, always).
	Scraped   []string
	Snapshots map[string]int
	// Diagnose are the diagnose files (diagnose/report.txt,
	// diagnose/await-tree.json) the meta dashboard serves, and their bytes.
	Diagnose map[string][]byte
	// SQLTables are the sql/<relation>.csv files of rw_catalog; SQLFiles
	// their bytes as the sample has them (what psql --csv prints).
	SQLTables []string
	SQLFiles  map[string][]byte
	// SQLUnsupported are the statements PostgreSQL cannot answer as
	// RisingWave does: the collector records them as failed.
	SQLUnsupported []string
	// Findings are the sample's expected findings (samples/expectations_test.yaml).
	Findings []Finding
}

// Finding is one expected finding of rwdiag analyze.
type Finding struct {
	Rule, Subject, Severity, Status string
}

// Expected says what a bundle of the cluster must hold.
func (c *Cluster) Expected() Expected { return c.expected }

func isExists(err error) bool { return apierrors.IsAlreadyExists(err) }

// u wraps a map as an Unstructured.
func u(o object) *unstructured.Unstructured { return &unstructured.Unstructured{Object: o} }
