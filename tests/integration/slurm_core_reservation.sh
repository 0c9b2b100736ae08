#!/bin/bash
# slurm_core_reservation.sh: reservations by CoreCnt beside
# select/topoplace_cons_tres (issue #17), on the tp-bed cluster of
# slurm_place.sh.  The wrapper's plugin id is its own (two select plugins
# with one id make every Slurm command fatal), so:
#   - Slurm 22.05: scontrol refuses CoreCnt (its state_control tests the
#     select plugin's id), with Slurm's own message; nothing is created and
#     slurmctld answers (the documented difference, topoplace(7));
#   - Slurm 24.11: slurmctld asks the select plugin (forwarded to
#     cons_tres), so the reservation is made; a job in it runs on its node,
#     a job that would need the reserved cores waits for them.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_core_reservation --timeout 240

tp_slurm_setup
mkdir -p "$store" && chmod 755 "$store"
tp_check "slurmctld loads topoplace.conf" tp_site_conf

out=$(scontrol create reservation ReservationName=cores StartTime=now \
	Duration=10 Users=root Nodes=n0016 CoreCnt=2 2>&1)
rc=$?
case $(slurmctld -V) in
*" 22.05."*)
	tp_check_eq "22.05: CoreCnt is refused" 1 "$rc"
	tp_check "... with Slurm's own message" \
		grep -q "CoreCnt or CPUCnt is only supported when SelectType includes select/cons_res" <<<"$out"
	tp_check_eq "... and nothing is created" "" \
		"$(scontrol -o show reservation 2>/dev/null | grep ReservationName=cores)"
	;;
*)
	tp_check_eq "24.11: the CoreCnt reservation is made ($out)" 0 "$rc"
	tp_check "... of 2 cores on n0016" \
		grep -q "Nodes=n0016 NodeCnt=1 CoreCnt=2" <<<"$(scontrol -o show reservation cores)"
	in=$(sbatch --parsable --reservation=cores -n 2 -o /dev/null --wrap 'sleep 60')
	tp_check "a 2-task job in the reservation runs" wait_state "$in" RUNNING 30
	tp_check_eq "... on its node" n0016 "$(squeue -h -j "$in" -o %N)"
	out4=$(sbatch --parsable -N 1 -w n0016 -n 4 -o /dev/null --wrap 'sleep 60')
	sleep 3
	tp_check_eq "a 1-node 4-task job outside it on n0016 waits for the reserved cores" \
		PENDING "$(squeue -h -j "$out4" -o %T)"
	scancel "$in" "$out4"
	scontrol delete reservation cores
	;;
esac
tp_check "slurmctld still answers" scontrol ping
tp_done
