package collect

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/rwdiag/rwdiag/bundle"
)

// The collection steps, as they are named in the manifest's errors and in
// Options.Skip.
const (
	StepKube       = "kube"       // kubectl get ... -o json
	StepDescribe   = "describe"   // kubectl describe pod
	StepLogs       = "logs"       // kubectl logs [--previous]
	StepMetrics    = "metrics"    // /metrics through the pod proxy
	StepDiagnose   = "diagnose"   // the meta dashboard's diagnose report and await tree
	StepSQL        = "sql"        // rw_catalog over the Postgres wire protocol
	StepPrometheus = "prometheus" // query_range from the customer's Prometheus
)

// SkippableSteps are the steps Options.Skip may name. The Kubernetes objects
// are always collected: everything else is found through them.
var SkippableSteps = []string{StepDescribe, StepLogs, StepMetrics, StepDiagnose, StepSQL, StepPrometheus}

// Options configure a collection run. Start from DefaultOptions: Run takes the
// values as they are and rejects nonsense (a zero timeout, no concurrency).
type Options struct {
	// Kubeconfig is the kubeconfig file; "" follows kubectl: $KUBECONFIG,
	// then ~/.kube/config, then the in-cluster service account.
	Kubeconfig string
	// Context is the kubeconfig context; "" is the current one.
	Context string
	// Namespace is where RisingWave runs; "" is the context's namespace.
	Namespace string
	// RESTConfig, when set, is used instead of any kubeconfig (tests, or a
	// program that has its own).
	RESTConfig *rest.Config
	// Selector is a label selector for the RisingWave pods, replacing the
	// discovery by the operator's and helm chart's labels.
	Selector string

	// Since bounds logs to the last Since (kubectl logs --since); 0 is all.
	Since time.Duration
	// LogBytes caps one log file; the newest lines are kept.
	LogBytes int64
	// LogBudget caps all logs together; it is spent on unhealthy pods first.
	LogBudget int64

	// MetricsSamples scrapes of every pod's metrics port, MetricsInterval apart.
	MetricsSamples  int
	MetricsInterval time.Duration

	// SQLDSN is the frontend's Postgres DSN; "" discovers the frontend
	// service, which needs a network path to it (in-cluster, or a VPN).
	SQLDSN string

	// PrometheusURL is a Prometheus server to read history from; "" skips it.
	PrometheusURL string
	// PrometheusRange is how far back to read.
	PrometheusRange time.Duration
	// PrometheusMetrics are the metric names to read (those the rules use).
	PrometheusMetrics []string

	// Timeout is the whole run's deadline.
	Timeout time.Duration
	// CallTimeout bounds every request; a log stream may take longer as long
	// as bytes keep arriving at least every CallTimeout.
	CallTimeout time.Duration
	// Grace is how long calls in flight may finish once the run is
	// interrupted or its deadline passes, before they are cut.
	Grace time.Duration
	// Retries is how many times a call that failed transiently (5xx, a
	// timeout, a reset connection) is tried in all.
	Retries int
	// RetryBackoff is the first pause between tries; it doubles.
	RetryBackoff time.Duration
	// Concurrency bounds the calls in flight.
	Concurrency int

	// Output is the archive to write. "" is rwdiag-<cluster>-<UTC stamp>.tar.zst
	// in the current directory; an existing directory gets that name inside it.
	Output string
	// Format of the archive; the default is tar.zst.
	Format bundle.Format

	// NoRedact turns redaction off. The bundle may then hold secrets.
	NoRedact bool
	// RedactConfig is a file of extra redaction patterns.
	RedactConfig string

	// Skip names steps not to run (SkippableSteps).
	Skip []string

	// ToolVersion is recorded in the manifest.
	ToolVersion string
}

// DefaultOptions returns the defaults the command line documents.
func DefaultOptions() Options {
	return Options{
		Since:           6 * time.Hour,
		LogBytes:        50 << 20,
		LogBudget:       1 << 30,
		MetricsSamples:  4,
		MetricsInterval: 15 * time.Second,
		PrometheusRange: 6 * time.Hour,
		Timeout:         10 * time.Minute,
		CallTimeout:     30 * time.Second,
		Grace:           5 * time.Second,
		Retries:         3,
		RetryBackoff:    500 * time.Millisecond,
		Concurrency:     8,
		Format:          bundle.FormatTarZstd,
	}
}

// validate reports every unusable option at once.
func (o *Options) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Since < 0 {
		bad("since %v: must not be negative", o.Since)
	}
	if o.LogBytes <= 0 {
		bad("log bytes %d: must be greater than zero", o.LogBytes)
	}
	if o.LogBudget <= 0 {
		bad("log budget %d: must be greater than zero", o.LogBudget)
	}
	if o.MetricsSamples < 0 {
		bad("metrics samples %d: must not be negative", o.MetricsSamples)
	}
	if o.MetricsSamples > 1 && o.MetricsInterval <= 0 {
		bad("metrics interval %v: must be greater than zero", o.MetricsInterval)
	}
	if o.PrometheusURL != "" {
		if _, err := checkPrometheusURL(o.PrometheusURL); err != nil {
			errs = append(errs, err)
		}
		if o.PrometheusRange <= 0 {
			bad("prometheus range %v: must be greater than zero", o.PrometheusRange)
		}
	}
	if o.Timeout <= 0 {
		bad("timeout %v: must be greater than zero", o.Timeout)
	}
	if o.CallTimeout <= 0 {
		bad("call timeout %v: must be greater than zero", o.CallTimeout)
	}
	if o.Grace < 0 {
		bad("grace %v: must not be negative", o.Grace)
	}
	if o.Retries < 1 {
		bad("retries %d: must be at least 1", o.Retries)
	}
	if o.Concurrency < 1 {
		bad("concurrency %d: must be at least 1", o.Concurrency)
	}
	for _, s := range o.Skip {
		if !slices.Contains(SkippableSteps, s) {
			bad("skip %q: not a step (%s)", s, strings.Join(SkippableSteps, ", "))
		}
	}
	return errors.Join(errs...)
}

func (o *Options) skips(step string) bool { return slices.Contains(o.Skip, step) }
