package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// crd is the RisingWave CRD in the operator's names
// (risingwavelabs/risingwave-operator config/crd/bases/
// risingwave.risingwavelabs.com_risingwaves.yaml: group, kind, plural,
// short name rw, categories all and streaming, v1alpha1 served and stored,
// a status subresource). The schema is permissive: the collector reads the
// resources as they are.
func crd() object {
	preserve := object{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	return object{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   object{"name": "risingwaves.risingwave.risingwavelabs.com"},
		"spec": object{
			"group": "risingwave.risingwavelabs.com",
			"names": object{
				"categories": []any{"all", "streaming"},
				"kind":       "RisingWave", "listKind": "RisingWaveList",
				"plural": "risingwaves", "singular": "risingwave", "shortNames": []any{"rw"},
			},
			"scope": "Namespaced",
			"versions": []any{object{
				"name": "v1alpha1", "served": true, "storage": true,
				"schema": object{"openAPIV3Schema": object{
					"type": "object",
					"properties": object{
						"apiVersion": object{"type": "string"}, "kind": object{"type": "string"},
						"metadata": object{"type": "object"},
						"spec":     preserve, "status": preserve,
					},
				}},
				"subresources": object{"status": object{}},
				"additionalPrinterColumns": []any{
					object{"jsonPath": `.status.conditions[?(@.type=="Running")].status`, "name": "RUNNING", "type": "string"},
					object{"jsonPath": ".metadata.creationTimestamp", "name": "AGE", "type": "date"},
				},
			}},
		},
	}
}

// ensureCRD installs the CRD (or, without, removes it) and waits until the
// API server serves (or no longer serves) risingwaves.
func (c *Cluster) ensureCRD(ctx context.Context, want bool) error {
	crds := c.dyn.Resource(gvrCRDs)
	const name = "risingwaves.risingwave.risingwavelabs.com"
	if want {
		if _, err := crds.Create(ctx, u(crd()), metav1.CreateOptions{}); err != nil && !isExists(err) {
			return fmt.Errorf("create the RisingWave CRD: %w", err)
		}
	} else if err := crds.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete the RisingWave CRD: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		// Served: a list of the resource answers (an established CRD can
		// still 404 for a moment; a deleted one is gone once it 404s).
		_, err := c.dyn.Resource(gvrRisingWaves).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
		obj, gerr := crds.Get(ctx, name, metav1.GetOptions{})
		switch {
		case want && err == nil && gerr == nil && established(obj):
			return nil
		case !want && apierrors.IsNotFound(err) && apierrors.IsNotFound(gerr):
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the RisingWave CRD: still not %s after 60s (list: %v; get: %v)",
				map[bool]string{true: "served", false: "gone"}[want], err, gerr)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(object); m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// create creates an object and, when status is not nil, sets it through
// the status subresource. It returns the object as the server holds it.
func (c *Cluster) create(ctx context.Context, gvr schema.GroupVersionResource, ns string, obj, status object) (*unstructured.Unstructured, error) {
	var ri = c.dyn.Resource(gvr)
	var r interface {
		Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
		UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error)
	} = ri
	if ns != "" {
		r = ri.Namespace(ns)
	}
	created, err := r.Create(ctx, u(obj), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create %s %s: %w", gvr.Resource, name(obj), err)
	}
	c.uids[gvr.Resource+"/"+created.GetName()] = string(created.GetUID())
	if status == nil {
		return created, nil
	}
	created.Object["status"] = status
	updated, err := r.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("set the status of %s %s: %w", gvr.Resource, created.GetName(), err)
	}
	return updated, nil
}

func (c *Cluster) nodeName(sampleNode string) string {
	if n, ok := c.nodeNames[sampleNode]; ok {
		return n
	}
	n := sampleNode
	if c.ns != c.sample.namespace {
		n += "-" + c.ns
	}
	c.nodeNames[sampleNode] = n
	return n
}

// createObjects creates the cluster's API objects.
func (c *Cluster) createObjects(ctx context.Context) error {
	s := c.sample
	t := time.Now()
	if err := c.ensureCRD(ctx, !c.opts.WithoutCRD); err != nil {
		return err
	}
	c.Timings.CRD = time.Since(t)
	nsObj := object{"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": c.ns}}
	// The namespace may exist (a harness made it, with its ServiceAccount);
	// objects in it of the same names may not.
	if _, err := c.dyn.Resource(gvrNamespaces).Create(ctx, u(nsObj), metav1.CreateOptions{}); err != nil && !isExists(err) {
		return fmt.Errorf("create namespace %s: %w", c.ns, err)
	}

	// ServiceAccounts: no controller makes "default" here, and the
	// ServiceAccount admission plugin refuses pods naming a missing one.
	sas := []string{"default"}
	for _, p := range s.lists["pods"] {
		spec, _ := p["spec"].(object)
		if sa, _ := spec["serviceAccountName"].(string); sa != "" && !slices.Contains(sas, sa) {
			sas = append(sas, sa)
		}
	}
	for _, sa := range sas {
		if _, err := c.dyn.Resource(gvrSAs).Namespace(c.ns).Create(ctx, u(object{"apiVersion": "v1", "kind": "ServiceAccount",
			"metadata": object{"name": sa}}), metav1.CreateOptions{}); err != nil && !isExists(err) {
			return fmt.Errorf("create service account %s: %w", sa, err)
		}
	}

	// Nodes, one per node the pods name.
	var sampleNodes []string
	for _, p := range s.lists["pods"] {
		spec, _ := p["spec"].(object)
		if n, _ := spec["nodeName"].(string); n != "" && !slices.Contains(sampleNodes, n) {
			sampleNodes = append(sampleNodes, n)
		}
	}
	slices.Sort(sampleNodes)
	for _, sn := range sampleNodes {
		if err := c.createNode(ctx, c.nodeName(sn)); err != nil {
			return err
		}
	}

	// The RisingWave resource.
	if !c.opts.WithoutCRD {
		for _, rw := range s.lists["risingwaves"] {
			st, _ := rw["status"].(object)
			if _, err := c.create(ctx, gvrRisingWaves, c.ns, forCreate(rw, c.ns), st); err != nil {
				return err
			}
		}
	}
	// Workloads, then services (their cluster IPs are the server's to give).
	for _, w := range []struct {
		file string
		gvr  schema.GroupVersionResource
	}{{"statefulsets", gvrStatefulSet}, {"deployments", gvrDeployments}} {
		for _, o := range s.lists[w.file] {
			obj := c.owned(forCreate(o, c.ns))
			c.repairTemplate(w.file, obj)
			st, _ := o["status"].(object)
			if st != nil {
				st = deepCopy(st)
				delete(st, "observedGeneration") // the server's generation is 1
			}
			if _, err := c.create(ctx, w.gvr, c.ns, obj, st); err != nil {
				return err
			}
		}
	}
	for _, o := range s.lists["services"] {
		obj := c.owned(forCreate(o, c.ns))
		spec, _ := obj["spec"].(object)
		if ip, _ := spec["clusterIP"].(string); ip != "None" {
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
		}
		if _, err := c.create(ctx, gvrServices, c.ns, obj, nil); err != nil {
			return err
		}
	}
	for _, o := range s.lists["configmaps"] {
		if _, err := c.create(ctx, gvrConfigMaps, c.ns, c.owned(forCreate(o, c.ns)), nil); err != nil {
			return err
		}
	}
	if err := c.createPlanted(ctx); err != nil {
		return err
	}

	// Pods: created bound to their node, then their status as the sample
	// has it, with an address of the fixture.
	for i, p := range s.lists["pods"] {
		if err := c.createPod(ctx, p, c.addrs[i], false); err != nil {
			return err
		}
	}
	if err := c.createFillers(ctx); err != nil {
		return err
	}

	// Events about the pods (and whatever else the sample's are about).
	for _, e := range s.lists["events"] {
		ev := forCreate(e, c.ns)
		for _, k := range []string{"firstTimestamp", "lastTimestamp", "eventTime", "series", "source",
			"count", "reason", "message", "type", "involvedObject", "reportingComponent", "reportingInstance", "action", "related"} {
			if v, ok := e[k]; ok && v != nil {
				ev[k] = v
			}
		}
		io, _ := ev["involvedObject"].(object)
		if io != nil {
			io["namespace"] = c.ns
			delete(io, "resourceVersion")
			kind, _ := io["kind"].(string)
			if uid, ok := c.uids[strings.ToLower(kind)+"s/"+fmt.Sprint(io["name"])]; ok {
				io["uid"] = uid
			}
		}
		if src, _ := ev["source"].(object); src != nil {
			if h, _ := src["host"].(string); h != "" {
				src["host"] = c.nodeName(h)
			}
		}
		if _, err := c.create(ctx, gvrEvents, c.ns, ev, nil); err != nil {
			return err
		}
	}
	return nil
}

// owned points ownerReferences at the uids of the owners the fixture made
// (an owner it did not make, e.g. a ReplicaSet, keeps the sample's uid: no
// garbage collector runs here).
func (c *Cluster) owned(o object) object {
	md, _ := o["metadata"].(object)
	refs, _ := md["ownerReferences"].([]any)
	for _, r := range refs {
		ref, _ := r.(object)
		kind, _ := ref["kind"].(string)
		if uid, ok := c.uids[strings.ToLower(kind)+"s/"+fmt.Sprint(ref["name"])]; ok {
			ref["uid"] = uid
		}
	}
	return o
}

func (c *Cluster) createNode(ctx context.Context, name string) error {
	node := object{"apiVersion": "v1", "kind": "Node", "metadata": object{"name": name, "labels": object{
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"node.kubernetes.io/instance-type": "m6i.2xlarge",
	}}}
	now := time.Now().UTC().Format(time.RFC3339)
	status := object{
		"addresses": []any{
			object{"type": "InternalIP", "address": "127.0.0.1"},
			object{"type": "Hostname", "address": name},
		},
		"daemonEndpoints": object{"kubeletEndpoint": object{"Port": c.kubelet.Port()}},
		"capacity":        object{"cpu": "8", "memory": "32Gi", "pods": "110"},
		"allocatable":     object{"cpu": "7910m", "memory": "30Gi", "pods": "110"},
		"conditions": []any{object{"type": "Ready", "status": "True", "reason": "KubeletReady",
			"message": "kubelet is posting ready status", "lastHeartbeatTime": now, "lastTransitionTime": now}},
		"nodeInfo": object{"kubeletVersion": "v1.37.2", "kubeProxyVersion": "", "containerRuntimeVersion": "containerd://2.1.4",
			"operatingSystem": "linux", "architecture": "amd64", "osImage": "rwdiag test fixture",
			"kernelVersion": "6.1.0", "machineID": "", "systemUUID": "", "bootID": ""},
	}
	_, err := c.create(ctx, gvrNodes, "", node, status)
	if isExists(err) || (err != nil && strings.Contains(err.Error(), "already exists")) {
		return fmt.Errorf("node %s already exists: an earlier fixture in namespace %s was not closed", name, c.ns)
	}
	return err
}

// createPod creates a sample pod bound to its node, then sets its status
// with the fixture's address. Filler pods get no planted env. Safe for
// concurrent use.
func (c *Cluster) createPod(ctx context.Context, p object, ip string, filler bool) error {
	fixtureMu.Lock()
	obj := c.owned(forCreate(p, c.ns))
	spec, _ := obj["spec"].(object)
	if n, _ := spec["nodeName"].(string); n != "" {
		spec["nodeName"] = c.nodeName(n)
	}
	fixtureMu.Unlock()
	delete(md(obj), "generateName")
	if !filler && bundleComponent(labelsOf(p)) == "compute" {
		plantEnv(spec, c.planted[5])
	}
	st := deepCopy(p["status"].(object))
	st["podIP"], st["podIPs"] = ip, []any{object{"ip": ip}}
	st["hostIP"], st["hostIPs"] = "127.0.0.1", []any{object{"ip": "127.0.0.1"}}
	pods := c.dyn.Resource(gvrPods).Namespace(c.ns)
	created, err := pods.Create(ctx, u(obj), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create pod %s: %w", name(obj), err)
	}
	if q, ok, _ := unstructured.NestedString(created.Object, "status", "qosClass"); ok {
		st["qosClass"] = q // the server's, from the resources; a status update may not change it
	}
	created.Object["status"] = st
	if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("set the status of pod %s: %w", created.GetName(), err)
	}
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	c.uids["pods/"+created.GetName()] = string(created.GetUID())
	c.podIP[created.GetName()] = ip
	c.kubelet.addPod(c.ns, created.GetName(), containerNames(p))
	return nil
}

func md(o object) object {
	m, _ := o["metadata"].(object)
	return m
}

// bundleComponent is a pod's RisingWave component from its labels.
func bundleComponent(l map[string]string) string {
	for _, k := range []string{"risingwave/component", "risingwave.risingwavelabs.com/component", "app.kubernetes.io/component"} {
		if v := l[k]; v != "" {
			return v
		}
	}
	return ""
}

// plantEnv adds a secret-looking env value to each container.
func plantEnv(spec object, value string) {
	cs, _ := spec["containers"].([]any)
	for _, ct := range cs {
		m, _ := ct.(object)
		env, _ := m["env"].([]any)
		m["env"] = append(env, object{"name": "RW_S3_SECRET_KEY", "value": value})
	}
}

// createPlanted creates the ConfigMaps the pods mount (a risingwave.toml
// with a URL password in it), an env-like ConfigMap, and a Secret.
func (c *Cluster) createPlanted(ctx context.Context) error {
	s := c.sample
	var mounted []string
	for _, p := range s.lists["pods"] {
		spec, _ := p["spec"].(object)
		vols, _ := spec["volumes"].([]any)
		for _, v := range vols {
			if cm, _ := v.(object)["configMap"].(object); cm != nil {
				if n, _ := cm["name"].(string); n != "" && !slices.Contains(mounted, n) {
					mounted = append(mounted, n)
				}
			}
		}
	}
	have := map[string]bool{}
	for _, o := range s.lists["configmaps"] {
		have[name(o)] = true
	}
	cluster := s.cluster
	if cluster == "" {
		cluster = "risingwave"
	}
	toml := "[server]\nheartbeat_interval_ms = 1000\n\n[streaming]\nin_flight_barrier_nums = 10000\n\n" +
		"[meta]\n# the SQL meta store\nsql_endpoint = \"postgres://rwmeta:" + c.planted[0] + "@meta-store.internal:5432/rw_meta\"\n"
	for _, n := range mounted {
		if have[n] {
			continue
		}
		cm := object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": object{"name": n,
			"labels": object{"risingwave/name": cluster}}, "data": object{"risingwave.toml": toml}}
		if _, err := c.create(ctx, gvrConfigMaps, c.ns, cm, nil); err != nil {
			return err
		}
	}
	env := object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": object{"name": cluster + "-env",
		"labels": object{"risingwave/name": cluster}}, "data": object{
		"RW_POSTGRES_PASSWORD":  c.planted[1],
		"AWS_SECRET_ACCESS_KEY": c.planted[2],
		"RW_LICENSE_KEY":        c.planted[3],
		"RW_POSTGRES_HOST":      "meta-store.internal",
		"AWS_REGION":            "us-east-1",
	}}
	if _, err := c.create(ctx, gvrConfigMaps, c.ns, env, nil); err != nil {
		return err
	}
	secret := object{"apiVersion": "v1", "kind": "Secret", "metadata": object{"name": cluster + "-credentials",
		"labels": object{"risingwave/name": cluster}}, "type": "Opaque",
		"stringData": object{"password": c.planted[4], "username": "rwmeta"}}
	_, err := c.create(ctx, gvrSecrets, c.ns, secret, nil)
	return err
}

// fillerName is the i-th filler pod's name.
func (c *Cluster) fillerName(i int) string {
	cl := c.sample.cluster
	if cl == "" {
		cl = "risingwave"
	}
	return fmt.Sprintf("%s-compute-filler-%03d", cl, i)
}

// createFillers creates the filler pods: copies of the sample's last
// healthy compute pod, healthy, on one shared address, eight at a time.
func (c *Cluster) createFillers(ctx context.Context) error {
	n := c.opts.FillerPods
	if n <= 0 {
		return nil
	}
	var tmpl object
	for _, p := range c.sample.lists["pods"] {
		if bundleComponent(labelsOf(p)) == "compute" {
			healthy := true
			for _, r := range restartCounts(p) {
				healthy = healthy && r == 0
			}
			if healthy || tmpl == nil {
				tmpl = p
			}
		}
	}
	if tmpl == nil {
		return fmt.Errorf("filler pods: the sample has no compute pod to copy")
	}
	ip := c.addrs[len(c.addrs)-1]
	c.fillerContainer = containerNames(tmpl)[0]
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := 0; i < n; i++ {
		p := deepCopy(tmpl)
		name := c.fillerName(i)
		m := md(p)
		m["name"] = name
		delete(m, "ownerReferences")
		if l, _ := m["labels"].(object); l != nil {
			delete(l, "statefulset.kubernetes.io/pod-name")
			delete(l, "apps.kubernetes.io/pod-index")
		}
		st := p["status"].(object)
		css, _ := st["containerStatuses"].([]any)
		for _, cs := range css {
			m := cs.(object)
			m["restartCount"], m["ready"], m["started"] = 0, true, true
			delete(m, "lastState")
			m["state"] = object{"running": object{"startedAt": c.sample.finished.Add(-time.Hour).Format(time.RFC3339)}}
		}
		st["conditions"] = []any{object{"type": "Ready", "status": "True", "lastTransitionTime": c.sample.finished.Add(-time.Hour).Format(time.RFC3339)}}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = c.createPod(ctx, p, ip, true)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fixtureMu guards the Cluster's maps while pods are created concurrently.
var fixtureMu sync.Mutex

// fillerLog is a filler pod's log: INFO lines of this package's own, about
// size bytes, one second apart, ending at the sample's collection time.
func fillerLog(pod string, size int, end time.Time) *logFile {
	lf := &logFile{}
	var lines []string
	total := 0
	for i := 0; total < size; i++ {
		l := fmt.Sprintf("%s  INFO risingwave_stream::task::barrier_manager: filler pod %s is healthy, heartbeat %d\n",
			"%s", pod, i)
		lines = append(lines, l)
		total += len(l) + 31
	}
	for i, l := range lines {
		ts := end.Add(-time.Duration(len(lines)-i) * time.Second).UTC()
		tsText := ts.Format(time.RFC3339Nano)
		lf.lines = append(lf.lines, logLine{ts: ts, tsText: tsText, text: fmt.Sprintf(l, ts.Format("2006-01-02T15:04:05.000000000Z"))})
	}
	return lf
}

// serve loads the kubelet stand-in and starts the pod servers.
func (c *Cluster) serve() error {
	s := c.sample
	for key, lf := range s.logs {
		parts := strings.Split(key, "/")
		c.kubelet.setLog(c.ns, parts[0], parts[1], len(parts) == 3, lf)
	}
	for i, p := range s.lists["pods"] {
		pod := name(p)
		ports := namedPorts(p)
		if port, ok := ports["metrics"]; ok {
			if err := c.pods.listen(c.addrs[i]+":"+strconv.Itoa(port), &podEndpoint{pod: pod, portName: "metrics", scrapes: s.scrapes[pod]}); err != nil {
				return err
			}
		}
		if port, ok := ports["dashboard"]; ok {
			pages := map[string][]byte{}
			for suffix, b := range s.dashboard {
				pages["/"+suffix] = b
			}
			if err := c.pods.listen(c.addrs[i]+":"+strconv.Itoa(port), &podEndpoint{pod: pod, portName: "dashboard", pages: pages}); err != nil {
				return err
			}
		}
	}
	if c.opts.FillerPods > 0 {
		for i := 0; i < c.opts.FillerPods; i++ {
			pod := c.fillerName(i)
			c.kubelet.setLog(c.ns, pod, c.fillerContainer, false, fillerLog(pod, c.opts.FillerLogBytes, s.finished))
		}
		var tmplPorts map[string]int
		for _, p := range s.lists["pods"] {
			if bundleComponent(labelsOf(p)) == "compute" {
				tmplPorts = namedPorts(p)
			}
		}
		if port, ok := tmplPorts["metrics"]; ok {
			c.fillerMetrics = true
			body := []byte("# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n" +
				"# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds " +
				strconv.FormatInt(s.finished.Add(-time.Hour).Unix(), 10) + "\n")
			if err := c.pods.listen(c.addrs[len(c.addrs)-1]+":"+strconv.Itoa(port), &podEndpoint{portName: "metrics", filler: body}); err != nil {
				return err
			}
		}
	}
	return nil
}

// repairTemplate adds to a workload's pod template the volumes its
// containers mount and it lacks (the sample generator leaves them out;
// the API server refuses such a template): the pods' definition of the
// volume when a sample pod has one, else an emptyDir. Each repair is noted
// in Repairs.
func (c *Cluster) repairTemplate(file string, obj object) {
	spec, _, _ := unstructured.NestedMap(obj, "spec", "template", "spec")
	if spec == nil {
		return
	}
	have := map[string]bool{}
	vols, _ := spec["volumes"].([]any)
	for _, v := range vols {
		have[fmt.Sprint(v.(object)["name"])] = true
	}
	podVolume := func(name string) object {
		for _, p := range c.sample.lists["pods"] {
			ps, _ := p["spec"].(object)
			pv, _ := ps["volumes"].([]any)
			for _, v := range pv {
				if m, _ := v.(object); m["name"] == name {
					return deepCopy(m)
				}
			}
		}
		return object{"name": name, "emptyDir": object{}}
	}
	for _, key := range []string{"initContainers", "containers"} {
		cs, _ := spec[key].([]any)
		for _, ct := range cs {
			mounts, _ := ct.(object)["volumeMounts"].([]any)
			for _, m := range mounts {
				n := fmt.Sprint(m.(object)["name"])
				if have[n] {
					continue
				}
				have[n] = true
				v := podVolume(n)
				vols = append(vols, v)
				c.Repairs = append(c.Repairs, fmt.Sprintf("%s %s: the pod template mounts volume %q and does not define it; added %v", file, name(obj), n, v))
			}
		}
	}
	spec["volumes"] = vols
	_ = unstructured.SetNestedMap(obj, spec, "spec", "template", "spec")
}
