package collect

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/rwdiag/rwdiag/internal/yamlast"
)

// RedactConfigKind is the kind of a --redact-config file.
const RedactConfigKind = "RedactConfig"

// LoadRedactConfig reads a --redact-config file: extra redaction patterns,
// in YAML.
//
//	apiVersion: rwdiag/v1      # optional; if given, must be rwdiag/v1
//	kind: RedactConfig         # optional; if given, must be RedactConfig
//	patterns:
//	  - name: acme-api-token   # what the manifest counts its redactions under
//	    value: 'acme_[0-9a-f]{32}'
//	  - name: acme-env
//	    key: '^ACME_'          # env vars, configmap keys, JSON keys, WITH options
//	  - name: acme-dsn
//	    value: 'acme://[^:]+:([^@]+)@'   # the first group is redacted
//
// Every pattern needs a name and a key or a value, both Go regular
// expressions (RE2 syntax). Unknown fields are refused. Every problem is
// reported at once, each as file:line:col.
func LoadRedactConfig(path string) ([]RedactPattern, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read redaction config: %w", err)
	}
	return parseRedactConfig(path, data)
}

// redactConfigProblems is every problem in a redaction config.
type redactConfigProblems []string

func (p redactConfigProblems) Error() string { return strings.Join(p, "\n") }

var yamlErrPosRe = regexp.MustCompile(`^\[(\d+):(\d+)\]\s*`)

func parseRedactConfig(name string, data []byte) ([]RedactPattern, error) {
	var probs redactConfigProblems
	at := func(n ast.Node, format string, args ...any) {
		loc := name
		if n != nil && n.GetToken() != nil && n.GetToken().Position != nil {
			p := n.GetToken().Position
			loc = fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
		}
		probs = append(probs, loc+": "+fmt.Sprintf(format, args...))
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if m := yamlErrPosRe.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			return nil, redactConfigProblems{fmt.Sprintf("%s:%d:%d: %s", name, line, col, msg[len(m[0]):])}
		}
		return nil, redactConfigProblems{name + ": " + msg}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, redactConfigProblems{name + ": want exactly one YAML document"}
	}
	top, ok := yamlast.Mapping(file.Docs[0].Body)
	if !ok {
		at(file.Docs[0].Body, "want a mapping with patterns:")
		return nil, probs
	}
	var patterns []RedactPattern
	seen := map[string]bool{}
	for _, mv := range top {
		switch key := mv.Key.String(); key {
		case "apiVersion":
			if v, ok := yamlString(mv.Value); !ok || v != "rwdiag/v1" {
				at(mv.Value, "apiVersion: must be \"rwdiag/v1\", not %s", mv.Value.String())
			}
		case "kind":
			if v, ok := yamlString(mv.Value); !ok || v != RedactConfigKind {
				at(mv.Value, "kind: must be %q, not %s", RedactConfigKind, mv.Value.String())
			}
		case "patterns":
			seq, ok := yamlast.Unwrap(mv.Value).(*ast.SequenceNode)
			if !ok {
				at(mv.Value, "patterns: want a list")
				continue
			}
			for i, item := range seq.Values {
				field := fmt.Sprintf("patterns[%d]", i)
				fields, ok := yamlast.Mapping(item)
				if !ok {
					at(item, "%s: want a mapping with name, key and value", field)
					continue
				}
				var p RedactPattern
				for _, f := range fields {
					fname := f.Key.String()
					v, isStr := yamlString(f.Value)
					var dst *string
					switch fname {
					case "name":
						dst = &p.Name
					case "key":
						dst = &p.Key
					case "value":
						dst = &p.Value
					default:
						at(f.Key, "%s: unknown field %q (want name, key, value)", field, fname)
						continue
					}
					if !isStr {
						at(f.Value, "%s.%s: want a string", field, fname)
						continue
					}
					*dst = v
					if fname == "key" || fname == "value" {
						if _, err := regexp.Compile(v); err != nil {
							at(f.Value, "%s.%s: %v", field, fname, err)
						}
					}
				}
				switch {
				case p.Name == "":
					at(item, "%s: name is required", field)
				case seen[p.Name]:
					at(item, "%s: name %q is used twice", field, p.Name)
				}
				seen[p.Name] = true
				if p.Key == "" && p.Value == "" {
					at(item, "%s: want key, value or both", field)
				}
				patterns = append(patterns, p)
			}
		default:
			at(mv.Key, "unknown field %q (want apiVersion, kind, patterns)", key)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return patterns, nil
}

func yamlString(n ast.Node) (string, bool) {
	switch v := yamlast.Unwrap(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	}
	return "", false
}
