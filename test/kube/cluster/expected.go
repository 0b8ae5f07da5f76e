package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// fillExpected works out Expected from the sample and what was created.
func (c *Cluster) fillExpected(root string) error {
	s := c.sample
	e := &c.expected
	e.Namespace = c.ns
	e.Objects = map[string][]string{}
	for _, file := range []string{"statefulsets", "deployments", "services", "events", "configmaps"} {
		for _, o := range s.lists[file] {
			e.Objects[file] = append(e.Objects[file], name(o))
		}
	}
	for key := range c.uids {
		if n, ok := strings.CutPrefix(key, "configmaps/"); ok && !slices.Contains(e.Objects["configmaps"], n) {
			e.Objects["configmaps"] = append(e.Objects["configmaps"], n)
		}
	}
	if !c.opts.WithoutCRD {
		for _, o := range s.lists["risingwaves"] {
			e.Objects["risingwaves"] = append(e.Objects["risingwaves"], name(o))
		}
	}
	for _, p := range s.lists["pods"] {
		e.Objects["pods"] = append(e.Objects["pods"], name(p))
	}
	for i := 0; i < c.opts.FillerPods; i++ {
		e.Objects["pods"] = append(e.Objects["pods"], c.fillerName(i))
	}
	for _, n := range c.nodeNames {
		e.Objects["nodes"] = append(e.Objects["nodes"], n)
	}
	for _, v := range e.Objects {
		slices.Sort(v)
	}

	e.Logs = map[string][]byte{}
	all := logOptions{timestamps: true, tail: -1, limit: -1}
	c.kubelet.mu.Lock()
	for podKey, containers := range c.kubelet.pods {
		_, pod, _ := strings.Cut(podKey, "/")
		restarts := map[string]int{}
		for _, p := range s.lists["pods"] {
			if name(p) == pod {
				restarts = restartCounts(p)
			}
		}
		for ct := range containers {
			base := "logs/" + pod + "/" + ct
			lf := c.kubelet.logs[podKey+"/"+ct]
			if lf == nil {
				lf = &logFile{}
			}
			e.Logs[base+".log"] = lf.render(all)
			if restarts[ct] > 0 {
				if prev := c.kubelet.logs[podKey+"/"+ct+"/previous"]; prev != nil {
					e.Logs[base+".previous.log"] = prev.render(all)
				} else {
					e.NoPrevious = append(e.NoPrevious, pod+"/"+ct)
				}
			}
		}
	}
	c.kubelet.mu.Unlock()
	slices.Sort(e.NoPrevious)

	e.Snapshots = map[string]int{}
	for _, p := range s.lists["pods"] {
		if _, ok := namedPorts(p)["metrics"]; ok {
			e.Scraped = append(e.Scraped, name(p))
			e.Snapshots[name(p)] = len(s.scrapes[name(p)])
		}
	}
	for i := 0; i < c.opts.FillerPods; i++ {
		if c.fillerMetrics {
			e.Scraped = append(e.Scraped, c.fillerName(i))
			e.Snapshots[c.fillerName(i)] = 1
		}
	}
	slices.Sort(e.Scraped)

	e.Diagnose = map[string][]byte{}
	for _, d := range dashboardFiles {
		if b, ok := s.dashboard[d.suffix]; ok {
			e.Diagnose[d.path] = b
		}
	}

	slices.Sort(e.SQLTables)
	e.SQLFiles = map[string][]byte{}
	for _, f := range s.sqlFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		e.SQLFiles["sql/"+filepath.Base(f)] = b
	}
	if c.pg != nil {
		e.SQLUnsupported = []string{"SHOW PARAMETERS", "SHOW JOBS", "EXPLAIN CREATE MATERIALIZED VIEW/SINK (the sources they read are not tables here)"}
	}

	if root != "" {
		f, err := sampleFindings(filepath.Join(root, "samples", "expectations_test.yaml"), s.dir, root)
		if err != nil {
			return err
		}
		e.Findings = f
	}
	return nil
}

// sampleFindings reads the expected findings of the sample's case in
// samples/expectations_test.yaml (the first case whose bundle is the
// sample's directory relative to samples/).
func sampleFindings(path, sampleDir, root string) ([]Finding, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Tests []struct {
			Name   string `json:"name"`
			Bundle string `json:"bundle"`
			Expect []struct {
				Rule     string `json:"rule"`
				Subject  string `json:"subject"`
				Severity string `json:"severity"`
				Status   string `json:"status"`
			} `json:"expect"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rel, err := filepath.Rel(filepath.Join(root, "samples"), sampleDir)
	if err != nil {
		return nil, nil
	}
	for _, cs := range doc.Tests {
		if filepath.Clean(cs.Bundle) != rel {
			continue
		}
		out := []Finding{}
		for _, x := range cs.Expect {
			out = append(out, Finding{Rule: x.Rule, Subject: x.Subject, Severity: x.Severity, Status: x.Status})
		}
		return out, nil
	}
	return nil, nil
}
