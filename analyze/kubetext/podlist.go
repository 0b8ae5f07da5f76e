package kubetext

import (
	"encoding/json"
	"time"
)

// The JSON types below follow k8s.io/api core/v1 (Pod, PodSpec, Container,
// PodStatus, ContainerStatus, ContainerState*) and their json tags. kubectl
// get -o json prints objects as unstructured maps, so keys come out sorted;
// fields are declared in that order to print the same bytes. Times are
// metav1.Time: RFC 3339 in UTC, null when unknown.

type jsonList struct {
	APIVersion string    `json:"apiVersion"`
	Items      []jsonPod `json:"items"`
	Kind       string    `json:"kind"`
	Metadata   struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

type jsonPod struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   jsonMeta   `json:"metadata"`
	Spec       jsonSpec   `json:"spec"`
	Status     jsonStatus `json:"status"`
}

type jsonMeta struct {
	Labels    map[string]string `json:"labels,omitempty"`
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
}

type jsonSpec struct {
	Containers          []jsonContainer `json:"containers"`
	EphemeralContainers []jsonContainer `json:"ephemeralContainers,omitempty"`
	InitContainers      []jsonContainer `json:"initContainers,omitempty"`
	NodeName            string          `json:"nodeName,omitempty"`
	ServiceAccountName  string          `json:"serviceAccountName,omitempty"`
}

type jsonContainer struct {
	Args      []string      `json:"args,omitempty"`
	Command   []string      `json:"command,omitempty"`
	Env       []jsonEnv     `json:"env,omitempty"`
	EnvFrom   []jsonEnvFrom `json:"envFrom,omitempty"`
	Image     string        `json:"image,omitempty"`
	Name      string        `json:"name"`
	Ports     []jsonPort    `json:"ports,omitempty"`
	Resources jsonResources `json:"resources"`
}

type jsonResources struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

type jsonPort struct {
	ContainerPort int    `json:"containerPort"`
	Name          string `json:"name,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
}

type jsonEnv struct {
	Name      string         `json:"name"`
	Value     string         `json:"value,omitempty"`
	ValueFrom *jsonEnvSource `json:"valueFrom,omitempty"`
}

type jsonEnvSource struct {
	ConfigMapKeyRef  *jsonKeyRef   `json:"configMapKeyRef,omitempty"`
	FieldRef         *jsonFieldRef `json:"fieldRef,omitempty"`
	ResourceFieldRef *jsonResRef   `json:"resourceFieldRef,omitempty"`
	SecretKeyRef     *jsonKeyRef   `json:"secretKeyRef,omitempty"`
}

type jsonKeyRef struct {
	Key      string `json:"key"`
	Name     string `json:"name,omitempty"`
	Optional *bool  `json:"optional,omitempty"`
}

type jsonFieldRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

type jsonResRef struct {
	Resource string `json:"resource"`
}

type jsonEnvFrom struct {
	ConfigMapRef *jsonLocalRef `json:"configMapRef,omitempty"`
	Prefix       string        `json:"prefix,omitempty"`
	SecretRef    *jsonLocalRef `json:"secretRef,omitempty"`
}

type jsonLocalRef struct {
	Name     string `json:"name,omitempty"`
	Optional *bool  `json:"optional,omitempty"`
}

type jsonStatus struct {
	Conditions            []jsonCondition       `json:"conditions,omitempty"`
	ContainerStatuses     []jsonContainerStatus `json:"containerStatuses,omitempty"`
	EphemeralStatuses     []jsonContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	HostIP                string                `json:"hostIP,omitempty"`
	HostIPs               []jsonIP              `json:"hostIPs,omitempty"`
	InitContainerStatuses []jsonContainerStatus `json:"initContainerStatuses,omitempty"`
	Message               string                `json:"message,omitempty"`
	Phase                 string                `json:"phase,omitempty"`
	PodIP                 string                `json:"podIP,omitempty"`
	PodIPs                []jsonIP              `json:"podIPs,omitempty"`
	QOSClass              string                `json:"qosClass,omitempty"`
	Reason                string                `json:"reason,omitempty"`
	StartTime             *string               `json:"startTime,omitempty"`
}

type jsonCondition struct {
	Status string `json:"status"`
	Type   string `json:"type"`
}

type jsonIP struct {
	IP string `json:"ip"`
}

type jsonContainerStatus struct {
	ContainerID  string    `json:"containerID,omitempty"`
	Image        string    `json:"image"`
	ImageID      string    `json:"imageID"`
	LastState    jsonState `json:"lastState"`
	Name         string    `json:"name"`
	Ready        bool      `json:"ready"`
	RestartCount int       `json:"restartCount"`
	State        jsonState `json:"state"`
}

type jsonState struct {
	Running    *jsonRunning    `json:"running,omitempty"`
	Terminated *jsonTerminated `json:"terminated,omitempty"`
	Waiting    *jsonWaiting    `json:"waiting,omitempty"`
}

type jsonRunning struct {
	StartedAt *string `json:"startedAt"`
}

type jsonTerminated struct {
	ContainerID string  `json:"containerID,omitempty"`
	ExitCode    int     `json:"exitCode"`
	FinishedAt  *string `json:"finishedAt"`
	Message     string  `json:"message,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	Signal      int     `json:"signal,omitempty"`
	StartedAt   *string `json:"startedAt"`
}

type jsonWaiting struct {
	Message string `json:"message,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// phases are the values of PodStatus.phase; describe's "Status:" is one of
// them unless the pod is terminating.
var phases = map[string]bool{"Pending": true, "Running": true, "Succeeded": true, "Failed": true, "Unknown": true}

// PodListJSON converts described pods and get-pods rows into the JSON
// `kubectl get pods -o json` prints: {"apiVersion":"v1","items":[...],
// "kind":"List","metadata":{"resourceVersion":""}}, keys sorted, indented
// by four spaces, so that gjson paths written against kubernetes/pods.json
// (status.containerStatuses.#(name=="compute").lastState.terminated.reason,
// spec.containers.#(name=="compute").resources.limits.memory, ...) read
// them alike.
//
// A pod described more than once is kept once, as described last (kubectl
// prints a pod once; a later description is the newer). A row adds the pod
// IP and node its described pod lacks; a row with no description becomes a
// pod with only its name, namespace, labels, node, pod IP and, when STATUS
// is a phase, status.phase: the table names no containers, so a row gives
// no containerStatuses. What kubectl describe does not print (uids,
// creation and deletion times, probes, volumes, annotations, which kubectl
// shortens) is absent; a terminating pod has no phase.
func PodListJSON(pods []Pod, rows []PodRow) ([]byte, error) {
	list := jsonList{APIVersion: "v1", Kind: "List", Items: []jsonPod{}}
	index := map[string]int{} // namespace/name -> item
	for i := range pods {
		p := &pods[i]
		item := podJSON(p)
		key := p.Namespace + "/" + p.Name
		if j, ok := index[key]; ok {
			list.Items[j] = item
			continue
		}
		index[key] = len(list.Items)
		list.Items = append(list.Items, item)
	}
	for _, r := range rows {
		j, ok := index[r.Namespace+"/"+r.Name]
		if !ok && r.Namespace == "" {
			j, ok = findByName(list.Items, r.Name)
		}
		if ok {
			it := &list.Items[j]
			if it.Status.PodIP == "" && r.IP != "" {
				it.Status.PodIP, it.Status.PodIPs = r.IP, []jsonIP{{IP: r.IP}}
			}
			if it.Spec.NodeName == "" {
				it.Spec.NodeName = r.Node
			}
			continue
		}
		item := jsonPod{APIVersion: "v1", Kind: "Pod",
			Metadata: jsonMeta{Name: r.Name, Namespace: r.Namespace, Labels: r.Labels},
			Spec:     jsonSpec{Containers: []jsonContainer{}, NodeName: r.Node},
			Status:   jsonStatus{PodIP: r.IP}}
		if r.IP != "" {
			item.Status.PodIPs = []jsonIP{{IP: r.IP}}
		}
		if phases[r.Status] {
			item.Status.Phase = r.Status
		}
		index[r.Namespace+"/"+r.Name] = len(list.Items)
		list.Items = append(list.Items, item)
	}
	b, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// findByName finds the only item of that name, for rows of a table
// without a NAMESPACE column.
func findByName(items []jsonPod, name string) (int, bool) {
	found := -1
	for i := range items {
		if items[i].Metadata.Name == name {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

func podJSON(p *Pod) jsonPod {
	item := jsonPod{APIVersion: "v1", Kind: "Pod",
		Metadata: jsonMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels},
		Spec: jsonSpec{
			Containers:          containersJSON(p.Containers),
			InitContainers:      containersJSON(p.InitContainers),
			EphemeralContainers: containersJSON(p.EphemeralContainers),
			NodeName:            p.Node,
			ServiceAccountName:  p.ServiceAccount,
		},
		Status: jsonStatus{
			ContainerStatuses:     statusesJSON(p.Containers),
			InitContainerStatuses: statusesJSON(p.InitContainers),
			EphemeralStatuses:     statusesJSON(p.EphemeralContainers),
			HostIP:                p.HostIP,
			Message:               p.Message,
			PodIP:                 p.IP,
			QOSClass:              p.QOSClass,
			Reason:                p.Reason,
		},
	}
	if item.Spec.Containers == nil {
		item.Spec.Containers = []jsonContainer{}
	}
	if phases[p.Status] {
		item.Status.Phase = p.Status
	}
	if p.HostIP != "" {
		item.Status.HostIPs = []jsonIP{{IP: p.HostIP}}
	}
	ips := p.IPs
	if len(ips) == 0 && p.IP != "" {
		ips = []string{p.IP}
	}
	for _, ip := range ips {
		item.Status.PodIPs = append(item.Status.PodIPs, jsonIP{IP: ip})
	}
	for _, c := range p.Conditions {
		item.Status.Conditions = append(item.Status.Conditions, jsonCondition{Type: c.Type, Status: c.Status})
	}
	if !p.StartTime.IsZero() {
		item.Status.StartTime = timeJSON(p.StartTime)
	}
	return item
}

func containersJSON(cs []Container) []jsonContainer {
	var out []jsonContainer
	for i := range cs {
		c := &cs[i]
		jc := jsonContainer{Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args,
			Resources: jsonResources{Limits: c.Limits, Requests: c.Requests}}
		for _, p := range c.Ports {
			jc.Ports = append(jc.Ports, jsonPort{ContainerPort: p.ContainerPort, Name: p.Name, Protocol: p.Protocol})
		}
		for _, e := range c.Env {
			jc.Env = append(jc.Env, envJSON(e))
		}
		for _, e := range c.EnvFrom {
			ref := &jsonLocalRef{Name: e.Name, Optional: optional(e.Optional)}
			je := jsonEnvFrom{Prefix: e.Prefix}
			if e.Kind == "Secret" {
				je.SecretRef = ref
			} else {
				je.ConfigMapRef = ref
			}
			jc.EnvFrom = append(jc.EnvFrom, je)
		}
		out = append(out, jc)
	}
	return out
}

// envJSON is the spec's EnvVar: a value from elsewhere has its source and
// no value (kubectl describe shows the resolved value; the spec holds none).
func envJSON(e EnvVar) jsonEnv {
	s := e.Source
	if s == nil {
		return jsonEnv{Name: e.Name, Value: e.Value}
	}
	src := &jsonEnvSource{}
	switch s.Kind {
	case "fieldRef":
		src.FieldRef = &jsonFieldRef{APIVersion: s.APIVersion, FieldPath: s.FieldPath}
	case "resourceFieldRef":
		src.ResourceFieldRef = &jsonResRef{Resource: s.Resource}
	case "secretKeyRef":
		src.SecretKeyRef = &jsonKeyRef{Key: s.Key, Name: s.Name, Optional: optional(s.Optional)}
	case "configMapKeyRef":
		src.ConfigMapKeyRef = &jsonKeyRef{Key: s.Key, Name: s.Name, Optional: optional(s.Optional)}
	}
	return jsonEnv{Name: e.Name, ValueFrom: src}
}

func optional(b bool) *bool {
	if !b {
		return nil
	}
	return &b
}

func statusesJSON(cs []Container) []jsonContainerStatus {
	var out []jsonContainerStatus
	for i := range cs {
		c := &cs[i]
		if !c.HasStatus {
			continue
		}
		out = append(out, jsonContainerStatus{
			ContainerID:  c.ContainerID,
			Image:        c.Image,
			ImageID:      c.ImageID,
			LastState:    stateJSON(c.LastState),
			Name:         c.Name,
			Ready:        c.Ready != nil && *c.Ready,
			RestartCount: c.RestartCount,
			State:        stateJSON(c.State),
		})
	}
	return out
}

func stateJSON(s State) jsonState {
	switch s.Kind {
	case "Running":
		return jsonState{Running: &jsonRunning{StartedAt: timeJSON(s.StartedAt)}}
	case "Waiting":
		return jsonState{Waiting: &jsonWaiting{Reason: s.Reason}}
	case "Terminated":
		t := &jsonTerminated{Reason: s.Reason, Message: s.Message, Signal: s.Signal,
			StartedAt: timeJSON(s.StartedAt), FinishedAt: timeJSON(s.FinishedAt)}
		if s.ExitCode != nil {
			t.ExitCode = *s.ExitCode
		}
		return jsonState{Terminated: t}
	}
	return jsonState{}
}

// timeJSON renders a time as metav1.Time does: RFC 3339 in UTC, null when zero.
func timeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}
