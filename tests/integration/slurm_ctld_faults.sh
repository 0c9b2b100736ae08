#!/bin/bash
# slurm_ctld_faults.sh: what slurmctld's select plugin does with bad
# configuration and what users see of it (issue 14, items 3 and 6), on the
# tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts).
#
#   (1) --comm-profile=nosuch: the job runs, and its SystemComment says the
#       profile was not found (not only slurmctld's log);
#   (2) a job that waits for its policy says why in its SystemComment, in
#       whole clauses: the log line's reason, or a prefix of it cut after a
#       clause and marked so;
#   (3) `scontrol reconfigure` with a typo in topoplace.conf: one error
#       line without DebugFlags, the previous configuration stays (a leaf
#       job is still placed and held); Slurm's own reconfigures (partition
#       update) do not repeat it; the fixed file loads;
#   (4) a fabric none of whose hosts is a Slurm node (x[001-008]) at start:
#       one error line without DebugFlags, and jobs asking for a leaf or
#       with a profile run at once under plain cons_tres, saying so in
#       their SystemComment.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_ctld_faults --timeout 400

tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf


# --- (1) a profile named but not there -----------------------------------------
j=$(tp_as_user "$user" sbatch --parsable -N 1 --comm-profile=nosuch \
	-o /dev/null --wrap true)
tp_check_eq "a job naming a missing profile runs" COMPLETED "$(tp_wait_job "$j" 30)"
tp_check_eq "its SystemComment says the profile was not found" \
	"topoplace: placement=off class=quiet: profile $user/nosuch not found" \
	"$(system_comment "$j")"

# --- (2) a waiting job says why, in whole clauses ------------------------------
a=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING 30
before=$(wc -l <"$log")
wl=$(sbatch --parsable -N 13 --placement=leaf -o /dev/null --wrap true)
tp_check "a 13-node leaf job waits and its SystemComment says so" wait_for 20 \
	bash -c "scontrol show job $wl | grep -q 'SystemComment=topoplace: placement=leaf class=quiet waits: '"
full=$(since "$before" | sed -n "s/.*topoplace: JobId=$wl: placement=leaf class=quiet: waits: //p" | head -1)
shown=$(system_comment "$wl")
shown=${shown#topoplace: placement=leaf class=quiet waits: }
cut=" (cut; the rest is in the log)"
whole_clauses() { # SHOWN FULL
	[ -n "$2" ] || return 1
	[ "$1" = "$2" ] && return 0
	[[ $1 == *"$cut" ]] || return 1
	[[ $2 == "${1%"$cut"}"[\;:,]" "* ]]
}
tp_check "the reason shown (${#shown} bytes) is the logged one (${#full} bytes) or ends after a whole clause" \
	whole_clauses "$shown" "$full"
scancel "$wl"
tp_wait_job "$wl" 30 >/dev/null

# --- (3) a reconfigure with a bad topoplace.conf ---------------------------------
cp "$etc/topoplace.conf" "$out/topoplace.conf.good"
echo "PartitionName=debug DefaultPlacement=sideways" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
before=$(wc -l <"$log")
tp_check "scontrol reconfigure with a bad value leaves an error in the log" \
	reconfigure_and_wait "error: topoplace: reconfigure: $etc/topoplace.conf: line $bad_line: "
tp_check "and says the previous configuration stays" \
	bash -c 'grep -q "error: topoplace: reconfigure: keeping the previous configuration and fabric" <<<"$1"' \
	_ "$(since "$before")"
l=$(sbatch --parsable -N 1 --placement=leaf -o /dev/null --wrap 'sleep 60')
wait_state "$l" RUNNING 30
tp_check "a new leaf job is still placed and held by the previous configuration" \
	bash -c '[[ $1 == "topoplace: placement=leaf class=quiet held="* ]]' _ "$(system_comment "$l")"
tp_check "a partition update (Slurm reconfigures its select plugin)" \
	scontrol update PartitionName=debug MaxTime=50
sleep 1
tp_check_eq "does not repeat the error" 1 \
	"$(since "$before" | grep -c "topoplace: reconfigure: $etc/topoplace.conf: line $bad_line")"
cp "$out/topoplace.conf.good" "$etc/topoplace.conf"
tp_check "the fixed file loads on the next reconfigure" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
scancel "$a" "$l"
for x in $a $l; do tp_wait_job "$x" 30 >/dev/null; done

# --- (4) a fabric of hosts that are no Slurm nodes --------------------------------
cat >"$etc/x-topology.conf" <<TOPO
SwitchName=xleaf1 Nodes=x[001-004]
SwitchName=xleaf2 Nodes=x[005-008]
SwitchName=xroot Switches=xleaf[1-2]
TOPO
echo "TopologyConf=$etc/x-topology.conf" >>"$etc/topoplace.conf"
before=$(wc -l <"$log")
tp_check "slurmctld restarts with a fabric of x[001-008]" tp_restart_slurmctld
nousable="topoplace: nodes: fabric: none of its 8 hosts (x001, ...) is a Slurm node (n0001, ...): no usable fabric: jobs are placed by plain cons_tres"
tp_check_eq "one error line says there is no usable fabric" 1 \
	"$(since "$before" | grep -cF "error: $nousable")"
t0=$SECONDS
l=$(sbatch --parsable -N 2 --placement=leaf -o /dev/null --wrap true)
p=$(tp_as_user "$user" sbatch --parsable -N 2 -J hpcg -o /dev/null --wrap true)
tp_check_eq "a job asking for a leaf runs under plain cons_tres" COMPLETED \
	"$(tp_wait_job "$l" 30)"
tp_check_eq "a job with a profile runs under plain cons_tres" COMPLETED \
	"$(tp_wait_job "$p" 30)"
tp_check "both within 15 s (took $((SECONDS - t0)) s)" test $((SECONDS - t0)) -le 15
for x in $l $p; do
	tp_check_eq "job $x says why in its SystemComment" \
		"topoplace: placement=off class=quiet: no usable fabric: placed by Slurm's default" \
		"$(system_comment "$x")"
done
scontrol update PartitionName=debug MaxTime=60
sleep 1
tp_check_eq "the error is still said once" 1 \
	"$(since "$before" | grep -cF "$nousable")"
tp_check "slurmctld still answers" scontrol ping
tp_done
