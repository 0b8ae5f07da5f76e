// Package evidence holds what every evidence store shares: the Row a query
// returns, and the few helpers each store needs to build one.
//
// It imports nothing of ours. The stores (logs, metrics, sqlstore, kube)
// import it and bundle, never each other or analyze.
package evidence
