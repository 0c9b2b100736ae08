#!/bin/bash
# fabric_errors.sh - every bad input of `topoplace fabric` gives one clear
# error line naming what and where, with exit status 1 (bad data, no
# device) or 2 (bad usage): truncated and foreign caches, garbage and
# malformed topology.conf, unknown hosts, a bad name map, no InfiniBand
# device, and a fabric no subnet manager has configured (no LIDs: the
# route falls back to D-mod-k and says so).
# Output: "ok"/"not ok" lines, then "N passed, N failed".
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need timeout "${tool[0]}" || fabric_finish
data=$abs_top_srcdir/tests/data/fabric
d=$FABRIC_DIR

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS and its stderr has a
# line "topoplace fabric...: ..." matching PATTERN (ERE).
expect() {
	local name=$1 want=$2 pattern=$3 rc lines
	shift 3
	"$@" >"$d/out" 2>"$d/err"
	rc=$?
	lines=$(grep -c '^topoplace fabric' "$d/err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] &&
		grep '^topoplace fabric' "$d/err" | grep -Eq -- "$pattern"; then
		fabric_pass "$name"
	else
		fabric_fail "$name" "status $rc (want $want), $lines error line(s):" \
			"$(cat "$d/err")" "wanted /$pattern/"
	fi
}

head -c 3000 "$data/fat-4x4.cache" >"$d/truncated.cache"
expect "truncated cache: one error naming the file" 1 \
	"ibnetdiscover cache $d/truncated.cache: truncated \(3000 bytes cannot hold 22 nodes" \
	"${tool[@]}" show --cache "$d/truncated.cache"
expect "a text file is not a cache" 1 \
	"irregular.map: not an ibnetdiscover cache \(no magic number\)" \
	"${tool[@]}" show --cache "$data/irregular.map"
expect "missing cache" 1 "ibnetdiscover cache $d/none.cache: cannot open: No such file" \
	"${tool[@]}" show --cache "$d/none.cache"

printf '\x7fELF\x02\x01\x01\0garbage' >"$d/garbage.conf"
expect "binary garbage as topology.conf: file and line" 1 \
	"$d/garbage.conf: line 1: NUL byte \(binary file\?\)" \
	"${tool[@]}" show --topology-conf "$d/garbage.conf"
printf 'SwitchName=s1 Nodes=n[1-4]\nSwitchName=top Switches=s[1-2]\n' >"$d/undef.conf"
expect "topology.conf naming an undefined switch: file, line, what" 1 \
	"$d/undef.conf: line 2: switch top lists undefined switch s2" \
	"${tool[@]}" show --topology-conf "$d/undef.conf"
printf 'SwitchName=s1 Nodes=n[4-1]\n' >"$d/range.conf"
expect "backwards host range" 1 "$d/range.conf: line 1: Nodes=n\[4-1\]: range 4-1 goes backwards" \
	"${tool[@]}" topology --topology-conf "$d/range.conf"

expect "route to an unknown host" 1 "no host n9999 in the fabric" \
	"${tool[@]}" route --dmodk --cache "$data/fat-4x4.cache" n0001 n9999
printf '0x10 a\nzz b\n' >"$d/bad.map"
expect "bad name map: file and line" 1 "$d/bad.map: line 2: expected a GUID" \
	"${tool[@]}" show --cache "$data/fat-4x4.cache" --node-name-map "$d/bad.map"
expect "unknown action is a usage error" 2 "unknown action 'bogus'" "${tool[@]}" bogus
expect "two sources are a usage error" 2 "--cache and --topology-conf are two sources" \
	"${tool[@]}" show --cache a --topology-conf b
expect "diff without a reference is a usage error" 2 "need one of --before-cache" \
	"${tool[@]}" diff --cache "$data/fat-4x4.cache"

# no InfiniBand device: live discovery outside the simulator
expect "no InfiniBand device: the sweep fails with one clear line" 1 \
	"live discovery via the first HCA port 0: sweep failed \(no InfiniBand device" \
	timeout 60 "${tool[@]}" show

# no subnet manager: the simulated switches have no LIDs
if command -v ibsim >/dev/null && [ -r "$FABRIC_UMAD2SIM" ] && [ -x "$gen" ]; then
	"$gen" --leaves 2 --hosts-per-leaf 2 --spines 1 -o "$d/small.net"
	if fabric_start "$d/small.net" 2>"$d/err"; then
		fabric_run 60 "${tool[@]}" route n0001 n0004 >"$d/out" 2>"$d/err"
		if [ $? -eq 0 ] && grep -q 'switch leaf00[12] has no LID (has a subnet manager run?)); using the D-mod-k model' "$d/err" &&
			grep -q '^routes: D-mod-k model (not read from the fabric)' "$d/out"; then
			fabric_pass "no subnet manager: says why, then routes by D-mod-k and says so"
		else
			fabric_fail "no subnet manager: says why, then routes by D-mod-k and says so" \
				"$(cat "$d/err" "$d/out")"
		fi
		fabric_stop
	else
		fabric_fail "ibsim serves the small fabric" "$(cat "$d/err")"
	fi
else
	printf '# no ibsim, libumad2sim or topoplace-fattree: no-SM case not run\n'
fi
fabric_finish
