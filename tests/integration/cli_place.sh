#!/bin/bash
# cli_place.sh: `topoplace place` prints the exact hosts, leaves, pods and
# reasons for small fabrics (the leaf policy's exact best fit included),
# places I/O servers (per job, or site-wide before the job, which then keeps
# a comm_sensitive job out of their pods), reads I/O servers from the busy
# file, and refuses each bad input with one line naming it (exit 2); "cannot
# be met now" exits 1, "no opinion" within the time budget exits 3.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_TOPOPLACE to use
# another topoplace binary.
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT


line() { sed -n "s/^$1: //p" <<<"$2"; }
declare -A loads routing_keys

# ---- choices ---------------------------------------------------------------
out=$("$tp" place --fabric 1x4x4 --nodes 4 --policy leaf --class quiet)
tp_check_eq "leaf: 4 nodes on 4x4 exit 0" 0 $?
tp_check_eq "leaf: 4 nodes on 4x4 get one whole leaf" "n[0001-0004]" \
	"$(line hosts "$out")"
tp_check_eq "leaf: leaves listed" "leaf001" "$(line leaves "$out")"

cat >"$work/busy" <<'B'
# host jobid class
n0001 7 quiet
n0006 8 comm_sensitive
n0011 9 io_heavy   # an I/O job
n0016 down
B
out=$("$tp" place --fabric 1x4x4 --nodes 2 --policy leaf --busy "$work/busy")
tp_check_eq "leaf (remainder compatible, the default): beside the quiet job, nothing held" \
	"n[0002-0003] " "$(line hosts "$out") $(line reserved "$out")"
tp_check_eq "... the remainder line says what SystemComment would" \
	"leaf: 2 hosts on a shared compatible leaf (leaf001), no whole leaf" \
	"$(line remainder "$out")"
out=$("$tp" place --fabric 1x4x4 --nodes 2 --policy leaf --busy "$work/busy" \
	--leaf-remainder whole)
tp_check_eq "leaf: no leaf with a busy host; leftover reserved" \
	"n[0013-0014] n0015" \
	"$(line hosts "$out") $(line reserved "$out")"

out=$("$tp" place --fabric 1x4x4 --nodes 3 --policy shared --class io_heavy \
	--busy "$work/busy")
tp_check_eq "shared: io_heavy on the quiet leaf, never the comm_sensitive one" \
	"n[0002-0004]" "$(line hosts "$out")"

out=$("$tp" place --fabric 2x2x4 --nodes 6 --policy spread)
tp_check_eq "spread: round robin over pods and leaves" \
	"n[0001-0002,0005,0009-0010,0013]" "$(line hosts "$out")"

out=$("$tp" place --fabric 1x4x4 --nodes 2 --policy leaf --allowed \
	--leaf-remainder whole)
tp_check_eq "allowed: the whole chosen leaf" "n[0001-0004]" \
	"$(line allowed "$out")"

out=$("$tp" place --fabric 1x4x4 --nodes 4 --policy leaf --io-servers 2 \
	--io-policy spread)
tp_check_eq "io servers beside the job, last ports" "n[0008,0012]" \
	"$(line io-servers "$out")"
tp_check "io loads compared for every policy" \
	grep -q '^  isolated ' <<<"$out"
tp_check_eq "--io-policy spread: said as given, marked among the loads" \
	"io-policy: spread (--io-policy)|spread" \
	"$(grep '^io-policy:' <<<"$out")|$(sed -n 's/^  \([a-z]*\) .*  (chosen)$/\1/p' <<<"$out")"

# ---- --io-policy auto (the default): the policy for --routing ----------------
out=$("$tp" place --fabric 2x4x4 --nodes 6 --io-servers 2)
tp_check_eq "io-policy auto, adaptive routing: isolated, and why" \
	"io-policy: isolated, chosen by auto: adaptive routing: any uplink of a server's leaf may carry its traffic, so servers get leaves of their own" \
	"$(grep '^io-policy:' <<<"$out")"
tp_check_eq "... isolated placed (one leaf) and marked among the loads" \
	"isolated: 2 servers beside the job's hosts on 1 leaf|isolated" \
	"$(line io-reason "$out" | cut -d' ' -f1-10)|$(sed -n 's/^  \([a-z]*\) .*  (chosen)$/\1/p' <<<"$out")"
out=$("$tp" place --fabric 2x4x4 --nodes 6 --io-servers 2 --io-policy auto \
	--routing static)
tp_check_eq "io-policy auto, static routing: staggered, and why" \
	"io-policy: staggered, chosen by auto: static routing: servers on distinct ports spread their traffic over the uplinks and no other host shares a server's port|staggered" \
	"$(grep '^io-policy:' <<<"$out")|$(sed -n 's/^  \([a-z]*\) .*  (chosen)$/\1/p' <<<"$out")"

# ---- per-link I/O loads follow --routing (issue 15 goal 2) ------------------
# 6 leaves x 4 hosts, every leaf cabled once to each of 4 spines; 4 site
# servers; the I/O job's 8 hosts (leaves 1-2) write 4 bytes each, 1 per
# server.  Static (D-mod-K): spread's servers all on port 4 send a client
# leaf's 16 bytes up one uplink (16, rank 4); dedicated leaf006 and
# staggered: 8 on a server's link and 8 down a spine link (rank 1 both).
# Adaptive: the 16 bytes split over 4 uplinks (4 each); every busiest
# direction is a server's link (8); dedicated leaf006 still takes 8 down
# each spine link, spread and staggered 4 at most, so they rank first
# (the packet model measured dedicated leaves 15% lower, bench/RESULTS.md).
for r in static adaptive; do
	printf 'SwitchName=leaf%03d Nodes=n[%04d-%04d]\n' 1 1 4 2 5 8 3 9 12 4 13 16 \
		5 17 20 6 21 24 >"$work/six.conf"
	printf 'SwitchName=spine%03d Switches=leaf[001-006]\n' 1 2 3 4 >>"$work/six.conf"
	out=$("$tp" place --fabric "$work/six.conf" --nodes 8 --class io_heavy \
		--routing $r --io-servers 4 --io-where site --io-policy isolated \
		--io-write-bytes 4 --io-kv)
	loads[$r]=$(for p in spread isolated staggered; do
		l=$(grep "^io-link-policy: policy=$p " <<<"$out")
		printf '%s %s/%s/%s ' "$p" \
			"$(sed -n 's/.* max_any_bytes=\([0-9]*\).*/\1/p' <<<"$l")" \
			"$(sed -n 's/.* max_link_bytes=\([0-9]*\).*/\1/p' <<<"$l")" \
			"$(sed -n 's/.* rank=\([0-9]*\).*/\1/p' <<<"$l")"
	done)
	routing_keys[$r]=$(sed -n 's/^io-link-policy: .* routing=\([a-z]*\) .*/\1/p' <<<"$out" | sort -u)
done
tp_check_eq "--routing static: busiest/busiest switch link/rank per policy" \
	"spread 16/16/4 isolated 8/8/1 staggered 8/8/1 " "${loads[static]}"
tp_check_eq "--routing adaptive: spread over the uplinks, dedicated leaves last" \
	"spread 8/4/1 isolated 8/8/4 staggered 8/4/1 " "${loads[adaptive]}"
tp_check_eq "... each row says the routing its loads follow" \
	"static adaptive" "${routing_keys[static]} ${routing_keys[adaptive]}"
out=$("$tp" place --fabric "$work/six.conf" --nodes 8 --class io_heavy \
	--io-servers 4 --io-where site --io-write-bytes 4)
tp_check "... and the table says so (adaptive, the default)" \
	grep -q "^io-links: routes modelled (D-mod-k, not read from the fabric); adaptive routing: between the leaves each pair spread over its minimal paths' up-links; " <<<"$out"
tp_check_eq "... the table's rank and busiest columns" \
	"spread 1 8 B|* isolated 4 8 B|staggered 1 8 B" \
	"$(sed -n 's/^\(. [a-z]*\) *\([0-9]\) *\([0-9]* B\) .*/\1 \2 \3/p' <<<"$out" | grep -v random | sed 's/^  //' | paste -sd'|')"

# ---- leaf: the exact best fit ----------------------------------------------
printf 'n0012 down\nn0016 down\n' >"$work/two-down"
out=$("$tp" place --fabric 1x4x4 --nodes 6 --policy leaf --busy "$work/two-down")
tp_check_eq "leaf: 3 + 3 on two partly used leaves, not 4 + 3 (n0011 idle)" \
	"n[0009-0011,0013-0015] leaf003 leaf004 -" \
	"$(line hosts "$out") $(line leaves "$out") $(line reserved "$out" || true)-"
tp_check "leaf: the reason says nothing is left over and 2 whole leaves stay" \
	grep -q "of those the tightest fit: 0 free hosts left on them (held for the job), 0 wholly free leaves used, 2 left for bigger jobs" <<<"$out"
# The same hosts not ready (back in a moment, as after a slurmctld
# restart): they are room, not a tighter fit for a remainder ...
printf 'n0012 notready\nn0016 notready\n' >"$work/two-notready"
out=$("$tp" place --fabric 1x4x4 --nodes 3 --policy leaf --busy "$work/two-notready")
tp_check_eq "leaf: a remainder does not take a leaf for its hosts not ready" \
	"n[0001-0003] leaf001" "$(line hosts "$out") $(line leaves "$out")"
# ... and their leaves are not whole now: whole leaves are taken elsewhere
# (the job waits when there are none), not 3 + 3 on the two leftovers.
out=$("$tp" place --fabric 1x4x4 --nodes 6 --policy leaf --leaf-remainder whole \
	--busy "$work/two-notready")
tp_check_eq "leaf: hosts not ready keep their leaves from counting as whole" \
	"n[0001-0006] leaf001 leaf002" "$(line hosts "$out") $(line leaves "$out")"
tp_check "leaf: the reason counts the leaves waiting for hosts not ready" \
	grep -q "0 leaves skipped for other jobs' hosts, 2 for hosts not ready" <<<"$out"
printf 'n%04d down\n' 12 16 20 24 >"$work/pods-down"
out=$("$tp" place --fabric 3x2x4 --nodes 12 --policy leaf --busy "$work/pods-down")
tp_check_eq "leaf: 6 + 6 in two partly used pods; the wholly free pod stays" \
	"pod02 pod03" "$(line pods "$out")"

# ---- I/O servers in the occupancy, and site-wide servers -------------------
cat >"$work/servers" <<'B'
n0016 ioserver      # a site-wide file server
n0012 ioserver 5    # job 5's on-demand server
B
out=$("$tp" place --fabric 2x2x4 --nodes 4 --policy leaf \
	--class comm_sensitive --busy "$work/servers")
rc=$?
tp_check_eq "busy file: I/O server lines are read" 0 "$rc"
tp_check_eq "comm_sensitive: the one leaf left in a pod without servers" \
	"n[0001-0004]" "$(line hosts "$out")"
tp_check "... and the reason says it was kept out of their pods" \
	grep -q "; kept out of pods with I/O servers$" <<<"$out"
tp_expect_fail "a server's leaf is no whole leaf for any job; servers counted" 1 \
	"topoplace place: cannot be met now: leaf policy needs 9 hosts on leaves with no other job; 2 such leaves hold 8 usable hosts (2 leaves have other jobs' hosts or I/O servers; 14 usable hosts (0 busy, 0 held for other jobs, 0 down, 2 I/O servers))" \
	"$tp" place --fabric 2x2x4 --nodes 9 --policy leaf --class quiet \
	--busy "$work/servers"

out=$("$tp" place --fabric 2x2x4 --nodes 9 --policy leaf --class quiet \
	--routing static --busy "$work/servers" --leaf-remainder whole)
tp_check_eq "--routing static: 9 hosts fit beside the servers' ports" \
	"0 n[0001-0003,0009-0011,0013-0015]" "$? $(line hosts "$out")"
tp_check "--routing static: the reason names the server leaves" \
	grep -q "beside I/O servers on 2 leaves (leaf003 leaf004; static routing: their ports' links are their own)" <<<"$(line reason "$out")"
tp_expect_fail "--routing with an unknown value" 2 \
	"topoplace place: --routing: 'ecmp' is not a routing kind (expected one of adaptive|static)" \
	"$tp" place --fabric 1x4x4 --nodes 2 --routing ecmp

out=$("$tp" place --fabric 2x2x4 --nodes 4 --policy leaf \
	--class comm_sensitive --io-servers 1 --io-where site --io-policy isolated)
tp_check_eq "site: the server is placed first, the job out of its pod" \
	"n0016 n[0001-0004] pod01" \
	"$(line io-servers "$out") $(line hosts "$out") $(line pods "$out")"
tp_check "site: the reason says so" \
	grep -q "kept out of pods with I/O servers" <<<"$(line reason "$out")"
tp_check "site: io-reason says site-wide" \
	grep -q "^io-reason: isolated: 1 server site-wide on 1 leaf" <<<"$out"
out=$("$tp" place --fabric 2x2x4 --nodes 12 --policy leaf \
	--class comm_sensitive --io-servers 1 --io-where site --io-policy isolated)
tp_check "site: when the job cannot avoid the server's pod, the reason names both" \
	grep -q "NOT possible to keep it out of pods with I/O servers: only 8 hosts in other pods, so it also uses pod02 (I/O servers n0016)" <<<"$out"
tp_check "... and, under adaptive routing, that pod isolation was given up" \
	grep -q "; pod isolation given up (adaptive routing): spans pods pod01,pod02; pod pod02 carries I/O (site I/O server n0016)$" <<<"$(line reason "$out")"
out=$("$tp" place --fabric 2x2x4 --nodes 12 --policy leaf --routing static \
	--class comm_sensitive --io-servers 1 --io-where site --io-policy isolated)
tp_check "... not under static routing" \
	bash -c '! grep -q "pod isolation" <<<"$1"' _ "$out"

# ---- cannot be met, and bad input ------------------------------------------
tp_expect_fail "cannot be met now exits 1 with the reason" 1 \
	"topoplace place: cannot be met now: leaf policy needs 8 hosts on leaves with no other job; 1 such leaves hold 3 usable hosts (3 leaves have other jobs' hosts; 12 usable hosts (3 busy, 0 held for other jobs, 1 down))" \
	"$tp" place --fabric 1x4x4 --nodes 8 --policy leaf --busy "$work/busy"
# No opinion within the budget is not "cannot be met": exit 3, not 1.  On
# 16 pods x 18 x 18 (5,184 hosts) a 1 us budget is spent before the
# decision; without a budget the same request is placed.
tp_check_eq "the big request itself can be met (exit 0 without a budget)" 0 \
	"$("$tp" place --fabric 16x18x18 --nodes 300 --policy leaf >/dev/null 2>&1; echo $?)"
tp_expect_fail "budget spent: no opinion exits 3 with one line" 3 \
	"topoplace place: allocation for job 1 (leaf, 300 nodes): time budget of 1 us spent: no opinion" \
	"$tp" place --fabric 16x18x18 --nodes 300 --policy leaf --budget-us 1
tp_expect_fail "budget spent with --allowed: also exit 3" 3 \
	"topoplace place: allocation for job 1 (shared, 300 nodes): time budget of 1 us spent: no opinion" \
	"$tp" place --fabric 16x18x18 --nodes 300 --policy shared --allowed --budget-us 1
tp_expect_fail "bad fabric" 2 \
	"topoplace place: --fabric '4x4': expected PODSxLEAVESxHOSTS (e.g. 2x18x18) or a file" \
	"$tp" place --fabric 4x4 --nodes 1
tp_expect_fail "bad nodes" 2 \
	"topoplace place: --nodes '0': expected a whole number from 1 to 4294967295" \
	"$tp" place --fabric 1x4x4 --nodes 0
tp_expect_fail "bad policy" 2 \
	"topoplace place: --policy: 'leafs' is not a placement policy (expected one of auto|leaf|shared|pack|spread|off)" \
	"$tp" place --fabric 1x4x4 --nodes 1 --policy leafs
tp_expect_fail "auto refused" 2 \
	"topoplace place: --policy auto is resolved from topoplace.conf; give leaf|shared|pack|spread|off" \
	"$tp" place --fabric 1x4x4 --nodes 1 --policy auto
tp_expect_fail "bad class" 2 \
	"topoplace place: --class: job class 'loud': expected quiet|io_heavy|comm_sensitive" \
	"$tp" place --fabric 1x4x4 --nodes 1 --class loud
tp_expect_fail "more nodes than hosts" 2 \
	"topoplace place: allocation request for job 1: 17 nodes, but the fabric has only 16 hosts" \
	"$tp" place --fabric 1x4x4 --nodes 17
tp_expect_fail "bad io policy" 2 \
	"topoplace place: --io-policy: I/O server policy 'near': expected auto|spread|isolated|random|staggered" \
	"$tp" place --fabric 1x4x4 --nodes 1 --io-servers 1 --io-policy near
tp_expect_fail "missing busy file" 1 \
	"topoplace place: --busy $work/none: No such file or directory" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/none"
printf 'n0001 7 quiet\nn0099 8 quiet\n' >"$work/b1"
tp_expect_fail "busy: unknown host names file and line" 1 \
	"topoplace place: $work/b1:2: unknown host 'n0099' (not in the fabric)" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b1"
printf 'n0001 x7 quiet\n' >"$work/b2"
tp_expect_fail "busy: bad job id" 1 \
	"topoplace place: $work/b2:1: job id 'x7' is not a number" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b2"
printf '\nn0001 7 heavy\n' >"$work/b3"
tp_expect_fail "busy: bad class" 1 \
	"topoplace place: $work/b3:2: job class 'heavy': expected quiet|io_heavy|comm_sensitive" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b3"
printf 'n0001 7\n' >"$work/b4"
tp_expect_fail "busy: missing field" 1 \
	"topoplace place: $work/b4:1: expected 'host jobid class', 'host down', 'host notready', 'host reserved jobid class' or 'host ioserver [jobid]'" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b4"
printf '# two states for one host\nn0003 7 quiet\nn0004 down\nn0003 down\n' >"$work/b5"
tp_expect_fail "busy: a host listed twice names the file and both lines" 1 \
	"topoplace place: $work/b5:4: host 'n0003' is already listed on line 2" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b5"
printf 'n0003 ioserver 7 quiet\n' >"$work/b6"
tp_expect_fail "busy: an ioserver line with too many fields" 1 \
	"topoplace place: $work/b6:1: expected 'host ioserver' (site-wide) or 'host ioserver jobid'" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b6"
printf 'n0003 0 quiet\n' >"$work/b7"
tp_expect_fail "busy: job id 0 is the site's" 1 \
	"topoplace place: $work/b7:1: job id 0 is not a job (a site-wide I/O server is 'host ioserver')" \
	"$tp" place --fabric 1x4x4 --nodes 1 --busy "$work/b7"
tp_expect_fail "job id 0 refused" 2 \
	"topoplace place: --job-id '0': expected a whole number from 1 to 4294967295" \
	"$tp" place --fabric 1x4x4 --nodes 1 --job-id 0
tp_expect_fail "bad io-where" 2 \
	"topoplace place: --io-where 'rack': expected among|beside|site" \
	"$tp" place --fabric 1x4x4 --nodes 1 --io-servers 1 --io-where rack
tp_expect_fail "unknown option" 2 \
	"topoplace place: unknown option or missing value: '--bogus' (try --help)" \
	"$tp" place --fabric 1x4x4 --nodes 1 --bogus

# ---- --fabric from a real fabric: ibnetdiscover cache and topology.conf ----
cache="$abs_top_srcdir/tests/data/fabric/fat3-2x2x2.cache"
out=$("$tp" place --fabric "$cache" --nodes 2 --policy leaf --class quiet)
tp_check_eq "cache: 2 nodes get a whole leaf of the discovered fabric" \
	"leaf001" "$(line leaves "$out")"
"$abs_top_builddir/tools/topoplace-fattree" --format=slurm --leaves 4 \
	--hosts-per-leaf 4 --spines 2 -o "$work/topology.conf"
out=$("$tp" place --fabric "$work/topology.conf" --nodes 5 --policy leaf \
	--class quiet)
tp_check_eq "topology.conf: 5 nodes take two whole leaves" "leaf001 leaf002" \
	"$(line leaves "$out")"
printf 'SwitchName=s1 Nodes=a[1-2]\nbogus line\n' > "$work/bad.conf"
err=$("$tp" place --fabric "$work/bad.conf" --nodes 1 --policy leaf 2>&1 >/dev/null)
rc=$?
tp_check_eq "a file that is neither cache nor topology.conf: exit 1" 1 "$rc"
tp_check "... and one line naming the file and the topology.conf line" \
	bash -c '[ $(wc -l <<<"$1") = 1 ] && grep -q "bad.conf: line 2" <<<"$1"' _ "$err"

tp_done
