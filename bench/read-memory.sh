#!/usr/bin/env bash
# read-memory.sh measures the wall time and peak memory (max RSS) of reading a
# bundle end to end: bundle.Open, then every entry drained through a
# bundle.LineReader (bench/readall). Target: under 100 MiB for a 1 GiB bundle.
#
#   bench/read-memory.sh [SIZE] [FORMAT]     # defaults: 1GiB tar.zst
#
# The bundle is generated once by bench/genbundle and kept in $BENCH_DIR
# (default ${TMPDIR:-/tmp}/rwdiag-bench); delete it to regenerate.
set -euo pipefail

size=${1:-1GiB}
format=${2:-tar.zst}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/rwdiag-bench}
mkdir -p "$dir"

(cd "$here/.." && go build -o "$dir/genbundle" ./bench/genbundle && go build -o "$dir/readall" ./bench/readall)

bundle="$dir/bench-$size.$format"
if [[ ! -f $bundle ]]; then
	echo "generating $bundle ..." >&2
	"$dir/genbundle" -size "$size" -format "$format" -o "$bundle"
fi
ls -l "$bundle" >&2

if [[ ! -x /usr/bin/time ]]; then
	echo "read-memory.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi
/usr/bin/time -v "$dir/readall" "$bundle" 2> "$dir/time.txt"
wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt")
rss_kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$dir/time.txt")
user=$(sed -n 's/^[[:space:]]*User time (seconds): //p' "$dir/time.txt")
sys=$(sed -n 's/^[[:space:]]*System time (seconds): //p' "$dir/time.txt")
echo "wall time: $wall (user ${user}s, system ${sys}s)"
echo "max RSS:   $((rss_kb / 1024)) MiB ($rss_kb KiB)"
