package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Versions the samples run.
var (
	vNightly = Version{Tag: "nightly-20261124", Semver: "3.1.0-alpha", Major: 3, Minor: 1, Nightly: true, GitSHA: "4c8e1a2"}
	v1_10_0  = Version{Tag: "v1.10.0", Semver: "1.10.0", Major: 1, Minor: 10, GitSHA: "8e7b6a1"}
	v2_3_1   = Version{Tag: "v2.3.1", Semver: "2.3.1", Major: 2, Minor: 3, GitSHA: "a61d3c9"}
	v2_4_2   = Version{Tag: "v2.4.2", Semver: "2.4.2", Major: 2, Minor: 4, GitSHA: "0f3b2e7"}
	v2_6_1   = Version{Tag: "v2.6.1", Semver: "2.6.1", Major: 2, Minor: 6, GitSHA: "d20c5f4"}
	v2_7_1   = Version{Tag: "v2.7.1", Semver: "2.7.1", Major: 2, Minor: 7, GitSHA: "5b91e08"}
	v2_8_0   = Version{Tag: "v2.8.0", Semver: "2.8.0", Major: 2, Minor: 8, GitSHA: "c3e4d19"}
	v3_0_3   = Version{Tag: "v3.0.3", Semver: "3.0.3", Major: 3, Minor: 0, GitSHA: "b3a1d2c"}
)

// clusterSpec sets up a sample's cluster.
type clusterSpec struct {
	name, namespace, release, chart string
	inst                            Installer
	version                         Version
	logs                            LogStyle
	cloud                           string
	metaStore                       string
	collect                         time.Time
	scrapes                         int
	every                           time.Duration
	done                            time.Duration // after collect
	logSince                        time.Duration
}

func (s *Sim) setup(c clusterSpec) {
	s.Cluster, s.Namespace, s.Release, s.Chart = c.name, c.namespace, c.release, c.chart
	s.Inst, s.Version, s.Logs = c.inst, c.version, c.logs
	if s.Logs.Digits == 0 {
		s.Logs.Digits = 9
	}
	s.Cloud, s.MetaStore = c.cloud, c.metaStore
	s.Bucket = c.name + "-hummock"
	s.Collect, s.Scrapes, s.ScrapeEvery = c.collect, c.scrapes, c.every
	s.Done = c.collect.Add(c.done)
	s.LogSince = c.logSince
	s.Params = map[string]string{}
	for i := 0; i < 4; i++ {
		switch c.cloud {
		case "gcp":
			s.nodes = append(s.nodes, fmt.Sprintf("gke-%s-default-pool-%s-%s", c.name, hexID(c.name+"pool", 8), alnum5(fmt.Sprint(c.name, i))[:4]))
		case "azure":
			s.nodes = append(s.nodes, fmt.Sprintf("aks-nodepool1-31718369-vmss%06d", 2+i*3))
		default:
			s.nodes = append(s.nodes, fmt.Sprintf("ip-10-0-%d-%d.eu-west-1.compute.internal", 1+i, 17+i*29))
		}
	}
}

// topo adds the usual pods: one meta, one frontend, one compactor and n
// compute nodes, plus extra healthy compute nodes (see noisePodCount).
func (s *Sim) topo(n, cpu int, mem string, created time.Time, firstWorker int) []*Pod {
	s.addPod("meta", 0, 2, "4Gi", created)
	s.addPod("frontend", 0, 2, "4Gi", created.Add(4*time.Second))
	s.addPod("compactor", 0, 4, "8Gi", created.Add(5*time.Second))
	var cns []*Pod
	for i := 0; i < n; i++ {
		cns = append(cns, s.addPod("compute", i, cpu, mem, created.Add(time.Duration(3+i)*time.Second)))
	}
	for i := range s.noisePodCount() {
		p := s.addPod("compute", n+i, cpu, mem, created.Add(time.Duration(3+n+i)*time.Second))
		p.Noise = true
	}
	s.assignWorkers(firstWorker)
	return cns
}

// noisePodCount is how many healthy compute pods to add to the RisingWave
// pods added so far: ⌊log₂ scale⌋, or with -size as many as make up
// Large.Pods.
func (s *Sim) noisePodCount() int {
	if s.Large.Pods == 0 {
		return log2(s.Scale)
	}
	n := 0
	for _, p := range s.Pods {
		if p.Other == "" {
			n++
		}
	}
	return max(0, s.Large.Pods-n)
}

// noisePods are the extra compute pods -scale or -size added.
func (s *Sim) noisePods() []*Pod {
	var out []*Pod
	for _, p := range s.pods("compute") {
		if p.Noise {
			out = append(out, p)
		}
	}
	return out
}

// kafkaTable adds CREATE TABLE … WITH (connector = 'kafka'): a source
// fragment and the table's materialize fragment.
func (s *Sim) kafkaTable(name, topic string, parts int, cols string, on []*Pod, par int, created time.Time, extra ...[2]string) *Source {
	c := s.Cat
	bootstrap := "kafka-0.kafka-headless.kafka.svc:9092,kafka-1.kafka-headless.kafka.svc:9092,kafka-2.kafka-headless.kafka.svc:9092"
	props := [][2]string{{"connector", "kafka"}, {"properties.bootstrap.server", bootstrap}, {"topic", topic}, {"scan.startup.mode", "earliest"}}
	props = append(props, extra...)
	def := fmt.Sprintf("CREATE TABLE %s (%s) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON",
		name, cols, topic, strings.Split(bootstrap, ",")[0])
	j := c.job("table", name, def, created)
	src := &Source{ID: c.id(), Name: name, Topic: topic, Partitions: parts, Bootstrap: bootstrap, Props: props, Job: j,
		perSec: math.Round(400 + 3000*unit(name+"r"))}
	src.Frag = c.frag(j, "source", on, par, 0)
	c.frag(j, "mview", on, par, 0, src.Frag)
	j.Source = src
	c.Sources = append(c.Sources, src)
	return src
}

// kafkaSource adds a shared CREATE SOURCE.
func (s *Sim) kafkaSource(name, topic string, parts int, cols string, on []*Pod, par int, created time.Time, extra ...[2]string) *Source {
	c := s.Cat
	bootstrap := "b-1.events-msk.kafka.eu-west-1.amazonaws.com:9096,b-2.events-msk.kafka.eu-west-1.amazonaws.com:9096"
	props := [][2]string{{"connector", "kafka"}, {"properties.bootstrap.server", bootstrap}, {"topic", topic}}
	props = append(props, extra...)
	def := fmt.Sprintf("CREATE SOURCE %s (%s) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', properties.security.protocol = 'SASL_SSL', properties.sasl.mechanism = 'SCRAM-SHA-512', properties.sasl.username = 'rw-ingest', properties.sasl.password = '***') FORMAT PLAIN ENCODE JSON",
		name, cols, topic, strings.Split(bootstrap, ",")[0])
	j := c.job("source", name, def, created)
	src := &Source{ID: j.ID, Name: name, Topic: topic, Partitions: parts, Bootstrap: bootstrap, Props: props, Job: j, Shared: true,
		perSec: math.Round(400 + 3000*unit(name+"r"))}
	src.Frag = c.frag(j, "source", on, par, 0)
	j.Source = src
	c.Sources = append(c.Sources, src)
	return src
}

// plainTable adds a table fed by INSERTs.
func (s *Sim) plainTable(name, cols string, on []*Pod, par int, rate float64, created time.Time) *Job {
	c := s.Cat
	j := c.job("table", name, fmt.Sprintf("CREATE TABLE %s (%s)", name, cols), created)
	dml := c.frag(j, "dml", on, 1, rate*float64(par))
	c.frag(j, "mview", on, par, rate, dml)
	return j
}

// upstreamOf is the fragment an MV reading job j takes its input from.
func upstreamOf(j *Job) *Fragment {
	if f := j.fragOf("mview"); f != nil {
		return f
	}
	for _, f := range j.Frags {
		if f.mview {
			return f
		}
	}
	return j.fragOf("source")
}

// aggMV adds an aggregation MV: a scan of its upstream and a hash agg that
// materializes.
func (s *Sim) aggMV(name, def string, from *Job, on []*Pod, par int, rate float64, created time.Time) *Job {
	c := s.Cat
	j := c.job("materialized view", name, def, created)
	j.Upstream = from.Name
	in := upstreamOf(from)
	kind := "scan"
	if from.Kind == "source" {
		kind = "project"
	}
	scan := c.frag(j, kind, on, par, rate, in)
	scan.Backfill = flat(0)
	c.frag(j, "agg", on, par, rate*0.6, scan).asMview()
	return j
}

// joinMV adds a join MV over two upstream jobs.
func (s *Sim) joinMV(name, def string, left, right *Job, on []*Pod, par int, rate float64, created time.Time) *Job {
	c := s.Cat
	j := c.job("materialized view", name, def, created)
	j.Upstream = left.Name
	l := c.frag(j, "scan", on, par, rate, upstreamOf(left))
	l.Backfill = flat(0)
	r := c.frag(j, "scan", on, par, rate*0.2, upstreamOf(right))
	r.Backfill = flat(0)
	c.frag(j, "join", on, par, rate*0.9, l, r).asMview()
	return j
}

// sink adds a sink reading an MV.
func (s *Sim) sink(name, connector, typ, def string, from *Job, on []*Pod, par int, rate float64, created time.Time, props [][2]string) *Sink {
	c := s.Cat
	j := c.job("sink", name, def, created)
	sk := &Sink{ID: j.ID, Name: name, Connector: connector, Type: typ, Props: props, From: from, Job: j}
	c.frag(j, "sink", on, par, rate, upstreamOf(from))
	j.Sink = sk
	c.Sinks = append(c.Sinks, sk)
	return sk
}

// noiseJobNames are the unrelated jobs -scale adds, cycled.
var noiseJobNames = []string{"mv_report_hourly", "mv_region_rollup", "mv_inventory_snapshot", "mv_fraud_signals",
	"mv_latency_p99", "mv_campaign_clicks", "mv_ledger_balances", "mv_device_status"}

// noiseJobs adds 4·(scale−1) unrelated aggregation MVs over from (with
// -size, Large.Jobs), spread over every compute pod, the extra ones
// included.
func (s *Sim) noiseJobs(from *Job, created time.Time) {
	on := s.pods("compute")
	n := 4 * (s.Scale - 1)
	if s.Large.Jobs > 0 {
		n = s.Large.Jobs
	}
	for i := range n {
		name := fmt.Sprintf("%s_%04d", noiseJobNames[i%len(noiseJobNames)], i/len(noiseJobNames))
		def := fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS SELECT count(*) AS n FROM %s", name, from.Name)
		j := s.aggMV(name, def, from, on, len(on), 50+float64(i%17)*30, created.Add(time.Duration(i)*time.Minute))
		j.Noise = true
	}
}

// computeOf returns the compute pods that are not noise.
func (s *Sim) computes() []*Pod {
	var out []*Pod
	for _, p := range s.pods("compute") {
		if !p.Noise {
			out = append(out, p)
		}
	}
	return out
}
