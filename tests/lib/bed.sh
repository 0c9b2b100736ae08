# bed.sh - helpers for topoplace integration tests (bash; source it).
#
# Results are printed one per line as `ok - NAME` / `not ok - NAME` (details
# on following `#` lines); tp_done prints the closing line `N passed, N failed`
# and sets the exit status: 0 all passed, 1 some failed, 77 skipped (automake).
#
#   tp_check NAME CMD...           pass if CMD exits 0
#   tp_check_eq NAME EXPECTED ACTUAL
#   tp_wait_job JOBID TIMEOUT      print the job's final state; 1 on timeout
#   tp_as_user USER CMD...         run CMD as USER (see below)
#   tp_require_bed                 skip unless tp-bed can run here
#   tp_skip REASON                 stop here: skipped
#   tp_done                        closing line and exit

tp_passed=0
tp_failed=0

tp_pass() { tp_passed=$((tp_passed + 1)); echo "ok - $1"; }

# tp_fail NAME [DETAIL...]: count a failure, print each DETAIL line as `# `.
tp_fail() {
	local name=$1
	shift
	tp_failed=$((tp_failed + 1))
	echo "not ok - $name"
	(($#)) && printf '%s\n' "$@" | sed 's/^/#   /'
	return 0
}

# tp_check NAME CMD...: run CMD; on failure show its exit status and output.
tp_check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if ((rc == 0)); then
		tp_pass "$name"
	else
		tp_fail "$name" "command: $*" "exit status: $rc" "$out"
	fi
	return "$rc"
}

# tp_check_eq NAME EXPECTED ACTUAL: values of several lines are shown as
# the lines that differ (diff -u, without its file headers), so a failure
# record cut to its first lines still shows what was wrong.
tp_check_eq() {
	if [[ $2 == "$3" ]]; then
		tp_pass "$1"
	elif [[ $2 == *$'\n'* || $3 == *$'\n'* ]]; then
		tp_fail "$1" "lines differ (-expected +actual):" \
			"$(diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tail -n +3)"
		return 1
	else
		tp_fail "$1" "expected: $2" "actual:   $3"
		return 1
	fi
}

# tp_wait_job JOBID TIMEOUT: wait until the job reaches a final state, print it
# (COMPLETED, FAILED, ...). Returns 0 once final, 1 after TIMEOUT seconds (the
# last state seen is printed then). Needs the job in slurmctld's memory
# (the bed keeps finished jobs for MinJobAge=300 s).
tp_wait_job() {
	local job=$1 deadline=$((SECONDS + $2)) state=
	while :; do
		state=$(scontrol show job -o "$job" 2>/dev/null |
			sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case $state in
		COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | PREEMPTED | \
			OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | SPECIAL_EXIT)
			echo "$state"
			return 0
			;;
		esac
		if ((SECONDS >= deadline)); then
			echo "${state:-UNKNOWN}"
			return 1
		fi
		sleep 0.2
	done
}

# tp_as_user USER CMD...: run CMD with USER's uid, gid and groups and no
# capabilities, keeping the environment (SLURM_CONF, TP_BED_*, PATH) but with
# HOME, USER and LOGNAME of USER. CMD starts in $TP_BED_JOBDIR (if set): the
# test's own directory may not be open to USER.
tp_as_user() {
	local user=$1 uid gid home
	shift
	uid=$(id -u "$user" 2>/dev/null) || { echo "tp_as_user: no user $user" >&2; return 127; }
	gid=$(id -g "$user")
	home=$(getent passwd "$user" | cut -d: -f6)
	(
		cd "${TP_BED_JOBDIR:-/}" || exit 1
		exec setpriv --reuid="$uid" --regid="$gid" --init-groups \
			env HOME="${home:-/}" USER="$user" LOGNAME="$user" "$@"
	)
}

# tp_done: print the closing line and exit 0 if nothing failed, else 1.
tp_done() {
	echo "$tp_passed passed, $tp_failed failed"
	((tp_failed == 0))
	exit
}

# tp_skip REASON: the rest of the test cannot run here. Exit 77 (skipped), or 1
# if a check already failed or TOPOPLACE_REQUIRE_ALL=1 (nothing may be skipped).
tp_skip() {
	if [[ ${TOPOPLACE_REQUIRE_ALL:-0} == 1 ]]; then
		tp_fail "skipped although TOPOPLACE_REQUIRE_ALL=1: $*"
		tp_done
	fi
	echo "# SKIP $*"
	echo "$tp_passed passed, $tp_failed failed"
	((tp_failed == 0)) || exit 1
	exit 77
}

# tp_require_bed: skip unless tp-bed can run (root, Slurm, munge, unshare).
tp_require_bed() {
	local c
	((EUID == 0)) || tp_skip "tp-bed needs root (namespaces, tmpfs)"
	for c in unshare setpriv ip munged mungekey slurmctld slurmd srun sbatch; do
		command -v "$c" >/dev/null || tp_skip "$c not installed"
	done
}

# tp_expect_fail NAME STATUS MESSAGE CMD...: CMD exits with STATUS, prints
# nothing on stdout, and its stderr is exactly the one line MESSAGE (the
# project's rule for bad input: one clear error that names what and where).
tp_expect_fail() {
	local name=$1 status=$2 message=$3 out err rc errfile
	shift 3
	errfile=$(mktemp) || { tp_fail "$name" "mktemp failed"; return; }
	out=$("$@" 2>"$errfile")
	rc=$?
	err=$(cat "$errfile")
	rm -f "$errfile"
	if ((rc == status)) && [[ -z $out && $err == "$message" ]]; then
		tp_pass "$name"
	else
		tp_fail "$name" "exit $rc (want $status)" "stdout: $out" \
			"stderr: $err" "want:   $message"
	fi
}

# tp_private_munged DIR: start a munged of its own with a new key, its
# socket DIR/munged.socket (DIR/munged.pid to stop it), and wait for it.
tp_private_munged() {
	mungekey -c -k "$1/munged.key" -b 1024 &&
		munged --socket="$1/munged.socket" --key-file="$1/munged.key" \
			--log-file="$1/munged.log" --pid-file="$1/munged.pid" \
			--seed-file="$1/munged.seed" || return
	for _ in $(seq 50); do [[ -S $1/munged.socket ]] && return; sleep 0.1; done
}
