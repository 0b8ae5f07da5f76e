package collect

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestLogTasksOrder(t *testing.T) {
	rw := func(c string) map[string]string { return map[string]string{"risingwave/component": c} }
	healthy := pod("a-meta-0", rw("meta"), func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "meta"}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "meta", Ready: true}}
	})
	notReady := pod("b-frontend", rw("frontend"), func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "frontend"}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "frontend"}}
	})
	oom := pod("z-compute-0", rw("compute"), func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "init"}, {Name: "never-ran"}}
		p.Spec.Containers = []corev1.Container{{Name: "compute"}, {Name: "sidecar"}}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{
			{Name: "init", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}},
			{Name: "never-ran", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}},
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{
			{Name: "compute", RestartCount: 6,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}},
			{Name: "sidecar", Ready: true},
		}
	})
	restarted := pod("c-compactor", rw("compactor"), func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "compactor"}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "compactor", Ready: true, RestartCount: 1,
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}}}
	})
	var got []string
	for _, lt := range logTasks([]*corev1.Pod{healthy, notReady, oom, restarted}) {
		s := fmt.Sprintf("%s/%s", lt.pod.Name, lt.container)
		if lt.previous {
			s += "/previous"
		}
		got = append(got, s)
	}
	want := []string{
		"z-compute-0/init", "z-compute-0/compute/previous", "z-compute-0/compute", "z-compute-0/sidecar",
		"c-compactor/compactor/previous", "c-compactor/compactor",
		"b-frontend/frontend",
		"a-meta-0/meta",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order\n %q\nwant\n %q", got, want)
	}
	if r, why := health(oom); r != 3 || why != "compute OOMKilled" {
		t.Errorf("health(oom) = %d %q", r, why)
	}
}

func TestLogBudgetClaim(t *testing.T) {
	b := &logBudget{remaining: 10}
	if got := b.claim(4); got != 4 || b.left() != 6 {
		t.Errorf("claim 4: got %d, left %d", got, b.left())
	}
	if got := b.claim(9); got != 6 || b.left() != 0 {
		t.Errorf("claim 9: got %d, left %d", got, b.left())
	}
	if got := b.claim(1); got != 0 {
		t.Errorf("claim from nothing: got %d", got)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1023: "1023B", 1024: "1KiB", 1536: "1.5KiB", 50 << 20: "50MiB", 1 << 30: "1GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
