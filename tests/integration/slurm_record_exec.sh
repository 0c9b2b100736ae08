#!/bin/bash
# slurm_record_exec.sh: under ProfileRecord=first the command of a step
# (its executable and its arguments) identifies its application (issue
# #18, topoplace-profile(5) APPLICATION IDENTITY).  tpalice's batch jobs
# give no topoplace flag;
# each runs the same real Open MPI program with srun, 4 ranks on one node
# (as slurm_record_policy.sh, whose setup this repeats):
#   - job exa (its own script) is recorded: the program's first run;
#   - job exb, another script under another job name, runs the same
#     program with the same arguments, found through its PATH: slurmd
#     decides to record it (its script and name are new), but slurmstepd
#     finds the command's run: it is not recorded again, its output and
#     slurmd's log say "found by executable <path> (sha256 <12 hex>...)
#     and arguments (2, sha256 <12 hex>...)", the digest recomputed here
#     from the documented encoding;
#   - slurmstepd links exb's script key to exa (a link record in the
#     store), so exb's script submitted again is placed with exa's profile
#     (SystemComment "by script hash, via executable") and not recorded;
#   - job exf, a third script, runs the same program with other
#     arguments (another input, as one solver run by many scripts): it is
#     another application, recorded under its own name and script key, and
#     its script is linked to nothing;
#   - with ProfileByExecutable=no, exb's script is its own application
#     again: the link is not followed and its first run is recorded;
#   - an interactive srun of the command under another name (no script,
#     no profile by its name) gets its throttle window from the run found
#     by its executable and arguments (slurmd's log names it);
#   - job exc runs a copy of the program tpalice may execute but not
#     read: slurmstepd, which reads it as her, cannot hash it: one line in
#     slurmd's log, and the job runs and is recorded as before;
#   - with ProfileByExecutable=program (the rule before arguments were
#     compared), a new script running the program with arguments no run
#     had is taken for the program's freshest run: not recorded, linked.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	tp_record_bed_prepare --mpi bin/mpi_patterns --pmix
	mkdir -m 755 "$work/hidden" "$work/interp"
	# Executable by everyone, readable by root only.
	install -m 711 "$work/bin/mpi_patterns" "$work/hidden/mpi_noread"
	# The same bytes under an interpreter's name: no executable key.
	install -m 755 "$work/bin/mpi_patterns" "$work/interp/python3"
	tp_record_bed_run slurm_record_exec --node-tmpfs --conf "MpiDefault=pmix"
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice
id -u "$alice" >/dev/null 2>&1 || tp_skip "user $alice does not exist"
work=$TP_RECORD_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
store=$TP_BED_DIR/store
tp=$abs_top_builddir/tools/topoplace
sock=$TP_BED_DIR/munge/munge.socket
mkdir -p "$store" && chmod 755 "$store"
install -d -o "$alice" -m 755 "$store/$alice"
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

tmpfs=$(sed -n 's/^TmpFS=//p' "$SLURM_CONF")
mpienv="export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=$tmpfs"
# run NAME COMMAND: a 1-node, 4-rank job of tpalice, no topoplace flag,
# whose script runs `srun COMMAND`; prints the job id.
run() {
	tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J "$1" \
		-o "$out/$1-%j.out" --wrap "$mpienv; srun $2"
}
state() {
	local st
	st=$(tp_wait_job "$1" 120)
	[ "$st" = COMPLETED ] ||
		tail -n 20 "$out"/*-"$1".out 2>/dev/null | sed 's/^/#   /' >&2
	echo "$st"
}
runs() { ls "$store/$alice/$1/"*.tpp 2>/dev/null | wc -l; }
all_runs() { ls "$store/$alice"/*/*.tpp 2>/dev/null | wc -l; }
slurmd_logs() { cat "$TP_BED_LOGDIR"/slurmd*.log; }
exe=$work/bin/mpi_patterns
hash12=$(sha256sum "$exe" | cut -c1-12)
# The arguments' digest as topoplace-profile(5) ARGS defines it, computed
# apart from the C code: each argument as an 8-byte little-endian length,
# then its bytes.
args12() {
	python3 -c 'import hashlib, struct, sys
h = hashlib.sha256()
for a in sys.argv[1:]:
    b = a.encode()
    h.update(struct.pack("<Q", len(b)) + b)
print(h.hexdigest()[:12])' "$@"
}
ahash12=$(args12 ring 50)

ja=$(run exa "$exe ring 50")
tp_check_eq "job exa $ja completes" COMPLETED "$(state "$ja")"
tp_check_eq "it is recorded: one run of $alice/exa" 1 "$(runs exa)"
before=$(all_runs)

# The step finds mpi_patterns through its own PATH, as srun does.
jb=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J exb \
	-o "$out/exb-%j.out" --wrap "$mpienv; export PATH=$work/bin:\$PATH; srun mpi_patterns ring 50")
tp_check_eq "job exb $jb (another script, another name, the same command, the program by PATH) completes" \
	COMPLETED "$(state "$jb")"
tp_check "slurmd decided to record it (a new script)" \
	grep -q "recorded as profile $alice/exb: ProfileRecord=first: no profile of this batch script yet" \
	"$out/exb-$jb.out"
tp_check_eq "the step was not recorded: no run of exb" 0 "$(runs exb)"
tp_check_eq "and no run anywhere else" "$before" "$(all_runs)"
tp_check "its output says the profile was found by executable and arguments, with both hashes" \
	grep -qE "^topoplace: not recorded again: profile found by executable $exe \(sha256 $hash12\.\.\.\) and arguments \(2, sha256 $ahash12\.\.\.\): profile $alice/exa, a 4-rank run recorded by JobId=$ja \(ProfileRecord=first: its executable has a profile\)(; |\$)" \
	"$out/exb-$jb.out"
tp_check "slurmd's log says it with the key" \
	bash -c 'grep -q "task/topoplace: StepId=$1\.0: not recorded: profile found by executable $2 (sha256 $3\.\.\.) and arguments (2, sha256 $4\.\.\.)" <<<"$5"' \
	_ "$jb" "$exe" "$hash12" "$ahash12" "$(slurmd_logs)"
tp_check "exa's run carries the digest of its arguments (profile show)" \
	bash -c '"$1" profile show --store "$2" --munge-socket "$3" "$4/exa" | grep -qE "^arguments: +2 \(sha256:$5"' \
	_ "$tp" "$store" "$sock" "$alice" "$ahash12"

# exb's script is linked to exa (store.h TP_STORE_LINK_FILE): its next
# job is placed and remapped with exa's profile from submission on.
exb_key=$(ls "$store/$alice" | while read -r k; do
	[ -f "$store/$alice/$k/link" ] && echo "$k"; done)
tp_check "slurmstepd linked exb's script key to exa (link: topoplace-link 2 exa $jb command)" \
	bash -c '[[ $1 =~ ^s-[0-9a-f]{32}$ ]] && [ "$(cat "$2/$1/link")" = "topoplace-link 2 exa $3 command" ]' \
	_ "$exb_key" "$store/$alice" "$jb"
tp_check_eq "... owned by $alice, mode 600, in a directory of hers, mode 700" \
	"$alice 600 $alice 700" \
	"$(stat -c '%U %a' "$store/$alice/$exb_key/link") $(stat -c '%U %a' "$store/$alice/$exb_key")"
tp_check "... and exb's output says its next jobs are placed with exa's profile" \
	grep -q "^topoplace: not recorded again: .*; this batch script's next jobs are placed with profile $alice/exa, found by its executable\$" \
	"$out/exb-$jb.out"
jb2=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J exb \
	-o "$out/exb-%j.out" --wrap "$mpienv; export PATH=$work/bin:\$PATH; srun mpi_patterns ring 50")
tp_check_eq "exb's script again: job $jb2 completes" COMPLETED "$(state "$jb2")"
system_comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=\(.*\) $/\1/p'; }
tp_check "its SystemComment: exa's profile, by script hash via executable" \
	grep -qE "^topoplace: placement=[a-z]+ class=[a-z_]+ \(profile\): profile $alice/exa by script hash, via executable, recorded by JobId=$ja\$" \
	<<<"$(system_comment "$jb2")"
tp_check "its output: the same profile, and which job of the script ran the program" \
	grep -q "^topoplace: profile $alice/exa by script hash, via executable (this batch script's JobId=$jb ran its program), recorded by JobId=$ja\$" \
	"$out/exb-$jb2.out"
tp_check_eq "it is not recorded (ProfileRecord=first: the program has a profile)" \
	"0 $before" "$(runs exb) $(all_runs)"
tp_check "slurmd's log: found by the link, and the steps not recorded" \
	bash -c 'grep -q "JobId=$1: profile $2/exa by script hash, via executable (its batch script s-[0-9a-f]* never ran, but runs the program of exa (1 runs; linked by JobId=$3))" <<<"$4" &&
		! grep -q "JobId=$1: MPI steps recorded" <<<"$4"' \
	_ "$jb2" "$alice" "$jb" "$(slurmd_logs)"

# exf: the same program with other arguments (another input): another
# application.  slurmd records it (a new script), and so does its step:
# no run of the program has these arguments; its script is linked to
# nothing.
before=$(all_runs)
wrapf="$mpienv; export PATH=$work/bin:\$PATH; srun mpi_patterns ring 51"
jf=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J exf \
	-o "$out/exf-%j.out" --wrap "$wrapf")
tp_check_eq "job exf $jf (the same program, other arguments) completes" COMPLETED "$(state "$jf")"
tp_check "slurmd decided to record it (a new script)" \
	grep -q "recorded as profile $alice/exf: ProfileRecord=first: no profile of this batch script yet" \
	"$out/exf-$jf.out"
tp_check "its output says nothing of a profile found by executable" \
	bash -c '! grep -q "found by executable" "$1"' _ "$out/exf-$jf.out"
exf_key=s-$(printf '#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n' "$wrapf" | sha256sum | cut -c1-32)
tp_check_eq "it is recorded under its own name and its own script key (2 runs more)" \
	"1 $((before + 2))" "$(runs exf) $(all_runs)"
tp_check "its script key has its run and no link" \
	bash -c '[ "$1" != "$2" ] && ls "$3/$1/"*.tpp >/dev/null && [ ! -e "$3/$1/link" ]' \
	_ "$exf_key" "$exb_key" "$store/$alice"
tp_check "exf's run carries its own arguments' digest (profile list --apps)" \
	bash -c '"$1" profile list --apps --store "$2" --munge-socket "$3" "$4" | grep -qE "^$4/exf	.*	args=2@$5\$"' \
	_ "$tp" "$store" "$sock" "$alice" "$(args12 ring 51)"

# An interactive srun (no script, a job name with no profile): its
# throttle window is decided from the run found by its command.
tp_as_user "$alice" timeout 120 bash -c "$mpienv; srun -N 1 -n 4 -J inter $exe ring 50" \
	>"$out/inter.out" 2>&1
tp_check_eq "an interactive srun of the program under the name inter completes" 0 "$?"
tp_check "slurmd's log: its profile (for the throttle window) found by executable and arguments" \
	bash -c 'grep -qE "task/topoplace: StepId=[0-9]+\.0: profile found by executable $1 \(sha256 $2\.\.\.\) and arguments \(2, sha256 $6\.\.\.\): profile $3/exa, a 4-rank run recorded by JobId=$4\$" <<<"$5"' \
	_ "$exe" "$hash12" "$alice" "$ja" "$(slurmd_logs)" "$ahash12"

jc=$(run exc "$work/hidden/mpi_noread ring 52")
tp_check_eq "job exc $jc (a program tpalice cannot read) completes" COMPLETED "$(state "$jc")"
tp_check_eq "slurmd's log has one line naming the file and why" 1 \
	"$(slurmd_logs | grep -c "StepId=$jc\.0: ProfileRecord: executable not identified (executable $work/hidden/mpi_noread: open: Permission denied): recorded as decided for the job")"
tp_check_eq "it is recorded as before" 1 "$(runs exc)"
# A step whose command is an interpreter (here the same bytes as exa's
# program, named python3) has no executable key: recorded by its script.
jd=$(run exd "$work/interp/python3 ring 54")
tp_check_eq "job exd $jd (the program as python3) completes" COMPLETED "$(state "$jd")"
tp_check_eq "an interpreter is no executable key: exd is recorded" 1 "$(runs exd)"
tp_check "its output says nothing of a profile found by executable" \
	bash -c '! grep -q "found by executable" "$1"' _ "$out/exd-$jd.out"

# ProfileByExecutable=no: exb's script is its own application again: its
# link is not followed, and its first run is recorded under its own name.
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\nProfileByExecutable=no\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
jb3=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J exb \
	-o "$out/exb-%j.out" --wrap "$mpienv; export PATH=$work/bin:\$PATH; srun mpi_patterns ring 50")
tp_check_eq "ProfileByExecutable=no: exb's script again, job $jb3, completes" COMPLETED "$(state "$jb3")"
tp_check "... its SystemComment names no profile (the link is not followed)" \
	bash -c '! grep -q "profile" <<<"$1"' _ "$(system_comment "$jb3")"
tp_check "... slurmd records it: no profile of this batch script yet" \
	grep -q "recorded as profile $alice/exb: ProfileRecord=first: no profile of this batch script yet" \
	"$out/exb-$jb3.out"
tp_check_eq "... and the step is recorded: one run of exb and one under the script key" \
	"1 1" "$(runs exb) $(runs "$exb_key")"

# A hostile link (the user's own namespace: she may plant anything):
# a symbolic link as the record of a new script, to a file she cannot
# read.  Every daemon ignores it; the job runs as one with no profile,
# and its step, which finds the program's run, writes a good record over it.
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
# srun -n 4: another script than exa's, the same command.
wrap="$mpienv; srun -n 4 $exe ring 50"
key=$(printf '#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n' "$wrap" | sha256sum | cut -c1-32)
install -d -o "$alice" -m 700 "$store/$alice/s-$key"
ln -s /etc/shadow "$store/$alice/s-$key/link"
chown -h "$alice" "$store/$alice/s-$key/link"
je=$(tp_as_user "$alice" sbatch --parsable -N 1 -n 4 -J exe -o "$out/exe-%j.out" --wrap "$wrap")
tp_check_eq "a script whose link record is a symbolic link: job $je completes" COMPLETED "$(state "$je")"
tp_check "... its SystemComment names no profile found through it" \
	bash -c '! grep -q "via executable" <<<"$1"' _ "$(system_comment "$je")"
tp_check "... slurmd looked it up by its job name (the link not followed)" \
	bash -c '! grep -q "JobId=$1: profile .* via executable" <<<"$2"' _ "$je" "$(slurmd_logs)"
tp_check "... its step found the freshest run of the command (exb's under ProfileByExecutable=no) by executable and replaced the bad record (so the key above is the job's)" \
	bash -c '[ ! -L "$1" ] && [ "$(cat "$1")" = "topoplace-link 2 exb $2 command" ]' _ "$store/$alice/s-$key/link" "$je"
tp_check "... and slurmctld still answers" scontrol ping

# ProfileByExecutable=program: the program alone, as before arguments
# were compared: a new script with arguments no run had is taken for the
# program's freshest run (exb's): not recorded, and linked to it.
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\nProfileByExecutable=program\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
before=$(all_runs)
jg=$(run exg "$exe ring 56")
tp_check_eq "ProfileByExecutable=program: job exg $jg (arguments no run had) completes" COMPLETED "$(state "$jg")"
tp_check "... not recorded again: found by executable alone" \
	grep -qE "^topoplace: not recorded again: profile found by executable $exe \(sha256 $hash12\.\.\.\): profile $alice/exb, " \
	"$out/exg-$jg.out"
tp_check_eq "... no run of exg, none anywhere" "0 $before" "$(runs exg) $(all_runs)"
key=$(printf '#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n' "$mpienv; srun $exe ring 56" | sha256sum | cut -c1-32)
tp_check_eq "... its script linked to exb by the program alone" \
	"topoplace-link 2 exb $jg program" "$(cat "$store/$alice/s-$key/link" 2>&1)"

# Back to ProfileByExecutable=command: that link (the program alone) is
# not followed, by slurmctld nor slurmd: the script's next job is placed
# without it, and its step, whose command no run has, is recorded.
printf 'FabricSource=topology\nProfileStore=%s\nProfileRecord=first\n' \
	"$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2
jg2=$(run exg "$exe ring 56")
tp_check_eq "ProfileByExecutable=command: exg's script again, job $jg2, completes" COMPLETED "$(state "$jg2")"
tp_check "... its SystemComment names no profile found through the program-alone link" \
	bash -c '! grep -q "via executable" <<<"$1"' _ "$(system_comment "$jg2")"
tp_check "... slurmd did not follow the link" \
	bash -c '! grep -q "JobId=$1: profile .* via executable" <<<"$2"' _ "$jg2" "$(slurmd_logs)"
tp_check_eq "... and its run was recorded under its own name" 1 "$(runs exg)"
tp_done
