package main

import (
	"fmt"
	"time"
)

func init() {
	scenarios = append(scenarios, scenario{"postgres-cdc-slot-lag", 0x96cdc1, buildPostgresCDCSlotLag})
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
