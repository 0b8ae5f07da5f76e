// Package collect captures a RisingWave cluster on Kubernetes into a bundle:
// Kubernetes objects and events, `kubectl describe` text, container logs
// (current and previous), metrics scrapes and the meta node's diagnose
// report through the API server's pod proxy, rw_catalog dumps over the
// Postgres wire protocol, and optionally Prometheus history.
//
// It is read-only (get, list and the log and proxy subresources; SQL in a
// READ ONLY transaction), bounded (timeouts, a deadline, limited
// concurrency), fails forward (a failed step is recorded in the manifest and
// the run goes on) and redacts secrets by default.
//
// collect imports bundle, never analyze.
package collect
