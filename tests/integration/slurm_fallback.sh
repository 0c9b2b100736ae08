#!/bin/bash
# slurm_fallback.sh: select/topoplace_cons_tres never stalls slurmctld and
# never breaks a promise when it falls back (issue 7), on the tp-bed
# cluster of slurm_place.sh (4 leaves x 4 hosts).
#
#   (1) profiles are read off slurmctld's locks: with the lookup thread
#       held in a debugger (a store or munged that does not answer),
#       slurmctld keeps answering and starting other jobs; the profiled
#       job waits, then after ProfileLookupTimeout runs under plain
#       cons_tres with one log line; once the thread runs again, profiles
#       are used as before;
#   (2) a job that falls back (a corrupt profile) still keeps off the leaf
#       a running whole-leaf job holds;
#   (3) nodes required with -w outside what the placement allows: the job
#       runs where the user asked, with one log line (not pending forever);
#   (4) a partition update reconfigures Slurm but does not re-read an
#       unchanged topoplace.conf and fabric;
#   (5) a smaller fabric on reconfigure while a whole-leaf job runs: its
#       leaf stays held, slurmctld stays up;
#   (6) a decision that runs out of its DecisionBudget: the job runs under
#       plain cons_tres, one log line with its id says the budget was
#       spent, slurmctld stays up;
#   (7) slurmctld started with its fabric missing: a job asking for a
#       placement runs under plain cons_tres, one log line naming it.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_fallback --timeout 400

command -v gdb >/dev/null || tp_skip "gdb is not installed"
tp_slurm_setup
tp_slurm_profiles
tp_slurm_conf
echo "ProfileLookupTimeout=4s" >>"$etc/topoplace.conf"
tp_check "ProfileLookupTimeout is loaded" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"


# --- (1) the lookup thread held: slurmctld goes on -------------------------
pid=$(cat "$TP_BED_DIR/run/slurmctld.pid")
fifo=$out/gdb.in
mkfifo "$fifo"
# gdb in non-stop mode stops only the thread that reaches the breakpoint
# (the lookup thread, in the reader); the others run on.  It reads its
# commands from the FIFO, so it keeps handling slurmctld's threads while
# it waits for the next one.
gdb -q -nx -iex 'set non-stop on' -iex 'set pagination off' \
	-iex 'set confirm off' -p "$pid" <"$fifo" >"$out/gdb.log" 2>&1 &
gdb_pid=$!
exec 7>"$fifo"
printf 'break tp_sc_lookup_read\n' >&7
# Attaching stops every thread, each but the first reported on its own
# ("[New LWP n]", later "Thread k ... stopped."): resume them all only once
# all have stopped (one not yet reported would stay stopped).
all_stopped() { # GDB_LOG
	local threads stopped
	threads=$(grep -c '^\[New LWP' "$1")
	stopped=$(grep -c '^Thread [0-9]* .* stopped\.$' "$1")
	grep -q '^Breakpoint 1 at' "$1" && ((stopped >= threads))
}
for ((i = 0; i < 150; i++)); do
	all_stopped "$out/gdb.log" && break
	sleep 0.2
done
tp_check "gdb holds slurmctld, a breakpoint in the lookup's reader" \
	all_stopped "$out/gdb.log"
printf 'continue -a &\n' >&7
for ((i = 0; i < 50; i++)); do
	grep -q '^Continuing\.' "$out/gdb.log" && break
	sleep 0.2
done
tp_check "slurmctld runs on under gdb" timeout 5 scontrol ping

before=$(wc -l <"$log")
held=$(tp_as_user "$user" sbatch --parsable -N 1 -J hpcg --placement=leaf \
	-o /dev/null --wrap true)
for ((i = 0; i < 50; i++)); do
	grep -q 'hit Breakpoint 1' "$out/gdb.log" && break
	sleep 0.2
done
tp_check "the job's lookup reached the reader (now held)" \
	grep -q 'hit Breakpoint 1' "$out/gdb.log"
t0=$(date +%s%N)
tp_check "slurmctld answers while the lookup is held" timeout 5 squeue -h -j "$held"
t1=$(date +%s%N)
tp_check "within a second" test $(((t1 - t0) / 1000000)) -lt 1000
tp_check_eq "the profiled job waits for its lookup" PENDING \
	"$(squeue -h -j "$held" -o %T)"
off=$(sbatch --parsable -N 1 --placement=off -o /dev/null --wrap true)
tp_check_eq "a job that needs no profile runs meanwhile" COMPLETED \
	"$(tp_wait_job "$off" 30)"
tp_check_eq "after ProfileLookupTimeout the held job runs under cons_tres" \
	COMPLETED "$(tp_wait_job "$held" 60)"
tp_check_eq "with one log line naming job, profile and the timeout" 1 \
	"$(since "$before" | grep -c "topoplace: JobId=$held: profile $user/hpcg: no answer from the store after 4.0 s (ProfileLookupTimeout): placed by plain cons_tres")"
printf 'delete\ndetach\nquit\n' >&7
exec 7>&-
wait "$gdb_pid"
tp_check "gdb let the thread go" grep -q 'Detaching from' "$out/gdb.log"

before=$(wc -l <"$log")
j=$(tp_as_user "$user" sbatch --parsable -N 2 -J ioheavy --placement=shared \
	-o /dev/null --wrap true)
tp_check_eq "released, the lookup thread serves the next job" COMPLETED \
	"$(tp_wait_job "$j" 60)"
tp_check "which is classed from its profile" \
	bash -c 'grep -q "topoplace: JobId=$1 placement=shared nodes=.* policy=shared class=io_heavy" <<<"$2"' \
	_ "$j" "$(since "$before")"

# --- (2) a fallback job keeps off a held leaf -------------------------------
a=$(sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING 30
la=$(leaves_of_job "$a")
# A profile that cannot be read: its bytes changed after signing.
mkdir -p "$out/corrupt"
cp "$out/quiet.tpp" "$out/corrupt/c.tpp"
tp_check "$user stores profile corrupt" tp_as_user "$user" "$tp" profile put \
	--store "$store" --munge-socket "$sock" "$out/corrupt/c.tpp" "$user/corrupt"
f=$(ls "$store/$user/corrupt/"*.tpp | tail -1)
printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
before=$(wc -l <"$log")
# 1 node: cons_tres alone takes the tightest fit, the held leaf's free node.
b=$(tp_as_user "$user" sbatch --parsable -N 1 --comm-profile=corrupt \
	--placement=leaf -o /dev/null --wrap 'sleep 30')
wait_state "$b" RUNNING 30
tp_check_eq "the corrupt-profile job runs" RUNNING "$(squeue -h -j "$b" -o %T)"
tp_check "one log line names it and the file" \
	bash -c '[ "$(grep -c "topoplace: JobId=$1: profile: .*$2.*placed by plain cons_tres" <<<"$3")" = 1 ]' \
	_ "$b" "$f" "$(since "$before")"
lb=$(leaves_of_job "$b")
tp_check "but not on the leaf the whole-leaf job holds ($la; it got $lb)" \
	test "$lb" != "$la"
scancel "$b"
tp_wait_job "$b" 30 >/dev/null

# --- (3) required nodes outside the allowed set -----------------------------
# pack allows one leaf for 2 nodes; -w names nodes of two leaves.
free=()
for l in leaf001 leaf002 leaf003 leaf004; do
	[ "$l" = "$la" ] && continue
	free+=("$(scontrol show hostnames "$(sed -n "s/^SwitchName=$l Nodes=\([^ ]*\).*/\1/p" "$etc/topology.conf")" | head -1)")
done
before=$(wc -l <"$log")
w=$(sbatch --parsable -N 2 -w "${free[0]},${free[1]}" --placement=pack \
	-o /dev/null --wrap true)
tp_check_eq "a -w job across leaves under pack runs" COMPLETED "$(tp_wait_job "$w" 60)"
wnodes=$(since "$before" | sed -n "s/.*topoplace: JobId=$w placement=pack nodes=\([^ ]*\) .*/\1/p")
tp_check_eq "on the nodes it required" "${free[0]},${free[1]}" \
	"$(scontrol show hostnames "$wnodes" | paste -sd,)"
tp_check_eq "with one log line saying why" 1 \
	"$(since "$before" | grep -c "topoplace: JobId=$w: placement=pack: the required nodes (-w) are not among the hosts the placement allows: placed by plain cons_tres")"

# --- (4) a partition update does not reload an unchanged model --------------
loads=$(grep -c "topoplace: reconfigure: $etc/topoplace.conf: fabric of" "$log")
tp_check "a partition update is accepted" \
	scontrol update PartitionName=debug MaxTime=50
sleep 2
tp_check_eq "a partition update does not re-read topoplace.conf and the fabric" "$loads" \
	"$(grep -c "topoplace: reconfigure: $etc/topoplace.conf: fabric of" "$log")"
scontrol reconfigure
sleep 2
# 22.05 reconfigures in the same process and keeps an unchanged model;
# 24.11 re-executes slurmctld, whose new image reads everything once.
case $(sinfo --version) in
*" 24.11."*) want=$((loads + 1)) how="read once by the re-executed slurmctld (24.11)" ;;
*) want=$loads how="not re-read" ;;
esac
tp_check_eq "scontrol reconfigure: an unchanged topoplace.conf and fabric are $how" "$want" \
	"$(grep -c "topoplace: reconfigure: $etc/topoplace.conf: fabric of" "$log")"

# --- (5) a smaller fabric while a whole-leaf job runs -----------------------
# Keep only the leaf job's leaf and one other: the hosts' indices change.
keep=$(for l in leaf001 leaf002 leaf003 leaf004; do
	[ "$l" = "$la" ] || { echo "$l"; break; }
done)
grep -E "^SwitchName=($la|$keep) " "$etc/topology.conf" >"$etc/topology.small.conf"
echo "SwitchName=spine001 Switches=$la,$keep" >>"$etc/topology.small.conf"
echo "TopologyConf=$etc/topology.small.conf" >>"$etc/topoplace.conf"
tp_check "a smaller fabric is loaded on reconfigure" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 8 hosts, 2 leaves"
tp_check "slurmctld still answers" scontrol ping
c=$(sbatch --parsable -N 1 --placement=pack -o /dev/null --wrap 'sleep 30')
wait_state "$c" RUNNING 30
tp_check "a new job keeps off the held leaf $la (it got $(leaves_of_job "$c"))" \
	bash -c '[ "$(leaves_of_job "$1")" != "$2" ]' _ "$c" "$la"
scancel "$a" "$c"
for j in $a $c; do tp_wait_job "$j" 30 >/dev/null; done
sed -i "/^TopologyConf=/d" "$etc/topoplace.conf"

# --- (6) the decision runs out of its time budget ----------------------------
# The smallest budget (1 us) over a fabric of 5,184 hosts (ours among them;
# the rest are no Slurm node): one decision over that many hosts takes about
# 10 us at best (bench/RESULTS.md, alloc_bench), so it cannot fit, however
# fast the machine.  On the 16-host fabric it might.
"$abs_top_builddir/tools/topoplace-fattree" --leaves 288 --hosts-per-leaf 18 \
	--pods 16 --spines 9 --cores 18 --format slurm -o "$etc/topology.big.conf" ||
	tp_fail "topoplace-fattree writes a 5,184-host topology"
# The bed's own DecisionBudget line goes (a key given twice is an error).
cp "$etc/topoplace.conf" "$out/topoplace.conf.before-budget"
sed -i '/^DecisionBudget=/d' "$etc/topoplace.conf"
printf 'TopologyConf=%s\nDecisionBudget=1us\n' "$etc/topology.big.conf" >>"$etc/topoplace.conf"
tp_check "DecisionBudget=1us and a 5,184-host fabric are loaded" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 5184 hosts"
before=$(wc -l <"$log")
j=$(sbatch --parsable -N 2 --placement=pack -o /dev/null --wrap true)
tp_check_eq "a job whose decision overruns its budget runs" COMPLETED \
	"$(tp_wait_job "$j" 60)"
tp_check_eq "one log line with its id says the budget was spent" 1 \
	"$(since "$before" | grep -c "topoplace: JobId=$j: .*budget")"
tp_check "(that line: the budget, no opinion, plain cons_tres)" \
	bash -c 'grep -q "topoplace: JobId=$1: allocation for job $1 (pack, 2 nodes): time budget of 1 us spent: no opinion: placed by plain cons_tres" <<<"$2"' \
	_ "$j" "$(since "$before")"
tp_check "the job started under plain cons_tres" \
	bash -c 'grep -q "topoplace: JobId=$1 placement=pack nodes=.* policy=off " <<<"$2"' \
	_ "$j" "$(since "$before")"
tp_check "slurmctld still answers" scontrol ping
cp "$out/topoplace.conf.before-budget" "$etc/topoplace.conf"
tp_check "the 16-host fabric and the bed's budget are back" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts"

# --- (7) slurmctld starts with its fabric missing ---------------------------
sed -i 's|^FabricSource=.*|FabricSource=cache\nFabricCache=/nonexistent/fabric.cache|' "$etc/topoplace.conf"
before=$(wc -l <"$log")
tp_check "slurmctld restarts with the fabric cache missing" tp_restart_slurmctld
tp_check "the missing cache is one clear line at start" \
	bash -c 'grep -q "topoplace: init: fabric: .*/nonexistent/fabric.cache.*placed by plain cons_tres" <<<"$1"' \
	_ "$(since "$before")"
j=$(sbatch --parsable -N 2 --placement=leaf -o /dev/null --wrap true)
tp_check_eq "a job asking for whole leaves still runs" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "with one line naming it" 1 \
	"$(since "$before" | grep -c "topoplace: JobId=$j: placement=leaf: no fabric model")"
tp_done
