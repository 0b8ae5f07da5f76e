package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// describe is `kubectl describe pod` output.
func (s *Sim) describe(p *Pod) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	labels := s.labels(p)
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w("Name:             %s\n", p.Name)
	w("Namespace:        %s\n", s.Namespace)
	w("Priority:         0\n")
	w("Service Account:  default\n")
	w("Node:             %s/%s\n", p.Node, p.HostIP)
	w("Start Time:       %s\n", describeTime(p.Created.Add(2*time.Second)))
	for i, k := range keys {
		if i == 0 {
			w("Labels:           %s=%s\n", k, labels[k])
		} else {
			w("                  %s=%s\n", k, labels[k])
		}
	}
	if s.Inst == helm {
		w("Annotations:      prometheus.io/path: /metrics\n")
		w("                  prometheus.io/port: %d\n", metricsPort(p.Component))
		w("                  prometheus.io/scrape: true\n")
	} else {
		w("Annotations:      <none>\n")
	}
	w("Status:           Running\n")
	w("IP:               %s\n", p.IP)
	w("IPs:\n  IP:           %s\n", p.IP)
	if p.Component == "meta" || p.Component == "compute" {
		w("Controlled By:  StatefulSet/%s\n", p.Workload)
	} else {
		w("Controlled By:  ReplicaSet/%s-%s\n", p.Workload, p.Rev)
	}
	w("Containers:\n  %s:\n", p.container())
	cur := p.current()
	w("    Container ID:  containerd://%s\n", hexID(fmt.Sprintf("%s/%s/%d", s.Dir, p.Name, len(p.Runs)-1), 64))
	w("    Image:         %s\n", s.image())
	w("    Image ID:      %s\n", s.imageID())
	var ports []string
	var hostPorts []string
	for _, pt := range s.ports(p.Component) {
		ports = append(ports, fmt.Sprintf("%d/TCP (%s)", pt["containerPort"], pt["name"]))
		hostPorts = append(hostPorts, fmt.Sprintf("0/TCP (%s)", pt["name"]))
	}
	w("    Ports:         %s\n", strings.Join(ports, ", "))
	w("    Host Ports:    %s\n", strings.Join(hostPorts, ", "))
	w("    Command:\n      /risingwave/bin/risingwave\n")
	w("    Args:\n      %s-node\n", p.Component)
	term := func(label string, r run) {
		w("    %s     Terminated\n", label)
		w("      Reason:       %s\n", r.reason)
		w("      Exit Code:    %d\n", r.exit)
		w("      Started:      %s\n", describeTime(r.start))
		w("      Finished:     %s\n", describeTime(r.end))
	}
	if cur.end.IsZero() {
		w("    State:          Running\n")
		w("      Started:      %s\n", describeTime(cur.start))
		if len(p.Runs) > 1 {
			term("Last State:", p.Runs[len(p.Runs)-2])
		}
		w("    Ready:          True\n")
	} else {
		w("    State:          Waiting\n")
		w("      Reason:       %s\n", p.Waiting)
		term("Last State:", cur)
		w("    Ready:          False\n")
	}
	w("    Restart Count:  %d\n", p.restarts())
	w("    Limits:\n      cpu:     %d\n      memory:  %s\n", p.CPU, p.Mem)
	w("    Requests:\n      cpu:     %d\n      memory:  %s\n", p.CPU, p.Mem)
	if p.Liveness {
		w("    Liveness:   tcp-socket :%s delay=5s timeout=5s period=10s #success=1 #failure=3\n", s.svcPortName())
	}
	w("    Readiness:  tcp-socket :%s delay=2s timeout=1s period=10s #success=1 #failure=3\n", s.svcPortName())
	w("    Environment:\n")
	env := s.env(p)
	width := 0
	for _, e := range env {
		width = max(width, len(e.name))
	}
	for _, e := range env {
		pad := strings.Repeat(" ", width-len(e.name)+2)
		switch {
		case strings.HasPrefix(e.ref, "field:"):
			path, val := strings.TrimPrefix(e.ref, "field:"), ""
			if path == "metadata.name" {
				val = p.Name
			}
			w("      %s:%s%s (v1:%s)\n", e.name, pad, val, path)
		case strings.HasPrefix(e.ref, "secret:"):
			name, key, _ := strings.Cut(strings.TrimPrefix(e.ref, "secret:"), "/")
			w("      %s:%s<set to the key '%s' in secret '%s'>  Optional: false\n", e.name, pad, key, name)
		default:
			w("      %s:%s%s\n", e.name, pad, e.value)
		}
	}
	if s.Inst != manual {
		w("    Mounts:\n      /risingwave/config from risingwave-config (ro)\n")
	} else {
		w("    Mounts:         <none>\n")
	}
	w("Conditions:\n  Type                        Status\n")
	rs := "True "
	if !cur.end.IsZero() {
		rs = "False "
	}
	w("  PodReadyToStartContainers   True \n  Initialized                 True \n")
	w("  Ready                       %s\n  ContainersReady             %s\n  PodScheduled                True \n", rs, rs)
	if s.Inst != manual {
		w("Volumes:\n  risingwave-config:\n    Type:        ConfigMap (a volume populated by a ConfigMap)\n")
		w("    Name:        %s-config\n    Optional:    false\n", s.fullname())
	} else {
		w("Volumes:                      <none>\n")
	}
	w("QoS Class:       Guaranteed\nNode-Selectors:  <none>\n")
	w("Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n")
	w("                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n")
	var evs []kevent
	for _, e := range s.events {
		if e.kind == "Pod" && e.name == p.Name && s.Done.Sub(e.last) < time.Hour {
			evs = append(evs, e)
		}
	}
	if len(evs) == 0 {
		w("Events:          <none>\n")
		return b.String()
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].first.Before(evs[j].first) })
	w("Events:\n")
	rows := [][]string{{"Type", "Reason", "Age", "From", "Message"}, {"----", "------", "----", "----", "-------"}}
	for _, e := range evs {
		a := age(s.Done.Sub(e.last))
		if e.count > 1 {
			a = fmt.Sprintf("%s (x%d over %s)", a, e.count, age(s.Done.Sub(e.first)))
		}
		rows = append(rows, []string{e.typ, e.reason, a, e.source, e.message})
	}
	widths := make([]int, 4)
	for _, r := range rows {
		for i := 0; i < 4; i++ {
			widths[i] = max(widths[i], len(r[i]))
		}
	}
	for _, r := range rows {
		b.WriteString("  ")
		for i := 0; i < 4; i++ {
			b.WriteString(r[i] + strings.Repeat(" ", widths[i]-len(r[i])+2))
		}
		b.WriteString(r[4] + "\n")
	}
	return b.String()
}
