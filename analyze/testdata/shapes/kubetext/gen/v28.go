//go:build v28

package main

import (
	"time"

	"k8s.io/kubectl/pkg/describe"
)

const restartsType = "string"
const agoRestarts = true

func settings() describe.DescriberSettings {
	return describe.DescriberSettings{ShowEvents: true, ChunkSize: 500}
}

func fixtureTexts(now time.Time) map[string]string {
	return map[string]string{
		"v1.28-describe-near-misses.txt": describeAll(nearMisses(now)),
	}
}
