#!/bin/bash
# Smoke test: fabric discovery through libibnetdisc on a simulated fat tree.
#
# topoplace-fattree writes a 2-level fat tree (4 leaves x 4 hosts, 2 spines),
# ibsim serves it, and ibnd_leaves (libibnetdisc + BFS levelling from the
# CAs) must find exactly leaf001..leaf004, each with exactly its 4 hosts.
# Then ibsim's console takes a spine and a leaf away, and discovery must
# follow: the leaves stay levelled without spine001, and leaf004 with its
# hosts disappears when it is unlinked.
#
# Needs: ibsim (ibsim-utils), libumad2sim.so (libumad2sim0), timeout, and the
# built tools/topoplace-fattree and tests/integration/ibnd_leaves.
# Output: one "ok - ..." / "not ok - ..." line per check, then
# "N passed, N failed". Exit 0 / 1, or 77 when something is missing (a
# failure instead with TOPOPLACE_REQUIRE_ALL=1).
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=tests/lib/fabric.sh
. "$abs_top_srcdir/tests/lib/fabric.sh"
fabric_isolate "$@"
fabric_setup

gen=$abs_top_builddir/tools/topoplace-fattree
leaves_prog=$abs_top_builddir/tests/integration/ibnd_leaves
fabric_need ibsim timeout mkfifo "$FABRIC_UMAD2SIM" "$gen" "$leaves_prog" ||
	fabric_finish

net=$FABRIC_DIR/fat-4x4.net
out=$FABRIC_DIR/leaves.out
err=$FABRIC_DIR/leaves.err

# The leaf lines ibnd_leaves must print for leaves FIRST..LAST of 4 hosts.
expected_leaves() {
	local leaf host
	for leaf in $(seq "$1" "$2"); do
		printf 'leaf leaf%03d hosts=4' "$leaf"
		for host in $(seq $(((leaf - 1) * 4 + 1)) $((leaf * 4))); do
			printf ' n%04d' "$host"
		done
		printf '\n'
	done
}

# discover DESCRIPTION: run ibnd_leaves into $out; record a failure if it
# does not exit 0.
discover() {
	local rc
	fabric_run 60 "$leaves_prog" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fabric_fail "$1" "ibnd_leaves exited with status $rc" \
			"$(tail -n 3 "$err")"
		return 1
	fi
	return 0
}

# check_leaf_lines DESCRIPTION FIRST LAST: leaf lines equal the expected ones.
check_leaf_lines() {
	local want got
	want=$(expected_leaves "$2" "$3")
	got=$(grep '^leaf ' "$out")
	if [ "$got" = "$want" ]; then
		fabric_pass "$1"
	else
		fabric_fail "$1" "expected:" "$want" "got:" "${got:-<no leaf lines>}"
	fi
}

# check_summary DESCRIPTION PATTERN: the summary line matches PATTERN (ERE).
check_summary() {
	local line
	line=$(grep '^summary ' "$out")
	if printf '%s\n' "$line" | grep -Eq -- "$2"; then
		fabric_pass "$1"
	else
		fabric_fail "$1" "summary: ${line:-<none>}" "wanted /$2/"
	fi
}

# 1. fixture
if "$gen" --leaves 4 --hosts-per-leaf 4 --spines 2 -o "$net" 2>"$err" &&
	[ "$(grep -c '^Switch' "$net")" -eq 6 ] && [ "$(grep -c '^Ca' "$net")" -eq 16 ]; then
	fabric_pass "topoplace-fattree writes a 4x4 fat tree with 6 switches and 16 CAs"
else
	fabric_fail "topoplace-fattree writes a 4x4 fat tree with 6 switches and 16 CAs" \
		"$(cat "$err")"
	fabric_finish
fi

# 2. simulator
if fabric_start "$net" 2>"$err"; then
	fabric_pass "ibsim serves the generated fabric"
else
	fabric_fail "ibsim serves the generated fabric" "$(cat "$err")"
	fabric_logs
	fabric_finish
fi

# 3-5. full fabric
if discover "libibnetdisc discovers the whole fabric"; then
	fabric_pass "libibnetdisc discovers the whole fabric"
	check_summary "BFS levelling finds 4 leaves below 2 spines, 16 hosts, nothing unlevelled" \
		'^summary nodes=22 switches=6 cas=16 leaves=4 max_level=2 unlevelled=0$'
	check_leaf_lines "exactly leaf001..leaf004, each with exactly its hosts n0001..n0016 in order" 1 4
fi

# 6-7. a spine is unlinked: the others still level the leaves correctly
if fabric_console 'Unlink "spine001"' >/dev/null 2>"$err"; then
	if discover "discovery runs with spine001 unlinked"; then
		check_summary "with spine001 unlinked: 5 switches, still 4 leaves at level 1" \
			'^summary nodes=21 switches=5 cas=16 leaves=4 max_level=2 unlevelled=0$'
		check_leaf_lines "with spine001 unlinked: leaves and hosts unchanged" 1 4
	fi
else
	fabric_fail "ibsim console unlinks spine001" "$(cat "$err")"
fi

# 8. a leaf is unlinked: it and its hosts vanish, the rest stay
if fabric_console 'Unlink "leaf004"' >/dev/null 2>"$err"; then
	if discover "discovery runs with leaf004 unlinked"; then
		check_leaf_lines "with leaf004 unlinked: exactly leaf001..leaf003 with their hosts" 1 3
	fi
else
	fabric_fail "ibsim console unlinks leaf004" "$(cat "$err")"
fi

# 9. clean stop
pid=$FABRIC_IBSIM_PID
fabric_stop
if [ -n "$pid" ] && [ ! -e "/proc/$pid" ]; then
	fabric_pass "fabric_stop ends ibsim"
else
	fabric_fail "fabric_stop ends ibsim" "pid ${pid:-<none>} still exists"
fi

[ "$FABRIC_FAILED" -eq 0 ] || fabric_logs
fabric_finish
