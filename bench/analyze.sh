#!/usr/bin/env bash
# analyze.sh measures `rwdiag analyze` on large bundles against decompressing
# the same bundle, in one run, the commands taking turns (issue 14).
#
# Each size's bundle (samples/gen -only compound-incident -size SIZE) is
# packed three ways:
#   frames  rwdiag's own writer (bench/pack: independent 4 MiB zstd frames,
#           as `collect` and `bundle redact` write them)
#   single  tar | zstd -3 (one frame, no content size: read by streaming)
#   gz      tar | gzip (pigz when installed: the same format, one stream)
# and, per size, every round runs in turn:
#   Zf  zstd -dc frames >/dev/null      Cf  rwdiag analyze frames
#   Zs  zstd -dc single >/dev/null      Cs  rwdiag analyze single
#   G   gzip -dc gz >/dev/null          Cg  rwdiag analyze gz
#   Zs+busy, Cs+busy, Zf+busy, Cf+busy: the same while `sha256sum /dev/zero`
#   keeps a core busy
# (rwdiag analyze: --format json --fail-on never, all built-in rules). It
# prints the median wall time and the largest peak RSS (GNU time -v) of each,
# the ratios, the load average before and after each size, and whether every
# analyze run's findings (rule, subject, status) are those of
# samples/compound-incident, whose incident the large bundles carry.
#
# First, start-up: `rwdiag analyze samples/handmade-minimal --format json` (a
# 92 KB directory), STARTUP_RUNS times (default 40, 10 in quick mode), rwdiag
# (the analysis binary) and rwdiag-collect (the collector binary, which runs
# analyze too, as the single binary did before issue 14) taking turns, with
# `rwdiag version` beside them: the runtime's start and every linked
# package's initialisation, before any analysis, which says what starting
# rwdiag costs on this machine (it varied threefold between machines
# reporting the same CPU; a Go hello-world takes 5-7 ms where it takes 30-40,
# docs/performance.md "Sixth round"); median wall time (date +%s%N around GNU time, so it includes
# GNU time's own fork and exec, about 1 ms), median CPU time, largest peak
# RSS.
#
# Targets (issue 14), checked at 2 GiB and larger (every size in quick mode):
#   Cf/Zf <= 0.6, Cs/Zs <= 1.3, Cs+busy/Zs+busy <= 1.3, Cg/G <= 1.3;
#   peak RSS of every analyze run <= 150 MiB, and flat: at the largest size
#   within 15% of the smallest; the same findings at every size;
#   start-up of rwdiag <= 20 ms and <= 30 MiB (rwdiag-collect's figures are
#   printed beside it, not checked).
# It exits 1 when a target is missed, printing which.
#
#   bench/analyze.sh                  # 512MiB, 2GiB and 8GiB, 5 rounds each
#   QUICK=1 bench/analyze.sh          # 512MiB, 1 round: to try it out
#   SIZES="2GiB" REPEAT=3 bench/analyze.sh
#   SIZES=none bench/analyze.sh       # start-up only
#
# Environment: SIZES, REPEAT (rounds, default 5), STARTUP_RUNS, QUICK=1, BUSY=0 (skip the
# busy cases), BENCH_DIR (work directory, default /tmp/rwdiag-bench/analyze), KEEP=1
# (keep the bundles there for the next run; otherwise the work directory is
# deleted at the end).
#
# Needs go, zstd, gzip, GNU tar, GNU time (/usr/bin/time), sha256sum. Disk:
# the largest size's directory while it is packed plus its three archives
# (about 11 GB for 8GiB: the directory is deleted once packed).
set -euo pipefail

if [[ ${QUICK:-0} == 1 ]]; then
	sizes=${SIZES:-512MiB}
	repeat=${REPEAT:-1}
else
	sizes=${SIZES:-512MiB 2GiB 8GiB}
	repeat=${REPEAT:-5}
fi
[[ $sizes == none ]] && sizes="" # start-up only
busy=${BUSY:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/rwdiag-bench/analyze}

for tool in go zstd gzip tar sha256sum; do
	command -v "$tool" >/dev/null || { echo "analyze.sh: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "analyze.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
tar --version 2>/dev/null | grep -q 'GNU tar' || { echo "analyze.sh: needs GNU tar" >&2; exit 2; }
gz=gzip
command -v pigz >/dev/null && gz=pigz

mkdir -p "$work/bin"
hog=""
cleanup() {
	[[ -z $hog ]] || kill "$hog" 2>/dev/null || true
	if [[ ${KEEP:-0} != 1 ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT

echo "building (release flags) ..." >&2
(
	cd "$root"
	# Static, as docs/cli.md ("Building") recommends for the executables
	# handed out: without cgo the analysis starts about 12 ms of CPU sooner
	# here (docs/performance.md, "Sixth round").
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/bin/rwdiag" .
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/bin/rwdiag-collect" ./cmd/rwdiag-collect
	go build -trimpath -ldflags='-s -w' -o "$work/bin/gen" ./samples/gen
	go build -trimpath -ldflags='-s -w' -o "$work/bin/pack" ./bench/pack
	go build -o "$work/bin/findings" ./bench/findings
)
want=$("$work/bin/rwdiag" analyze "$root/samples/compound-incident" --format json --fail-on never | "$work/bin/findings")

# measure NAME COMMAND...: runs it under GNU time and appends
# "NAME wall_seconds max_rss_kib cpu_seconds" to $work/runs (CPU: user+sys).
measure() {
	local name=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || {
		echo "analyze.sh: $name failed:" >&2
		cat "$work/err.txt" "$work/time.txt" >&2
		exit 1
	}
	local wall rss cpu
	wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time.txt")
	cpu=$(sed -n 's/^[[:space:]]*\(User\|System\) time (seconds): //p' "$work/time.txt" | awk '{ s += $1 } END { printf "%.2f", s }')
	echo "$name $wall $rss $cpu" >>"$work/runs"
}

# analyze NAME BUNDLE: measures rwdiag analyze and checks its findings.
analyze() {
	measure "$1" "$work/bin/rwdiag" analyze "$2" --format json --fail-on never
	local got
	got=$("$work/bin/findings" "$work/out.txt")
	if [[ $got != "$want" ]]; then
		echo "MISSED: $1: findings differ from samples/compound-incident's" >>"$work/misses"
		diff <(echo "$want") <(echo "$got") >&2 || true
	fi
}

# busy measure|analyze NAME ARGS...: measure or analyze while another
# process keeps a core busy.
busy() {
	sha256sum /dev/zero &
	hog=$!
	sleep 0.2
	"$@"
	kill "$hog"
	wait "$hog" 2>/dev/null || true
	hog=""
}

median() { # NAME [FIELD]: 2 wall (default), 4 CPU
	awk -v n="$1" -v f="${2:-2}" '$1 == n { print $f }' "$work/runs" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() {
	awk -v n="$1" '$1 == n { print $2 }' "$work/runs" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'
}
maxrss() { # MiB
	awk -v n="$1" '$1 == n && $3 > m { m = $3 } END { printf "%d", m / 1024 }' "$work/runs"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
over() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

: >"$work/runs"
: >"$work/table"
: >"$work/misses"

# startup NAME BINARY [ARGS...]: one timed run of the small sample's
# analysis (or of BINARY ARGS), appended to $work/startup as
# "NAME wall_ms max_rss_kib cpu_ms".
startup() {
	local t0 t1 name=$1 bin=$2
	shift 2
	(($# > 0)) || set -- analyze "$root/samples/handmade-minimal" --format json --fail-on never
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$work/time.txt" "$bin" "$@" >/dev/null 2>"$work/err.txt" || {
		echo "analyze.sh: start-up run of $name failed:" >&2
		cat "$work/err.txt" >&2
		exit 1
	}
	t1=$(date +%s%N)
	awk -v n="$name" -v w="$(((t1 - t0) / 1000))" '{ printf "%s %.1f %d %.0f\n", n, w / 1000, $1, ($2 + $3) * 1000 }' "$work/time.txt" >>"$work/startup"
}
smedian() { # NAME FIELD
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/startup" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
smax() { awk -v n="$1" -v f="$2" '$1 == n && $f > m { m = $f } END { print m + 0 }' "$work/startup"; }
if [[ ${QUICK:-0} == 1 ]]; then
	startup_runs=${STARTUP_RUNS:-10}
else
	startup_runs=${STARTUP_RUNS:-40}
fi
: >"$work/startup"
: >"$work/startup.table"
echo "measuring start-up ($startup_runs runs of each build) ..." >&2
startup_load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < 3; i++)); do # warm the page cache
	startup warm "$work/bin/rwdiag"
	startup warm "$work/bin/rwdiag-collect"
done
for ((i = 1; i <= startup_runs; i++)); do
	startup rwdiag "$work/bin/rwdiag"
	startup rwdiag-collect "$work/bin/rwdiag-collect"
	startup rwdiag-version "$work/bin/rwdiag" version
done
startup_load_after=$(cut -d' ' -f1-3 /proc/loadavg)
for b in rwdiag rwdiag-collect rwdiag-version; do
	label=$b
	[[ $b == rwdiag-version ]] && label="rwdiag version (start and package init, for scale)"
	printf '| %s | %s ms (%s-%s) | %s ms | %d MiB | %s / %s |\n' "$label" "$(smedian "$b" 2)" \
		"$(awk -v n="$b" '$1 == n { print $2 }' "$work/startup" | sort -n | head -1)" "$(smax "$b" 2)" \
		"$(smedian "$b" 4)" "$(($(smax "$b" 3) / 1024))" "$startup_load_before" "$startup_load_after" >>"$work/startup.table"
done
if over "$(smedian rwdiag 2)" 20; then
	echo "MISSED: start-up: rwdiag analyze samples/handmade-minimal took $(smedian rwdiag 2) ms (median), target at most 20 ms" >>"$work/misses"
fi
if (($(smax rwdiag 3) > 30 * 1024)); then
	echo "MISSED: start-up: rwdiag analyze samples/handmade-minimal peaked at $(($(smax rwdiag 3) / 1024)) MiB RSS, target at most 30 MiB" >>"$work/misses"
fi
first_rss="" last_rss="" first_size="" last_size=""
for size in $sizes; do
	b="$work/bench-$size"
	if [[ ! -f $b.gz.tar.gz ]]; then
		echo "generating the $size bundle ..." >&2
		rm -rf "$work/gen"
		"$work/bin/gen" -out "$work/gen" -only compound-incident -size "$size"
		du -sb "$work/gen/compound-incident" | cut -f1 >"$b.bytes"
		echo "packing it three ways ..." >&2
		tar --sort=name -C "$work/gen/compound-incident" -cf - . | "$work/bin/pack" >"$b.frames.tar.zst"
		tar --sort=name -C "$work/gen/compound-incident" -cf - . | zstd -q -T0 -3 -o "$b.single.tar.zst"
		tar --sort=name -C "$work/gen/compound-incident" -cf - . | $gz >"$b.gz.tar.gz.tmp"
		mv "$b.gz.tar.gz.tmp" "$b.gz.tar.gz"
		rm -rf "$work/gen"
	fi
	f=$b.frames.tar.zst s=$b.single.tar.zst g=$b.gz.tar.gz
	cat "$f" "$s" "$g" >/dev/null # into the page cache: every command reads it warm
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	mib() { echo $(($(stat -c %s "$1") >> 20)); }
	echo "measuring $size ($(($(cat "$b.bytes") >> 20)) MiB uncompressed; frames $(mib "$f") MiB, single $(mib "$s") MiB, gz $(mib "$g") MiB), $repeat rounds ..." >&2
	# shellcheck disable=SC2016 # $1 is for the inner sh
	for ((i = 1; i <= repeat; i++)); do
		measure "Zf-$size" sh -c 'zstd -dc "$1" >/dev/null' sh "$f"
		analyze "Cf-$size" "$f"
		measure "Zs-$size" sh -c 'zstd -dc "$1" >/dev/null' sh "$s"
		analyze "Cs-$size" "$s"
		measure "G-$size" sh -c 'gzip -dc "$1" >/dev/null' sh "$g"
		analyze "Cg-$size" "$g"
		if [[ $busy == 1 ]]; then
			busy measure "Zs+busy-$size" sh -c 'zstd -dc "$1" >/dev/null' sh "$s"
			busy analyze "Cs+busy-$size" "$s"
			busy measure "Zf+busy-$size" sh -c 'zstd -dc "$1" >/dev/null' sh "$f"
			busy analyze "Cf+busy-$size" "$f"
		fi
	done
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	rss=0
	pairs="Cf:Zf:0.6 Cs:Zs:1.3 Cg:G:1.3"
	[[ $busy == 1 ]] && pairs="$pairs Cs+busy:Zs+busy:1.3 Cf+busy:Zf+busy:-"
	for p in $pairs; do
		IFS=: read -r c z target <<<"$p"
		cm=$(median "$c-$size") zm=$(median "$z-$size")
		r=$(ratio "$cm" "$zm")
		cr=$(maxrss "$c-$size")
		((cr > rss)) && rss=$cr
		printf '| %s | %s | %s s (%s) | %s s (%s) | %s | %s | %s s / %s s | %d MiB | %s |\n' "$size" "$c vs $z" "$cm" "$(range "$c-$size")" \
			"$zm" "$(range "$z-$size")" "$r" "$target" "$(median "$c-$size" 4)" "$(median "$z-$size" 4)" "$cr" "$load_before / $load_after" >>"$work/table"
		check=0
		case $size in *GiB) [[ ${size%GiB} -ge 2 ]] 2>/dev/null && check=1 ;; esac
		[[ ${QUICK:-0} == 1 ]] && check=1
		if [[ $check == 1 && $target != - ]] && over "$r" "$target"; then
			echo "MISSED: $size: $c/$z = $r, target at most $target" >>"$work/misses"
		fi
	done
	if ((rss > 150)); then
		echo "MISSED: $size: peak RSS of rwdiag analyze $rss MiB, target at most 150 MiB" >>"$work/misses"
	fi
	[[ -n $first_rss ]] || { first_rss=$rss; first_size=$size; }
	last_rss=$rss last_size=$size
	if [[ ${KEEP:-0} != 1 ]]; then
		rm -f "$f" "$s" "$g" "$b.bytes"
	fi
done

echo
echo "Start-up: analyze samples/handmade-minimal --format json, $startup_runs runs of each binary taking turns"
echo
echo "| binary | wall median (range) | CPU median | peak RSS | load before / after |"
echo "|---|---|---|---|---|"
cat "$work/startup.table"
echo
if [[ -n $sizes ]]; then
	echo "rwdiag analyze (C) vs decompression (Z: zstd -dc, G: gzip -dc); bundles packed by rwdiag's writer (f), tar | zstd -3 (s), tar | $gz (g)"
	echo "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); median wall time of $repeat rounds (range),"
	echo "median CPU time (user+sys); peak RSS the largest of the runs; load averages (1, 5, 15 min) before and after the size's rounds"
	echo
	echo "| size | case | C wall | Z or G wall | ratio | target | CPU C / Z or G | C peak RSS | load before / after |"
	echo "|---|---|---|---|---|---|---|---|---|"
	cat "$work/table"
	echo
fi
if [[ $last_size != "$first_size" ]] && awk -v a="$first_rss" -v b="$last_rss" 'BEGIN { exit !(b > 1.15 * a) }'; then
	echo "MISSED: peak RSS not flat: $last_rss MiB at $last_size, $first_rss MiB at $first_size (target within 15%)" >>"$work/misses"
fi
if [[ -s $work/misses ]]; then
	sort -u "$work/misses"
	exit 1
fi
if [[ -z $sizes ]]; then
	echo "start-up targets met: <= 20 ms and 30 MiB (no bundle sizes measured: SIZES=none)"
	exit 0
fi
echo "targets met: Cf/Zf <= 0.6, Cs/Zs and Cg/G <= 1.3 (also with a busy core), peak RSS <= 150 MiB and flat, same findings at every size, start-up <= 20 ms and 30 MiB"
