#!/bin/bash
# slurm_record_policy.sh: the site records profiles without user action
# (ProfileRecord in topoplace.conf; issue #18).  tpalice's batch jobs give
# no topoplace flag; each runs a real Open MPI program with srun, 4 ranks
# on one node (tp-bed --node-tmpfs: each node its own TmpFS and /dev/shm).
# One node: between the bed's nodes (one host, one loopback address) Open
# MPI 4.1's TCP transport crashed a rank now and then under CI's load
# ("connect() to 127.0.0.1:N failed: Operation now in progress", then a
# segfault); the profile across nodes is slurm_record_nodes.sh's subject.
#   - ProfileRecord=first: the first job named ring is recorded (its stderr
#     says so and why), the second is not, and is placed and remapped with
#     the first one's profile: its SystemComment names the profile, why it
#     was chosen and which job recorded it;
#   - --comm-record=no opts out (ProfileRecordAllowUserOff=yes, the
#     default); with ProfileRecordAllowUserOff=no the job is recorded and
#     told why;
#   - an application in ProfileRecordExclude is not recorded;
#   - slurmctld records the use of the profile it chose (the last-use
#     record beside the runs, the user's, 0600), shown by `profile list
#     --apps` as used=;
#   - the application is known by its batch script first: a job of the
#     same script, under the same or another job name, is placed with the
#     first job's profile (SystemComment and its stderr: "by script
#     hash") and not recorded again; a job whose script differs is a new
#     application, and recorded;
#   - two different scripts under one job name (a user who calls every
#     job alike): the second script's first run gets the name's profile
#     (said so: "by job name", its script never ran) and is recorded as a
#     new application; then each script's next job gets its own profile
#     by script hash, recorded by its own first run (topoplace-profile(5),
#     APPLICATION IDENTITY).
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	tp_record_bed_prepare --mpi mpi_patterns --pmix
	tp_record_bed_run slurm_record_policy --node-tmpfs --conf "MpiDefault=pmix"
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
log=$TP_BED_SLURMCTLD_LOG
mkdir -p "$store" && chmod 755 "$store"
install -d -o "$alice" -m 755 "$store/$alice"
# conf LINES...: topoplace.conf for the next jobs (slurmd reads it per job).
conf() {
	printf 'FabricSource=topology\nProfileStore=%s\n' "$store" >"$etc/topoplace.conf"
	printf '%s\n' "$@" >>"$etc/topoplace.conf"
}
conf "ProfileRecord=first"
scontrol reconfigure
sleep 2

tmpfs=$(sed -n 's/^TmpFS=//p' "$SLURM_CONF")
mpienv="export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=$tmpfs"
# program ITERS: the program the script of ITERS runs: a copy of
# mpi_patterns of its own (a byte string appended), so each script is a
# program of its own too and only the script keys of these jobs decide
# (the executable's: slurm_record_exec.sh).
program() {
	local p=$work/mpi_patterns-$1
	[ -f "$p" ] || { cp "$work/mpi_patterns" "$p" &&
		printf 'topoplace-test-%s' "$1" >>"$p" && chmod 755 "$p"; }
	echo "$p"
}
# [ITERS=N] run NAME [SBATCH OPTIONS...]: a 1-node, 4-rank ring job of
# tpalice with no topoplace flag unless given; prints the job id.  Jobs
# with the same ITERS (default 20) have the same batch script.
run() {
	local name=$1 prog
	shift
	prog=$(program "${ITERS:-20}")
	tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J "$name" "$@" \
		-o "$out/$name-%j.out" --wrap "$mpienv; srun $prog ring ${ITERS:-20}"
}
# state JOB: the job's end state; the end of its output (as comments, on
# stderr) when it did not complete.
state() {
	local st
	st=$(tp_wait_job "$1" 120)
	[ "$st" = COMPLETED ] ||
		tail -n 20 "$out"/*-"$1".out 2>/dev/null | sed 's/^/#   /' >&2
	echo "$st"
}
runs() { ls "$store/$alice/$1/"*.tpp 2>/dev/null | wc -l; }
system_comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=\(.*\) $/\1/p'; }

j1=$(run ring)
tp_check_eq "the first ring job $j1 (no flags) completes" COMPLETED "$(state "$j1")"
tp_check_eq "it left one profile: $alice/ring" 1 "$(runs ring)"
tp_check "its stderr says it was recorded and why" \
	grep -qx "topoplace: this job's MPI steps are recorded as profile $alice/ring: ProfileRecord=first: no profile of this batch script yet" \
	"$out/ring-$j1.out"
tp_check_eq "the profile has the 4 ranks of the run" 4 \
	"$("$tp" profile show --store "$store" --munge-socket "$sock" "$alice/ring" | sed -n 's/^ranks: *\([0-9]*\).*/\1/p')"

j2=$(run ring)
tp_check_eq "the second ring job $j2 completes" COMPLETED "$(state "$j2")"
tp_check_eq "it was not recorded: still one run of $alice/ring" 1 "$(runs ring)"
tp_check "its stderr says nothing about recording" \
	bash -c '! grep -q "recorded as profile" "$1"' _ "$out/ring-$j2.out"
tp_check_eq "its SystemComment names the profile, why (the same script ran), and who recorded it" \
	"topoplace: placement=shared class=$(system_comment "$j2" | sed -n 's/.*class=\([a-z_]*\).*/\1/p') (profile): profile $alice/ring by script hash, recorded by JobId=$j1" \
	"$(system_comment "$j2")"
tp_check "its stderr says so too" \
	grep -qE "^topoplace: profile $alice/ring by script hash \(s-[0-9a-f]{32}\), recorded by JobId=$j1\$" \
	"$out/ring-$j2.out"
tp_check "its ranks were remapped from that profile" \
	bash -c "grep -qh 'task/topoplace: JobId=$j2: profile $alice/ring: 4 ranks' \"\$TP_BED_LOGDIR\"/slurmd*.log"
tp_check_eq "the run is also stored under its batch script's key" 1 \
	"$(ls -d "$store/$alice"/s-* 2>/dev/null | wc -l)"
ringkey=$(ls -d "$store/$alice"/s-* 2>/dev/null | head -n 1)
tp_check "slurmctld recorded the use of the script's runs by job $j2 beside them" \
	grep -qxE "topoplace-last-use 1 [0-9]+ $j2" "$ringkey/last-use"
tp_check_eq "the record is tpalice's, 0600 (written by root for her)" "$alice 600" \
	"$(stat -c '%U %a' "$ringkey/last-use")"

ja=$(run alpha)
tp_check_eq "a job named alpha with ring's batch script completes" COMPLETED "$(state "$ja")"
tp_check_eq "its SystemComment: ring's profile, found by script hash" \
	"profile $alice/ring by script hash, recorded by JobId=$j1" \
	"$(system_comment "$ja" | sed 's/^[^:]*: [^:]*: //')"
tp_check "slurmd remapped its ranks from that profile" \
	bash -c "grep -qh 'task/topoplace: JobId=$ja: profile $alice/ring by script hash' \"\$TP_BED_LOGDIR\"/slurmd*.log"
tp_check_eq "it was not recorded again (ProfileRecord=first knows the script)" 0 "$(runs alpha)"
# One write a minute per application at most (store.h): $j2's stands.
tp_check "the use stays recorded for the script's key (by job $j2 or $ja)" \
	bash -c 'grep -qxE "topoplace-last-use 1 [0-9]+ ($1|$2)" "$3"/s-*/last-use' _ "$j2" "$ja" "$store/$alice"
jg=$(ITERS=21 run gamma)
tp_check_eq "a job with a changed script completes" COMPLETED "$(state "$jg")"
tp_check "it has no profile (its SystemComment names none)" \
	bash -c '! grep -q "profile " <<<"$1"' _ "$(system_comment "$jg")"
tp_check_eq "and is recorded as a new application" 1 "$(runs gamma)"

# Two scripts, one job name.
sa=$(ITERS=40 run shared)
tp_check_eq "script A's first job named shared ($sa) completes" COMPLETED "$(state "$sa")"
tp_check_eq "it is recorded as shared" 1 "$(runs shared)"
sb=$(ITERS=41 run shared)
tp_check_eq "script B's first job named shared ($sb) completes" COMPLETED "$(state "$sb")"
tp_check_eq "its SystemComment: the name's profile (its script never ran)" \
	"profile $alice/shared by job name, recorded by JobId=$sa" \
	"$(system_comment "$sb" | sed 's/^[^:]*: [^:]*: //')"
tp_check "its stderr says the name chose it, its script being new" \
	grep -q "^topoplace: profile $alice/shared by job name, recorded by JobId=$sa (this batch script never ran before)" \
	"$out/shared-$sb.out"
tp_check_eq "it is recorded: a new script is a new application, whatever its name" \
	2 "$(runs shared)"
tp_check "its stderr says it was recorded" \
	grep -q "recorded as profile $alice/shared: ProfileRecord=first: no profile of this batch script yet" "$out/shared-$sb.out"
sa2=$(ITERS=40 run shared)
tp_check_eq "script A's second job named shared ($sa2) completes" COMPLETED "$(state "$sa2")"
tp_check_eq "it gets script A's profile, by script hash" \
	"profile $alice/shared by script hash, recorded by JobId=$sa" \
	"$(system_comment "$sa2" | sed 's/^[^:]*: [^:]*: //')"
tp_check "slurmd read script A's run too" \
	bash -c "grep -qh 'task/topoplace: JobId=$sa2: profile $alice/shared by script hash' \"\$TP_BED_LOGDIR\"/slurmd*.log"
sb2=$(ITERS=41 run shared)
tp_check_eq "script B's second job named shared ($sb2) completes" COMPLETED "$(state "$sb2")"
tp_check_eq "it gets script B's own profile, by script hash" \
	"profile $alice/shared by script hash, recorded by JobId=$sb" \
	"$(system_comment "$sb2" | sed 's/^[^:]*: [^:]*: //')"
tp_check "its stderr says which profile and by which key" \
	grep -qE "^topoplace: profile $alice/shared by script hash \(s-[0-9a-f]{32}\), recorded by JobId=$sb\$" \
	"$out/shared-$sb2.out"
tp_check_eq "neither second job was recorded again" 2 "$(runs shared)"

j3=$(ITERS=30 run optout --comm-record=no)
tp_check_eq "a first job with --comm-record=no completes" COMPLETED "$(state "$j3")"
tp_check_eq "it was not recorded (ProfileRecordAllowUserOff=yes)" 0 "$(runs optout)"

conf "ProfileRecord=first" "ProfileRecordAllowUserOff=no" "ProfileRecordExclude=licensed"
j4=$(ITERS=31 run forced --comm-record=no)
tp_check_eq "under ProfileRecordAllowUserOff=no a --comm-record=no job completes" COMPLETED "$(state "$j4")"
tp_check_eq "and is recorded" 1 "$(runs forced)"
tp_check "its stderr says the opt-out is not allowed here" \
	grep -q "recorded as profile $alice/forced: .*ProfileRecordAllowUserOff=no" "$out/forced-$j4.out"
j5=$(ITERS=32 run licensed)
tp_check_eq "a job of an excluded application completes" COMPLETED "$(state "$j5")"
tp_check_eq "and is not recorded (ProfileRecordExclude)" 0 "$(runs licensed)"

# What the site recorded, per application.
apps=$("$tp" profile list --apps --store "$store" --munge-socket "$sock" "$alice")
tp_check_eq "profile list --apps: ring, gamma, shared, forced, each script with its key" \
	"$(printf '%s\n' forced gamma ring s- s- s- s- s- shared)" \
	"$(cut -f1 <<<"$apps" | sed "s|^$alice/||; s|^s-.*|s-|" | sort)"
tp_check "ring: 1 run, never chosen by its name (its script's key was), 4 ranks, a class" \
	grep -qE "^$alice/ring	runs=1	first=[0-9T:-]+Z	last=[0-9T:-]+Z	used=never	ranks=4	class=[a-z_]+	app=ring	exe=/[^	]+@[0-9a-f]{12}	layout=[0-9x+]+	args=[0-9]+@[0-9a-f]{12}\$" <<<"$apps"
tp_check "ring's script key: 1 run, used by a job, recorded as ring" \
	grep -qE "^$alice/${ringkey##*/}	runs=1	first=[0-9T:-]+Z	last=[0-9T:-]+Z	used=[0-9T:-]+Z	ranks=4	class=[a-z_]+	app=ring \(by script\)	exe=/[^	]+@[0-9a-f]{12}	layout=[0-9x+]+	args=[0-9]+@[0-9a-f]{12}\$" <<<"$apps"
tp_check_eq "the script keys name the applications they were recorded as" \
	"$(printf '%s\n' forced gamma ring shared shared)" \
	"$(grep "^$alice/s-" <<<"$apps" | grep -o 'app=[a-z]* (by script)	' | sed 's/app=//; s/ (by script)	//' | sort)"
tp_done
