package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// rwEvent is one rw_event_logs row.
type rwEvent struct {
	t    time.Time
	typ  string
	info map[string]any
}

// eventf records an rw_event_logs row.
func (s *Sim) eventf(t time.Time, typ string, info map[string]any) {
	s.eventLog = append(s.eventLog, rwEvent{t: t, typ: typ, info: info})
}

// jsonText renders v with sorted keys: spaced as RisingWave's jsonb prints
// (`{"a": 1, "b": "x"}`), or compact as serde_json does.
func jsonText(v any, spaced bool) string {
	var b strings.Builder
	var rec func(v any)
	colon, comma := ":", ","
	if spaced {
		colon, comma = ": ", ", "
	}
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(comma)
				}
				b.WriteString(strconv.Quote(k) + colon)
				rec(x[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteString(comma)
				}
				rec(e)
			}
			b.WriteByte(']')
		case string:
			q := strconv.Quote(x)
			b.WriteString(q)
		case float64:
			b.WriteString(fmtFloat(x))
		case int:
			b.WriteString(strconv.Itoa(x))
		case bool:
			b.WriteString(strconv.FormatBool(x))
		case nil:
			b.WriteString("null")
		default:
			b.WriteString(strconv.Quote(fmt.Sprint(x)))
		}
	}
	rec(v)
	return b.String()
}

// retainedEvents are the event log rows meta still holds: the newest 10
// of each type, oldest first.
func (s *Sim) retainedEvents() []rwEvent {
	return s.newestEvents(func(typ string) string { return typ })
}

// newestEvents are the event log rows since the meta leader started: the
// newest 10 of each channel (channel names an event type's), oldest first.
func (s *Sim) newestEvents(channel func(typ string) string) []rwEvent {
	evs := append([]rwEvent(nil), s.eventLog...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].t.After(evs[j].t) })
	kept := map[string]int{}
	var out []rwEvent
	metaStart := s.pod("meta").current().start
	for _, e := range evs {
		if e.t.Before(metaStart) {
			continue // the event log lives in the meta leader's memory
		}
		if ch := channel(e.typ); kept[ch] < 10 {
			kept[ch]++
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t.Before(out[j].t) })
	return out
}

// param is one SHOW PARAMETERS row.
type param struct {
	name, value, desc string
	mutable           bool
}

// params are the system parameters of the cluster's version.
func (s *Sim) params() []param {
	ps := []param{
		{"barrier_interval_ms", "1000", "The interval of periodic barrier.", true},
		{"checkpoint_frequency", "1", "There will be a checkpoint for every n barriers.", true},
		{"sstable_size_mb", "256", "Target size of the Sstable.", false},
		{"parallel_compact_size_mb", "512", "", false},
		{"block_size_kb", "64", "Size of each block in bytes in SST.", false},
		{"bloom_false_positive", "0.001", "False positive probability of bloom filter.", false},
		{"state_store", "hummock+s3://" + s.Bucket, "", false},
		{"data_directory", "hummock_001", "Remote directory for storing data and metadata objects.", false},
		{"backup_storage_url", "s3://" + s.Bucket, "Remote storage url for storing snapshots.", true},
		{"backup_storage_directory", "backup", "Remote directory for storing snapshots.", true},
		{"max_concurrent_creating_streaming_jobs", "1", "Max number of concurrent creating streaming jobs.", true},
		{"pause_on_next_bootstrap", "false", "Whether to pause all data sources on next bootstrap.", true},
	}
	if s.Version.atLeast(1, 7) && !s.Version.atLeast(2, 0) {
		ps = append(ps, param{"wasm_storage_url", "fs://.risingwave/data", "", false})
	}
	if s.Version.atLeast(1, 10) {
		ps = append(ps, param{"enable_tracing", "false", "Whether to enable distributed tracing.", true},
			param{"use_new_object_prefix_strategy", "true", "Whether to split object prefix.", false})
	}
	if s.Version.atLeast(2, 0) {
		ps = append(ps, param{"license_key", "[REDACTED:" + hexID(s.Dir+"license", 8) + "]", "The license key to activate enterprise features.", true},
			param{"time_travel_retention_ms", "600000", "The data retention period for time travel.", true},
			param{"adaptive_parallelism_strategy", "AUTO", "The strategy for Adaptive Parallelism.", true})
	}
	if s.Version.atLeast(2, 3) {
		ps = append(ps, param{"per_database_isolation", "true", "Whether per database failure isolation is enabled.", true},
			param{"enforce_secret", "false", "Whether to enforce secret on cloud.", true})
	}
	for i := range ps {
		if v, ok := s.Params[ps[i].name]; ok {
			ps[i].value = v
		}
	}
	return ps
}

// tableWriter streams one psql --csv result.
type tableWriter struct {
	f *file
	w *csv.Writer
}

func (s *Sim) table(b *bundleWriter, rel string, at *time.Time, header ...string) *tableWriter {
	cmd := "psql --csv -c 'SELECT * FROM rw_catalog." + rel + "'"
	switch rel {
	case "show_parameters":
		cmd = "psql --csv -c 'SHOW PARAMETERS'"
	case "show_jobs":
		cmd = "psql --csv -c 'SHOW JOBS'"
	}
	*at = at.Add(time.Duration(30+s.rnd.IntN(90)) * time.Millisecond)
	f := b.create(bundle.SQLPath(rel), cmd, *at, at.Add(time.Duration(8+s.rnd.IntN(40))*time.Millisecond))
	w := csv.NewWriter(f)
	_ = w.Write(header)
	return &tableWriter{f: f, w: w}
}

func (t *tableWriter) row(cells ...string) { _ = t.w.Write(cells) }

func (t *tableWriter) close() {
	t.w.Flush()
	t.f.close()
}

func boolText(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

func intArray(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// workerRows are rw_worker_nodes, by pod; a pod in CrashLoopBackOff keeps
// its last registration.
func (s *Sim) writeSQL(b *bundleWriter) {
	at := s.Done.Add(40 * time.Second)
	v := s.Version
	v110 := !v.atLeast(2, 0)

	// rw_worker_nodes
	var tw *tableWriter
	if v110 {
		tw = s.table(b, "rw_worker_nodes", &at, "id", "host", "port", "type", "state", "parallel_units", "is_streaming", "is_serving",
			"is_unschedulable", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at")
	} else {
		tw = s.table(b, "rw_worker_nodes", &at, "id", "host", "port", "type", "state", "parallelism", "is_streaming", "is_serving",
			"is_unschedulable", "internal_rpc_host_addr", "rw_version", "system_total_memory_bytes", "system_total_cpu_cores", "started_at", "label")
	}
	var workers []*Pod
	for _, comp := range []string{"meta", "frontend", "compactor", "compute"} {
		workers = append(workers, s.pods(comp)...)
	}
	sort.SliceStable(workers, func(i, j int) bool { return workers[i].WorkerID < workers[j].WorkerID })
	for _, p := range workers {
		{
			comp := p.Component
			port := map[string]string{"meta": "5690", "frontend": "4567", "compactor": "6660", "compute": "5688"}[comp]
			typ := map[string]string{"meta": "WORKER_TYPE_META", "frontend": "WORKER_TYPE_FRONTEND", "compactor": "WORKER_TYPE_COMPACTOR", "compute": "WORKER_TYPE_COMPUTE_NODE"}[comp]
			par, stream, serve, unsched := "0", "", "", ""
			if comp == "compute" {
				par, stream, serve, unsched = strconv.Itoa(p.CPU), "t", "t", "f"
			}
			mem := p.totalMemory()
			started := p.current().start.Add(2 * time.Second)
			if v110 {
				tw.row(strconv.Itoa(p.WorkerID), p.host(), port, typ, "RUNNING", par, stream, serve, unsched, v.Semver,
					strconv.FormatInt(int64(mem), 10), strconv.Itoa(p.CPU), pgTime(started.Truncate(time.Second)))
			} else {
				tw.row(strconv.Itoa(p.WorkerID), p.host(), port, typ, "RUNNING", par, stream, serve, unsched, "", v.Semver,
					strconv.FormatInt(int64(mem), 10), strconv.Itoa(p.CPU), pgTime(started.Truncate(time.Second)), "")
			}
		}
	}
	tw.close()

	// rw_actors (+ rw_parallel_units on v1.10)
	if v110 {
		tw = s.table(b, "rw_actors", &at, "actor_id", "fragment_id", "parallel_unit_id", "state")
		pu := s.parallelUnits()
		next := map[*Pod]int{}
		for _, a := range s.Cat.actors() {
			unit := pu[a.Pod] + next[a.Pod]%a.Pod.CPU
			next[a.Pod]++
			tw.row(strconv.Itoa(a.ID), strconv.Itoa(a.Frag.ID), strconv.Itoa(unit), "RUNNING")
		}
		tw.close()
		tw = s.table(b, "rw_parallel_units", &at, "id", "worker_id")
		for _, p := range s.pods("compute") {
			for i := 0; i < p.CPU; i++ {
				tw.row(strconv.Itoa(pu[p]+i), strconv.Itoa(p.WorkerID))
			}
		}
		tw.close()
	} else {
		tw = s.table(b, "rw_actors", &at, "actor_id", "fragment_id", "worker_id", "state")
		for _, a := range s.Cat.actors() {
			tw.row(strconv.Itoa(a.ID), strconv.Itoa(a.Frag.ID), strconv.Itoa(a.Pod.WorkerID), "RUNNING")
		}
		tw.close()
	}

	// rw_fragments
	hdr := []string{"fragment_id", "table_id", "distribution_type", "state_table_ids", "upstream_fragment_ids", "flags", "parallelism"}
	if !v110 {
		hdr = append(hdr, "max_parallelism")
	}
	tw = s.table(b, "rw_fragments", &at, hdr...)
	for _, f := range s.Cat.fragments() {
		var ups []int
		for _, u := range f.Upstream {
			ups = append(ups, u.ID)
		}
		row := []string{strconv.Itoa(f.ID), strconv.Itoa(f.Job.ID), f.Dist, intArray(f.StateTables), intArray(ups),
			"{" + strings.Join(f.Flags, ",") + "}", strconv.Itoa(len(f.Actors))}
		if !v110 {
			row = append(row, "256")
		}
		tw.row(row...)
	}
	tw.close()

	// rw_streaming_jobs, or rw_table_fragments before v2.3
	switch {
	case v.atLeast(2, 6):
		tw = s.table(b, "rw_streaming_jobs", &at, "id", "name", "database_id", "status", "parallelism", "max_parallelism", "resource_group")
		for _, j := range s.Cat.Jobs {
			tw.row(strconv.Itoa(j.ID), j.Name, strconv.Itoa(s.Cat.DatabaseID), j.Status, j.Parallel, "256", "default")
		}
		tw.close()
	case v.atLeast(2, 3):
		tw = s.table(b, "rw_streaming_jobs", &at, "job", "name", "status", "parallelism", "max_parallelism")
		for _, j := range s.Cat.Jobs {
			tw.row(strconv.Itoa(j.ID), j.Name, j.Status, j.Parallel, "256")
		}
		tw.close()
	default:
		tw = s.table(b, "rw_table_fragments", &at, "table_id", "status", "parallelism")
		for _, j := range s.Cat.Jobs {
			tw.row(strconv.Itoa(j.ID), j.Status, "AUTO")
		}
		tw.close()
	}

	// rw_tables and rw_materialized_views
	relHdr := []string{"id", "name", "schema_id", "owner", "definition", "append_only", "acl", "initialized_at", "created_at",
		"initialized_at_cluster_version", "created_at_cluster_version"}
	if !v110 {
		relHdr = []string{"id", "name", "schema_id", "owner", "definition", "append_only", "acl", "initialized_at", "created_at",
			"initialized_at_cluster_version", "created_at_cluster_version", "background_ddl", "status"}
	}
	relRow := func(j *Job) []string {
		created, status := pgTime(j.Created), "Created"
		if j.Status == "CREATING" {
			created, status = "", "Creating"
		}
		row := []string{strconv.Itoa(j.ID), j.Name, strconv.Itoa(s.Cat.SchemaID), "1", j.Definition, "f", "{}", pgTime(j.Init), created,
			v.Semver, v.Semver}
		if !v110 {
			row = append(row, boolText(j.Background), status)
		}
		return row
	}
	tw = s.table(b, "rw_tables", &at, relHdr...)
	for _, j := range s.Cat.Jobs {
		if j.Kind == "table" {
			tw.row(relRow(j)...)
		}
	}
	tw.close()
	tw = s.table(b, "rw_materialized_views", &at, relHdr...)
	for _, j := range s.Cat.Jobs {
		if j.Kind == "materialized view" {
			tw.row(relRow(j)...)
		}
	}
	tw.close()

	// rw_sources
	tw = s.table(b, "rw_sources", &at, "id", "name", "schema_id", "owner", "connector", "columns", "format", "row_encode", "append_only",
		"associated_table_id", "connection_id", "definition", "acl", "initialized_at", "created_at", "initialized_at_cluster_version",
		"created_at_cluster_version", "is_shared", "connector_props")
	for _, src := range s.Cat.Sources {
		assoc := ""
		if src.Job.Kind == "table" {
			assoc = strconv.Itoa(src.Job.ID)
		}
		connector := "KAFKA" // rw_sources prints the WITH connector upper-cased
		for _, kv := range src.Props {
			if kv[0] == "connector" {
				connector = strings.ToUpper(kv[1])
			}
		}
		tw.row(strconv.Itoa(src.ID), src.Name, strconv.Itoa(s.Cat.SchemaID), "1", connector, sourceColumns(src), "PLAIN", "JSON", "t", assoc, "",
			src.Job.Definition, "{}", pgTime(src.Job.Init), pgTime(src.Job.Created), v.Semver, v.Semver, boolText(src.Shared), propsJSON(src.Props))
	}
	tw.close()

	// rw_sinks, rw_sink_decouple
	tw = s.table(b, "rw_sinks", &at, "id", "name", "schema_id", "owner", "connector", "sink_type", "connection_id", "definition", "acl",
		"initialized_at", "created_at", "initialized_at_cluster_version", "created_at_cluster_version", "target_table_name", "connector_props")
	for _, sk := range s.Cat.Sinks {
		tw.row(strconv.Itoa(sk.ID), sk.Name, strconv.Itoa(s.Cat.SchemaID), "1", sk.Connector, sk.Type, "", sk.Job.Definition, "{}",
			pgTime(sk.Job.Init), pgTime(sk.Job.Created), v.Semver, v.Semver, "", propsJSON(sk.Props))
	}
	tw.close()
	tw = s.table(b, "rw_sink_decouple", &at, "sink_id", "is_decouple", "watermark_vnode_count")
	for _, sk := range s.Cat.Sinks {
		tw.row(strconv.Itoa(sk.ID), boolText(sk.Decoupled), "0")
	}
	tw.close()

	// rw_actor_splits
	if !v110 && len(s.Cat.Sources) > 0 {
		tw = s.table(b, "rw_actor_splits", &at, "actor_id", "split_id", "source_id", "fragment_id", "fragment_type")
		for _, src := range s.Cat.Sources {
			for i := 0; i < src.Partitions; i++ {
				a := src.Frag.Actors[i%len(src.Frag.Actors)]
				tw.row(strconv.Itoa(a.ID), strconv.Itoa(i), strconv.Itoa(src.ID), strconv.Itoa(src.Frag.ID), "SOURCE")
			}
		}
		tw.close()
	}

	// rw_ddl_progress, rw_fragment_backfill_progress, rw_rate_limit
	var creating []*Job
	for _, j := range s.Cat.Jobs {
		if j.Status == "CREATING" {
			creating = append(creating, j)
		}
	}
	if v.atLeast(2, 6) {
		tw = s.table(b, "rw_ddl_progress", &at, "ddl_id", "ddl_statement", "create_type", "progress", "initialized_at", "is_serverless_backfill", "backfill_type")
	} else {
		tw = s.table(b, "rw_ddl_progress", &at, "ddl_id", "ddl_statement", "progress", "initialized_at")
	}
	for _, j := range creating {
		ct := "FOREGROUND"
		if j.Background {
			ct = "BACKGROUND"
		}
		if v.atLeast(2, 6) {
			tw.row(strconv.Itoa(j.ID), j.Definition, ct, j.Progress, pgTime(j.Init), "f", "NORMAL_BACKFILL")
		} else {
			tw.row(strconv.Itoa(j.ID), j.Definition, j.Progress, pgTime(j.Init))
		}
	}
	tw.close()
	if v.atLeast(2, 5) {
		tw = s.table(b, "rw_fragment_backfill_progress", &at, "job_id", "fragment_id", "job_name", "upstream_table_name", "progress")
		for _, j := range creating {
			if f := j.fragOf("scan"); f != nil {
				tw.row(strconv.Itoa(j.ID), strconv.Itoa(f.ID), j.Name, j.Upstream, j.Progress)
			}
		}
		tw.close()
	}
	if v.atLeast(2, 0) {
		tw = s.table(b, "rw_rate_limit", &at, "fragment_id", "fragment_type", "node_name", "table_id", "rate_limit")
		for _, r := range s.rateLims {
			tw.row(r[:]...)
		}
		tw.close()
	}

	// rw_event_logs
	evs := s.retainedEvents()
	tw = s.table(b, "rw_event_logs", &at, "unique_id", "timestamp", "event_type", "info")
	for i, e := range evs {
		tw.row(uuidFor(fmt.Sprint(s.Dir, "event", i)), pgTime(e.t), e.typ, jsonText(e.info, true))
	}
	tw.close()

	// SHOW PARAMETERS, SHOW JOBS
	tw = s.table(b, "show_parameters", &at, "Name", "Value", "Description", "Mutable")
	for _, p := range s.params() {
		tw.row(p.name, p.value, p.desc, boolText(p.mutable))
	}
	tw.close()
	if v110 {
		tw = s.table(b, "show_jobs", &at, "Id", "Statement", "Progress")
	} else {
		tw = s.table(b, "show_jobs", &at, "Id", "Statement", "Create Type", "Progress")
	}
	for _, j := range creating {
		ct := "FOREGROUND"
		if j.Background {
			ct = "BACKGROUND"
		}
		if v110 {
			tw.row(strconv.Itoa(j.ID), j.Definition, j.Progress)
		} else {
			tw.row(strconv.Itoa(j.ID), j.Definition, ct, j.Progress)
		}
	}
	tw.close()

	// EXPLAIN of each job with a plan.
	for _, j := range s.Cat.Jobs {
		if len(j.Plan) == 0 {
			continue
		}
		at = at.Add(60 * time.Millisecond)
		b.writeString(bundle.ExplainPath(j.Name), "psql -At -c 'EXPLAIN "+strings.ReplaceAll(j.Definition, "'", `'\''`)+"'",
			at, at.Add(25*time.Millisecond), strings.Join(j.Plan, "\n")+"\n")
	}
	for _, f := range s.extraSQL {
		f(b, &at)
	}
}

// sourceColumns lists a source's columns as rw_sources prints them.
func sourceColumns(src *Source) string {
	def := src.Job.Definition
	open := strings.Index(def, "(")
	closeIdx := strings.Index(def, ") WITH")
	if open < 0 || closeIdx < open {
		return "{}"
	}
	var cols []string
	for _, c := range strings.Split(def[open+1:closeIdx], ",") {
		c = strings.TrimSpace(c)
		if name, _, ok := strings.Cut(c, " "); ok && !strings.EqualFold(name, "PRIMARY") {
			cols = append(cols, name)
		}
	}
	if src.Job.Kind == "table" {
		cols = append(cols, "_row_id")
	}
	return "{" + strings.Join(cols, ",") + "}"
}

// propsJSON renders connector properties as jsonb; secrets are already
// replaced by the collector's redaction token.
func propsJSON(props [][2]string) string {
	m := map[string]any{}
	for _, p := range props {
		m[p[0]] = p[1]
	}
	return jsonText(m, true)
}

// redacted is the collector's redaction token for a secret value.
func redacted(key string) string { return "[REDACTED:" + hexID("secret:"+key, 8) + "]" }

// progressText is RisingWave's "{:.2}% ({consumed}/{total})".
func progressText(consumed, total float64) string {
	return fmt.Sprintf("%.2f%% (%d/%d)", math.Floor(consumed/total*10000)/100, int64(consumed), int64(total))
}
