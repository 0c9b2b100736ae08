#!/bin/bash
# remap_cpu_ratio.sh: ours' CPU over the metis-rb peer's, per job size, for
# two builds of bench/peer_bench side by side in one run (issue 16).
#
# Usage:
#   bench/remap_cpu_ratio.sh OLD_PEER_BENCH NEW_PEER_BENCH [MATRICES_DIR]
#
# For the real matrices (8-128 ranks) and then each size of the synthetic
# families (16 to 65,536 ranks), OLD and NEW run one after the other on the
# same inputs (--peers metis-rb; 2- and 3-level trees, 1 and 16 ranks per
# host, part of a leaf and one fragmented busy map); each process measures
# its own ratio (peer_bench's "time per size" table: CPU seconds summed
# over the rows of a size), so load that changes between the two runs
# moves both figures of a process alike.  Prints one line per size: rows,
# ours/metis-rb of OLD and NEW, and NEW's CPU over OLD's for ours.
# Figures only; about 10 minutes on 2 vCPUs.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD_PEER_BENCH NEW_PEER_BENCH [MATRICES_DIR]" >&2; exit 2; }
old=$1
new=$2
srcdir=$(cd "$(dirname "$0")/.." && pwd)
matrices=${3:-$srcdir/tests/data/matrices}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

layouts=(--trees 2,3 --rpn 1,16 --allocs part,frag --frag-seeds 1 --peers metis-rb)
sets=("matrices|--matrices $matrices --families none")
for n in 16 64 256 1024 4096 16384 65536; do
	sets+=("$n|--matrices none --sizes $n")
done

# The "time per size" rows of a peer_bench output: ranks rows ours mrb.
times() { awk '/^# time per size/ {on = 1; next} on && /^# +[0-9]/ {print $2, $3, $4, $5}' "$1"; }

printf '%7s %5s %12s %12s %14s\n' ranks rows old_ours/mrb new_ours/mrb new/old_ours
for set in "${sets[@]}"; do
	name=${set%%|*}
	read -r -a args <<<"${set#*|}"
	"$old" "${args[@]}" "${layouts[@]}" >"$work/$name.old"
	"$new" "${args[@]}" "${layouts[@]}" >"$work/$name.new"
	join <(times "$work/$name.old" | sort) <(times "$work/$name.new" | sort) |
		sort -n |
		awk '{printf "%7u %5u %12.2f %12.2f %14.2f\n", $1, $2, $3 / $4, $6 / $7, $6 / $3}'
done
