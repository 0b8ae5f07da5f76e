package kube

// A small RisingWave cluster of the harness's own, for the API-server
// faults (and the main test until package cluster's fixture is used): the
// CRD and a RisingWave resource, a meta and a compute pod with status set
// through the status subresource (the compute container OOMKilled once), a
// node whose kubelet is a stand-in in this process, the pods' metrics and
// dashboard servers on 192.0.2.x, a StatefulSet, a Service, an Event, a
// ConfigMap with planted secrets and a Secret the collector must not read.
// The kubelet stand-in can hold a log stream open, to stop things mid-run.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	rwGVR  = schema.GroupVersionResource{Group: "risingwave.risingwavelabs.com", Version: "v1alpha1", Resource: "risingwaves"}
)

// miniIPs hands out pod addresses from the top of the range (PodIP(190) on).
var miniIPs atomic.Int32

func nextMiniIP() string { return PodIP(190 + int(miniIPs.Add(1)-1)%51) }

type miniOptions struct {
	// holdLog names a container log ("pod/container") the kubelet stand-in
	// starts (64 KiB of it) and then holds open until the request is
	// cancelled.
	holdLog string
	noCRD   bool
}

type miniCluster struct {
	ns      string
	name    string
	pods    []string
	kubelet *kubeletStub
	// logs are what the kubelet serves: "pod/container" and "pod/container/previous".
	logs map[string]string
	// scrape is what each pod's /metrics serves, by pod.
	scrape    map[string]string
	report    string
	awaitTree string
	planted   []string
}

// newMiniCluster creates the cluster "mini" in ns (which it creates).
func newMiniCluster(t *testing.T, h *Harness, ns string, o miniOptions) *miniCluster {
	t.Helper()
	began := time.Now()
	ctx := context.Background()
	h.Namespace(t, ns)
	m := &miniCluster{ns: ns, name: "mini", logs: map[string]string{}, scrape: map[string]string{}}
	// Planted secrets: values the collector must leave out of every byte.
	cmPassword := "cm-pw-" + ns + "-Zq8vLk2"
	envPassword := "env-pw-" + ns + "-Hx4Ty7"
	logPassword := "log-pw-" + ns + "-Pn3Wd9"
	secretValue := "secret-" + ns + "-Gm5Rc1"
	m.planted = []string{cmPassword, envPassword, logPassword, secretValue}

	meta, compute := m.name+"-meta-0", m.name+"-compute-0"
	m.pods = []string{meta, compute}
	ts := "2026-12-01T10:00:00.000000001Z"
	m.logs[meta+"/meta"] = ts + "  INFO risingwave_meta: meta leader elected\n"
	m.logs[compute+"/compute"] = ts + "  INFO risingwave_compute: started\n" +
		ts + "  INFO risingwave_connector: connecting to postgres://rw:" + logPassword + "@db.example:5432/app\n"
	m.logs[compute+"/compute/previous"] = ts + "  WARN risingwave_compute::memory: memory usage high\n" +
		ts + "  INFO risingwave_compute: killed by the kernel\n"
	m.report = "--- Catalog ---\nmini diagnose report for " + ns + "\n"
	m.awaitTree = `{"actor_traces":{},"rpc_traces":{},"compaction_task_traces":{},"inflight_barrier_traces":{},"barrier_worker_state":{},"jvm_stack_traces":{},"meta_traces":""}` + "\n"

	m.kubelet = startKubelet(t, h, m.logs, o.holdLog)
	node := "node-" + ns
	_, err := h.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: node, Labels: map[string]string{"kubernetes.io/hostname": node}},
		Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: node}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(m.kubelet.port)}},
			Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node: %v", err)
	}
	t.Cleanup(func() { h.Client.CoreV1().Nodes().Delete(context.Background(), node, metav1.DeleteOptions{}) })

	if !o.noCRD {
		ensureCRD(t, h)
		rw := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "risingwave.risingwavelabs.com/v1alpha1", "kind": "RisingWave",
			"metadata": map[string]any{"name": m.name},
			"spec":     map[string]any{"image": "risingwavelabs/risingwave:v2.8.0"},
		}}
		if _, err := h.Dynamic.Resource(rwGVR).Namespace(ns).Create(ctx, rw, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create RisingWave: %v", err)
		}
	}
	labels := func(component string) map[string]string {
		return map[string]string{"risingwave/name": m.name, "risingwave/component": component}
	}
	_, err = h.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: m.name + "-config"},
		Data: map[string]string{
			"risingwave.toml": "[server]\nheartbeat_interval_ms = 1000\n[system]\nbackend_password = \"" + cmPassword + "\"\n",
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create configmap: %v", err)
	}
	_, err = h.Client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: m.name + "-credentials"},
		StringData: map[string]string{"password": secretValue},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create secret: %v", err)
	}
	_, err = h.Client.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: m.name + "-meta", Labels: labels("meta")},
		Spec: corev1.ServiceSpec{Selector: labels("meta"), ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: "dashboard", Port: 5691, TargetPort: intstr.FromString("dashboard")}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	one := int32(1)
	uids := map[string]types.UID{}
	for _, comp := range []string{"meta", "compute"} {
		_, err = h.Client.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: m.name + "-" + comp, Labels: labels(comp)},
			Spec: appsv1.StatefulSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels(comp)},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(comp)},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: comp, Image: "risingwavelabs/risingwave:v2.8.0"}}}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create statefulset: %v", err)
		}
	}

	type podSpec struct {
		name, component string
		ports           []corev1.ContainerPort
		restarts        int32
	}
	for _, p := range []podSpec{
		{meta, "meta", []corev1.ContainerPort{{Name: "service", ContainerPort: 5690}, {Name: "dashboard", ContainerPort: 5691}, {Name: "metrics", ContainerPort: 1250}}, 0},
		{compute, "compute", []corev1.ContainerPort{{Name: "service", ContainerPort: 5688}, {Name: "metrics", ContainerPort: 1222}}, 1},
	} {
		ip := nextMiniIP()
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Labels: labels(p.component)},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{
				Name: p.component, Image: "risingwavelabs/risingwave:v2.8.0", Ports: p.ports,
				Env:       []corev1.EnvVar{{Name: "RW_BACKEND_PASSWORD", Value: envPassword}, {Name: "RUST_LOG", Value: "info"}},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}},
			}}},
		}
		created, err := h.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create pod %s: %v", p.name, err)
		}
		uids[p.name] = created.UID
		started := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		cs := corev1.ContainerStatus{Name: p.component, Ready: true, Started: &yes, RestartCount: p.restarts,
			Image: "risingwavelabs/risingwave:v2.8.0", ImageID: "docker.io/risingwavelabs/risingwave@sha256:" + strings.Repeat("ab", 32),
			ContainerID: "containerd://" + strings.Repeat("c", 64),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}
		if p.restarts > 0 {
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "OOMKilled", StartedAt: metav1.NewTime(started.Add(-time.Hour)), FinishedAt: metav1.NewTime(started.Add(-time.Second))}}
		}
		created.Status = corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, HostIP: "127.0.0.1", HostIPs: []corev1.HostIP{{IP: "127.0.0.1"}},
			StartTime:         &started,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}},
			ContainerStatuses: []corev1.ContainerStatus{cs},
		}
		if _, err := h.Client.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("pod %s status: %v", p.name, err)
		}
		scrape := fmt.Sprintf("# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes{pod=%q} 1.5e+09\n", p.name)
		m.scrape[p.name] = scrape
		mux := http.NewServeMux()
		mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, scrape) })
		mux.HandleFunc("GET /api/monitor/diagnose/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, m.report) })
		mux.HandleFunc("GET /api/monitor/await_tree/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, m.awaitTree) })
		for _, port := range p.ports {
			serveHTTP(t, net.JoinHostPort(ip, strconv.Itoa(int(port.ContainerPort))), mux)
		}
	}
	_, err = h.Client.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: compute + ".1874c2a5e0f1b2c3"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: compute, UID: uids[compute], APIVersion: "v1", FieldPath: "spec.containers{compute}"},
		Reason:         "BackOff", Message: "Back-off restarting failed container compute in pod " + compute,
		Type: corev1.EventTypeWarning, Count: 3, Source: corev1.EventSource{Component: "kubelet", Host: node},
		FirstTimestamp: metav1.NewTime(time.Date(2026, 12, 1, 9, 59, 0, 0, time.UTC)),
		LastTimestamp:  metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)),
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create event: %v", err)
	}
	t.Logf("mini cluster in %s created in %v", ns, time.Since(began).Round(time.Millisecond))
	return m
}

var yes = true

// ensureCRD installs the RisingWave CRD (a permissive schema) once per API
// server and waits until it is served.
func ensureCRD(t *testing.T, h *Harness) {
	t.Helper()
	ctx := context.Background()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "risingwaves.risingwave.risingwavelabs.com"},
		"spec": map[string]any{
			"group": "risingwave.risingwavelabs.com", "scope": "Namespaced",
			"names": map[string]any{"kind": "RisingWave", "listKind": "RisingWaveList", "plural": "risingwaves", "singular": "risingwave", "shortNames": []any{"rw"}},
			"versions": []any{map[string]any{
				"name": "v1alpha1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	if _, err := h.Dynamic.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create CRD: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := h.Dynamic.Resource(rwGVR).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the RisingWave CRD is not served after 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serveHTTP serves mux on addr until the test ends.
func serveHTTP(t *testing.T, addr string, h http.Handler) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

// kubeletStub answers the API server's log requests as a kubelet does:
// GET /containerLogs/NS/POD/CONTAINER?previous=true&timestamps=true&...
type kubeletStub struct {
	port int
	mu   sync.Mutex
	// requests are the paths with their queries, in order.
	requests []string
	// held is closed when the held log's request arrived; heldBody is what
	// was sent of it before the stream was held.
	held     chan struct{}
	heldBody string
}

func startKubelet(t *testing.T, h *Harness, logs map[string]string, hold string) *kubeletStub {
	t.Helper()
	certPEM, keyPEM, err := h.CA.Sign("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	k := &kubeletStub{held: make(chan struct{})}
	if hold != "" {
		var b strings.Builder
		b.WriteString(logs[hold])
		for i := 0; b.Len() < 64<<10; i++ {
			fmt.Fprintf(&b, "2026-12-01T10:00:%02d.%09dZ  INFO risingwave_meta::barrier: completed barrier epoch %d\n", i/1000%60, i, 7000000+i)
		}
		k.heldBody = b.String()
	}
	var heldOnce sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.requests = append(k.requests, r.URL.RequestURI())
		k.mu.Unlock()
		key := r.PathValue("pod") + "/" + r.PathValue("container")
		if r.URL.Query().Get("previous") == "true" {
			key += "/previous"
		}
		body, ok := logs[key]
		if !ok {
			http.Error(w, fmt.Sprintf("container %q in pod %q is not available", r.PathValue("container"), r.PathValue("pod")), http.StatusNotFound)
			return
		}
		if key == hold {
			// More than the API server's 4 KiB write buffer: it does not
			// flush a log that is not followed, so less would never reach
			// the collector while the stream is held.
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, k.heldBody)
			w.(http.Flusher).Flush()
			heldOnce.Do(func() { close(k.held) })
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	})
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	k.port = l.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return k
}

func (k *kubeletStub) Requests() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.requests...)
}
