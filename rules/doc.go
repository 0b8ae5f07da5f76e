// Package rules holds rwdiag's built-in rule files and their tests,
// embedded in the binary. It holds data only: package analyze loads and
// runs it. See docs/rule-format.md for the format.
package rules
