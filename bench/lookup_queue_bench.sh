#!/bin/bash
# lookup_queue_bench.sh: does a small job's profile lookup in slurmctld wait
# behind a big one?  And what does a big profile cost slurmctld's memory?
# One tp-bed cluster per build, the same workload, figures side by side.
#
#   bench/lookup_queue_bench.sh NEW_BUILD_DIR [OLD_BUILD_DIR] [ROUNDS]
#
# OLD_BUILD_DIR is a build of the code before profile summaries (e.g. of
# `git archive 5d254c8~1`, with its plugins, tools/topoplace,
# tools/topoplace-fattree and tests/integration/slurm_profile_gen built):
# one lookup thread that reads every profile whole.  Per build, as tpalice:
# a 1600-rank all-to-all profile "big" (61 MB, 2.56 M matrix entries, under
# the 64 MiB lookup cap) and a 4-rank profile "quiet"; each round submits a
# job naming big, then 0.5 s later one naming quiet, and reads from
# slurmctld's log (DebugFlags=Profile) the time the reader spent on big and
# the time from quiet's request to its answer.  For the new build the rounds
# run twice: with big's summary (what `profile put` writes), then with it
# removed (the fallback: a whole read, on the second lane).  slurmctld's
# VmHWM (peak RSS) is read before the first round and after each case.
# Prints figures, never pass/fail.  Needs root (tp-bed).
set -u
new=$(readlink -f "${1:?usage: $0 NEW_BUILD_DIR [OLD_BUILD_DIR] [ROUNDS]}")
old=${2:-}
rounds=${3:-3}
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "${BENCH_INSIDE:-}" != 1 ]; then
	echo "# $(date -u +%FT%TZ) nproc=$(nproc) cpu=$(lscpu | sed -n 's/^Model name: *//p') load=$(cut -d' ' -f1-3 /proc/loadavg)"
	for b in ${old:+"$(readlink -f "$old")"} "$new"; do
		kind=new
		[ -n "$old" ] && [ "$b" = "$(readlink -f "$old")" ] && kind=old
		work=$(mktemp -d /tmp/tp-lookup-bench.XXXXXX)
		chmod 755 "$work"
		echo "optional $b/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
		"$b/tools/topoplace-fattree" --leaves 4 --hosts-per-leaf 4 \
			--spines 2 --format slurm -o "$work/topology.conf" || exit 1
		BENCH_INSIDE=1 BENCH_KIND=$kind abs_top_builddir=$b abs_top_srcdir=$top \
			TOPOPLACE_LIBDIR=$b/throttle/.libs "$top/tests/lib/tp-bed" \
			--topology "$work/topology.conf" --cpus 4 \
			--select select/topoplace_cons_tres --task-plugin task/topoplace \
			--conf "TmpFS=/run/topoplace-bed/jobs" \
			--plugin-dir "$b/slurm-plugin/.libs" --plugstack "$work/plugstack.conf" \
			--timeout 1800 -- bash "$0" "$b" "" "$rounds"
		rm -rf "$work"
	done
	exit
fi

. "$top/tests/lib/bed.sh"
. "$top/tests/lib/slurm_place_lib.sh"
tp_slurm_setup
tp_slurm_profiles >/dev/null
tp_slurm_conf >/dev/null
printf 'DebugFlags=Profile\nProfileLookupTimeout=300s\n' >>"$etc/topoplace.conf"
reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of" ||
	{ echo "bench: topoplace.conf not loaded" >&2; exit 1; }
ctld=$(cat "$TP_BED_DIR/run/slurmctld.pid")
hwm_kib() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$ctld/status"; }
field_us() { # JOB read|answer
	local line
	line=$(grep -m1 "topoplace: Profile: JobId=$1: .* read in [0-9]* us, answer after" "$log") || { echo NA; return; }
	case $2 in
	read) sed 's/.* read in \([0-9]*\) us.*/\1/' <<<"$line" ;;
	answer) sed 's/.* answer after \([0-9]*\) us.*/\1/' <<<"$line" ;;
	esac
}
ms() { [ "$1" = NA ] && echo NA || awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

"$gen" alltoall 1600 "$out/big.tpp" && chmod 644 "$out/big.tpp"
tp_as_user "$user" "$tp" profile put --store "$store" --munge-socket "$sock" \
	"$out/big.tpp" "$user/big" >/dev/null || { echo "bench: put big failed" >&2; exit 1; }
bigrun=$(ls "$store/$user/big/" | grep '\.tpp$' | tail -1)
echo "# build $BENCH_KIND ($1): big = $(stat -c %s "$store/$user/big/$bigrun") bytes; summary beside it: $(test -e "$store/$user/big/${bigrun%.tpp}.sum" && echo yes || echo no)"

cases=old
[ "$BENCH_KIND" = new ] && cases="summary no-summary"
for c in $cases; do
	[ "$c" = no-summary ] && rm -f "$store/$user/big/${bigrun%.tpp}.sum"
	hwm0=$(hwm_kib)
	for ((r = 1; r <= rounds; r++)); do
		big=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=big -o /dev/null --wrap true)
		sleep 0.5
		small=$(tp_as_user "$user" sbatch --parsable -N4 -n 4 --comm-profile=quiet -o /dev/null --wrap true)
		tp_wait_job "$big" 300 >/dev/null
		tp_wait_job "$small" 300 >/dev/null
		printf '%-4s %-11s round %d: big lookup read %8s ms; small lookup answered after %8s ms\n' \
			"$BENCH_KIND" "$c" "$r" "$(ms "$(field_us "$big" read)")" "$(ms "$(field_us "$small" answer)")"
	done
	echo "$BENCH_KIND $c: slurmctld VmHWM $hwm0 -> $(hwm_kib) kB"
done
