package collect

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// kubectlJSON prints what `kubectl get -o json` prints: a List, keys sorted,
// four-space indent, HTML characters escaped as encoding/json does, no
// managedFields, a final newline.
func TestKubectlJSON(t *testing.T) {
	var item unstructured.Unstructured
	if err := json.Unmarshal([]byte(`{"kind":"ConfigMap","apiVersion":"v1",
		"metadata":{"name":"c","managedFields":[{"manager":"kubectl"}],"resourceVersion":"7"},
		"data":{"b":"x<y","a":"1"},"n":3,"f":0.5}`), &item.Object); err != nil {
		t.Fatal(err)
	}
	got, err := kubectlJSON([]unstructured.Unstructured{item})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "data": {
                "a": "1",
                "b": "x\u003cy"
            },
            "f": 0.5,
            "kind": "ConfigMap",
            "metadata": {
                "name": "c",
                "resourceVersion": "7"
            },
            "n": 3
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := item.Object["metadata"].(map[string]any)["managedFields"]; !ok {
		t.Error("kubectlJSON changed its input")
	}
	empty, _ := kubectlJSON(nil)
	if !strings.Contains(string(empty), `"items": [],`) {
		t.Errorf("empty list: %s", empty)
	}
}

func pod(name string, lbls map[string]string, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func TestSQLTargets(t *testing.T) {
	fe := func(ports ...corev1.ContainerPort) *corev1.Pod {
		return pod("rw-frontend-x", map[string]string{"risingwave/component": "frontend", "risingwave/name": "rw"}, func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{Name: "frontend", Ports: ports}}
			p.Status.PodIP = "10.1.2.3"
		})
	}
	svc := func(name string, sel map[string]string, ports ...corev1.ServicePort) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Selector: sel, Ports: ports}}
	}
	feSel := map[string]string{"risingwave/component": "frontend", "risingwave/name": "rw"}
	for _, tc := range []struct {
		name     string
		pods     []*corev1.Pod
		services []corev1.Service
		want     []string
	}{
		{"operator: port named service, Service maps it",
			[]*corev1.Pod{fe(corev1.ContainerPort{Name: "service", ContainerPort: 4567})},
			[]corev1.Service{
				svc("rw-meta", map[string]string{"risingwave/component": "meta"}, corev1.ServicePort{Name: "service", Port: 5690}),
				svc("rw-frontend", feSel, corev1.ServicePort{Name: "service", Port: 4567, TargetPort: intstr.FromString("service")}),
			},
			[]string{"rw-frontend.ns.svc:4567", "rw-frontend.ns.svc:4566"}},
		{"helm: port named svc, Service on another port",
			[]*corev1.Pod{fe(corev1.ContainerPort{Name: "svc", ContainerPort: 4567})},
			[]corev1.Service{svc("rw-frontend", feSel, corev1.ServicePort{Name: "svc", Port: 14567, TargetPort: intstr.FromInt32(4567)})},
			[]string{"rw-frontend.ns.svc:14567", "rw-frontend.ns.svc:4567", "rw-frontend.ns.svc:4566"}},
		{"no named port, no Service: the pod IP, 4567 then 4566",
			[]*corev1.Pod{fe()}, nil,
			[]string{"10.1.2.3:4567", "10.1.2.3:4566"}},
		{"no frontend", []*corev1.Pod{pod("rw-meta-0", map[string]string{"risingwave/component": "meta"}, nil)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tg := range sqlTargets("ns", tc.pods, tc.services, 30) {
				if !strings.HasPrefix(tg.dsn, "postgres://root@") || !strings.HasSuffix(tg.dsn, "/dev?connect_timeout=30") {
					t.Errorf("dsn %q", tg.dsn)
				}
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(tg.dsn, "postgres://root@"), "/dev?connect_timeout=30"))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("targets %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://root:pw@h:4567/dev":                       "postgres://root:xxxxx@h:4567/dev",
		"postgres://root@h:4567/dev":                          "postgres://root@h:4567/dev",
		"host=h port=4567 user=u password=pw":                 "host=h port=4567 user=u",
		"host=h port=4567 user=u PASSWORD=pw x":               "host=h port=4567 user=u x",
		"postgres://root@h/dev?sslmode=disable&password=pw-9": "postgres://root@h/dev?password=xxxxx&sslmode=disable",
	} {
		if got := redactDSN(in); got != want {
			t.Errorf("redactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
