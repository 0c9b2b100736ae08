#!/bin/bash
# slurm_valgrind.sh: select/topoplace_cons_tres runs clean under valgrind
# memcheck inside slurmctld (issue 7, test 6, the short run).
#
# slurmctld runs under memcheck (tp-bed --ctld-wrapper) on a 4 leaves x 4
# hosts bed.  A few dozen jobs cover the plugin's paths: every placement
# (leaf, shared, pack, spread, off, auto and a per-partition default),
# profiled jobs of each class, a named profile that is missing, an array, a
# leaf job that has to wait, a cancelled job, a corrupt profile, a bad
# topoplace.conf and a missing fabric cache on `scontrol reconfigure`, and a
# return to the good configuration.  Then slurmctld is shut down cleanly so
# memcheck's leak check runs.  The test fails if memcheck reports any error
# or definite leak with a frame in our code (the plugins' .so files, or a
# source file under this tree, libtopoplace included; so a finding inside
# cons_tres reached through the wrapper's forwarding fails too, until it is
# shown to be Slurm's and suppressed with its reason), or if slurmctld did
# not finish under memcheck.  Slurm's own findings are printed, not failed:
# tests/lib/slurmctld.supp suppresses the known ones.  Leaks other than
# definite are ignored: Slurm's xmalloc hands out pointers past a size
# header, so every xmalloc'ed block looks "possibly lost".  slurmctld does not
# load SPANK plugins (it only reads the job's SPANK environment); the SPANK
# plugin and the select plugin's client side are checked the same way in
# sbatch and squeue run under memcheck.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
# The bed, the test's variables, the store's profiles and the wait helpers
# are those of the other Slurm tests.
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
if [ "${1:-}" != --inside ]; then
	tp_require_bed
	command -v valgrind >/dev/null || tp_skip "valgrind not installed"
	command -v python3 >/dev/null || tp_skip "python3 not installed"
	# The bed's log directory (tmpfs, kept with --keep on failure).  Only
	# the XML report is read; keep-debuginfo: the names of a plugin's
	# frames survive its dlclose.
	vglog=/run/topoplace-bed/log
	vg="valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all"
	vg+=" --errors-for-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes"
	vg+=" --child-silent-after-fork=yes --gen-suppressions=all -v --vgdb=no"
	vg+=" --suppressions=$abs_top_srcdir/tests/lib/slurmctld.supp"
	# One report per process (%p): 24.11's slurmctld re-executes itself
	# on `scontrol reconfigure` (same process id) and executes itself again
	# as slurmscriptd.  Memcheck follows those images only with
	# --trace-children; without it the re-executed slurmctld ran natively
	# and the report stopped mid-file.
	case $("${TP_BED_SLURM_PREFIX:-/usr}/sbin/slurmctld" -V 2>/dev/null) in
	*" 24.11."*) vg+=" --trace-children=yes" ;;
	esac
	vg+=" --log-file=$vglog/valgrind.slurmctld.%p.log --xml=yes"
	vg+=" --xml-file=$vglog/valgrind.slurmctld.%p.xml"
	# memcheck slows slurmctld 20-50x: generous RPC and start timeouts,
	# a backfill pass every 5 s rather than every second, and finished
	# jobs kept an hour (on a loaded host the waves took longer than the
	# bed's 300 s and the first jobs were forgotten before the count).
	tp_slurm_bed slurm_valgrind --ctld-wrapper "$vg" \
		--conf "MessageTimeout=60" --conf "TCPTimeout=10" \
		--conf "MinJobAge=3600" \
		--conf "SlurmctldTimeout=300" --conf "BatchStartTimeout=120" \
		--conf "SchedulerParameters=sched_min_interval=0,bf_interval=5,batch_sched_delay=0" \
		--timeout 1200
fi

tp_slurm_setup
vglog=$TP_BED_LOGDIR
ctld_pid=$(cat "$TP_BED_DIR/run/slurmctld.pid")
ctld_xml=$vglog/valgrind.slurmctld.$ctld_pid.xml
ctld_vglog=$vglog/valgrind.slurmctld.$ctld_pid.log
reexec=no
case $(sinfo --version) in *" 24.11."*) reexec=yes ;; esac
jobs=()   # every job submitted; all must finish
cancel='' # the one cancelled on purpose

# vg_report XML: memcheck's findings, one block per finding; exit 1 if one
# is an error or definite leak with a frame in our code.
# With --replaced, XML is the report of an image that execve() replaced: it
# has no closing element (memcheck writes one only at exit), so one is added.
vg_report() {
	local replaced=no
	[ "$1" = --replaced ] && { replaced=yes; shift; }
	python3 - "$1" "$abs_top_srcdir" "$replaced" <<'PY'
import sys, xml.etree.ElementTree as ET
path, src = sys.argv[1], sys.argv[2].rstrip('/') + '/'
ours_obj = ('select_topoplace_cons_tres', 'task_topoplace', 'spank_topoplace',
            'libtopoplace')
try:
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if sys.argv[3] == 'yes' and '</valgrindoutput>' not in text:
        text += '</valgrindoutput>\n'
    root = ET.fromstring(text)
except (OSError, ET.ParseError) as e:
    print(f'{path}: no complete memcheck report: {e}')
    sys.exit(1)
bad = other = 0
for err in root.iter('error'):
    kind = err.findtext('kind', '')
    if kind.startswith('Leak_') and kind != 'Leak_DefinitelyLost':
        continue  # indirect/possible/reachable: shown by their definite root
    frames = []
    for f in err.iter('frame'):
        d, fl = f.findtext('dir', ''), f.findtext('file', '')
        frames.append((f.findtext('obj', ''), f.findtext('fn', '?'),
                       f'{d}/{fl}:{f.findtext("line", "")}' if fl else ''))
    ours = any(any(o in obj for o in ours_obj) or loc.startswith(src)
               for obj, _, loc in frames)
    what = err.findtext('what') or err.findtext('xwhat/text') or kind
    if ours:
        bad += 1
    else:
        other += 1
    print(f'{"OURS" if ours else "slurm"}: {kind}: {what}')
    for obj, fn, loc in frames[:14]:
        print(f'    {fn} ({loc or obj})')
print(f'{bad} finding(s) in our code, {other} in Slurm only (not failed)')
sys.exit(1 if bad else 0)
PY
}
# The report can fail: a definite leak with one frame in our plugin (the
# shape memcheck writes) is caught, the same leak in Slurm alone is not.
fake_leak() { # OBJ
	cat <<XML
<?xml version="1.0"?>
<valgrindoutput><error><kind>Leak_DefinitelyLost</kind>
<xwhat><text>8 bytes in 1 blocks are definitely lost</text></xwhat>
<stack><frame><obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj><fn>malloc</fn></frame>
<frame><obj>$1</obj><fn>f</fn></frame>
<frame><obj>/usr/sbin/slurmctld-wlm</obj><fn>main</fn></frame></stack>
</error></valgrindoutput>
XML
}
fake_leak "$abs_top_builddir/slurm-plugin/.libs/select_topoplace_cons_tres.so" >"$vglog/fake-ours.xml"
fake_leak /usr/lib/x86_64-linux-gnu/slurm-wlm/libslurmfull.so >"$vglog/fake-slurm.xml"
fails() { ! "$@"; }
tp_check "the memcheck report fails on a leak in our plugin" fails vg_report "$vglog/fake-ours.xml"
tp_check "and not on one in Slurm alone" vg_report "$vglog/fake-slurm.xml"

# On 24.11 each reconfigure replaces slurmctld's image (the same process
# id): the report so far is kept as valgrind.slurmctld.PID.image-N.xml and
# the new image, started under memcheck again, writes its own.  Starting
# under memcheck takes a while: wait up to 5 minutes for its log line.
# (tp_check runs this in a subshell: the files count the images.)
vg_reconfigure_and_wait() { # PATTERN
	local n
	if [ "$reexec" = yes ]; then
		n=$(find "$vglog" -name "${ctld_xml##*/}" -prune -o -name "valgrind.slurmctld.$ctld_pid.image-*.xml" -print | wc -l)
		mv "$ctld_xml" "${ctld_xml%.xml}.image-$((n + 1)).xml" || return 1
	fi
	TP_RECONFIGURE_WAIT=300 reconfigure_and_wait "$1"
}

submit() { # sbatch ARGS...: submit, remember the job
	local j
	j=$(sbatch --parsable -o /dev/null "$@") || { tp_fail "sbatch $*"; return 1; }
	jobs+=("${j%%;*}")
	echo "${j%%;*}"
}
submit_as_user() {
	local j
	j=$(tp_as_user "$user" sbatch --parsable -o /dev/null "$@") ||
		{ tp_fail "sbatch $* (as $user)"; return 1; }
	jobs+=("${j%%;*}")
	echo "${j%%;*}"
}
# wait_all SECS: every submitted job reached a final state.
wait_all() {
	local j deadline=$((SECONDS + $1))
	for j in "${jobs[@]}"; do
		tp_wait_job "$j" $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)) >/dev/null || return 1
	done
}

# --- the store, profiles of each class, the configuration --------------------
tp_slurm_profiles
cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
ProfileStore=$store
DefaultPlacement=auto
DebugFlags=Budget
# Memcheck runs the core 20-50 times slower: the default 2 ms budget would
# send jobs to the fallback (tested end to end in slurm_fallback.sh (6),
# in the core in test_alloc), and the decisions would go untested here.
DecisionBudget=1s
# The 3-node leaf job must hold its whole leaf so that the 13-node one waits
# (the wait path under memcheck); LeafRemainder=compatible (the default)
# would put 3 hosts on a shared, unheld leaf.
LeafRemainder=whole
PartitionName=debug DefaultPlacement=pack
CONF
cp "$etc/topoplace.conf" "$out/good.conf"
tp_check "slurmctld (under memcheck) loads topoplace.conf and the fabric" \
	vg_reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"

# --- jobs over every placement path -------------------------------------------
long=$(submit -N 3 --placement=leaf --wrap 'sleep 600')
wait_state "$long" RUNNING 120 || tp_fail "leaf job $long starts under memcheck"
for p in leaf shared pack spread off auto; do
	for n in 1 2 3; do
		submit -N $n --placement=$p --wrap 'sleep 1' >/dev/null
	done
done
submit -N 2 --wrap true >/dev/null # the partition's default (pack)
# An array (its tasks are checked at the end, not by tp_wait_job).
array=$(sbatch --parsable -o /dev/null --array=0-3 -N 2 --placement=leaf --wrap 'sleep 1')
for n in ioheavy hpcg quiet; do
	submit_as_user -N 2 -J "$n" --placement=shared --wrap 'sleep 1' >/dev/null
done
submit_as_user -N 4 -J other --comm-profile=hpcg --wrap true >/dev/null
submit_as_user -N 1 --comm-profile=nosuch --wrap true >/dev/null
# Needs all four leaves: waits while the long leaf job holds one.
big=$(submit -N 13 --placement=leaf --wrap true)
only_long_and_big() {
	local deadline=$((SECONDS + $1))
	while (($(squeue -h -o %i | wc -l) > 2)) && ((SECONDS < deadline)); do sleep 1; done
	(($(squeue -h -o %i | wc -l) == 2))
}
tp_check "the first wave finishes under memcheck, but for two jobs" only_long_and_big 420
tp_check_eq "a 13-node leaf job waits while a leaf is held" PENDING "$(squeue -h -j "$big" -o %T)"
tp_check "the wait is logged" grep -q "topoplace: JobId=$big: placement=leaf class=quiet: waits:" "$log"
scancel "$long"
cancel=$long
tp_check "then it runs" wait_all 240

# --- error paths --------------------------------------------------------------
f=$(ls "$store/$user/hpcg/"*.tpp | tail -1)
printf 'garbage' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
j=$(submit_as_user -N 2 -J hpcg --wrap true)
tp_wait_job "$j" 180 >/dev/null
tp_check "a corrupt profile: one line, plain cons_tres" \
	grep -q "topoplace: JobId=$j: profile: .*$f.*placed by plain cons_tres" "$log"
echo "DefaultPlacment=leaf" >>"$etc/topoplace.conf"
tp_check "a bad topoplace.conf on reconfigure: reported, previous kept" \
	vg_reconfigure_and_wait "topoplace: reconfigure: keeping the previous configuration and fabric"
# Each job ends before the next reconfigure: Slurm itself (22.05, plain
# cons_tres too) requeues or strands a batch job whose launch meets
# `scontrol reconfigure` (seen here under load: a job RUNNING with no
# batch step and an agent thread that never returned).
j=$(submit -N 3 --placement=leaf --wrap true)
tp_wait_job "$j" 300 >/dev/null
sed 's/^FabricSource=.*/FabricSource=cache\nFabricCache=\/nonexistent\/fabric.cache/' \
	"$out/good.conf" >"$etc/topoplace.conf"
tp_check "a missing fabric cache on reconfigure: one line" \
	vg_reconfigure_and_wait "topoplace: reconfigure: fabric: .*/nonexistent/fabric.cache"
j=$(submit -N 2 --placement=leaf --wrap true)
tp_wait_job "$j" 300 >/dev/null
cp "$out/good.conf" "$etc/topoplace.conf"
tp_check "back to the good configuration" \
	vg_reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
submit -N 2 --placement=spread --wrap true >/dev/null
tp_check "the second wave finishes" wait_all 600

# --- every job done; the plugin did its work under memcheck -------------------
states=$(for j in "${jobs[@]}"; do
	s=$(tp_wait_job "$j" 1)
	[ "$j" = "$cancel" ] && [ "$s" = CANCELLED ] && s=COMPLETED
	echo "$s"
done | sort | uniq -c | xargs)
tp_check_eq "all ${#jobs[@]} jobs completed (the cancelled one cancelled)" \
	"${#jobs[@]} COMPLETED" "$states"
tp_check_eq "the array's 4 tasks completed" 4 \
	"$(scontrol show job -o "${array%%;*}" | grep -c 'JobState=COMPLETED')"
for what in "placement=leaf class=quiet allowed=" "placement=shared class=io_heavy" \
	"placement=shared class=comm_sensitive" "placement=spread class=" \
	"placement=pack class=" "job_test timing: topoplace"; do
	# (DebugFlags lines start "topoplace: <Flag>: ".)
	tp_check "slurmctld logged a decision: $what" grep -q "topoplace: \(Budget: \)\?JobId=[0-9_]*: $what" "$log"
done

# --- clients: SPANK and the select plugin's client side ------------------------
vgc=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
	--errors-for-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes
	--child-silent-after-fork=yes --gen-suppressions=all --vgdb=no
	"--suppressions=$abs_top_srcdir/tests/lib/slurmctld.supp" --xml=yes)
"${vgc[@]}" --xml-file="$vglog/valgrind.sbatch-bad.xml" \
	sbatch --placement=leafs --wrap true >/dev/null 2>&1
j=$("${vgc[@]}" --xml-file="$vglog/valgrind.sbatch.xml" \
	sbatch --parsable -o /dev/null -N 2 --placement=leaf --io-throttle=2ms --wrap true 2>/dev/null)
tp_check_eq "sbatch under memcheck submits a job that completes" COMPLETED \
	"$(tp_wait_job "${j%%;*}" 120)"
"${vgc[@]}" --xml-file="$vglog/valgrind.squeue.xml" squeue >/dev/null 2>&1
for c in sbatch-bad sbatch squeue; do
	tp_check "$c under memcheck: nothing in our code" vg_report "$vglog/valgrind.$c.xml"
done

# --- tp-bed's option this test and bench/slurm_jobtest_5k.sh rely on ---------
for bad in x -1 1.5; do
	tp_check "tp-bed refuses --slurmd-nodes $bad, naming the option" bash -c \
		'e=$("$1" --slurmd-nodes "$2" -- true 2>&1 >/dev/null); [ $? = 2 ] &&
		 [ "$(head -1 <<<"$e")" = "tp-bed: --slurmd-nodes must be a non-negative integer, not '"'"'$2'"'"'" ]' \
		_ "$abs_top_srcdir/tests/lib/tp-bed" "$bad"
done

# --- a clean shutdown: memcheck's leak check runs ----------------------------
scontrol shutdown slurmctld >/dev/null
for ((i = 0; i < 600; i++)); do
	kill -0 "$ctld_pid" 2>/dev/null || break
	sleep 0.5
done
tp_check "slurmctld under memcheck exits after shutdown" bash -c '! kill -0 "$1" 2>/dev/null' _ "$ctld_pid"
tp_check "memcheck finished its report" \
	grep -q "</valgrindoutput>" "$ctld_xml"
# --show-leak-kinds=all: the still-reachable records prove the leak check
# ran (slurmctld has no definite leak to show otherwise).
tp_check "memcheck's leak check ran over slurmctld's heap" \
	grep -q "are still reachable in loss record" "$ctld_xml"
tp_check "memcheck instrumented our plugin inside slurmctld" \
	grep -q "Reading syms from .*/select_topoplace_cons_tres.so" "$ctld_vglog"
tp_check "slurmctld under memcheck: no error, no definite leak in our code" \
	vg_report "$ctld_xml"
vg_report "$ctld_xml" | tail -1 | sed 's/^/# /'
# 24.11: the images that reconfigures replaced, and slurmscriptd (slurmctld
# executed again; killed at shutdown, so its report may stop mid-file).
if [ "$reexec" = yes ]; then
	tp_check_eq "the four reconfigures each replaced slurmctld's image under memcheck" \
		4 "$(ls "${ctld_xml%.xml}".image-*.xml | wc -l)"
	for f in "$vglog"/valgrind.slurmctld.*.xml; do
		[ "$f" = "$ctld_xml" ] && continue
		tp_check "${f##*/}: no error, no definite leak in our code" \
			vg_report --replaced "$f"
	done
fi
tp_done
