#!/bin/bash
# cli_cost.sh - `topoplace cost` gives each mapping's per-link load over the
# fabric's routes when --fabric is a real fabric.
#
# Offline (modelled D-mod-k routes):
#   - a topology.conf made by topoplace-fattree (2 leaves x 2 hosts; Slurm's
#     one tree collapses the spines into "root"), a 4-rank one-way ring of
#     1000, 200, 30, 4 bytes: under block the two leaf-crossing hops (200
#     and 4 bytes) load leaf001[3]->root[1] with 200 bytes; alternating the
#     leaves puts 1000 + 30 on it; every row is worked out by hand, the
#     stages add up to the hop-bytes, so do the --per-link lines, and the
#     contention term is delta x the busiest switch link;
#   - a 3-level ibnetdiscover cache and a real matrix (CoMD-16, 2 slots a
#     host), every default mapping: host-leaf = 2 x off-node bytes,
#     leaf-spine = 2 x bytes leaving their leaf, spine-core = 2 x bytes
#     leaving their pod, and the stages add up to the hop-bytes;
#   - a PxLxH tree prints no link rows (it has no routes); bad input (a
#     mapping or host list naming a host the fabric lacks, --routes on a
#     PxLxH tree or with an unknown value, real tables asked of a
#     topology.conf, short >= eager in a parameter file) is one line on
#     stderr naming it, nothing on stdout.
# Live, on an ibsim 2-level fat tree (4 leaves x 4 hosts, 2 spines) after
# one OpenSM ftree sweep, `--fabric live` (routes read from the switches'
# forwarding tables): an 8-rank ring spread over the leaves loads every link
# direction exactly as the ibtracert paths of its 8 host pairs add up, and
# modelled D-mod-k routes on the same fabric give the same stage totals
# (both are minimal up-down routes).
# Output: "ok"/"not ok" lines, then "N passed, N failed"; the live part
# skips (77 if nothing else ran) when ibsim, libumad2sim, opensm or
# ibtracert is missing.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
tp=$abs_top_builddir/tools/topoplace
d=$FABRIC_DIR
mdir=$abs_top_srcdir/tests/data/matrices

# row OUT LABEL: the values of the table row LABEL, space separated
row() { sed -n "s/^$2  *\([0-9].*\)$/\1/p" "$1" | tr -s ' '; }
# expect_fail NAME STATUS MESSAGE CMD...: exit STATUS, exactly MESSAGE on
# stderr, nothing on stdout
expect_fail() {
	local name=$1 status=$2 msg=$3 rc
	shift 3
	"$@" >"$d/out" 2>"$d/err"
	rc=$?
	fc_eq "$name" "$status: $msg|" "$rc: $(cat "$d/err")|$(cat "$d/out")"
}

# ---- topology.conf, 4-rank ring, worked out by hand ---------------------
"$gen" --format=slurm --leaves 2 --hosts-per-leaf 2 --spines 2 \
	-o "$d/topology.conf" || {
	fabric_fail "topoplace-fattree writes topology.conf"
	fabric_finish
}
printf '# one-way ring\n0 1 1000 1\n1 2 200 1\n2 3 30 1\n3 0 4 1\n' >"$d/ring4"
printf 'n0001\nn0003\nn0002\nn0004\n' >"$d/alternate"
printf 'contention_delta_s_per_byte = 0.5\n' >"$d/params"
if "$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" \
	--mapping block --mapping "$d/alternate" --params "$d/params" \
	--per-link >"$d/conf" 2>"$d/err"; then
	fc_eq "conf: the routes are said to be modelled" \
		"routes: dmodk, modelled (D-mod-k, not read from the fabric); contention from the busiest switch link" \
		"$(grep '^routes:' "$d/conf")"
	# block: 1000x2 + 200x4 + 30x2 + 4x4; alternate: every hop x 4
	fc_eq "conf: hop-bytes" "2876 4936" "$(row "$d/conf" hop-bytes)"
	fc_eq "conf: busiest switch link bytes" "200 1030" \
		"$(row "$d/conf" 'max switch link bytes')"
	fc_eq "conf: loaded link directions" "12 12" \
		"$(row "$d/conf" 'loaded directions')"
	fc_eq "conf: bytes by stage (host-leaf, leaf-spine, spine-core, other)" \
		"2468 2468|408 2468|0 0|0 0" \
		"$(for s in host-leaf leaf-spine spine-core other; do row "$d/conf" "link bytes $s"; done | paste -sd'|')"
	fc_eq "conf: the busiest switch link of each mapping, named" \
		"  block            leaf001[3]->root[1] up, 200 bytes|  alternate        leaf001[3]->root[1] up, 1030 bytes" \
		"$(sed -n '/^busiest switch link:$/,/^link:/p' "$d/conf" | grep '^  ' | paste -sd'|')"
	fc_eq "conf: contention s = 0.5 x busiest switch link bytes" \
		"100 515" "$(row "$d/conf" '  contention s')"
	fc_eq "conf: block's per-link lines, worked out by hand" \
		"leaf001[1]->n0001[1] down 4|leaf001[2]->n0002[1] down 1000|leaf001[3]->root[1] up 200|leaf002[1]->n0003[1] down 200|leaf002[2]->n0004[1] down 30|leaf002[3]->root[2] up 4|root[1]->leaf001[3] down 4|root[2]->leaf002[3] down 200|n0001[1]->leaf001[1] up 1000|n0002[1]->leaf001[2] up 200|n0003[1]->leaf002[1] up 30|n0004[1]->leaf002[2] up 4" \
		"$(sed -n 's/^link: mapping=block link=\([^ ]*\) dir=\([a-z]*\) bytes=\([0-9]*\)$/\1 \2 \3/p' "$d/conf" | paste -sd'|')"
	fc_eq "conf: each mapping's per-link lines add up to its hop-bytes" \
		"alternate 4936|block 2876" \
		"$(sed -n 's/^link: mapping=\([^ ]*\) .* bytes=\([0-9]*\)$/\1 \2/p' "$d/conf" |
			awk '{ s[$1] += $2 } END { for (m in s) print m, s[m] }' | sort | paste -sd'|')"
	cat "$d/conf"
else
	fabric_fail "cost --fabric topology.conf" "$(cat "$d/err")"
fi

# ---- 3-level cache, real matrix: stages are hop classes ---------------------
cache3=$abs_top_srcdir/tests/data/fabric/fat3-2x2x2.cache
if "$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric "$cache3" --slots 2 \
	>"$d/fat3" 2>"$d/err"; then
	read -ra name <<<"$(sed -n 's/^mapping  *//p' "$d/fat3")"
	read -ra hb <<<"$(row "$d/fat3" hop-bytes)"
	read -ra leaf <<<"$(row "$d/fat3" 'bytes same-leaf')"
	read -ra pod <<<"$(row "$d/fat3" 'bytes same-pod')"
	read -ra other <<<"$(row "$d/fat3" 'bytes other-pod')"
	read -ra hl <<<"$(row "$d/fat3" 'link bytes host-leaf')"
	read -ra ls <<<"$(row "$d/fat3" 'link bytes leaf-spine')"
	read -ra sc <<<"$(row "$d/fat3" 'link bytes spine-core')"
	read -ra ot <<<"$(row "$d/fat3" 'link bytes other')"
	fc_eq "fat3: the four default mappings" "block cyclic random remap" \
		"${name[*]}"
	for i in 0 1 2 3; do
		fc_eq "fat3 ${name[i]}: stages = 2 x off-node, 2 x off-leaf, 2 x off-pod bytes; sum = hop-bytes" \
			"$((2 * (leaf[i] + pod[i] + other[i]))) $((2 * (pod[i] + other[i]))) $((2 * other[i])) 0 ${hb[i]}" \
			"${hl[i]} ${ls[i]} ${sc[i]} ${ot[i]} $((hl[i] + ls[i] + sc[i] + ot[i]))"
	done
	if ((other[0] > 0)); then
		fabric_pass "fat3: block sends bytes across pods (spine-core is exercised)"
	else
		fabric_fail "fat3: block sends bytes across pods" "$(cat "$d/fat3")"
	fi
	fc_eq "fat3: the cache's routes are modelled unless asked" "dmodk," \
		"$(sed -n 's/^routes: \([a-z]*,\).*/\1/p' "$d/fat3")"
else
	fabric_fail "cost --fabric fat3 cache" "$(cat "$d/err")"
fi

# ---- a topoplace profile: the same rows as its matrix text ------------------
# LULESH-8 imported by `topoplace profile import`, on the topology.conf's
# routes: every row (hop classes, link stages, busiest link) must match the
# matrix text's; a truncated profile is one line naming the file.
if "$tp" profile import --from matrix -o "$d/l8.tpp" "$mdir/LULESH-8.txt" \
	>/dev/null 2>"$d/err"; then
	"$tp" cost --matrix "$mdir/LULESH-8.txt" --fabric "$d/topology.conf" \
		--slots 2 >"$d/l8_matrix" 2>&1
	"$tp" cost --profile "$d/l8.tpp" --fabric "$d/topology.conf" \
		--slots 2 >"$d/l8_profile" 2>"$d/err"
	fc_eq "profile: cost reads it, with link rows, and non-zero hop-bytes" \
		"0 1 yes" \
		"$? $(grep -c '^max switch link bytes' "$d/l8_profile") $(row "$d/l8_profile" hop-bytes | grep -q '^[1-9]' && echo yes)"
	fc_eq "profile: every row as for the matrix text" \
		"$(tail -n +2 "$d/l8_matrix")" "$(tail -n +2 "$d/l8_profile")"
	head -c 100 "$d/l8.tpp" >"$d/short.tpp"
	expect_fail "a truncated profile: one line naming the file" 1 \
		"topoplace cost: $d/short.tpp: file: offset 16: truncated: body of 2262 bytes and trailer need more than the 100 bytes of the file" \
		"$tp" cost --matrix "$d/short.tpp" --fabric "$d/topology.conf"
else
	fabric_fail "profile import writes a LULESH-8 profile" "$(cat "$d/err")"
fi

# ---- PxLxH, and bad input ------------------------------------------------
"$tp" cost --matrix "$d/ring4" --fabric 1x2x2 >"$d/tree" 2>"$d/err"
fc_eq "PxLxH: same hop-bytes, no routes and no link rows" "0 2876 0" \
	"$? $(row "$d/tree" hop-bytes | cut -d' ' -f1) $(grep -c -e '^routes:' -e '^max switch link' -e '^busiest switch link' "$d/tree")"
printf 'n0001\nn0002\nn0009\nn0004\n' >"$d/stranger"
expect_fail "a mapping naming a host the fabric lacks: file and line" 1 \
	"topoplace cost: $d/stranger: line 3: host 'n0009' is not in the fabric" \
	"$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" --mapping "$d/stranger"
expect_fail "a host list naming a host the fabric lacks" 1 \
	"topoplace cost: hostlist 'n0001,n0077': host 'n0077' is not in the fabric" \
	"$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" --hosts n0001,n0077 --slots 2
expect_fail "--routes on a PxLxH tree" 2 \
	"topoplace cost: --routes and --per-link need --fabric FILE or live (a PxLxH tree has no routes)" \
	"$tp" cost --matrix "$d/ring4" --fabric 1x2x2 --routes dmodk
expect_fail "--routes with an unknown value" 2 \
	"topoplace cost: --routes 'ecmp': expected dmodk|lft" \
	"$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" --routes ecmp
expect_fail "real tables asked of a topology.conf" 1 \
	"topoplace cost: --routes lft: topology.conf $d/topology.conf: has no LIDs: routes cannot be read" \
	"$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" --routes lft
printf 'short_max_bytes = 100\n# protocol limits\neager_max_bytes = 64\n' >"$d/badparams"
expect_fail "short >= eager names the line of the later key" 1 \
	"topoplace cost: $d/badparams: line 3: short_max_bytes 100 must be below eager_max_bytes 64" \
	"$tp" cost --matrix "$d/ring4" --fabric "$d/topology.conf" --params "$d/badparams"

# ---- live: the switches' forwarding tables ---------------------------------
fabric_need ibsim opensm ibtracert timeout "$FABRIC_UMAD2SIM" "$gen" ||
	fabric_finish
"$gen" --leaves 4 --hosts-per-leaf 4 --spines 2 -o "$d/fat.net" || {
	fabric_fail "ibsim fixture written"
	fabric_finish
}
if ! fabric_start "$d/fat.net" 2>"$d/err"; then
	fabric_fail "ibsim serves the fabric" "$(cat "$d/err")"
	fabric_finish
fi
if fabric_opensm ftree 2>"$d/err"; then
	fabric_pass "OpenSM configured ftree tables"
else
	fabric_fail "OpenSM configured ftree tables" "$(cat "$d/err")"
	fabric_finish
fi
# rank r on the (r mod 4)-th leaf: every ring hop crosses the spines
hosts8=(n0001 n0005 n0009 n0013 n0002 n0006 n0010 n0014)
printf '%s\n' "${hosts8[@]}" >"$d/spread8"
: >"$d/ring8"
for r in 0 1 2 3 4 5 6 7; do
	echo "$r $(((r + 1) % 8)) $((1000 * (r + 1))) 1" >>"$d/ring8"
done
cost=(cost --matrix "$d/ring8" --fabric live --mapping "$d/spread8" --per-link)
if ! fabric_run 120 "$tp" "${cost[@]}" >"$d/lft" 2>"$d/err"; then
	fabric_fail "cost --fabric live" "$(cat "$d/err")"
	fabric_finish
fi
fabric_run 120 "$tp" "${cost[@]}" --routes dmodk >"$d/dmodk" 2>"$d/err" ||
	fabric_fail "cost --fabric live --routes dmodk" "$(cat "$d/err")"
cat "$d/lft"
fc_eq "live: the routes are the switches' tables" \
	"routes: lft, read from the switches' forwarding tables; contention from the busiest switch link" \
	"$(grep '^routes:' "$d/lft")"

# Sum each hop's bytes over its ibtracert path; a direction is named by the
# node[port] the traffic leaves through, as in the link= of --per-link.
declare -A lid
for h in "${hosts8[@]}"; do
	other=n0001
	[ "$h" = n0001 ] && other=n0002
	fabric_run 60 "$tp" fabric route "$h" "$other" >"$d/route" 2>"$d/err" || {
		fabric_fail "LID of $h" "$(cat "$d/err")"
		fabric_finish
	}
	lid[$h]=$(sed -n 's/^lids: \([0-9]*\) .*/\1/p' "$d/route")
done
: >"$d/paths"
for r in 0 1 2 3 4 5 6 7; do
	a=${hosts8[r]} b=${hosts8[(r + 1) % 8]}
	fabric_run 60 ibtracert "${lid[$a]}" "${lid[$b]}" >"$d/tr" 2>&1 || {
		fabric_fail "ibtracert $a -> $b" "$(cat "$d/tr")"
		continue
	}
	echo "$((1000 * (r + 1))) $(fc_tracert_path "$d/tr")" >>"$d/paths"
done
want=$(awk '{ n = split(substr($0, index($0, " ") + 1), hop, " -> ")
	for (i = 1; i < n; i++) b[hop[i]] += $1 }
	END { for (k in b) print k, b[k] }' "$d/paths" | sort)
got=$(sed -n 's/^link: mapping=spread8 link=\([^-]*\)->[^ ]* dir=[a-z]* bytes=\([0-9]*\)$/\1 \2/p' \
	"$d/lft" | sort)
fc_eq "live: the load of every link direction = the sum over ibtracert's paths" \
	"$want" "$got"
if [ "$(wc -l <<<"$got")" -ge 32 ]; then
	fabric_pass "live: the ring loads $(wc -l <<<"$got") link directions"
else
	fabric_fail "live: the ring loads at least 32 link directions" "$got"
fi
fc_eq "live: the stages add up to the hop-bytes (8 hops x 4 links)" \
	"$((4 * 36000))" \
	"$(($(for s in host-leaf leaf-spine spine-core other; do row "$d/lft" "link bytes $s"; done | paste -sd+)))"
fc_eq "live vs D-mod-k: same hop-bytes and stage totals" \
	"$(for s in hop-bytes 'link bytes host-leaf' 'link bytes leaf-spine' 'link bytes spine-core'; do row "$d/lft" "$s"; done | paste -sd' ')" \
	"$(for s in hop-bytes 'link bytes host-leaf' 'link bytes leaf-spine' 'link bytes spine-core'; do row "$d/dmodk" "$s"; done | paste -sd' ')"
fc_eq "D-mod-k on the live fabric says modelled" "dmodk," \
	"$(sed -n 's/^routes: \([a-z]*,\).*/\1/p' "$d/dmodk")"
fabric_stop
fabric_finish
