#!/bin/bash
# slurm_store_full.sh: the profile store's file system fills up while a
# job records.  A real MPI program (tests/integration/mpi_patterns.c, Open
# MPI) of tpalice, launched by srun in a batch job with --comm-record,
# under task/topoplace, with the store on a 1 MiB tmpfs (mounted in the
# bed's mount namespace) that a filler file has left full:
#   - the job completes (a recording that cannot be stored never fails
#     the user's job) and its output says once why nothing was stored;
#   - nothing is left half written: no run, no summary, no temporary file
#     in the namespace, so later readers see no broken run;
#   - once space is freed, the next recorded job of the same name stores
#     one run that verifies, and a job naming it is remapped from it.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	tp_record_bed_prepare --mpi mpi_patterns
	tp_record_bed_run slurm_store_full --conf "TmpFS=/run/topoplace-bed/jobs" \
		--conf "MpiDefault=pmix"
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice
id -u "$alice" >/dev/null 2>&1 || tp_skip "user $alice does not exist"
work=$TP_RECORD_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
tp=$abs_top_builddir/tools/topoplace
sock=$TP_BED_DIR/munge/munge.socket
store=$TP_BED_DIR/store
mkdir -p "$store"
# Inside the bed's mount namespace: gone with the bed.
mount -t tmpfs -o size=1m,mode=0755 tp-store-full "$store" ||
	tp_fail "a 1 MiB tmpfs mounts on $store"
install -d -o "$alice" -m 755 "$store/$alice"
printf 'FabricSource=topology\nProfileStore=%s\n' "$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

mpienv='export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1'
# record ID: a 1-node, 4-rank job of tpalice recording as "ring"; its id.
record() {
	tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J ring --comm-record \
		-o "$out/full-$1-%j.out" --wrap "$mpienv; srun $work/mpi_patterns ring 40"
}
leftovers() { find "$store/$alice" -mindepth 1 ! -type d 2>/dev/null | sed "s|$store/||"; }

dd if=/dev/zero of="$store/filler" bs=4k 2>/dev/null
tp_check_eq "the store's file system is full" 0 \
	"$(df --output=avail -B1 "$store" | tail -1 | tr -d ' ')"
j=$(record a)
tp_check_eq "the recorded job $j completes although the store is full" \
	COMPLETED "$(tp_wait_job "$j" 120)"
tp_check_eq "its output says once that the profile was not stored, and why" 1 \
	"$(grep -c "No space left on device" "$out/full-a-$j.out")"
grep "No space left on device" "$out/full-a-$j.out" | sed 's/^/# /'
tp_check_eq "nothing is left in the namespace: no run, summary or temporary file" \
	"" "$(leftovers)"

rm -f "$store/filler"
j2=$(record b)
tp_check_eq "with space again, the next recorded job $j2 completes" \
	COMPLETED "$(tp_wait_job "$j2" 120)"
tp_check "it stored one run in $alice/ring" \
	bash -c '[ $(ls "$1"/*.tpp 2>/dev/null | wc -l) = 1 ]' _ "$store/$alice/ring"
tp_check "which verifies" \
	"$tp" profile verify --store "$store" --munge-socket "$sock" "$alice/ring"
j3=$(tp_as_user "$alice" sbatch --parsable -N 2 -n 4 -J ring -o /dev/null \
	--wrap 'echo $TOPOPLACE_RANKFILE')
tp_check_eq "a job named ring after it completes" COMPLETED "$(tp_wait_job "$j3" 60)"
tp_check "and is remapped from the stored run" \
	bash -c "grep -qh 'task/topoplace: JobId=$j3: profile $alice/ring: 4 ranks' \"\$TP_BED_LOGDIR\"/slurmd*.log"
tp_done
