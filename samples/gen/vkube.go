package main

// Kubernetes input of the variety samples. pods.json and the other kubectl
// JSON lists are written as for the regular samples; the text customers
// paste instead is written exactly as kubectl prints it:
//   - `kubectl describe pod(s)`: describePod and the functions it calls in
//     k8s.io/kubectl pkg/describe/describe.go (v0.37.2 :773 describePod,
//     :1785 describeContainers, :1852 describeContainerPorts with port names,
//     :1917 describeContainerState, :1971 describeContainerEnvVars, :2094
//     describeStatus, :4166 DescribeEvents with the field path before the
//     message; v0.28.0 :784, :1816 ports without names, :1999 DescribeProbe
//     `#success=`, :4258 events without the field path) through the same
//     text/tabwriter (0, 8, 2, ' ', 0) and prefix writer; several pods joined
//     with "\n\n" (pkg/cmd/describe/describe.go:233).
//   - `kubectl get pods`: the API server's printPod (kubernetes
//     pkg/printers/internalversion/printers.go:967) aligned by cli-runtime's
//     tabwriter (pkg/printers/tabwriter.go:25-31: 6, 4, 3, ' ').
// Ages are duration.HumanDuration (apimachinery pkg/util/duration) of the
// time since, at the moment the text was taken. See
// analyze/testdata/shapes/kubetext/ for fixtures of every shape.

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// humanDuration is apimachinery's duration.HumanDuration.
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", minutes)
		}
		return fmt.Sprintf("%dm%ds", minutes, s)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	if hours < 8 {
		m := int(d/time.Minute) % 60
		if m == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh%dm", hours, m)
	} else if hours < 48 {
		return fmt.Sprintf("%dh", hours)
	} else if hours < 24*8 {
		h := hours % 24
		if h == 0 {
			return fmt.Sprintf("%dd", hours/24)
		}
		return fmt.Sprintf("%dd%dh", hours/24, h)
	} else if hours < 24*365*2 {
		return fmt.Sprintf("%dd", hours/24)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// prefixWriter is kubectl describe's PrefixWriter: two spaces a level.
type prefixWriter struct{ tw *tabwriter.Writer }

func (w prefixWriter) write(level int, format string, a ...any) {
	fmt.Fprintf(w.tw, strings.Repeat("  ", level)+format, a...)
}

// rfc1123z is how describe prints a time.
func rfc1123z(t time.Time) string { return t.UTC().Format(time.RFC1123Z) }

// describeV writes `kubectl describe pod` of p as kubectl `ver` ("1.37" or
// "1.28") prints it, at now.
func (s *Sim) describeV(p *Pod, ver string, now time.Time) string {
	since := func(t time.Time) time.Duration { return now.Sub(t.Truncate(time.Second)) } // the API keeps seconds
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	w := prefixWriter{tw}
	v137 := ver != "1.28"
	w.write(0, "Name:\t%s\n", p.Name)
	w.write(0, "Namespace:\t%s\n", s.Namespace)
	w.write(0, "Priority:\t%d\n", 0)
	w.write(0, "Service Account:\t%s\n", "default")
	w.write(0, "Node:\t%s\n", p.Node+"/"+p.HostIP)
	w.write(0, "Start Time:\t%s\n", rfc1123z(p.Created.Add(2*time.Second)))
	labels := s.labels(p)
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.write(0, "Labels:\t")
	for i, k := range keys {
		if i > 0 {
			w.write(0, "\t")
		}
		w.write(0, "%s=%s\n", k, labels[k])
	}
	w.write(0, "Annotations:\t")
	if s.Inst == helm {
		w.write(0, "prometheus.io/path: /metrics\n")
		w.write(0, "\tprometheus.io/port: %d\n", metricsPort(p.Component))
		w.write(0, "\tprometheus.io/scrape: true\n")
	} else {
		w.write(0, "<none>\n")
	}
	w.write(0, "Status:\t%s\n", "Running")
	w.write(0, "IP:\t%s\n", p.IP)
	w.write(0, "IPs:\n")
	w.write(1, "IP:\t%s\n", p.IP)
	if p.Component == "meta" || p.Component == "compute" {
		w.write(0, "Controlled By:\t%s\n", "StatefulSet/"+p.Workload)
	} else {
		w.write(0, "Controlled By:\t%s\n", "ReplicaSet/"+p.Workload+"-"+p.Rev)
	}
	w.write(0, "Containers:\n")
	w.write(1, "%s:\n", p.container())
	cur := p.current()
	w.write(2, "Container ID:\t%s\n", "containerd://"+hexID(fmt.Sprintf("%s/%s/%d", s.Dir, p.Name, len(p.Runs)-1), 64))
	w.write(2, "Image:\t%s\n", s.image())
	w.write(2, "Image ID:\t%s\n", s.imageID())
	var ports, hostPorts []string
	for _, pt := range s.ports(p.Component) {
		if v137 {
			ports = append(ports, fmt.Sprintf("%d/TCP (%s)", pt["containerPort"], pt["name"]))
			hostPorts = append(hostPorts, fmt.Sprintf("0/TCP (%s)", pt["name"]))
		} else {
			ports = append(ports, fmt.Sprintf("%d/TCP", pt["containerPort"]))
			hostPorts = append(hostPorts, "0/TCP")
		}
	}
	w.write(2, "Ports:\t%s\n", strings.Join(ports, ", "))
	w.write(2, "Host Ports:\t%s\n", strings.Join(hostPorts, ", "))
	w.write(2, "Command:\n")
	w.write(3, "%s\n", "/risingwave/bin/risingwave")
	w.write(2, "Args:\n")
	w.write(3, "%s\n", p.Component+"-node")
	term := func(label string, r run) {
		w.write(2, "%s:\tTerminated\n", label)
		w.write(3, "Reason:\t%s\n", r.reason)
		w.write(3, "Exit Code:\t%d\n", r.exit)
		w.write(3, "Started:\t%s\n", rfc1123z(r.start))
		w.write(3, "Finished:\t%s\n", rfc1123z(r.end))
	}
	ready := "True"
	if cur.end.IsZero() {
		w.write(2, "State:\tRunning\n")
		w.write(3, "Started:\t%v\n", rfc1123z(cur.start))
		if len(p.Runs) > 1 {
			term("Last State", p.Runs[len(p.Runs)-2])
		}
	} else {
		w.write(2, "State:\tWaiting\n")
		w.write(3, "Reason:\t%s\n", p.Waiting)
		term("Last State", cur)
		ready = "False"
	}
	w.write(2, "Ready:\t%v\n", ready)
	w.write(2, "Restart Count:\t%d\n", p.restarts())
	w.write(2, "Limits:\n")
	w.write(3, "%s:\t%s\n", "cpu", strconv.Itoa(p.CPU))
	w.write(3, "%s:\t%s\n", "memory", p.Mem)
	w.write(2, "Requests:\n")
	w.write(3, "%s:\t%s\n", "cpu", strconv.Itoa(p.CPU))
	w.write(3, "%s:\t%s\n", "memory", p.Mem)
	probe := func(delay, timeout int) string {
		if v137 {
			return fmt.Sprintf("tcp-socket :%s delay=%ds timeout=%ds period=10s successThreshold=1 failureThreshold=3", s.svcPortName(), delay, timeout)
		}
		return fmt.Sprintf("tcp-socket :%s delay=%ds timeout=%ds period=10s #success=1 #failure=3", s.svcPortName(), delay, timeout)
	}
	if p.Liveness {
		w.write(2, "Liveness:\t%s\n", probe(5, 5))
	}
	w.write(2, "Readiness:\t%s\n", probe(2, 1))
	w.write(2, "Environment:\n")
	for _, e := range s.env(p) {
		switch {
		case strings.HasPrefix(e.ref, "field:"):
			path, val := strings.TrimPrefix(e.ref, "field:"), ""
			if path == "metadata.name" {
				val = p.Name // status.* cannot be resolved from the pod by describe: empty
			}
			w.write(3, "%s:\t%s (%s:%s)\n", e.name, val, "v1", path)
		case strings.HasPrefix(e.ref, "secret:"):
			name, key, _ := strings.Cut(strings.TrimPrefix(e.ref, "secret:"), "/")
			w.write(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.name, key, name, false)
		default:
			w.write(3, "%s:\t%s\n", e.name, e.value)
		}
	}
	if s.Inst != manual {
		w.write(2, "Mounts:\n")
		w.write(3, "%s from %s (%s)\n", "/risingwave/config", "risingwave-config", "ro")
	} else {
		w.write(2, "Mounts:\t<none>\n")
	}
	w.write(0, "Conditions:\n  Type\tStatus\n")
	rs := "True"
	if !cur.end.IsZero() {
		rs = "False"
	}
	conds := [][2]string{{"Initialized", "True"}, {"Ready", rs}, {"ContainersReady", rs}, {"PodScheduled", "True"}}
	if v137 {
		conds = append([][2]string{{"PodReadyToStartContainers", "True"}}, conds...)
	}
	for _, c := range conds {
		w.write(1, "%v \t%v \n", c[0], c[1])
	}
	if s.Inst != manual {
		w.write(0, "Volumes:\n")
		w.write(1, "%v:\n", "risingwave-config")
		w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%v\n    Optional:\t%v\n", s.fullname()+"-config", false)
	} else {
		w.write(0, "Volumes:\t<none>\n")
	}
	w.write(0, "QoS Class:\t%s\n", "Guaranteed")
	w.write(0, "Node-Selectors:\t<none>\n")
	w.write(0, "Tolerations:\t")
	w.write(0, "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n")
	w.write(0, "\tnode.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n")
	var evs []kevent
	for _, e := range s.events {
		if e.kind == "Pod" && e.name == p.Name && since(e.last) < time.Hour { // events live an hour
			evs = append(evs, e)
		}
	}
	if len(evs) == 0 {
		w.write(0, "Events:\t<none>\n")
		tw.Flush()
		return buf.String()
	}
	tw.Flush()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].last.Before(evs[j].last) })
	w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	w.write(1, "----\t------\t----\t----\t-------\n")
	for _, e := range evs {
		interval := humanDuration(since(e.first))
		if e.count > 1 {
			interval = fmt.Sprintf("%s (x%d over %s)", humanDuration(since(e.last)), e.count, humanDuration(since(e.first)))
		}
		msg := strings.TrimSpace(e.message)
		if v137 && e.fieldPath != "" {
			msg = e.fieldPath + ": " + msg
		}
		w.write(1, "%v\t%v\t%s\t%v\t%v\n", e.typ, e.reason, interval, e.source, msg)
	}
	tw.Flush()
	return buf.String()
}

// getPodsTable is `kubectl get pods` as the API server prints the pods at now.
func (s *Sim) getPodsTable(pods []*Pod, now time.Time) string {
	since := func(t time.Time) time.Duration { return now.Sub(t.Truncate(time.Second)) }
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 6, 4, 3, ' ', 0)
	fmt.Fprintf(tw, "NAME\tREADY\tSTATUS\tRESTARTS\tAGE\n")
	for _, p := range pods {
		cur := p.current()
		ready, reason := "1/1", "Running"
		if !cur.end.IsZero() {
			ready, reason = "0/1", p.Waiting
		}
		restarts := strconv.Itoa(p.restarts())
		if p.restarts() > 0 {
			last := p.Runs[len(p.Runs)-2].end
			if !cur.end.IsZero() {
				last = cur.end
			}
			restarts = fmt.Sprintf("%d (%s ago)", p.restarts(), humanDuration(since(last)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, ready, reason, restarts, humanDuration(since(p.Created)))
	}
	tw.Flush()
	return buf.String()
}

// rwPodsByName are the RisingWave pods in the order the API lists them.
func (s *Sim) rwPodsByName() []*Pod {
	var out []*Pod
	for _, p := range s.Pods {
		if p.Other == "" {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// writeVarietyKube writes the sample's Kubernetes input.
func (s *Sim) writeVarietyKube(b *bundleWriter) {
	at := s.Done
	switch s.Shape.Kube {
	case kubeDescribe:
		var parts []string
		for _, p := range s.rwPodsByName() {
			parts = append(parts, s.describeV(p, s.Shape.Kubectl, at))
		}
		b.writeString("kubernetes/describe/pods.txt", "kubectl describe pods -n "+s.Namespace, at, at.Add(640*time.Millisecond),
			strings.Join(parts, "\n\n"))
		return
	case kubeTable:
		b.writeString("kubernetes/pods.txt", "kubectl get pods -n "+s.Namespace, at, at.Add(120*time.Millisecond), s.getPodsTable(s.rwPodsByName(), at))
		for _, p := range s.rwPodsByName() {
			if !p.current().end.IsZero() {
				t := at.Add(2 * time.Second)
				b.writeString(bundle.DescribePath(p.Name), "kubectl describe pod "+p.Name+" -n "+s.Namespace, t, t.Add(95*time.Millisecond), s.describeV(p, s.Shape.Kubectl, t))
			}
		}
		return
	}
	// pods.json and events.json only: the describe text, workloads and
	// services the collector also takes are left out (the rules read pods;
	// the describe shapes are in the variants that have only text).
	saved := s.Handmade
	s.Handmade = true
	s.writeKube(b)
	s.Handmade = saved
}
