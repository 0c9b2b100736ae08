#!/bin/bash
# reconfigure_race.sh: batch jobs whose launch meets `scontrol reconfigure`,
# under plain select/cons_tres and under select/topoplace_cons_tres, on the
# same tp-bed cluster (4 leaves x 4 hosts) one after the other.
#
#   bench/reconfigure_race.sh BUILD_DIR [JOBS]
#
# Each of JOBS (default 25) 1- to 3-node `sbatch --wrap true` jobs is
# followed at once by `scontrol reconfigure` and a pause of 0-0.9 s; then
# every job gets 240 s in all to reach a final state.  Per select plugin it
# prints how many completed, how many did not (and their states: PENDING
# after Slurm requeued the launch, RUNNING with no batch step) and how
# often slurmctld logged a requeue.  Figures, never pass/fail: it shows
# whether topoplace loses any job Slurm itself would not (Slurm 22.05 and
# 24.11 both lose some: bench/RESULTS.md).  BUILD_DIR is a configured and
# built tree (its Slurm: the one it was configured for).  Needs root.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

case "${1:-}" in
--inside | --bed) ;;
*)
	b=$(readlink -f "${1:?usage: $0 BUILD_DIR [JOBS]}")
	jobs=${2:-25}
	[ -f "$b/Makefile" ] || { echo "reconfigure_race: $b: not a build directory" >&2; exit 2; }
	prefix=$(sed -n 's/^SLURM_PREFIX = //p' "$b/Makefile")
	echo "# $(date -u +%FT%TZ) nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg) slurm=$("${prefix:-/usr}/sbin/slurmctld" -V) jobs=$jobs"
	printf '%-28s %5s %9s %6s %9s  %s\n' select jobs completed lost requeued "states of the lost"
	for sel in select/cons_tres select/topoplace_cons_tres; do
		abs_top_builddir=$b abs_top_srcdir=$top \
			TP_PLUGIN_BUILD_DIR=$b/slurm-plugin/.libs \
			TP_SLURM_SYSTEM_PLUGIN_DIR=$(sed -n 's/^SLURM_SYSTEM_PLUGIN_DIR = //p' "$b/Makefile") \
			TP_BED_SLURM_PREFIX=$prefix RACE_JOBS=$jobs RACE_SELECT=$sel \
			bash "$0" --bed > "/tmp/reconfigure_race.${sel#select/}.log" 2>&1
		sed -n 's/^race: //p' "/tmp/reconfigure_race.${sel#select/}.log" |
			grep . || echo "$sel: no result (log: /tmp/reconfigure_race.${sel#select/}.log)"
	done
	exit 0
	;;
esac

. "$top/tests/lib/bed.sh"
. "$top/tests/lib/slurm_place_lib.sh"
if [ "$1" = --bed ]; then
	name=reconfigure_race.${RACE_SELECT#select/}
	tp_slurm_bed "$name" --timeout 900 --select "$RACE_SELECT"
fi
tp_slurm_setup
tp_slurm_profiles >/dev/null
tp_slurm_conf
submitted=()
for ((i = 1; i <= RACE_JOBS; i++)); do
	j=$(sbatch --parsable -N $((i % 3 + 1)) -o /dev/null --wrap true) || continue
	submitted+=("${j%%;*}")
	scontrol reconfigure
	sleep "0.$((RANDOM % 10))"
done
deadline=$((SECONDS + 240))
completed=0 lost=()
for j in "${submitted[@]}"; do
	left=$((deadline - SECONDS > 1 ? deadline - SECONDS : 1))
	if [ "$(tp_wait_job "$j" "$left")" = COMPLETED ]; then
		completed=$((completed + 1))
	else
		lost+=("$j:$(scontrol show job -o "$j" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')")
	fi
done
printf 'race: %-28s %5s %9s %6s %9s  %s\n' "$RACE_SELECT" "${#submitted[@]}" \
	"$completed" "${#lost[@]}" "$(grep -c 'Requeuing JobId' "$log")" "${lost[*]:--}"
