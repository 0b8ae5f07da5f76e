#!/usr/bin/env bash
# Runs rwdiag collect's tests against a real kube-apiserver and etcd
# (test/kube, docs/kubernetes-testing.md). As root: it installs etcd (and
# PostgreSQL) only when missing, builds kube-apiserver once into the cache
# (a second run reuses the binary; a cold build reuses the Go build cache),
# builds rwdiag and the test binary, and runs the tests, which put
# themselves in a network namespace of their own (unshare -n).
#
#   bash test/kube/run.sh                 # all tests
#   bash test/kube/run.sh -test.run Mini  # extra arguments go to the test binary
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version=v1.37.2
cache="${XDG_CACHE_HOME:-$HOME/.cache}/rwdiag"
apiserver="$cache/kube-apiserver-$version"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fs", b - a }'; }
t_start=$(now)

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: run as root: the tests need a network namespace of their own (unshare -n) and may install etcd" >&2
	exit 2
fi
need=()
command -v ip >/dev/null || need+=(iproute2)
command -v unshare >/dev/null || need+=(util-linux)
command -v etcd >/dev/null || need+=(etcd-server)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
	echo "run.sh: installing ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
for tool in unshare ip etcd; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (util-linux, iproute2, etcd-server)" >&2; exit 2; }
done

mkdir -p "$cache"
t0=$(now)
if [ -x "$apiserver" ]; then
	echo "run.sh: kube-apiserver $version: $apiserver (cached)" >&2
else
	echo "run.sh: building kube-apiserver $version (cold: about 30 minutes on 2 cores; then cached)" >&2
	(
		cd "$here"
		go build -o "$apiserver.tmp" \
			-ldflags "-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37" \
			k8s.io/kubernetes/cmd/kube-apiserver
	)
	mv "$apiserver.tmp" "$apiserver"
fi
t_apiserver=$(secs "$t0" "$(now)")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
t0=$(now)
# rwdiag is the analysis binary; its collect runs rwdiag-collect, found next
# to it, so the tests run collect the way users do (cli/collector.go).
(cd "$root" && go build -o "$work/rwdiag" . && go build -o "$work/rwdiag-collect" ./cmd/rwdiag-collect)
(cd "$here" && go test -c -o "$work/kube.test" .)
t_build=$(secs "$t0" "$(now)")

t0=$(now)
status=0
(
	cd "$here"
	RWDIAG_BIN="$work/rwdiag" RWDIAG_KUBE_APISERVER="$apiserver" \
		"$work/kube.test" -test.v -test.timeout 20m "$@"
) || status=$?
t_tests=$(secs "$t0" "$(now)")

echo "run.sh: kube-apiserver $t_apiserver, build rwdiag + tests $t_build, tests $t_tests, total $(secs "$t_start" "$(now)"); exit $status" >&2
exit "$status"
