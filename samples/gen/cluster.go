package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// obj is a Kubernetes object as kubectl prints it: encoding/json sorts map
// keys, as kubectl's JSON printer does.
type obj = map[string]any

// kevent is one Kubernetes event.
type kevent struct {
	kind, name string // involved object
	fieldPath  string
	reason     string
	typ        string // Normal, Warning
	message    string
	first      time.Time
	last       time.Time
	count      int
	source     string // kubelet, default-scheduler, statefulset-controller
}

// event records a Kubernetes event about a pod's container.
func (s *Sim) event(p *Pod, reason, typ, msg string, first, last time.Time, count int) {
	src := "kubelet"
	fp := "spec.containers{" + p.container() + "}"
	if reason == "Scheduled" {
		src, fp = "default-scheduler", ""
	}
	s.events = append(s.events, kevent{kind: "Pod", name: p.Name, fieldPath: fp, reason: reason, typ: typ,
		message: msg, first: first, last: last, count: count, source: src})
}

// container is the pod's RisingWave container name (= its role).
func (p *Pod) container() string {
	if p.Other != "" {
		return p.Other
	}
	return p.Component
}

// labels are the pod's labels for the cluster's installer.
func (s *Sim) labels(p *Pod) map[string]string {
	l := map[string]string{}
	if p.Other != "" {
		l["app.kubernetes.io/instance"] = s.Release
		l["app.kubernetes.io/name"] = p.Other
		l["app.kubernetes.io/managed-by"] = "Helm"
		l["helm.sh/chart"] = "etcd-8.5.11"
		l["controller-revision-hash"] = p.Rev
		l["statefulset.kubernetes.io/pod-name"] = p.Name
		return l
	}
	switch s.Inst {
	case operator:
		l["risingwave/component"] = p.Component
		l["risingwave/name"] = s.Cluster
		l["risingwave/generation"] = "3"
		if p.Component == "meta" {
			l["risingwave/meta-role"] = "leader"
		}
	case helm:
		l["app.kubernetes.io/component"] = p.Component
		l["app.kubernetes.io/instance"] = s.Release
		l["app.kubernetes.io/managed-by"] = "Helm"
		l["app.kubernetes.io/name"] = "risingwave"
		l["app.kubernetes.io/version"] = s.Version.Tag
		l["helm.sh/chart"] = s.Chart
		l["risingwave/component"] = p.Component
		l["risingwave/name"] = s.fullname()
		l["risingwave.risingwavelabs.com/component"] = p.Component
	case helmLegacy:
		l["app.kubernetes.io/component"] = p.Component
		l["app.kubernetes.io/instance"] = s.Release
		l["app.kubernetes.io/managed-by"] = "Helm"
		l["app.kubernetes.io/name"] = "risingwave"
		l["app.kubernetes.io/version"] = s.Version.Tag
		l["helm.sh/chart"] = s.Chart
		l["risingwave.risingwavelabs.com/component"] = p.Component
	case manual:
		l["app"] = s.fullname() + "-" + p.Component
		l["app.kubernetes.io/component"] = p.Component
		l["app.kubernetes.io/name"] = "risingwave"
	}
	if p.Component == "meta" || p.Component == "compute" || p.Other != "" {
		l["controller-revision-hash"] = p.Rev
		l["statefulset.kubernetes.io/pod-name"] = p.Name
		l["apps.kubernetes.io/pod-index"] = strconv.Itoa(p.Index)
	} else {
		l["pod-template-hash"] = p.Rev
	}
	return l
}

// image is the container image.
func (s *Sim) image() string {
	if s.Inst == helm || s.Inst == helmLegacy {
		return "ghcr.io/risingwavelabs/risingwave:" + s.Version.Tag
	}
	return "risingwavelabs/risingwave:" + s.Version.Tag
}

func (s *Sim) imageID() string {
	repo := strings.TrimSuffix(s.image(), ":"+s.Version.Tag)
	if !strings.HasPrefix(repo, "ghcr.io") {
		repo = "docker.io/" + repo
	}
	return repo + "@sha256:" + hexID("image:"+s.Version.Tag, 64)
}

// portNames are the installer's names for the service port.
func (s *Sim) svcPortName() string {
	if s.Inst == operator {
		return "service"
	}
	return "svc"
}

// ports are a component's container ports.
func (s *Sim) ports(comp string) []obj {
	svc := s.svcPortName()
	port := func(name string, n int) obj {
		return obj{"containerPort": n, "name": name, "protocol": "TCP"}
	}
	switch comp {
	case "meta":
		return []obj{port(svc, 5690), port("dashboard", 5691), port("metrics", 1250)}
	case "compute":
		return []obj{port(svc, 5688), port("metrics", 1222)}
	case "frontend":
		return []obj{port(svc, 4567), port("metrics", 8080)}
	default:
		return []obj{port(svc, 6660), port("metrics", 1260)}
	}
}

// metricsPort is the component's metrics port.
func metricsPort(comp string) int {
	switch comp {
	case "meta":
		return 1250
	case "compute":
		return 1222
	case "frontend":
		return 8080
	}
	return 1260
}

type envVar struct {
	name, value string
	ref         string // valueFrom: "field:status.podIP" or "secret:<name>/<key>"
}

// env is a container's environment.
func (s *Sim) env(p *Pod) []envVar {
	if p.Other != "" {
		return []envVar{{name: "ETCD_ON_K8S", value: "yes"}, {name: "ETCD_DATA_DIR", value: "/bitnami/etcd/data"}}
	}
	fn := s.fullname()
	metaAddr := "load-balance+http://" + fn + "-meta:5690"
	if s.Inst != operator {
		metaAddr = "load-balance+http://" + fn + "-meta-headless:5690"
	}
	state := "hummock+s3://" + s.Bucket
	if s.Cloud == "gcp" {
		state = "hummock+gcs://" + s.Bucket
	}
	e := []envVar{
		{name: "POD_IP", ref: "field:status.podIP"},
		{name: "POD_NAME", ref: "field:metadata.name"},
		{name: "RUST_BACKTRACE", value: "1"},
		{name: "RW_CONFIG_PATH", value: "/risingwave/config/risingwave.toml"},
	}
	if s.Logs.JSON {
		e = append(e, envVar{name: "RISINGWAVE_CLOUD", value: "true"})
	}
	if s.Inst == manual {
		e = e[:2]
	}
	svcHost := func(port int) string {
		if s.Inst == operator {
			return fmt.Sprintf("$(POD_NAME).%s:%d", p.Workload, port)
		}
		return fmt.Sprintf("$(POD_NAME).%s-headless.%s.svc:%d", p.Workload, s.Namespace, port)
	}
	switch p.Component {
	case "meta":
		e = append(e,
			envVar{name: "RW_LISTEN_ADDR", value: "0.0.0.0:5690"},
			envVar{name: "RW_ADVERTISE_ADDR", value: svcHost(5690)},
			envVar{name: "RW_DASHBOARD_HOST", value: "0.0.0.0:5691"},
			envVar{name: "RW_PROMETHEUS_HOST", value: "0.0.0.0:1250"},
			envVar{name: "RW_STATE_STORE", value: state},
			envVar{name: "RW_DATA_DIRECTORY", value: "hummock_001"},
		)
		switch s.MetaStore {
		case "etcd":
			e = append(e, envVar{name: "RW_BACKEND", value: "etcd"},
				envVar{name: "RW_ETCD_ENDPOINTS", value: fn + "-etcd:2379"})
		case "sqlite":
			e = append(e, envVar{name: "RW_BACKEND", value: "sqlite"},
				envVar{name: "RW_SQL_ENDPOINT", value: "/risingwave/meta/risingwave.db"})
		default:
			e = append(e, envVar{name: "RW_BACKEND", value: "postgres"},
				envVar{name: "RW_SQL_ENDPOINT", value: s.Cluster + "-metastore.postgres.svc:5432"},
				envVar{name: "RW_SQL_DATABASE", value: "risingwave"},
				envVar{name: "RW_POSTGRES_USER", ref: "secret:" + s.Cluster + "-metastore-credentials/username"},
				envVar{name: "RW_POSTGRES_PASSWORD", ref: "secret:" + s.Cluster + "-metastore-credentials/password"})
		}
	case "compute":
		e = append(e,
			envVar{name: "RW_LISTEN_ADDR", value: "0.0.0.0:5688"},
			envVar{name: "RW_ADVERTISE_ADDR", value: svcHost(5688)},
			envVar{name: "RW_META_ADDR", value: metaAddr},
			envVar{name: "RW_PROMETHEUS_LISTENER_ADDR", value: "0.0.0.0:1222"},
			envVar{name: "RW_STATE_STORE", value: state},
			envVar{name: "RW_DATA_DIRECTORY", value: "hummock_001"},
			envVar{name: "RW_PARALLELISM", value: strconv.Itoa(p.CPU)},
		)
		if p.TotalMem != "" {
			e = append(e, envVar{name: "RW_TOTAL_MEMORY_BYTES", value: p.TotalMem})
		}
		if s.Debug {
			e = append(e, envVar{name: "RW_METRICS_LEVEL", value: "debug"})
		}
	case "frontend":
		e = append(e,
			envVar{name: "RW_LISTEN_ADDR", value: "0.0.0.0:4567"},
			envVar{name: "RW_ADVERTISE_ADDR", value: "$(POD_IP):4567"},
			envVar{name: "RW_META_ADDR", value: metaAddr},
			envVar{name: "RW_PROMETHEUS_LISTENER_ADDR", value: "0.0.0.0:8080"},
			envVar{name: "RW_HEALTH_CHECK_LISTENER_ADDR", value: "0.0.0.0:6786"},
		)
	case "compactor":
		e = append(e,
			envVar{name: "RW_LISTEN_ADDR", value: "0.0.0.0:6660"},
			envVar{name: "RW_ADVERTISE_ADDR", value: "$(POD_IP):6660"},
			envVar{name: "RW_META_ADDR", value: metaAddr},
			envVar{name: "RW_PROMETHEUS_LISTENER_ADDR", value: "0.0.0.0:1260"},
			envVar{name: "RW_COMPACTOR_TOTAL_MEMORY_BYTES", value: strconv.FormatInt(int64(p.MemBytes), 10)},
		)
	}
	if s.Inst == helm || s.Inst == helmLegacy {
		if p.Component != "frontend" {
			e = append(e,
				envVar{name: "AWS_ACCESS_KEY_ID", ref: "secret:" + fn + "-s3/AWS_ACCESS_KEY_ID"},
				envVar{name: "AWS_SECRET_ACCESS_KEY", ref: "secret:" + fn + "-s3/AWS_SECRET_ACCESS_KEY"},
				envVar{name: "AWS_REGION", value: "eu-west-1"})
		}
	}
	return e
}

func (e envVar) json() obj {
	o := obj{"name": e.name}
	switch {
	case strings.HasPrefix(e.ref, "field:"):
		o["valueFrom"] = obj{"fieldRef": obj{"apiVersion": "v1", "fieldPath": strings.TrimPrefix(e.ref, "field:")}}
	case strings.HasPrefix(e.ref, "secret:"):
		name, key, _ := strings.Cut(strings.TrimPrefix(e.ref, "secret:"), "/")
		o["valueFrom"] = obj{"secretKeyRef": obj{"key": key, "name": name}}
	default:
		o["value"] = e.value
	}
	return o
}

// containerSpec is the pod spec's container.
func (s *Sim) containerSpec(p *Pod) obj {
	var env []obj
	for _, e := range s.env(p) {
		env = append(env, e.json())
	}
	res := obj{
		"limits":   obj{"cpu": strconv.Itoa(p.CPU), "memory": p.Mem},
		"requests": obj{"cpu": strconv.Itoa(p.CPU), "memory": p.Mem},
	}
	if p.Other != "" {
		return obj{
			"env": env, "image": "docker.io/bitnami/etcd:3.5.9-debian-11-r24", "imagePullPolicy": "IfNotPresent",
			"name": p.Other, "ports": []obj{{"containerPort": 2379, "name": "client", "protocol": "TCP"}},
			"resources": res, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
		}
	}
	c := obj{
		"args":                     []string{p.Component + "-node"},
		"command":                  []string{"/risingwave/bin/risingwave"},
		"env":                      env,
		"image":                    s.image(),
		"imagePullPolicy":          "IfNotPresent",
		"name":                     p.Component,
		"ports":                    s.ports(p.Component),
		"resources":                res,
		"terminationMessagePath":   "/dev/termination-log",
		"terminationMessagePolicy": "File",
		"readinessProbe": obj{"failureThreshold": 3, "initialDelaySeconds": 2, "periodSeconds": 10,
			"successThreshold": 1, "tcpSocket": obj{"port": s.svcPortName()}, "timeoutSeconds": 1},
	}
	if s.Inst != manual {
		c["volumeMounts"] = []obj{{"mountPath": "/risingwave/config", "name": "risingwave-config", "readOnly": true}}
	}
	if p.Liveness {
		c["livenessProbe"] = obj{"failureThreshold": 3, "initialDelaySeconds": 5, "periodSeconds": 10,
			"successThreshold": 1, "tcpSocket": obj{"port": s.svcPortName()}, "timeoutSeconds": 5}
	}
	return c
}

// containerStatus is the pod status's container status.
func (s *Sim) containerStatus(p *Pod) obj {
	cur := p.current()
	img := s.image()
	imgID := s.imageID()
	if p.Other != "" {
		img = "docker.io/bitnami/etcd:3.5.9-debian-11-r24"
		imgID = "docker.io/bitnami/etcd@sha256:" + hexID("etcd", 64)
	}
	cid := func(i int) string { return "containerd://" + hexID(fmt.Sprintf("%s/%s/%d", s.Dir, p.Name, i), 64) }
	st := obj{
		"containerID":  cid(len(p.Runs) - 1),
		"image":        img,
		"imageID":      imgID,
		"name":         p.container(),
		"restartCount": p.restarts(),
		"lastState":    obj{},
	}
	term := func(i int) obj {
		r := p.Runs[i]
		return obj{"terminated": obj{"containerID": cid(i), "exitCode": r.exit, "finishedAt": k8sTime(r.end),
			"reason": r.reason, "startedAt": k8sTime(r.start)}}
	}
	if cur.end.IsZero() {
		st["state"] = obj{"running": obj{"startedAt": k8sTime(cur.start)}}
		st["ready"] = true
		st["started"] = true
		if len(p.Runs) > 1 {
			st["lastState"] = term(len(p.Runs) - 2)
		}
	} else {
		backoff := "5m0s"
		if n := p.restarts(); n < 5 {
			backoff = (time.Duration(10<<n) * time.Second).String()
		}
		st["state"] = obj{"waiting": obj{"reason": p.Waiting, "message": fmt.Sprintf(
			"back-off %s restarting failed container=%s pod=%s_%s(%s)", backoff, p.container(), p.Name, s.Namespace, uuidFor(s.Dir+p.Name))}}
		st["ready"] = false
		st["started"] = false
		st["lastState"] = term(len(p.Runs) - 1)
		delete(st, "containerID")
		st["containerID"] = cid(len(p.Runs) - 1)
	}
	return st
}

// podObject is the pod as kubectl get pods -o json prints it.
func (s *Sim) podObject(p *Pod) obj {
	labels := s.labels(p)
	ready := p.current().end.IsZero()
	readyStatus := "True"
	readyTime := p.current().start.Add(11 * time.Second)
	if !ready {
		readyStatus = "False"
		readyTime = p.current().end
	}
	cond := func(typ, status string, t time.Time) obj {
		c := obj{"lastProbeTime": nil, "lastTransitionTime": k8sTime(t), "status": status, "type": typ}
		if status == "False" {
			c["message"] = "containers with unready status: [" + p.container() + "]"
			c["reason"] = "ContainersNotReady"
		}
		return c
	}
	sched := p.Created.Add(2 * time.Second)
	owner := "StatefulSet"
	ownerName := p.Workload
	ownerUID := uuidFor(s.Dir + "sts/" + p.Workload)
	if p.Component == "frontend" || p.Component == "compactor" {
		owner = "ReplicaSet"
		ownerName = p.Workload + "-" + p.Rev
		ownerUID = uuidFor(s.Dir + "rs/" + ownerName)
	}
	meta := obj{
		"creationTimestamp": k8sTime(p.Created),
		"generateName":      strings.TrimSuffix(p.Name, p.Name[strings.LastIndex(p.Name, "-")+1:]),
		"labels":            labels,
		"name":              p.Name,
		"namespace":         s.Namespace,
		"ownerReferences": []obj{{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true,
			"kind": owner, "name": ownerName, "uid": ownerUID}},
		"resourceVersion": strconv.Itoa(48200000 + int(s.rnd.Int64N(90000))),
		"uid":             uuidFor(s.Dir + p.Name),
	}
	if s.Inst == helm && p.Other == "" {
		meta["annotations"] = map[string]string{"prometheus.io/path": "/metrics",
			"prometheus.io/port": strconv.Itoa(metricsPort(p.Component)), "prometheus.io/scrape": "true"}
	}
	if s.Inst == operator && p.Other == "" {
		meta["annotations"] = map[string]string{"risingwave/restart-at": ""}
		delete(meta, "annotations")
	}
	spec := obj{
		"containers":                    []obj{s.containerSpec(p)},
		"dnsPolicy":                     "ClusterFirst",
		"enableServiceLinks":            false,
		"hostname":                      p.Name,
		"nodeName":                      p.Node,
		"preemptionPolicy":              "PreemptLowerPriority",
		"priority":                      0,
		"restartPolicy":                 "Always",
		"schedulerName":                 "default-scheduler",
		"securityContext":               obj{},
		"serviceAccount":                "default",
		"serviceAccountName":            "default",
		"terminationGracePeriodSeconds": 30,
		"tolerations": []obj{
			{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
			{"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
		},
	}
	if owner == "StatefulSet" {
		sub := p.Workload
		if s.Inst != operator {
			sub = p.Workload + "-headless"
		}
		spec["subdomain"] = sub
	} else {
		delete(spec, "hostname")
	}
	if s.Inst != manual && p.Other == "" {
		spec["volumes"] = []obj{{"configMap": obj{"defaultMode": 420, "items": []obj{{"key": "risingwave.toml", "path": "risingwave.toml"}},
			"name": s.fullname() + "-config"}, "name": "risingwave-config"}}
	}
	status := obj{
		"conditions": []obj{
			cond("PodReadyToStartContainers", "True", sched),
			cond("Initialized", "True", sched),
			cond("Ready", readyStatus, readyTime),
			cond("ContainersReady", readyStatus, readyTime),
			cond("PodScheduled", "True", p.Created),
		},
		"containerStatuses": []obj{s.containerStatus(p)},
		"hostIP":            p.HostIP,
		"hostIPs":           []obj{{"ip": p.HostIP}},
		"phase":             "Running",
		"podIP":             p.IP,
		"podIPs":            []obj{{"ip": p.IP}},
		"qosClass":          "Guaranteed",
		"startTime":         k8sTime(sched),
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
}

// writeList streams a kubectl List: each item is encoded on its own, so a
// scaled-up bundle never holds the whole file in memory.
func writeList(f *file, n int, item func(i int) any) {
	f.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
	for i := 0; i < n; i++ {
		b, err := json.MarshalIndent(item(i), "        ", "    ")
		if err != nil {
			panic(err)
		}
		if i > 0 {
			f.WriteString(",")
		}
		f.WriteString("\n        ")
		f.Write(b)
	}
	if n > 0 {
		f.WriteString("\n    ")
	}
	f.WriteString("],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
}

// kubectl is the kubectl command line for a namespaced resource.
func (s *Sim) kubectl(args string) string {
	return "kubectl " + args + " -n " + s.Namespace + " -o json"
}

// writeKube writes kubernetes/*.json and the describe files.
func (s *Sim) writeKube(b *bundleWriter) {
	at := s.Done
	f := b.create(bundle.KubePath("pods"), s.kubectl("get pods"), at, at.Add(180*time.Millisecond))
	writeList(f, len(s.Pods), func(i int) any { return s.podObject(s.Pods[i]) })
	f.close()

	evs := s.events
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].last.Before(evs[j].last) })
	at = at.Add(300 * time.Millisecond)
	f = b.create(bundle.KubePath("events"), s.kubectl("get events"), at, at.Add(90*time.Millisecond))
	writeList(f, len(evs), func(i int) any { return s.eventObject(evs[i], i) })
	f.close()
	if s.Handmade {
		return
	}

	at = at.Add(250 * time.Millisecond)
	var sts, deps []string
	for _, comp := range []string{"compactor", "compute", "frontend", "meta"} {
		if len(s.pods(comp)) == 0 {
			continue
		}
		if comp == "meta" || comp == "compute" {
			sts = append(sts, comp)
		} else {
			deps = append(deps, comp)
		}
	}
	var others []*Pod
	for _, p := range s.Pods {
		if p.Other != "" {
			others = append(others, p)
		}
	}
	f = b.create(bundle.KubePath("statefulsets"), s.kubectl("get statefulsets"), at, at.Add(70*time.Millisecond))
	writeList(f, len(sts)+len(others), func(i int) any {
		if i < len(sts) {
			return s.workloadObject("StatefulSet", sts[i])
		}
		return s.otherSts(others[i-len(sts)])
	})
	f.close()
	at = at.Add(120 * time.Millisecond)
	f = b.create(bundle.KubePath("deployments"), s.kubectl("get deployments"), at, at.Add(60*time.Millisecond))
	writeList(f, len(deps), func(i int) any { return s.workloadObject("Deployment", deps[i]) })
	f.close()
	at = at.Add(110 * time.Millisecond)
	svcs := s.services()
	f = b.create(bundle.KubePath("services"), s.kubectl("get services"), at, at.Add(50*time.Millisecond))
	writeList(f, len(svcs), func(i int) any { return svcs[i] })
	f.close()
	if s.Inst == operator {
		at = at.Add(100 * time.Millisecond)
		f = b.create(bundle.KubePath("risingwaves"), s.kubectl("get risingwaves.risingwave.risingwavelabs.com"), at, at.Add(40*time.Millisecond))
		writeList(f, 1, func(int) any { return s.crObject() })
		f.close()
	}
	for _, p := range s.Pods {
		if p.Other != "" {
			continue
		}
		at = at.Add(140 * time.Millisecond)
		b.writeString(bundle.DescribePath(p.Name), "kubectl describe pod "+p.Name+" -n "+s.Namespace,
			at, at.Add(95*time.Millisecond), s.describe(p))
	}
}

// eventObject is an event as kubectl prints it.
func (s *Sim) eventObject(e kevent, i int) obj {
	key := fmt.Sprintf("%s.%x", e.name, 0x187c7e0d3f1a2b4c+uint64(e.first.UnixNano()/1000)+uint64(i))
	inv := obj{"kind": e.kind, "name": e.name, "namespace": s.Namespace, "apiVersion": "v1",
		"resourceVersion": strconv.Itoa(48209000 + i*7), "uid": uuidFor(s.Dir + e.name)}
	if e.fieldPath != "" {
		inv["fieldPath"] = e.fieldPath
	}
	if e.kind == "StatefulSet" {
		inv["apiVersion"] = "apps/v1"
	}
	return obj{
		"apiVersion":     "v1",
		"count":          e.count,
		"eventTime":      nil,
		"firstTimestamp": k8sTime(e.first),
		"involvedObject": inv,
		"kind":           "Event",
		"lastTimestamp":  k8sTime(e.last),
		"message":        e.message,
		"metadata": obj{"creationTimestamp": k8sTime(e.first), "name": key, "namespace": s.Namespace,
			"resourceVersion": strconv.Itoa(48211000 + i*3), "uid": uuidFor(s.Dir + key)},
		"reason":             e.reason,
		"reportingComponent": e.source,
		"reportingInstance":  s.nodeOf(e.name),
		"source":             obj{"component": e.source, "host": s.nodeOf(e.name)},
		"type":               e.typ,
	}
}

func (s *Sim) nodeOf(pod string) string {
	for _, p := range s.Pods {
		if p.Name == pod {
			return p.Node
		}
	}
	return ""
}

// workloadObject is a StatefulSet or Deployment of a component.
func (s *Sim) workloadObject(kind, comp string) obj {
	pods := s.pods(comp)
	p := pods[0]
	ready := 0
	for _, q := range pods {
		if q.current().end.IsZero() {
			ready++
		}
	}
	sel := map[string]string{}
	for k, v := range s.labels(p) {
		switch k {
		case "controller-revision-hash", "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index", "pod-template-hash", "risingwave/meta-role":
			continue
		}
		if strings.HasPrefix(k, "app.kubernetes.io/version") || k == "helm.sh/chart" || k == "risingwave/generation" {
			continue
		}
		sel[k] = v
	}
	tmplLabels := map[string]string{}
	for k, v := range sel {
		tmplLabels[k] = v
	}
	c := s.containerSpec(p)
	spec := obj{
		"replicas": len(pods),
		"selector": obj{"matchLabels": sel},
		"template": obj{"metadata": obj{"labels": tmplLabels}, "spec": obj{"containers": []obj{c}}},
	}
	status := obj{"observedGeneration": 3, "replicas": len(pods), "readyReplicas": ready}
	if kind == "StatefulSet" {
		spec["serviceName"] = p.Workload
		if s.Inst != operator {
			spec["serviceName"] = p.Workload + "-headless"
		}
		spec["podManagementPolicy"] = "Parallel"
		spec["updateStrategy"] = obj{"rollingUpdate": obj{"partition": 0}, "type": "RollingUpdate"}
		status["currentReplicas"] = len(pods)
		status["updatedReplicas"] = len(pods)
		status["availableReplicas"] = ready
		status["currentRevision"] = p.Rev
		status["updateRevision"] = p.Rev
		status["collisionCount"] = 0
	} else {
		spec["strategy"] = obj{"rollingUpdate": obj{"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"}
		status["availableReplicas"] = ready
		status["updatedReplicas"] = len(pods)
		status["conditions"] = []obj{{"lastTransitionTime": k8sTime(p.Created.Add(40 * time.Second)), "lastUpdateTime": k8sTime(p.Created.Add(40 * time.Second)),
			"message": "Deployment has minimum availability.", "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"}}
	}
	labels := map[string]string{}
	for k, v := range sel {
		labels[k] = v
	}
	return obj{
		"apiVersion": "apps/v1",
		"kind":       kind,
		"metadata": obj{"creationTimestamp": k8sTime(p.Created.Add(-2 * time.Second)), "generation": 3, "labels": labels,
			"name": p.Workload, "namespace": s.Namespace, "resourceVersion": strconv.Itoa(48100000 + len(comp)*97),
			"uid": uuidFor(s.Dir + "sts/" + p.Workload)},
		"spec":   spec,
		"status": status,
	}
}

// otherSts is the StatefulSet of a non-RisingWave pod (etcd).
func (s *Sim) otherSts(p *Pod) obj {
	l := s.labels(p)
	delete(l, "controller-revision-hash")
	delete(l, "statefulset.kubernetes.io/pod-name")
	return obj{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": obj{"creationTimestamp": k8sTime(p.Created), "generation": 1, "labels": l, "name": p.Workload,
			"namespace": s.Namespace, "uid": uuidFor(s.Dir + "sts/" + p.Workload)},
		"spec": obj{"replicas": 1, "serviceName": p.Workload + "-headless", "selector": obj{"matchLabels": l},
			"template": obj{"metadata": obj{"labels": l}, "spec": obj{"containers": []obj{s.containerSpec(p)}}}},
		"status": obj{"replicas": 1, "readyReplicas": 1, "currentReplicas": 1, "updatedReplicas": 1, "availableReplicas": 1,
			"currentRevision": p.Rev, "updateRevision": p.Rev, "observedGeneration": 1},
	}
}

// services are the cluster's Services.
func (s *Sim) services() []obj {
	var out []obj
	svc := func(name string, comp string, headless bool, ports []obj) {
		p := s.pod(comp)
		sel := map[string]string{}
		for k, v := range s.labels(p) {
			if k == "risingwave/component" || k == "risingwave/name" || k == "app.kubernetes.io/component" ||
				k == "app.kubernetes.io/instance" || k == "app.kubernetes.io/name" || k == "app" {
				sel[k] = v
			}
		}
		spec := obj{"ports": ports, "selector": sel, "sessionAffinity": "None", "type": "ClusterIP",
			"ipFamilies": []string{"IPv4"}, "ipFamilyPolicy": "SingleStack"}
		if headless {
			spec["clusterIP"] = "None"
			spec["clusterIPs"] = []string{"None"}
			spec["publishNotReadyAddresses"] = true
		} else {
			ip := fmt.Sprintf("172.20.%d.%d", 10+len(out)*7, 30+len(name))
			spec["clusterIP"] = ip
			spec["clusterIPs"] = []string{ip}
		}
		out = append(out, obj{"apiVersion": "v1", "kind": "Service",
			"metadata": obj{"creationTimestamp": k8sTime(p.Created.Add(-5 * time.Second)), "labels": sel, "name": name,
				"namespace": s.Namespace, "resourceVersion": strconv.Itoa(48000000 + len(out)*13), "uid": uuidFor(s.Dir + "svc/" + name)},
			"spec": spec, "status": obj{"loadBalancer": obj{}}})
	}
	sp := func(cp []obj) []obj {
		var out []obj
		for _, c := range cp {
			out = append(out, obj{"name": c["name"], "port": c["containerPort"], "protocol": "TCP", "targetPort": c["name"]})
		}
		return out
	}
	fn := s.fullname()
	for _, comp := range []string{"compactor", "compute", "frontend", "meta"} {
		if len(s.pods(comp)) == 0 {
			continue
		}
		ports := sp(s.ports(comp))
		switch {
		case s.Inst == operator:
			svc(fn+"-"+comp, comp, comp == "compute", ports)
		case comp == "meta" || comp == "compute":
			svc(fn+"-"+comp+"-headless", comp, true, ports)
			if comp == "meta" {
				svc(fn+"-meta", comp, false, ports)
			}
		default:
			svc(fn+"-"+comp, comp, false, ports)
		}
	}
	return out
}

// crObject is the operator's RisingWave custom resource.
func (s *Sim) crObject() obj {
	comp := func(c string) obj {
		p := s.pod(c)
		return obj{"nodeGroups": []obj{{"name": "", "replicas": len(s.pods(c)), "template": obj{"spec": obj{
			"resources": obj{"limits": obj{"cpu": strconv.Itoa(p.CPU), "memory": p.Mem}, "requests": obj{"cpu": strconv.Itoa(p.CPU), "memory": p.Mem}}}}}}}
	}
	metaStore := obj{"postgresql": obj{"host": s.Cluster + "-metastore.postgres.svc", "port": 5432, "database": "risingwave",
		"credentials": obj{"secretName": s.Cluster + "-metastore-credentials"}}}
	if s.MetaStore == "sqlite" {
		metaStore = obj{"sqlite": obj{"path": "/risingwave/meta/risingwave.db"}}
	}
	replicas := obj{}
	for _, c := range []string{"compactor", "compute", "frontend", "meta"} {
		n := 0
		for _, p := range s.pods(c) {
			if p.current().end.IsZero() {
				n++
			}
		}
		replicas[c] = obj{"target": len(s.pods(c)), "running": n, "groups": []obj{{"name": "", "target": len(s.pods(c)), "running": n}}}
	}
	return obj{
		"apiVersion": "risingwave.risingwavelabs.com/v1alpha1",
		"kind":       "RisingWave",
		"metadata": obj{"creationTimestamp": k8sTime(s.pod("meta").Created.Add(-20 * time.Second)), "generation": 3,
			"name": s.Cluster, "namespace": s.Namespace, "uid": uuidFor(s.Dir + "cr")},
		"spec": obj{
			"image": s.image(),
			"components": obj{"meta": comp("meta"), "compute": comp("compute"), "frontend": comp("frontend"),
				"compactor": comp("compactor")},
			"metaStore":               metaStore,
			"stateStore":              obj{"s3": obj{"bucket": s.Bucket, "region": "eu-west-1", "credentials": obj{"secretName": s.Cluster + "-s3-credentials"}}, "dataDirectory": "hummock_001"},
			"enableStandaloneMode":    false,
			"enableAdvertisingWithIP": false,
		},
		"status": obj{
			"version":           s.Version.Tag,
			"componentReplicas": replicas,
			"conditions": []obj{{"type": "Running", "status": "True",
				"lastTransitionTime": k8sTime(s.pod("meta").Created.Add(time.Minute))}},
			"observedGeneration": 3,
		},
	}
}

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
			w("      %s:%s (v1:%s)\n", e.name, pad, strings.TrimPrefix(e.ref, "field:"))
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
