#!/bin/bash
# fabric_discover.sh - the fabric model from real libibnetdisc sweeps of
# ibsim fat trees: 2-level 4x4 (also with 2-port hosts and parallel
# uplinks) and 36 leaves x 18 hosts, 3-level 1,296 hosts (4 pods). For each: the exact leaves with their hosts, pods, levels, no
# anomaly, hop distances 2/4/6, a topology.conf identical to the
# generator's (and an empty diff against it), and a cache written live that
# loads to the same model.
# Output: "ok"/"not ok" lines, then "N passed, N failed"; 77 when ibsim,
# libumad2sim or topoplace-fattree is missing.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need ibsim timeout "$FABRIC_UMAD2SIM" "$gen" "${tool[0]}" || fabric_finish

# expected_show LEAVES HOSTS_PER_LEAF PODS: the leaf lines of `fabric show`
expected_leaves() {
	awk -v L="$1" -v H="$2" -v P="$3" 'BEGIN {
		for (k = 1; k <= L; k++) {
			line = sprintf("leaf leaf%03d pod%02d hosts=%d:", k,
				int((k - 1) / (L / P)) + 1, H)
			for (h = 1; h <= H; h++)
				line = line sprintf(" n%04d", (k - 1) * H + h)
			print line
		}
	}'
}

# shape NAME LEAVES HOSTS SPINES PODS CORES LEVELS [MORE-GENERATOR-ARGS...]
shape() {
	local name=$1 L=$2 H=$3 S=$4 P=$5 C=$6 levels=$7 net out args hops far
	shift 7
	net=$FABRIC_DIR/$name.net
	out=$FABRIC_DIR/$name.show
	args=(--leaves "$L" --hosts-per-leaf "$H" --spines "$S" "$@")
	[ "$P" -gt 1 ] && args+=(--pods "$P" --cores "$C")
	if ! "$gen" "${args[@]}" -o "$net" ||
		! "$gen" "${args[@]}" --format slurm -o "$FABRIC_DIR/$name.want.conf"; then
		fabric_fail "$name: topoplace-fattree writes the fixture"
		return
	fi
	if ! fabric_start "$net" 2>"$FABRIC_DIR/err"; then
		fabric_fail "$name: ibsim serves the fabric" "$(cat "$FABRIC_DIR/err")"
		return
	fi
	if ! fabric_run 120 "${tool[@]}" show >"$out" 2>"$FABRIC_DIR/err"; then
		fabric_fail "$name: live discovery" "$(tail -n 3 "$FABRIC_DIR/err")"
		fabric_stop
		return
	fi
	fc_eq "$name: $((L * H)) hosts, $L leaves, $P pod(s), $levels levels, nothing unmapped" \
		"summary: switches=$(grep -c '^Switch' "$net") cas=$((L * H)) hosts=$((L * H)) unmapped=0 leaves=$L pods=$P levels=$levels links=$(( $(grep -c '^\[' "$net") / 2 ))" \
		"$(grep '^summary:' "$out")"
	fc_eq "$name: every leaf holds exactly its hosts, in its pod" \
		"$(expected_leaves "$L" "$H" "$P")" "$(grep '^leaf ' "$out")"
	fc_eq "$name: a regular tree has no anomaly" "finding: none" \
		"$(grep '^finding:' "$out")"
	# distances: same leaf, other leaf of the pod, other pod
	hops=$(fabric_run 60 "${tool[@]}" route --dmodk n0001 n0002 2>/dev/null | sed -n 's/^hops: //p')
	fc_eq "$name: n0001-n0002 (same leaf) are 2 hops apart" 2 "$hops"
	hops=$(fabric_run 60 "${tool[@]}" route --dmodk n0001 "$(printf 'n%04d' $((H + 1)))" 2>/dev/null | sed -n 's/^hops: //p')
	fc_eq "$name: n0001 and the first host of leaf002 (same pod) are 4 hops apart" 4 "$hops"
	if [ "$P" -gt 1 ]; then
		far=$(printf 'n%04d' $((L * H)))
		hops=$(fabric_run 60 "${tool[@]}" route --dmodk n0001 "$far" 2>/dev/null | sed -n 's/^hops: //p')
		fc_eq "$name: n0001 and $far (other pod) are 6 hops apart" 6 "$hops"
	fi
	# topology.conf: the same tree the generator describes
	if fabric_run 120 "${tool[@]}" topology -o "$FABRIC_DIR/$name.conf" 2>"$FABRIC_DIR/err"; then
		fc_eq "$name: written topology.conf equals topoplace-fattree's" \
			"$(grep -v '^#' "$FABRIC_DIR/$name.want.conf")" \
			"$(grep -v '^#' "$FABRIC_DIR/$name.conf")"
	else
		fabric_fail "$name: topology.conf written" "$(cat "$FABRIC_DIR/err")"
	fi
	# and the generator's topology.conf agrees with the discovered fabric
	fabric_run 120 "${tool[@]}" diff --before-topology-conf "$FABRIC_DIR/$name.want.conf" \
		>"$FABRIC_DIR/$name.diff" 2>"$FABRIC_DIR/err"
	fc_eq "$name: diff of the generator's topology.conf against the fabric is empty" \
		"differences: 0" "$(grep -E '^(diff|differences):' "$FABRIC_DIR/$name.diff")"
	# a cache written live loads to the same model without the simulator
	if fabric_run 120 "${tool[@]}" cache "$FABRIC_DIR/$name.cache" >/dev/null 2>"$FABRIC_DIR/err"; then
		fabric_stop
		"${tool[@]}" show --cache "$FABRIC_DIR/$name.cache" >"$out.cached" 2>"$FABRIC_DIR/err"
		fc_eq "$name: the cache loads to the same fabric" \
			"$(grep -v '^source:' "$out")" "$(grep -v '^source:' "$out.cached")"
	else
		fabric_fail "$name: cache written" "$(cat "$FABRIC_DIR/err")"
		fabric_stop
	fi
}

shape fat-4x4 4 4 2 1 0 2
# two ports per host and two parallel cables per leaf-spine pair: still one
# host per CA, every cable counted, nothing irregular
shape fat-4x4-dual 4 4 2 1 0 2 --host-ports 2 --uplinks 2
shape fat-36x18 36 18 18 1 0 2
shape fat3-1296 72 18 9 4 18 3
fabric_finish
