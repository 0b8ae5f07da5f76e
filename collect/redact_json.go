package collect

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rwdiag/rwdiag/bundle"
)

// lastApplied is the annotation kubectl apply keeps the applied object in, as
// a JSON string.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// KubeJSON redacts a `kubectl get -o json` document (a List or one object):
//
//   - the value of every {"name": N, "value": V} pair whose name looks
//     secret: env of containers, initContainers and ephemeralContainers, in
//     pods, statefulsets, deployments and RisingWave resources alike;
//   - configmap data and binaryData under a key that looks secret, whole;
//   - the data of a Secret object, should one be met (the collector reads none);
//   - any other JSON string or number under a key that looks secret (the
//     RisingWave resource's {"password": 5555123456789}); a number becomes
//     its token, a JSON string, so that value's type changes;
//   - inside the kubectl.kubernetes.io/last-applied-configuration
//     annotation, the same, recursively;
//   - every other string value (events' messages, args, configmap values,
//     annotations) through the Text rules.
//
// Only the redacted values change: every other byte of data, white
// space and key order included, stays as it was. It returns the document and
// how many values it replaced. When data is not one JSON value, the result is
// data through Text, with the error: safe to write all the same.
func (r *Redactor) KubeJSON(path string, data []byte) ([]byte, int, error) {
	if r == nil {
		return data, 0, nil
	}
	t := tally{}
	out, err := r.redactJSON(data, true, t)
	if err != nil {
		red, n := r.Text(path, data)
		return red, n, fmt.Errorf("redact %s as JSON: %w", path, err)
	}
	return out, r.commit(path, t), nil
}

// SQLValue redacts one value of an SQL result: the value of a column whose
// name looks secret, whole; a JSON value (connector_props,
// format_encode_options, rw_event_logs.info) by the JSON rules; any other
// text (definitions with their WITH options, ddl_statement) by the Text
// rules. relation is the rw_catalog relation or "show_parameters".
func (r *Redactor) SQLValue(relation, column, value string) (string, int) {
	if r == nil {
		return value, 0
	}
	t := tally{}
	v := r.sqlValue(column, value, t)
	return v, r.commit(bundle.SQLPath(relation), t)
}

// SQLRow redacts a row of an SQL result, as SQLValue does each value, and
// also the value of a name/value row whose name looks secret: SHOW
// PARAMETERS' license_key, a settings table's password. values[i] is the
// text of columns[i]. The report counts it under sql/<relation>.csv.
func (r *Redactor) SQLRow(relation string, columns, values []string) ([]string, int) {
	return r.SQLRowAt(bundle.SQLPath(relation), relation, columns, values)
}

// SQLRowAt is SQLRow for a row written to the bundle path path, which the
// report counts it under.
func (r *Redactor) SQLRowAt(path, relation string, columns, values []string) ([]string, int) {
	if r == nil {
		return values, 0
	}
	t := tally{}
	out := make([]string, len(values))
	nameCol, valueCol := -1, -1
	for i, c := range columns {
		switch strings.ToLower(c) {
		case "name", "key", "parameter":
			nameCol = i
		case "value", "setting":
			valueCol = i
		}
	}
	secretRow := false
	if nameCol >= 0 && valueCol >= 0 && nameCol < len(values) && valueCol < len(values) {
		ok, rule := r.secretName(values[nameCol])
		if ok && values[valueCol] != "" && !isToken(values[valueCol]) {
			secretRow = true
			if rule == "" {
				rule = ruleSecretParameter
			}
			t.add(rule)
		}
	}
	for i, v := range values {
		if secretRow && i == valueCol {
			out[i] = r.Token(v)
			continue
		}
		col := ""
		if i < len(columns) {
			col = columns[i]
		}
		out[i] = r.sqlValue(col, v, t)
	}
	return out, r.commit(path, t)
}

func (r *Redactor) sqlValue(column, value string, t tally) string {
	if value == "" || isToken(value) {
		return value
	}
	if ok, rule := r.secretName(column); ok {
		if rule == "" {
			rule = ruleSecretColumn
		}
		t.add(rule)
		return r.Token(value)
	}
	if s := strings.TrimSpace(value); len(s) > 1 && (s[0] == '{' || s[0] == '[') {
		sub := tally{}
		if out, err := r.redactJSON([]byte(value), false, sub); err == nil {
			for k, v := range sub {
				t[k] += v
			}
			return string(out)
		}
	}
	return r.textString(value, t)
}

// redactJSON redacts one JSON document, keeping every byte it does not
// redact. kube turns on the Kubernetes rules.
func (r *Redactor) redactJSON(data []byte, kube bool, t tally) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	w := &jsonWalk{r: r, kube: kube, t: t, repl: map[string]string{}}
	w.value(doc, nil, "")
	if len(w.repl) == 0 {
		return data, nil
	}
	return spliceJSON(data, w.repl)
}

// jsonWalk decides, on the decoded document, which string values change:
// repl maps a value's path to its new (decoded) text.
type jsonWalk struct {
	r    *Redactor
	kube bool
	t    tally
	repl map[string]string
}

// The path of a value: its object keys and array indexes, each tagged, joined
// by NUL.
func pathKey(path []string) string { return strings.Join(path, "\x00") }
func keyStep(k string) string      { return "k" + k }
func indexStep(i int) string       { return "i" + strconv.Itoa(i) }

// extend returns path with step added, sharing nothing with path.
func extend(path []string, step string) []string {
	return append(path[:len(path):len(path)], step)
}

// value walks v at path. secretRule, when not "", says v sits under a key
// that looks secret: its strings are redacted whole under that rule.
func (w *jsonWalk) value(v any, path []string, secretRule string) {
	switch v := v.(type) {
	case map[string]any:
		w.object(v, path, secretRule)
	case []any:
		for i, e := range v {
			rule := secretRule
			// ["--password", "X"]: a flag whose name looks secret, then its value
			if prev, ok := flagName(v, i-1); ok && rule == "" {
				if secret, custom := w.r.secretName(prev); secret {
					if s, ok := e.(string); ok && !strings.HasPrefix(s, "-") {
						rule = ruleFlag
						if custom != "" {
							rule = custom
						}
					}
				}
			}
			w.value(e, extend(path, indexStep(i)), rule)
		}
	case string:
		w.str(v, path, secretRule)
	case json.Number:
		w.num(v, path, secretRule)
	}
}

// num redacts a number under a key that looks secret ({"password":
// 5555123456789}): it becomes the token, a JSON string, so the value's type
// changes from number to string in the bundle. Other numbers stay.
func (w *jsonWalk) num(n json.Number, path []string, secretRule string) {
	if secretRule == "" {
		return
	}
	w.t.add(secretRule)
	w.repl[pathKey(path)] = w.r.Token(string(n))
}

func (w *jsonWalk) str(s string, path []string, secretRule string) {
	if s == "" || isToken(s) {
		return
	}
	if secretRule != "" {
		w.t.add(secretRule)
		w.repl[pathKey(path)] = w.r.Token(s)
		return
	}
	if red := w.r.textString(s, w.t); red != s {
		w.repl[pathKey(path)] = red
	}
}

func (w *jsonWalk) object(m map[string]any, path []string, secretRule string) {
	kind, _ := m["kind"].(string)
	// {"type": "secret", "value": {"value": "<secret name>"}}: a reference
	// to a RisingWave secret by name, as rw_sources.connector_props shows it.
	if typ, _ := m["type"].(string); typ == "secret" && secretRule != "" {
		return
	}
	// {"name": "RW_POSTGRES_PASSWORD", "value": "..."}: an env var.
	pairValue := false
	if name, ok := m["name"].(string); ok {
		val := m["value"]
		_, isStr := val.(string)
		_, isNum := val.(json.Number)
		if isStr || isNum {
			if secret, rule := w.r.secretName(name); secret {
				if rule == "" {
					rule = ruleEnvSecret
				}
				w.value(val, extend(path, keyStep("value")), rule)
				pairValue = true
			}
		}
	}
	for k, child := range m {
		p := extend(path, keyStep(k))
		switch {
		case k == "value" && pairValue:
			continue
		case k == "type" && secretRule != "":
			continue // {"type": "plaintext", "value": "..."}: the type is not the secret
		case w.kube && kind == "Secret" && (k == "data" || k == "stringData"):
			w.value(child, p, ruleKubeSecret)
			continue
		case w.kube && kind == "ConfigMap" && (k == "data" || k == "binaryData"):
			if cm, ok := child.(map[string]any); ok {
				w.configMapData(cm, p, k == "binaryData")
				continue
			}
		case w.kube && k == "annotations":
			if ann, ok := child.(map[string]any); ok {
				w.annotations(ann, p, secretRule)
				continue
			}
		}
		rule := secretRule
		if rule == "" {
			if secret, custom := w.r.secretName(k); secret {
				rule = ruleJSONSecret
				if custom != "" {
					rule = custom
				}
			}
		}
		w.value(child, p, rule)
	}
}

func (w *jsonWalk) configMapData(data map[string]any, path []string, binary bool) {
	for k, child := range data {
		p := extend(path, keyStep(k))
		s, ok := child.(string)
		if !ok {
			rule := ""
			if secret, custom := w.r.secretName(k); secret {
				rule = cmp.Or(custom, ruleConfigMapSecret)
			}
			w.value(child, p, rule)
			continue
		}
		if secret, custom := w.r.secretName(k); secret {
			rule := ruleConfigMapSecret
			if custom != "" {
				rule = custom
			}
			w.str(s, p, rule)
			continue
		}
		if !binary {
			w.str(s, p, "")
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			continue
		}
		if red := w.r.textString(string(raw), w.t); red != string(raw) {
			w.repl[pathKey(p)] = base64.StdEncoding.EncodeToString([]byte(red))
		}
	}
}

func (w *jsonWalk) annotations(ann map[string]any, path []string, secretRule string) {
	for k, child := range ann {
		p := extend(path, keyStep(k))
		s, ok := child.(string)
		if k == lastApplied && ok && secretRule == "" {
			sub := tally{}
			out, err := w.r.redactJSON([]byte(s), true, sub)
			if err != nil {
				w.str(s, p, "")
				continue
			}
			for name, n := range sub {
				w.t[name] += n
			}
			if string(out) != s {
				w.repl[pathKey(p)] = string(out)
			}
			continue
		}
		rule := secretRule
		if rule == "" {
			if secret, custom := w.r.secretName(k); secret {
				rule = ruleJSONSecret
				if custom != "" {
					rule = custom
				}
			}
		}
		w.value(child, p, rule)
	}
}

// spliceJSON copies data, replacing the string (and number) values whose
// paths repl names with their new text, JSON-encoded as strings. Every
// other byte is kept.
func spliceJSON(data []byte, repl map[string]string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object    bool
		expectKey bool
		key       string
		index     int
	}
	var stack []frame
	var out bytes.Buffer
	out.Grow(len(data))
	copied := 0 // data[:copied] is in out
	prev := 0   // where the previous token ended
	advance := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expectKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	path := func() []string {
		p := make([]string, len(stack))
		for i, f := range stack {
			if f.object {
				p[i] = keyStep(f.key)
			} else {
				p[i] = indexStep(f.index)
			}
		}
		return p
	}
	// replace writes the token of the value that ends at end, when its path
	// is to be replaced, in place of the value (which starts at the first
	// of starts after the previous token).
	replace := func(end int, starts, what string) error {
		nv, ok := repl[pathKey(path())]
		if !ok {
			return nil
		}
		start := bytes.IndexAny(data[prev:end], starts)
		if start < 0 {
			return fmt.Errorf("JSON %s at offset %d not found", what, prev)
		}
		start += prev
		out.Write(data[copied:start])
		enc, err := marshalJSONString(nv)
		if err != nil {
			return err
		}
		out.Write(enc)
		copied = end
		return nil
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, frame{object: true, expectKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				advance()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				stack[n-1].key = tok
				stack[n-1].expectKey = false
				break
			}
			if err := replace(end, `"`, "string"); err != nil {
				return nil, err
			}
			advance()
		case json.Number:
			// A number under a secret key becomes its token, a string.
			if err := replace(end, "-0123456789", "number"); err != nil {
				return nil, err
			}
			advance()
		default:
			advance()
		}
		prev = end
	}
	out.Write(data[copied:])
	return out.Bytes(), nil
}

// marshalJSONString encodes s as a JSON string without HTML escaping, as
// kubectl and PostgreSQL write them.
func marshalJSONString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// flagName returns the name of a[i] when it is a command-line flag without
// a value of its own: "--password", "-password".
func flagName(a []any, i int) (string, bool) {
	if i < 0 {
		return "", false
	}
	s, ok := a[i].(string)
	if !ok || len(s) < 3 || s[0] != '-' || strings.ContainsAny(s, "= ") {
		return "", false
	}
	name := strings.TrimLeft(s, "-")
	return name, len(name) > 1 && len(s)-len(name) <= 2
}
