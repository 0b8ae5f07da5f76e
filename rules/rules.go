package rules

import "embed"

// FS holds the built-in rule files (*.yaml of kind RuleSet), their rule
// tests (kind RuleTest) and the small bundles those tests use (testdata/).
//
//go:embed *.yaml testdata
var FS embed.FS

// Prefix names embedded files in messages, e.g. "builtin:barrier-stall.yaml".
const Prefix = "builtin:"
