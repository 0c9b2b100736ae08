#!/bin/bash
# slurm_record.sh: --comm-record end to end (issue 7, test 4).  A real MPI
# program (tests/integration/mpi_patterns.c, Open MPI) launched by srun in a
# batch job of the unprivileged user tpalice, with task/topoplace preloading
# libtopoplace_profiler.so, leaves a verified profile in tpalice's namespace
# of the store, signed by tpalice; tpbob can neither use it nor overwrite
# it; and the next job under that name is placed and remapped from it.
#
# The profiler is the one the build made and `make install` ships
# (profiles/.libs/libtopoplace_profiler.so: no RPATH, it needs only libmpi
# and libmunge), preloaded from where it was built: TOPOPLACE_LIBDIR is a
# search path, so it names profiles/.libs and throttle/.libs directly.  The
# test users must be able to read the build tree (tp_as_user checks it:
# a clone under a private home cannot run this test).
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	tp_record_bed_prepare --mpi mpi_patterns --hosts-per-leaf 4
	tp_record_bed_run slurm_record --conf "TmpFS=/run/topoplace-bed/jobs" \
		--conf "MpiDefault=pmix"
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice bob=tpbob
for u in $alice $bob; do
	id -u "$u" >/dev/null 2>&1 || tp_skip "user $u does not exist"
done
work=$TP_RECORD_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
tp=$abs_top_builddir/tools/topoplace
sock=$TP_BED_DIR/munge/munge.socket
store=$TP_BED_DIR/store
log=$TP_BED_SLURMCTLD_LOG
mkdir -p "$store" && chmod 755 "$store"
install -d -o "$alice" -m 755 "$store/$alice"
install -d -o "$bob" -m 755 "$store/$bob"
printf 'FabricSource=topology\nProfileStore=%s\n' "$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

profiler=$abs_top_builddir/profiles/.libs/libtopoplace_profiler.so
tp_check "$alice can read the built profiler ($profiler)" \
	tp_as_user "$alice" test -r "$profiler"

# One node: the bed's slurmd all share this host's TmpFS, where mpi/pmix
# makes one directory per step and node (two nodes would collide).
mpienv='export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1'
# Each task first says which profiler it has mapped, then execs the program
# (LD_PRELOAD carries over).
# shellcheck disable=SC2016 # expanded by the task's shell
task='grep -o "/[^ ]*libtopoplace_profiler[^ ]*" /proc/$$/maps | sort -u >"$1/rec-maps.$SLURM_PROCID"; exec "$2" ring'
j=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J ring --comm-record \
	-o "$out/rec-%j.out" --wrap "$mpienv; srun bash -c '$task' _ $out $work/mpi_patterns")
tp_check_eq "the recorded job $j completes" COMPLETED "$(tp_wait_job "$j" 120)"
tp_check_eq "each of its 4 tasks ran with the built profiler preloaded" \
	"$(printf '%s\n' "$profiler" "$profiler" "$profiler" "$profiler")" \
	"$(cat "$out"/rec-maps.[0-3] 2>/dev/null)"
tp_check "the run left one profile in $alice/ring" \
	bash -c '[ $(ls "$1"/*.tpp 2>/dev/null | wc -l) = 1 ]' _ "$store/$alice/ring"
f=$(ls "$store/$alice/ring/"*.tpp 2>/dev/null | head -1)
tp_check_eq "the profile file is $alice's" "$alice" "$(stat -c %U "$f" 2>/dev/null)"
tp_check "it verifies: signed by $alice for $alice/ring" \
	"$tp" profile verify --store "$store" --munge-socket "$sock" "$alice/ring"
tp_check_eq "it has the 4 ranks of the run" 4 \
	"$("$tp" profile show --store "$store" --munge-socket "$sock" "$alice/ring" | sed -n 's/^ranks: *\([0-9]*\).*/\1/p')"
# tpbob: the profile is not his to use, nor to overwrite.
bj=$(tp_as_user "$bob" sbatch --parsable -N 2 -J ring --comm-profile=ring \
	-o /dev/null --wrap true)
tp_wait_job "$bj" 60 >/dev/null
tp_check "$bob's job naming ring finds no profile of his" \
	grep -q "topoplace: JobId=$bj: --comm-profile=ring: .*$bob" "$log"
cp "$f" "$out/alice-ring.tpp" && chmod 644 "$out/alice-ring.tpp"
err=$(tp_as_user "$bob" "$tp" profile put --store "$store" --munge-socket "$sock" \
	"$out/alice-ring.tpp" "$alice/ring" 2>&1)
tp_check "$bob cannot overwrite $alice/ring (refused: $err)" \
	bash -c '[ -n "$1" ] && [ -f "$2" ]' _ "$err" "$f"
tp_check "$alice/ring still holds exactly the one run" \
	bash -c '[ $(ls "$1"/*.tpp | wc -l) = 1 ]' _ "$store/$alice/ring"
# The next job under that name is placed and remapped from the profile.
j2=$(tp_as_user "$alice" sbatch --parsable -N 2 -n 4 -J ring -o /dev/null \
	--wrap 'echo $TOPOPLACE_RANKFILE')
tp_check_eq "the next ring job completes" COMPLETED "$(tp_wait_job "$j2" 60)"
tp_check "it was placed with the recorded profile's class" \
	grep -q "topoplace: JobId=$j2 placement=auto .* policy=shared" "$log"
tp_check "and its ranks were remapped from it" \
	bash -c "grep -qh 'task/topoplace: JobId=$j2: profile $alice/ring: 4 ranks' \"\$TP_BED_LOGDIR\"/slurmd*.log"
tp_done
