package main

// rw_catalog dumps of the variety samples: every relation a release has (and
// analyze/testdata/shapes/catalog/<tag>/ records), with exactly its columns
// in order, and values in its text output: `psql --csv` prints NULL as an
// empty field and quotes a field only when it holds a comma, a quote or a
// line break; booleans t/f; arrays {a,b}; jsonb with ", " and ": " and keys
// ordered as jsonb orders them (shorter first, then bytewise); timestamptz
// as %Y-%m-%d %H:%M:%S%.f%:z. Which rows each release lists is in
// analyze/testdata/shapes/catalog/SOURCES.md.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// catalogHeaders are the column lists of every rw_catalog relation per tag,
// copied from analyze/testdata/shapes/catalog/<tag>/<relation>.csv (a test
// keeps them equal).
var catalogHeaders = map[string]map[string][]string{
	"v1.0.0": {
		"rw_actors":             {"actor_id", "fragment_id", "parallel_unit_id", "status"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "acl"},
		"rw_parallel_units":     {"id", "worker_id"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "row_format", "append_only", "connection_id", "definition", "acl"},
		"rw_table_fragments":    {"table_id", "status"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable"},
	},
	"v1.5.0": {
		"rw_actors":             {"actor_id", "fragment_id", "parallel_unit_id", "status"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress", "initialized_at"},
		"rw_event_logs":         {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "acl", "initialized_at", "created_at"},
		"rw_parallel_units":     {"id", "worker_id"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl", "initialized_at", "created_at"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "connection_id", "definition", "acl", "initialized_at", "created_at"},
		"rw_table_fragments":    {"table_id", "status"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable", "rw_version", "total_memory_bytes", "total_cpu_cores", "started_at"},
	},
	"v1.10.0": {
		"rw_actor_id_to_ddl":    {"actor_id", "fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_actors":             {"actor_id", "fragment_id", "parallel_unit_id", "state"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress", "initialized_at"},
		"rw_event_logs":         {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragment_id_to_ddl": {"fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_parallel_units":     {"id", "worker_id"},
		"rw_sink_decouple":      {"sink_id", "is_decouple", "watermark_vnode_count"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_table_fragments":    {"table_id", "status", "parallelism"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at"},
	},
	"v2.0.7": {
		"rw_actor_id_to_ddl":    {"actor_id", "fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_actors":             {"actor_id", "fragment_id", "worker_id", "state"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress", "initialized_at"},
		"rw_event_logs":         {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragment_id_to_ddl": {"fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "append_only", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_sink_decouple":      {"sink_id", "is_decouple", "watermark_vnode_count"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version"},
		"rw_table_fragments":    {"table_id", "status", "parallelism"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable", "internal_rpc_host_addr", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at"},
	},
	"v2.3.0": {
		"rw_actor_id_to_ddl":    {"actor_id", "fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_actor_splits":       {"actor_id", "split_id", "source_id", "fragment_id", "fragment_type"},
		"rw_actors":             {"actor_id", "fragment_id", "worker_id", "state"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress", "initialized_at"},
		"rw_event_logs":         {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragment_id_to_ddl": {"fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism", "max_parallelism", "node"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "append_only", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "background_ddl"},
		"rw_rate_limit":         {"fragment_id", "fragment_type", "node_name", "table_id", "rate_limit"},
		"rw_sink_decouple":      {"sink_id", "is_decouple", "watermark_vnode_count"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "connector_props", "format_encode_options"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "is_shared", "connector_props", "format_encode_options"},
		"rw_streaming_jobs":     {"job", "name", "status", "parallelism", "max_parallelism", "resource_group"},
		"rw_table_fragments":    {"table_id", "status", "parallelism", "max_parallelism"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable", "internal_rpc_host_addr", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at", "resource_group"},
	},
	"v2.5.0": {
		"rw_actor_id_to_ddl":    {"actor_id", "fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_actor_splits":       {"actor_id", "split_id", "source_id", "fragment_id", "fragment_type"},
		"rw_actors":             {"actor_id", "fragment_id", "worker_id", "state"},
		"rw_ddl_progress":       {"ddl_id", "ddl_statement", "progress", "initialized_at"},
		"rw_event_logs":         {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragment_id_to_ddl": {"fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_fragments":          {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism", "max_parallelism", "node"},
		"rw_materialized_views": {"id", "name", "schema_id", "owner", "definition", "append_only", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "background_ddl"},
		"rw_rate_limit":         {"fragment_id", "fragment_type", "node_name", "table_id", "rate_limit"},
		"rw_sink_decouple":      {"sink_id", "is_decouple", "watermark_vnode_count"},
		"rw_sinks":              {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "connector_props", "format_encode_options"},
		"rw_sources":            {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "is_shared", "connector_props", "format_encode_options"},
		"rw_streaming_jobs":     {"job", "name", "status", "parallelism", "max_parallelism", "resource_group"},
		"rw_table_fragments":    {"table_id", "status", "parallelism", "max_parallelism"},
		"rw_worker_nodes":       {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "is_unschedulable", "internal_rpc_host_addr", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at", "resource_group"},
	},
	"v3.0.0": {
		"rw_actor_id_to_ddl":       {"actor_id", "fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_actor_splits":          {"actor_id", "split_id", "source_id", "fragment_id", "fragment_type"},
		"rw_actors":                {"actor_id", "fragment_id", "worker_id", "state"},
		"rw_ddl_progress":          {"ddl_id", "ddl_statement", "create_type", "progress", "initialized_at", "is_serverless_backfill", "backfill_type"},
		"rw_event_logs":            {"unique_id", "timestamp", "event_type", "info"},
		"rw_fragment_id_to_ddl":    {"fragment_id", "job_id", "schema_id", "ddl_type", "name"},
		"rw_fragments":             {"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism", "max_parallelism", "parallelism_policy"},
		"rw_kafka_job_lag":         {"job_id", "source_id", "fragment_id", "partition_id", "lag_phase", "high_watermark", "consumer_offset", "lag"},
		"rw_kafka_source_metrics":  {"source_id", "partition_id", "high_watermark", "latest_offset"},
		"rw_materialized_views":    {"id", "name", "schema_id", "schema_name", "owner", "definition", "append_only", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "background_ddl", "status"},
		"rw_rate_limit":            {"fragment_id", "fragment_type", "node_name", "table_id", "rate_limit"},
		"rw_sink_decouple":         {"sink_id", "is_decouple", "watermark_vnode_count"},
		"rw_sink_log_store_tables": {"sink_id", "internal_table_id"},
		"rw_sinks":                 {"id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "target_table_name", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "background_ddl", "connector_props", "format_encode_options"},
		"rw_sources":               {"id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only", "associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "is_shared", "connector_props", "format_encode_options"},
		"rw_streaming_jobs":        {"id", "name", "database_id", "status", "parallelism", "max_parallelism", "resource_group"},
		"rw_table_fragments":       {"table_id", "status", "parallelism", "max_parallelism"},
		"rw_worker_nodes":          {"id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving", "internal_rpc_host_addr", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at", "resource_group", "is_iceberg_compactor"},
	},
}

// cell is one CSV field: a value or NULL.
type cell struct {
	v    string
	null bool
}

var null = cell{null: true}

func cv(v string) cell    { return cell{v: v} }
func ci(n int) cell       { return cell{v: strconv.Itoa(n)} }
func cb(b bool) cell      { return cell{v: boolText(b)} }
func ct(t time.Time) cell { return cell{v: chronoTime(t.Truncate(time.Millisecond))} } // epochs are in ms

// crow is one row, by column name.
type crow map[string]cell

// psqlField is one field as psql --csv prints it.
func psqlField(c cell) string {
	if c.null {
		return ""
	}
	if strings.ContainsAny(c.v, ",\"\r\n") || c.v == `\.` {
		return `"` + strings.ReplaceAll(c.v, `"`, `""`) + `"`
	}
	return c.v
}

// jsonbText renders v as RisingWave's jsonb text output: ", " and ": ",
// object keys shorter first, then bytewise.
func jsonbText(v any) string {
	var b strings.Builder
	var rec func(v any)
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool {
				if len(keys[i]) != len(keys[j]) {
					return len(keys[i]) < len(keys[j])
				}
				return keys[i] < keys[j]
			})
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Quote(k) + ": ")
				rec(x[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteString(", ")
				}
				rec(e)
			}
			b.WriteByte(']')
		default:
			b.WriteString(jsonText(x, true))
		}
	}
	rec(v)
	return b.String()
}

// catalogTag is the tag whose catalog shapes a version has.
func catalogTag(v Version) string { return v.Tag }

// writeVarietySQL writes every rw_catalog relation the release has.
func (s *Sim) writeVarietySQL(b *bundleWriter) {
	hdrs, ok := catalogHeaders[catalogTag(s.Version)]
	if !ok {
		panic("no catalog shapes for " + s.Version.Tag)
	}
	rels := make([]string, 0, len(hdrs))
	for r := range hdrs {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	at := s.Done.Add(40 * time.Second)
	for _, rel := range rels {
		hdr := hdrs[rel]
		rows := s.catalogRows(rel)
		at = at.Add(time.Duration(30+s.rnd.IntN(90)) * time.Millisecond)
		f := b.create(bundle.SQLPath(rel), "psql --csv -c 'SELECT * FROM rw_catalog."+rel+"'", at, at.Add(time.Duration(8+s.rnd.IntN(40))*time.Millisecond))
		f.WriteString(strings.Join(hdr, ",") + "\n")
		for _, r := range rows {
			cells := make([]string, len(hdr))
			for i, col := range hdr {
				c, ok := r[col]
				if !ok {
					panic(fmt.Sprintf("%s %s: no value for column %s", s.Version.Tag, rel, col))
				}
				cells[i] = psqlField(c)
			}
			f.WriteString(strings.Join(cells, ",") + "\n")
		}
		f.close()
	}
}

// streamingJobs are the jobs with fragments (tables, materialized views,
// sinks, shared sources).
func (s *Sim) streamingJobs() []*Job {
	var out []*Job
	for _, j := range s.Cat.Jobs {
		if len(j.Frags) > 0 {
			out = append(out, j)
		}
	}
	return out
}

// ddlType is rw_actor_id_to_ddl's ddl_type of a job.
func ddlType(j *Job) string {
	switch j.Kind {
	case "materialized view":
		return "mv"
	}
	return j.Kind
}

// parallelUnits numbers each compute pod's parallel units (v1.x).
func (s *Sim) parallelUnits() map[*Pod]int {
	pu := map[*Pod]int{}
	base := 0
	for _, p := range s.pods("compute") {
		pu[p] = base
		base += p.CPU
	}
	return pu
}

// progressFor is rw_ddl_progress.progress: `{:.2}%` up to v2.0,
// `{:.2}% ({}/{})` from v2.1 (src/meta/src/barrier/progress.rs).
func (s *Sim) progressFor(j *Job) string {
	if s.Version.atLeast(2, 1) {
		return progressText(j.Rows, j.Total)
	}
	return fmt.Sprintf("%.2f%%", j.Rows/j.Total*100)
}

// sinkTypeText is rw_sinks.sink_type: the bare enum name at v1.0.0, with
// the SINK_TYPE_ prefix from v1.5.0 (proto/catalog.proto).
func (s *Sim) sinkTypeText(sk *Sink) string {
	t := "UPSERT"
	if sk.Type == "append-only" {
		t = "APPEND_ONLY"
		for _, p := range sk.Props {
			if p[0] == "force_append_only" && p[1] == "true" {
				t = "FORCE_APPEND_ONLY"
			}
		}
	}
	if s.Version.atLeast(1, 5) {
		t = "SINK_TYPE_" + t
	}
	return t
}

// propsJSONB is connector_props (v2.3+): {"key": {"type": "plaintext", "value": "..."}}.
func propsJSONB(props [][2]string) string {
	m := map[string]any{}
	for _, p := range props {
		m[p[0]] = map[string]any{"type": "plaintext", "value": p[1]}
	}
	return jsonbText(m)
}

// fragmentNode is rw_fragments.node (v2.3-v2.7): the fragment's root stream
// node as pbjson, shortened to the node body that names what it is.
func (s *Sim) fragmentNode(f *Fragment) string {
	switch {
	case f.Kind == "source":
		var src *Source
		for _, x := range s.Cat.Sources {
			if x.Frag == f {
				src = x
			}
		}
		return jsonbText(map[string]any{"source": map[string]any{"sourceInner": map[string]any{"sourceId": src.ID, "sourceName": src.Name}}})
	case f.Kind == "sink":
		t := "SINK_LOG_STORE_TYPE_IN_MEMORY_LOG_STORE"
		if f.Job.Sink != nil && f.Job.Sink.Decoupled {
			t = "SINK_LOG_STORE_TYPE_KV_LOG_STORE"
		}
		return jsonbText(map[string]any{"sink": map[string]any{"logStoreType": t}})
	case f.mview:
		return jsonbText(map[string]any{"materialize": map[string]any{"tableId": f.Job.ID}})
	case f.Kind == "scan":
		return jsonbText(map[string]any{"streamScan": map[string]any{"tableId": f.Upstream[0].Job.ID}})
	case f.Kind == "dml":
		return jsonbText(map[string]any{"dml": map[string]any{"tableId": f.Job.ID}})
	}
	return jsonbText(map[string]any{"project": map[string]any{}})
}

// catalogRows are a relation's rows at the sample's release.
func (s *Sim) catalogRows(rel string) []crow {
	v := s.Version
	c := s.Cat
	var out []crow
	switch rel {
	case "rw_worker_nodes":
		var ws []*Pod
		for _, comp := range []string{"frontend", "compactor", "compute"} {
			if comp != "compute" && !v.atLeast(1, 5) {
				continue // v1.0.0 lists the frontend's worker_node_manager: compute nodes only
			}
			ws = append(ws, s.pods(comp)...)
		}
		sort.SliceStable(ws, func(i, j int) bool { return ws[i].WorkerID < ws[j].WorkerID })
		for _, p := range ws {
			port := map[string]int{"frontend": 4567, "compactor": 6660, "compute": 5688}[p.Component]
			typ := map[string]string{"frontend": "FRONTEND", "compactor": "COMPACTOR", "compute": "COMPUTE_NODE"}[p.Component]
			if v.atLeast(1, 5) {
				typ = "WORKER_TYPE_" + typ
			}
			mem := p.totalMemory()
			r := crow{"id": ci(p.WorkerID), "host": cv(p.host()), "port": ci(port), "type": cv(typ), "state": cv("RUNNING"),
				"internal_rpc_host_addr": cv(""), "rw_version": cv(v.Semver),
				"total_memory_bytes": cv(strconv.FormatInt(int64(mem), 10)), "system_total_memory_bytes": cv(strconv.FormatInt(int64(mem), 10)),
				"total_cpu_cores": ci(p.CPU), "system_total_cpu_cores": ci(p.CPU),
				"started_at":     ct(p.current().start.Add(2 * time.Second).Truncate(time.Second)),
				"resource_group": null, "is_iceberg_compactor": null}
			if p.Component == "compute" {
				r["parallelism"], r["is_streaming"], r["is_serving"], r["is_unschedulable"] = ci(p.CPU), cb(true), cb(true), cb(false)
				r["resource_group"] = cv("default")
			} else {
				r["parallelism"], r["is_streaming"], r["is_serving"], r["is_unschedulable"] = null, null, null, null
				if !v.atLeast(2, 3) {
					r["parallelism"] = cv("0")
				}
				if !v.atLeast(2, 0) {
					r["is_streaming"], r["is_serving"], r["is_unschedulable"] = cb(false), cb(p.Component == "frontend"), cb(false)
				}
				if p.Component == "compactor" {
					r["is_iceberg_compactor"] = cb(false)
				}
			}
			out = append(out, r)
		}
	case "rw_actors":
		pu := s.parallelUnits()
		next := map[*Pod]int{}
		for _, a := range c.actors() {
			unit := pu[a.Pod] + next[a.Pod]%a.Pod.CPU
			next[a.Pod]++
			out = append(out, crow{"actor_id": ci(a.ID), "fragment_id": ci(a.Frag.ID), "parallel_unit_id": ci(unit),
				"worker_id": ci(a.Pod.WorkerID), "status": cv("RUNNING"), "state": cv("RUNNING")})
		}
	case "rw_parallel_units":
		pu := s.parallelUnits()
		for _, p := range s.pods("compute") {
			for i := 0; i < p.CPU; i++ {
				out = append(out, crow{"id": ci(pu[p] + i), "worker_id": ci(p.WorkerID)})
			}
		}
	case "rw_fragments":
		for _, f := range c.fragments() {
			var ups []int
			for _, u := range f.Upstream {
				ups = append(ups, u.ID)
			}
			out = append(out, crow{"fragment_id": ci(f.ID), "table_id": ci(f.Job.ID), "distribution_type": cv(f.Dist),
				"state_table_ids": cv(intArray(f.StateTables)), "upstream_fragment_ids": cv(intArray(ups)),
				"flags": cv("{" + strings.Join(f.Flags, ",") + "}"), "parallelism": ci(len(f.Actors)), "max_parallelism": ci(256),
				"node": cv(s.fragmentNode(f)), "parallelism_policy": cv("inherit(adaptive)")})
		}
	case "rw_table_fragments", "rw_streaming_jobs":
		par := "ADAPTIVE"
		if v.atLeast(3, 0) {
			par = "adaptive"
		}
		for _, j := range s.streamingJobs() {
			out = append(out, crow{"table_id": ci(j.ID), "job": ci(j.ID), "id": ci(j.ID), "name": cv(j.Name), "database_id": ci(c.DatabaseID),
				"status": cv(j.Status), "parallelism": cv(par), "max_parallelism": ci(256), "resource_group": cv("default")})
		}
	case "rw_materialized_views":
		for _, j := range c.Jobs {
			if j.Kind != "materialized view" || j.Status == "CREATING" && !v.atLeast(2, 3) {
				continue
			}
			r := crow{"id": ci(j.ID), "name": cv(j.Name), "schema_id": ci(c.SchemaID), "schema_name": cv("public"), "owner": ci(1),
				"definition": cv(j.Definition), "append_only": cb(false), "acl": cv("{root=arwdD/root}"),
				"initialized_at": ct(j.Init), "created_at": ct(j.Created), "initialized_at_cluster_version": cv(v.Semver),
				"created_at_cluster_version": cv(v.Semver), "background_ddl": cb(j.Background), "status": cv("Created")}
			if j.Status == "CREATING" {
				r["initialized_at"], r["created_at"], r["initialized_at_cluster_version"], r["status"] = null, ct(j.Init), null, cv("Creating")
			}
			out = append(out, r)
		}
	case "rw_sources":
		for _, src := range c.Sources {
			table := src.Job.Kind == "table"
			if table && !v.atLeast(1, 10) {
				continue // v1.0-v1.5 leave out the sources of tables
			}
			assoc := null
			if table {
				assoc = ci(src.Job.ID)
			}
			out = append(out, crow{"id": ci(src.ID), "name": cv(src.Name), "schema_id": ci(c.SchemaID), "owner": ci(1), "connector": cv("KAFKA"),
				"columns": cv(vSourceColumns(src)), "row_format": cv("JSON"), "format": cv("PLAIN"), "row_encode": cv("JSON"), "append_only": cb(true),
				"associated_table_id": assoc, "connection_id": null, "definition": cv(src.Job.Definition), "acl": cv("{root=r/root}"),
				"initialized_at": ct(src.Job.Init), "created_at": ct(src.Job.Created), "initialized_at_cluster_version": cv(v.Semver),
				"created_at_cluster_version": cv(v.Semver), "is_shared": cb(src.Shared), "connector_props": cv(propsJSONB(src.Props)),
				"format_encode_options": cv("{}")})
		}
	case "rw_sinks":
		for _, sk := range c.Sinks {
			out = append(out, crow{"id": ci(sk.ID), "name": cv(sk.Name), "schema_id": ci(c.SchemaID), "owner": ci(1),
				"connector": cv(strings.ToUpper(sk.Connector)), "sink_type": cv(s.sinkTypeText(sk)), "connection_id": null,
				"definition": cv(sk.Job.Definition), "target_table_name": null, "acl": cv("{root=r/root}"),
				"initialized_at": ct(sk.Job.Init), "created_at": ct(sk.Job.Created), "initialized_at_cluster_version": cv(v.Semver),
				"created_at_cluster_version": cv(v.Semver), "background_ddl": cb(false), "connector_props": cv(propsJSONB(sk.Props)),
				"format_encode_options": cv("{}")})
		}
	case "rw_sink_decouple":
		for _, sk := range c.Sinks {
			w := null
			if sk.Decoupled {
				w = ci(256)
			}
			out = append(out, crow{"sink_id": ci(sk.ID), "is_decouple": cb(sk.Decoupled), "watermark_vnode_count": w})
		}
	case "rw_sink_log_store_tables":
		for _, sk := range c.Sinks {
			if sk.Decoupled {
				out = append(out, crow{"sink_id": ci(sk.ID), "internal_table_id": ci(sk.ID + 1)})
			}
		}
	case "rw_actor_id_to_ddl", "rw_fragment_id_to_ddl":
		for _, kind := range []string{"mv", "sink", "source", "table"} {
			for _, f := range c.fragments() {
				j := f.Job
				if ddlType(j) != kind || j.Kind == "materialized view" && j.Status == "CREATING" && !v.atLeast(2, 3) {
					continue
				}
				if rel == "rw_fragment_id_to_ddl" {
					out = append(out, crow{"fragment_id": ci(f.ID), "job_id": ci(j.ID), "schema_id": ci(c.SchemaID), "ddl_type": cv(kind), "name": cv(j.Name)})
					continue
				}
				for _, a := range f.Actors {
					out = append(out, crow{"actor_id": ci(a.ID), "fragment_id": ci(f.ID), "job_id": ci(j.ID), "schema_id": ci(c.SchemaID), "ddl_type": cv(kind), "name": cv(j.Name)})
				}
			}
		}
	case "rw_actor_splits":
		for _, src := range c.Sources {
			typ := "NON_SHARED_SOURCE"
			if src.Shared {
				typ = "SHARED_SOURCE"
			}
			for i := 0; i < src.Partitions; i++ {
				a := src.Frag.Actors[i%len(src.Frag.Actors)]
				out = append(out, crow{"actor_id": ci(a.ID), "split_id": ci(i), "source_id": ci(src.ID), "fragment_id": ci(src.Frag.ID), "fragment_type": cv(typ)})
			}
		}
	case "rw_ddl_progress":
		for _, j := range c.Jobs {
			if j.Status != "CREATING" {
				continue
			}
			ct0 := "FOREGROUND"
			if j.Background {
				ct0 = "BACKGROUND"
			}
			out = append(out, crow{"ddl_id": ci(j.ID), "ddl_statement": cv(j.Definition), "create_type": cv(ct0), "progress": cv(s.progressFor(j)),
				"initialized_at": ct(j.Init), "is_serverless_backfill": cb(false), "backfill_type": cv("NORMAL_BACKFILL")})
		}
	case "rw_rate_limit":
		for _, r := range s.rateLims {
			out = append(out, crow{"fragment_id": cv(r[0]), "fragment_type": cv("{" + r[1] + "}"), "node_name": cv(r[2]), "table_id": cv(r[3]), "rate_limit": cv(r[4])})
		}
	case "rw_event_logs":
		for i, e := range s.vRetainedEvents() {
			out = append(out, crow{"unique_id": cv(uuidFor(fmt.Sprint(s.Dir, "event", i))), "timestamp": ct(e.t), "event_type": cv(e.typ), "info": cv(jsonbText(e.info))})
		}
	case "rw_kafka_job_lag", "rw_kafka_source_metrics":
		// Queried by the frontend from Prometheus: empty without a
		// configured prometheus endpoint.
	default:
		panic("no rows for " + rel)
	}
	return out
}

// vRetainedEvents are the event log rows the meta leader still holds: the
// newest event_log_channel_max_size (10) of each channel, oldest first;
// every recovery event shares one channel
// (src/meta/src/manager/event_log.rs:150-185 at v2.3.0).
func (s *Sim) vRetainedEvents() []rwEvent {
	return s.newestEvents(func(typ string) string {
		if strings.HasPrefix(typ, "GLOBAL_RECOVERY_") || strings.HasPrefix(typ, "DATABASE_RECOVERY_") {
			return "recovery"
		}
		return typ
	})
}

// vSourceColumns lists a source's columns as rw_sources prints them: the
// declared ones and the hidden _row_id (a source has one as a table does).
func vSourceColumns(src *Source) string {
	cols := strings.TrimSuffix(sourceColumns(src), "}")
	if src.Job.Kind == "table" {
		return cols + "}"
	}
	return cols + ",_row_id}"
}
