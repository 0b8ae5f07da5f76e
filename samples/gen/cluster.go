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
	if s.noBacktrace {
		e = append(e[:2], e[3:]...)
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
		spec["volumes"] = s.configVolumes()
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

// configVolumes are the volumes behind containerSpec's volumeMounts: the
// risingwave.toml config map, as the operator and the helm chart mount it.
func (s *Sim) configVolumes() []obj {
	return []obj{{"configMap": obj{"defaultMode": 420, "items": []obj{{"key": "risingwave.toml", "path": "risingwave.toml"}},
		"name": s.fullname() + "-config"}, "name": "risingwave-config"}}
}

// podTemplateSpec is a workload's pod template spec for container c, with
// the volumes its mounts need (the API server refuses a template that
// mounts a volume it does not define).
func (s *Sim) podTemplateSpec(c obj) obj {
	spec := obj{"containers": []obj{c}}
	if _, ok := c["volumeMounts"]; ok {
		spec["volumes"] = s.configVolumes()
	}
	return spec
}
