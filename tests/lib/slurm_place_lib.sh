# shellcheck shell=bash
# slurm_place_lib.sh - the shared setup of the end-to-end tests of
# topoplace's Slurm plugins (slurm_place.sh, slurm_interactive.sh,
# slurm_restart.sh). Source it after bed.sh.
#
# Outside the bed:
#   tp_slurm_bed NAME [tp-bed options...]
#       run "$0 --inside" in a tp-bed cluster whose topology.conf is a fat
#       tree of 4 leaves x 4 hosts (topoplace-fattree), with the build
#       tree's select, task and SPANK plugins, 4 CPUs a node and TmpFS in
#       the bed; logs kept in tests/integration/NAME.keep on failure.
#       plugstack.conf is README.md's documented line (its directory
#       replaced by the build tree's); with TP_SLURM_DOCUMENTED_TASK=1,
#       TaskPlugin is README.md's documented line too.
#       Exits with the test's status.
# Inside the bed:
#   tp_slurm_setup             user out etc tp sock store log gen (below)
#   leaf_of NODE               the leaf switch of NODE in topology.conf
#   leaves_of_job JOB          the leaves of JOB's nodes, sorted, one line
#   leaves_disjoint "A.." "B.." true when both lists are non-empty and no
#                              leaf is in both
#   wait_state JOB STATE SECS  poll until JOB is in STATE; 1 on timeout
#   wait_for SECS CMD...       poll until CMD succeeds; 1 on timeout
#   reconfigure_and_wait PAT   scontrol reconfigure, wait for PAT in the log
#                              and for every node to register again
#   nodes_registered SECS      poll until no node is UNKNOWN (not registered
#                              since slurmctld started: Slurm 24.11's
#                              reconfigure restarts slurmctld and slurmd)
#   tp_slurm_profiles          the store; profiles hpcg (comm_sensitive),
#                              ioheavy (io_heavy), quiet signed by $user
#   tp_slurm_conf              topoplace.conf (FabricSource=topology, the
#                              store, a threshold table, throttling for
#                              io_heavy) loaded by a reconfigure
#   tp_restart_slurmctld       stop slurmctld, start it again on its state

# documented_line REGEX: the first line of README.md (the admin's
# instructions) matching REGEX.
documented_line() { grep -m1 -E -- "$1" "$abs_top_srcdir/README.md"; }

tp_slurm_bed() {
	local name=$1 plugins work rc plugstack task=task/topoplace
	local extra=()
	shift
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	tp_require_bed
	plugins=${TP_PLUGIN_BUILD_DIR:-$abs_top_builddir/slurm-plugin/.libs}
	# Scratch outside the build tree (distclean must find it clean).
	work=$(mktemp -d "/tmp/tp-$name.XXXXXX") && chmod 755 "$work" || exit 1
	plugstack=$(documented_line '^(optional|required) /.*/spank_topoplace\.so$') ||
		{ echo "tp_slurm_bed: no plugstack.conf line in README.md"; exit 1; }
	echo "${plugstack%% *} $plugins/spank_topoplace.so" >"$work/plugstack.conf"
	if [ -n "${TP_SLURM_DOCUMENTED_TASK:-}" ]; then
		task=$(documented_line '^TaskPlugin=' | sed 's/^TaskPlugin=//') ||
			{ echo "tp_slurm_bed: no TaskPlugin line in README.md"; exit 1; }
		# The bed declares 4 CPUs a node on a host with fewer: no
		# automatic binding (task/affinity cannot lay 4 tasks out on
		# 2 real CPUs); a binding the user asks for still works.
		extra=(--conf TaskPluginParam=none)
	fi
	# TP_BED_FATTREE: another shape of the same 16 hosts in 4 leaves (e.g.
	# 2 pods for slurm_pods.sh); topoplace-fattree's options.
	# shellcheck disable=SC2086
	"$abs_top_builddir/tools/topoplace-fattree" \
		${TP_BED_FATTREE:---leaves 4 --hosts-per-leaf 4 --spines 2} \
		--format slurm -o "$work/topology.conf" || exit 1
	# The pacing library from the build tree (task/topoplace preloads it).
	export TOPOPLACE_LIBDIR=$abs_top_builddir/throttle/.libs
	"$abs_top_srcdir/tests/lib/tp-bed" --topology "$work/topology.conf" \
		--cpus 4 --select select/topoplace_cons_tres \
		--conf "TmpFS=/run/topoplace-bed/jobs" \
		--task-plugin "$task" "${extra[@]}" \
		--plugin-dir "$plugins" --plugstack "$work/plugstack.conf" \
		--keep "$abs_top_builddir/tests/integration/$name.keep" \
		"$@" -- "$0" --inside
	rc=$?
	rm -rf "$work"
	exit $rc
}

tp_slurm_setup() {
	user=${TP_TEST_USER:-tpalice}
	id -u "$user" >/dev/null 2>&1 || tp_skip "user $user does not exist"
	out=$TP_BED_JOBDIR
	etc=$(dirname "$SLURM_CONF")
	tp=$abs_top_builddir/tools/topoplace
	sock=$TP_BED_DIR/munge/munge.socket
	store=$TP_BED_DIR/store
	log=$TP_BED_SLURMCTLD_LOG
	gen=$abs_top_builddir/tests/integration/slurm_profile_gen
}

leaf_of() {
	local sw nodes
	while read -r sw nodes; do
		scontrol show hostnames "$nodes" | grep -qx "$1" && { echo "$sw"; return; }
	done < <(sed -n 's/^SwitchName=\(leaf[0-9]*\) Nodes=\(.*\)/\1 \2/p' "$etc/topology.conf")
}

leaves_of_job() {
	local n
	for n in $(scontrol show hostnames "$(squeue -h -j "$1" -o %N)"); do
		leaf_of "$n"
	done | sort -u | xargs
}

leaves_disjoint() {
	local l
	[ -n "$1" ] && [ -n "$2" ] || return 1
	for l in $1; do
		grep -qw -- "$l" <<<"$2" && return 1
	done
	return 0
}

wait_for() { # SECS CMD...
	local i secs=$1
	shift
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

wait_state() { # JOB STATE SECS
	local i
	for ((i = 0; i < $3 * 5; i++)); do
		[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# Seconds from a job's SubmitTime to its StartTime, on slurmctld's clock.
# The wait bounds (LeafWaitMax, IsolationWaitMax) count whole seconds of
# that clock from SubmitTime; a shell clock started after sbatch returned
# can see 3 s for a job that waited its 4.
job_waited() { # JOB
	local t s
	t=$(scontrol show job "$1")
	s=$(grep -o 'SubmitTime=[^ ]*' <<<"$t" | cut -d= -f2)
	t=$(grep -o 'StartTime=[^ ]*' <<<"$t" | cut -d= -f2)
	echo $(($(date -d "$t" +%s) - $(date -d "$s" +%s)))
}

# Waits TP_RECONFIGURE_WAIT seconds (default 10) for the line.
# Tests that check where jobs go wait for this after a reconfigure, so
# that the layout they expect is the one every host being up gives; the
# plugin itself makes a `leaf` job wait for such hosts (TP_HOST_NOT_READY).
nodes_registered() { # SECS
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		sinfo -h -N -o %T 2>/dev/null | grep -q '^unknown' || return 0
		sleep 0.2
	done
	return 1
}

reconfigure_and_wait() { # PATTERN: the slurmctld log line to wait for
	local before i
	before=$(grep -c -- "$1" "$log")
	scontrol reconfigure
	for ((i = 0; i < ${TP_RECONFIGURE_WAIT:-10} * 5; i++)); do
		if (($(grep -c -- "$1" "$log") > before)); then
			nodes_registered "${TP_RECONFIGURE_WAIT:-10}"
			return
		fi
		sleep 0.2
	done
	return 1
}

# tp_site_conf [LINE...]: the bed's topoplace.conf (the fabric from
# topology.conf, the store, DefaultPlacement=off so that only the jobs'
# own --placement flags place them) with LINEs after, loaded by a
# reconfigure of slurmctld, as the tests of one site key need it.
tp_site_conf() {
	{
		printf 'FabricSource=topology\nProfileStore=%s\nDefaultPlacement=off\n' "$store"
		(($#)) && printf '%s\n' "$@"
	} >"$etc/topoplace.conf"
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
}

tp_slurm_profiles() {
	local p
	mkdir -p "$store" && chmod 755 "$store"
	install -d -o "$user" -m 755 "$store/$user"
	"$tp" profile import --from matrix -o "$out/hpcg.tpp" \
		"$abs_top_srcdir/tests/data/matrices/HPCG-16.txt" >/dev/null
	chmod 644 "$out/hpcg.tpp"
	"$gen" io_heavy 4 "$out/ioheavy.tpp" && "$gen" quiet 4 "$out/quiet.tpp" ||
		tp_fail "slurm_profile_gen makes the test profiles"
	chmod 644 "$out"/*.tpp
	for p in hpcg ioheavy quiet; do
		tp_check "$user signs and stores profile $p" tp_as_user "$user" \
			"$tp" profile put --store "$store" --munge-socket "$sock" \
			"$out/$p.tpp" "$user/$p"
	done
}

# DecisionBudget=1s: the tests check the bed's decisions, not the host's
# speed (under CI's load the default 2 ms was spent and jobs fell back to
# plain cons_tres); the budget itself is slurm_fallback.sh's subject (6).
tp_slurm_conf() {
	cat >"$etc/io-thresholds.csv" <<CSV
# topoplace-thresholds v1
request_bytes,clients,threshold_us,plateau_us,confidence
1048576,4,2000,100,1
CSV
	cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
ProfileStore=$store
DefaultPlacement=auto
ThresholdTable=$etc/io-thresholds.csv
ThrottleMode=preload
ThrottleClasses=io_heavy
DecisionBudget=1s
# The tests of this bed check whole-leaf holds with 3-node jobs on 4-host
# leaves: under the default (compatible) such a job holds nothing.
# slurm_leaf_remainder.sh checks the default.
LeafRemainder=whole
CONF
	tp_check "slurmctld loads topoplace.conf and the fabric on reconfigure" \
		reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
}

# tp_restart_slurmctld: stop slurmctld (state saved) and start it again with
# tp-bed's command line minus -c (which would discard the jobs), under
# $TP_BED_CTLD_WRAPPER if the bed runs slurmctld under one.
tp_restart_slurmctld() {
	local pid i wrapper=() polls=150
	read -ra wrapper <<<"${TP_BED_CTLD_WRAPPER:-}"
	((${#wrapper[@]})) && polls=1500
	pid=$(cat "$TP_BED_DIR/run/slurmctld.pid") || return 1
	scontrol shutdown slurmctld || return 1
	for ((i = 0; i < polls; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$pid" 2>/dev/null && { echo "slurmctld $pid did not stop"; return 1; }
	"${wrapper[@]}" slurmctld -D </dev/null >>"$TP_BED_LOGDIR/slurmctld.out" 2>&1 &
	for ((i = 0; i < polls; i++)); do
		timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && return 0
		sleep 0.2
	done
	echo "slurmctld did not answer after the restart"
	return 1
}

# --- helpers of the fault tests (slurm_faults_combined.sh) --------------------
#   system_comment JOB         the job's SystemComment
#   since N                    the slurmctld log after its first N lines
#   elapsed_ms VAR CMD...      run CMD (output dropped, bounded by the
#                              caller), its wall time in ms into VAR;
#                              returns CMD's status
#   tp_check_responsive WHAT NODE
#                              checks that scontrol ping, squeue and a
#                              trivial `srun -J tp-probe -w NODE true`
#                              each answer within TP_RESPONSIVE_MS (default
#                              15 s: an outcome check; the stall of issue #14
#                              was minutes and RPCs timing out after the bed's
#                              MessageTimeout of 10 s, while a CI host at load
#                              20 takes up to ~6 s for a plain srun; the
#                              measured ms are in the check's label)
#   tp_stop_slurmd NODE        stop NODE's slurmd (jobs and slurmstepd keep
#                              running), wait until it has exited
#   tp_start_slurmd NODE       start NODE's slurmd as tp-bed does, wait until
#                              it has started (a new pid file and a new
#                              "started" line in its log)
#   tp_restart_slurmd NODE     tp_stop_slurmd, then tp_start_slurmd
#   tp_stop_munged, tp_start_munged
#                              stop the bed's munged (its socket goes away),
#                              start it again with the same key and socket

# scontrol prints SystemComment on a line of its own.
system_comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=\(.*\) $/\1/p'; }
since() { tail -n +"$(($1 + 1))" "$log"; }

elapsed_ms() {
	local -n ms_out=$1
	local start rc
	shift
	start=${EPOCHREALTIME/[.,]/}
	"$@" >/dev/null 2>&1
	rc=$?
	ms_out=$(((${EPOCHREALTIME/[.,]/} - start) / 1000))
	return $rc
}

tp_check_responsive() { # WHAT NODE
	local ms rc limit=${TP_RESPONSIVE_MS:-15000}
	elapsed_ms ms timeout 30 scontrol ping
	rc=$?
	tp_check "$1: scontrol ping answers in $ms ms (under $((limit / 1000)) s)" \
		test "$rc" = 0 -a "$ms" -lt "$limit"
	elapsed_ms ms timeout 30 squeue
	rc=$?
	tp_check "$1: squeue answers in $ms ms (under $((limit / 1000)) s)" \
		test "$rc" = 0 -a "$ms" -lt "$limit"
	elapsed_ms ms timeout 30 srun -J tp-probe -w "$2" true
	rc=$?
	tp_check "$1: srun -w $2 true ends in $ms ms (under $((limit / 1000)) s)" \
		test "$rc" = 0 -a "$ms" -lt "$limit"
}

tp_stop_slurmd() { # NODE
	local pid i
	pid=$(cat "$TP_BED_DIR/run/slurmd.$1.pid") || return 1
	kill "$pid" || return 1
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	echo "slurmd $pid did not stop"
	return 1
}

tp_start_slurmd() { # NODE
	local old i started nlog=$TP_BED_LOGDIR/slurmd.$1.log
	# The stopped slurmd's pid file may stay behind: the new one differs.
	old=$(cat "$TP_BED_DIR/run/slurmd.$1.pid" 2>/dev/null)
	started=$(grep -c "slurmd version .* started" "$nlog" 2>/dev/null)
	slurmd -D -N "$1" </dev/null >>"$TP_BED_LOGDIR/slurmd.$1.out" 2>&1 &
	for ((i = 0; i < 150; i++)); do
		(($(grep -c "slurmd version .* started" "$nlog" 2>/dev/null) > ${started:-0})) &&
			[ "$(cat "$TP_BED_DIR/run/slurmd.$1.pid" 2>/dev/null)" != "$old" ] &&
			return 0
		sleep 0.2
	done
	echo "slurmd -N $1 did not start again"
	return 1
}

tp_restart_slurmd() { # NODE
	tp_stop_slurmd "$1" && tp_start_slurmd "$1"
}

tp_stop_munged() {
	local pid i
	pid=$(cat "$TP_BED_DIR/run/munged.pid") || return 1
	kill "$pid" || return 1
	# munged removes its socket and pid file as it exits.
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || [ -e "$TP_BED_DIR/munge/munge.socket" ] ||
			return 0
		sleep 0.1
	done
	echo "munged $pid did not stop"
	return 1
}

tp_start_munged() {
	local m=$TP_BED_DIR/munge i
	munged --foreground --socket="$m/munge.socket" --key-file="$m/munge.key" \
		--log-file="$TP_BED_LOGDIR/munged.log" \
		--pid-file="$TP_BED_DIR/run/munged.pid" --seed-file="$m/munged.seed" \
		</dev/null >>"$TP_BED_LOGDIR/munged.out" 2>&1 &
	for ((i = 0; i < 50; i++)); do
		munge -n -S "$m/munge.socket" 2>/dev/null |
			unmunge -S "$m/munge.socket" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "munged did not answer after its start"
	return 1
}
