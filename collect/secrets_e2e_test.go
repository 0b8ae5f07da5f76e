package collect_test

// The planted-secret corpus (collect/testdata/secrets/corpus.yaml) through
// the collector end to end: the test API server serves the corpus pod,
// StatefulSet, RisingWave resource, configmap, events (shown by kubectl's own
// describer), container logs (one a line of more than 1 MiB with a secret
// across the cut) and the meta dashboard's diagnose report; a throwaway
// PostgreSQL serves rw_catalog relations holding the sql entries; manifest
// entries come back as the API server's error messages for container logs.
// A run with redaction off must capture every secret (else the test proves
// nothing); the run with redaction on must leave none, in any byte of any
// file or the manifest, in any form, and give equal secrets equal tokens.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
	"github.com/rwdiag/rwdiag/collect"
	"github.com/rwdiag/rwdiag/collect/secretcorpus"
)

const corpusPath = "testdata/secrets/corpus.yaml"

func loadCorpus(t *testing.T) []secretcorpus.Entry {
	t.Helper()
	entries, err := secretcorpus.Load(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// corpusPlant records where the collector should have put each entry.
type corpusPlant struct {
	planted *secretcorpus.Planted
	// diagnoseOffset is the number of lines of the report before the corpus'.
	diagnoseOffset int
	// longLog is the collected log of each long-line entry.
	longLog map[string]string
	// logTarget is the manifest error target of each manifest entry.
	logTarget map[string]string
	// sqlIDs are the ids of each relation's rows.
	sqlIDs map[string][]string
}

// plantCorpus adds the corpus to the API server's objects, logs and
// dashboard, and returns the SQL that creates its rw_catalog relations.
func plantCorpus(t *testing.T, api *fakeAPI, entries []secretcorpus.Entry) (*corpusPlant, []string) {
	t.Helper()
	planted, err := secretcorpus.Build(entries)
	if err != nil {
		t.Fatal(err)
	}
	cp := &corpusPlant{planted: planted, longLog: map[string]string{}, logTarget: map[string]string{}, sqlIDs: map[string][]string{}}
	items := func(path string) []object {
		var l struct{ Items []object }
		if err := json.Unmarshal(planted.Files[path], &l); err != nil {
			t.Fatalf("planted %s: %v", path, err)
		}
		for _, o := range l.Items {
			o["metadata"].(object)["namespace"] = testNS
		}
		return l.Items
	}
	pods := items(bundle.KubePath("pods"))
	pod := pods[0]
	const uid = "6f1d0a2e-corp-4c1b-9e55-000000000001"
	pod["metadata"].(object)["uid"] = uid
	spec := pod["spec"].(object)
	spec["nodeName"] = api.objects["pods"][0]["spec"].(object)["nodeName"]
	containers := spec["containers"].([]any)
	container := func(name string) {
		containers = append(containers, object{"name": name, "image": "risingwavelabs/risingwave:v2.6.2"})
	}
	// The long lines, each the log of a container of its own, so that the
	// line starts the stream and the cut falls where the corpus placed it.
	long := 0
	for _, e := range entries {
		if e.Class != "long-line" {
			continue
		}
		name := fmt.Sprintf("long-%d", long)
		long++
		container(name)
		at := planted.At[e.ID]
		api.logs[secretcorpus.MetaPod+"/"+name] = planted.Files[at.File]
		cp.longLog[e.ID] = bundle.LogPath(secretcorpus.MetaPod, name, false)
	}
	// Manifest entries: the API server refuses a container's log with the
	// entry's text as its message, which the collector records.
	mf := 0
	for _, e := range entries {
		if e.Where != secretcorpus.WhereManifest {
			continue
		}
		name := fmt.Sprintf("mf-%d", mf)
		mf++
		container(name)
		api.logFail[secretcorpus.MetaPod+"/"+name] = e.Planted()
		cp.logTarget[e.ID] = secretcorpus.MetaPod + "/" + name
	}
	spec["containers"] = containers
	api.objects["pods"] = append(api.objects["pods"], pod)
	for _, c := range containers {
		key := secretcorpus.MetaPod + "/" + c.(object)["name"].(string)
		if _, ok := api.logs[key]; !ok {
			api.logs[key] = []byte("2026-11-29T20:41:00.000000001Z  INFO risingwave_cmd: started\n")
		}
	}
	api.logs[secretcorpus.MetaPod+"/meta"] = planted.Files[bundle.LogPath(secretcorpus.MetaPod, "meta", false)]
	api.objects["statefulsets"] = append(api.objects["statefulsets"], items(bundle.KubePath("statefulsets"))...)
	api.objects["risingwaves"] = append(api.objects["risingwaves"], items(bundle.KubePath("risingwaves"))...)
	api.objects["configmaps"] = append(api.objects["configmaps"], items(bundle.KubePath("configmaps"))...)

	// describe entries: events of the pod, which kubectl's describer shows.
	n := 0
	for _, e := range entries {
		if e.Where != secretcorpus.WhereDescribe {
			continue
		}
		n++
		api.objects["events"] = append(api.objects["events"], object{
			"apiVersion": "v1", "kind": "Event",
			"metadata": object{"name": fmt.Sprintf("%s.corpus%04d", secretcorpus.MetaPod, n), "namespace": testNS},
			"involvedObject": object{"kind": "Pod", "name": secretcorpus.MetaPod, "namespace": testNS, "uid": uid,
				"apiVersion": "v1", "fieldPath": "spec.containers{meta}"},
			"reason": "Planted", "message": e.Planted(), "type": "Warning", "count": 1,
			"source":         object{"component": "kubelet", "host": spec["nodeName"]},
			"firstTimestamp": "2026-11-29T20:40:00Z", "lastTimestamp": "2026-11-29T20:40:00Z",
		})
	}

	// The diagnose report: the fixture's, then the corpus' lines.
	report := api.dashboard["api/monitor/diagnose/"]
	if len(report) > 0 && report[len(report)-1] != '\n' {
		report = append(slices.Clone(report), '\n')
	}
	cp.diagnoseOffset = bytes.Count(report, []byte("\n"))
	api.dashboard["api/monitor/diagnose/"] = append(slices.Clone(report), planted.Files["diagnose/report.txt"]...)

	// rw_catalog: a table per relation, a text column per column, a row per
	// entry; SHOW PARAMETERS' entries are rows of rw_system_parameters.
	stmts := []string{`CREATE SCHEMA rw_catalog`,
		`CREATE TABLE rw_catalog.rw_system_parameters (name text, value text, description text, mutable boolean)`}
	cols := map[string][]string{}
	var rels []string
	for _, e := range entries {
		if e.Where != secretcorpus.WhereSQL || e.Relation() == secretcorpus.ShowParameters {
			continue
		}
		if cols[e.Relation()] == nil {
			rels = append(rels, e.Relation())
		}
		if !slices.Contains(cols[e.Relation()], e.Column()) {
			cols[e.Relation()] = append(cols[e.Relation()], e.Column())
		}
	}
	for _, rel := range rels {
		var defs []string
		for _, c := range cols[rel] {
			defs = append(defs, pgIdent(c)+" text")
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE rw_catalog.%s (id text, %s)", pgIdent(rel), strings.Join(defs, ", ")))
	}
	for _, e := range entries {
		if e.Where != secretcorpus.WhereSQL {
			continue
		}
		if e.Relation() == secretcorpus.ShowParameters {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO rw_catalog.rw_system_parameters VALUES (%s, %s, 'planted', true)",
				pgString(e.Column()), pgString(e.Planted())))
			continue
		}
		cp.sqlIDs[e.Relation()] = append(cp.sqlIDs[e.Relation()], e.ID)
		stmts = append(stmts, fmt.Sprintf("INSERT INTO rw_catalog.%s (id, %s) VALUES (%s, %s)",
			pgIdent(e.Relation()), pgIdent(e.Column()), pgString(e.ID), pgString(e.Planted())))
	}
	return cp, stmts
}

func pgIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func pgString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readBundleBytes reads every entry of a bundle, decompressed, the manifest
// included, and the manifest decoded.
func readBundleBytes(t *testing.T, path string) (map[string][]byte, *bundle.Manifest) {
	t.Helper()
	r, err := bundle.Open(path, bundle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string][]byte{}
	var m *bundle.Manifest
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(e)
		if err != nil {
			t.Fatal(err)
		}
		files[e.Path] = b
		if e.Path == bundle.ManifestPath {
			if m, err = bundle.DecodeManifest(bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if m == nil {
		t.Fatalf("%s: no manifest", path)
	}
	return files, m
}

// locate returns the tokens where the collector wrote e's value.
func (cp *corpusPlant) locate(files map[string][]byte, m *bundle.Manifest, e secretcorpus.Entry) ([]string, bool) {
	jsonValue := func(file, name string, get func(object) string) ([]string, bool) {
		var l struct{ Items []object }
		if json.Unmarshal(files[file], &l) != nil {
			return nil, false
		}
		for _, o := range l.Items {
			if md, _ := o["metadata"].(object); md["name"] == name {
				return secretcorpus.Tokens([]byte(get(o))), true
			}
		}
		return nil, false
	}
	switch e.Where {
	case secretcorpus.WhereEnv:
		return jsonValue(bundle.KubePath("pods"), secretcorpus.MetaPod, func(o object) string {
			for _, c := range o["spec"].(object)["containers"].([]any) {
				env, _ := c.(object)["env"].([]any)
				for _, v := range env {
					if v.(object)["name"] == e.Key {
						s, _ := v.(object)["value"].(string)
						return s
					}
				}
			}
			return ""
		})
	case secretcorpus.WhereConfigMap, secretcorpus.WhereJSON:
		key := e.Key
		if e.Where == secretcorpus.WhereJSON || key == "" {
			key = e.ID + ".json"
		}
		return jsonValue(bundle.KubePath("configmaps"), "rw-corpus-config", func(o object) string {
			s, _ := o["data"].(object)[key].(string)
			return s
		})
	case secretcorpus.WhereLog:
		if p, ok := cp.longLog[e.ID]; ok {
			return secretcorpus.LineTokens(files[p], 0), true
		}
		at := cp.planted.At[e.ID]
		return secretcorpus.LineTokens(files[at.File], at.Line), true
	case secretcorpus.WhereDiagnose:
		at := cp.planted.At[e.ID]
		return secretcorpus.LineTokens(files["diagnose/report.txt"], cp.diagnoseOffset+at.Line), true
	case secretcorpus.WhereManifest:
		for _, ce := range m.Errors {
			if ce.Target == cp.logTarget[e.ID] {
				return secretcorpus.Tokens([]byte(ce.Error)), true
			}
		}
	case secretcorpus.WhereSQL:
		// The record from the entry's id to the next line that starts
		// another record of the corpus.
		data := files[bundle.SQLPath(e.Relation())]
		if e.Relation() == secretcorpus.ShowParameters {
			data = files[bundle.SQLPath("rw_system_parameters")]
			i := bytes.Index(data, []byte("\n"+e.Column()+","))
			if i < 0 {
				return nil, false
			}
			return secretcorpus.LineTokens(data[i+1:], 0), true
		}
		i := bytes.Index(data, []byte("\n"+e.ID+","))
		if i < 0 {
			return nil, false
		}
		rest := data[i+1:]
		end := len(rest)
		for _, id := range cp.sqlIDs[e.Relation()] {
			if j := bytes.Index(rest, []byte("\n"+id+",")); j >= 0 && id != e.ID {
				end = min(end, j)
			}
		}
		return secretcorpus.Tokens(rest[:end]), true
	}
	return nil, false
}

// collectCorpus runs the collector on the planted API server and database.
func collectCorpus(t *testing.T, entries []secretcorpus.Entry, pg collect.TestPG, db string, noRedact bool) (*corpusPlant, map[string][]byte, *bundle.Manifest) {
	t.Helper()
	api := newFakeAPI(t)
	cp, _ := plantCorpus(t, api, entries)
	_, cfg := api.start(t)
	opts := testOptions(t, cfg)
	opts.SQLDSN = pg.DSN(db)
	opts.MetricsSamples = 1
	opts.NoRedact = noRedact
	opts.Timeout = 2 * time.Minute
	res, err := collect.Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, m := readBundleBytes(t, res.Path)
	return cp, files, m
}

func TestCollectCorpus(t *testing.T) {
	entries := loadCorpus(t)
	pg := collect.StartTestPG(t)
	api := newFakeAPI(t)
	_, stmts := plantCorpus(t, api, entries)
	pg.Exec(t, "postgres", "CREATE DATABASE corpus")
	pg.Exec(t, "corpus", stmts...)

	// With redaction off, every secret is in the bundle: the planting works.
	_, raw, _ := collectCorpus(t, entries, pg, "corpus", true)
	found := map[string]bool{}
	for _, s := range secretcorpus.Survivors(entries, raw) {
		found[s.Entry.ID] = true
	}
	var missing []string
	for _, e := range entries {
		if !found[e.ID] {
			missing = append(missing, e.ID+" ("+e.Where+")")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("with --no-redact, %d of %d planted secrets are not in the bundle: the test would prove nothing for them: %s",
			len(missing), len(entries), strings.Join(missing, ", "))
	}

	cp, files, m := collectCorpus(t, entries, pg, "corpus", false)
	if survivors := secretcorpus.Survivors(entries, files); len(survivors) > 0 {
		ids := map[string]bool{}
		for _, s := range survivors {
			ids[s.Entry.ID] = true
		}
		t.Errorf("%d of %d planted secrets survive collection:\n%s", len(ids), len(entries), secretcorpus.Table(entries, survivors))
	} else {
		t.Logf("0 of %d planted secrets survive:\n%s", len(entries), secretcorpus.Table(entries, nil))
	}
	for _, p := range secretcorpus.SameTokenProblems(entries, func(e secretcorpus.Entry) ([]string, bool) {
		return cp.locate(files, m, e)
	}) {
		t.Error(p)
	}
	// The manifest counts per file what was replaced.
	if !m.Redaction.Enabled || m.Redaction.Files[bundle.KubePath("pods")] == nil || m.Redaction.Files[bundle.ManifestPath] == nil {
		t.Errorf("redaction report: %+v", m.Redaction)
	}
}

// The manifest strings the collector makes from what it is given: an
// unreachable --sql-dsn with a password (URL and key=value forms) and a
// --prometheus URL with one end up in the manifest's errors, redacted.
func TestCollectManifestSecrets(t *testing.T) {
	var mf []secretcorpus.Entry
	for _, e := range loadCorpus(t) {
		if e.Where == secretcorpus.WhereManifest {
			mf = append(mf, e)
		}
	}
	if len(mf) == 0 {
		t.Fatal("no manifest entries in the corpus")
	}
	api := newFakeAPI(t)
	_, cfg := api.start(t)
	for i, e := range mf {
		t.Run(e.ID, func(t *testing.T) {
			opts := testOptions(t, cfg)
			opts.Skip = []string{collect.StepDescribe, collect.StepLogs, collect.StepMetrics, collect.StepDiagnose}
			addr := closedAddr(t)
			step := collect.StepSQL
			switch i % 3 {
			case 0:
				opts.SQLDSN = "postgres://root:" + url.PathEscape(e.Secret) + "@" + addr + "/dev?connect_timeout=1&sslmode=disable"
			case 1:
				host, port, _ := strings.Cut(addr, ":")
				opts.SQLDSN = fmt.Sprintf("host=%s port=%s user=root password=%s dbname=dev connect_timeout=1 sslmode=disable", host, port, e.Secret)
			case 2:
				opts.Skip = append(opts.Skip, collect.StepSQL)
				step = collect.StepPrometheus
				opts.PrometheusURL = "http://rwdiag:" + url.PathEscape(e.Secret) + "@" + addr + "/"
				opts.PrometheusMetrics = []string{"stream_barrier_latency"}
			}
			res, err := collect.Run(context.Background(), opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			files, m := readBundleBytes(t, res.Path)
			recorded := false
			for _, ce := range m.Errors {
				recorded = recorded || ce.Step == step
			}
			if !recorded {
				t.Fatalf("no %s error recorded: the secret had nowhere to leak\n%s", step, errorList(m))
			}
			if s := secretcorpus.Survivors([]secretcorpus.Entry{e}, files); len(s) > 0 {
				t.Errorf("the secret survives:\n%s\nerrors:\n%s", secretcorpus.Table([]secretcorpus.Entry{e}, s), errorList(m))
			}
		})
	}
}
