package main

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// podEvents is a pod and the events kubectl describe shows for it.
type podEvents struct {
	pod    *corev1.Pod
	events []corev1.Event
}

func ptr[T any](v T) *T { return &v }

func mt(t time.Time) metav1.Time { return metav1.NewTime(t) }

func qty(s string) resource.Quantity { return resource.MustParse(s) }

const image = "ghcr.io/risingwavelabs/risingwave:v2.3.1"

func rwLabels(cluster, component, pod string) map[string]string {
	l := map[string]string{
		"risingwave/name":       cluster,
		"risingwave/component":  component,
		"risingwave/generation": "3",
	}
	if pod != "" {
		l["statefulset.kubernetes.io/pod-name"] = pod
		l["controller-revision-hash"] = cluster + "-" + component + "-7c9d8f6b54"
	}
	return l
}

func owner(kind, name string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("3c1f9a6e-5b1d-4e0a-9f4e-0c2b7d3a8e11"), Controller: ptr(true)}}
}

func ports(svc int32, metrics int32) []corev1.ContainerPort {
	return []corev1.ContainerPort{
		{Name: "service", ContainerPort: svc, Protocol: corev1.ProtocolTCP},
		{Name: "metrics", ContainerPort: metrics, Protocol: corev1.ProtocolTCP},
	}
}

func res(cpu, mem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{corev1.ResourceCPU: qty(cpu), corev1.ResourceMemory: qty(mem)},
		Requests: corev1.ResourceList{corev1.ResourceCPU: qty(cpu), corev1.ResourceMemory: qty(mem)},
	}
}

func probe(port string) *corev1.Probe {
	p := &corev1.Probe{InitialDelaySeconds: 10, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.FromString(port)}
	return p
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}

func configVolume(cluster string) []corev1.Volume {
	return []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cluster + "-config"}}}}}
}

func configMount() []corev1.VolumeMount {
	return []corev1.VolumeMount{{Name: "config", MountPath: "/risingwave/config", ReadOnly: true}}
}

func conditions(ready bool) []corev1.PodCondition {
	r := corev1.ConditionFalse
	if ready {
		r = corev1.ConditionTrue
	}
	return []corev1.PodCondition{
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: r},
		{Type: corev1.ContainersReady, Status: r},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
	}
}

func basePod(ns, name, cluster, component, node, hostIP, podIP string, created time.Time, sts bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: types.UID("9d2e6f0a-1c4b-4a7e-8d3f-" + fmt.Sprintf("%012x", len(name)*7919)),
			CreationTimestamp: mt(created),
			Annotations:       map[string]string{"prometheus.io/scrape": "true"},
		},
		Spec: corev1.PodSpec{
			NodeName:           node,
			ServiceAccountName: "default",
			Priority:           ptr(int32(0)),
			Volumes:            configVolume(cluster),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			HostIP:    hostIP,
			PodIP:     podIP,
			PodIPs:    []corev1.PodIP{{IP: podIP}},
			StartTime: ptr(mt(created.Add(2 * time.Second))),
			QOSClass:  corev1.PodQOSGuaranteed,
		},
	}
	if sts {
		p.Labels = rwLabels(cluster, component, name)
		p.OwnerReferences = owner("StatefulSet", cluster+"-"+component)
	} else {
		p.Labels = rwLabels(cluster, component, "")
		p.Labels["pod-template-hash"] = "6d9f7c8b5"
		p.OwnerReferences = owner("ReplicaSet", cluster+"-"+component+"-6d9f7c8b5")
	}
	return p
}

func rwContainer(component string, svc, metrics int32, cpu, mem string, env []corev1.EnvVar) corev1.Container {
	return corev1.Container{
		Name:           component,
		Image:          image,
		Args:           []string{component + "-node"},
		Ports:          ports(svc, metrics),
		Resources:      res(cpu, mem),
		LivenessProbe:  probe("service"),
		ReadinessProbe: probe("service"),
		Env:            env,
		VolumeMounts:   configMount(),
	}
}

func commonEnv(cluster string) []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: "RUST_BACKTRACE", Value: "1"},
		{Name: "RW_CONFIG_PATH", Value: "/risingwave/config/risingwave.toml"},
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_IP", "status.podIP"),
		{Name: "RW_META_ADDR", Value: "load-balance+http://" + cluster + "-meta:5690"},
		{Name: "RW_STATE_STORE", Value: "hummock+s3://rw-prod-state"},
		secretEnv("AWS_SECRET_ACCESS_KEY", cluster+"-s3-credentials", "SecretAccessKey"),
	}
}

func cstatus(name, cid string, ready bool, restarts int32, state, last corev1.ContainerState) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: name, Ready: ready, RestartCount: restarts, Image: image,
		ImageID:              "ghcr.io/risingwavelabs/risingwave@sha256:5f0c2a9e7b1d4c3a8e6f2b0d9c7a5e3f1b8d6c4a2e0f9b7d5c3a1e8f6b4d2c0a",
		ContainerID:          "containerd://" + cid,
		State:                state,
		LastTerminationState: last,
		Started:              ptr(state.Running != nil),
	}
}

func running(t time.Time) corev1.ContainerState {
	return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: mt(t)}}
}

func waiting(reason string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
}

func terminated(reason string, code int32, start, end time.Time) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code, StartedAt: mt(start), FinishedAt: mt(end)}}
}

func event(pod *corev1.Pod, typ, reason, msg, fieldPath, component, host string, first, last time.Time, count int32) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: pod.Name + "." + fmt.Sprintf("%x", first.UnixNano()) + "." + reason, Namespace: pod.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, APIVersion: "v1", FieldPath: fieldPath},
		Type:           typ, Reason: reason, Message: msg,
		Source:         corev1.EventSource{Component: component, Host: host},
		FirstTimestamp: mt(first), LastTimestamp: mt(last), Count: count,
	}
}
