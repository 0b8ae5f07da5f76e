package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/rwdiag/rwdiag/analyze/evidence"
	"github.com/rwdiag/rwdiag/bundle"
)

// Query selects Kubernetes objects from kubernetes/<resource>.json and
// evaluates a gjson path on each.
type Query struct {
	// Resource names the file: "pods", "events", "nodes", "statefulsets",
	// "risingwaves", ...
	Resource string
	// Component, when set, keeps the objects of that RisingWave component
	// (see bundle.Component). An event's component is its involved pod's.
	// A standalone pod runs every component and matches them all.
	Component string
	// Labels must all match the object's metadata.labels; for an event,
	// its involved pod's.
	Labels map[string]string
	// Path is evaluated on each object; "" is the object itself. No result,
	// no row; an array, a row per element.
	Path string
	// Fields are extra row fields, name -> gjson path, evaluated on the
	// path's result when it is an object, else on the object. The fields
	// every row has (name, namespace, kind, component, pod, path, value,
	// text; time and count for events) win over Fields of the same name.
	Fields map[string]string
}

// maxKubeDocBytes bounds one kubernetes/*.json file held in memory.
const maxKubeDocBytes = 512 << 20

// Store holds the Kubernetes objects of a bundle as raw JSON and answers
// Query with gjson.
type Store struct {
	docs map[string][]kubeDoc
	// pods is "<namespace>/<name>" -> pod, for events; nil until needed.
	// Queries may run concurrently (rules are evaluated on several
	// goroutines): podsMu guards it.
	podsMu sync.Mutex
	pods   map[string]kubePod
	// objs is each resource's objects as Query reads them, parsed by the
	// first Query (many rules query pods.json), for resources of at most
	// maxCachedBytes of JSON; objsMu guards it, and Add clears it.
	objsMu sync.Mutex
	objs   map[string][]docObjects
}

// docObjects are one file's objects and what Query needs of each.
type docObjects struct {
	items []gjson.Result
	objs  []kubeObject
}

// maxCachedBytes bounds the JSON of a resource whose parsed objects Query
// keeps: a small bundle's are parsed once instead of once per query
// (issue 14: 2 ms of analyzing the small sample), a huge cluster's are
// not kept for the whole evaluation.
var maxCachedBytes = 4 << 20

type kubeDoc struct {
	path, json string
}

type kubePod struct {
	component string
	labels    map[string]string
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{docs: map[string][]kubeDoc{}}
}

// Add keeps `kubectl get <resource> -o json` output read from r, bundle path
// path: a List (kind List, PodList, ...), a single object, or a JSON array of
// objects. Invalid JSON is an error naming the path. Adding a resource twice
// keeps the objects of both.
func (k *Store) Add(resource, path string, r io.Reader) error {
	var sb strings.Builder
	if _, err := io.Copy(&sb, io.LimitReader(r, maxKubeDocBytes+1)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if sb.Len() > maxKubeDocBytes {
		return fmt.Errorf("%s: larger than %d bytes; not read", path, maxKubeDocBytes)
	}
	doc := sb.String()
	if !gjson.Valid(doc) {
		return fmt.Errorf("%s: invalid JSON", path)
	}
	if p := gjson.Parse(doc); !p.IsObject() && !p.IsArray() {
		return fmt.Errorf("%s: not a Kubernetes object or list", path)
	}
	k.docs[resource] = append(k.docs[resource], kubeDoc{path: path, json: doc})
	k.objsMu.Lock()
	k.objs = nil // events name pods: any addition may change any resource's
	k.objsMu.Unlock()
	if resource == "pods" {
		k.podsMu.Lock()
		k.pods = nil
		k.podsMu.Unlock()
	}
	return nil
}

// Has reports whether kubernetes/<resource>.json was added.
func (k *Store) Has(resource string) bool { return len(k.docs[resource]) > 0 }

// Doc is a file read for a resource: its bundle path and its JSON text.
type Doc struct {
	Path, JSON string
}

// Docs returns the files read for a resource, in the order they were added.
func (k *Store) Docs(resource string) []Doc {
	var out []Doc
	for _, d := range k.docs[resource] {
		out = append(out, Doc{Path: d.path, JSON: d.json})
	}
	return out
}

// Query returns a row per selected object, or per element when the path's
// result is an array. A row holds "name", "namespace", "kind", "component",
// "pod" (the pod's name, or an event's involved pod), "path" (the bundle
// file), "value" (the path's result: float64, string, bool, nil, []any or
// map[string]any), each of q.Fields, and "text", a one-line description for
// evidence. Events also have "time" (lastTimestamp, else eventTime, else
// firstTimestamp) and "count" (int). A resource that was not added yields
// no rows; ask Has to tell that apart.
func (k *Store) Query(q Query) ([]evidence.Row, error) {
	if q.Path != "" {
		if err := CheckPath(q.Path); err != nil {
			return nil, fmt.Errorf("kube path %q: %w", q.Path, err)
		}
	}
	fieldNames := slices.Sorted(maps.Keys(q.Fields))
	for _, f := range fieldNames {
		if err := CheckPath(q.Fields[f]); err != nil {
			return nil, fmt.Errorf("kube field %s %q: %w", f, q.Fields[f], err)
		}
	}
	var rows []evidence.Row
	for i, d := range k.docs[q.Resource] {
		do := k.objects(q.Resource, i)
		for j, obj := range do.items {
			o := do.objs[j]
			if !ComponentMatches(q.Component, o.component) {
				continue
			}
			if !labelsMatch(o.labels, q.Labels) {
				continue
			}
			base := evidence.Row{"name": o.name, "namespace": o.namespace, "kind": o.kind, "component": o.component, "pod": o.pod, "path": d.path}
			if o.event {
				base["time"] = eventTime(obj)
				base["count"] = int(EventField(obj, "count", "deprecatedCount", "series.count").Int())
			}
			res := obj
			if q.Path != "" {
				res = obj.Get(q.Path)
			}
			if !res.Exists() {
				continue
			}
			if !res.IsArray() {
				rows = append(rows, kubeRow(base, o, obj, res, -1, q, fieldNames))
				continue
			}
			for i, el := range res.Array() {
				rows = append(rows, kubeRow(base, o, obj, el, i, q, fieldNames))
			}
		}
	}
	return rows, nil
}

// objects are the objects of the i-th file of resource, with what Query
// needs of each: kept while the resource is small (maxCachedBytes), else
// parsed again at each call.
func (k *Store) objects(resource string, i int) docObjects {
	k.objsMu.Lock()
	if c, ok := k.objs[resource]; ok {
		k.objsMu.Unlock()
		return c[i]
	}
	k.objsMu.Unlock()
	docs := k.docs[resource]
	size := 0
	for _, d := range docs {
		size += len(d.json)
	}
	if size > maxCachedBytes {
		return parseObjects(k, docs[i].json, resource)
	}
	all := make([]docObjects, len(docs))
	for j, d := range docs {
		all[j] = parseObjects(k, d.json, resource)
	}
	k.objsMu.Lock()
	if k.objs == nil {
		k.objs = map[string][]docObjects{}
	}
	if c, ok := k.objs[resource]; ok {
		all = c // another query parsed them first: share one copy
	} else {
		k.objs[resource] = all
	}
	k.objsMu.Unlock()
	return all[i]
}

// parseObjects parses one file of resource.
func parseObjects(k *Store, doc, resource string) docObjects {
	root := gjson.Parse(doc)
	defaultKind := listItemKind(root.Get("kind").String(), resource)
	items := Items(root)
	objs := make([]kubeObject, len(items))
	for j, obj := range items {
		objs[j] = k.object(obj, resource, defaultKind)
	}
	return docObjects{items: items, objs: objs}
}

// kubeObject is what a row says of its object.
type kubeObject struct {
	name, namespace, kind, component, pod string
	labels                                map[string]string
	event                                 bool
	subject                               string // "pod rw-compute-0", "event Warning BackOff pod/rw-compute-0 (x3): ..."
}

func (k *Store) object(obj gjson.Result, resource, defaultKind string) kubeObject {
	o := kubeObject{
		name:      obj.Get("metadata.name").String(),
		namespace: obj.Get("metadata.namespace").String(),
		kind:      obj.Get("kind").String(),
		labels:    stringMap(obj.Get("metadata.labels")),
	}
	if o.kind == "" {
		o.kind = defaultKind
	}
	o.subject = strings.ToLower(o.kind)
	if o.subject == "" {
		o.subject = resource
	}
	o.subject += " " + o.name
	switch {
	case o.kind == "Event" || (o.kind == "" && resource == "events"):
		o.event = true
		inv := EventField(obj, "involvedObject", "regarding")
		if inv.Get("kind").String() == "Pod" {
			o.pod = inv.Get("name").String()
			ns := inv.Get("namespace").String()
			if ns == "" {
				ns = o.namespace
			}
			p := k.pod(ns, o.pod)
			o.component, o.labels = p.component, p.labels
		}
		o.subject = eventSubject(obj)
	case o.kind == "Pod" || (o.kind == "" && resource == "pods"):
		o.pod = o.name
		o.component = objectComponent(o.labels, obj.Get("spec.containers"))
	default:
		o.component = objectComponent(o.labels, obj.Get("spec.template.spec.containers"))
	}
	return o
}

// pod looks a pod up in pods.json, indexing it on first use.
func (k *Store) pod(namespace, name string) kubePod {
	k.podsMu.Lock()
	defer k.podsMu.Unlock()
	if k.pods == nil {
		k.pods = map[string]kubePod{}
		for _, d := range k.docs["pods"] {
			for _, obj := range Items(gjson.Parse(d.json)) {
				labels := stringMap(obj.Get("metadata.labels"))
				key := obj.Get("metadata.namespace").String() + "/" + obj.Get("metadata.name").String()
				k.pods[key] = kubePod{component: objectComponent(labels, obj.Get("spec.containers")), labels: labels}
			}
		}
	}
	if p, ok := k.pods[namespace+"/"+name]; ok {
		return p
	}
	// Events and pods may disagree on whether a namespace is recorded.
	for key, p := range k.pods {
		if _, n, _ := strings.Cut(key, "/"); n == name {
			return p
		}
	}
	return kubePod{}
}

// objectComponent is the component the labels name, else the first
// container named after a RisingWave role (both installers name containers
// so).
func objectComponent(labels map[string]string, containers gjson.Result) string {
	if c := bundle.Component(labels); c != "" {
		return c
	}
	comp := ""
	containers.ForEach(func(_, c gjson.Result) bool {
		if n := c.Get("name").String(); slices.Contains(kubeRoles, n) {
			comp = n
			return false
		}
		return true
	})
	return comp
}

// kubeRoles are the container names that are RisingWave roles.
var kubeRoles = []string{"meta", "compute", "frontend", "compactor", "standalone"}

// MaxObjects bounds the objects read from one kubernetes/*.json document.
// A RisingWave namespace holds hundreds of pods and some thousands of
// events; a document with more is hostile or not a namespace's, and reading
// every object would cost gigabytes (700,000 pods: 9 GB).
var MaxObjects = 50_000

// CapObjects returns doc unchanged when it holds at most limit objects (a
// list's items or an array's elements), else a document with only the
// first limit, in the same shape, and how many it held. The objects kept are
// the document's own bytes.
func CapObjects(doc []byte, limit int) ([]byte, int) {
	root := gjson.ParseBytes(doc)
	list := root
	if !root.IsArray() {
		list = root.Get("items")
		if !list.IsArray() {
			return doc, 1
		}
	}
	n := int(list.Get("#").Int())
	if n <= limit {
		return doc, n
	}
	var b bytes.Buffer
	b.Grow(len(doc) / max(n/limit, 1))
	if !root.IsArray() {
		b.WriteString(`{"kind":`)
		b.WriteString(orNull(root.Get("kind").Raw))
		b.WriteString(`,"apiVersion":`)
		b.WriteString(orNull(root.Get("apiVersion").Raw))
		b.WriteString(`,"items":`)
	}
	b.WriteByte('[')
	i := 0
	list.ForEach(func(_, v gjson.Result) bool {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v.Raw)
		i++
		return i < limit
	})
	b.WriteByte(']')
	if !root.IsArray() {
		b.WriteByte('}')
	}
	return b.Bytes(), n
}

func orNull(raw string) string {
	if raw == "" {
		return "null"
	}
	return raw
}

// Items returns the objects of a document: a list's items, an array's
// elements, or the object itself.
func Items(root gjson.Result) []gjson.Result {
	if root.IsArray() {
		return root.Array()
	}
	if items := root.Get("items"); items.IsArray() {
		return items.Array()
	}
	if kind := root.Get("kind").String(); strings.HasSuffix(kind, "List") {
		return nil
	}
	if root.IsObject() && (root.Get("kind").Exists() || root.Get("metadata").Exists()) {
		return []gjson.Result{root}
	}
	return nil
}

// listItemKind guesses the kind of a list's items that do not say.
func listItemKind(listKind, resource string) string {
	if k := strings.TrimSuffix(listKind, "List"); k != "" && k != listKind {
		return k
	}
	switch resource {
	case "pods":
		return "Pod"
	case "events":
		return "Event"
	case "nodes":
		return "Node"
	case "risingwaves":
		return "RisingWave"
	}
	return ""
}

func stringMap(r gjson.Result) map[string]string {
	if !r.IsObject() {
		return nil
	}
	m := map[string]string{}
	r.ForEach(func(k, v gjson.Result) bool {
		m[k.Str] = v.String()
		return true
	})
	return m
}

func labelsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// eventTime is when an event last happened.
func eventTime(ev gjson.Result) time.Time {
	for _, p := range []string{"lastTimestamp", "series.lastObservedTime", "eventTime", "deprecatedLastTimestamp", "firstTimestamp", "deprecatedFirstTimestamp"} {
		if v := ev.Get(p); v.Type == gjson.String && v.Str != "" {
			if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// EventField returns the first of paths an event has: core/v1 events and
// events.k8s.io/v1 events name the same things differently.
func EventField(ev gjson.Result, paths ...string) gjson.Result {
	for _, p := range paths {
		if v := ev.Get(p); v.Exists() && v.Type != gjson.Null {
			return v
		}
	}
	return gjson.Result{}
}

func eventSubject(ev gjson.Result) string {
	var b strings.Builder
	b.WriteString("event")
	for _, p := range []string{"type", "reason"} {
		if v := ev.Get(p).String(); v != "" {
			b.WriteString(" " + v)
		}
	}
	inv := EventField(ev, "involvedObject", "regarding")
	if n := inv.Get("name").String(); n != "" {
		b.WriteString(" " + strings.ToLower(inv.Get("kind").String()) + "/" + n)
	}
	if c := EventField(ev, "count", "deprecatedCount", "series.count").Int(); c > 1 {
		fmt.Fprintf(&b, " (x%d)", c)
	}
	if m := EventField(ev, "message", "note").String(); m != "" {
		b.WriteString(": " + evidence.CutUTF8(strings.Join(strings.Fields(m), " "), 200))
	}
	return b.String()
}

// kubeRow builds the row of one path result; i is its index when the path's
// result is an array, else -1.
func kubeRow(base evidence.Row, o kubeObject, obj, el gjson.Result, i int, q Query, fieldNames []string) evidence.Row {
	r := make(evidence.Row, len(base)+len(fieldNames)+2)
	target := obj
	if el.IsObject() {
		target = el
	}
	for _, f := range fieldNames {
		if v := target.Get(q.Fields[f]); v.Exists() {
			r[f] = v.Value()
		} else {
			r[f] = nil
		}
	}
	maps.Copy(r, base)
	r["value"] = el.Value()
	r["text"] = kubeText(o, el, i, q, r, fieldNames)
	return r
}

// kubeText describes a row for evidence, in words where the path names a
// list element (no JSON-path syntax):
//
//	pod rw-prod-compute-0, container compute: lastState.terminated.reason = OOMKilled (exit_code=137, restarts=5)
func kubeText(o kubeObject, el gjson.Result, i int, q Query, r evidence.Row, fieldNames []string) string {
	var b strings.Builder
	b.WriteString(o.subject)
	shown := false
	if q.Path != "" {
		path, left := displayPath(q.Path, el, i)
		if left != "" {
			path += "." + left
		}
		if who, field, ok := pathInWords(path); ok {
			b.WriteString(", " + who)
			if field != "" {
				b.WriteString(": " + field)
			}
		} else {
			b.WriteString(": " + path)
		}
		switch {
		case left != "":
			b.WriteString(" = " + formatValue(el.Get(left).Value()))
			shown = true
		case !el.IsObject() || len(fieldNames) == 0:
			b.WriteString(" = " + formatResult(el))
			shown = true
		}
	}
	if len(fieldNames) > 0 {
		var fs []string
		for _, f := range fieldNames {
			fs = append(fs, f+"="+formatValue(r[f]))
		}
		if shown {
			b.WriteString(" (" + strings.Join(fs, ", ") + ")")
		} else if q.Path != "" {
			b.WriteString(": " + strings.Join(fs, ", "))
		} else {
			b.WriteString(" (" + strings.Join(fs, ", ") + ")")
		}
	}
	return evidence.CutUTF8(b.String(), 500)
}

// displayPath renders a gjson path for people: queries become brackets, and
// the component that produced an array element names it ("[name=compute]",
// else its index). When that component is a query on a path ("#(a.b==1)#"),
// left is that path, whose value on the element is worth showing.
func displayPath(p string, el gjson.Result, i int) (path, left string) {
	comps := splitGJSONPath(p)
	elem := -1 // the component that yields elements
	if i >= 0 {
		for j, c := range comps {
			if c == "#" || (strings.HasPrefix(c, "#(") || strings.HasPrefix(c, "#[")) && strings.HasSuffix(c, "#") {
				elem = j
			}
		}
	}
	id := ""
	if i >= 0 {
		id = "[" + strconv.Itoa(i) + "]"
		for _, key := range []string{"name", "type"} {
			if v := el.Get(key); v.Type == gjson.String && v.Str != "" {
				id = "[" + key + "=" + v.Str + "]"
				break
			}
		}
	}
	var b strings.Builder
	for j, c := range comps {
		switch {
		case j == elem && c != "#":
			b.WriteString(id)
			if j == len(comps)-1 {
				left = queryLeft(c)
			}
		case j == elem:
			b.WriteString("[*]")
		case strings.HasPrefix(c, "#(") || strings.HasPrefix(c, "#["):
			b.WriteString("[" + queryInner(c) + "]")
		case c == "#":
			b.WriteString("[*]")
		default:
			if j > 0 {
				b.WriteByte('.')
			}
			b.WriteString(c)
		}
	}
	if i >= 0 && elem < 0 {
		b.WriteString(id)
	}
	return b.String(), left
}

// pathInWords reads a displayed path that selects one list element as
// words: "status.containerStatuses[name=compute].lastState.terminated.reason"
// is who "container compute" and field "lastState.terminated.reason";
// `spec.containers[name=="compute"]` is "container compute". ok is false for
// a path that selects no one element (no brackets, [*], a comparison).
func pathInWords(p string) (who, field string, ok bool) {
	i := strings.IndexByte(p, '[')
	j := strings.IndexByte(p, ']')
	if i <= 0 || j < i {
		return "", "", false
	}
	inner := p[i+1 : j]
	var value string
	switch k := strings.Index(inner, "="); {
	case inner == "*" || strings.ContainsAny(inner, "<>!%"):
		return "", "", false
	case k > 0:
		value = strings.TrimLeft(inner[k:], "=")
		if uq, err := strconv.Unquote(value); err == nil {
			value = uq
		}
	default:
		if _, err := strconv.Atoi(inner); err != nil {
			return "", "", false
		}
		value = "#" + inner
	}
	list := p[:i]
	if d := strings.LastIndexByte(list, '.'); d >= 0 {
		list = list[d+1:]
	}
	noun := strings.TrimSuffix(strings.TrimSuffix(list, "Statuses"), "Status")
	switch {
	case noun != list:
	case strings.HasSuffix(noun, "ies"):
		noun = strings.TrimSuffix(noun, "ies") + "y"
	default:
		noun = strings.TrimSuffix(noun, "s")
	}
	var words strings.Builder
	for n, r := range noun {
		if unicode.IsUpper(r) {
			if n > 0 {
				words.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		words.WriteRune(r)
	}
	if words.Len() == 0 || value == "" {
		return "", "", false
	}
	return words.String() + " " + value, strings.TrimPrefix(p[j+1:], "."), true
}

// queryLeft returns the path a query component compares, "a.b" of
// `#(a.b=="x")#`, or "".
func queryLeft(c string) string {
	inner := queryInner(c)
	if i := strings.IndexAny(inner, "=!<>%"); i > 0 {
		l := strings.TrimSpace(inner[:i])
		if CheckPath(l) == nil && !strings.ContainsAny(l, "#@|()[]{}") {
			return l
		}
	}
	return ""
}

// queryInner returns the condition of a query component: `a=="x"` of
// `#(a=="x")#`.
func queryInner(c string) string {
	inner := strings.TrimSuffix(c, "#")
	if len(inner) < 3 {
		return ""
	}
	return inner[2 : len(inner)-1]
}

// splitGJSONPath splits a path on the dots and pipes outside brackets and
// quotes.
func splitGJSONPath(p string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			i++
		case quoted:
			if c == '"' {
				quoted = false
			}
		case c == '"':
			quoted = true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && (c == '.' || c == '|'):
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// formatResult prints a path result for a description: objects and arrays
// as compact JSON.
func formatResult(r gjson.Result) string {
	if r.IsObject() || r.IsArray() {
		return evidence.CutUTF8(r.Get("@ugly").Raw, 200)
	}
	return formatValue(r.Value())
}

// formatValue prints a row value for a description.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return evidence.CutUTF8(v, 200)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case time.Time:
		return v.Format(time.RFC3339)
	}
	if b, err := json.Marshal(v); err == nil {
		return evidence.CutUTF8(string(b), 200)
	}
	return evidence.CutUTF8(fmt.Sprint(v), 200)
}

// CheckPath checks a gjson path's syntax, as far as gjson has one: it is
// not empty, its brackets, parentheses, braces and quotes balance, no
// component is empty, and every modifier (@name) exists. gjson itself never
// rejects a path, it just finds nothing; this catches the typos.
func CheckPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if strings.HasPrefix(p, "..") {
		p = p[2:] // JSON Lines
		if p == "" {
			return errors.New("empty path after \"..\"")
		}
	}
	var stack []byte
	quoted := false
	compStart := true // at the start of a component
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < ' ' || c == 0x7f {
			return fmt.Errorf("control character at offset %d", i)
		}
		if quoted {
			switch c {
			case '\\':
				i++
			case '"':
				quoted = false
			}
			continue
		}
		atStart := compStart
		compStart = false
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return errors.New("path ends in a backslash")
			}
			i++
		case '"':
			if len(stack) == 0 {
				return fmt.Errorf("quote outside a query at offset %d", i)
			}
			quoted = true
		case '(', '[', '{':
			stack = append(stack, c)
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("unbalanced %q at offset %d", c, i)
			}
			stack = stack[:len(stack)-1]
		case '.', '|':
			if len(stack) > 0 {
				continue
			}
			if atStart {
				return fmt.Errorf("empty component before %q at offset %d", c, i)
			}
			if i == len(p)-1 {
				return fmt.Errorf("path ends in %q", c)
			}
			compStart = true
		case '@':
			if !atStart || len(stack) > 0 {
				continue
			}
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '|' && p[j] != ':' {
				j++
			}
			if name := p[i+1 : j]; !gjson.ModifierExists(name, nil) {
				return fmt.Errorf("unknown modifier @%s", name)
			}
		}
	}
	if quoted {
		return errors.New("unterminated string")
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %q", stack[len(stack)-1])
	}
	return nil
}

// timeKeys are the fields of Kubernetes objects that hold a moment a
// kubelet or controller observed.
var timeKeys = map[string]bool{
	"startedAt": true, "finishedAt": true, "lastTimestamp": true, "firstTimestamp": true,
	"eventTime": true, "lastTransitionTime": true, "lastProbeTime": true,
}

// Latest returns the latest moment recorded in the objects of the given
// resources (container starts and ends, events, conditions): when no
// manifest says when a bundle was collected, the moment just before it.
func (k *Store) Latest(resources ...string) time.Time {
	var latest time.Time
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		v.ForEach(func(key, val gjson.Result) bool {
			switch {
			case val.IsObject() || val.IsArray():
				walk(val)
			case timeKeys[key.Str] && val.Type == gjson.String:
				if t, err := time.Parse(time.RFC3339Nano, val.Str); err == nil && t.After(latest) {
					latest = t
				}
			}
			return true
		})
	}
	for _, r := range resources {
		for _, d := range k.docs[r] {
			walk(gjson.Parse(d.json))
		}
	}
	return latest.UTC()
}

// ComponentMatches reports whether an object of component got is wanted by
// a filter on want ("" wants all). A standalone process is every role.
func ComponentMatches(want, got string) bool {
	return want == "" || got == want || got == "standalone"
}
