// Package kube answers gjson path queries over the Kubernetes objects of a
// bundle (kubernetes/<resource>.json: `kubectl get <resource> -o json`):
// the Store selects objects by kind, labels and RisingWave component and
// returns an evidence.Row per object or per element of a path's result.
// CheckPath validates a path at rule load time.
//
// kube imports evidence and bundle only.
package kube
