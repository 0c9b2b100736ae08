#!/bin/bash
# step_launch_bench.sh: what task/topoplace's step work in slurmstepd
# (task_p_pre_setuid: a child bounded by TP_SC_STEP_WORK_TIMEOUT_MS that
# reads the store and hands back the step's environment) adds to the
# start of a step, measured through the real daemons.
#
#   bench/step_launch_bench.sh BUILD_DIR [PAIRS]
#
# On a tp-bed cluster (2 leaves x 2 hosts, task/topoplace), PAIRS (default
# 40) pairs of interactive steps of tpalice, each pair back to back in a
# random order: `srun -N 1 -n 1 /bin/true` (the step's work runs: with
# ThrottleClasses=io_heavy its throttle window is decided, the store read
# for its job name's profile; since 6cba901 in the bounded child) and the
# same with `--io-throttle=off` (nothing to do: no child).  Run it on a
# build before and after a change to see what the change costs.  A second series does the
# same with --comm-record on the work side (the store's namespace made,
# the profiler prepared; /bin/true writes no profile).  Prints, per
# series, bench/paired_stats.awk's figures of the srun wall times
# (without = --io-throttle=off, with = the work) and the median
# difference in ms.  Figures, never pass/fail.  Needs root and tpalice.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" != --inside ]; then
	b=$(readlink -f "${1:?usage: $0 BUILD_DIR [PAIRS]}")
	[ -f "$b/Makefile" ] || { echo "step_launch_bench: $b: not a build directory" >&2; exit 2; }
	work=$(mktemp -d /tmp/tp-step-launch.XXXXXX) || exit 1
	chmod 755 "$work"
	prefix=$(sed -n 's/^SLURM_PREFIX = //p' "$b/Makefile")
	echo "# $(date -u +%FT%TZ) nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg) slurm=$("${prefix:-/usr}/sbin/slurmctld" -V) pairs=${2:-40}"
	"$b/tools/topoplace-fattree" --leaves 2 --hosts-per-leaf 2 --spines 2 \
		--format slurm -o "$work/topology.conf" || exit 1
	echo "optional $b/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
	export abs_top_srcdir=$top abs_top_builddir=$b
	export TOPOPLACE_LIBDIR=$b/profiles/.libs:$b/throttle/.libs
	export STEP_BENCH_PAIRS=${2:-40}
	"$top/tests/lib/tp-bed" --topology "$work/topology.conf" --cpus 4 \
		--task-plugin task/topoplace --plugin-dir "$b/slurm-plugin/.libs" \
		--plugstack "$work/plugstack.conf" -- "$0" --inside
	rc=$?
	rm -rf "$work"
	exit $rc
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice
id -u "$alice" >/dev/null 2>&1 || { echo "step_launch_bench: no user $alice" >&2; exit 1; }
etc=$(dirname "$SLURM_CONF")
store=$TP_BED_DIR/store
mkdir -p "$store" && chmod 755 "$store"
printf 'FabricSource=topology\nProfileStore=%s\nThrottleClasses=io_heavy\n' "$store" >"$etc/topoplace.conf"

# srun_s ARGS...: the wall time of one interactive step of tpalice, in s.
srun_s() {
	local t0 t1
	t0=$(date +%s%N)
	tp_as_user "$alice" srun -N 1 -n 1 "$@" >/dev/null 2>&1 ||
		echo "step_launch_bench: srun $* failed" >&2
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }'
}

# series NAME WORK_FLAGS...: PAIRS pairs "without with" and their figures.
series() {
	local name=$1 pairs=$TP_BED_DIR/pairs.$1 i a w
	shift
	: >"$pairs"
	srun_s /bin/true >/dev/null # the first step of a node loads its plugins
	for ((i = 0; i < STEP_BENCH_PAIRS; i++)); do
		if ((RANDOM % 2)); then
			a=$(srun_s --io-throttle=off /bin/true)
			w=$(srun_s "$@" /bin/true)
		else
			w=$(srun_s "$@" /bin/true)
			a=$(srun_s --io-throttle=off /bin/true)
		fi
		echo "$a $w" >>"$pairs"
	done
	printf '%-22s %s diff_med_ms %s\n' "$name" \
		"$(awk -v seed=1 -f "$abs_top_srcdir/bench/paired_stats.awk" "$pairs")" \
		"$(awk '{ print ($2 - $1) * 1000 }' "$pairs" | sort -n |
			awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
}

series "throttle-window"
series "comm-record" --comm-record
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
