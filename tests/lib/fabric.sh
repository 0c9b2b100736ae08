# shellcheck shell=bash
# tests/lib/fabric.sh - harness for integration tests on a simulated
# InfiniBand fabric (ibsim + libumad2sim + OpenSM). Source it from bash.
#
# Typical test:
#
#   . "$abs_top_srcdir/tests/lib/fabric.sh"
#   fabric_isolate "$@"          # FIRST: re-runs this script in private
#                                #   net/pid/mount namespaces (see below)
#   fabric_setup                 # scratch dir, cleanup traps
#   fabric_need ibsim "$FABRIC_UMAD2SIM" || fabric_finish   # 77 or failure
#   fabric_start "$net"          # ibsim serving NETFILE, bounded wait
#   fabric_run 30 ibnetdiscover >"$FABRIC_DIR/out"         # a client
#   fabric_opensm ftree          # one OpenSM sweep; 0 = ftree really ran
#   fabric_console 'Unlink "spine001"'                     # fault injection
#   fabric_pass "what was proven" / fabric_fail "what failed" "detail..."
#   fabric_finish                # "N passed, N failed"; exit 0 or 1
#
# Isolation. fabric_isolate re-executes the calling script (with "$@") under
#   unshare --net --pid --fork --kill-child --mount-proc
# (plus --user --map-root-user when not root). ibsim's sockets live in the
# abstract namespace, which is per network namespace, so nothing outside can
# reach or clash with them; the test shell is PID 1 of its own PID namespace,
# so ibsim, OpenSM and every client die with it even when the test is killed
# with SIGKILL (unshare is exec'ed, and --kill-child takes the rest down).
# Inside, fabric_setup mounts a private tmpfs over ${TMPDIR:-/tmp} when no
# path the test needs (abs_top_builddir, abs_top_srcdir, $PWD, the script)
# lies under it, so not even a SIGKILL leaves files behind; otherwise the
# scratch dir is an ordinary mktemp -d directory removed by the EXIT trap.
# Set TOPOPLACE_FABRIC_ISOLATE=0 to run without namespaces (also the
# fallback, with a note on stderr, when unshare is missing or not permitted).
#
# Rules for callers: do not use `set -e` (the helpers return statuses that
# the tests check); this library owns the EXIT/HUP/INT/TERM traps; keep
# client output in files rather than piping into `head` (a client killed by
# SIGPIPE or a timeout never detaches, and ibsim serves at most 10 clients).
#
# Environment:
#   TOPOPLACE_REQUIRE_ALL=1     missing programs are failures instead of skips
#   TOPOPLACE_UMAD2SIM=PATH     libumad2sim.so to preload (default: searched)
#   FABRIC_START_TIMEOUT=S      seconds to wait for ibsim (default 15)
#   FABRIC_CONSOLE_TIMEOUT=S    seconds to wait for a console command (10)
#   FABRIC_KEEP=1               keep the scratch dir (its path is printed)
#   SIM_HOST=NODE               (per call) attach a client at that node
#
# Variables set here: FABRIC_DIR (scratch, removed on exit), FABRIC_RUN_DIR
# (clients' cwd), FABRIC_IBSIM_LOG, FABRIC_IBSIM_PID, FABRIC_SOCKNAME,
# FABRIC_OSM_LOG (last OpenSM run), FABRIC_UMAD2SIM, FABRIC_PASSED,
# FABRIC_FAILED, FABRIC_PRIVATE_TMP (yes when the scratch is on the private
# tmpfs).

FABRIC_PASSED=${FABRIC_PASSED:-0}
FABRIC_FAILED=${FABRIC_FAILED:-0}
FABRIC_START_TIMEOUT=${FABRIC_START_TIMEOUT:-15}
FABRIC_CONSOLE_TIMEOUT=${FABRIC_CONSOLE_TIMEOUT:-10}
FABRIC_DIR=
FABRIC_RUN_DIR=
# shellcheck disable=SC2034 # informational, for callers
FABRIC_PRIVATE_TMP=no
FABRIC_IBSIM_PID=
FABRIC_SOCKNAME=
FABRIC_CONSOLE_FD=
FABRIC_CONSOLE_SEQ=0
FABRIC_OSM_RUNS=0
FABRIC_OSM_LOG=
FABRIC_IBSIM_LOG=

# libumad2sim.so: explicit override, else the first that exists.
fabric__find_umad2sim() {
	local multiarch="" candidate
	if [ -n "${TOPOPLACE_UMAD2SIM:-}" ]; then
		printf '%s\n' "$TOPOPLACE_UMAD2SIM"
		return
	fi
	multiarch=$(gcc -print-multiarch 2>/dev/null) || multiarch=""
	for candidate in \
		${multiarch:+/usr/lib/$multiarch/umad2sim/libumad2sim.so} \
		/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \
		/usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so \
		/usr/lib64/umad2sim/libumad2sim.so \
		/usr/lib/umad2sim/libumad2sim.so \
		/usr/local/lib/umad2sim/libumad2sim.so; do
		if [ -e "$candidate" ]; then
			printf '%s\n' "$candidate"
			return
		fi
	done
	# Not found: name the Debian path so a "missing" message is useful.
	printf '%s\n' /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
}
FABRIC_UMAD2SIM=$(fabric__find_umad2sim)

# ---------------------------------------------------------------------------
# Results

# fabric_pass DESCRIPTION: record and print one passed check.
fabric_pass() {
	FABRIC_PASSED=$((FABRIC_PASSED + 1))
	printf 'ok - %s\n' "$1"
}

# fabric_fail DESCRIPTION [DETAIL...]: record a failed check; details are
# printed as "#   ..." lines under it.
fabric_fail() {
	local line
	FABRIC_FAILED=$((FABRIC_FAILED + 1))
	printf 'not ok - %s\n' "$1"
	shift
	# Every line of every detail becomes a comment, so a stray line can
	# never look like a result or like the closing line.
	for line in "$@"; do
		printf '%s\n' "$line" | awk '{ print "#   " $0 }'
	done
}

# fabric_finish: print the closing "N passed, N failed" line and exit 0 if
# nothing failed (and something passed), 1 otherwise.
fabric_finish() {
	printf '%d passed, %d failed\n' "$FABRIC_PASSED" "$FABRIC_FAILED"
	if [ "$FABRIC_FAILED" -eq 0 ] && [ "$FABRIC_PASSED" -gt 0 ]; then
		exit 0
	fi
	exit 1
}

# fabric_skip REASON: skip the whole test (exit 77) with the closing line.
fabric_skip() {
	printf '# SKIP: %s\n' "$1"
	printf '%d passed, %d failed\n' "$FABRIC_PASSED" "$FABRIC_FAILED"
	exit 77
}

# fabric_need THING...: each THING is a program name (looked up in PATH) or
# a path (must exist and, unless it is a .so, be executable). When something
# is missing: skip the test (exit 77), or with TOPOPLACE_REQUIRE_ALL=1
# record one failure per missing thing and return 1 (call fabric_finish).
fabric_need() {
	local thing missing=()
	for thing in "$@"; do
		case $thing in
		*/*.so | */*.so.*) [ -r "$thing" ] || missing+=("$thing") ;;
		*/*) [ -x "$thing" ] && [ -f "$thing" ] || missing+=("$thing") ;;
		*) command -v "$thing" >/dev/null 2>&1 || missing+=("$thing") ;;
		esac
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	if [ "${TOPOPLACE_REQUIRE_ALL:-0}" = 1 ]; then
		for thing in "${missing[@]}"; do
			fabric_fail "needed program or file is present: $thing" \
				"missing (TOPOPLACE_REQUIRE_ALL=1 makes this a failure)"
		done
		return 1
	fi
	fabric_skip "missing ${missing[*]} (set TOPOPLACE_REQUIRE_ALL=1 to fail instead)"
}

# fabric_logs: print the tails of the ibsim and last OpenSM logs as comments.
fabric_logs() {
	local f
	for f in "$FABRIC_IBSIM_LOG" "$FABRIC_OSM_LOG"; do
		if [ -z "$f" ] || [ ! -s "$f" ]; then
			continue
		fi
		printf '# --- last lines of %s\n' "$f"
		tail -n 15 "$f" | awk '{ print "#   " $0 }'
	done
}

# ---------------------------------------------------------------------------
# Isolation and scratch space

# fabric_isolate "$@": re-exec the calling script in private namespaces
# (see the header). Returns only when already isolated or when isolation is
# off/unavailable.
fabric_isolate() {
	local flags=(--net --pid --fork --kill-child --mount-proc)
	if [ -n "${FABRIC_ISOLATED:-}" ]; then
		return 0
	fi
	if [ "${TOPOPLACE_FABRIC_ISOLATE:-1}" = 0 ]; then
		export FABRIC_ISOLATED=no
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		flags=(--user --map-root-user "${flags[@]}")
	fi
	if command -v unshare >/dev/null 2>&1 &&
		unshare "${flags[@]}" true >/dev/null 2>&1; then
		export FABRIC_ISOLATED=yes
		exec unshare "${flags[@]}" -- "${BASH:-bash}" "$0" "$@"
	fi
	export FABRIC_ISOLATED=no
	printf '# fabric: unshare %s failed; running without namespace isolation\n' \
		"${flags[*]}" >&2
}

# True when no path this test needs lies under directory $1.
fabric__private_tmp_ok() {
	local base path resolved script_dir
	base=$(cd "$1" 2>/dev/null && pwd -P) || return 1
	[ "$base" != / ] || return 1
	script_dir=$(cd "$(dirname "$0")" 2>/dev/null && pwd -P) || return 1
	for path in "${abs_top_builddir:-}" "${abs_top_srcdir:-}" "$PWD" \
		"$script_dir"; do
		[ -n "$path" ] || continue
		if resolved=$(cd "$path" 2>/dev/null && pwd -P); then
			path=$resolved
		fi
		case $path/ in
		"$base"/*) return 1 ;;
		esac
	done
	return 0
}

# Stop ibsim and remove the scratch dir; runs on every exit path.
fabric__cleanup() {
	local rc=$?
	trap - EXIT
	fabric_stop
	if [ -n "$FABRIC_DIR" ] && [ -d "$FABRIC_DIR" ]; then
		if [ "${FABRIC_KEEP:-0}" = 1 ]; then
			printf '# fabric: kept scratch dir %s\n' "$FABRIC_DIR" >&2
		else
			rm -rf -- "$FABRIC_DIR"
		fi
	fi
	exit "$rc"
}

# fabric_setup: create the scratch dir $FABRIC_DIR (clients run in
# $FABRIC_DIR/run, where they create sys-<pid>/) and install the traps.
fabric_setup() {
	local base=${TMPDIR:-/tmp}
	[ -z "$FABRIC_DIR" ] || return 0
	if [ "${FABRIC_ISOLATED:-}" = yes ] && [ "${FABRIC_KEEP:-0}" != 1 ] &&
		fabric__private_tmp_ok "$base" &&
		mount -t tmpfs -o mode=1777,size=1g topoplace-fabric "$base" 2>/dev/null; then
		# shellcheck disable=SC2034 # informational, for callers
		FABRIC_PRIVATE_TMP=yes
	fi
	trap fabric__cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	FABRIC_DIR=$(mktemp -d "$base/topoplace-fabric.XXXXXX") || {
		printf 'Bail out! cannot create a scratch directory under %s\n' "$base"
		exit 99
	}
	FABRIC_RUN_DIR=$FABRIC_DIR/run
	mkdir "$FABRIC_RUN_DIR" || exit 99
}

# ---------------------------------------------------------------------------
# ibsim

# 0 while process $1 exists and is not a zombie (our own children stay
# zombies until waited for, and kill -0 still succeeds on them).
fabric__alive() {
	local _pid _comm state
	[ -r "/proc/$1/stat" ] || return 1
	read -r _pid _comm state _ <"/proc/$1/stat" 2>/dev/null || return 1
	[ "$state" != Z ]
}

# fabric_start NETFILE [IBSIM-ARGS...]: start `ibsim -s` on NETFILE under a
# unique IBSIM_SOCKNAME, its console on a FIFO held open by this shell (so
# ibsim never reads EOF), log in $FABRIC_IBSIM_LOG. Limits from a
# "# ibsim-limits: ..." line of the net file (topoplace-fattree writes one)
# are passed on. Waits at most FABRIC_START_TIMEOUT seconds for "simulator
# ready" and its control socket. Returns 0, or 1 with a reason on stderr.
fabric_start() {
	local net=${1:-} limits_line fifo tries
	local limits=()
	shift || true
	[ -n "$FABRIC_DIR" ] || fabric_setup
	if [ -n "$FABRIC_IBSIM_PID" ]; then
		echo "fabric_start: ibsim is already running (pid $FABRIC_IBSIM_PID)" >&2
		return 1
	fi
	if [ -z "$net" ] || [ ! -r "$net" ]; then
		echo "fabric_start: cannot read net file '$net'" >&2
		return 1
	fi
	case $net in /*) ;; *) net=$PWD/$net ;; esac
	limits_line=$(sed -n 's/^# ibsim-limits: *//p' "$net" | head -n 1)
	if [ -n "$limits_line" ]; then
		read -r -a limits <<<"$limits_line"
	fi

	FABRIC_SOCKNAME=tpfabric-$$-$RANDOM
	FABRIC_IBSIM_LOG=$FABRIC_DIR/ibsim.log
	fifo=$FABRIC_DIR/ibsim.console
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	# O_RDWR on both ends: opening never blocks, and no reader sees EOF.
	exec {FABRIC_CONSOLE_FD}<>"$fifo"
	(
		cd "$FABRIC_RUN_DIR" || exit 1
		IBSIM_SOCKNAME=$FABRIC_SOCKNAME exec ibsim -s "${limits[@]}" "$@" "$net"
	) 0<>"$fifo" >"$FABRIC_IBSIM_LOG" 2>&1 &
	FABRIC_IBSIM_PID=$!

	tries=$((FABRIC_START_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		if ! fabric__alive "$FABRIC_IBSIM_PID"; then
			echo "fabric_start: ibsim exited before it was ready (log: $FABRIC_IBSIM_LOG):" >&2
			tail -n 5 "$FABRIC_IBSIM_LOG" | sed 's/^/fabric_start:   /' >&2
			fabric_stop
			return 1
		fi
		if grep -q 'simulator ready' "$FABRIC_IBSIM_LOG" 2>/dev/null &&
			grep -q "@$FABRIC_SOCKNAME:out" /proc/net/unix 2>/dev/null; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "fabric_start: ibsim not ready after ${FABRIC_START_TIMEOUT}s (log: $FABRIC_IBSIM_LOG)" >&2
	fabric_stop
	return 1
}

# fabric_stop: stop ibsim (TERM, then KILL after 5 s) and close its console.
# Safe to call when nothing runs.
fabric_stop() {
	local pid=$FABRIC_IBSIM_PID tries=50
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		while [ "$tries" -gt 0 ] && fabric__alive "$pid"; do
			sleep 0.1
			tries=$((tries - 1))
		done
		if fabric__alive "$pid"; then
			echo "fabric_stop: ibsim (pid $pid) ignored SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
	fi
	if [ -n "$FABRIC_CONSOLE_FD" ]; then
		exec {FABRIC_CONSOLE_FD}>&-
	fi
	FABRIC_IBSIM_PID=
	FABRIC_CONSOLE_FD=
	FABRIC_SOCKNAME=
	return 0
}

# The LD_PRELOAD for clients: libumad2sim first, then what was there already
# (ibsim-run drops it); sanitizer runtimes stay in front of everything, as
# ASan refuses to run otherwise.
fabric__preload() {
	local lib front="" back=""
	for lib in ${LD_PRELOAD:+${LD_PRELOAD//:/ }}; do
		case ${lib##*/} in
		libasan.so* | libtsan.so* | liblsan.so* | libubsan.so* | libhwasan.so* | libclang_rt.*san*)
			front="$front $lib" ;;
		*) back="$back $lib" ;;
		esac
	done
	lib="$front $FABRIC_UMAD2SIM$back"
	printf '%s\n' "${lib# }"
}

# ASAN_OPTIONS for clients built with AddressSanitizer: libumad2sim's own
# read() copies past a heap buffer (seen with ibnd_discover_fabric), so its
# reports are suppressed; and an ASan-linked client whose runtime is not
# preloaded first would refuse to start next to the umad2sim preload.
# The caller's settings win where they overlap.
fabric__asan_options() {
	local opts=${ASAN_OPTIONS:-} supp=$FABRIC_DIR/asan-umad2sim.supp
	if [ ! -e "$supp" ]; then
		printf 'interceptor_via_lib:libumad2sim.so\n' >"$supp" 2>/dev/null
	fi
	case $opts in
	*suppressions=*) ;;
	*) opts="${opts:+$opts:}suppressions=$supp" ;;
	esac
	case $opts in
	*verify_asan_link_order=*) ;;
	*) opts="$opts:verify_asan_link_order=0" ;;
	esac
	printf '%s\n' "$opts"
}

# fabric_run TIMEOUT CMD [ARGS...]: run a libibumad client against the
# simulator (preloaded libumad2sim, same IBSIM_SOCKNAME) in $FABRIC_RUN_DIR,
# killed after TIMEOUT seconds. Returns the client's status (124: timed out).
fabric_run() {
	local seconds=${1:-} rc
	shift || true
	if [ -z "$FABRIC_SOCKNAME" ]; then
		echo "fabric_run: no simulator is running (call fabric_start)" >&2
		return 125
	fi
	if [ -z "$seconds" ] || [ "$#" -eq 0 ]; then
		echo "fabric_run: usage: fabric_run TIMEOUT CMD [ARGS...]" >&2
		return 125
	fi
	(
		cd "$FABRIC_RUN_DIR" || exit 125
		exec timeout -k 5 "$seconds" env \
			IBSIM_SOCKNAME="$FABRIC_SOCKNAME" \
			LD_PRELOAD="$(fabric__preload)" \
			ASAN_OPTIONS="$(fabric__asan_options)" "$@"
	)
	rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "fabric_run: '$1' did not finish within ${seconds}s" >&2
	fi
	return "$rc"
}

# fabric_opensm ROUTING [TIMEOUT]: one OpenSM sweep (opensm -o -e -s 0
# -R ROUTING) under the preload with fresh OSM_TMP_DIR/OSM_CACHE_DIR; log in
# $FABRIC_OSM_LOG. Returns 0 when the log says "ROUTING tables configured",
# 1 when OpenSM ran but used another engine (ftree falls back to minhop on a
# fabric it does not accept), 2 when OpenSM failed or timed out.
fabric_opensm() {
	local routing=${1:-} seconds=${2:-120} dir rc engine
	if [ -z "$routing" ]; then
		echo "fabric_opensm: usage: fabric_opensm ROUTING [TIMEOUT]" >&2
		return 2
	fi
	FABRIC_OSM_RUNS=$((FABRIC_OSM_RUNS + 1))
	dir=$FABRIC_DIR/opensm.$FABRIC_OSM_RUNS
	mkdir -p "$dir" || return 2
	FABRIC_OSM_LOG=$dir/opensm.log
	OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir \
		fabric_run "$seconds" opensm -o -e -s 0 -R "$routing" \
		-F /dev/null -f "$FABRIC_OSM_LOG" >"$dir/stdout" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "fabric_opensm: opensm -R $routing exited with status $rc (log: $FABRIC_OSM_LOG)" >&2
		return 2
	fi
	if grep -q "$routing tables configured" "$FABRIC_OSM_LOG"; then
		return 0
	fi
	engine=$(grep -o '[a-z_]* tables configured' "$FABRIC_OSM_LOG" | tail -n 1)
	echo "fabric_opensm: no '$routing tables configured' in $FABRIC_OSM_LOG (found: '${engine:-nothing}')" >&2
	return 1
}

# fabric_console CMD [TIMEOUT]: send one console command to ibsim (e.g.
# 'Unlink "spine001"', 'ReLink "spine001"', 'Dump "leaf001"') and wait until
# ibsim has processed it; its output is printed on stdout. Returns 1 when
# ibsim reports an unknown node or port, or does not answer in time.
fabric_console() {
	local cmd=${1:-} seconds=${2:-$FABRIC_CONSOLE_TIMEOUT} marker start tries out
	if [ -z "$FABRIC_CONSOLE_FD" ] || [ -z "$FABRIC_IBSIM_PID" ]; then
		echo "fabric_console: no simulator is running" >&2
		return 1
	fi
	case $cmd in
	'' | *$'\n'*)
		echo "fabric_console: need one single-line command" >&2
		return 1 ;;
	esac
	if [ "${#cmd}" -gt 120 ]; then
		echo "fabric_console: command longer than ibsim's 127-byte line" >&2
		return 1
	fi
	# ibsim echoes comment lines: one after the command marks its end.
	FABRIC_CONSOLE_SEQ=$((FABRIC_CONSOLE_SEQ + 1))
	marker="# topoplace-console-sync-$FABRIC_CONSOLE_SEQ-$$"
	start=$(stat -c %s "$FABRIC_IBSIM_LOG")
	printf '%s\n%s\n' "$cmd" "$marker" >&"$FABRIC_CONSOLE_FD"
	tries=$((seconds * 10))
	until tail -c "+$((start + 1))" "$FABRIC_IBSIM_LOG" | grep -qF -- "$marker"; do
		if ! fabric__alive "$FABRIC_IBSIM_PID" || [ "$tries" -le 0 ]; then
			echo "fabric_console: ibsim did not process '$cmd' within ${seconds}s" >&2
			return 1
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	out=$(tail -c "+$((start + 1))" "$FABRIC_IBSIM_LOG" |
		sed -e "\\|$marker|,\$d" -e 's/^\(sim> \)*//')
	[ -z "$out" ] || printf '%s\n' "$out"
	case $out in
	*'not found'* | *'bad '* | *'invalid'* | *'unknown'*)
		echo "fabric_console: ibsim rejected '$cmd'" >&2
		return 1 ;;
	esac
	return 0
}
