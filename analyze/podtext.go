package analyze

import (
	"bytes"
	"fmt"
	"io"

	"github.com/rwdiag/rwdiag/analyze/kubetext"
	"github.com/rwdiag/rwdiag/bundle"
)

// maxPodText bounds a describe file or get-pods table held in memory.
const maxPodText = 64 << 20

// maxPodTextProblems bounds the problems reported per file.
const maxPodTextProblems = 3

// podText is one file of kubectl text about pods, parsed.
type podText struct {
	path string
	pods []kubetext.Pod
	rows []kubetext.PodRow
}

// readPodText parses a `kubectl describe pod` file or a `kubectl get pods`
// table and returns its bytes, for the other readers of the file. When
// the bundle has no pods.json, finish turns what was parsed into the same
// JSON, so that rules read pods alike from either.
func (ev *Gathered) readPodText(e *bundle.Entry, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPodText+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPodText {
		return nil, fmt.Errorf("larger than %d bytes; not read", maxPodText)
	}
	pt := podText{path: e.Path}
	var probs []kubetext.Problem
	switch e.Kind {
	case bundle.KindPodsTable:
		pt.rows, probs, err = kubetext.ParseGetPods(bytes.NewReader(data))
	default:
		pt.pods, probs, err = kubetext.ParseDescribe(bytes.NewReader(data))
	}
	if err != nil {
		return data, err
	}
	for i, p := range probs {
		if i == maxPodTextProblems {
			ev.problem("%s: %d more lines not understood", e.Path, len(probs)-i)
			break
		}
		ev.problem("%s:%d: %s: %q", e.Path, p.Line, p.Reason, p.Text)
	}
	if len(pt.pods)+len(pt.rows) == 0 {
		ev.problem("%s: no pod could be read from it", e.Path)
		return data, nil
	}
	ev.podTexts = append(ev.podTexts, pt)
	return data, nil
}

// podsFromText makes pods available from kubectl text when pods.json is
// absent: one document per file, describe files first, table rows only
// for pods no describe file named.
func (ev *Gathered) podsFromText() {
	if ev.Kube.Has("pods") || len(ev.podTexts) == 0 {
		return
	}
	described := map[string]bool{}
	for _, pt := range ev.podTexts {
		for _, p := range pt.pods {
			described[p.Namespace+"/"+p.Name] = true
			described["/"+p.Name] = true
		}
	}
	for _, pt := range ev.podTexts {
		pods := pt.pods
		var rows []kubetext.PodRow
		for _, r := range pt.rows {
			if described[r.Namespace+"/"+r.Name] || described["/"+r.Name] {
				continue
			}
			if p, ok := ev.rowPod(r); ok {
				pods = append(pods, p)
			} else {
				rows = append(rows, r)
			}
		}
		if len(pods)+len(rows) == 0 {
			continue
		}
		doc, err := kubetext.PodListJSON(pods, rows)
		if err != nil {
			ev.problem("%s: %v", pt.path, err)
			continue
		}
		if err := ev.Kube.Add("pods", pt.path, bytes.NewReader(doc)); err != nil {
			ev.problem("%s: %v", pt.path, err)
			continue
		}
		parsed, err := bundle.ParsePods(bytes.NewReader(doc))
		if err != nil {
			ev.problem("%s: %v", pt.path, err)
			continue
		}
		ev.Pods = append(ev.Pods, parsed...)
	}
}

// rowPod turns a `kubectl get pods` row whose STATUS tells a container's
// state (OOMKilled, CrashLoopBackOff, Error, Completed) into a pod with one
// container status, so that a bundle with only the table still shows an
// OOM kill. The table names no container: the container is taken to be the
// one named after the pod's RisingWave role, as both installers name it
// (and as RisingWave pods have no other), which is an inference the
// evidence text keeps visible (the row's line is cited). Other rows stay
// rows: their pods have no container status.
func (ev *Gathered) rowPod(r kubetext.PodRow) (kubetext.Pod, bool) {
	role := ev.Component(r.Name)
	if role == "" {
		for _, k := range knownRoles {
			if r.Labels["risingwave/component"] == k {
				role = k
			}
		}
	}
	if role == "" {
		return kubetext.Pod{}, false
	}
	c := kubetext.Container{Name: role, HasStatus: true, RestartCount: r.Restarts, Line: r.Line}
	switch r.Status {
	case "OOMKilled", "Error", "Completed":
		// The container has just terminated and not yet been restarted:
		// its last termination is this one.
		c.State = kubetext.State{Kind: "Terminated", Reason: r.Status, Line: r.Line}
		if r.Status == "OOMKilled" {
			oomExit := 137 // the kernel's SIGKILL, which the kubelet reports for every OOM kill
			c.State.ExitCode = &oomExit
		}
		c.LastState = c.State
	case "CrashLoopBackOff":
		c.State = kubetext.State{Kind: "Waiting", Reason: r.Status, Line: r.Line}
	case "Running":
		if r.Restarts == 0 {
			return kubetext.Pod{}, false
		}
		// Restarted, running again: the restarts count, and why the last
		// run ended is unknown (no lastState), which rules must not take
		// for "no OOM".
		c.State = kubetext.State{Kind: "Running", Line: r.Line}
	default:
		return kubetext.Pod{}, false
	}
	p := kubetext.Pod{Name: r.Name, Namespace: r.Namespace, Node: r.Node, IP: r.IP, Labels: r.Labels,
		Status: "Running", Containers: []kubetext.Container{c}, Line: r.Line}
	return p, true
}
