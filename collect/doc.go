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
// Run is the whole collection: Options say what and how (DefaultOptions has
// the documented defaults), Result is what was written, with a summary of
// what is missing and why. CollectSQL is the SQL half on its own; Redactor
// does the redaction, for Run and for `rwdiag bundle redact`.
//
// collect imports bundle, never analyze; its tests may (the end-to-end test
// analyses what it collected).
package collect
