package collect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/rwdiag/rwdiag/bundle"
)

// maxScrapeBytes caps one /metrics scrape (the analyzer reads 256 MiB).
const maxScrapeBytes = 128 << 20

// namedPort returns the first container port with one of the names.
func namedPort(p *corev1.Pod, names ...string) (int32, bool) {
	for _, name := range names {
		for _, ct := range p.Spec.Containers {
			for _, cp := range ct.Ports {
				if cp.Name == name {
					return cp.ContainerPort, true
				}
			}
		}
	}
	return 0, false
}

// proxyPath is the API server's pod proxy path to a pod's port; suffix
// keeps a trailing slash, which RisingWave's dashboard routes need.
func proxyPath(ns, pod string, port int32, suffix string) string {
	return "/api/v1/namespaces/" + ns + "/pods/" + pod + ":" + strconv.Itoa(int(port)) + "/proxy/" + suffix
}

// atPath carries the bundle path a task's error is about, when the task
// names it only once it runs.
type atPath struct {
	path string
	err  error
}

func (e *atPath) Error() string { return e.err.Error() }
func (e *atPath) Unwrap() error { return e.err }

// sampleMetrics scrapes every pod's metrics port MetricsSamples times,
// MetricsInterval apart, through the API server's pod proxy.
func (c *collector) sampleMetrics(pods []*corev1.Pod) {
	type target struct {
		pod  *corev1.Pod
		port int32
	}
	var targets []target
	for _, p := range pods {
		if port, ok := namedPort(p, "metrics"); ok {
			targets = append(targets, target{p, port})
		} else {
			c.note("%s: no container port named metrics; not scraped", p.Name)
		}
	}
	if len(targets) == 0 {
		return
	}
	n := c.opts.MetricsSamples
	start := time.Now()
	for i := 0; i < n; i++ {
		if i > 0 {
			t := time.NewTimer(time.Until(start.Add(time.Duration(i) * c.opts.MetricsInterval)))
			select {
			case <-t.C:
			case <-c.run.Done():
				t.Stop()
			}
		}
		if c.run.Err() != nil {
			for _, t := range targets {
				c.recordError(StepMetrics, t.pod.Name, fmt.Sprintf("%d of %d scrapes not taken: %s", n-i, n, c.stopReason()), "")
			}
			return
		}
		for _, t := range targets {
			c.spawn(StepMetrics, t.pod.Name, "", func(func()) error { return c.scrape(t.pod, t.port) })
		}
	}
}

// scrape takes one /metrics sample, named by the time it was taken.
func (c *collector) scrape(p *corev1.Pod, port int32) error {
	at := time.Now()
	path := bundle.ScrapePath(p.Name, at)
	abs := proxyPath(c.kube.namespace, p.Name, port, "metrics")
	body, truncated, err := c.proxyGet(abs, maxScrapeBytes)
	if err != nil {
		return &atPath{path, proxyError(err)}
	}
	var partial error
	if truncated {
		partial = fmt.Errorf("cut at %s", formatBytes(maxScrapeBytes))
	}
	if err := c.writeData(path, "kubectl get --raw "+abs, body, redactText, partial); err != nil {
		return &atPath{path, err}
	}
	return nil
}

// proxyGet GETs a path through the API server, reading at most max bytes;
// a longer body is cut at its last whole line and reported truncated.
func (c *collector) proxyGet(abs string, max int64) (body []byte, truncated bool, err error) {
	err = c.call("GET "+abs, func(ctx context.Context) error {
		rc, err := c.kube.clientset.CoreV1().RESTClient().Get().AbsPath(abs).Stream(ctx)
		if err != nil {
			return err
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, max+1))
		if err != nil {
			return err
		}
		body, truncated = b, false
		if int64(len(b)) > max {
			b = b[:max]
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				b = b[:i+1]
			}
			body, truncated = b, true
		}
		return nil
	})
	return body, truncated, err
}

// proxyError explains a failed proxy call.
func proxyError(err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w (the pod was deleted after it was listed, or the path does not exist)", err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s", explain(err, "get", "pods/proxy"))
	}
	return err
}
