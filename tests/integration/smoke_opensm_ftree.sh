#!/bin/bash
# Smoke test: OpenSM's fat-tree routing on a simulated fat tree.
#
# topoplace-fattree writes a 2-level fat tree (4 leaves x 4 hosts, 2 spines),
# ibsim serves it, one OpenSM sweep with -R ftree must really use ftree (its
# log says "ftree tables configured"; ftree silently falls back to minhop on
# fabrics it rejects), and the linear forwarding tables read back with
# dump_fts / ibroute must route every host LID on every switch: a leaf sends
# its own hosts out of their host ports (1..4) and everything else up (5..6);
# a spine sends each host down the port of that host's leaf. Finally a
# degraded fabric (one leaf uplink unlinked) must make ftree fall back, which
# the harness must notice, and relinking must bring ftree back.
#
# Needs: ibsim, opensm, dump_fts, ibroute, libumad2sim.so, timeout, and the
# built tools/topoplace-fattree. Output: one "ok - ..." / "not ok - ..." line
# per check, then "N passed, N failed". Exit 0 / 1, or 77 when something is
# missing (a failure instead with TOPOPLACE_REQUIRE_ALL=1).
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=tests/lib/fabric.sh
. "$abs_top_srcdir/tests/lib/fabric.sh"
fabric_isolate "$@"
fabric_setup

gen=$abs_top_builddir/tools/topoplace-fattree
fabric_need ibsim opensm dump_fts ibroute timeout mkfifo awk \
	"$FABRIC_UMAD2SIM" "$gen" || fabric_finish

LEAVES=4
HOSTS_PER_LEAF=4
SPINES=2
HOSTS=$((LEAVES * HOSTS_PER_LEAF))
net=$FABRIC_DIR/fat-4x4.net
err=$FABRIC_DIR/step.err
fts=$FABRIC_DIR/dump_fts.out
routes=$FABRIC_DIR/routes.txt

# routes_from FILE: dump_fts/ibroute output -> "switch host lid port" lines,
# one per LFT entry whose destination is a channel adapter.
routes_from() {
	awk -v q="'" '
	/^Unicast lids/ {
		sw = $0
		sub(/^.*\(/, "", sw)
		sub(/\):.*$/, "", sw)
		next
	}
	/Channel Adapter/ {
		host = $0
		sub("^[^" q "]*" q, "", host)
		sub(/[ '"'"'].*$/, "", host)
		printf "%s %s %s %d\n", sw, host, $1, $2 + 0
	}' "$1"
}

# check_switch_routes SWITCH EXPECT: EXPECT is a function printing the
# wanted out port (or a port range "a-b") for host index H (1-based); every
# host LID must appear exactly once in SWITCH's table, on a wanted port.
check_switch_routes() {
	local sw=$1 expect=$2 h host port want problems=() count
	for h in $(seq 1 "$HOSTS"); do
		host=$(printf 'n%04d' "$h")
		count=$(awk -v s="$sw" -v n="$host" '$1 == s && $2 == n' "$routes" | wc -l)
		if [ "$count" -ne 1 ]; then
			problems+=("$host: $count LFT entries, want 1")
			continue
		fi
		port=$(awk -v s="$sw" -v n="$host" '$1 == s && $2 == n { print $4 }' "$routes")
		want=$("$expect" "$sw" "$h")
		case $want in
		*-*)
			if [ "$port" -lt "${want%-*}" ] || [ "$port" -gt "${want#*-}" ]; then
				problems+=("$host: out port $port, want $want")
			fi ;;
		*)
			[ "$port" -eq "$want" ] || problems+=("$host: out port $port, want $want") ;;
		esac
	done
	[ "${#problems[@]}" -eq 0 ] && return 0
	printf '%s\n' "${problems[@]}" | head -n 8
	return 1
}

# Leaf lNNN: own hosts on ports 1..H, the rest up on H+1..H+S.
# shellcheck disable=SC2317 # called through check_switch_routes
leaf_port() {
	local leaf=$((10#${1#leaf})) h=$2
	if [ $(((h - 1) / HOSTS_PER_LEAF + 1)) -eq "$leaf" ]; then
		echo $(((h - 1) % HOSTS_PER_LEAF + 1))
	else
		echo "$((HOSTS_PER_LEAF + 1))-$((HOSTS_PER_LEAF + SPINES))"
	fi
}

# Spine: port l leads to leaf l.
# shellcheck disable=SC2317 # called through check_switch_routes
spine_port() {
	echo $((($2 - 1) / HOSTS_PER_LEAF + 1))
}

# 1. fixture and simulator
if "$gen" --leaves "$LEAVES" --hosts-per-leaf "$HOSTS_PER_LEAF" \
	--spines "$SPINES" -o "$net" 2>"$err"; then
	fabric_pass "topoplace-fattree writes the 4x4 fat tree"
else
	fabric_fail "topoplace-fattree writes the 4x4 fat tree" "$(cat "$err")"
	fabric_finish
fi
if fabric_start "$net" 2>"$err"; then
	fabric_pass "ibsim serves the generated fabric"
else
	fabric_fail "ibsim serves the generated fabric" "$(cat "$err")"
	fabric_logs
	fabric_finish
fi

# 2. OpenSM with ftree
if fabric_opensm ftree 2>"$err"; then
	fabric_pass "OpenSM routes with ftree (log: ftree tables configured)"
else
	fabric_fail "OpenSM routes with ftree (log: ftree tables configured)" \
		"$(cat "$err")"
	fabric_logs
	fabric_finish
fi

# 3. forwarding tables
if fabric_run 60 dump_fts >"$fts" 2>"$err"; then
	fabric_pass "dump_fts reads the forwarding tables"
else
	fabric_fail "dump_fts reads the forwarding tables" "$(tail -n 3 "$err")"
	fabric_finish
fi
routes_from "$fts" >"$routes"
for leaf in $(seq 1 "$LEAVES"); do
	sw=$(printf 'leaf%03d' "$leaf")
	desc="$sw routes all $HOSTS host LIDs: own hosts down ports 1-$HOSTS_PER_LEAF, the rest up"
	if out=$(check_switch_routes "$sw" leaf_port); then
		fabric_pass "$desc"
	else
		fabric_fail "$desc" "$out"
	fi
done
for spine in $(seq 1 "$SPINES"); do
	sw=$(printf 'spine%03d' "$spine")
	desc="$sw routes all $HOSTS host LIDs down to the port of their leaf"
	if out=$(check_switch_routes "$sw" spine_port); then
		fabric_pass "$desc"
	else
		fabric_fail "$desc" "$out"
	fi
done

# 4. ibroute by LID agrees with dump_fts for leaf001
leaf_lid=$(awk '/Switch portguid/ && /'"'"'leaf001'"'"'/ { print $1 }' "$fts" | head -n 1)
if [ -z "$leaf_lid" ]; then
	fabric_fail "ibroute shows leaf001's table like dump_fts" \
		"no LID for leaf001 in the dump_fts output"
elif fabric_run 30 ibroute "$leaf_lid" >"$FABRIC_DIR/ibroute.out" 2>"$err"; then
	a=$(routes_from "$FABRIC_DIR/ibroute.out" | sort)
	b=$(grep '^leaf001 ' "$routes" | sort)
	if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(printf '%s\n' "$a" | wc -l)" -eq "$HOSTS" ]; then
		fabric_pass "ibroute $leaf_lid (leaf001) shows the same $HOSTS host routes as dump_fts"
	else
		fabric_fail "ibroute $leaf_lid (leaf001) shows the same $HOSTS host routes as dump_fts" \
			"ibroute: $(printf '%s\n' "$a" | wc -l) routes" "dump_fts: $(printf '%s\n' "$b" | wc -l) routes"
	fi
else
	fabric_fail "ibroute shows leaf001's table like dump_fts" "$(tail -n 3 "$err")"
fi

# 5. negative control: ftree rejects a degraded tree and the harness says so
if fabric_console "Unlink \"leaf001\"[$((HOSTS_PER_LEAF + 1))]" >/dev/null 2>"$err"; then
	fabric_opensm ftree 2>"$err"
	rc=$?
	if [ "$rc" -eq 1 ]; then
		fabric_pass "with a leaf uplink unlinked, ftree falls back and fabric_opensm reports it"
	else
		fabric_fail "with a leaf uplink unlinked, ftree falls back and fabric_opensm reports it" \
			"fabric_opensm returned $rc, want 1" "$(cat "$err")"
	fi
	if fabric_console 'ReLink "leaf001"' >/dev/null 2>"$err" &&
		fabric_opensm ftree 2>"$err"; then
		fabric_pass "after ReLink, ftree routes the fabric again"
	else
		fabric_fail "after ReLink, ftree routes the fabric again" "$(cat "$err")"
	fi
else
	fabric_fail "ibsim console unlinks a leaf uplink" "$(cat "$err")"
fi

[ "$FABRIC_FAILED" -eq 0 ] || fabric_logs
fabric_finish
