#!/bin/bash
# report_bench.sh - wall time of `topoplace report fabric` (issue 8) on a
# 1,296-host and a 5,184-host 3-level fat tree, PNG and SVG, with three jobs
# loaded by real matrices (2 ranks per host where 128 ranks run on 64
# hosts: slots=2, as earlier versions did silently); also the 648-host
# 2-level tree drawn host by host.  Sizes are the automatic ones, which
# widen dense trees so both directions of every link stay apart.  Prints
# figures and the 5,184 / 1,296 ratio side by side; never passes or fails
# on time.
#
#   bench/report_bench.sh [BUILD_DIR]      (default: the current directory)
#
# TOPOPLACE_REPORT_FABRIC overrides the command (words split).  RUNS (3)
# renders per case; the best is reported.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$(cd "${1:-.}" && pwd)
# shellcheck disable=SC2206 # the override is a command line
report=(${TOPOPLACE_REPORT_FABRIC:-$build/tools/topoplace report fabric})
runs=${RUNS:-3}
m=$top/tests/data/matrices
scratch=$(mktemp -d "${TMPDIR:-/tmp}/report-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

if ! "${report[@]}" --help >/dev/null 2>&1; then
	echo "report_bench: '${report[*]}' does not run (set TOPOPLACE_REPORT_FABRIC)" >&2
	exit 1
fi

# best FABRIC EXT [ARGS...]: best wall time (s) of $runs renders, on stdout
best() {
	local fabric=$1 ext=$2 best= t0 t1 dt
	shift 2
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s.%N)
		"${report[@]}" --fabric "$fabric" \
			--job "comd=n[0001-0064],profile=$m/CoMD-128.txt,slots=2" \
			--job "lulesh=n[0201-0325],profile=$m/LULESH-125.txt,mapping=ours" \
			--job "mg=n[0401-0464],profile=$m/NPB-MG.A-128.txt,mapping=cyclic,slots=2" \
			"$@" -o "$scratch/out.$ext" >"$scratch/stdout" 2>"$scratch/stderr" || {
			echo "report_bench: $fabric failed: $(cat "$scratch/stderr")" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$best" ] || awk -v x="$dt" -v y="$best" 'BEGIN { exit !(x < y) }'; then
			best=$dt
		fi
	done
	echo "$best"
}

echo "# report_bench: $(nproc) cpus, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# best of $runs renders, wall seconds, three jobs with real matrices"
printf '%-42s %8s %8s %13s\n' "fabric" "png s" "svg s" "link strokes"
declare -A png svg
for case in "1x36x18:648 hosts, 2-level, per host" \
	"4x18x18:1296 hosts, 3-level, by leaf" \
	"8x18x36:5184 hosts, 3-level, by leaf"; do
	f=${case%%:*}
	png[$f]=$(best "$f" png)
	svg[$f]=$(best "$f" svg)
	strokes=$(sed -n 's/.* \([0-9][0-9]*\) link strokes.*/\1/p' "$scratch/stdout")
	printf '%-42s %8s %8s %13s\n' "$f (${case#*:})" "${png[$f]}" "${svg[$f]}" "$strokes"
done
awk -v a="${png[8x18x36]}" -v b="${png[4x18x18]}" -v c="${svg[8x18x36]}" \
	-v d="${svg[4x18x18]}" 'BEGIN {
	printf "ratio 5184/1296 hosts: png %.2f, svg %.2f (hosts x4)\n",
		(b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
