package collect

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rwdiag/rwdiag/bundle"
)

// samples/collect-by-hand.sh, the script docs/manual-collection.md walks
// through, writes the SQL part of a bundle byte for byte as CollectSQL does.
func TestCollectByHandScriptMatchesCollectSQL(t *testing.T) {
	script, err := filepath.Abs("../samples/collect-by-hand.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		if out, err := exec.Command(sc, script).CombinedOutput(); err != nil {
			t.Errorf("shellcheck %s: %v\n%s", script, err, out)
		}
	}
	p := startPG(t)
	newFixtureDB(t, p, "script_test",
		`DROP VIEW rw_catalog.rw_slow`, `DROP VIEW rw_catalog.rw_kill_connection`, `DROP VIEW rw_catalog.rw_write_attempt`)
	dsn := p.dsn("rwdiag_reader", "script_test")
	_, b := collectSQLBundle(t, SQLOptions{DSN: dsn, StatementTimeout: 5 * time.Second})

	dir := filepath.Join(t.TempDir(), "by-hand")
	cmd := exec.Command("bash", script, "--no-kube", "-d", dsn, "-o", dir)
	cmd.Env = os.Environ()
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PGTZ=") || strings.HasPrefix(kv, "PGOPTIONS=") {
			cmd.Env[i] = "RWDIAG_UNSET=1"
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	t.Logf("script stderr:\n%s", stderr.String())

	byHand := map[string][]byte{}
	err = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		byHand[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range b.files {
		if path == bundle.ManifestPath {
			continue
		}
		got, ok := byHand[path]
		if !ok {
			t.Errorf("%s: written by CollectSQL, not by the script", path)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs:\n--- script\n%q\n--- CollectSQL\n%q", path, got, want)
		}
	}
	for path := range byHand {
		if _, ok := b.files[path]; !ok {
			t.Errorf("%s: written by the script, not by CollectSQL", path)
		}
	}
	if _, ok := byHand["sql/rw_secrets.csv"]; ok || strings.Contains(stderr.String(), "rw_secrets") {
		t.Error("the script read rw_secrets")
	}
}

// fakeKubectl answers the script's kubectl calls from canned output and logs
// every call, so the Kubernetes half of the script runs without a cluster.
const fakeKubectl = `#!/usr/bin/env bash
echo "$*" >> "$FAKE_KUBECTL_LOG"
args="$*"
case "$args" in
  "get nodes -o json") echo 'Error from server (Forbidden): nodes is forbidden' >&2; exit 1 ;;
  "get risingwaves -n rw -o json") echo 'error: the server does not have a resource type "risingwaves"' >&2; exit 1 ;;
  "get pods -n rw -o json") echo '{"kind": "List", "items": []}' ;;
  "get "*" -n rw -o json") echo '{"kind": "List", "items": []}' ;;
  "get pods -n rw -l risingwave/component -o jsonpath="*) printf 'rw-meta-0\nrw-compute-0\n' ;;
  "get pods -n rw -l risingwave/component=meta,risingwave/meta-role=leader -o jsonpath="*) printf 'rw-meta-0' ;;
  "get pod "*" -n rw -o jsonpath={.spec.initContainers[*].name} {.spec.containers[*].name}")
    case "$args" in *rw-meta-0*) echo ' meta' ;; *) echo 'init compute' ;; esac ;;
  *'ports[?(@.name=="metrics")]'*) case "$args" in *rw-meta-0*) echo '1250' ;; *) echo '1222 9999' ;; esac ;;
  *'ports[?(@.name=="dashboard")]'*) echo '5691' ;;
  "describe pod "*) echo "Name: $3" ;;
  "logs "*"--previous")
    case "$args" in *compute-0\ -c\ compute*) echo '2026-11-29T20:00:00Z crashed' ;; *) echo 'previous terminated container not found' >&2; exit 1 ;; esac ;;
  "logs "*) echo "2026-11-29T20:41:07Z  INFO log of $2 $4" ;;
  "get --raw /api/v1/namespaces/rw/pods/"*"/proxy/metrics") echo '# TYPE up gauge'; echo 'up 1' ;;
  "get --raw "*"/proxy/api/monitor/diagnose/") echo 'report created at: 2026-11-29' ;;
  "get --raw "*"/proxy/api/monitor/await_tree/") echo '{"actorTraces": {}}' ;;
  *) echo "fake kubectl: unexpected: $args" >&2; exit 3 ;;
esac
`

// The Kubernetes half of the script writes the layout rwdiag reads, with
// read-only kubectl calls only.
func TestCollectByHandScriptKubernetes(t *testing.T) {
	script, _ := filepath.Abs("../samples/collect-by-hand.sh")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(fakeKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(t.TempDir(), "calls.log")
	dir := filepath.Join(t.TempDir(), "by-hand")
	cmd := exec.Command("bash", script, "-n", "rw", "-o", dir, "--samples", "2", "--interval", "0")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_KUBECTL_LOG="+calls)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(string(out), "unexpected") {
		t.Errorf("the script made a call the fake does not know:\n%s", out)
	}
	kinds := map[bundle.Kind]int{}
	err = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		c := bundle.Classify(filepath.ToSlash(rel))
		if c.Kind == bundle.KindUnknown {
			t.Errorf("%s: not a bundle path", rel)
		}
		kinds[c.Kind]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[bundle.Kind]int{
		bundle.KindPods: 1, bundle.KindEvents: 1, bundle.KindKubeObjects: 5, // no nodes, no risingwaves
		bundle.KindDescribe: 2, bundle.KindLog: 3, bundle.KindPreviousLog: 1,
		bundle.KindMetricsScrape: 4, bundle.KindDiagnoseReport: 1, bundle.KindAwaitTreeJSON: 1,
	}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%v: %d files, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	log, _ := os.ReadFile(calls)
	for _, call := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		verb := strings.Fields(call)[0]
		if verb != "get" && verb != "describe" && verb != "logs" {
			t.Errorf("not a read: kubectl %s", call)
		}
		if strings.Contains(call, "secret") {
			t.Errorf("reads secrets: kubectl %s", call)
		}
	}
	if !strings.Contains(string(out), "NOT REDACTED") {
		t.Error("no redaction caveat")
	}
}
