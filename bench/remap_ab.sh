#!/bin/bash
# remap_ab.sh: two builds of the remapper on the same bench/peer_bench
# inputs, side by side: what a change of the search costs or buys in
# hop-bytes, against the peers and against the old build, and in CPU
# (issue 16: which candidates pay).
#
# Usage:
#   bench/remap_ab.sh OLD_PEER_BENCH NEW_PEER_BENCH PEER_BENCH_ARGS...
#
# Runs OLD, then NEW, with PEER_BENCH_ARGS and --digest on (give --peers
# yourself: metis-rb,scotch for the goal's peers), and prints for each:
# inputs, inputs above the best of block and the peers, inputs below the
# best peer (peer_bench's summary line), and ours/metis-rb CPU per job
# size (peer_bench's "time per size" table, each build's ratio measured
# in its own process); then, input by input from the digest lines, NEW's
# hop-bytes over OLD's: geometric mean, how many higher, lower, equal, and
# the worst and best input; then every input that changed, by how much
# (at most AB_LIST of them, default 20, the largest changes first).
# Figures only; exit 0 unless a run fails.
set -euo pipefail
export LC_ALL=C # sort and join agree on the order of the keys

[ $# -ge 3 ] || { echo "usage: $0 OLD_PEER_BENCH NEW_PEER_BENCH PEER_BENCH_ARGS..." >&2; exit 2; }
old=$1
new=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for which in old new; do
	bin=$old
	[ "$which" = new ] && bin=$new
	"$bin" "$@" --digest on >"$work/$which"
	echo "== $which ($bin)"
	grep '^# summary:' "$work/$which" || echo "(no summary line)"
	awk '/^# time per size/ {on = 1; next}
		on && /^# +ranks/ {print; next}
		on && /^# +[0-9]/ {print; next}
		on {on = 0}' "$work/$which"
done

# key (label ranks levels rpn alloc) and hop-bytes of each digest line
digests() {
	awk '$2 == "digest" {
		for (i = 8; i < NF; i++) if ($i == "hop-bytes") hb = $(i + 1)
		print $3 "/" $4 "/" $5 "/" $6 "/" $7, hb
	}' "$1" | sort
}
digests "$work/old" >"$work/old.hb"
digests "$work/new" >"$work/new.hb"
echo "== new hop-bytes over old, input by input"
join "$work/old.hb" "$work/new.hb" | awk '
	$2 > 0 {
		r = $3 / $2; n++; lsum += log(r)
		if (r > 1) hi++; else if (r < 1) lo++; else eq++
		if (n == 1 || r > worst) { worst = r; wkey = $1 }
		if (n == 1 || r < best) { best = r; bkey = $1 }
	}
	END {
		if (!n) { print "no inputs in common"; exit }
		printf "inputs %d: geomean %.5f; higher %d, lower %d, equal %d\n", n, exp(lsum / n), hi, lo, eq
		printf "worst %.4f (%s), best %.4f (%s)\n", worst, wkey, best, bkey
	}'
echo "== inputs that changed (new/old, largest change first)"
join "$work/old.hb" "$work/new.hb" |
	awk '$2 > 0 && $3 != $2 { r = $3 / $2; d = r > 1 ? r : 1 / r; printf "%.6f %.4f %s\n", d, r, $1 }' |
	sort -rn | head -n "${AB_LIST:-20}" | awk '{ print $2, $3 }'
