#!/bin/bash
# ioserver_routes.sh - `topoplace place --io-servers` compares the server
# policies by the per-link load of the job's I/O over the fabric's routes.
#
# Offline (D-mod-k over tests/data/fabric/fat-4x4.cache): the table names
# the routes as modelled and marks the chosen policy; bad options and a
# topology.conf asked for real tables are one clear error each.
#
# Live, on an ibsim 2-level fat tree (8 leaves x 4 hosts, 2 spines) after
# one OpenSM ftree sweep, with `--fabric live` (routes read from the
# switches' forwarding tables): a 16-host job on leaves 1-4, 4 servers
# beside it, each host writing 4096 bytes (1024 per server):
#   - the loads of every link direction under spread equal those summed
#     independently over the ibtracert path of every client -> server pair;
#   - spread beats isolated (BACKGROUND.md section 2): isolated packs the
#     servers on one leaf, whose 2 downlinks must carry 16 x 4096 bytes (one
#     >= 32768), while spread puts one per leaf (no link > 4 x 4096 = 16384);
#   - the modelled D-mod-k routes give the same totals per stage and
#     direction (both are minimal up-down routes).
# Output: "ok"/"not ok" lines, then "N passed, N failed"; 77 when ibsim,
# libumad2sim, opensm, ibtracert or topoplace-fattree is missing.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
tp=$abs_top_builddir/tools/topoplace
d=$FABRIC_DIR

# kv LINE KEY: the value of KEY= in LINE
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
# policy_line OUT POLICY
policy_line() { grep "^io-link-policy: policy=$2 " "$1"; }
# expect_fail NAME STATUS MESSAGE CMD...: exit STATUS, exactly MESSAGE on stderr
expect_fail() {
	local name=$1 status=$2 msg=$3 rc
	shift 3
	"$@" >"$d/out" 2>"$d/err"
	rc=$?
	fc_eq "$name" "$status: $msg" "$rc: $(cat "$d/err")"
}

# ---- offline: modelled routes from a cache, and bad input ----------------
cache=$abs_top_srcdir/tests/data/fabric/fat-4x4.cache
if "$tp" place --fabric "$cache" --nodes 8 --policy leaf --io-servers 4 \
	--io-policy isolated --routing static >"$d/out" 2>"$d/err"; then
	fc_eq "cache: the table says the routes are modelled" \
		"io-links: routes modelled (D-mod-k, not read from the fabric); static routing: each pair on its route; 8 job hosts each write 1.0 GiB and read 0 B striped over 4 servers (* = --io-policy; rank 1 = predicted fastest: busiest link, then busiest switch link):" \
		"$(grep '^io-links:' "$d/out")"
	fc_eq "cache: one row per policy, isolated marked chosen" \
		"  spread|* isolated|  random" \
		"$(sed -n '/^io-links:/,$p' "$d/out" | sed -n '3,5p' | cut -c1-10 | sed 's/ *$//' | paste -sd'|')"
	cat "$d/out"
else
	fabric_fail "cache: place with I/O link loads" "$(cat "$d/err")"
fi
expect_fail "--io-routes with an unknown value" 2 \
	"topoplace place: --io-routes 'ecmp': expected dmodk|lft" \
	"$tp" place --fabric "$cache" --nodes 4 --io-servers 1 --io-routes ecmp
expect_fail "--io-routes on a PxLxH tree" 2 \
	"topoplace place: --io-routes needs --fabric FILE or live (a PxLxH tree has no routes)" \
	"$tp" place --fabric 1x4x4 --nodes 4 --io-servers 1 --io-routes dmodk
expect_fail "--io-kv without --io-servers" 2 \
	"topoplace place: --io-write-bytes, --io-read-bytes, --io-routes and --io-kv need --io-servers N" \
	"$tp" place --fabric "$cache" --nodes 4 --io-kv
expect_fail "--io-write-bytes not a number" 2 \
	"topoplace place: --io-write-bytes '-5': expected a whole number from 0 to 1125899906842624" \
	"$tp" place --fabric "$cache" --nodes 4 --io-servers 1 --io-write-bytes -5
"$abs_top_builddir/tools/topoplace-fattree" --format=slurm --leaves 4 \
	--hosts-per-leaf 4 --spines 2 -o "$d/topology.conf"
expect_fail "real tables asked of a topology.conf" 1 \
	"topoplace place: --io-routes lft: topology.conf $d/topology.conf: has no LIDs: routes cannot be read" \
	"$tp" place --fabric "$d/topology.conf" --nodes 4 --io-servers 1 --io-routes lft

# ---- live: the switches' forwarding tables ---------------------------------
fabric_need ibsim opensm ibtracert timeout "$FABRIC_UMAD2SIM" "$gen" "$tp" ||
	fabric_finish
"$gen" --leaves 8 --hosts-per-leaf 4 --spines 2 -o "$d/fat.net" || {
	fabric_fail "fixture written"
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
# --routing static: the loads follow the tables' own paths (under adaptive
# routing they spread over the up-links, cli_place.sh checks that).
place=(place --fabric live --nodes 16 --policy leaf --io-servers 4
	--io-where beside --io-write-bytes 4096 --routing static)
if ! fabric_run 120 "$tp" "${place[@]}" --io-kv >"$d/lft" 2>"$d/err"; then
	fabric_fail "place --fabric live --io-kv" "$(cat "$d/err")"
	fabric_finish
fi
fabric_run 120 "$tp" "${place[@]}" --io-routes dmodk --io-kv >"$d/dmodk" 2>"$d/err" ||
	fabric_fail "place --fabric live --io-routes dmodk" "$(cat "$d/err")"
fabric_run 120 "$tp" "${place[@]}" >"$d/table" 2>"$d/err" ||
	fabric_fail "place --fabric live (table)" "$(cat "$d/err")"
sed -n '/^io-links:/,$p' "$d/table"

fc_eq "live: the job gets leaves 1-4" "hosts: n[0001-0016]" "$(grep '^hosts:' "$d/lft")"
fc_eq "live: every policy row says its routes are the switches' tables" \
	"lft lft lft lft" \
	"$(grep '^io-link-policy:' "$d/lft" | sed 's/.* routes=\([a-z]*\).*/\1/' | paste -sd' ')"
fc_eq "live: the table says so too" \
	"io-links: routes read from the switches' forwarding tables; static routing: each pair on its route; 16 job hosts each write 4.0 KiB and read 0 B striped over 4 servers (* = --io-policy; rank 1 = predicted fastest: busiest link, then busiest switch link):" \
	"$(grep '^io-links:' "$d/table")"
spread=$(policy_line "$d/lft" spread)
isolated=$(policy_line "$d/lft" isolated)
fc_eq "live: spread servers on the last port of leaves 5-8" \
	"n0020,n0024,n0028,n0032" "$(kv "$spread" servers)"
fc_eq "live: isolated servers packed on leaf005" \
	"n0017,n0018,n0019,n0020" "$(kv "$isolated" servers)"

# Sum 1024 bytes over the ibtracert path of every client -> server pair;
# links are named by the port the traffic leaves through: "leaf001[6]".
lids=()
for h in $(seq 1 32); do
	name=$(printf 'n%04d' "$h")
	other=n0001
	[ "$name" = n0001 ] && other=n0002
	fabric_run 60 "$tp" fabric route "$name" "$other" >"$d/route" 2>"$d/err" || {
		fabric_fail "LID of $name" "$(cat "$d/err")"
		fabric_finish
	}
	lids[h]=$(sed -n 's/^lids: \([0-9]*\) .*/\1/p' "$d/route")
done
: >"$d/paths"
traced=0
for c in $(seq 1 16); do
	for s in 20 24 28 32; do
		fabric_run 60 ibtracert "${lids[c]}" "${lids[s]}" >"$d/tr" 2>&1 || {
			fabric_fail "ibtracert n$c -> n$s" "$(cat "$d/tr")"
			continue
		}
		fc_tracert_path "$d/tr" >>"$d/paths"
		traced=$((traced + 1))
	done
done
fc_eq "live: ibtracert walked all 64 client -> server paths" 64 "$traced"
want=$(awk -F' -> ' '{ for (i = 1; i < NF; i++) b[$i] += 1024 }
	END { for (k in b) print k, b[k] }' "$d/paths" | sort)
got=$(sed -n 's/^io-link: policy=spread link=\([^-]*\)->[^ ]* dir=[a-z]* bytes=\([0-9]*\)$/\1 \2/p' \
	"$d/lft" | sort)
fc_eq "live: spread's load on every link direction = the sum over ibtracert's paths" \
	"$want" "$got"
if [ -n "$got" ]; then
	fabric_pass "live: spread loads $(wc -l <<<"$got") link directions"
else
	fabric_fail "live: spread loads some link directions"
fi

sp_max=$(kv "$spread" max_link_bytes)
iso_max=$(kv "$isolated" max_link_bytes)
if [ -n "$sp_max" ] && [ -n "$iso_max" ] && [ "$sp_max" -le 16384 ] &&
	[ "$iso_max" -ge 32768 ] && [ "$sp_max" -lt "$iso_max" ]; then
	fabric_pass "live: spread beats isolated on the busiest switch link ($sp_max < $iso_max bytes)"
else
	fabric_fail "live: spread beats isolated on the busiest switch link" \
		"spread: $spread" "isolated: $isolated"
fi
fc_eq "live: isolated's busiest link is a downlink into leaf005" \
	"leaf005 down" \
	"$(kv "$isolated" max_link | sed 's/.*->\([a-z0-9]*\)\[.*/\1/') $(kv "$isolated" max_link_dir)"

# Staggered on OpenSM's real tables (issue #15): spread's servers all sit on
# port 4 (odd host indices), so each client leaf sends all 16 KiB of its I/O
# up one uplink; staggered's sit on ports 4, 3, 2, 1 and split it over both.
staggered=$(policy_line "$d/lft" staggered)
fc_eq "live: staggered servers on ports 4, 3, 2, 1 of leaves 5-8" \
	"n0020,n0023,n0026,n0029" "$(kv "$staggered" servers)"
# The bytes leaving client leaves 1-4 upward, per uplink: "leaf001[5] 8192".
client_uplinks() {
	sed -n "s/^io-link: policy=$1 link=\(leaf00[1-4]\[[0-9]*\]\)->spine[^ ]* dir=up bytes=\([0-9]*\)\$/\1 \2/p" "$d/lft" | sort
}
sp_up=$(client_uplinks spread)
st_up=$(client_uplinks staggered)
fc_eq "live: spread loads one uplink of each client leaf, 16 KiB each" \
	"4 16384 16384" \
	"$(awk '{ n++; if ($2 > mx) mx = $2; if (mn == "" || $2 < mn) mn = $2 } END { print n, mn, mx }' <<<"$sp_up")"
fc_eq "live: staggered loads both uplinks of each client leaf, 8 KiB each" \
	"8 8192 8192" \
	"$(awk '{ n++; if ($2 > mx) mx = $2; if (mn == "" || $2 < mn) mn = $2 } END { print n, mn, mx }' <<<"$st_up")"

# Modelled D-mod-k on the same fabric: same servers, same totals per stage.
for p in spread isolated random staggered; do
	a=$(policy_line "$d/lft" "$p")
	b=$(policy_line "$d/dmodk" "$p")
	fc_eq "live vs D-mod-k, $p: same servers, hop-bytes and stage totals" \
		"$(for k in servers link_bytes host_leaf_up host_leaf_down leaf_spine_up leaf_spine_down; do kv "$a" $k; done | paste -sd' ')" \
		"$(for k in servers link_bytes host_leaf_up host_leaf_down leaf_spine_up leaf_spine_down; do kv "$b" $k; done | paste -sd' ')"
done
fc_eq "D-mod-k rows say modelled" "dmodk dmodk dmodk dmodk" \
	"$(grep '^io-link-policy:' "$d/dmodk" | sed 's/.* routes=\([a-z]*\).*/\1/' | paste -sd' ')"
if [ "$(kv "$(policy_line "$d/dmodk" spread)" max_link_bytes)" -lt \
	"$(kv "$(policy_line "$d/dmodk" isolated)" max_link_bytes)" ]; then
	fabric_pass "D-mod-k: spread beats isolated too"
else
	fabric_fail "D-mod-k: spread beats isolated too" "$(grep '^io-link-policy' "$d/dmodk")"
fi
fabric_stop
fabric_finish
