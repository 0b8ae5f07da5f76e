// Package knownissues holds rwdiag's known-issue base: one file per
// upstream RisingWave bug (kind KnownIssue: the versions it affects, the
// first releases with its fix, its signature in the bundle, the workaround),
// each with its tests (<id>_test.yaml, kind RuleTest) and their bundles
// (testdata/<id>/), embedded in the binary. It holds data only: package
// analyze loads an entry as a rule of pattern known-issue. See
// docs/known-issues.md.
package knownissues

import "embed"

// FS holds the entries, their tests and the tests' bundles.
//
//go:embed *.yaml testdata
var FS embed.FS

// Prefix names embedded files in messages, e.g.
// "builtin:known-issues/rw-17858-join-amplification-log-suppressed.yaml".
const Prefix = "builtin:known-issues/"
