package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// siteEntry is a known-issue entry an air-gapped site carries in as a file.
const siteEntry = `apiVersion: rwdiag/v1
kind: KnownIssue
id: rw-99001-site-widget-panic
issue: 99001
title: The widget panics on start
affects: ">= 2.0.0, < 2.4.0"
fixed_in: [v2.4.0]
status: fixed
confirmed: git log v2.4.0 --format=%s | grep '(#99002)'
source_text:
  - {text: 'widget panicked', at: v2.3.0}
links: [https://github.com/risingwavelabs/risingwave/issues/99001]
signals:
  panic: {log: {component: compute, regex: 'widget panicked'}}
requires: panic
condition: len(panic) > 0
`

// --known-issues DIR adds entries to the built-in base: the entry fires on
// a bundle of a version in its range, with the upgrade target, in every
// format; the base's entries are counted in one line.
func TestKnownIssuesFlag(t *testing.T) {
	dir := t.TempDir()
	entries := filepath.Join(dir, "site")
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(entries, "rw-99001-site-widget-panic.yaml"), siteEntry)
	b := filepath.Join(dir, "bundle")
	write(filepath.Join(b, "logs/rw-compute-0/compute.log"), "2026-11-29T20:41:07Z ERROR risingwave_stream: widget panicked\n")
	write(filepath.Join(b, "sql/rw_worker_nodes.csv"), "id,type,rw_version\n1,WORKER_TYPE_COMPUTE_NODE,2.3.1\n")

	res := run(t, "analyze", "--fail-on", "never", "--width", "200", "--known-issues", entries, b)
	for _, want := range []string{
		"known issue risingwavelabs/risingwave#99001, status fixed, upgrade to v2.4.0",
		" known issues: 1 matched, ",
	} {
		if res.code != 0 || !strings.Contains(res.stdout, want) {
			t.Errorf("analyze --known-issues: no %q:\n%s", want, res)
		}
	}
	res = run(t, "analyze", "--format", "json", "--fail-on", "never", "--known-issues", entries, b)
	for _, want := range []string{`"upgrade_to": "v2.4.0"`, `"kind": "known-issue"`,
		`"summary": "Matches risingwavelabs/risingwave#99001 (affects v2.0.0 to before v2.4.0, fixed in v2.4.0); this cluster runs v2.3.1: upgrade to v2.4.0 or later."`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("json: no %s:\n%s", want, res)
		}
	}
	// Out of its range it never fires.
	write(filepath.Join(b, "sql/rw_worker_nodes.csv"), "id,type,rw_version\n1,WORKER_TYPE_COMPUTE_NODE,2.4.0\n")
	if res := run(t, "analyze", "--fail-on", "never", "--known-issues", entries, b); strings.Contains(res.stdout, "99001") {
		t.Errorf("fired on v2.4.0:\n%s", res)
	}
	// Without the flag, the site's entry is not loaded.
	if res := run(t, "analyze", "--fail-on", "never", b); strings.Contains(res.stdout, "99001") || !strings.Contains(res.stdout, " known issues: ") {
		t.Errorf("without --known-issues:\n%s", res)
	}

	// rules lint checks the entries with line and column, exit 2.
	write(filepath.Join(entries, "rw-99001-site-widget-panic.yaml"), strings.Replace(siteEntry, "fixed_in: [v2.4.0]", "fixed_in: [v2.3.0]", 1))
	res = run(t, "rules", "lint", entries)
	if res.code != exitUsage || !strings.Contains(res.stdout, "rw-99001-site-widget-panic.yaml:7:12: rule \"rw-99001-site-widget-panic\": fixed_in[0]: v2.3.0 is inside affects") {
		t.Errorf("rules lint of a bad entry:\n%s", res)
	}
	if res := run(t, "analyze", "--known-issues", entries, b); res.code != exitUsage {
		t.Errorf("analyze with a bad entry: want exit %d:\n%s", exitUsage, res)
	}
	// The built-in base lints clean with the built-in rules.
	if res := run(t, "rules", "lint"); !strings.Contains(res.stdout, " known issues OK") {
		t.Errorf("rules lint (built-in):\n%s", res)
	}
}
