# pacing.sh: what the pacing library's integration tests share (sourced
# after bed.sh by pacing_preload.sh, pacing_phase.sh and pacing_link.sh).
#
# pacing_setup NAME: lib (libtopoplace_pacing.so) and writer (the
# pacing_writer test program) from the build, the test skipped when either
# is missing; tmp, a new directory removed at exit, on tmpfs when there is
# one (the disk is not under test).
pacing_setup() {
	lib=$abs_top_builddir/throttle/.libs/libtopoplace_pacing.so
	writer=$abs_top_builddir/tests/integration/pacing_writer
	[[ -f $lib ]] || tp_skip "pacing library not built: $lib"
	[[ -x $writer ]] || tp_skip "writer not built: $writer"
	local base=${TMPDIR:-/tmp}
	[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
	tmp=$(mktemp -d "$base/tp-$1.XXXXXX") || exit 1
	# shellcheck disable=SC2064 # the directory is known now
	trap "rm -rf '$tmp'" EXIT
}

# fcmp EXPR: floating-point comparison by awk, exit 0 if true.
fcmp() { awk "BEGIN { exit !($*) }"; }

# stat_of STATS KEY [PID]: KEY from the library's summary lines (of
# process PID), one line per process.
stat_of() {
	awk -v k="$2" -v p="${3:-}" '$1 == "pacing" && (p == "" || $2 == "pid=" p) {
		for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"
}
