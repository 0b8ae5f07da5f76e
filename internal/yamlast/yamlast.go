// Package yamlast holds the few helpers rwdiag's position-aware YAML readers
// (rule files in analyze, redaction configs in collect) share over
// github.com/goccy/go-yaml's syntax tree.
package yamlast

import "github.com/goccy/go-yaml/ast"

// Unwrap returns the node an anchor or a tag stands for.
func Unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
}

// Mapping returns the key-value pairs of a mapping node (goccy gives a
// one-key mapping as a lone MappingValueNode), and false for anything else.
func Mapping(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := Unwrap(n).(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}
