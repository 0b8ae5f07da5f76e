//go:build v37

package main

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/describe"
)

const restartsType = "string"
const agoRestarts = true

func settings() describe.DescriberSettings {
	return describe.DescriberSettings{ShowEvents: true, ChunkSize: 500}
}

func fixtureTexts(now time.Time) map[string]string {
	rw := tablePods(now)
	all := append(append([]*corev1.Pod{}, rw...), otherNamespacePods(now)...)
	pasted := "```console\n$ kubectl describe pod rw-prod-compute-0 -n risingwave\n" + describeAll(oomCrashLoop(now)[:1]) + "```\n"
	pasted = strings.ReplaceAll(pasted, "\n", "\r\n")
	tablePasted := "➜  ~ kubectl get pods -n risingwave\n" + table(rw, now, printers.PrintOptions{}) + "➜  ~\n"
	return map[string]string{
		"v1.37-describe-pasted-crlf.txt":    pasted,
		"v1.37-get-pods-pasted.txt":         tablePasted,
		"v1.37-describe-oom-crashloop.txt":  describeAll(oomCrashLoop(now)),
		"v1.37-get-pods.txt":                table(rw, now, printers.PrintOptions{}),
		"v1.37-get-pods-wide.txt":           table(rw, now, printers.PrintOptions{Wide: true}),
		"v1.37-get-pods-all-namespaces.txt": table(all, now, printers.PrintOptions{WithNamespace: true}),
	}
}
