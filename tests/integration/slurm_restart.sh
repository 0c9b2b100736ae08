#!/bin/bash
# slurm_restart.sh: the select plugin's decisions survive a slurmctld
# restart (issue 7), on the tp-bed cluster of slurm_place.sh (4 leaves x 4
# hosts).
#
# A whole-leaf job, an io_heavy job (classed from its profile) and a job
# under --placement=off are running; slurmctld is shut down and started
# again (as tp-bed starts it, but without -c, so it recovers its state).
# Then:
#   - the log says each running job's decision was recovered from its
#     SystemComment (the leaf job's leaf policy, the io_heavy class);
#   - a communication-sensitive job still keeps off the io_heavy job's
#     leaves (cons_tres alone would take the tightest fit: that leaf);
#   - a job that would need a node of the leaf job's leaf waits.
#
# Then the same with a topoplace.conf that does not parse at the restart
# (issue 14, item 3): the whole-leaf job's SystemComment names the nodes
# it holds, so the hold is recovered without any configuration:
#   - one error names the bad line at start; new jobs run under plain
#     cons_tres and say why in their SystemComment;
#   - a 1-node job (cons_tres alone would take the held leaf's free node,
#     the tightest fit) lands elsewhere; a 13-node job waits;
#   - the file fixed and `scontrol reconfigure`d: the hold is still right;
#   - the leaf job ends: the hold is released, the waiting job runs.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_restart --timeout 500

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf

# --- three running jobs -----------------------------------------------------
a=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 240')
io=$(tp_as_user "$user" sbatch --parsable -N 2 -J ioheavy --placement=shared \
	-o /dev/null --wrap 'sleep 240')
wait_state "$a" RUNNING 30 && wait_state "$io" RUNNING 30
la=$(leaves_of_job "$a") lio=$(leaves_of_job "$io")
tp_check "the leaf job $a runs on one leaf ($la)" \
	bash -c '[ "$(wc -w <<<"$1")" = 1 ]' _ "$la"
tp_check "the io_heavy job $io was classed from its profile" \
	bash -c "scontrol show job $io | grep -q 'SystemComment=topoplace: placement=shared class=io_heavy (profile)'"
# One node of a leaf neither job uses, so that the io_heavy job's leaf is
# the tightest fit left for a 2-node job.
other=$(for l in leaf001 leaf002 leaf003 leaf004; do
	grep -qw "$l" <<<"$la $lio" || { echo "$l"; break; }
done)
onode=$(scontrol show hostnames "$(sed -n "s/^SwitchName=$other Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf")" | head -1)
f=$(sbatch --parsable -N 1 -w "$onode" --placement=off -o /dev/null --wrap 'sleep 240')
wait_state "$f" RUNNING 30

# --- restart -------------------------------------------------------------------
before=$(wc -l <"$log")
tp_check "slurmctld restarts with its saved state" tp_restart_slurmctld
after() { tail -n +"$((before + 1))" "$log"; }
tp_check_eq "the three jobs still run" "RUNNING RUNNING RUNNING" \
	"$(for j in $a $io $f; do squeue -h -j "$j" -o %T; done | xargs)"
tp_check "the log says the leaf job's decision was recovered" \
	bash -c 'grep -q "topoplace: JobId=$1: recovered placement=leaf class=quiet from its SystemComment" <<<"$2"' _ "$a" "$(after)"
tp_check "the log says the io_heavy job's class was recovered" \
	bash -c 'grep -q "topoplace: JobId=$1: recovered placement=shared class=io_heavy (profile) from its SystemComment" <<<"$2"' _ "$io" "$(after)"
tp_check "the log says the off job's decision was recovered" \
	bash -c 'grep -q "topoplace: JobId=$1: recovered placement=off class=quiet from its SystemComment" <<<"$2"' _ "$f" "$(after)"
tp_check_eq "no running job was re-classed quiet by default" 0 \
	"$(after | grep -c "topoplace: JobId=\($a\|$io\): .*class=quiet from its flags")"

# --- the decisions still hold ---------------------------------------------------
cs=$(tp_as_user "$user" sbatch --parsable -N 2 -J hpcg --placement=shared \
	-o /dev/null --wrap 'sleep 60')
wait_state "$cs" RUNNING 30
lcs=$(leaves_of_job "$cs")
tp_check "slurmctld classed the new job $cs comm_sensitive" \
	grep -q "topoplace: JobId=$cs: placement=shared class=comm_sensitive" "$log"
tp_check "it keeps off the io_heavy job's leaves ($lio) and the leaf job's ($la): $lcs" \
	bash -c '[ -n "$1" ] && for l in $1; do grep -qw -- "$l" <<<"$2 $3" && exit 1; done; exit 0' _ "$lcs" "$lio" "$la"
scancel "$cs"
tp_wait_job "$cs" 30 >/dev/null
# 12 nodes lie outside the leaf job's leaf; cons_tres alone would also
# use the held node there and share the leaf job's nodes core by core.
b=$(sbatch --parsable -N 13 -o /dev/null --wrap hostname)
# Poll until the scheduler has tried it (reason Resources) or started it.
for ((i = 0; i < 100; i++)); do
	st=$(squeue -h -j "$b" -o '%T %r')
	[ "$st" != "PENDING None" ] && [ "$st" != "PENDING Priority" ] && break
	sleep 0.2
done
tp_check_eq "a 13-node job waits while the leaf job holds its leaf" \
	"PENDING Resources" "$(squeue -h -j "$b" -o '%T %r')"
scancel "$a"
tp_check_eq "and runs once the leaf job ends" COMPLETED "$(tp_wait_job "$b" 60)"
tp_check "slurmctld still answers" scontrol ping
scancel "$io" "$f"
for j in $io $f $b; do tp_wait_job "$j" 60 >/dev/null; done

# --- a restart with a broken topoplace.conf keeps the holds -----------------
a=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 240')
wait_state "$a" RUNNING 30
la=$(leaves_of_job "$a")
leaf_nodes=$(sed -n "s/^SwitchName=$la Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf")
tp_check_eq "the leaf job $a records its whole leaf $la as held" \
	"topoplace: placement=leaf class=quiet held=$leaf_nodes" "$(system_comment "$a")"
cp "$etc/topoplace.conf" "$out/topoplace.conf.good"
echo "DefaultPlacment=leaf" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
before=$(wc -l <"$log")
tp_check "slurmctld restarts with a typo in topoplace.conf" tp_restart_slurmctld
tp_check_eq "one error at start names the file, line and key" 1 \
	"$(since "$before" | grep -c "error: topoplace: init: $etc/topoplace.conf: line $bad_line: .*DefaultPlacment.*unknown key")"
tp_check_eq "and it is the only line about it" 1 \
	"$(since "$before" | grep -c "DefaultPlacment")"
tp_check "the hold is recovered from the SystemComment alone" \
	bash -c 'grep -qF "topoplace: JobId=$1: recovered placement=leaf class=quiet from its SystemComment, holding $2" <<<"$3"' \
	_ "$a" "$leaf_nodes" "$(since "$before")"
n=$(sbatch --parsable -N 1 --placement=leaf -o /dev/null --wrap 'sleep 120')
wait_state "$n" RUNNING 30
tp_check_eq "a new job asking for a leaf runs under plain cons_tres" RUNNING \
	"$(squeue -h -j "$n" -o %T)"
tp_check_eq "and its SystemComment says why" \
	"topoplace: placement=off class=quiet: topoplace.conf not loaded: placed by Slurm's default" \
	"$(system_comment "$n")"
ln=$(leaves_of_job "$n")
tp_check "but not on the held leaf $la (it got $ln)" test "$ln" != "$la"
b=$(sbatch --parsable -N 13 -o /dev/null --wrap hostname)
for ((i = 0; i < 100; i++)); do
	st=$(squeue -h -j "$b" -o '%T %r')
	[ "$st" != "PENDING None" ] && [ "$st" != "PENDING Priority" ] && break
	sleep 0.2
done
tp_check_eq "a 13-node job waits: it would need the held leaf" \
	"PENDING Resources" "$(squeue -h -j "$b" -o '%T %r')"
scancel "$n"
tp_wait_job "$n" 30 >/dev/null

cp "$out/topoplace.conf.good" "$etc/topoplace.conf"
tp_check "the fixed file is loaded on reconfigure" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
c=$(sbatch --parsable -N 1 --placement=pack -o /dev/null --wrap 'sleep 120')
wait_state "$c" RUNNING 30
lc=$(leaves_of_job "$c")
tp_check "a job placed by the policy again keeps off the held leaf $la (it got $lc)" \
	test "$lc" != "$la"
tp_check_eq "the 13-node job still waits" PENDING "$(squeue -h -j "$b" -o %T)"
scancel "$c"
tp_wait_job "$c" 30 >/dev/null
scancel "$a"
tp_check_eq "the leaf job ends: its hold is released and the 13-node job runs" \
	COMPLETED "$(tp_wait_job "$b" 60)"
tp_check "slurmctld still answers" scontrol ping
tp_done
