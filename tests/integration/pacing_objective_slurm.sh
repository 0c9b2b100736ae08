#!/bin/bash
# The site objective through the real daemons: ThrottleObjective in
# topoplace.conf and a version 2 threshold table (with its measured curve)
# reach slurmd's task plugin through tp_config_throttle_policy, and an
# I/O-heavy srun step gets the window the objective picks on the curve, the
# pacing library, and one slurmd log line naming the objective.
#   - ThrottleObjective=mpi_slowdown<=1.1: the smallest measured window
#     whose victim slowdown is within 1.1x (8 ms on the table below);
#   - ThrottleObjective=io_cost<=20%: the measured window within +20% I/O
#     time with the lowest victim latency (4 ms);
#   - the same table with no objective: the threshold rule (2 ms).
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed pacing_objective_slurm --timeout 300

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf
pacing=$abs_top_builddir/throttle/.libs/libtopoplace_pacing.so

# The ioheavy profile's group (1 MiB x 4 clients), now with its curve:
# unthrottled the clients start a request only every 3.5 ms (the servers'
# pace); the victim is 3x its no-I/O latency, 1.15x at 4 ms (measured
# +16% I/O time), 1.05x at 8 ms (+129%).
cat >"$etc/io-thresholds.csv" <<CSV
# topoplace-thresholds v2 (hand-made for this test)
request_bytes,clients,threshold_us,plateau_us,confidence,window_us,io_interval_us,victim_mean_x,victim_p99_x
1048576,4,2000,100,1,0,3500,3.0,20.0
1048576,4,2000,100,1,2000,3500,2.5,15.0
1048576,4,2000,100,1,4000,4060,1.15,2.0
1048576,4,2000,100,1,8000,8020,1.05,1.2
CSV
cp "$etc/topoplace.conf" "$out/base.conf"

# A task that prints its window and LD_PRELOAD.
# shellcheck disable=SC2016
show='echo "${TOPOPLACE_IO_WINDOW_US:-none} ${LD_PRELOAD:-none}"'
# step_with OBJECTIVE NAME: an I/O-heavy srun under ThrottleObjective
# (site-wide, first line; "" for none); prints the tasks' unique window line.
step_with() {
	if [[ -n $1 ]]; then
		{ echo "ThrottleObjective=$1"; cat "$out/base.conf"; } >"$etc/topoplace.conf"
	else
		cp "$out/base.conf" "$etc/topoplace.conf"
	fi
	tp_as_user "$user" timeout 60 srun -N4 -n4 -J "$2" --comm-profile=ioheavy \
		bash -c "$show" >"$out/$2.out" 2>"$out/$2.err"
	sort -u "$out/$2.out"
}
# log_lines PATTERN: slurmd log lines matching PATTERN.
log_lines() { cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -- "$1"; }

got=$(step_with 'mpi_slowdown<=1.1' slowdown)
tp_check_eq "mpi_slowdown<=1.1: the tasks get 8 ms and the pacing library" \
	"8000 $pacing" "$got"
tp_check "slurmd says the objective set it" \
	test "$(log_lines "I/O throttle window 8000 us: window 8 ms set by the objective mpi_slowdown<=1.1")" -ge 1

got=$(step_with 'io_cost<=20%' cost)
tp_check_eq "io_cost<=20%: the tasks get 4 ms" "4000 $pacing" "$got"
tp_check "slurmd says the objective set it" \
	test "$(log_lines "I/O throttle window 4000 us: window 4 ms set by the objective io_cost<=20%")" -ge 1

got=$(step_with '' none)
tp_check_eq "no objective: the threshold rule (2 ms)" "2000 $pacing" "$got"

cp "$out/base.conf" "$etc/topoplace.conf"
tp_done
