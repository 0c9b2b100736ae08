#!/bin/bash
# slurm_place.sh: topoplace's plugins end to end on a local Slurm cluster
# whose topology.conf comes from tools/topoplace-fattree (4 leaves x 4
# hosts), with real munge and a profile store signed by the submitting user.
#
#   (1) --placement=leaf gets one whole leaf; other jobs stay off it while
#       it runs (even where cons_tres could share its nodes core by core)
#   (2) under shared, an io_heavy and a comm_sensitive job never share a
#       leaf; two quiet jobs may
#   (3) a profiled job gets its rankfile; srun in the batch script runs each
#       rank on the node the mapping chose, which is not Slurm's block
#       order (so srun must have followed SLURM_HOSTFILE)
#   (5) bad inputs: corrupt profile, bad topoplace.conf on reconfigure,
#       missing fabric: jobs still run, one clear log line each
#   flags: every user flag is checked at submission by sbatch, salloc and
#       srun: our line naming it, then Slurm's generic one
#   the documented configuration: the bed runs README.md's TaskPlugin
#       (task/affinity,task/topoplace) and plugstack.conf lines, which
#       topoplace(7) gives too; task/affinity still binds CPUs
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || TP_SLURM_DOCUMENTED_TASK=1 tp_slurm_bed slurm_place \
	--conf "PartitionName=comm Nodes=ALL MaxTime=60 State=UP" \
	--conf "PartitionName=io Nodes=ALL MaxTime=60 State=UP"

tp_slurm_setup

# --- the documented configuration -------------------------------------------
# The same plugins; their order as given (22.05) or Slurm's own (24.11
# orders TaskPlugin itself and shows it so).
plugins_sorted() { sed 's/^TaskPlugin *= *//' | tr ',' '\n' | sort | paste -sd,; }
tp_check_eq "the bed runs README.md's TaskPlugin line" \
	"$(documented_line '^TaskPlugin=' | plugins_sorted)" \
	"$(scontrol show config | grep '^TaskPlugin ' | plugins_sorted)"
tp_check_eq "topoplace(7) gives README.md's plugstack.conf line" \
	"$(documented_line '^(optional|required) /.*/spank_topoplace\.so$')" \
	"$(grep -m1 -E '^(optional|required) /.*/spank_topoplace\.so$' "$abs_top_srcdir/doc/topoplace.7")"
tp_check_eq "and the bed's plugstack.conf uses it" \
	"$(documented_line '^(optional|required) /.*/spank_topoplace\.so$' | cut -d' ' -f1) $abs_top_builddir/slurm-plugin/.libs/spank_topoplace.so" \
	"$(cat "$(scontrol show config | sed -n 's/^PlugStackConfig *= *//p')")"
tp_check_eq "task/topoplace gives tasks their flags under it" "leaf" \
	"$(tp_as_user "$user" timeout 60 srun -N1 --placement=leaf printenv TOPOPLACE_PLACEMENT)"
# shellcheck disable=SC2016 # expanded by the tasks' shell
tp_check_eq "task/affinity binds each task to the CPU asked for" \
	"0 Cpus_allowed_list: 1
1 Cpus_allowed_list: 0" \
	"$(tp_as_user "$user" timeout 60 srun -N1 -n2 --cpu-bind=map_cpu:1,0 \
		bash -c 'echo $SLURM_PROCID $(grep Cpus_allowed_list /proc/self/status)' | sort)"

# --- the store and a profile signed by the user -----------------------------
tp_slurm_profiles
tp_slurm_conf

# --- flags: checked at submission, one line each ----------------------------
# Our line names the flag, the value and what is accepted; Slurm itself then
# adds "Invalid --FLAG argument: VALUE" (plugstack.c, not ours to change):
# nothing else may be printed, by sbatch, salloc or srun, and no job is made.
jobs_before=$(scontrol show job -o | grep -c '^JobId=')
for cmd in sbatch salloc srun; do
	for bad in --comm-profile=../x --rank-remap=maybe --io-servers=0 \
		--io-throttle=fast --placement=leafs --comm-record=a/b; do
		if [ "$cmd" = sbatch ]; then
			err=$(sbatch "$bad" --wrap true 2>&1 >/dev/null </dev/null)
		else
			err=$(timeout 30 "$cmd" -N1 "$bad" true 2>&1 >/dev/null </dev/null)
		fi
		rc=$?
		flag=${bad%%=*} value=${bad#*=}
		tp_check "$cmd $bad is refused with one line naming the flag" \
			bash -c '[ "$1" -ne 0 ] && [ "$1" -ne 124 ] &&
				[ "$(wc -l <<<"$2")" = 2 ] &&
				first=$(head -1 <<<"$2") &&
				[[ $first == "$5: error: topoplace: $3: "*"$4"* ]] &&
				[ "$(tail -1 <<<"$2")" = "$5: error: Invalid $3 argument: $4" ]' _ \
			"$rc" "$err" "$flag" "$value" "$cmd"
	done
done
tp_check_eq "no job was made by a refused flag" "$jobs_before" \
	"$(scontrol show job -o | grep -c '^JobId=')"
tp_check "sbatch --help lists every flag" bash -c 'h=$(sbatch --help); for f in placement= comm-profile= comm-record rank-remap= io-servers= io-throttle=; do grep -q -- "--$f" <<<"$h" || exit 1; done'
tp_check_eq "the flags reach the batch script" \
	"shared hpcg 4 2000us off" \
	"$(srun -N1 --placement=shared --comm-profile=hpcg --io-servers=4 \
		--io-throttle=2ms --rank-remap=off bash -c \
		'echo $TOPOPLACE_PLACEMENT $TOPOPLACE_COMM_PROFILE $TOPOPLACE_IO_SERVERS $TOPOPLACE_IO_THROTTLE $TOPOPLACE_RANK_REMAP')"

# --- (1) a whole leaf, kept whole while the job runs ------------------------
# Jobs that checks need running sleep far longer than the checks take and
# are cancelled after them: under CI's load (distcheck beside other work)
# a 60 s leaf job ended before the 13-node job was tested against it.
a=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 600')
wait_state "$a" RUNNING 20
la=$(leaves_of_job "$a")
tp_check "leaf job $a runs on exactly one leaf ($la)" bash -c '[ $(wc -w <<<"$1") = 1 ]' _ "$la"
tp_check "slurmctld logged the leaf decision for $a" \
	grep -q "topoplace: JobId=$a: placement=leaf class=quiet allowed=" "$log"
tp_check "scontrol show job shows the placement" \
	bash -c "scontrol show job $a | grep -q 'SystemComment=topoplace: placement=leaf'"
c=$(sbatch --parsable -N 12 -o /dev/null --wrap 'sleep 300')
wait_state "$c" RUNNING 20
tp_check "a 12-node job runs, on the other three leaves only" \
	bash -c '! grep -qw -- "$1" <<<"$2" && [ $(wc -w <<<"$2") = 3 ]' _ "$la" "$(leaves_of_job "$c")"
scancel "$c"
# A whole-leaf job of 13 nodes needs all 4 leaves: it waits, and says why.
# (Tested first: behind another pending job in an overlapping partition
# Slurm's main scheduler would not test it at all.)
wl=$(sbatch --parsable -N 13 --placement=leaf -o /dev/null --wrap true)
tp_check "a 13-node leaf job waits and says why in its SystemComment" wait_for 20 \
	bash -c "scontrol show job $wl | grep -q 'SystemComment=topoplace: placement=leaf class=quiet waits: .*leaf policy needs 13 hosts'"
tp_check_eq "(it is pending)" PENDING "$(squeue -h -j "$wl" -o %T)"
# Where topoplace(7) sends users: squeue --json carries it too, while
# Slurm's own Reason is reset to Resources after every failed selection.
if serialized=$(squeue --json 2>&1); then
	tp_check "squeue --json shows the waiting reason as system_comment" \
		grep -q '"system_comment": "topoplace: placement=leaf class=quiet waits: ' <<<"$serialized"
elif grep -q 'unable to find plugin: serializer/json' <<<"$serialized"; then
	# The bed's lean 24.11 build has no json-c, so no --json at all.
	echo "# squeue --json: this Slurm was built without serializer/json: not checked"
else
	tp_fail "squeue --json" "$serialized"
fi
tp_check_eq "Slurm's Reason is its own: Resources" Resources \
	"$(squeue -h -j "$wl" -o %r)"
scancel "$wl"
tp_wait_job "$wl" 30 >/dev/null
# 13 nodes exist outside A's 3; one of them is A's held leftover, and
# cons_tres alone would also share A's nodes core by core.
b=$(sbatch --parsable -N 13 -o /dev/null --wrap 'hostname')
sleep 3
tp_check_eq "a 13-node job waits while the leaf job holds its leaf" PENDING \
	"$(squeue -h -j "$b" -o %T)"
scancel "$a"
tp_check_eq "the 13-node job runs once the leaf is free" COMPLETED "$(tp_wait_job "$b" 60)"

# --- (2) shared: classes kept apart, quiet jobs together ---------------------
# cons_tres alone would put the second 2-node job on the first one's leaf
# (the tightest fit).
io=$(tp_as_user "$user" sbatch --parsable -N 2 -J ioheavy --placement=shared \
	-o "$out/io-%j.out" -e "$out/io-%j.err" --wrap 'srun -N1 -n1 bash -c "echo \$TOPOPLACE_IO_WINDOW_US \$LD_PRELOAD"; sleep 60')
wait_state "$io" RUNNING 20
cs=$(tp_as_user "$user" sbatch --parsable -N 2 -J hpcg --placement=shared \
	-o /dev/null --wrap 'sleep 60')
wait_state "$cs" RUNNING 20
tp_check "slurmctld classed $io io_heavy from its profile" \
	grep -q "topoplace: JobId=$io: placement=shared class=io_heavy" "$log"
tp_check "slurmctld classed $cs comm_sensitive from its profile" \
	grep -q "topoplace: JobId=$cs: placement=shared class=comm_sensitive" "$log"
lio=$(leaves_of_job "$io") lcs=$(leaves_of_job "$cs")
tp_check "the io_heavy ($lio) and comm_sensitive ($lcs) jobs share no leaf" \
	leaves_disjoint "$lio" "$lcs"
tp_check "the io_heavy job's tasks are paced: window and pacing library" \
	bash -c 'read -r w lib <"$1" && [ "$w" -ge 1000 ] && [ "${lib##*/}" = libtopoplace_pacing.so ] && [ -f "$lib" ]' _ "$out/io-$io.out"
tp_check "slurmd logged the window with its reason" \
	bash -c "grep -h 'task/topoplace: JobId=$io: I/O throttle window' \"\$TP_BED_LOGDIR\"/slurmd*.log | grep -q threshold"
fx=$(sbatch --parsable -N1 --io-throttle=3ms -o "$out/fixed-%j.out" \
	--wrap 'srun bash -c "echo \$TOPOPLACE_IO_WINDOW_US"')
tp_wait_job "$fx" 60 >/dev/null
tp_check_eq "a fixed --io-throttle applies without a profile" 3000 \
	"$(cat "$out/fixed-$fx.out")"
scancel "$io" "$cs"
for j in $io $cs; do tp_wait_job "$j" 30 >/dev/null; done
q1=$(tp_as_user "$user" sbatch --parsable -N 2 -J quiet --placement=shared \
	-o /dev/null --wrap 'sleep 60')
wait_state "$q1" RUNNING 20
q2=$(tp_as_user "$user" sbatch --parsable -N 2 -J quiet --placement=shared \
	-o /dev/null --wrap 'sleep 60')
wait_state "$q2" RUNNING 20
tp_check_eq "two quiet jobs share a leaf" "$(leaves_of_job "$q1")" "$(leaves_of_job "$q2")"
scancel "$q1" "$q2"
for j in $q1 $q2; do tp_wait_job "$j" 30 >/dev/null; done

# --- per-partition policies from topoplace.conf ----------------------------
# Site default auto (no profile: off); the comm partition puts every job on
# whole leaves; the io partition shares leaves and paces with a longer
# minimum window than the site's.
cp "$etc/topoplace.conf" "$out/site.conf"
cat >>"$etc/topoplace.conf" <<CONF
PartitionName=comm DefaultPlacement=leaf
PartitionName=io DefaultPlacement=shared ThrottleMinWindow=7ms
CONF
tp_check "the per-partition policies are loaded" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"
pc=$(sbatch --parsable -p comm -N 1 -o /dev/null --wrap true)
pd=$(sbatch --parsable -N 1 -o /dev/null --wrap true)
pi=$(tp_as_user "$user" sbatch --parsable -p io -N 1 -J ioheavy --rank-remap=off \
	-o "$out/pio-%j.out" --wrap 'srun bash -c "echo \$TOPOPLACE_IO_WINDOW_US"')
for j in $pc $pd $pi; do tp_wait_job "$j" 60 >/dev/null; done
tp_check "a flagless job in partition comm is placed on whole leaves" \
	grep -q "topoplace: JobId=$pc placement=auto nodes=.* policy=leaf " "$log"
tp_check "the same job in the default partition is not (no profile: off)" \
	grep -q "topoplace: JobId=$pd placement=auto nodes=.* policy=off " "$log"
tp_check "an io_heavy job in partition io shares leaves by class" \
	grep -q "topoplace: JobId=$pi placement=auto nodes=.* policy=shared class=io_heavy" "$log"
tp_check_eq "and is paced with the partition's minimum window" 7000 \
	"$(cat "$out/pio-$pi.out")"
cp "$out/site.conf" "$etc/topoplace.conf"
tp_check "the site policies are back" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"

# --- site-wide I/O servers (IoServerHosts) ---------------------------------
# n0016 serves the site's I/O.  With n0013 busy, leaf004 (n0014-n0016) is
# the tightest fit for a 3-node job, where cons_tres alone would put it; a
# comm_sensitive job must not share a leaf with the I/O server.
echo "IoServerHosts=n0016" >>"$etc/topoplace.conf"
tp_check "IoServerHosts is loaded" \
	reconfigure_and_wait "topoplace: reconfigure: 1 site-wide I/O servers (IoServerHosts)"
busy=$(sbatch --parsable -N 1 -w n0013 --placement=off -o /dev/null --wrap 'sleep 60')
wait_state "$busy" RUNNING 20
srv=$(tp_as_user "$user" sbatch --parsable -N 3 -J hpcg --placement=shared \
	-o /dev/null --wrap 'sleep 300')
wait_state "$srv" RUNNING 30
lsrv=$(leaves_of_job "$srv")
tp_check "a comm_sensitive job keeps off the I/O server's leaf leaf004 (it got $lsrv)" \
	leaves_disjoint "$lsrv" leaf004
scancel "$busy" "$srv"
for j in $busy $srv; do tp_wait_job "$j" 30 >/dev/null; done
cp "$out/site.conf" "$etc/topoplace.conf"
tp_check "the site policies are back (no I/O servers)" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"

# --- DebugFlags: nothing extra without them --------------------------------
# Every job so far was decided, looked up, remapped or throttled without
# DebugFlags: none of their lines may be there.
tp_check_eq "no DebugFlags lines without DebugFlags" 0 \
	"$(cat "$log" "$TP_BED_LOGDIR"/slurmd*.log |
		grep -c "topoplace: \(Fabric\|Placement\|Profile\|Remap\|Throttle\|Budget\): ")"
echo "DebugFlags=Fabric,Placement,Profile,Remap,Throttle" >>"$etc/topoplace.conf"
tp_check "DebugFlags=Fabric logs the model at reconfigure" \
	reconfigure_and_wait "topoplace: Fabric: reconfigure: leaf leaf004 in pod [^ ]*: 4 hosts n\[0013-0016\]"
tp_check_eq "(one line per leaf)" 4 \
	"$(grep -c "topoplace: Fabric: reconfigure: leaf leaf00[1-4] in pod .*: 4 hosts n\[" "$log")"
tp_check "(and where Slurm's nodes are)" \
	grep -q "topoplace: Fabric: reconfigure: 16 Slurm nodes, 16 on the fabric; not on it: none" "$log"

# --- (3) the profiled job's rankfile drives srun ----------------------------
# HPCG's 16 ranks on 4 nodes: block order (ranks 0-3 on the first node...)
# is not the best mapping even on one leaf (ranks on one node talk for
# free), so the remapped hostfile differs from what srun would do alone.
j=$(tp_as_user "$user" sbatch --parsable -N 4 -n 16 -J hpcg \
	-o "$out/remap-%j.out" --wrap \
	'cp $SLURM_HOSTFILE hostfile.$SLURM_JOB_ID; echo RANKFILE=$TOPOPLACE_RANKFILE; stat -c "%U %a" $(dirname $TOPOPLACE_RANKFILE); echo MACHINEFILE=$TOPOPLACE_MACHINEFILE; [ -f "$TOPOPLACE_MACHINEFILE" ] && cp $TOPOPLACE_MACHINEFILE machinefile.$SLURM_JOB_ID; echo DISTRIBUTION=$SLURM_DISTRIBUTION; echo NODELIST=$SLURM_JOB_NODELIST; srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME" | sort -n')
tp_check_eq "profiled job $j completes" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check "its batch script saw TOPOPLACE_RANKFILE" grep -q "^RANKFILE=/.*/topoplace.$j/rankfile" "$out/remap-$j.out"
tp_check_eq "the job's directory is the user's, mode 700" "$user 700" \
	"$(sed -n '2p' "$out/remap-$j.out")"
tp_check "its batch script saw TOPOPLACE_MACHINEFILE beside it" \
	grep -q "^MACHINEFILE=/.*/topoplace.$j/machinefile$" "$out/remap-$j.out"
tp_check_eq "the machinefile holds host:count lines, runs of the hostfile" \
	"$(uniq -c "$out/hostfile.$j" | awk '{print $2 ":" $1}')" \
	"$(cat "$out/machinefile.$j" 2>&1)"
tp_check_eq "and SLURM_DISTRIBUTION=arbitrary" "DISTRIBUTION=arbitrary" \
	"$(grep '^DISTRIBUTION=' "$out/remap-$j.out")"
tp_check_eq "srun ran 16 ranks" 16 "$(grep -c '^[0-9]* n' "$out/remap-$j.out")"
tp_check_eq "each rank ran on the node the mapping chose" \
	"$(nl -v0 -w1 -s' ' "$out/hostfile.$j")" \
	"$(grep '^[0-9]* n' "$out/remap-$j.out")"
# Slurm's own layout of -N 4 -n 16: block, 4 consecutive ranks a node in
# node list order.  Had srun ignored SLURM_HOSTFILE, the ranks would be here.
block=$(scontrol show hostnames "$(sed -n 's/^NODELIST=//p' "$out/remap-$j.out")" |
	awk '{for (i = 0; i < 4; i++) print}')
tp_check_eq "(block order has 16 slots)" 16 "$(grep -c . <<<"$block")"
tp_check "the mapping is not Slurm's block order" \
	bash -c '[ "$1" != "$(cat "$2")" ]' _ "$block" "$out/hostfile.$j"
hop=$(grep -h "task/topoplace: JobId=$j: profile $user/hpcg: 16 ranks" "$TP_BED_LOGDIR"/slurmd*.log |
	sed -n 's/.*hop-bytes \([0-9]*\) (block order: \([0-9]*\)).*/\1 \2/p')
tp_check "its hop-bytes are below block order's ($hop)" \
	bash -c 'read -r h b <<<"$1" && [ -n "$b" ] && [ "$h" -lt "$b" ]' _ "$hop"
tp_check "slurmd logged the remapping with hop-bytes" \
	bash -c "grep -h 'task/topoplace: JobId=$j: profile $user/hpcg: 16 ranks' \"\$TP_BED_LOGDIR\"/slurmd*.log | grep -q hop-bytes"
tp_check "the job directory is removed when the job ends" \
	bash -c '[ ! -e "$1" ]' _ "/run/topoplace-bed/jobs/topoplace.$j"
tp_check "slurmctld placed the profiled job with its class" \
	grep -q "topoplace: JobId=$j placement=auto nodes=.* policy=shared class=" "$log"
# DebugFlags for the same job: slurmctld's lookup and decision, slurmd's
# profile, fabric, mapping (one line per node, as the hostfile says) and
# throttle decision.
tp_check "DebugFlags=Profile: slurmctld queued the job's lookup" \
	grep -q "topoplace: Profile: JobId=$j: lookup of $user/hpcg (job name) queued in $store" "$log"
tp_check "DebugFlags=Profile: and logged its answer with the class" \
	grep -q "topoplace: Profile: JobId=$j: $user/hpcg read in [0-9]* us, answer after [0-9]* us: class comm_sensitive: " "$log"
tp_check "DebugFlags=Placement: the policy and where it came from" \
	grep -q "topoplace: Placement: JobId=$j: policy=shared from --placement=auto, DefaultPlacement=auto (partition debug), a profile" "$log"
tp_check "DebugFlags=Placement: the decision and its reason" \
	grep -q "topoplace: Placement: JobId=$j: placement=shared class=comm_sensitive allowed=[0-9]* hosts on leaves .*(cons_tres may choose from [0-9]* nodes)" "$log"
tp_check "DebugFlags=Profile in slurmd: the profile read for the job" \
	grep -q "task/topoplace: Profile: JobId=$j: $user/hpcg read from $store (its summary): 16 ranks" "$TP_BED_LOGDIR"/slurmd*.log
tp_check "DebugFlags=Fabric in slurmd: the fabric loaded for the job" \
	grep -q "task/topoplace: Fabric: JobId=$j: fabric of 16 hosts, 4 leaves" "$TP_BED_LOGDIR"/slurmd*.log
tp_check "DebugFlags=Remap: hop-bytes of block order and the chosen mapping, the search (RemapSearch=auto by default)" \
	grep -q "task/topoplace: Remap: JobId=$j: 16 ranks: block order [0-9]* hop-bytes, .*: chosen .*; search auto, [0-9]* partitions$" "$TP_BED_LOGDIR"/slurmd*.log
tp_check_eq "DebugFlags=Remap: each node's ranks, as in the hostfile" \
	"$(for n in $(sort -u "$out/hostfile.$j"); do
		echo "$n: $(grep -c -x "$n" "$out/hostfile.$j") ranks: $(grep -n -x "$n" "$out/hostfile.$j" | cut -d: -f1 | awk '{print $1 - 1}' | paste -sd,)"
	done)" \
	"$(grep -h "task/topoplace: Remap: JobId=$j: n[0-9]*: " "$TP_BED_LOGDIR"/slurmd*.log | sed 's/.*Remap: JobId=[0-9]*: //' | sort)"
tp_check "DebugFlags=Throttle: why the job gets no window" \
	grep -q "task/topoplace: Throttle: JobId=$j: no I/O in a profile and no --io-throttle window: not throttled" "$TP_BED_LOGDIR"/slurmd*.log
cp "$out/site.conf" "$etc/topoplace.conf"
tp_check "the site policies are back (no DebugFlags)" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"

# --- (5) errors: one line each, jobs still run ------------------------------
# a corrupt profile
f=$(ls "$store/$user/hpcg/"*.tpp | tail -1)
printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
j=$(tp_as_user "$user" sbatch --parsable -N 2 -J hpcg -o /dev/null --wrap true)
tp_check_eq "a job with a corrupt profile still runs" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "one log line for it, naming job and file" 1 \
	"$(grep -c "topoplace: JobId=$j: profile: .*$f.*placed by plain cons_tres" "$log")"
# an unreadable store: the user's namespace is not the user's any more
chown root "$store/$user"
j=$(tp_as_user "$user" sbatch --parsable -N 2 -J quiet -o /dev/null --wrap true)
tp_check_eq "a job whose store namespace is refused still runs" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "one log line for it, naming job and store path" 1 \
	"$(grep -c "topoplace: JobId=$j: profile: .*$store/$user.*placed by plain cons_tres" "$log")"
chown "$user" "$store/$user"
# a bad topoplace.conf on reconfigure: the previous one stays
cp "$etc/topoplace.conf" "$out/good.conf"
echo "DefaultPlacment=leaf" >>"$etc/topoplace.conf"
line=$(wc -l <"$etc/topoplace.conf")
tp_check "a bad topoplace.conf is reported with file, line and key" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: line $line: DefaultPlacment"
tp_check "and the previous configuration is kept" \
	grep -q "topoplace: reconfigure: keeping the previous configuration and fabric" "$log"
j=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 1')
tp_check_eq "jobs are still placed with the previous fabric" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check "(the leaf decision was made)" grep -q "topoplace: JobId=$j: placement=leaf" "$log"
# 24.11 re-executes slurmctld on reconfigure, so what it keeps is the copy
# of the last good file in StateSaveLocation.  That copy corrupt, then
# gone: one error naming it, jobs run under plain cons_tres, slurmctld up.
case $(sinfo --version) in
*" 24.11."*)
	copy=$TP_BED_DIR/state/topoplace.conf.last-good
	tp_check_eq "the kept copy is in StateSaveLocation, mode 600" 600 \
		"$(stat -c %a "$copy" 2>&1)"
	echo "DefaultPlacement=nowhere" >"$copy"
	tp_check "a corrupt copy: one error names the copy, its line and key" \
		reconfigure_and_wait "topoplace: reconfigure: no previous configuration to keep: $copy: .*line 1: DefaultPlacement"
	j=$(sbatch --parsable -N 2 --placement=leaf -o /dev/null --wrap true)
	tp_check_eq "a job asking for leaves runs" COMPLETED "$(tp_wait_job "$j" 60)"
	tp_check_eq "under plain cons_tres, one line saying why" 1 \
		"$(grep -c "topoplace: JobId=$j: placement=leaf: no topoplace.conf loaded" "$log")"
	rm -f "$copy"
	tp_check "a missing copy: one error says there is none" \
		reconfigure_and_wait "topoplace: reconfigure: no previous configuration to keep: $copy: no last good copy"
	tp_check "slurmctld still answers" scontrol ping
	cp "$out/good.conf" "$etc/topoplace.conf"
	tp_check "the fixed file is loaded" \
		reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"
	tp_check "and kept again as the last good copy" cmp -s "$etc/topoplace.conf" "$copy"
	;;
esac
# a missing fabric
cp "$out/good.conf" "$etc/topoplace.conf"
sed -i 's/^FabricSource=.*/FabricSource=cache\nFabricCache=\/nonexistent\/fabric.cache/' "$etc/topoplace.conf"
tp_check "a missing fabric cache is one clear line" \
	reconfigure_and_wait "topoplace: reconfigure: fabric: .*/nonexistent/fabric.cache"
j=$(sbatch --parsable -N 2 --placement=leaf -o /dev/null --wrap true)
tp_check_eq "jobs still run with the fabric missing" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check "slurmctld still answers" scontrol ping
tp_done
