package bundle

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ComponentLabels are the pod labels that name a RisingWave component, in
// the order they are consulted: the operator's, then the helm chart's.
var ComponentLabels = []string{
	"risingwave/component",
	"risingwave.risingwavelabs.com/component",
	"app.kubernetes.io/component",
}

// Component returns the RisingWave component (meta, compute, frontend,
// compactor, ...) a pod's labels name, or "" when none does.
func Component(labels map[string]string) string {
	for _, l := range ComponentLabels {
		if v := labels[l]; v != "" {
			return v
		}
	}
	return ""
}

// ClusterLabel is the pod label both the operator and the helm chart set to
// the RisingWave cluster's name.
const ClusterLabel = "risingwave/name"

// Pod is the part of a pod object the bundle tooling needs.
type Pod struct {
	Name       string
	Namespace  string
	Component  string
	Labels     map[string]string
	Phase      string
	Containers []string
	Restarts   int
}

// maxPodsBytes bounds how much of pods.json is decoded.
const maxPodsBytes = 512 << 20

// ParsePods reads `kubectl get pods -o json` output: a List, or a single Pod.
func ParsePods(r io.Reader) ([]Pod, error) {
	type container struct {
		Name string `json:"name"`
	}
	type status struct {
		Name         string `json:"name"`
		RestartCount int    `json:"restartCount"`
	}
	type pod struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Containers []container `json:"containers"`
		} `json:"spec"`
		Status struct {
			Phase             string   `json:"phase"`
			ContainerStatuses []status `json:"containerStatuses"`
		} `json:"status"`
	}
	var doc struct {
		pod
		Items []pod `json:"items"`
	}
	if err := json.NewDecoder(io.LimitReader(r, maxPodsBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode pods: %w", err)
	}
	items := doc.Items
	if strings.EqualFold(doc.Kind, "Pod") {
		items = []pod{doc.pod}
	}
	pods := make([]Pod, 0, len(items))
	for _, it := range items {
		p := Pod{Name: it.Metadata.Name, Namespace: it.Metadata.Namespace, Labels: it.Metadata.Labels, Component: Component(it.Metadata.Labels), Phase: it.Status.Phase}
		for _, c := range it.Spec.Containers {
			p.Containers = append(p.Containers, c.Name)
		}
		for _, s := range it.Status.ContainerStatuses {
			p.Restarts += s.RestartCount
		}
		pods = append(pods, p)
	}
	return pods, nil
}
