package secretcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rwdiag/rwdiag/bundle"
)

// The names the planted bundle and the collector tests use.
const (
	Cluster   = "rw-corpus"
	Namespace = "rw-corpus"
	MetaPod   = "rw-corpus-meta-0"
)

// ShowParameters is the sql "relation" of SHOW PARAMETERS: an entry's
// column is a parameter's name, its value the parameter's value.
const ShowParameters = "show_parameters"

// LongLineCut is where a long line is cut for redaction (the collector's
// maxRedactLine): a long-line entry's secret is planted across it.
const LongLineCut = 1 << 20

// Location is where an entry's planted value is: a file and a line of it
// (0-based), on which the token that replaced it must be.
type Location struct {
	File string
	Line int
}

// Planted is a hand-made, unredacted bundle holding every entry in its place.
type Planted struct {
	// Files are the bundle's files, manifest.json aside.
	Files map[string][]byte
	// Manifest holds the manifest's strings: files' sources and errors
	// (Files lists only those that have one), errors and the incomplete
	// reason.
	Manifest bundle.Manifest
	// At is where each entry is, by id; manifest entries have none.
	At map[string]Location
	// ManifestAt is where each manifest entry is, by id.
	ManifestAt map[string]ManifestLocation
}

// ManifestLocation is where a manifest entry is: the source or error of
// the file at Path, or the target or message of Errors[Index].
type ManifestLocation struct {
	Field string // the entry's key
	Path  string
	Index int
}

// ManifestTokens returns the tokens in the manifest string at l.
func ManifestTokens(m *bundle.Manifest, l ManifestLocation) []string {
	var s string
	switch l.Field {
	case "files.source", "files.incomplete_reason":
		fe, _ := m.File(l.Path)
		s = fe.Source
		if l.Field == "files.incomplete_reason" {
			s = fe.Error
		}
	case "errors.target", "errors.message":
		if l.Index < len(m.Errors) {
			s = m.Errors[l.Index].Target
			if l.Field == "errors.message" {
				s = m.Errors[l.Index].Error
			}
		}
	}
	return Tokens([]byte(s))
}

// LongLine is a log line of more than LongLineCut bytes with the entry's
// planted text at its end, placed so that the secret straddles byte
// LongLineCut of the line. The text's own line end is not included.
func LongLine(e Entry) string {
	text := e.Text
	if text == "" {
		text = Placeholder
	}
	i := strings.Index(text, Placeholder)
	before := strings.ReplaceAll(text[:i], Placeholder, e.Secret)
	// The line is: timestamp and message start, filler, before, secret, rest.
	head := "2026-11-29T20:41:07.000000001Z  INFO risingwave_stream::executor: batch rows: "
	pad := LongLineCut - len(e.Secret)/2 - len(before) - len(head)
	filler := strings.Repeat("row ", pad/4+1)[:pad]
	return head + filler + e.Planted()
}

// Build plants every entry:
//
//   - env: an env var of the meta container, one per line, in pods.json,
//     statefulsets.json (the pod template) and risingwaves.json (the
//     RisingWave resource's meta node group), and echoed in the describe
//     text's Environment section;
//   - arg: the args of a container of its own, in pods.json and echoed in
//     describe's Args section;
//   - configmap: data under its key in configmaps.json; json: data under
//     "<id>.json" there, and a line of the meta log;
//   - log: a line of the meta log; a long-line entry (class long-line) a
//     log file of its own, across the cut (LongLine);
//   - describe: a line of the describe text's Events section;
//   - sql: a row of sql/<relation>.csv, its id column the entry's id; for
//     show_parameters, the row of the parameter the column names;
//   - diagnose: a line of diagnose/report.txt;
//   - manifest: files.source and files.incomplete_reason on a log file of
//     its own (the source, the file's error; the first incomplete_reason is
//     the manifest's too), errors.target and errors.message on an error.
func Build(entries []Entry) (*Planted, error) {
	p := &Planted{Files: map[string][]byte{}, At: map[string]Location{}, ManifestAt: map[string]ManifestLocation{}}
	p.Manifest.Namespace, p.Manifest.Cluster, p.Manifest.RisingWaveVersion = Namespace, Cluster, "v2.6.2"
	p.Manifest.Complete = true
	type lines struct {
		path string
		b    bytes.Buffer
		n    int
	}
	files := map[string]*lines{}
	var order []string
	file := func(path string) *lines {
		if files[path] == nil {
			files[path] = &lines{path: path}
			order = append(order, path)
		}
		return files[path]
	}
	// add writes a line (s may hold line ends) and records it for id.
	add := func(path, id, s string) {
		f := file(path)
		if id != "" {
			if _, ok := p.At[id]; !ok {
				p.At[id] = Location{path, f.n}
			}
		}
		f.b.WriteString(s)
		f.b.WriteByte('\n')
		f.n += strings.Count(s, "\n") + 1
	}
	js := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}

	var env, args, cm []Entry
	var sqlRels []string
	sqlCols := map[string][]string{}
	for _, e := range entries {
		switch e.Where {
		case WhereEnv:
			env = append(env, e)
		case WhereArg:
			args = append(args, e)
		case WhereConfigMap, WhereJSON:
			cm = append(cm, e)
		case WhereSQL:
			rel := e.Relation()
			if sqlCols[rel] == nil {
				sqlRels = append(sqlRels, rel)
			}
			if !slices.Contains(sqlCols[rel], e.Column()) {
				sqlCols[rel] = append(sqlCols[rel], e.Column())
			}
		}
	}

	// pods.json
	pods := bundle.KubePath("pods")
	add(pods, "", `{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [{"apiVersion": "v1", "kind": "Pod",`)
	add(pods, "", `  "metadata": {"name": "`+MetaPod+`", "namespace": "`+Namespace+`", "labels": {"risingwave/component": "meta", "risingwave/name": "`+Cluster+`"}},`)
	add(pods, "", `  "spec": {"nodeName": "node-a", "containers": [{"name": "meta", "image": "risingwavelabs/risingwave:v2.6.2", "env": [`)
	envLines := func(path string) {
		for i, e := range env {
			sep := ","
			if i == len(env)-1 {
				sep = ""
			}
			add(path, e.ID, fmt.Sprintf(`    {"name": %s, "value": %s}%s`, js(e.Key), js(e.Secret), sep))
		}
	}
	envLines(pods)
	add(pods, "", `  ]}`)
	for i, e := range args {
		a, err := e.Args()
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(a)
		add(pods, e.ID, fmt.Sprintf(`  , {"name": "tool-%d", "image": "busybox:1.36", "args": %s}`, i, b))
	}
	add(pods, "", `  ]}, "status": {"phase": "Running"}}]}`)

	sts := bundle.KubePath("statefulsets")
	add(sts, "", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "StatefulSet",`)
	add(sts, "", `  "metadata": {"name": "rw-corpus-meta", "namespace": "`+Namespace+`"},`)
	add(sts, "", `  "spec": {"template": {"spec": {"containers": [{"name": "meta", "env": [`)
	envLines(sts)
	add(sts, "", `  ]}]}}}}]}`)

	cr := bundle.KubePath("risingwaves")
	add(cr, "", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "risingwave.risingwavelabs.com/v1alpha1", "kind": "RisingWave",`)
	add(cr, "", `  "metadata": {"name": "`+Cluster+`", "namespace": "`+Namespace+`"},`)
	add(cr, "", `  "spec": {"components": {"meta": {"nodeGroups": [{"name": "", "replicas": 1, "template": {"spec": {"env": [`)
	envLines(cr)
	add(cr, "", `  ]}}}]}}}}]}`)

	cms := bundle.KubePath("configmaps")
	add(cms, "", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap",`)
	add(cms, "", `  "metadata": {"name": "rw-corpus-config", "namespace": "`+Namespace+`"}, "data": {`)
	for i, e := range cm {
		key := e.Key
		if e.Where == WhereJSON || key == "" {
			key = e.ID + ".json"
		}
		sep := ","
		if i == len(cm)-1 {
			sep = ""
		}
		add(cms, e.ID, fmt.Sprintf(`    %s: %s%s`, js(key), js(e.Planted()), sep))
	}
	add(cms, "", `  }}]}`)

	// describe
	desc := bundle.DescribePath(MetaPod)
	add(desc, "", "Name:             "+MetaPod+"\nNamespace:        "+Namespace+"\nStatus:           Running\nContainers:\n  meta:\n    Image:          risingwavelabs/risingwave:v2.6.2\n    Environment:")
	for _, e := range env {
		add(desc, "", fmt.Sprintf("      %s:  %s", e.Key, e.Secret))
	}
	for i, e := range args {
		a, _ := e.Args()
		add(desc, "", fmt.Sprintf("  tool-%d:\n    Image:          busybox:1.36\n    Args:", i))
		for _, s := range a {
			add(desc, "", "      "+s)
		}
	}
	add(desc, "", "Events:\n  Type     Reason   Age   From     Message\n  ----     ------   ----  ----     -------")
	for _, e := range entries {
		if e.Where == WhereDescribe {
			add(desc, e.ID, e.Planted())
		}
	}

	// logs, diagnose
	metaLog := bundle.LogPath(MetaPod, "meta", false)
	add(metaLog, "", "2026-11-29T20:41:00.000000001Z  INFO risingwave_meta: starting meta node")
	long := 0
	for _, e := range entries {
		switch {
		case e.Class == "long-line":
			path := bundle.LogPath(fmt.Sprintf("rw-corpus-long-%d", long), "main", false)
			long++
			add(path, e.ID, LongLine(e))
			add(path, "", "2026-11-29T20:41:08.000000001Z  INFO risingwave_stream: after the long line")
		case e.Where == WhereLog, e.Where == WhereJSON:
			add(metaLog, e.ID, e.Planted())
		case e.Where == WhereDiagnose:
			add("diagnose/report.txt", e.ID, e.Planted())
		}
	}

	// sql
	for _, rel := range sqlRels {
		path := bundle.SQLPath(rel)
		if rel == ShowParameters {
			// SHOW PARAMETERS: a row per parameter, the key's column its name.
			add(path, "", "Name,Value,Description,Mutable")
			for _, e := range entries {
				if e.Where == WhereSQL && e.Relation() == rel {
					var b bytes.Buffer
					AppendCSV(&b, []string{e.Column(), e.Planted(), "planted by " + e.ID, "t"})
					add(path, e.ID, strings.TrimSuffix(b.String(), "\n"))
				}
			}
			continue
		}
		cols := append([]string{"id"}, sqlCols[rel]...)
		var b bytes.Buffer
		AppendCSV(&b, cols)
		add(path, "", strings.TrimSuffix(b.String(), "\n"))
		for _, e := range entries {
			if e.Where != WhereSQL || e.Relation() != rel {
				continue
			}
			row := make([]string, len(cols))
			row[0] = e.ID
			row[slices.Index(cols, e.Column())] = e.Planted()
			b.Reset()
			AppendCSV(&b, row)
			add(path, e.ID, strings.TrimSuffix(b.String(), "\n"))
		}
	}

	// manifest
	extra := 0
	for _, e := range entries {
		if e.Where != WhereManifest {
			continue
		}
		switch e.Key {
		case "files.source", "files.incomplete_reason":
			path := bundle.LogPath(fmt.Sprintf("rw-corpus-extra-%d", extra), "main", false)
			extra++
			add(path, "", "2026-11-29T20:41:00.000000001Z  INFO risingwave_compute: nothing secret here")
			fe := bundle.FileEntry{Path: path}
			if e.Key == "files.source" {
				fe.Source = e.Planted()
			} else {
				fe.Error = e.Planted()
				if p.Manifest.IncompleteReason == "" {
					p.Manifest.Complete, p.Manifest.IncompleteReason = false, e.Planted()
				}
			}
			p.Manifest.Files = append(p.Manifest.Files, fe)
			p.ManifestAt[e.ID] = ManifestLocation{Field: e.Key, Path: path}
		case "errors.target":
			p.ManifestAt[e.ID] = ManifestLocation{Field: e.Key, Index: len(p.Manifest.Errors)}
			p.Manifest.Errors = append(p.Manifest.Errors, bundle.CollectError{Step: "sql", Target: e.Planted(), Error: "connection refused"})
		case "errors.message":
			p.ManifestAt[e.ID] = ManifestLocation{Field: e.Key, Index: len(p.Manifest.Errors)}
			p.Manifest.Errors = append(p.Manifest.Errors, bundle.CollectError{Step: "sql", Target: "frontend", Error: e.Planted()})
		}
	}
	for _, path := range order {
		p.Files[path] = files[path].b.Bytes()
	}
	return p, nil
}

// AppendCSV appends one record as `psql --csv` prints it.
func AppendCSV(b *bytes.Buffer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") || f == `\.` {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}

// LineTokens returns the tokens on line n (0-based) of data.
func LineTokens(data []byte, n int) []string {
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return Tokens(data)
}

// SameTokenProblems checks that each pair of entries with equal secrets
// got a common token, where locate says each entry's tokens are (those of
// the line it was planted on). An entry that cannot be located is skipped.
func SameTokenProblems(entries []Entry, locate func(Entry) ([]string, bool)) []string {
	var probs []string
	for _, pair := range SamePairs(entries) {
		a, okA := locate(pair[0])
		b, okB := locate(pair[1])
		if !okA || !okB {
			continue
		}
		common := false
		for _, t := range a {
			if slices.Contains(b, t) {
				common = true
			}
		}
		if !common {
			probs = append(probs, fmt.Sprintf("%s (%s) and %s (%s) hold the same secret but share no token: %v vs %v",
				pair[0].ID, pair[0].Class, pair[1].ID, pair[1].Class, a, b))
		}
	}
	return probs
}
