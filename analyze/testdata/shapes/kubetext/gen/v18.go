//go:build v18

package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/describe"
)

const restartsType = "integer"
const agoRestarts = false

func settings() describe.DescriberSettings {
	return describe.DescriberSettings{ShowEvents: true}
}

func fixtureTexts(now time.Time) map[string]string {
	var pods []*corev1.Pod
	for _, pe := range legacy(now) {
		pods = append(pods, pe.pod)
	}
	return map[string]string{
		"v1.18-describe-oom-init.txt": describeAll(legacy(now)),
		"v1.18-get-pods-wide.txt":     table(pods, now, printers.PrintOptions{Wide: true}),
	}
}
