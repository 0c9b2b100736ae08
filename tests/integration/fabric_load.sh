#!/bin/bash
# fabric_load.sh - per-link load of real communication matrices
# (tests/data/matrices) under a placement, routed with D-mod-k over the
# fabrics of tests/data/fabric: the hop-bytes `topoplace fabric load`
# reports equal sum(bytes x hops) computed independently from the tree
# (same leaf 2, same pod 4, other pod 6), the busiest link is named, and a
# rank without a host is one clear error.
# Output: "ok"/"not ok" lines, then "N passed, N failed".
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need "${tool[0]}" || fabric_finish
data=$abs_top_srcdir/tests/data
d=$FABRIC_DIR

# want_hop_bytes MATRIX HOSTS_PER_LEAF LEAVES_PER_POD [REVERSED_OF]: rank r
# on host r (or on host N-1-r with REVERSED_OF=N)
want_hop_bytes() {
	awk -v H="$2" -v P="$3" -v R="${4:-0}" '!/^#/ {
		a = R ? R - 1 - $1 : $1; b = R ? R - 1 - $2 : $2
		if (a == b) d = 0
		else if (int(a / H) == int(b / H)) d = 2
		else if (int(a / (H * P)) == int(b / (H * P))) d = 4
		else d = 6
		h += $3 * d
	} END { printf "%.0f\n", h }' "$1"
}

# case NAME CACHE MATRIX H P [--hosts LIST REVERSED_OF]
run_case() {
	local name=$1 cache=$2 matrix=$3 H=$4 P=$5 hosts=${6:-} rev=${7:-0} got
	local args=(load --dmodk --cache "$data/fabric/$cache" --matrix "$data/matrices/$matrix")
	[ -n "$hosts" ] && args+=(--hosts "$hosts")
	if ! "${tool[@]}" "${args[@]}" >"$d/out" 2>"$d/err"; then
		fabric_fail "$name" "$(cat "$d/err")"
		return
	fi
	got=$(sed -n 's/^traffic: .* hop-bytes //p' "$d/out")
	fc_eq "$name: hop-bytes = sum(bytes x tree hops)" \
		"$(want_hop_bytes "$data/matrices/$matrix" "$H" "$P" "$rev")" "$got"
	if grep -Eq '^max link load: [1-9][0-9]* bytes [a-z0-9]+\[[0-9]+\] -> [a-z0-9]+\[[0-9]+\]$' "$d/out"; then
		fabric_pass "$name: the busiest link direction is named"
	else
		fabric_fail "$name: the busiest link direction is named" "$(cat "$d/out")"
	fi
}

run_case "CoMD-16 on fat-4x4" fat-4x4.cache CoMD-16.txt 4 4
reversed=$(seq 16 -1 1 | awk '{ printf "%sn%04d", (NR > 1 ? "," : ""), $1 }')
run_case "CoMD-16 reversed (--hosts $reversed) on fat-4x4" fat-4x4.cache CoMD-16.txt 4 4 "$reversed" 16
run_case "LULESH-8 on the 3-level fat3-2x2x2" fat3-2x2x2.cache LULESH-8.txt 2 2

"${tool[@]}" load --dmodk --cache "$data/fabric/fat-4x4.cache" \
	--matrix "$data/matrices/CoMD-64.txt" >"$d/out" 2>"$d/err"
rc=$?
fc_eq "64 ranks on 16 hosts: one error naming file, line and rank" \
	"1 topoplace fabric load: $data/matrices/CoMD-64.txt: line 6: rank 16 has no host (16 hosts)" \
	"$rc $(cat "$d/err")"
printf '# commprof-v1\n0 1 x 1\n' >"$d/bad.txt"
"${tool[@]}" load --dmodk --cache "$data/fabric/fat-4x4.cache" --matrix "$d/bad.txt" \
	>"$d/out" 2>"$d/err"
rc=$?
fc_eq "malformed matrix line: one error naming file and line" \
	"1 topoplace fabric load: $d/bad.txt: line 2: expected \"src dst bytes msgs\"" \
	"$rc $(cat "$d/err")"
fabric_finish
