// Command gen renders the kubetext shape fixtures with kubectl's own code:
// describe.PodDescriber (k8s.io/kubectl pkg/describe) over a fake clientset
// holding our own pods and events, and cli-runtime's table printer over a
// metav1.Table whose cells follow printPod (kubernetes
// pkg/printers/internalversion/printers.go). Ages are computed against the
// clock, so a second run gives other ages and times; the committed fixtures
// are one run.
//
// It is not part of the rwdiag module (testdata is ignored by the go tool).
// To run it, copy this directory into a scratch module whose go.mod requires
// k8s.io/{api,apimachinery,cli-runtime,client-go,kubectl} at one of v0.18.0,
// v0.28.0 or v0.37.2 (v0.18.0 also needs
// `replace vbom.ml/util => github.com/fvbommel/util v0.0.0-20160121211510-db5cfe13f5cc`
// and github.com/modern-go/reflect2 v1.0.2 to build with current Go), then
// `go run -tags v18|v28|v37 . -out DIR`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubectl/pkg/describe"
)

// describeAll renders pods as `kubectl describe pods` prints several:
// each description after the first preceded by "\n\n" (kubectl
// pkg/cmd/describe/describe.go, DescribeOptions.Run).
func describeAll(set []podEvents) string {
	var out bytes.Buffer
	for i, pe := range set {
		objs := []runtime.Object{pe.pod}
		for j := range pe.events {
			objs = append(objs, &pe.events[j])
		}
		client := fake.NewSimpleClientset(objs...)
		d := &describe.PodDescriber{Interface: client}
		s, err := d.Describe(pe.pod.Namespace, pe.pod.Name, settings())
		if err != nil {
			panic(err)
		}
		if i > 0 {
			out.WriteString("\n\n")
		}
		out.WriteString(s)
	}
	return out.String()
}

func podColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Ready", Type: "string"},
		{Name: "Status", Type: "string"},
		{Name: "Restarts", Type: restartsType},
		{Name: "Age", Type: "string"},
		{Name: "IP", Type: "string", Priority: 1},
		{Name: "Node", Type: "string", Priority: 1},
		{Name: "Nominated Node", Type: "string", Priority: 1},
		{Name: "Readiness Gates", Type: "string", Priority: 1},
	}
}

// podCells follows printPod in kubernetes pkg/printers/internalversion/printers.go
// for the cases the fixtures hold (no restartable init containers).
func podCells(pod *corev1.Pod, now time.Time) []interface{} {
	restarts := 0
	total := len(pod.Spec.Containers)
	ready := 0
	var last time.Time
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	initializing := false
	for i, c := range pod.Status.InitContainerStatuses {
		restarts += int(c.RestartCount)
		if t := c.LastTerminationState.Terminated; t != nil && t.FinishedAt.Time.After(last) {
			last = t.FinishedAt.Time
		}
		switch {
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
			continue
		case c.State.Terminated != nil:
			if c.State.Terminated.Reason == "" {
				reason = fmt.Sprintf("Init:ExitCode:%d", c.State.Terminated.ExitCode)
			} else {
				reason = "Init:" + c.State.Terminated.Reason
			}
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + c.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing {
		restarts = 0
		last = time.Time{}
		hasRunning := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := pod.Status.ContainerStatuses[i]
			restarts += int(c.RestartCount)
			if t := c.LastTerminationState.Terminated; t != nil && t.FinishedAt.Time.After(last) {
				last = t.FinishedAt.Time
			}
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				reason = c.State.Waiting.Reason
			case c.State.Terminated != nil:
				if c.State.Terminated.Reason != "" {
					reason = c.State.Terminated.Reason
				} else {
					reason = fmt.Sprintf("ExitCode:%d", c.State.Terminated.ExitCode)
				}
			case c.Ready && c.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			reason = "Running"
		}
	}
	if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
		reason = "Terminating"
	}
	var restartsCell interface{} = int64(restarts)
	if agoRestarts {
		s := fmt.Sprint(restarts)
		if restarts != 0 && !last.IsZero() {
			s = fmt.Sprintf("%d (%s ago)", restarts, duration.HumanDuration(now.Sub(last)))
		}
		restartsCell = s
	}
	ip := pod.Status.PodIP
	if ip == "" {
		ip = "<none>"
	}
	node := pod.Spec.NodeName
	if node == "" {
		node = "<none>"
	}
	return []interface{}{pod.Name, fmt.Sprintf("%d/%d", ready, total), reason, restartsCell,
		duration.HumanDuration(now.Sub(pod.CreationTimestamp.Time)), ip, node, "<none>", "<none>"}
}

func table(pods []*corev1.Pod, now time.Time, opts printers.PrintOptions) string {
	t := &metav1.Table{ColumnDefinitions: podColumns()}
	for _, p := range pods {
		t.Rows = append(t.Rows, metav1.TableRow{Cells: podCells(p, now), Object: runtime.RawExtension{Object: p}})
	}
	var out bytes.Buffer
	if err := printers.NewTablePrinter(opts).PrintObj(t, &out); err != nil {
		panic(err)
	}
	return out.String()
}

func main() {
	dir := flag.String("out", ".", "output directory")
	flag.Parse()
	now := time.Now().UTC().Truncate(time.Second)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(*dir, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	for name, text := range fixtureTexts(now) {
		write(name, text)
	}
}
