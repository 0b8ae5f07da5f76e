package main

import (
	"fmt"
	"strconv"
	"time"
)

func init() {
	scenarios = append(scenarios,
		scenario{"postgres-cdc-slot-lag", 0x96cdc1, buildPostgresCDCSlotLag},
		scenario{"postgres-cdc-wal-lag", 0x96cdc2, buildPostgresCDCWALLag})
}

// pgCDCSource adds a shared CREATE SOURCE ... WITH (connector =
// 'postgres-cdc'): one source actor on on[0] (a CDC source is a singleton).
// It has no Kafka partitions, so no Kafka series are written for it.
func (s *Sim) pgCDCSource(name, host, db, slot string, on []*Pod, created time.Time) *Source {
	c := s.Cat
	props := [][2]string{{"connector", "postgres-cdc"}, {"hostname", host}, {"port", "5432"}, {"username", "rw_cdc"},
		{"password", redacted("pg-cdc-password")}, {"database.name", db}, {"schema.name", "public"}, {"slot.name", slot}}
	def := fmt.Sprintf("CREATE SOURCE %s WITH (connector = 'postgres-cdc', hostname = '%s', port = '5432', username = 'rw_cdc', password = '***', database.name = '%s', schema.name = 'public', slot.name = '%s')",
		name, host, db, slot)
	j := c.job("source", name, def, created)
	src := &Source{ID: j.ID, Name: name, Props: props, Job: j, Shared: true, perSec: 1}
	src.Frag = c.frag(j, "source", on[:1], 1, 0)
	j.Source = src
	c.Sources = append(c.Sources, src)
	return src
}

// cdcTable adds CREATE TABLE ... FROM source TABLE 'schema.table': a CDC
// backfill scan of the source and the table's materialize fragment.
func (s *Sim) cdcTable(name, cols, upstream string, src *Source, on []*Pod, par int, created time.Time) *Job {
	c := s.Cat
	j := c.job("table", name, fmt.Sprintf("CREATE TABLE %s (%s) FROM %s TABLE '%s'", name, cols, src.Name, upstream), created)
	scan := c.frag(j, "scan", on, par, 0, src.Frag)
	scan.Backfill = flat(0)
	c.frag(j, "mview", on, par, 0, scan)
	return j
}

// buildPostgresCDCSlotLag: a rolling update restarted compute-0, which runs
// the postgres-cdc source pg_billing. Its checkpointed offset (LSN
// 2C/91A0F3E8) is older than what the upstream slot still has: Debezium
// refuses to resume ("... no longer available on the server") and the
// engine fails again every ~40 s; the CDC tables stop changing while
// barriers stay healthy. Helm chart, v2.8.0, text logs with kubectl's
// prefix. (v2.x has no pg_cdc_* gauges: the evidence is the compute log.)
func buildPostgresCDCSlotLag(s *Sim) {
	collect := baseTime.Add(26*time.Minute + 40*time.Second)
	s.setup(clusterSpec{name: "ledger", namespace: "finance", release: "ledger", chart: "risingwave-0.2.58", inst: helm, version: v2_8_0,
		logs: LogStyle{Prefix: true, PrevPrefix: true, Digits: 6}, cloud: "aws", metaStore: "postgresql",
		collect: collect, scrapes: 4, every: 15 * time.Second, done: 60 * time.Second, logSince: 15 * time.Minute})
	s.Summary = "postgres-cdc source pg_billing cannot resume after a restart: its WAL is gone upstream"
	created := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	cns := s.topo(2, 4, "16Gi", created, 1)
	s.Cat = newCatalog(5001)
	pg := s.pgCDCSource("pg_billing", "billing-db.data.svc", "billing", "rw_billing_slot", cns, created.Add(time.Hour))
	invoices := s.cdcTable("invoices", "invoice_id BIGINT PRIMARY KEY, account_id BIGINT, amount DECIMAL, issued_at TIMESTAMPTZ",
		"public.invoices", pg, cns, 2, created.Add(time.Hour+time.Minute))
	s.cdcTable("payments", "payment_id BIGINT PRIMARY KEY, invoice_id BIGINT, amount DECIMAL, paid_at TIMESTAMPTZ",
		"public.payments", pg, cns, 2, created.Add(time.Hour+2*time.Minute))
	s.aggMV("mv_outstanding_by_account", "CREATE MATERIALIZED VIEW mv_outstanding_by_account AS SELECT account_id, sum(amount) AS outstanding FROM invoices GROUP BY account_id",
		invoices, cns, 2, 0, created.Add(2*time.Hour))
	for _, p := range cns {
		p.m.cpu = flat(0.9 + 0.3*unit(p.Name))
		p.m.inflight = constant(0.22 + 0.1*unit(p.Name))
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: constant(0.41)}

	// The rolling update restarted compute-0, the source actor's pod.
	p := pg.Frag.Actors[0].Pod
	stop := collect.Add(-13*time.Minute - 8*time.Second)
	p.Runs = []run{{start: created.Add(15 * time.Second), end: stop, reason: "Completed", exit: 0}, {start: stop.Add(sec(4))}}
	s.logf(p, true, stop.Add(-sec(0.38)), "INFO", "risingwave_rt", nil, "received SIGTERM, shutting down")
	s.logf(p, true, stop.Add(-sec(0.09)), "INFO", "risingwave_compute::server", nil, "compute node shutdown complete")
	s.startCompute(p, false, p.current().start.Add(sec(0.2)), 7)
	p.WorkerID = 7
	meta := s.pod("meta")
	s.recoveryIn(meta, stop.Add(sec(5.2)), 5.9, "adhoc recovery after worker change", false)
	s.Meta.recoveries = append(s.Meta.recoveries, stop.Add(sec(11.1)))

	// Debezium (java/.../DbzCdcEngineRunner.java:51, tracing_slf4j.rs:23)
	// refuses the stored offset on every attempt.
	lsn, lsnNum := "2C/91A0F3E8", int64(0x2C91A0F3E8)
	thread := fmt.Sprintf("rw-dbz-engine-runner-%d", pg.ID)
	for i, t := 0, stop.Add(sec(31)); t.Before(s.Done); i, t = i+1, t.Add(sec(40.6)) {
		s.logf(p, false, t, "INFO", "risingwave_connector_node", nil,
			fmt.Sprintf("Found previous partition offset PostgresPartition [sourcePartition={server=RW_CDC_%d}]: {lsn_proc=%d, lsn_commit=%d, lsn=%d, txId=88120417, ts_usec=1795340112311044}",
				pg.ID, lsnNum, lsnNum, lsnNum),
			str("thread", thread), str("class", "io.debezium.connector.common.BaseSourceTask"))
		errText := fmt.Sprintf("io.debezium.DebeziumException: The connector is trying to read change stream starting at PostgresOffsetContext "+
			"[sourceInfoSchema=Schema{io.debezium.connector.postgresql.Source:STRUCT}, sourceInfo=source_info[server='RW_CDC_%d'db='billing', "+
			"lsn=LSN{%s}, txId=88120417, timestamp=2026-11-29T19:34:41.311044Z], lastSnapshotRecord=false, lastCompletelyProcessedLsn=LSN{%s}, "+
			"lastCommitLsn=LSN{%s}], but this is no longer available on the server. Reconfigure the connector to use a snapshot when needed "+
			"if you want to recover. If not the connector will streaming from the last available position in the log\n"+
			"\tat io.debezium.connector.common.BaseSourceTask.validateLogPosition(BaseSourceTask.java:463)\n"+
			"\tat io.debezium.connector.common.BaseSourceTask.start(BaseSourceTask.java:165)", pg.ID, lsn, lsn, lsn)
		s.logf(p, false, t.Add(sec(0.31)), "ERROR", "risingwave_connector_node", nil,
			fmt.Sprintf("engine#%d terminated with error. message: Error while trying to run connector class 'io.debezium.connector.postgresql.PostgresConnector'", pg.ID),
			str("thread", thread), str("class", "com.risingwave.connector.source.core.DbzCdcEngineRunner"), str("error", errText))
	}
	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 3 * time.Second)
		s.barrierComplete(t, 0.4+0.2*unit(fmt.Sprint("pg", i)))
	}
}

// pgSlot is one replication slot the meta node's split enumerator polls
// (v3.0+: src/connector/src/source/cdc/enumerator/mod.rs:160-200): the
// upstream's pg_current_wal_lsn() and the slot's confirmed_flush_lsn at t.
type pgSlot struct {
	src              *Source
	slot             string
	upstream, flushd lin
}

// buildPostgresCDCWALLag: two postgres-cdc sources on v3.0.3. The slot of
// pg_orders stopped being confirmed 40 minutes ago (its source's Debezium
// engine lost the replication stream without failing), so PostgreSQL keeps
// every WAL segment since: the meta node's pg_cdc_* gauges show the gap at
// ~22 GiB and growing while pg_catalog's slot is healthy. Barriers are
// healthy. Operator, text logs without kubectl's prefix.
func buildPostgresCDCWALLag(s *Sim) {
	collect := baseTime.Add(38*time.Minute + 12*time.Second)
	s.setup(clusterSpec{name: "retail-cdc", namespace: "cdc", inst: operator, version: v3_0_3,
		logs: LogStyle{Digits: 6}, cloud: "azure", metaStore: "postgresql",
		collect: collect, scrapes: 5, every: 15 * time.Second, done: 60 * time.Second, logSince: 10 * time.Minute})
	s.Summary = "the replication slot of pg_orders is not confirmed: 22 GiB of WAL held upstream and growing"
	created := time.Date(2026, 11, 12, 10, 0, 0, 0, time.UTC)
	cns := s.topo(2, 4, "16Gi", created, 1)
	s.Cat = newCatalog(6001)
	orders := s.pgCDCSource("pg_orders", "orders-db.retail.svc", "orders", "rw_orders_slot", cns, created.Add(time.Hour))
	catalog := s.pgCDCSource("pg_catalog_db", "catalog-db.retail.svc", "catalog", "rw_catalog_slot", cns[1:], created.Add(time.Hour+time.Minute))
	lines := s.cdcTable("order_lines", "line_id BIGINT PRIMARY KEY, order_id BIGINT, sku VARCHAR, qty INT, price DECIMAL",
		"public.order_lines", orders, cns, 2, created.Add(time.Hour+2*time.Minute))
	s.cdcTable("products", "sku VARCHAR PRIMARY KEY, title VARCHAR, category VARCHAR", "public.products", catalog, cns, 2, created.Add(time.Hour+3*time.Minute))
	s.aggMV("mv_units_by_sku", "CREATE MATERIALIZED VIEW mv_units_by_sku AS SELECT sku, sum(qty) AS units FROM order_lines GROUP BY sku",
		lines, cns, 2, 0, created.Add(2*time.Hour))
	for _, p := range cns {
		p.m.cpu = flat(1.1 + 0.3*unit(p.Name))
		p.m.inflight = constant(0.25 + 0.1*unit(p.Name))
	}
	s.Meta.barrier = histModel{rate: flat(1), lat: constant(0.47)}

	// LSNs in bytes. pg_orders' upstream writes ~9.5 MB/s; its slot was last
	// confirmed 40 minutes before collection. pg_catalog_db's slot follows
	// its upstream within a few hundred kB.
	stuckAt := collect.Add(-40 * time.Minute)
	base := float64(0x5A_00000000)
	slots := []pgSlot{
		{orders, "rw_orders_slot", lin{{stuckAt, base}, {collect.Add(10 * time.Minute), base + 9.5e6*3000}},
			constant(base - 3.1e5)},
		{catalog, "rw_catalog_slot", lin{{stuckAt, 0x07_1C000000}, {collect.Add(10 * time.Minute), 0x07_1C000000 + 2.2e5*3000}},
			lin{{stuckAt, 0x07_1C000000 - 2.6e5}, {collect.Add(10 * time.Minute), 0x07_1C000000 + 2.2e5*3000 - 2.6e5}}},
	}
	gauge := func(c *scrapeCtx, name, help string, v func(x pgSlot) float64) {
		c.add(name, help, "gauge", func(w *promWriter) {
			for _, x := range slots {
				w.sample(name, lbl("slot_name", x.slot, "source_id", strconv.Itoa(x.src.ID)), float64(int64(v(x))))
			}
		})
	}
	s.extraMetrics = append(s.extraMetrics, func(c *scrapeCtx) {
		if c.p.Component != "meta" {
			return
		}
		t := c.t
		gauge(c, "pg_cdc_confirmed_flush_lsn", "PostgreSQL CDC confirmed flush LSN", func(x pgSlot) float64 { return x.flushd.at(t) })
		gauge(c, "pg_cdc_upstream_max_lsn", "PostgreSQL CDC upstream max LSN (pg_current_wal_lsn)", func(x pgSlot) float64 { return x.upstream.at(t) })
	})
	// rw_cdc_progress (v3.0+): both CDC tables' backfills finished long ago.
	s.extraSQL = append(s.extraSQL, func(b *bundleWriter, at *time.Time) {
		tw := s.table(b, "rw_cdc_progress", at, "job_id", "split_total_count", "split_backfilled_count", "split_completed_count")
		for _, j := range s.Cat.Jobs {
			if j.Kind == "table" {
				tw.row(strconv.Itoa(j.ID), "4", "4", "4")
			}
		}
		tw.close()
	})
	for i := 0; i < 10; i++ {
		t := s.Done.Add(-time.Duration(9-i) * 3 * time.Second)
		s.barrierComplete(t, 0.4+0.2*unit(fmt.Sprint("wal", i)))
	}
}
