#!/usr/bin/env bash
# collect-by-hand.sh: build an rwdiag bundle (docs/bundle-format.md) with kubectl and
# psql alone, for sites where a third-party binary may not run. docs/manual-collection.md
# explains each command.
#
#   samples/collect-by-hand.sh -n NAMESPACE [-d SQL_DSN] [-o DIR] [options]
#
# Read-only: it runs only kubectl get, describe and logs, kubectl get --raw on the pod
# proxy (GET), and SELECT, SHOW and EXPLAIN in READ ONLY transactions. Secret objects,
# rw_secrets and rw_user_secrets are never read.
#
# NOT REDACTED. Unlike `rwdiag collect`, this script writes what the tools print: pod
# env values (RW_POSTGRES_PASSWORD, AWS keys...), configmaps, logs, and the WITH
# options of sources and sinks (passwords, SASL and S3 secrets) land in DIR as they
# are. Redact before sending, e.g. `rwdiag bundle redact DIR DIR.tar.zst`, or review
# and remove them by hand; --no-configmaps leaves configmaps out.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: collect-by-hand.sh -n NAMESPACE [options]
  -n NAMESPACE        the namespace RisingWave runs in (required unless --no-kube)
  -l SELECTOR         the RisingWave pods (default: risingwave/component)
  -d SQL_DSN          the frontend, e.g. postgres://root@localhost:4567/dev (omit: no SQL)
  -o DIR              where to write the bundle (default: rwdiag-<namespace>-<UTC stamp>)
  --context NAME      the kubeconfig context
  --since DURATION    how much log to take (default: 6h)
  --samples N         metrics scrapes per pod (default: 4)
  --interval SECONDS  between scrapes (default: 15)
  --timeout SECONDS   bound on each SQL statement and kubectl call (default: 60)
  --no-kube, --no-sql, --no-metrics, --no-configmaps   leave those parts out
EOF
  exit 2
}

ns="" selector="risingwave/component" dsn="" out="" since="6h" samples=4 interval=15 timeout_s=60
kube=1 sql=1 metrics=1 configmaps=1
kctx=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) ns=${2:?}; shift 2 ;;
    -l) selector=${2:?}; shift 2 ;;
    -d) dsn=${2:?}; shift 2 ;;
    -o) out=${2:?}; shift 2 ;;
    --context) kctx=(--context "${2:?}"); shift 2 ;;
    --since) since=${2:?}; shift 2 ;;
    --samples) samples=${2:?}; shift 2 ;;
    --interval) interval=${2:?}; shift 2 ;;
    --timeout) timeout_s=${2:?}; shift 2 ;;
    --no-kube) kube=0; shift ;;
    --no-sql) sql=0; shift ;;
    --no-metrics) metrics=0; shift ;;
    --no-configmaps) configmaps=0; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[ "$kube" = 0 ] || [ -n "$ns" ] || usage
[ -n "$dsn" ] || sql=0
out=${out:-rwdiag-${ns:-sql}-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

# Failures are reported and skipped, never fatal: a partial bundle is still useful.
warn() { echo "collect-by-hand: $*" >&2; }

# bounded runs a command with the --timeout bound when coreutils' timeout exists.
bounded() {
  if command -v timeout >/dev/null 2>&1; then timeout "$timeout_s" "$@"; else "$@"; fi
}

k() { bounded kubectl "${kctx[@]}" "$@"; }

# save FILE CMD...: write CMD's output to FILE; on failure keep nothing and warn.
save() {
  local file=$1; shift
  mkdir -p "$(dirname "$out/$file")"
  if ! "$@" >"$out/$file.part" 2>"$out/$file.err"; then
    warn "$file: $(head -c 300 "$out/$file.err")"
    rm -f "$out/$file.part" "$out/$file.err"
    return 1
  fi
  mv "$out/$file.part" "$out/$file"
  rm -f "$out/$file.err"
}

# safe NAME: a name usable as one path component.
safe() { printf '%s' "$1" | tr '/' '_'; }

# millis: milliseconds since the Unix epoch (GNU date, else seconds * 1000).
millis() {
  local ms
  ms=$(date +%s%3N)
  case "$ms" in *[!0-9]*) ms="$(date +%s)000" ;; esac
  printf '%s' "$ms"
}

if [ "$kube" = 1 ]; then
  # Kubernetes objects, as JSON. Nodes are cluster-scoped and RisingWave custom
  # resources exist only under the operator: either may fail, that is fine.
  resources=(pods events statefulsets deployments services persistentvolumeclaims risingwaves)
  [ "$configmaps" = 1 ] && resources+=(configmaps)
  for res in "${resources[@]}"; do
    save "kubernetes/$res.json" k get "$res" -n "$ns" -o json || true
  done
  save kubernetes/nodes.json k get nodes -o json || true

  pods=$(k get pods -n "$ns" -l "$selector" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}') ||
    { warn "cannot list pods"; pods=""; }
  for pod in $pods; do
    save "kubernetes/describe/pods/$pod.txt" k describe pod "$pod" -n "$ns" || true
    containers=$(k get pod "$pod" -n "$ns" -o jsonpath='{.spec.initContainers[*].name} {.spec.containers[*].name}') || continue
    for c in $containers; do
      save "logs/$pod/$c.log" k logs "$pod" -c "$c" -n "$ns" --timestamps --since="$since" || true
      # Only a container that restarted has a previous log.
      save "logs/$pod/$c.previous.log" k logs "$pod" -c "$c" -n "$ns" --timestamps --previous 2>/dev/null || true
    done
  done

  if [ "$metrics" = 1 ]; then
    # Each pod's metrics port (the container port named "metrics"), through the API
    # server's pod proxy: no network path to the pods is needed.
    for i in $(seq 1 "$samples"); do
      for pod in $pods; do
        port=$(k get pod "$pod" -n "$ns" -o jsonpath='{.spec.containers[*].ports[?(@.name=="metrics")].containerPort}') || continue
        port=${port%% *}
        [ -n "$port" ] || continue
        save "metrics/$pod/$(millis).prom" k get --raw "/api/v1/namespaces/$ns/pods/$pod:$port/proxy/metrics" || true
      done
      [ "$i" = "$samples" ] || sleep "$interval"
    done
  fi

  # The meta leader's dashboard (port "dashboard", 5691): the diagnose report and
  # the await-tree dump. The operator labels the leader; helm does not.
  meta=$(k get pods -n "$ns" -l risingwave/component=meta,risingwave/meta-role=leader -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
  [ -n "$meta" ] || meta=$(k get pods -n "$ns" -l risingwave/component=meta -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
  if [ -n "$meta" ]; then
    dport=$(k get pod "$meta" -n "$ns" -o jsonpath='{.spec.containers[*].ports[?(@.name=="dashboard")].containerPort}' || true)
    dport=${dport%% *}
    dport=${dport:-5691}
    save diagnose/report.txt k get --raw "/api/v1/namespaces/$ns/pods/$meta:$dport/proxy/api/monitor/diagnose/" || true
    save diagnose/await-tree.json k get --raw "/api/v1/namespaces/$ns/pods/$meta:$dport/proxy/api/monitor/await_tree/" || true
  fi
fi

if [ "$sql" = 1 ]; then
  # psql: no ~/.psqlrc (-X), quiet so BEGIN and COMMIT print nothing (-q), stop at the
  # first error. Every statement runs in a READ ONLY transaction of its own.
  q() { bounded psql -X -q -v ON_ERROR_STOP=1 "$dsn" "$@"; }
  readonly_csv() { q --csv -c 'BEGIN READ ONLY' -c "$1" -c 'COMMIT'; }

  # Every rw_catalog relation, from the catalog itself; never the secrets.
  rels=$(q -At -c 'BEGIN READ ONLY' -c "SELECT c.relname FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'rw_catalog' AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
      AND c.relname NOT ILIKE '%secret%' ORDER BY 1" -c 'COMMIT') || { warn "cannot list rw_catalog"; rels=""; }
  while IFS= read -r rel; do
    [ -n "$rel" ] || continue
    case "$rel" in *'"'*) warn "skipping relation with a quote in its name: $rel"; continue ;; esac
    save "sql/$(safe "$rel").csv" readonly_csv "SELECT * FROM rw_catalog.\"$rel\"" || true
  done <<<"$rels"
  save sql/show_parameters.csv readonly_csv 'SHOW PARAMETERS' || true
  save sql/show_jobs.csv readonly_csv 'SHOW JOBS' || true

  # EXPLAIN of each materialized view's and sink's definition. Names and
  # definitions come NUL-separated (-z -0), since definitions span lines.
  for src in "rw_materialized_views:MATERIALIZED VIEW" "rw_sinks:SINK"; do
    table=${src%%:*} kind=${src#*:}
    while IFS= read -r -d '' name && IFS= read -r -d '' def; do
      def=$(printf '%s' "$def" | sed -e 's/[[:space:];]*$//')
      upper=$(printf '%s' "$def" | tr '[:lower:]' '[:upper:]' | tr -s '[:space:]' ' ')
      case "$upper" in
        "CREATE $kind "*) ;;
        *) warn "$table.$name: the definition is not a CREATE $kind statement; not explained"; continue ;;
      esac
      case "$def" in *';'*) warn "$table.$name: the definition holds a ';'; not explained"; continue ;; esac
      save "sql/explain/$(safe "$name").txt" q -At -c 'BEGIN READ ONLY' -c "EXPLAIN $def" -c 'COMMIT' || true
    done < <(q -At -z -0 -c 'BEGIN READ ONLY' -c "SELECT name, definition FROM rw_catalog.$table" -c 'COMMIT' 2>/dev/null || true)
  done
fi

echo "wrote $out (NOT REDACTED: see the header of this script)" >&2
