#!/bin/bash
# remap_identity.sh: do two builds of the remapper return the same mapping
# on every bench/peer_bench input?  For changes meant to make the remapper
# cheaper without changing any result (issue 16: a cheaper refinement).
#
# Usage:
#   bench/remap_identity.sh OLD_PEER_BENCH NEW_PEER_BENCH [MATRICES_DIR]
#
# Both binaries must know --digest (bench/peer_bench.c): under each row it
# prints a hash of ours' mapping (every rank's host and slot), its
# hop-bytes and every field of tp_remap_stats.  Each input set below runs
# with --peers none (ours, block, cyclic, random only) under both
# binaries; the digest lines must be equal, line for line.  Inputs: every
# matrix of MATRICES_DIR (default tests/data/matrices; 8-128 ranks) and
# the five synthetic families at 16-2,048 ranks, on 2- and 3-level trees,
# 1, 4 and 16 ranks per host, whole leaves, part of a leaf and three
# fragmented busy maps, in the default search (auto); the matrices again
# in the full and fast searches; and, for the paths of larger jobs (fewer
# candidates, fewer passes, leaf-wide polish at one rank per host), the
# families at 4,096 and 20,000 ranks on fewer layouts.  Prints one line
# per set and the first differing lines; exits 1 if any set differs.
# About 10 minutes per binary on 2 vCPUs.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD_PEER_BENCH NEW_PEER_BENCH [MATRICES_DIR]" >&2; exit 2; }
old=$1
new=$2
srcdir=$(cd "$(dirname "$0")/.." && pwd)
matrices=${3:-$srcdir/tests/data/matrices}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

all_layouts=(--trees 2,3 --rpn 1,4,16 --allocs leaves,part,frag --frag-seeds 1,2,3)
sets=(
	"matrices-auto|--matrices $matrices --families none ${all_layouts[*]}"
	"matrices-full|--matrices $matrices --families none --search full ${all_layouts[*]}"
	"matrices-fast|--matrices $matrices --families none --search fast ${all_layouts[*]}"
	"families-16-256|--matrices none --sizes 16,27,64,128,256 ${all_layouts[*]}"
	"families-512|--matrices none --sizes 512 ${all_layouts[*]}"
	"families-1024|--matrices none --sizes 1024 ${all_layouts[*]}"
	"families-2048|--matrices none --sizes 2048 ${all_layouts[*]}"
	"families-4096|--matrices none --sizes 4096 --trees 2,3 --rpn 1,16 --allocs part,frag --frag-seeds 1"
	"families-20000|--matrices none --sizes 20000 --trees 3 --rpn 1,16 --allocs frag --frag-seeds 1"
)

differ=0
for set in "${sets[@]}"; do
	name=${set%%|*}
	read -r -a args <<<"${set#*|}"
	for which in old new; do
		bin=$old
		[ "$which" = new ] && bin=$new
		"$bin" --peers none --digest on "${args[@]}" >"$work/$name.$which.out"
		grep '^# digest ' "$work/$name.$which.out" >"$work/$name.$which" || true
	done
	rows=$(wc -l <"$work/$name.new")
	if [ "$rows" -eq 0 ]; then
		echo "$name: no digest lines (does the binary know --digest?)"
		differ=1
	elif cmp -s "$work/$name.old" "$work/$name.new"; then
		echo "$name: $rows inputs, identical"
	else
		echo "$name: $rows inputs, $(diff "$work/$name.old" "$work/$name.new" | grep -c '^>') differ; first:"
		diff "$work/$name.old" "$work/$name.new" | head -6
		differ=1
	fi
done
exit $differ
