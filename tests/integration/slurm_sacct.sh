#!/bin/bash
# slurm_sacct.sh: topoplace's decision stays visible after the job ends
# (issue #14, "Users see why"): on the tp-bed cluster of slurm_place.sh with
# accounting (slurmdbd over the bed's own MariaDB server, tp-bed
# --accounting), what `scontrol show job` said in SystemComment while the
# job ran is what `sacct` says once slurmctld has forgotten the job:
#   - a whole-leaf job (--placement=leaf) submitted by an ordinary user;
#   - a job of that user classed from its profile (-J ioheavy);
#   - a job whose --comm-profile names no profile: its SystemComment
#     carries a reason, and sacct has the same text.
# And sacct as that user shows the user's own jobs' decisions.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_sacct --accounting --timeout 300

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf

tp_check_eq "the bed runs with accounting" 1 "${TP_BED_ACCOUNTING:-0}"

# The SystemComment of a job as scontrol shows it (empty if none).
comment_of() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/^ *SystemComment=//p' | sed 's/[[:space:]]*$//'
}
# The SystemComment of a job as sacct shows it, asked as USER (-P: no
# padding or truncation of the field).
sacct_comment() {
	tp_as_user "$2" sacct -n -X -P -j "$1" -o SystemComment 2>&1 | sed 's/[[:space:]]*$//'
}

leaf=$(tp_as_user "$user" sbatch --parsable -N 3 --placement=leaf -o /dev/null \
	--wrap 'sleep 3')
io=$(tp_as_user "$user" sbatch --parsable -N 2 -J ioheavy --placement=shared \
	-o /dev/null --wrap 'sleep 3')
nosuch=$(tp_as_user "$user" sbatch --parsable -N 1 --comm-profile=nosuch \
	-o /dev/null --wrap 'sleep 3')
for j in $leaf $io $nosuch; do
	wait_state "$j" RUNNING 30 || tp_fail "job $j runs" "$(squeue -h -j "$j" -o '%T %r')"
done
c_leaf=$(comment_of "$leaf") c_io=$(comment_of "$io") c_nosuch=$(comment_of "$nosuch")
tp_check "the leaf job's SystemComment says leaf ($c_leaf)" \
	bash -c '[[ $1 == "topoplace: placement=leaf "* ]]' _ "$c_leaf"
tp_check "the io_heavy job's SystemComment says its class came from its profile ($c_io)" \
	bash -c '[[ $1 == "topoplace: placement=shared class=io_heavy (profile)"* ]]' _ "$c_io"
tp_check "the --comm-profile=nosuch job says why in its SystemComment ($c_nosuch)" \
	bash -c '[[ $1 == "topoplace: placement=off class=quiet: profile $2/nosuch not found" ]]' _ "$c_nosuch" "$user"

for j in $leaf $io $nosuch; do
	tp_check_eq "job $j completes" COMPLETED "$(tp_wait_job "$j" 60)"
done

# slurmctld sends the job's end to slurmdbd asynchronously: wait for it.
sacct_done() {
	[[ $(sacct -n -X -P -j "$1" -o State 2>/dev/null) == COMPLETED ]]
}
for j in $leaf $io $nosuch; do
	wait_for 30 sacct_done "$j" || tp_fail "sacct knows job $j ended" \
		"$(sacct -n -X -P -j "$j" -o JobID,State 2>&1)"
done

# sacct reads slurmdbd's database, never slurmctld's memory: what it shows
# is what stays after slurmctld forgets the job (MinJobAge).  topoplace
# writes the comment from a worker thread after the job's end, retrying for
# about a minute while the job's record is not in the database yet.
sacct_has() {
	[[ $(sacct_comment "$1" root) == "$2" ]]
}
for j in $leaf $io $nosuch; do
	wait_for 75 sacct_has "$j" "$(comment_of "$j")" || true
done
tp_check_eq "sacct shows the leaf job's decision, as its owner" "$c_leaf" \
	"$(sacct_comment "$leaf" "$user")"
tp_check_eq "sacct shows the io_heavy job's decision, as its owner" "$c_io" \
	"$(sacct_comment "$io" "$user")"
tp_check_eq "sacct shows the --comm-profile=nosuch job's reason, as its owner" \
	"$c_nosuch" "$(sacct_comment "$nosuch" "$user")"
tp_check_eq "root's sacct shows the same" "$c_leaf" \
	"$(sacct -n -X -P -j "$leaf" -o SystemComment 2>&1)"
tp_check "slurmctld still answers" scontrol ping
tp_done
