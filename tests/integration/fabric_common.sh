# shellcheck shell=bash
# fabric_common.sh - shared setup of the fabric model's integration tests
# (fabric_*.sh). Source it after setting nothing; it sources
# tests/lib/fabric.sh, isolates the test, and defines:
#   $tool      the `topoplace fabric` command
#   $gen       topoplace-fattree ($TOPOPLACE_FATTREE overrides)
#   fc_check NAME CMD...            pass if CMD exits 0 (output shown if not)
#   fc_eq NAME EXPECTED ACTUAL      pass if equal (both shown if not)
#   fc_tracert_path FILE            ibtracert output -> "n0001[1] -> leaf001[5] -> ... -> n0009"
set -u
# tests/lib/fabric.sh expands $LD_PRELOAD under `set -u`
export LD_PRELOAD=${LD_PRELOAD:-}
fc_here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$fc_here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
export abs_top_srcdir abs_top_builddir
# shellcheck source=../lib/fabric.sh
. "$abs_top_srcdir/tests/lib/fabric.sh"
fabric_isolate "$@"
fabric_setup

tool=("$abs_top_builddir/tools/topoplace" fabric)
gen=${TOPOPLACE_FATTREE:-$abs_top_builddir/tools/topoplace-fattree}

fc_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		fabric_pass "$name"
	else
		fabric_fail "$name" "command failed (status $?): $*" \
			"$(printf '%s\n' "$out" | tail -n 8)"
	fi
}

fc_eq() {
	if [ "$2" = "$3" ]; then
		fabric_pass "$1"
	else
		fabric_fail "$1" "expected:" "$2" "got:" "$3"
	fi
}

# ibtracert lines "[OUT] -> switch port {GUID}[IN] lid A-B "name"" give the
# output port of the previous node and the next node's name.
fc_tracert_path() {
	awk '
	/^From / { split($0, q, "\""); split(q[2], w, " "); prev = w[1] }
	/^\[[0-9]+\] -> / {
		port = substr($1, 2, length($1) - 2)
		split($0, q, "\""); split(q[2], w, " ")
		out = out prev "[" port "] -> "; prev = w[1]
	}
	END { print out prev }' "$1"
}
