#!/bin/bash
# slurm_task.sh: task/topoplace beyond the batch script's rank files
# (issue 7), on the tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts,
# TmpFS=/run/topoplace-bed/jobs, world-writable like /tmp), as the
# unprivileged users tpalice (jobs) and tpbob (the other user).
#
#   job directory: <TmpFS>/topoplace is root's (0755) with one directory
#       per job, the user's, mode 0700.  A base tpbob made first (mode
#       0777, with a directory named after the next job id and a link in
#       it) is moved aside with one log line: the job's files never land
#       in anything of tpbob's, the job is remapped and runs; tpbob cannot
#       create in the new base; the job's directory goes with the job.
#       srun's own files (salloc + srun --comm-profile) are in a mkdtemp
#       directory: tpbob's <TmpFS>/topoplace.<jobid> is not in the way.
#   I/O servers: under IoServerPolicy=auto (the default) and the bed's
#       adaptive routing, --io-servers=2 on a job over 2 leaves packs both
#       servers on one leaf of the job's (isolated, said in the log line);
#       with IoServerPolicy=spread it puts one server on each leaf, on the
#       last of the job's nodes there (TOPOPLACE_IO_SERVER_HOSTS, the
#       ioservers file, one log line); srun's own allocation gets the same
#       in its tasks' environment.
#   throttling of interactive steps: srun --io-throttle, salloc + srun,
#       srun with an I/O-heavy profile, srun --io-throttle in a batch
#       script: the tasks get TOPOPLACE_IO_WINDOW_US and the pacing library,
#       and their file writes are really paced; one log line a step.
#   a bad topoplace.conf on the nodes: jobs and steps still run, one error
#       line per job naming file, line and key.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_task --timeout 480

tp_slurm_setup
bob=tpbob
id -u "$bob" >/dev/null 2>&1 || tp_skip "user $bob does not exist"
tp_slurm_profiles
tp_slurm_conf
tmpfs=/run/topoplace-bed/jobs
base=$tmpfs/topoplace

# slurmd_lines PATTERN: how many slurmd log lines match PATTERN.
slurmd_lines() { cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -- "$1"; }
# nodes_of JOB: the job's node list, expanded, one per line.
nodes_of() {
	scontrol show hostnames "$(scontrol show job -o "$1" | sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p')"
}
# servers_expected NODE...: the last of the given nodes on each leaf, in
# host order, comma-separated (spread among the job's nodes).
servers_expected() {
	local n
	for n in "$@"; do echo "$(leaf_of "$n") $n"; done | sort |
		awk '{ last[$1] = $2 } END { for (l in last) print last[l] }' |
		sort | paste -sd,
}

# gone PATH: PATH disappears within 5 s.
gone() {
	local i
	for ((i = 0; i < 25; i++)); do
		[ -e "$1" ] || return 0
		sleep 0.2
	done
	return 1
}
# cannot_mkdir USER DIR: USER's mkdir DIR fails.
cannot_mkdir() { ! tp_as_user "$1" mkdir "$2" 2>/dev/null; }

# --- the job directory ----------------------------------------------------
hold=$(sbatch --parsable -H -o /dev/null --wrap true)
scancel "$hold"
next=$((hold + 1))
tp_as_user "$bob" bash -c '
	mkdir -m 777 "$1" && mkdir -m 777 "$1/$2" && ln -s /nonexistent/bob "$1/$2/rankfile" &&
	mkdir -m 777 "$3"' _ "$base" "$next" "$tmpfs/topoplace.$next"
tp_check "$bob made $base (0777) and $base/$next before job $next" \
	bash -c '[ "$(stat -c "%U %a" "$1" "$1/$2")" = "$3 777
$3 777" ]' _ "$base" "$next" "$bob"
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(tp_as_user "$user" sbatch --parsable -N4 -n16 -J hpcg --placement=leaf \
	--comm-profile=hpcg -o "$out/dir-%j.out" --wrap '
	d=$(dirname "$TOPOPLACE_RANKFILE")
	echo "dir $d"
	echo "own $(stat -c "%U %a" "$d")"
	echo "base $(stat -c "%U %a" "$(dirname "$d")")"
	srun bash -c "echo rank \$SLURM_PROCID \$SLURMD_NODENAME" | sort -k2 -n
	srun -n16 bash -c "echo same \$SLURM_PROCID \$SLURMD_NODENAME" | sort -k2 -n
	srun -N1 -n1 bash -c "echo own \$SLURM_NTASKS \${SLURM_HOSTFILE:-none}" 2>&1 |
		sed "s/^/own-layout /"')
tp_check_eq "job $next is the one $bob expected" "$next" "$j"
tp_check_eq "the job completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "its rank files are in $base/$j" "dir $base/$j" \
	"$(grep '^dir ' "$out/dir-$j.out")"
tp_check_eq "the job's directory is $user's, mode 700" "own $user 700" \
	"$(grep '^own ' "$out/dir-$j.out")"
tp_check_eq "the base is root's, mode 755" "base root 755" \
	"$(grep '^base ' "$out/dir-$j.out")"
tp_check_eq "srun ran its 16 ranks by the mapping" 16 \
	"$(grep -c '^rank ' "$out/dir-$j.out")"
tp_check_eq "srun -n16 (the mapping's own task count) runs by the mapping too" \
	"$(awk '$1 == "rank" { print $2, $3 }' "$out/dir-$j.out")" \
	"$(awk '$1 == "same" { print $2, $3 }' "$out/dir-$j.out")"
# 24.11's srun refuses -N with a SLURM_HOSTFILE ("--nodes is incompatible
# with --distribution=arbitrary"): the step's own layout wins, on both.
tp_check_eq "srun -N1 -n1 in the remapped job runs 1 task by Slurm's layout" \
	"own-layout own 1 none" "$(grep '^own-layout own ' "$out/dir-$j.out")"
tp_check_eq "and says so in one line" 1 \
	"$(grep -c '^own-layout srun: topoplace: this srun sets its own layout (-N1): its tasks run in Slurm.s order' "$out/dir-$j.out")"
tp_check_eq "one log line: $bob's base was moved aside" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: $base was a directory of uid $(id -u "$bob"), mode 0777, not uid 0's: moved aside to $base.untrusted.$j.")"
aside=$(ls -d "$base.untrusted.$j".* 2>/dev/null | head -1)
tp_check "$bob's directories are intact and hold nothing of the job" \
	bash -c '[ -d "$1" ] && [ "$(stat -c %U "$1")" = "$2" ] &&
		[ "$(ls -A "$1/$3")" = rankfile ] && [ -L "$1/$3/rankfile" ] &&
		[ -z "$(ls -A "$4")" ]' _ "$aside" "$bob" "$j" "$tmpfs/topoplace.$j"
tp_check "the job's directory went with the job" gone "$base/$j"
tp_check "$bob cannot create in the new base" \
	cannot_mkdir "$bob" "$base/$((j + 1))"

# srun (as the user) makes its own directory with mkdtemp: a directory
# named after the job id, made first by tpbob, is not in its way.
hold=$(sbatch --parsable -H -o /dev/null --wrap true)
scancel "$hold"
next=$((hold + 1))
tp_as_user "$bob" mkdir -m 777 "$tmpfs/topoplace.$next"
# shellcheck disable=SC2016
tp_as_user "$user" timeout 60 salloc -N4 -n16 --comm-profile=hpcg \
	srun bash -c 'echo $SLURM_JOB_ID $SLURM_PROCID ${SLURM_HOSTFILE:-none}' \
	>"$out/srun-dir.out" 2>"$out/srun-dir.err"
tp_check_eq "salloc + srun --comm-profile in job $next: 16 ranks by the mapping" \
	"16 $next" "$(awk '$3 ~ /\/hostfile$/ { n++; id = $1 } END { print n + 0, id }' "$out/srun-dir.out")"
tp_check "its hostfile is in a directory of its own, not $bob's" \
	bash -c '[[ $(awk "{ print \$3 }" "$1" | sort -u) =~ ^$2/topoplace\.$3\.[A-Za-z0-9]{6}/hostfile$ ]] &&
		[ -z "$(ls -A "$2/topoplace.$3")" ]' _ "$out/srun-dir.out" "$tmpfs" "$next"
tp_check_eq "(no topoplace line on srun's stderr)" 0 \
	"$(grep -c topoplace "$out/srun-dir.err")"

# --- I/O servers among the job's nodes -------------------------------------
# IoServerPolicy=auto, the default, under adaptive routing (the bed says no
# Routing): isolated, the servers packed on one leaf of the job's.
# shellcheck disable=SC2016
j=$(tp_as_user "$user" sbatch --parsable -N6 -J ioservers-auto \
	--placement=leaf --io-servers=2 -o "$out/ioauto-%j.out" \
	--wrap 'echo "hosts ${TOPOPLACE_IO_SERVER_HOSTS:-none}"')
tp_check_eq "IoServerPolicy=auto: a 6-node job with --io-servers=2 completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
mapfile -t nodes < <(nodes_of "$j")
got=$(sed -n 's/^hosts //p' "$out/ioauto-$j.out")
tp_check_eq "auto under adaptive routing: 2 servers on 1 leaf ($got)" "2 1" \
	"$(tr , '\n' <<<"$got" | grep -c .) $(tr , '\n' <<<"$got" |
		while read -r n; do leaf_of "$n"; done | sort -u | wc -l)"
tp_check "both among the job's nodes (${nodes[*]})" \
	bash -c 'for s in ${1//,/ }; do [[ " $2 " == *" $s "* ]] || exit 1; done' \
	_ "$got" "${nodes[*]}"
tp_check_eq "the log line says the policy auto chose: isolated" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: I/O servers $got: isolated: 2 servers among the job's hosts on 1 leaf")"
# The rest of this section: spread, as the site may set it.
echo "IoServerPolicy=spread" >>"$etc/topoplace.conf"
# shellcheck disable=SC2016
j=$(tp_as_user "$user" sbatch --parsable -N6 -J ioservers --placement=leaf \
	--io-servers=2 -o "$out/io-%j.out" --wrap '
	echo "hosts $TOPOPLACE_IO_SERVER_HOSTS"
	echo "file $TOPOPLACE_IO_SERVER_FILE"
	sed "s/^/line /" "$TOPOPLACE_IO_SERVER_FILE"')
tp_check_eq "a 6-node job with --io-servers=2 completes" COMPLETED "$(tp_wait_job "$j" 60)"
mapfile -t nodes < <(nodes_of "$j")
leaves=$(for n in "${nodes[@]}"; do leaf_of "$n"; done | sort -u | wc -l)
tp_check_eq "it spans 2 leaves (${nodes[*]})" 2 "$leaves"
want=$(servers_expected "${nodes[@]}")
tp_check_eq "TOPOPLACE_IO_SERVER_HOSTS: each leaf's last node of the job" \
	"hosts $want" "$(grep '^hosts ' "$out/io-$j.out")"
tp_check_eq "the ioservers file in the job's directory, one host a line" \
	"file $base/$j/ioservers
$(tr , '\n' <<<"$want" | sed 's/^/line /')" \
	"$(grep -e '^file ' -e '^line ' "$out/io-$j.out")"
tp_check_eq "one log line names the servers and the policy" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: I/O servers $want: spread: 2 servers among the job's hosts on 2 leaves")"
# shellcheck disable=SC2016
tp_as_user "$user" timeout 60 srun -N6 --placement=leaf --io-servers=2 \
	bash -c 'echo $SLURMD_NODENAME $TOPOPLACE_IO_SERVER_HOSTS' \
	>"$out/io-srun.out" 2>"$out/io-srun.err"
mapfile -t nodes < <(awk '{ print $1 }' "$out/io-srun.out" | sort)
want=$(servers_expected "${nodes[@]}")
tp_check_eq "srun --io-servers=2: each task sees each leaf's last node" \
	"$(for n in "${nodes[@]}"; do echo "$n $want"; done)" \
	"$(sort "$out/io-srun.out")"
tp_check_eq "(on 2 leaves)" 2 "$(tr , '\n' <<<"$want" | wc -l)"
# shellcheck disable=SC2016
j=$(tp_as_user "$user" sbatch --parsable -N2 --io-servers=3 -o "$out/io3-%j.out" \
	--wrap 'echo "hosts ${TOPOPLACE_IO_SERVER_HOSTS:-none}"')
tp_check_eq "a 2-node job asking for 3 I/O servers still runs" COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "without servers" "hosts none" "$(cat "$out/io3-$j.out")"
tp_check_eq "and one line saying why" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: 3 I/O servers: .*: none placed")"
# IoServerCount in topoplace.conf: servers for jobs that do not ask.
cp "$etc/topoplace.conf" "$out/good.conf"
echo "IoServerCount=1" >>"$etc/topoplace.conf"
# shellcheck disable=SC2016
j=$(tp_as_user "$user" sbatch --parsable -N3 -o "$out/iocount-%j.out" \
	--wrap 'echo "hosts ${TOPOPLACE_IO_SERVER_HOSTS:-none}"')
tp_check_eq "with IoServerCount=1 a job without --io-servers completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
mapfile -t nodes < <(nodes_of "$j")
want=$(servers_expected "${nodes[@]}")
got=$(sed -n 's/^hosts //p' "$out/iocount-$j.out")
tp_check "and gets one server, the last of its nodes on a leaf ($got of ${nodes[*]})" \
	bash -c '[[ -n $1 && $1 != *,* && ,$2, == *,$1,* ]]' _ "$got" "$want"
cp "$out/good.conf" "$etc/topoplace.conf"

# --- throttling of interactive steps --------------------------------------
pacing=$abs_top_builddir/throttle/.libs/libtopoplace_pacing.so
# A task that writes 11 blocks to a regular file and prints its window,
# its LD_PRELOAD and how long the writes took (ms).
# shellcheck disable=SC2016
writer='s=${EPOCHREALTIME/[.,]/}
	dd if=/dev/zero of="$1/w.$SLURM_JOB_ID.$SLURM_STEP_ID.$SLURM_PROCID" bs=4k count=11 status=none
	e=${EPOCHREALTIME/[.,]/}
	echo "${TOPOPLACE_IO_WINDOW_US:-none} ${LD_PRELOAD:-none} $(((e - s) / 1000))"'
# window_line FILE: "WINDOW PRELOAD" of every task, unique.
window_line() { awk '{ print $1, $2 }' "$1" | sort -u; }
# slowest FILE / fastest FILE: the writes' time in ms over the tasks.
slowest() { awk '$3 > m { m = $3 } END { print m + 0 }' "$1"; }
fastest() { awk 'NR == 1 || $3 < m { m = $3 } END { print m + 0 }' "$1"; }

tp_as_user "$user" timeout 60 srun -N2 -n2 bash -c "$writer" _ "$out" \
	>"$out/t-none.out" 2>"$out/t-none.err"
tp_check_eq "srun without a flag: no window, nothing preloaded" "none none" \
	"$(window_line "$out/t-none.out")"
tp_check "(its 11 writes take < 400 ms: $(slowest "$out/t-none.out") ms)" \
	test "$(slowest "$out/t-none.out")" -lt 400

fixed50="task/topoplace: StepId=[0-9]*\.0: I/O throttle window 50000 us: window 50 ms set by the user"
before=$(slurmd_lines "$fixed50")
tp_as_user "$user" timeout 60 srun -N2 -n2 --io-throttle=50ms \
	bash -c "$writer" _ "$out" >"$out/t-srun.out" 2>"$out/t-srun.err"
tp_check_eq "srun --io-throttle=50ms: its tasks get the window and the pacing library" \
	"50000 $pacing" "$(window_line "$out/t-srun.out")"
tp_check "and their 11 writes take >= 500 ms ($(fastest "$out/t-srun.out") ms)" \
	test "$(fastest "$out/t-srun.out")" -ge 500
tp_check_eq "one log line for the step (2 nodes)" $((before + 1)) \
	"$(slurmd_lines "$fixed50")"

tp_as_user "$user" timeout 60 salloc -N2 --io-throttle=50ms \
	srun -n2 bash -c "$writer" _ "$out" >"$out/t-salloc.out" 2>"$out/t-salloc.err"
tp_check_eq "salloc --io-throttle=50ms, then srun: window and pacing library" \
	"50000 $pacing" "$(window_line "$out/t-salloc.out")"
tp_check "and the writes are paced ($(fastest "$out/t-salloc.out") ms)" \
	test "$(fastest "$out/t-salloc.out")" -ge 500

tp_as_user "$user" timeout 60 srun -N4 -n4 -J ckpt --comm-profile=ioheavy \
	bash -c "$writer" _ "$out" >"$out/t-profile.out" 2>"$out/t-profile.err"
w=$(window_line "$out/t-profile.out" | awk '{ print $1 }')
tp_check "srun --comm-profile=ioheavy (io_heavy): a window from the threshold table ($w us)" \
	bash -c '[[ $1 =~ ^[0-9]+$ ]] && (($1 > 0)) && [ "$2" = "$1 $3" ]' _ "$w" \
	"$(window_line "$out/t-profile.out")" "$pacing"
tp_check_eq "one log line with the table's reason" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep "task/topoplace: StepId=[0-9]*\.0: I/O throttle window $w us: " | grep -vc 'set by the user')"

j=$(tp_as_user "$user" sbatch --parsable -N1 -o "$out/t-batch-%j.out" \
	--wrap "srun -n1 --io-throttle=50ms bash -c '$writer' _ $out")
tp_check_eq "a batch job whose srun gives --io-throttle=50ms completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "that step's task gets the window and the pacing library" \
	"50000 $pacing" "$(window_line "$out/t-batch-$j.out")"

# --- a bad topoplace.conf on the nodes -------------------------------------
cp "$etc/topoplace.conf" "$out/good.conf"
echo "Bogus=1" >>"$etc/topoplace.conf"
bad_line=$(wc -l <"$etc/topoplace.conf")
# shellcheck disable=SC2016
j=$(tp_as_user "$user" sbatch --parsable -N4 -n16 -J hpcg --comm-profile=hpcg \
	--io-throttle=2ms -o "$out/bad-%j.out" \
	--wrap 'echo "rankfile ${TOPOPLACE_RANKFILE:-none} window ${TOPOPLACE_IO_WINDOW_US:-none}"; srun true')
tp_check_eq "with Bogus=1 in topoplace.conf a batch job still completes" \
	COMPLETED "$(tp_wait_job "$j" 60)"
tp_check_eq "unmapped and unthrottled" "rankfile none window none" \
	"$(grep '^rankfile' "$out/bad-$j.out")"
tp_check_eq "one error line for the job, naming file, line and key" 1 \
	"$(slurmd_lines "task/topoplace: JobId=$j: $etc/topoplace.conf: line $bad_line: Bogus: unknown key")"
tp_check_eq "(and no other line of it or its steps)" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -e "task/topoplace: JobId=$j:" -e "task/topoplace: StepId=$j\.")"
tp_as_user "$user" timeout 60 srun -N2 -n2 --io-throttle=2ms \
	bash -c 'echo ${TOPOPLACE_IO_WINDOW_US:-none}' >"$out/bad-srun.out" 2>"$out/bad-srun.err"
tp_check_eq "an srun step runs too, unthrottled" "none
none" "$(cat "$out/bad-srun.out")"
tp_check_eq "one error line for the step (2 nodes), naming file, line and key" 1 \
	"$(slurmd_lines "task/topoplace: StepId=[0-9]*\.0: $etc/topoplace.conf: line $bad_line: Bogus: unknown key")"
cp "$out/good.conf" "$etc/topoplace.conf"
tp_done
