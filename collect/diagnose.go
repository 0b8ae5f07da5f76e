package collect

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/rwdiag/rwdiag/bundle"
)

// maxDiagnoseBytes caps the diagnose report and the await-tree dump.
const maxDiagnoseBytes = 64 << 20

// The meta dashboard's endpoints (facts §5.2, §5.3), and where they go.
var diagnoseEndpoints = []struct {
	name, suffix, path string
}{
	{"report", "api/monitor/diagnose/", "diagnose/report.txt"},
	{"await-tree", "api/monitor/await_tree/", "diagnose/await-tree.json"},
}

// metaPods are the meta pods with a dashboard port, the leader first.
func metaPods(pods []*corev1.Pod) []*corev1.Pod {
	var leaders, others []*corev1.Pod
	for _, p := range pods {
		if bundle.Component(p.Labels) != "meta" && bundle.Component(p.Labels) != "standalone" {
			continue
		}
		if _, ok := namedPort(p, "dashboard"); !ok {
			continue
		}
		if p.Labels["risingwave/meta-role"] == "leader" {
			leaders = append(leaders, p)
		} else {
			others = append(others, p)
		}
	}
	return append(leaders, others...)
}

// spawnDiagnose fetches the diagnose report and the await-tree dump from the
// meta leader's dashboard through the pod proxy, trying the other meta pods
// when it fails.
func (c *collector) spawnDiagnose(pods []*corev1.Pod) {
	metas := metaPods(pods)
	for _, ep := range diagnoseEndpoints {
		if len(metas) == 0 {
			c.recordError(StepDiagnose, ep.name, "no meta pod has a container port named dashboard", ep.path)
			continue
		}
		c.spawn(StepDiagnose, metas[0].Name, ep.path, func(func()) error {
			var errs []string
			for _, p := range metas {
				port, _ := namedPort(p, "dashboard")
				abs := proxyPath(c.kube.namespace, p.Name, port, ep.suffix)
				body, truncated, err := c.proxyGet(abs, maxDiagnoseBytes)
				if err != nil {
					errs = append(errs, proxyError(err).Error())
					if c.run.Err() != nil {
						break
					}
					continue
				}
				var partial error
				if truncated {
					partial = fmt.Errorf("cut at %s", formatBytes(maxDiagnoseBytes))
				}
				return c.writeData(ep.path, "kubectl get --raw "+abs, body, redactText, partial)
			}
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		})
	}
}
