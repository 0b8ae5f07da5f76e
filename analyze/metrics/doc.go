// Package metrics answers PromQL over the Prometheus scrapes of a bundle:
// the Store holds the samples of the metric families the rules read (from
// metrics/<pod>/<unix-millis>.prom scrapes and range dumps) in memory, and
// Query evaluates an instant query at a time with Prometheus's own engine,
// returning evidence.Rows that name the scrape file each came from.
// Samples are held in Prometheus' XOR chunks (tsdb/chunkenc), 2-3 bytes a
// sample for scrapes, and decoded per series as a query reads them.
//
// No query may crash or exhaust the machine: before evaluating, Query
// refuses a subquery of too many steps (Prometheus allocates per step before
// it counts a sample, so `max_over_time(up[10y:1ms])` was a fatal
// out-of-memory) and a range function that would read too many samples for
// one series (Prometheus checks its timeout only between series); the
// engine's MaxSamples and Timeout bound the rest (see Limits). A query
// stopped at a limit fails with a *LimitError naming it, which wraps
// ErrLimit. CheckQuery finds the same problems without data, for rules lint.
// DropScrapesOutside leaves out scrapes dated far from the collection, so
// that $__range, the lookback and the evaluation time span only the rest.
//
// metrics imports evidence and bundle only.
package metrics
