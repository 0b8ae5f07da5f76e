#!/usr/bin/env bash
# collect-redact.sh measures what redaction costs a collection, end to end:
# collect.Run against the test API server of collect's tests (five pods, six
# container logs of MIB MiB each of RisingWave-shaped text, collect.GenLog)
# into a tar.zst, with redaction off and on, COUNT times each, interleaved;
# then the per-core redaction benchmarks. It prints the best run of each
# mode (the machine is shared: the best is the least disturbed) and their
# ratio. The issue's target: redacted at least 0.5x the unredacted speed.
#
#   bench/collect-redact.sh [MIB] [COUNT]     # defaults: 64 MiB a log, 3 runs
set -euo pipefail

mib=${1:-64}
count=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/rwdiag-bench}
mkdir -p "$dir"
(cd "$here/.." && go test -c -o "$dir/collect.test" ./collect/)

out="$dir/collect-redact.txt"
: > "$out"
for _ in $(seq "$count"); do
	(cd "$here/../collect" && RWDIAG_BENCH_LOG_MIB=$mib "$dir/collect.test" -test.run '^$' \
		-test.bench '^BenchmarkCollectLogs$' -test.benchtime 1x) | grep '^Benchmark' | tee -a "$out"
done
(cd "$here/../collect" && "$dir/collect.test" -test.run '^$' -test.bench '^BenchmarkRedactLog' \
	-test.benchtime 2s -test.count "$count") | grep '^Benchmark' | tee -a "$out"

echo
echo "best of $count (MB/s; ${mib} MiB x 6 logs):"
awk '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 2; i <= NF; i++) if ($(i+1) == "MB/s") v = $i
		if (!(name in best) || v > best[name]) best[name] = v
	}
	END {
		for (n in best) printf "  %-40s %8.1f\n", n, best[n]
		nr = best["BenchmarkCollectLogs/no-redact"]; r = best["BenchmarkCollectLogs/redact"]
		if (nr > 0) printf "  redacted / unredacted collection: %.2fx\n", r / nr
	}' "$out" | sort
