package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const ns = "risingwave"

// oomCrashLoop: rw-prod-compute-0 OOM-killed six times and in
// CrashLoopBackOff; rw-prod-compute-1 healthy.
func oomCrashLoop(now time.Time) []podEvents {
	created := now.Add(-(2*24*time.Hour + 4*time.Hour + 17*time.Minute))
	c0 := basePod(ns, "rw-prod-compute-0", "rw-prod", "compute", "ip-10-0-12-34.ec2.internal", "10.0.12.34", "10.1.4.21", created, true)
	env := append(commonEnv("rw-prod"),
		corev1.EnvVar{Name: "RW_TOTAL_MEMORY_BYTES", Value: "17179869184"},
		corev1.EnvVar{Name: "RW_PARALLELISM", Value: "4"},
	)
	c0.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "4", "16Gi", env)}
	lastEnd := now.Add(-(2*time.Minute + 13*time.Second))
	c0.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compute", "8b1e0c5d2f7a4936b0e4d7c2a9f31e6d5b8c0a7f2e4d6b9c1a3f5e7d9b2c4a6e", false, 6,
		waiting("CrashLoopBackOff"),
		terminated("OOMKilled", 137, lastEnd.Add(-(3*time.Minute+41*time.Second)), lastEnd))}
	c0.Status.Conditions = conditions(false)
	ev0 := []corev1.Event{
		event(c0, "Normal", "Pulled", "Container image \""+image+"\" already present on machine", "spec.containers{compute}", "kubelet", "ip-10-0-12-34.ec2.internal", now.Add(-41*time.Minute), now.Add(-(7*time.Minute + 55*time.Second)), 7),
		event(c0, "Normal", "Created", "Created container: compute", "spec.containers{compute}", "kubelet", "ip-10-0-12-34.ec2.internal", now.Add(-41*time.Minute), now.Add(-(7*time.Minute + 55*time.Second)), 7),
		event(c0, "Normal", "Started", "Started container compute", "spec.containers{compute}", "kubelet", "ip-10-0-12-34.ec2.internal", now.Add(-41*time.Minute), now.Add(-(7*time.Minute + 54*time.Second)), 7),
		event(c0, "Warning", "BackOff", "Back-off restarting failed container compute in pod rw-prod-compute-0_risingwave("+string(c0.UID)+")", "spec.containers{compute}", "kubelet", "ip-10-0-12-34.ec2.internal", now.Add(-25*time.Minute), now.Add(-12*time.Second), 31),
	}

	c1 := basePod(ns, "rw-prod-compute-1", "rw-prod", "compute", "ip-10-0-12-71.ec2.internal", "10.0.12.71", "10.1.5.8", created, true)
	c1.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "4", "16Gi", env)}
	c1.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compute", "1f4c7a9e2b5d8c0e3a6f9b2d5c8e1a4f7b0d3c6e9a2f5b8d1c4e7a0f3b6d9c2e", true, 0,
		running(created.Add(9*time.Second)), corev1.ContainerState{})}
	c1.Status.Conditions = conditions(true)
	return []podEvents{{c0, ev0}, {c1, nil}}
}

// nearMisses: restarts that are not OOM kills.
func nearMisses(now time.Time) []podEvents {
	created := now.Add(-(3*24*time.Hour + 2*time.Hour))
	env := commonEnv("rw-prod")

	// A liveness-probe kill: exit 137, reason Error.
	c2 := basePod(ns, "rw-prod-compute-2", "rw-prod", "compute", "ip-10-0-13-5.ec2.internal", "10.0.13.5", "10.1.6.30", created, true)
	c2.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "4", "16Gi", append(env, corev1.EnvVar{Name: "RW_TOTAL_MEMORY_BYTES", Value: "17179869184"}))}
	kill := now.Add(-41 * time.Minute)
	c2.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compute", "2a5d8f1c4e7b0a3d6f9c2e5b8a1d4f7c0e3b6a9d2f5c8e1b4a7d0f3c6e9b2a5d", true, 3,
		running(kill.Add(time.Second)), terminated("Error", 137, kill.Add(-5*time.Hour), kill))}
	c2.Status.Conditions = conditions(true)
	ev2 := []corev1.Event{
		event(c2, "Warning", "Unhealthy", "Liveness probe failed: dial tcp 10.1.6.30:5688: connect: connection refused", "spec.containers{compute}", "kubelet", "", now.Add(-(43 * time.Minute)), now.Add(-(41*time.Minute + 20*time.Second)), 3),
		event(c2, "Normal", "Killing", "Container compute failed liveness probe, will be restarted", "spec.containers{compute}", "kubelet", "", now.Add(-(41*time.Minute + 20*time.Second)), now.Add(-(41*time.Minute + 20*time.Second)), 1),
	}

	// A rolling restart: Completed, exit 0.
	m0 := basePod(ns, "rw-prod-meta-0", "rw-prod", "meta", "ip-10-0-11-9.ec2.internal", "10.0.11.9", "10.1.2.14", created, true)
	m0.Spec.Containers = []corev1.Container{rwContainer("meta", 5690, 1250, "1", "4Gi", env)}
	m0.Labels["risingwave/meta-role"] = "leader"
	up := now.Add(-(26 * time.Hour))
	m0.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("meta", "3b6e9a2d5f8c1b4e7a0d3f6c9b2e5a8d1f4c7b0e3a6d9f2c5b8e1a4d7f0c3b6e", true, 1,
		running(up.Add(3*time.Second)), terminated("Completed", 0, created.Add(8*time.Second), up))}
	m0.Status.Conditions = conditions(true)

	// A crash: Error, exit 1, not ready.
	cp := basePod(ns, "rw-prod-compactor-6d9f7c8b5-x2x7q", "rw-prod", "compactor", "ip-10-0-13-5.ec2.internal", "10.0.13.5", "10.1.6.31", created, false)
	cp.Spec.Containers = []corev1.Container{rwContainer("compactor", 6660, 1260, "2", "4Gi", env)}
	crash := now.Add(-(50 * time.Second))
	cp.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compactor", "4c7f0b3e6a9d2c5f8b1e4a7d0c3f6b9e2a5d8c1f4b7e0a3d6c9f2b5e8a1d4c7f", false, 2,
		running(crash.Add(20*time.Second)), terminated("Error", 1, crash.Add(-(6*time.Minute)), crash))}
	cp.Status.Conditions = conditions(false)

	// A frontend being deleted.
	fe := basePod(ns, "rw-prod-frontend-6d9f7c8b5-kq4zn", "rw-prod", "frontend", "ip-10-0-11-9.ec2.internal", "10.0.11.9", "10.1.2.40", created, false)
	fe.Spec.Containers = []corev1.Container{rwContainer("frontend", 4567, 8080, "1", "2Gi", env)}
	fe.DeletionTimestamp = ptr(mt(now.Add(-40 * time.Second)))
	fe.DeletionGracePeriodSeconds = ptr(int64(30))
	fe.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("frontend", "5d8a1c4f7b0e3a6d9c2f5b8e1a4d7c0f3b6e9a2d5c8f1b4e7a0d3c6f9b2e5a8d", true, 0,
		running(created.Add(6*time.Second)), corev1.ContainerState{})}
	fe.Status.Conditions = conditions(true)
	evfe := []corev1.Event{
		event(fe, "Normal", "Killing", "Stopping container frontend", "spec.containers{frontend}", "kubelet", "", now.Add(-40*time.Second), now.Add(-40*time.Second), 1),
	}

	// An evicted compactor: the pod failed, reason Evicted.
	ev := basePod(ns, "rw-prod-compactor-6d9f7c8b5-7wz9m", "rw-prod", "compactor", "ip-10-0-12-34.ec2.internal", "10.0.12.34", "10.1.4.77", created, false)
	ev.Spec.Containers = []corev1.Container{rwContainer("compactor", 6660, 1260, "2", "4Gi", env)}
	ev.Status.Phase = corev1.PodFailed
	ev.Status.Reason = "Evicted"
	ev.Status.Message = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87Mi. Container compactor was using 3874Mi, request is 4Gi, has larger consumption of memory. "
	ev.Status.PodIP = ""
	ev.Status.PodIPs = nil
	ev.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compactor", "6e9b2d5a8c1f4e7b0d3a6c9f2e5b8d1a4c7f0e3b6d9a2c5f8e1b4d7a0c3f6e9b", false, 0,
		terminated("ContainerStatusUnknown", 137, time.Time{}, now.Add(-5*time.Hour)), corev1.ContainerState{})}
	ev.Status.ContainerStatuses[0].State.Terminated.Message = "The container could not be located when the pod was terminated"
	ev.Status.Conditions = conditions(false)
	evev := []corev1.Event{
		event(ev, "Warning", "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87Mi. Container compactor was using 3874Mi, request is 4Gi, has larger consumption of memory.", "", "kubelet", "", now.Add(-5*time.Hour), now.Add(-5*time.Hour), 1),
	}
	return []podEvents{{c2, ev2}, {m0, nil}, {cp, nil}, {fe, evfe}, {ev, evev}}
}

// legacy: an older cluster described by an older kubectl. compute-0 was
// OOM-killed twice and runs again; meta-0 waits on its init container.
func legacy(now time.Time) []podEvents {
	cst := time.FixedZone("CST", 8*3600)
	created := now.Add(-(5*time.Hour + 12*time.Minute)).In(cst)
	c0 := basePod("rw-legacy", "rw-legacy-compute-0", "rw-legacy", "compute", "node-3", "192.168.7.13", "172.20.3.45", created, true)
	c0.Status.StartTime = ptr(mt(created.Add(2 * time.Second)))
	c0.Spec.InitContainers = []corev1.Container{{Name: "init-config", Image: "busybox:1.36", Command: []string{"sh", "-c", "cp /config-template/* /risingwave/config/"}, VolumeMounts: configMount()}}
	c0.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "8", "32Gi", append(commonEnv("rw-legacy"), corev1.EnvVar{Name: "RW_TOTAL_MEMORY_BYTES", Value: "34359738368"}))}
	c0.Status.InitContainerStatuses = []corev1.ContainerStatus{cstatus("init-config", "7f0c3e6b9d2a5f8c1e4b7d0a3f6c9e2b5d8a1f4c7e0b3d6a9f2c5e8b1d4a7f0c", true, 0,
		terminated("Completed", 0, created.Add(3*time.Second), created.Add(4*time.Second)), corev1.ContainerState{})}
	c0.Status.InitContainerStatuses[0].Image = "busybox:1.36"
	c0.Status.InitContainerStatuses[0].ImageID = "docker.io/library/busybox@sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7"
	oom := now.Add(-(18 * time.Minute)).In(cst)
	c0.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compute", "8a1d4f7c0e3b6a9d2f5c8e1b4a7d0f3c6e9b2a5d8f1c4e7b0a3d6f9c2e5b8a1d", true, 2,
		running(oom.Add(time.Second)), terminated("OOMKilled", 137, oom.Add(-(47*time.Minute)), oom))}
	c0.Status.Conditions = conditions(true)
	ev0 := []corev1.Event{
		event(c0, "Normal", "Pulled", "Container image \""+image+"\" already present on machine", "spec.containers{compute}", "kubelet", "node-3", now.Add(-(5 * time.Hour)), now.Add(-(18 * time.Minute)), 3),
		event(c0, "Warning", "BackOff", "Back-off restarting failed container", "spec.containers{compute}", "kubelet", "node-3", now.Add(-(65 * time.Minute)), now.Add(-(18 * time.Minute)), 2),
		// The node's clock runs ahead: kubectl prints <invalid> for an age in the future.
		event(c0, "Normal", "Started", "Started container compute", "spec.containers{compute}", "kubelet", "node-3", now.Add(3*time.Minute), now.Add(3*time.Minute), 1),
	}

	m0 := basePod("rw-legacy", "rw-legacy-meta-0", "rw-legacy", "meta", "node-1", "192.168.7.11", "172.20.1.9", now.Add(-(4 * time.Minute)).In(cst), true)
	m0.Spec.InitContainers = []corev1.Container{{Name: "wait-etcd", Image: "busybox:1.36", Command: []string{"sh", "-c", "until nc -z rw-legacy-etcd 2379; do sleep 2; done"}}}
	m0.Spec.Containers = []corev1.Container{rwContainer("meta", 5690, 1250, "1", "4Gi", commonEnv("rw-legacy"))}
	m0.Status.Phase = corev1.PodPending
	m0.Status.InitContainerStatuses = []corev1.ContainerStatus{cstatus("wait-etcd", "9b2e5a8d1f4c7b0e3a6d9f2c5b8e1a4d7f0c3b6e9a2d5f8c1b4e7a0d3f6c9b2e", false, 0,
		running(now.Add(-(3*time.Minute + 50*time.Second)).In(cst)), corev1.ContainerState{})}
	m0.Status.InitContainerStatuses[0].Image = "busybox:1.36"
	m0.Status.InitContainerStatuses[0].ImageID = "docker.io/library/busybox@sha256:9ae97d36d26566ff84e8893c64a6dc4fe8ca6d1144bf5b87b2b85a32def253c7"
	m0.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "meta", Image: image, State: waiting("PodInitializing")}}
	m0.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodInitialized, Status: corev1.ConditionFalse},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse},
		{Type: corev1.ContainersReady, Status: corev1.ConditionFalse},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
	}
	m0.Status.QOSClass = corev1.PodQOSBurstable
	ev1 := []corev1.Event{
		event(m0, "Normal", "Scheduled", "Successfully assigned rw-legacy/rw-legacy-meta-0 to node-1", "", "default-scheduler", "", now.Add(-(4 * time.Minute)), now.Add(-(4 * time.Minute)), 1),
	}
	return []podEvents{{c0, ev0}, {m0, ev1}}
}

// tablePods are the pods of the get-pods fixtures: those above plus a
// pending pod, a job pod that completed and one whose container was just
// OOM-killed.
func tablePods(now time.Time) []*corev1.Pod {
	var pods []*corev1.Pod
	for _, set := range [][]podEvents{oomCrashLoop(now), nearMisses(now)} {
		for _, pe := range set {
			pods = append(pods, pe.pod)
		}
	}
	created := now.Add(-(2*24*time.Hour + 4*time.Hour + 17*time.Minute))
	// compute-3 just OOM-killed: State Terminated OOMKilled, before the back-off.
	c3 := basePod(ns, "rw-prod-compute-3", "rw-prod", "compute", "ip-10-0-14-2.ec2.internal", "10.0.14.2", "10.1.7.3", created, true)
	c3.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "4", "16Gi", nil)}
	end := now.Add(-(4 * time.Second))
	c3.Status.ContainerStatuses = []corev1.ContainerStatus{cstatus("compute", "aa", false, 2,
		terminated("OOMKilled", 137, end.Add(-(30*time.Minute)), end), terminated("OOMKilled", 137, end.Add(-(3*time.Hour)), end.Add(-(31*time.Minute))))}
	// The server reports the pod's last restart from lastState only; keep it.
	pods = append(pods, c3)

	// A pending compute pod that no node can take.
	c4 := basePod(ns, "rw-prod-compute-4", "rw-prod", "compute", "", "", "", now.Add(-(7 * time.Minute)), true)
	c4.Spec.Containers = []corev1.Container{rwContainer("compute", 5688, 1222, "4", "16Gi", nil)}
	c4.Status = corev1.PodStatus{Phase: corev1.PodPending}
	pods = append(pods, c4)

	// A backup job that completed.
	job := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "rw-prod-backup-29411520-8xk2p", Namespace: ns, CreationTimestamp: mt(now.Add(-(5*time.Hour + 3*time.Minute)))},
		Spec:       corev1.PodSpec{NodeName: "ip-10-0-11-9.ec2.internal", Containers: []corev1.Container{{Name: "backup", Image: image}}},
		Status: corev1.PodStatus{Phase: corev1.PodSucceeded, PodIP: "10.1.2.77", PodIPs: []corev1.PodIP{{IP: "10.1.2.77"}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "backup", State: terminated("Completed", 0, now.Add(-(5 * time.Hour)), now.Add(-(4*time.Hour + 58*time.Minute)))}}},
	}
	pods = append(pods, job)
	return pods
}

// otherNamespacePods are extra pods for the -A fixture.
func otherNamespacePods(now time.Time) []*corev1.Pod {
	var pods []*corev1.Pod
	for _, pe := range legacy(now) {
		pods = append(pods, pe.pod)
	}
	op := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "risingwave-operator-7b9c5d6f4-lm8vt", Namespace: "risingwave-operator-system", CreationTimestamp: mt(now.Add(-(41 * 24 * time.Hour)))},
		Spec:       corev1.PodSpec{NodeName: "ip-10-0-11-9.ec2.internal", Containers: []corev1.Container{{Name: "manager", Image: "ghcr.io/risingwavelabs/risingwave-operator:v0.8.3"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.2.5", PodIPs: []corev1.PodIP{{IP: "10.1.2.5"}},
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "manager", Ready: true, State: running(now.Add(-(41 * 24 * time.Hour)))}}},
	}
	// An init container that keeps crashing.
	ic := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "rw-dev-meta-0", Namespace: "rw-dev", CreationTimestamp: mt(now.Add(-(12 * time.Minute)))},
		Spec: corev1.PodSpec{NodeName: "node-2",
			InitContainers: []corev1.Container{{Name: "init-schema", Image: "postgres:16"}},
			Containers:     []corev1.Container{{Name: "meta", Image: image}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, PodIP: "172.20.2.31", PodIPs: []corev1.PodIP{{IP: "172.20.2.31"}},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "init-schema", RestartCount: 7, State: waiting("CrashLoopBackOff"),
				LastTerminationState: terminated("Error", 2, now.Add(-(3 * time.Minute)), now.Add(-(2*time.Minute + 58*time.Second)))}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "meta", State: waiting("PodInitializing")}}},
	}
	return append(pods, op, ic)
}
