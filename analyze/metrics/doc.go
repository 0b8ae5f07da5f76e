// Package metrics answers PromQL over the Prometheus scrapes of a bundle:
// the Store holds the samples of the metric families the rules read (from
// metrics/<pod>/<unix-millis>.prom scrapes and range dumps) in memory, and
// Query evaluates an instant query at a time with Prometheus's own engine,
// returning evidence.Rows that name the scrape file each came from.
//
// metrics imports evidence and bundle only.
package metrics
