#!/bin/bash
# cli_cost_busy.sh: `topoplace cost --busy` (issue #15): the predicted I/O
# link load and each comm_sensitive job's contention for a set of running
# jobs, worked out by hand on a topology.conf of 3 leaves x 2 hosts under
# one Slurm "root" switch (topoplace-fattree; one uplink a leaf):
#   leaf001 n0001 n0002  io_heavy job 8 on both
#   leaf002 n0003 n0004  comm_sensitive job 7 on n0003, job 9 on n0004
#   leaf003 n0005 n0006  job 7 on n0005; the I/O server on n0006
# Each io_heavy host writes one unit to n0006: leaf001->root 2, root->leaf003
# 2, leaf003->n0006 2 (a host link).  Job 7 (n0003 <-> n0005) uses
# root->leaf003: contention 2.000 there; job 9 (1 host) sends nothing and
# has no line.  --io-servers 1 under adaptive routing (auto: isolated, the
# last port of the last leaf) places the server on n0006 too: the same
# answer; under static routing (auto: staggered) on n0002, among the
# clients: no switch link carries I/O.  With the server on job 7's leaf
# (n0004), the I/O enters by root->leaf002, which job 7's n0005 -> n0003
# traffic takes too: 2.000; with I/O inside leaf001 only, 0.000.  Bad
# input: one line on stderr, nothing on stdout.  On a tree with two spines
# (--fabric 1x3x2x2) the routing decides, see below.  --json: the same
# figures in one document (read back by Python), nothing on stdout on error.
#
# Env: abs_top_builddir, abs_top_srcdir (make check).
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=$abs_top_builddir/tools/topoplace
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

"$abs_top_builddir/tools/topoplace-fattree" --leaves 3 --hosts-per-leaf 2 \
	--spines 1 --format slurm -o "$work/topology.conf" || exit 1
cat >"$work/jobs" <<'EOF'
n0001 8 io_heavy
n0002 8 io_heavy
n0003 7 comm_sensitive
n0004 9 comm_sensitive
n0005 7 comm_sensitive
EOF
{ cat "$work/jobs"; echo "n0006 ioserver"; } >"$work/listed"
out=$("$tp" cost --busy "$work/listed" --fabric "$work/topology.conf" 2>&1)
tp_check_eq "the file's server: I/O load 2 on root->leaf003, job 7's contention there" \
	"io-servers: 1 from $work/listed
io: routing=adaptive clients=2 servers=1 max_uplink=2.000 link=leaf001[3]->root[1]
job=7 hosts=2 contention=2.000 link=root[3]->leaf003[3]" "$out"

out=$("$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --io-servers 1 2>&1)
tp_check_eq "--io-servers 1 under adaptive routing: isolated (auto), the same host and answer" \
	"io-servers: 1 placed isolated (auto) on any host: n0006
io: routing=adaptive clients=2 servers=1 max_uplink=2.000 link=leaf001[3]->root[1]
job=7 hosts=2 contention=2.000 link=root[3]->leaf003[3]" "$out"

out=$("$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" \
	--io-servers 1 --routing static 2>&1)
tp_check_eq "under static routing auto is staggered: n0002, the clients' own leaf, no switch link loaded" \
	"io-servers: 1 placed staggered (auto) on any host: n0002
io: routing=static clients=2 servers=1 max_uplink=0.000 link=-
job=7 hosts=2 contention=0.000 link=-" "$out"

{ grep -v n0004 "$work/jobs"; echo "n0004 ioserver"; } >"$work/beside"
out=$("$tp" cost --busy "$work/beside" --fabric "$work/topology.conf" 2>&1)
tp_check_eq "a server on job 7's leaf: the I/O enters by the downlink job 7's n0005 -> n0003 traffic takes" \
	"job=7 hosts=2 contention=2.000 link=root[2]->leaf002[3]" "$(grep '^job=' <<<"$out")"

printf 'n0001 8 io_heavy\nn0002 ioserver\nn0003 7 comm_sensitive\nn0005 7 comm_sensitive\n' >"$work/local"
out=$("$tp" cost --busy "$work/local" --fabric "$work/topology.conf" 2>&1)
tp_check_eq "I/O within its own leaf shares nothing with job 7" \
	"io: routing=adaptive clients=1 servers=1 max_uplink=0.000 link=-
job=7 hosts=2 contention=0.000 link=-" "$(grep -v '^io-servers' <<<"$out")"

printf 'n0003 7 comm_sensitive\nn0005 7 comm_sensitive\n' >"$work/noio"
out=$("$tp" cost --busy "$work/noio" --fabric "$work/topology.conf" --io-servers 2 2>&1)
tp_check_eq "no io_heavy job: no I/O load, no contention" \
	"io: routing=adaptive clients=0 servers=2 max_uplink=0.000 link=-
job=7 hosts=2 contention=0.000 link=-" "$(grep -v '^io-servers' <<<"$out")"

# Two spines (1x3x2x2, real ports): adaptive routing spreads the clients'
# 2 units over both uplinks (1 each) and job 7's traffic over both spines,
# so it meets 1.0 on the way down to leaf003; D-mod-K sends all I/O to
# n0006 (host 5, 5 mod 2 = 1) up leaf001's second uplink (2.0) and job 7's
# (hosts 2 and 4) by the first spine: no shared direction.
out=$("$tp" cost --busy "$work/listed" --fabric 1x3x2x2 2>&1)
tp_check_eq "two spines, adaptive: spread, 1.0 shared" \
	"io: routing=adaptive clients=2 servers=1 max_uplink=1.000 link=leaf001[3]->spine001[1]
job=7 hosts=2 contention=1.000 link=spine001[3]->leaf003[3]" "$(grep -v '^io-servers' <<<"$out")"
out=$("$tp" cost --busy "$work/listed" --fabric 1x3x2x2 --routing static 2>&1)
tp_check_eq "two spines, static: one uplink carries the I/O, job 7 the other" \
	"io: routing=static clients=2 servers=1 max_uplink=2.000 link=leaf001[4]->spine002[1]
job=7 hosts=2 contention=0.000 link=-" "$(grep -v '^io-servers' <<<"$out")"

tp_expect_fail "servers listed and --io-servers: refused" 2 \
	"topoplace cost: $work/listed lists 1 I/O servers and --io-servers asks for 2 more: give them one way" \
	"$tp" cost --busy "$work/listed" --fabric "$work/topology.conf" --io-servers 2
tp_expect_fail "no server at all: refused" 2 \
	"topoplace cost: $work/jobs lists no I/O server ('host ioserver'): give --io-servers N" \
	"$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf"
tp_expect_fail "--fabric live is refused" 2 \
	"topoplace cost: --busy needs --fabric FILE (a topology.conf or an ibnetdiscover cache) or PxLxH[xS[xC]]" \
	"$tp" cost --busy "$work/jobs" --fabric live --io-servers 1
printf 'n0001 7 comm_sensitive\nn0099 7 comm_sensitive\n' >"$work/bad"
tp_expect_fail "an unknown host names file and line" 1 \
	"topoplace cost: $work/bad:2: unknown host 'n0099' (not in the fabric)" \
	"$tp" cost --busy "$work/bad" --fabric "$work/topology.conf" --io-servers 1
printf 'n0001 7 chatty\n' >"$work/bad"
tp_expect_fail "an unknown class names file and line" 1 \
	"topoplace cost: $work/bad:1: job class 'chatty': expected quiet|io_heavy|comm_sensitive" \
	"$tp" cost --busy "$work/bad" --fabric "$work/topology.conf" --io-servers 1
tp_expect_fail "--routing takes adaptive|static" 2 \
	"topoplace cost: --routing: 'dmodk' is not a routing kind (expected one of adaptive|static)" \
	"$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --routing dmodk
tp_expect_fail "--io-servers 0" 2 \
	"topoplace cost: --io-servers '0': expected a whole number from 1 to 4294967295" \
	"$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --io-servers 0
tp_expect_fail "--io-policy nowhere" 2 \
	"topoplace cost: --io-policy: I/O server policy 'nowhere': expected auto|spread|isolated|random|staggered" \
	"$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --io-servers 1 --io-policy nowhere
tp_expect_fail "an unknown option" 2 "topoplace cost: unknown option '--bogus' (try --help)" \
	"$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --bogus
# --json: one document saying what the text says, read back by Python.
json_as_text() { # FILE: the text form rebuilt from the document
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "topoplace.cost_busy" and d["version"] == 1, d
s = d["io_servers"]
if s["source"] == "busy_file":
    print("io-servers: %d from %s" % (len(s["hosts"]), d["busy"]))
else:
    print("io-servers: %d placed %s%s on any host: %s" % (len(s["hosts"]),
          s["policy"], " (auto)" if s["policy_auto"] else "", " ".join(s["hosts"])))
io = d["io"]
print("io: routing=%s clients=%d servers=%d max_uplink=%.3f link=%s" % (d["routing"],
      io["clients"], len(s["hosts"]), io["max_uplink"], io["link"] or "-"))
for j in d["jobs"]:
    print("job=%d hosts=%d contention=%.3f link=%s" % (j["job"], j["hosts"],
          j["contention"], j["link"] or "-"))
' "$1"
}
if command -v python3 >/dev/null; then
	for args in "$work/listed --fabric $work/topology.conf" \
		"$work/jobs --fabric $work/topology.conf --io-servers 1 --routing static" \
		"$work/noio --fabric $work/topology.conf --io-servers 2" \
		"$work/listed --fabric 1x3x2x2"; do
		# shellcheck disable=SC2086
		"$tp" cost --busy $args >"$work/text" 2>&1
		# shellcheck disable=SC2086
		"$tp" cost --busy $args --json >"$work/json" 2>"$work/err"
		tp_check_eq "--json says what the text says: ${args//$work\//}" \
			"$(cat "$work/text")" "$(json_as_text "$work/json" 2>&1)"
	done
else
	tp_fail "python3 is needed to read the JSON of cost --busy"
fi
printf 'n0001 7 comm_sensitive\nn0099 7 comm_sensitive\n' >"$work/bad"
"$tp" cost --busy "$work/bad" --fabric "$work/topology.conf" --io-servers 1 --json >"$work/out" 2>"$work/err"
tp_check_eq "--json with a bad file: exit 1, one line on stderr, nothing on stdout" \
	"1 1 0" "$? $(wc -l <"$work/err") $(wc -c <"$work/out")"

out=$("$tp" cost --busy "$work/jobs" --fabric "$work/topology.conf" --help)
tp_check_eq "--help with --busy: the usage of this form" \
	"usage: topoplace cost --busy FILE --fabric FILE|PxLxH[xS[xC]] [--routing adaptive|static]" "$(head -1 <<<"$out")"
tp_done
