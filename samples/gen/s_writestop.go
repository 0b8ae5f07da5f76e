package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() {
	scenarios = append(scenarios,
		scenario{"compaction-write-stop", 0xc0a1e5, buildCompactionWriteStop},
		scenario{"object-store-write-stop", 0x0b15c0, buildObjectStoreWriteStop})
}

// writeStopModel is what R1's scenarios add to the generator's families:
// the meta node's Hummock levels and write stop (the built-in families show
// no stop), object store metrics per pod, and the compaction group dump.
type writeStopModel struct {
	sim     *Sim
	group   int       // the compaction group that piles up
	members []int     // its state tables
	stopAt  time.Time // when the meta node stopped its writes (zero: never)
	l0      lin       // its L0 SST count
	l0KiB   lin       // its L0 size in KiB
	reason  func(t time.Time) string
	// object store, per pod name: failures and retries per second by
	// operation type, and each type's latency; media type S3 or Minio.
	media    string
	failRate map[string]map[string]step
	retry    map[string]map[string]step
	lat      map[string]map[string]lin
}

// install registers the model's families and catalog dump with s.
func (m *writeStopModel) install(s *Sim) {
	s.extraMetrics = append(s.extraMetrics, m.metrics)
	s.extraSQL = append(s.extraSQL, m.sql)
}

// metrics adds the families of one scrape.
func (m *writeStopModel) metrics(c *scrapeCtx) {
	t := c.t
	if c.p.Component == "meta" {
		// metrics_utils.rs: the gauge is reset and set to 1 per stopped
		// group; no series while none is stopped.
		if !m.stopAt.IsZero() && !t.Before(m.stopAt) {
			c.set("storage_write_stop_compaction_groups", "compaction groups of write stop state", "gauge", func(w *promWriter) {
				w.sample("storage_write_stop_compaction_groups", lbl("compaction_group_id", strconv.Itoa(m.group)), 1)
			})
		} else {
			c.fams = dropFam(c.fams, "storage_write_stop_compaction_groups")
		}
		c.set("storage_level_sst_num", "num of SSTs in each level", "gauge", func(w *promWriter) {
			for _, g := range []int{2, 3} {
				for lvl := 0; lvl <= 6; lvl++ {
					v := math.Floor(3 + 60*unit(fmt.Sprint("sst", g, lvl))*float64(lvl+1))
					if g == m.group && lvl == 0 {
						v = math.Floor(m.l0.at(t))
					}
					w.sample("storage_level_sst_num", lbl("level_index", fmt.Sprintf("cg%d_L%d", g, lvl)), v)
				}
			}
		})
		c.add("storage_level_total_file_size", "KBs total file bytes in each level", "gauge", func(w *promWriter) {
			for _, g := range []int{2, 3} {
				for lvl := 0; lvl <= 6; lvl++ {
					v := math.Floor(2048 * (1 + 40*unit(fmt.Sprint("kib", g, lvl))) * math.Pow(4, float64(lvl)))
					if g == m.group && lvl == 0 {
						v = math.Floor(m.l0KiB.at(t))
					}
					w.sample("storage_level_total_file_size", lbl("level_index", fmt.Sprintf("cg%d_L%d", g, lvl)), v)
				}
			}
		})
		c.add("storage_compact_pending_bytes", "bytes of lsm tree needed to reach balance", "gauge", func(w *promWriter) {
			for _, g := range []int{2, 3} {
				v := 0.0
				if g == m.group {
					v = math.Floor(m.l0KiB.at(t) * 1024 * 0.3)
				}
				w.sample("storage_compact_pending_bytes", lbl("group", strconv.Itoa(g)), v)
			}
		})
	}
	up := c.r.start
	if lat := m.lat[c.p.Name]; lat != nil {
		ops := wsKeys(lat)
		c.add("object_store_operation_latency", "Total latency of operation on object store", "histogram", func(w *promWriter) {
			for _, op := range ops {
				w.hist("object_store_operation_latency", lbl("media_type", m.media, "type", op),
					histModel{rate: flat(2 + 20*unit(c.p.Name+op)), lat: lat[op]}.observe(expBuckets(0.001, 2, 22), up, t))
			}
		})
	}
	// IntCounterVec label sets appear once first incremented: a type with
	// no failure yet has no series, and a pod with none has no family.
	for _, f := range []struct {
		name, help string
		rates      map[string]step
	}{
		{"object_store_failure_count", "The number of failures of object store operations", m.failRate[c.p.Name]},
		{"object_store_request_retry_count", "The number of retry times of object store request", m.retry[c.p.Name]},
	} {
		var ops []string
		for _, op := range wsKeys(f.rates) {
			if f.rates[op].integral(up, t) >= 1 {
				ops = append(ops, op)
			}
		}
		if len(ops) == 0 {
			continue
		}
		name, rates := f.name, f.rates
		c.add(name, f.help, "counter", func(w *promWriter) {
			for _, op := range ops {
				w.sample(name, lbl("type", op), math.Floor(rates[op].integral(up, t)))
			}
		})
	}
}

// sql writes rw_hummock_compaction_group_configs: the group's write limit
// while it is stopped (rw_hummock_compaction_group_configs.rs; jsonb text,
// keys sorted).
func (m *writeStopModel) sql(b *bundleWriter, at *time.Time) {
	s := m.sim
	tw := s.table(b, "rw_hummock_compaction_group_configs", at, "id", "parent_id", "member_tables", "compaction_config", "active_write_limit")
	for _, g := range []int{2, 3} {
		members := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
		if g == m.group {
			members = m.members
		}
		limit := ""
		if g == m.group && !m.stopAt.IsZero() && !s.Done.Before(m.stopAt) {
			limit = wsJSONB(map[string]any{"reason": m.reason(s.Done), "tableIds": members})
		}
		tw.row(strconv.Itoa(g), "0", wsJSONB(members), wsJSONB(compactionConfig(s.Version)), limit)
	}
	tw.close()
}

// compactionConfig is a group's config as pbjson renders it (u64 as strings).
func compactionConfig(v Version) map[string]any {
	sub := "300"
	if v.atLeast(3, 0) {
		sub = "128"
	}
	c := map[string]any{"compactionFilterMask": 6, "compactionMode": "RANGE", "level0MaxCompactFileNumber": "100",
		"level0StopWriteThresholdSubLevelNumber": sub, "level0SubLevelCompactLevelCount": 3, "level0TierCompactFileNumber": "12",
		"maxBytesForLevelBase": "536870912", "maxBytesForLevelMultiplier": "5", "maxCompactionBytes": "2147483648", "maxLevel": "6",
		"maxSubCompaction": 4, "subLevelMaxCompactionBytes": "134217728", "targetFileSizeBase": "33554432"}
	if v.atLeast(2, 2) {
		c["level0StopWriteThresholdMaxSstCount"] = 5000
		c["level0StopWriteThresholdMaxSize"] = "322122547200"
	}
	return c
}

// wsJSONB renders v as RisingWave prints jsonb: keys in byte order (jsonbb; see
// analyze/testdata/shapes/catalog/SOURCES.md), ", " and ": ".
func wsJSONB(v any) string {
	raw, _ := json.Marshal(v)
	var out strings.Builder
	inStr, esc := false, false
	for _, r := range string(raw) {
		out.WriteRune(r)
		switch {
		case esc:
			esc = false
		case r == '\\' && inStr:
			esc = true
		case r == '"':
			inStr = !inStr
		case !inStr && (r == ',' || r == ':'):
			out.WriteByte(' ')
		}
	}
	return out.String()
}

func dropFam(fams []fam, name string) []fam {
	out := fams[:0]
	for _, f := range fams {
		if f.name != name {
			out = append(out, f)
		}
	}
	return out
}

func wsKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// objectStoreError logs one failed object store operation as
// risingwave_object_store::object does (mod.rs: `{op} failed`, error=).
func (s *Sim) objectStoreError(p *Pod, t time.Time, op, err string) {
	s.logf(p, false, t, "ERROR", "risingwave_object_store::object", nil, op+" failed", disp("error", err))
}

// slowDown is OpenDAL's error for an S3/MinIO 503 SlowDown reply.
func slowDown(at, uri, path, rid string) string {
	return fmt.Sprintf(`RateLimited (temporary) at %s, context: { uri: %s, response: Parts { status: 503, version: HTTP/1.1, headers: {"content-type": "application/xml", "x-amz-request-id": "%s"} }, service: s3, path: %s } => S3Error { code: "SlowDown", message: "Please reduce your request rate.", resource: "", request_id: "%s" }`,
		at, uri, rid, path, rid)
}

// buildCompactionWriteStop: one compactor for three busy compute nodes.
// Compaction group 3's L0 grows past its 128 sub levels and the meta node
// stops its writes; every compute node's barrier storage sync then takes
// ~15-20 s, barrier latency climbs on all of them at once and none stands
// out. The object store is healthy. Operator, v3.0.3, text logs.
func buildCompactionWriteStop(s *Sim) {
	collect := baseTime.Add(21*time.Minute + 30*time.Second)
	s.setup(clusterSpec{name: "ledger", namespace: "ledger-rt", inst: operator, version: v3_0_3,
		logs: LogStyle{Prefix: true, Digits: 9}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 10 * time.Minute})
	s.Summary = "compaction group 3 in write stop: one compactor cannot keep up"
	created := time.Date(2026, 11, 20, 7, 40, 0, 0, time.UTC)
	cns := s.topo(3, 8, "32Gi", created, 1)
	s.Cat = newCatalog(3001)
	payments := s.kafkaTable("payments", "ledger.payments", 12, "payment_id BIGINT, account_id BIGINT, amount DECIMAL, currency VARCHAR, ts TIMESTAMPTZ",
		cns, 8, created.Add(2*time.Hour))
	payments.perSec = 24000
	s.aggMV("mv_account_balance", "CREATE MATERIALIZED VIEW mv_account_balance AS SELECT account_id, sum(amount) AS balance, count(*) AS n FROM payments GROUP BY account_id",
		payments.Job, cns, 8, 24000, created.Add(3*time.Hour))
	s.aggMV("mv_currency_volume_1m", "CREATE MATERIALIZED VIEW mv_currency_volume_1m AS SELECT window_start, currency, sum(amount) AS volume FROM TUMBLE(payments, ts, INTERVAL '1 MINUTE') GROUP BY window_start, currency",
		payments.Job, cns, 8, 24000, created.Add(3*time.Hour+4*time.Minute))
	s.noiseJobs(payments.Job, created.Add(30*time.Hour))

	stop := collect.Add(-6 * time.Minute)
	far := collect.Add(10 * time.Minute)
	for _, p := range cns {
		p.m.cpu = flat(2.1 + 0.4*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stop.Add(20 * time.Second), 0.07}}
		p.m.syncLat = lin{{stop, 0.35}, {stop.Add(40 * time.Second), 14 + 3*unit(p.Name)}, {far, 16 + 3*unit(p.Name)}}
		p.m.inflight = lin{{stop, 0.4}, {stop.Add(40 * time.Second), 15 + 3*unit(p.Name)}, {far, 17 + 3*unit(p.Name)}}
	}
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stop.Add(20 * time.Second), 0.07}}, lat: lin{{stop, 0.6}, {stop.Add(40 * time.Second), 16}, {far, 19}}}
	s.Meta.allBarriers = lin{{stop, 2}, {stop.Add(time.Minute), 24}, {far, 31}}
	s.Meta.inFlight = lin{{stop, 1}, {stop.Add(time.Minute), 23}, {far, 30}}
	s.Meta.commitLag = lin{{stop, 1.2}, {stop.Add(time.Minute), 19}, {far, 24}}

	comp := s.pod("compactor")
	m := &writeStopModel{sim: s, group: 3, members: []int{3002, 3003, 3004, 3005, 3006}, stopAt: stop,
		l0: lin{{stop.Add(-20 * time.Minute), 310}, {stop, 1880}, {far, 2010}}, l0KiB: lin{{stop.Add(-20 * time.Minute), 9.6e6}, {stop, 5.8e7}, {far, 6.2e7}},
		reason: func(time.Time) string { return "WriteStop(l0_level_count: 131, threshold: 128) too many L0 sub levels" },
		media:  "S3",
		lat: map[string]map[string]lin{comp.Name: {"read": constant(0.04), "streaming_upload_finish": constant(0.21)},
			cns[0].Name: {"read": constant(0.02), "streaming_upload_finish": constant(0.18)}},
	}
	m.install(s)
}

// buildObjectStoreWriteStop: MinIO is saturated and answers 503 SlowDown.
// The compactor's reads and uploads fail after their retries, compaction of
// group 2 falls behind, and the meta node stops its writes (too many L0 sst
// files) three minutes before collection; the compute nodes' uploads are
// throttled too. Both findings fire and are linked: the object store errors
// explain the write stop. Helm chart, v2.6.1, MinIO, text logs.
func buildObjectStoreWriteStop(s *Sim) {
	collect := baseTime.Add(14*time.Minute + 10*time.Second)
	s.setup(clusterSpec{name: "iot", namespace: "iot-stream", release: "iot", chart: "risingwave-0.2.58", inst: helm, version: v2_6_1,
		logs: LogStyle{Prefix: true, Digits: 6}, cloud: "gcp", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 65 * time.Second, logSince: 12 * time.Minute})
	s.Summary = "MinIO throttles (SlowDown); compaction falls behind and group 2 stops writes"
	created := time.Date(2026, 11, 18, 11, 5, 0, 0, time.UTC)
	cns := s.topo(3, 8, "16Gi", created, 1)
	s.Cat = newCatalog(4001)
	readings := s.kafkaTable("sensor_readings", "iot.readings", 8, "sensor_id BIGINT, site VARCHAR, reading DOUBLE PRECISION, ts TIMESTAMPTZ",
		cns, 6, created.Add(time.Hour))
	readings.perSec = 15000
	s.aggMV("mv_site_stats_1m", "CREATE MATERIALIZED VIEW mv_site_stats_1m AS SELECT window_start, site, avg(reading) AS avg_reading, count(*) AS n FROM TUMBLE(sensor_readings, ts, INTERVAL '1 MINUTE') GROUP BY window_start, site",
		readings.Job, cns, 6, 15000, created.Add(2*time.Hour))
	s.noiseJobs(readings.Job, created.Add(26*time.Hour))

	throttle := collect.Add(-9 * time.Minute)
	stop := collect.Add(-3 * time.Minute)
	far := collect.Add(10 * time.Minute)
	for _, p := range cns {
		p.m.cpu = flat(1.8 + 0.3*unit(p.Name))
		p.m.progress = step{{baseTime, 1}, {stop.Add(20 * time.Second), 0.09}}
		p.m.syncLat = lin{{throttle, 0.3}, {stop, 4}, {stop.Add(40 * time.Second), 13 + 4*unit(p.Name)}, {far, 15 + 4*unit(p.Name)}}
		p.m.inflight = lin{{throttle, 0.4}, {stop, 4.5}, {stop.Add(40 * time.Second), 14 + 4*unit(p.Name)}, {far, 16 + 4*unit(p.Name)}}
	}
	s.Meta.barrier = histModel{rate: step{{baseTime, 1}, {stop.Add(20 * time.Second), 0.09}}, lat: lin{{throttle, 0.6}, {stop, 5}, {stop.Add(40 * time.Second), 15}, {far, 18}}}
	s.Meta.allBarriers = lin{{stop, 3}, {stop.Add(time.Minute), 21}, {far, 27}}
	s.Meta.inFlight = lin{{stop, 2}, {stop.Add(time.Minute), 20}, {far, 26}}
	s.Meta.commitLag = lin{{stop, 3}, {stop.Add(time.Minute), 17}, {far, 22}}

	comp := s.pod("compactor")
	m := &writeStopModel{sim: s, group: 2, members: []int{4002, 4003, 4004}, stopAt: stop,
		l0: lin{{throttle, 420}, {stop, 5003}, {far, 5600}}, l0KiB: lin{{throttle, 1.3e7}, {stop, 1.6e8}, {far, 1.8e8}},
		reason: func(t time.Time) string {
			return fmt.Sprintf("WriteStop(l0_sst_count: %d, threshold: 5000) too many L0 sst files", int(5003+597*t.Sub(stop).Seconds()/far.Sub(stop).Seconds()))
		},
		media: "Minio",
		failRate: map[string]map[string]step{
			comp.Name:   {"read": step{{baseTime, 0}, {throttle, 0.05}}, "streaming_upload_finish": step{{baseTime, 0}, {throttle, 0.02}}},
			cns[0].Name: {"streaming_upload_finish": step{{baseTime, 0}, {throttle, 0.008}}},
		},
		retry: map[string]map[string]step{
			comp.Name:   {"read": step{{baseTime, 0}, {throttle, 2.4}}, "streaming_upload_finish": step{{baseTime, 0}, {throttle, 0.6}}},
			cns[0].Name: {"streaming_upload_finish": step{{baseTime, 0}, {throttle, 0.3}}},
			cns[1].Name: {"streaming_upload_finish": step{{baseTime, 0}, {throttle, 0.25}}},
		},
		lat: map[string]map[string]lin{
			comp.Name:   {"read": lin{{throttle, 0.05}, {stop, 6}}, "streaming_upload_finish": lin{{throttle, 0.3}, {stop, 11}}},
			cns[0].Name: {"read": constant(0.03), "streaming_upload_finish": lin{{throttle, 0.2}, {stop, 7}}},
			cns[1].Name: {"read": constant(0.03), "streaming_upload_finish": lin{{throttle, 0.2}, {stop, 6}}},
		},
	}
	m.install(s)
	uri := "http://iot-minio.iot-stream.svc:9000/" + s.Bucket + "/hummock/"
	for i := 0; i < 9; i++ {
		t := throttle.Add(time.Duration(40+67*i) * time.Second).Add(time.Duration(i*7919%1000) * time.Millisecond)
		obj := fmt.Sprintf("%d/%d.data", 2+i%3, 55120+37*i)
		op, at := "read", "read"
		if i%3 == 2 {
			op, at = "streaming_upload_finish", "Writer::close"
		}
		s.objectStoreError(comp, t, op, slowDown(at, uri+obj, "hummock/"+obj, fmt.Sprintf("18B7C2E%02dF31A9D4", i)))
	}
	for i := 0; i < 2; i++ {
		t := stop.Add(time.Duration(25+71*i) * time.Second)
		obj := fmt.Sprintf("2/%d.data", 55601+i)
		s.objectStoreError(cns[0], t, "streaming_upload_finish", slowDown("Writer::close", uri+obj, "hummock/"+obj, fmt.Sprintf("18B7C2F%02dA02C6E1", i)))
	}
}
