package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rwdiag/rwdiag/bundle"
)

// errRunDeadline is the cause of the run's context when --timeout passes.
var errRunDeadline = errors.New("the run's deadline passed")

// collector is one run's state. Tasks run concurrently; the writer, the
// notes and the progress display are safe for that.
type collector struct {
	opts Options
	kube *kubeClients
	w    *bundle.Writer
	red  *Redactor

	// run is done when the run is interrupted or its deadline passes: no task
	// starts after that. hard is done Grace later: calls in flight are cut.
	run, hard context.Context
	// parent is the caller's context, to tell an interruption from the deadline.
	parent context.Context

	progress Progress
	sem      chan struct{} // calls in flight (Concurrency)
	cpu      chan struct{} // logs being redacted (GOMAXPROCS)
	wg       sync.WaitGroup

	// tmpDir holds log streams while they are cut to size.
	tmpDir string
	logs   *logBudget

	mu         sync.Mutex
	notes      []string
	sqlVersion string
	crVersion  string
}

// Run collects from the cluster opts names into a bundle and returns what it
// wrote. It fails forward: a step that fails is recorded in the bundle's
// manifest and the run goes on. When ctx is cancelled or opts.Timeout passes,
// it starts nothing more, lets calls in flight finish for opts.Grace, and
// still writes a valid bundle, marked incomplete. The error is non-nil only
// when no bundle could be written. progress may be nil.
func Run(ctx context.Context, opts Options, progress Progress) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = nopProgress{}
	}
	if err := checkOutput(opts.Output); err != nil {
		return nil, err
	}
	red, err := newRunRedactor(&opts)
	if err != nil {
		return nil, err
	}
	kube, err := newKubeClients(&opts)
	if err != nil {
		return nil, err
	}
	start := time.Now().UTC()

	run, cancelRun := context.WithTimeoutCause(ctx, opts.Timeout, errRunDeadline)
	defer cancelRun()
	hard, cancelHard := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelHard(nil)
	c := &collector{
		opts: opts, kube: kube, red: red,
		run: run, hard: hard, parent: ctx,
		progress: progress,
		sem:      make(chan struct{}, opts.Concurrency),
		cpu:      make(chan struct{}, runtime.GOMAXPROCS(0)),
		logs:     &logBudget{remaining: opts.LogBudget},
	}
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-run.Done():
		case <-finished:
			return
		}
		t := time.NewTimer(opts.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelHard(fmt.Errorf("%s, and the %v given to calls in flight passed", c.stopReason(), opts.Grace))
		case <-finished:
		}
	}()

	// The pods come first: they name the cluster, hence the bundle.
	progress.Add(1)
	podItems, podSource, podErr := c.discoverPods()
	progress.Done(StepKube, "pods", podErr)
	pods, convErr := typedPods(podItems)
	if convErr != nil && podErr == nil {
		podErr = convErr
	}
	cluster := c.clusterName(pods)
	dest, root, err := outputPath(opts.Output, opts.Format, cluster, start)
	if err != nil {
		return nil, err
	}
	if c.tmpDir, err = os.MkdirTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".logs-*"); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	defer os.RemoveAll(c.tmpDir)
	if c.w, err = bundle.NewWriter(dest, bundle.WriterOptions{Root: root, Format: opts.Format}); err != nil {
		return nil, err
	}
	c.w.Update(func(m *bundle.Manifest) {
		m.Tool = bundle.Tool{Name: "rwdiag", Version: opts.ToolVersion}
		m.CollectedAt = start
		m.Namespace = kube.namespace
		m.Cluster = cluster
	})
	if podErr != nil {
		c.recordError(StepKube, "pods", podErr.Error(), bundle.KubePath("pods"))
	} else {
		if len(pods) == 0 {
			c.note("no RisingWave pods in namespace %q (selectors: %s); check -n and --selector", kube.namespace, strings.Join(c.selectors(), " | "))
		}
		if err := c.writeKube("pods", podSource, podItems, nil); err != nil {
			c.recordError(StepKube, "pods", err.Error(), bundle.KubePath("pods"))
		}
	}

	c.dispatch(pods)

	// Wait for the tasks; once calls are being cut, give them a moment more
	// and then write what there is.
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-hard.Done():
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.note("some calls did not stop when cut; what they were writing is left out")
		}
	}

	complete := run.Err() == nil
	c.w.Update(func(m *bundle.Manifest) {
		m.RisingWaveVersion = c.risingWaveVersion(pods)
		m.Complete = complete
		if !complete {
			m.IncompleteReason = c.red.String("incomplete_reason", c.stopReason())
		}
		m.Redaction = c.red.Report()
		m.Redaction.Enabled = c.red != nil
		m.FinishedAt = time.Now().UTC()
	})
	if err := c.w.Close(); err != nil {
		return nil, err
	}
	return c.result(dest)
}

// dispatch starts every task, the important and quick ones first. It
// returns when every task has started or been skipped.
func (c *collector) dispatch(pods []*corev1.Pod) {
	var sampler sync.WaitGroup
	if !c.opts.skips(StepMetrics) && c.opts.MetricsSamples > 0 {
		sampler.Add(1)
		go func() {
			defer sampler.Done()
			c.sampleMetrics(pods)
		}()
	}
	for _, r := range namespacedResources {
		c.spawn(StepKube, r.file, bundle.KubePath(r.file), func(func()) error { return c.collectResource(r) })
	}
	c.spawn(StepKube, "nodes", bundle.KubePath("nodes"), func(func()) error { return c.collectNodes(pods) })
	if !c.opts.skips(StepDescribe) {
		for _, p := range pods {
			c.spawn(StepDescribe, p.Name, bundle.DescribePath(p.Name), func(func()) error { return c.describePod(p) })
		}
	}
	if !c.opts.skips(StepDiagnose) {
		c.spawnDiagnose(pods)
	}
	if !c.opts.skips(StepSQL) {
		c.spawn(StepSQL, "frontend", "", func(func()) error { return c.collectSQL(pods) })
	}
	if !c.opts.skips(StepLogs) {
		c.spawnLogs(pods)
	}
	if !c.opts.skips(StepPrometheus) && c.opts.PrometheusURL != "" {
		c.spawnPrometheus()
	}
	sampler.Wait()
}

// spawn runs f as a task once one of the Concurrency slots is free. It
// blocks until then, so tasks start in the order they are spawned. A task
// not started before the run is interrupted is recorded as not collected.
// f may call release to give its slot back early (to wait for something
// that needs no network); an error it returns is recorded against step,
// target and path. spawn reports whether the task started.
func (c *collector) spawn(step, target, path string, f func(release func()) error) bool {
	c.progress.Add(1)
	acquired := false
	select {
	case c.sem <- struct{}{}:
		acquired = true
	case <-c.run.Done():
	}
	if c.run.Err() != nil {
		if acquired {
			<-c.sem
		}
		c.recordError(step, target, "not collected: "+c.stopReason(), path)
		c.progress.Done(step, target, c.run.Err())
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		var once sync.Once
		release := func() { once.Do(func() { <-c.sem }) }
		defer release()
		err := f(release)
		if err != nil {
			p := path
			var ap *atPath
			if errors.As(err, &ap) {
				p, err = ap.path, ap.err
			}
			c.recordError(step, target, err.Error(), p)
		}
		c.progress.Done(step, target, err)
	}()
	return true
}

// recordError records a step that failed. The target and the message are
// redacted: a message may quote a DSN or a URL with its password.
func (c *collector) recordError(step, target, msg, path string) {
	c.w.RecordError(bundle.CollectError{Step: step, Path: path,
		Target: c.red.String("errors.target", target), Error: c.red.String("errors.message", msg)})
}

// create starts a bundle file; its source is redacted.
func (c *collector) create(path, source string) (*bundle.File, error) {
	return c.w.Create(path, c.red.String("files.source", source))
}

// setError records on f that its source failed part-way, redacted.
func (c *collector) setError(f *bundle.File, err error) {
	if err != nil {
		f.SetError(errors.New(c.red.String("files.error", err.Error())))
	}
}

// note records something a person should know that is not a failure.
func (c *collector) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// stopReason says why the run stopped early.
func (c *collector) stopReason() string {
	if errors.Is(context.Cause(c.run), errRunDeadline) {
		return fmt.Sprintf("the run's deadline passed (--timeout %v)", c.opts.Timeout)
	}
	if errors.Is(c.parent.Err(), context.Canceled) {
		return "interrupted (SIGINT or SIGTERM)"
	}
	return "stopped: " + context.Cause(c.run).Error()
}

func (c *collector) selectors() []string {
	if c.opts.Selector != "" {
		return []string{c.opts.Selector}
	}
	return discoverySelectors
}

type redaction int

const (
	redactNone redaction = iota
	redactJSON           // a kubectl get -o json document
	redactText           // text, line by line
)

// writeData writes a whole file, redacted as kind says. partial, when not nil, records that the file lacks something.
func (c *collector) writeData(path, source string, data []byte, kind redaction, partial error) error {
	n := 0
	if c.red != nil {
		switch kind {
		case redactJSON:
			var err error
			if data, n, err = c.red.KubeJSON(path, data); err != nil {
				// Not JSON after all: redacted as text, which is safe to write.
				c.note("%s: %v", path, err)
			}
		case redactText:
			data, n = c.red.Text(path, data)
		}
	}
	f, err := c.create(path, source)
	if err != nil {
		return err
	}
	f.AddRedacted(n)
	c.setError(f, partial)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// copyText copies r into f, redacted line by line.
func (c *collector) copyText(f *bundle.File, path string, r io.Reader) error {
	if c.red == nil {
		_, err := io.Copy(f, r)
		return err
	}
	n, err := c.red.TextStream(path, f, r)
	f.AddRedacted(n)
	return err
}

// newRunRedactor makes the run's redactor, with its own random key; nil
// when redaction is off.
func newRunRedactor(o *Options) (*Redactor, error) {
	if o.NoRedact {
		if o.RedactConfig != "" {
			return nil, errors.New("a redaction config was given with redaction off")
		}
		return nil, nil
	}
	var extra []RedactPattern
	if o.RedactConfig != "" {
		var err error
		if extra, err = LoadRedactConfig(o.RedactConfig); err != nil {
			return nil, err
		}
	}
	return NewRedactor(extra)
}

// clusterName is the RisingWave cluster's name: the risingwave/name label
// most pods carry, else helm's instance label, else the namespace.
func (c *collector) clusterName(pods []*corev1.Pod) string {
	count := map[string]int{}
	for _, p := range pods {
		name := p.Labels[bundle.ClusterLabel]
		if name == "" {
			name = p.Labels["app.kubernetes.io/instance"]
		}
		if name != "" {
			count[name]++
		}
	}
	if len(count) == 0 {
		return c.kube.namespace
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 1 {
		c.note("pods of %d RisingWave clusters found (%s); all are collected, the bundle is named after %s; use --selector %s=NAME to pick one",
			len(names), strings.Join(names, ", "), names[0], bundle.ClusterLabel)
	}
	return names[0]
}

var (
	sqlVersionRE   = regexp.MustCompile(`RisingWave-v?([0-9][0-9A-Za-z.\-+]*)`)
	imageVersionRE = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+`)
)

// risingWaveVersion is the version the frontend reported, else the one the
// RisingWave resource's status gives, else the image tag of a RisingWave
// container.
func (c *collector) risingWaveVersion(pods []*corev1.Pod) string {
	c.mu.Lock()
	sqlV, crV := c.sqlVersion, c.crVersion
	c.mu.Unlock()
	if m := sqlVersionRE.FindStringSubmatch(sqlV); m != nil {
		return "v" + m[1]
	}
	if sqlV != "" && imageVersionRE.MatchString(sqlV) {
		return sqlV
	}
	if crV != "" {
		return crV
	}
	for _, p := range pods {
		for _, ct := range p.Spec.Containers {
			img := ct.Image
			if i := strings.Index(img, "@"); i >= 0 {
				img = img[:i]
			}
			if i := strings.LastIndex(img, ":"); i >= 0 && !strings.Contains(img[i:], "/") &&
				strings.Contains(img[:i], "risingwave") && imageVersionRE.MatchString(img[i+1:]) {
				return img[i+1:]
			}
		}
	}
	return ""
}

// recordCRVersion keeps the version a RisingWave resource reports.
func (c *collector) recordCRVersion(items []unstructured.Unstructured) {
	for _, it := range items {
		if v, ok, _ := unstructured.NestedString(it.Object, "status", "version"); ok && v != "" {
			c.mu.Lock()
			c.crVersion = v
			c.mu.Unlock()
			return
		}
	}
}

// checkOutput refuses to overwrite a file given with -o.
func checkOutput(out string) error {
	if out == "" || out == "-" {
		return nil
	}
	fi, err := os.Stat(out)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("output %s: exists; remove it or choose another name", out)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("output: %w", err)
	}
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// outputPath picks the archive's path and its root directory,
// rwdiag-<cluster>-<UTC stamp>.
func outputPath(out string, format bundle.Format, cluster string, start time.Time) (dest, root string, err error) {
	name := strings.Trim(unsafeName.ReplaceAllString(cluster, "-"), "-.")
	if name == "" {
		name = "cluster"
	}
	root = "rwdiag-" + name + "-" + start.UTC().Format("20060102T150405Z")
	ext := ".tar.zst"
	switch format {
	case bundle.FormatTarGzip:
		ext = ".tar.gz"
	case bundle.FormatTar:
		ext = ".tar"
	}
	switch fi, statErr := os.Stat(out); {
	case out == "":
		dest = root + ext
	case statErr == nil && fi.IsDir():
		dest = filepath.Join(out, root+ext)
	default:
		dest = out
	}
	if _, err := os.Stat(dest); err == nil {
		return "", "", fmt.Errorf("output %s: exists; remove it or choose another name", dest)
	}
	return dest, root, nil
}

// readManifest reads the written manifest back for the result.
func readManifest(path string) (*bundle.Manifest, error) {
	r, err := bundle.Open(path, bundle.Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: no manifest: %w", path, err)
		}
		if e.Path == bundle.ManifestPath {
			return bundle.DecodeManifest(e)
		}
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// firstLine makes a message one line of the summary: white space runs,
// line ends included, become one space, and a long message is cut.
func firstLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + " ..."
	}
	return s
}
