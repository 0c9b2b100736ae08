#!/bin/bash
# fabric_routes.sh - routes read from the forwarding tables OpenSM programs
# (ftree and updn) on a 2-level 4x4 and a 3-level 2 pods x 4 leaves x 4
# hosts ibsim fat tree, and ftree on 36 leaves x 18 hosts: every inter-leaf route goes up then down, and the
# path `topoplace fabric route` prints is the one ibtracert walks; a real
# matrix routed over the tables loads the links with its tree hop-bytes.
# Output: "ok"/"not ok" lines, then "N passed, N failed"; 77 when ibsim,
# libumad2sim, opensm, ibtracert or topoplace-fattree is missing.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need ibsim opensm ibtracert timeout "$FABRIC_UMAD2SIM" "$gen" "${tool[0]}" ||
	fabric_finish

# routes NAME ROUTING PAIRS GEN-ARGS...
routes() {
	local name=$1 routing=$2 pairs=$3 out=$FABRIC_DIR/routes.out
	local src dst lids ours theirs checked=0 same=0 bad=""
	shift 3
	"$gen" "$@" -o "$FABRIC_DIR/$name.net" || {
		fabric_fail "$name: fixture written"
		return
	}
	if ! fabric_start "$FABRIC_DIR/$name.net" 2>"$FABRIC_DIR/err"; then
		fabric_fail "$name: ibsim serves the fabric" "$(cat "$FABRIC_DIR/err")"
		return
	fi
	if fabric_opensm "$routing" 2>"$FABRIC_DIR/err"; then
		fabric_pass "$name: OpenSM configured $routing tables"
	else
		fabric_fail "$name: OpenSM configured $routing tables" "$(cat "$FABRIC_DIR/err")"
		fabric_stop
		return
	fi
	fabric_run 120 "${tool[@]}" route --all-leaves >"$out" 2>"$FABRIC_DIR/err"
	fc_eq "$name/$routing: routes come from the switches' tables" \
		"routes: forwarding tables read from the switches" "$(sed -n 1p "$out")"
	fc_eq "$name/$routing: all $pairs inter-leaf routes go up then down" \
		"leaf pairs: $pairs up-down: $pairs" "$(grep '^leaf pairs:' "$out")"
	# the same path as ibtracert, for host pairs across the fabric
	for pair in "n0001 n0002" "n0001 n0005" "n0006 n0003" "n0001 n0016" \
		"n0016 n0001" "n0009 n0004"; do
		read -r src dst <<<"$pair"
		fabric_run 60 "${tool[@]}" route "$src" "$dst" >"$out" 2>"$FABRIC_DIR/err" || {
			bad="$bad; $src->$dst: $(cat "$FABRIC_DIR/err")"
			continue
		}
		ours=$(sed -n 's/^path: //p' "$out")
		lids=$(sed -n 's/^lids: //p' "$out")
		# shellcheck disable=SC2086
		fabric_run 60 ibtracert $lids >"$FABRIC_DIR/tr" 2>&1
		theirs=$(fc_tracert_path "$FABRIC_DIR/tr")
		checked=$((checked + 1))
		if [ "$ours" = "$theirs" ]; then
			same=$((same + 1))
		else
			bad="$bad; $src->$dst ours: $ours; ibtracert: $theirs"
		fi
	done
	fc_eq "$name/$routing: 6 routes equal ibtracert's hop by hop${bad:+ ($bad)}" \
		"6/6" "$same/$checked"
	# a real matrix over the table routes: minimal routes, so its
	# hop-bytes are sum(bytes x tree hops) (4 hosts per leaf, one pod)
	if [ "$name" = fat-4x4 ]; then
		fabric_run 60 "${tool[@]}" load --matrix "$abs_top_srcdir/tests/data/matrices/CoMD-16.txt" \
			>"$out" 2>"$FABRIC_DIR/err"
		fc_eq "$name/$routing: CoMD-16 over the tables: hop-bytes = sum(bytes x hops)" \
			"routes: forwarding tables read from the switches $(awk '!/^#/ {
				a = int($1 / 4); b = int($2 / 4)
				if ($1 == $2) d = 0; else if (a == b) d = 2; else d = 4
				h += $3 * d } END { printf "%.0f", h }' \
				"$abs_top_srcdir/tests/data/matrices/CoMD-16.txt")" \
			"$(sed -n 1p "$out") $(sed -n 's/^traffic: .* hop-bytes //p' "$out")"
	fi
	fabric_stop
}

routes fat-36x18 ftree 1260 --leaves 36 --hosts-per-leaf 18 --spines 18
for routing in ftree updn; do
	routes fat-4x4 "$routing" 12 --leaves 4 --hosts-per-leaf 4 --spines 2
	routes fat3-2x4x4 "$routing" 56 --leaves 8 --hosts-per-leaf 4 --spines 2 \
		--pods 2 --cores 2
done
fabric_finish
