package kubetext

import (
	"fmt"
	"time"
)

// Pod is one pod of `kubectl describe pod` output.
type Pod struct {
	Name, Namespace string
	// Node is the node's name, HostIP its address ("Node: <name>/<hostIP>").
	Node, HostIP string
	// IP is the pod IP ("IP:"), IPs all of them ("IPs:").
	IP  string
	IPs []string
	// Status is the pod phase (Pending, Running, Succeeded, Failed, Unknown)
	// or "Terminating" when the pod is being deleted; Terminating is then
	// true and the phase is not shown by kubectl.
	Status      string
	Terminating bool
	// Reason and Message are the pod's own, e.g. Evicted and why.
	Reason, Message string
	Labels          map[string]string
	StartTime       time.Time
	ServiceAccount  string
	// ControlledBy is "<Kind>/<name>" of the controller, e.g.
	// "StatefulSet/rw-prod-compute".
	ControlledBy string
	QOSClass     string
	Conditions   []Condition
	// Containers, InitContainers and EphemeralContainers in the order
	// kubectl printed them.
	Containers, InitContainers, EphemeralContainers []Container
	Events                                          []Event
	// Line is the line of "Name:", 1-based.
	Line int
}

// Container is one container of a described pod, with its status when
// kubectl printed one.
type Container struct {
	Name, Image, ImageID, ContainerID string
	Command, Args                     []string
	Ports                             []Port
	// HasStatus is true when the pod has a status for this container
	// ("Container ID:", "State:" ...); without one the fields below are zero.
	HasStatus bool
	// State is "State:" and LastState "Last State:" (the last termination).
	State, LastState State
	// Ready is nil when kubectl printed no "Ready:".
	Ready        *bool
	RestartCount int
	// Limits and Requests map a resource name (cpu, memory, ...) to the
	// quantity as printed ("16Gi", "500m").
	Limits, Requests map[string]string
	Env              []EnvVar
	EnvFrom          []EnvFrom
	// Line is the line of the container's name.
	Line int
}

// State is a container state: "State:" or "Last State:" and the lines
// under it.
type State struct {
	// Kind is Running, Waiting or Terminated; "" when absent.
	Kind            string
	Reason, Message string
	// ExitCode is set for Terminated.
	ExitCode *int
	Signal   int
	// StartedAt is set for Running and Terminated, FinishedAt for
	// Terminated. kubectl prints a time it does not know as
	// "Mon, 01 Jan 0001 00:00:00 +0000", which parses to the zero time.
	StartedAt, FinishedAt time.Time
	// Line is the line of "State:" or "Last State:".
	Line int
}

// Port is a container port ("Ports: 5688/TCP (service), 1222/TCP (metrics)").
type Port struct {
	Name          string
	ContainerPort int
	Protocol      string
}

// EnvVar is one line under "Environment:". A literal value is in Value.
// A value from elsewhere has its Source set; Value then holds what kubectl
// resolved, if anything (the field's or resource's value; never a
// secret's or config map's).
type EnvVar struct {
	Name, Value string
	Source      *EnvSource
	Line        int
}

// EnvSource is where an environment variable's value comes from.
type EnvSource struct {
	// Kind is "fieldRef", "resourceFieldRef", "secretKeyRef" or
	// "configMapKeyRef", the EnvVarSource field it stands for.
	Kind string
	// APIVersion and FieldPath for fieldRef ("v1", "metadata.name").
	APIVersion, FieldPath string
	// Resource for resourceFieldRef ("limits.memory").
	Resource string
	// Name and Key of the secret or config map, and whether it is optional.
	Name, Key string
	Optional  bool
}

// EnvFrom is one line under "Environment Variables from:".
type EnvFrom struct {
	// Kind is "ConfigMap" or "Secret".
	Kind, Name, Prefix string
	Optional           bool
}

// Condition is one row of the pod's "Conditions:" table.
type Condition struct {
	Type, Status string
}

// Event is one row of a pod's "Events:" table.
type Event struct {
	Type, Reason string
	// Age is the age of the last occurrence as kubectl printed it ("12s",
	// "2d4h", "<invalid>" for a time in the future, "<unknown>").
	// FirstAge is that of the first occurrence: the "over" of
	// "12s (x31 over 25m)", or Age when the event happened once.
	Age, FirstAge string
	// Count is how often the event happened: the x of "(x31 over 25m)", else 1.
	Count int
	// From is the reporting component; before kubectl 1.20 it has the node
	// after a comma ("kubelet, node-3").
	From    string
	Message string
	Line    int
}

// PodRow is one row of the `kubectl get pods` table.
type PodRow struct {
	// Namespace is set when the table has a NAMESPACE column (-A).
	Namespace, Name string
	// Ready is "ready/total" as printed, e.g. "0/1".
	Ready string
	// Status is the STATUS column: a phase or a reason, e.g.
	// CrashLoopBackOff, OOMKilled, Init:0/1, Completed, Terminating.
	Status   string
	Restarts int
	// LastRestartAgo is the age of the last restart of
	// "6 (2m13s ago)"; "" when the server printed none (before Kubernetes
	// 1.22, or no restart).
	LastRestartAgo string
	Age            string
	// IP and Node are set with -o wide ("<none>" reads as "").
	IP, Node string
	// Labels is set with --show-labels.
	Labels map[string]string
	Line   int
}

// Problem is text that could not be read as what it should be. Parsing
// goes on after a problem.
type Problem struct {
	Line int
	// Text is the line as read (cut at 200 bytes).
	Text string
	// Reason says what is wrong with it.
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s: %q", p.Line, p.Reason, p.Text)
}

// Container returns the container, init container or ephemeral container
// of the pod with that name, or nil.
func (p *Pod) Container(name string) *Container {
	for _, list := range [][]Container{p.Containers, p.InitContainers, p.EphemeralContainers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// Getenv returns the container's environment variable of that name, as
// "Environment:" lists it.
func (c *Container) Getenv(name string) (EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return EnvVar{}, false
}

// ContainerLine returns the line where the described pod's container is
// named, for evidence that cites file:line; 0 when there is no such pod or
// container. An empty namespace matches any. When a pod was described more
// than once, the last description counts, as in PodListJSON.
func ContainerLine(pods []Pod, namespace, pod, container string) int {
	for i := len(pods) - 1; i >= 0; i-- {
		p := &pods[i]
		if p.Name != pod || (namespace != "" && p.Namespace != namespace) {
			continue
		}
		if c := p.Container(container); c != nil {
			return c.Line
		}
		return 0
	}
	return 0
}
