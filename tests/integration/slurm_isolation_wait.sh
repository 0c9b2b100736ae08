#!/bin/bash
# slurm_isolation_wait.sh: the isolation wait bound, IsolationWaitMax
# (issue #15), on the tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts,
# Routing=adaptive).  Every leaf runs an io_heavy job on one host
# (n0001, n0005, n0009, n0013).  Then:
#   - a 1-host comm_sensitive `--placement=shared` job starts at once, with
#     no bound: on one host its messages never use the fabric, it shares a
#     leaf as a quiet job does;
#   - a 2-host comm_sensitive `--placement=shared` job, with
#     IsolationWaitMax=none, waits (SystemComment says why) and keeps
#     waiting: no leaf is free of io_heavy traffic;
#   - with IsolationWaitMax=4s, after a reconfigure, the same job starts
#     once it has waited 4 s, where Slurm's default puts it (beside an
#     io_heavy job: there is nowhere else); its SystemComment and
#     slurmctld's log say isolation was given up, after how long and the
#     bound; `topoplace config check` shows the key.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_isolation_wait --timeout 300

tp_slurm_setup
tp_slurm_profiles

as_user() { tp_as_user "$user" "$@"; }
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }

tp_check "slurmctld loads IsolationWaitMax=none" tp_site_conf "IsolationWaitMax=none"
tp_check_eq "topoplace config check shows IsolationWaitMax=none" \
	"IsolationWaitMax=none" \
	"$("${abs_top_builddir:-$abs_top_srcdir}/tools/topoplace" config check "$etc/topoplace.conf" 2>&1 | grep -o '^IsolationWaitMax=[^ ]*')"
ios=
for n in n0001 n0005 n0009 n0013; do
	ios="$ios${ios:+,}$(as_user sbatch --parsable -J ioheavy --placement=shared -N 1 \
		-w "$n" -o /dev/null --wrap 'sleep 300')"
done
tp_check "the 4 io_heavy jobs run, one on each leaf" wait_for 40 \
	bash -c "[ \"\$(squeue -h -t R -j $ios | wc -l)\" = 4 ]"
tp_check_eq "they are io_heavy" 4 \
	"$(grep -c "placement=shared nodes=n00[01][1359] policy=shared class=io_heavy" "$log")"

# One host: nothing to protect, it starts beside io_heavy at once.
one=$(as_user sbatch --parsable -J hpcg --placement=shared -N 1 -o /dev/null --wrap 'sleep 60')
tp_check "a 1-host comm_sensitive shared job starts without a bound" wait_state "$one" RUNNING 20
tp_check "... as comm_sensitive, placed shared" \
	grep -q "JobId=$one placement=shared nodes=n[0-9]* policy=shared class=comm_sensitive" "$log"
scancel "$one"
tp_wait_job "$one" 30 >/dev/null

# No bound: the 2-host job waits, and keeps waiting.
a=$(as_user sbatch --parsable -J hpcg --placement=shared -N 2 -o /dev/null --wrap 'sleep 60')
tp_check "no bound: the shared job waits and says why" wait_for 20 \
	bash -c "scontrol show job $a | grep -q 'SystemComment=topoplace: placement=shared class=comm_sensitive waits: '"
sleep 8
tp_check_eq "no bound: still pending after 8 s" PENDING "$(squeue -h -j "$a" -o %T)"
tp_check_eq "... and never gave isolation up" 0 \
	"$(grep -c "JobId=$a: .*isolation given up" "$log")"
scancel "$a"
tp_wait_job "$a" 30 >/dev/null

# Site bound: 4 s.
tp_check "slurmctld loads IsolationWaitMax=4s" tp_site_conf "IsolationWaitMax=4s"
tp_check_eq "topoplace config check shows IsolationWaitMax=4s" \
	"IsolationWaitMax=4s" \
	"$("${abs_top_builddir:-$abs_top_srcdir}/tools/topoplace" config check "$etc/topoplace.conf" 2>&1 | grep -o '^IsolationWaitMax=[^ ]*')"
b=$(as_user sbatch --parsable -J hpcg --placement=shared -N 2 -o /dev/null --wrap 'sleep 60')
tp_check "IsolationWaitMax=4s: the shared job starts" wait_state "$b" RUNNING 40
waited=$(job_waited "$b")
tp_check "... after waiting its bound (StartTime - SubmitTime = ${waited} s)" [ "$waited" -ge 4 ]
c=$(comment "$b")
tp_check "... SystemComment says isolation was given up, after how long, the bound" \
	grep -Eq "^topoplace: placement=off class=comm_sensitive.*isolation given up after [4-9] s \(bound 4 s\): placed by Slurm's default beside any class" <<<"$c"
tp_check "... slurmctld's log says so once" \
	[ "$(grep -c "topoplace: JobId=$b: placement=shared: isolation given up after [0-9]* s (bound 4 s)" "$log")" = 1 ]
scancel "$b"
scancel ${ios//,/ }
tp_check "slurmctld still answers" scontrol ping
tp_done
