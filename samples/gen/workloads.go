package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
		"template": obj{"metadata": obj{"labels": tmplLabels}, "spec": s.podTemplateSpec(c)},
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
			"template": obj{"metadata": obj{"labels": l}, "spec": s.podTemplateSpec(s.containerSpec(p))}},
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
