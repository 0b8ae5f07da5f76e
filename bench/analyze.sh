#!/usr/bin/env bash
# analyze.sh measures `rwdiag analyze` on large bundles against what a user
# would otherwise run, on the same bundle and in the same run:
#
#   (A) zstd -dc BUNDLE > /dev/null                       the floor: decompressing once
#   (B) zstd -dc BUNDLE | tar -xO --wildcards '*.log' | grep -cE '<the rules' log regexes>'
#                                                         the by-hand baseline
#   (C) rwdiag analyze BUNDLE --format json --fail-on never   all built-in rules
#
# and prints, per size, the median wall time and the peak RSS (GNU time -v;
# for the pipeline, its largest process) of each, the ratios C/A and C/B,
# and whether C's findings (rule, subject, status) are those of
# samples/compound-incident, whose incident the large bundles carry. It
# checks the targets of docs/performance.md and exits 1 when one is missed.
#
#   bench/analyze.sh                     # 512MiB and 2GiB, 3 runs each
#   SIZES="512MiB 2GiB 8GiB" REPEAT=5 bench/analyze.sh
#
# Environment: SIZES (uncompressed sizes for samples/gen -size), REPEAT
# (runs per measurement, default 3), BENCH_DIR (work directory, default
# ${TMPDIR:-/tmp}/rwdiag-analyze-bench), KEEP=1 (keep the bundles there for
# the next run instead of deleting the work directory).
#
# Needs go, zstd, GNU tar, GNU grep and GNU time (/usr/bin/time). Disk: the
# largest size's bundle directory plus its .tar.zst while it is packed
# (about 2.3 GB for 2GiB, 9.5 GB for 8GiB); the directory is deleted once
# packed.
set -euo pipefail

sizes=${SIZES:-512MiB 2GiB}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-${TMPDIR:-/tmp}/rwdiag-analyze-bench}

for tool in go zstd tar grep; do
	command -v "$tool" >/dev/null || { echo "analyze.sh: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "analyze.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
tar --version 2>/dev/null | grep -q 'GNU tar' || { echo "analyze.sh: needs GNU tar" >&2; exit 2; }

mkdir -p "$work/bin"
if [[ ${KEEP:-0} != 1 ]]; then
	trap 'rm -rf "$work"' EXIT
fi

echo "building (release flags) ..." >&2
(
	cd "$root"
	go build -trimpath -ldflags='-s -w' -o "$work/bin/rwdiag" .
	go build -trimpath -ldflags='-s -w' -o "$work/bin/gen" ./samples/gen
	go build -o "$work/bin/logregex" ./bench/logregex
	go build -o "$work/bin/findings" ./bench/findings
)
regex=$("$work/bin/logregex")
want=$("$work/bin/rwdiag" analyze "$root/samples/compound-incident" --format json --fail-on never | "$work/bin/findings")

# measure NAME COMMAND...: runs it under GNU time and appends
# "NAME wall_seconds max_rss_kib" to $work/runs.
measure() {
	local name=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || {
		echo "analyze.sh: $name failed:" >&2
		cat "$work/err.txt" "$work/time.txt" >&2
		exit 1
	}
	local wall rss
	wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time.txt")
	echo "$name $wall $rss" >>"$work/runs"
}

# median NAME FIELD: the median of a field (2 wall, 3 RSS) over NAME's runs.
median() {
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/runs" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
maxof() {
	awk -v n="$1" -v f="$2" '$1 == n && $f > m { m = $f } END { print m }' "$work/runs"
}

export RE=$regex # for B's grep
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/runs"
: >"$work/table"
rm -f "$work/misses"
status=0
first_rss="" last_rss=""
for size in $sizes; do
	bundle="$work/bench-$size.tar.zst"
	if [[ ! -f $bundle ]]; then
		echo "generating the $size bundle ..." >&2
		rm -rf "$work/gen"
		"$work/bin/gen" -out "$work/gen" -only compound-incident -size "$size"
		du -sb "$work/gen/compound-incident" | cut -f1 >"$bundle.bytes"
		tar --sort=name -C "$work/gen/compound-incident" -cf - . | zstd -q -T0 -3 -o "$bundle.tmp"
		mv "$bundle.tmp" "$bundle"
		rm -rf "$work/gen"
	fi
	cat "$bundle" >/dev/null # into the page cache: every command reads it warm
	echo "measuring $size ($(($(cat "$bundle.bytes") >> 20)) MiB uncompressed, $(($(stat -c %s "$bundle") >> 20)) MiB compressed), $repeat runs ..." >&2
	# shellcheck disable=SC2016 # $1 and $RE are for the inner sh
	for ((i = 1; i <= repeat; i++)); do
		measure "A-$size" sh -c 'zstd -dc "$1" >/dev/null' sh "$bundle"
		measure "B-$size" sh -c 'zstd -dc "$1" | tar -xOf - --wildcards "*.log" | LC_ALL=C grep -cE -e "$RE"; true' sh "$bundle"
		matched=$(cat "$work/out.txt")
		measure "C-$size" "$work/bin/rwdiag" analyze "$bundle" --format json --fail-on never
		got=$("$work/bin/findings" "$work/out.txt")
	done
	findings=same
	if [[ $got != "$want" ]]; then
		findings=DIFFERENT
		status=1
		echo "analyze.sh: $size: findings differ from samples/compound-incident's:" >&2
		diff <(echo "$want") <(echo "$got") >&2 || true
	fi
	a=$(median "A-$size" 2) b=$(median "B-$size" 2) c=$(median "C-$size" 2)
	ar=$(maxof "A-$size" 3) br=$(maxof "B-$size" 3) cr=$(maxof "C-$size" 3)
	ca=$(awk -v c="$c" -v a="$a" 'BEGIN { printf "%.2f", c / a }')
	cb=$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.2f", c / b }')
	if [[ $matched == 0 ]]; then
		echo "MISSED: $size: B's grep matched no line; the regexes or the bundle are wrong" >>"$work/misses"
	fi
	printf '| %s | %d MiB | %d MiB | %s s | %d MiB | %s s | %d MiB | %s s | %d MiB | %s | %s | %s (grep: %s lines) |\n' \
		"$size" $(($(cat "$bundle.bytes") >> 20)) $(($(stat -c %s "$bundle") >> 20)) "$a" $((ar >> 10)) "$b" $((br >> 10)) "$c" $((cr >> 10)) "$ca" "$cb" "$findings" "$matched" >>"$work/table"
	[[ -n $first_rss ]] || first_rss=$cr
	last_rss=$cr
	last_ca=$ca last_cb=$cb last_size=$size
	if awk -v r="$cr" 'BEGIN { exit !(r > 300 * 1024) }'; then
		echo "MISSED: $size: peak RSS $((cr >> 10)) MiB, target at most 300 MiB" >>"$work/misses"
	fi
	if [[ ${KEEP:-0} != 1 ]]; then
		rm -f "$bundle" "$bundle.bytes"
	fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "rwdiag analyze vs decompression (A) and zstd | tar | grep (B); $(nproc) cores; load average $load_before before, $load_after after"
echo "median wall time of $repeat runs; peak RSS, the largest of the runs"
echo
echo "| size | uncompressed | .tar.zst | A wall | A RSS | B wall | B RSS | C wall | C RSS | C/A | C/B | findings |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
cat "$work/table"
echo
if awk -v r="$last_cb" 'BEGIN { exit !(r > 1.5) }'; then
	echo "MISSED: $last_size: C/B $last_cb, target at most 1.5 (aim 1.0)" >>"$work/misses"
fi
if awk -v r="$last_ca" 'BEGIN { exit !(r > 2.0) }'; then
	echo "MISSED: $last_size: C/A $last_ca, target at most 2.0" >>"$work/misses"
fi
if awk -v a="$first_rss" -v b="$last_rss" 'BEGIN { exit !(b > 1.15 * a) }'; then
	echo "MISSED: peak RSS not flat: $((last_rss >> 10)) MiB at the largest size, $((first_rss >> 10)) MiB at the smallest (target within 15%)" >>"$work/misses"
fi
if [[ -s $work/misses ]]; then
	cat "$work/misses"
	status=1
else
	echo "targets met: C/B <= 1.5 and C/A <= 2.0 at $last_size, peak RSS <= 300 MiB and within 15% across sizes, same findings"
fi
rm -f "$work/misses"
exit "$status"
