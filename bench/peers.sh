#!/bin/bash
# peers.sh: run bench/peer_bench, with TreeMatch when it is built.
#
# Usage (from a configured and built build directory):
#   $SRCDIR/bench/peers.sh [peer_bench arguments]
#
# Without TreeMatch's archive (bench/peers-setup.sh makes it under
# /var/cache/topoplace/treematch, or $TP_TREEMATCH_DIR) this runs
# ./bench/peer_bench as make built it, which prints
# "treematch: not built".  With it, bench/peer_bench_tm is compiled with
# cc through the build's libtool against libtopoplace.la, Scotch, METIS and
# the archive (plus hwloc, which TreeMatch uses), then run.  The matrices
# default to $SRCDIR/tests/data/matrices.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
tm=${TP_TREEMATCH_DIR:-/var/cache/topoplace/treematch}
die() { echo "peers.sh: $*" >&2; exit 1; }

[ -f placement/libtopoplace.la ] && [ -x libtool ] ||
	die "run from a build directory after make (placement/libtopoplace.la and ./libtool are missing here)"
args=("$@")
case " $* " in *" --matrices "*) ;; *) args=(--matrices "$srcdir/tests/data/matrices" "${args[@]}") ;; esac

if [ -f "$tm/libtreematch.a" ] && [ -f "$tm/include/treematch.h" ]; then
	src=$srcdir/bench/peer_bench.c
	out=bench/peer_bench_tm
	mkdir -p bench
	if [ ! -x "$out" ] || [ "$src" -nt "$out" ] ||
	   [ "$srcdir/bench/metis_rb.c" -nt "$out" ] ||
	   [ "$srcdir/bench/scotch_peer.c" -nt "$out" ] ||
	   [ placement/libtopoplace.la -nt "$out" ] || [ "$tm/libtreematch.a" -nt "$out" ]; then
		echo "peers.sh: building $out with TreeMatch from $tm" >&2
		./libtool --quiet --mode=link cc -std=gnu11 -O2 -g -Wall -Wextra -Werror \
			-DTP_PEER_TREEMATCH -I. -I"$srcdir/common" -I"$srcdir/placement" -I"$tm/include" \
			"$src" "$srcdir/bench/metis_rb.c" "$srcdir/bench/scotch_peer.c" -o "$out" placement/libtopoplace.la "$tm/libtreematch.a" \
			-lscotch -lscotcherr -lmetis -lhwloc -lpthread -lm ||
			die "building $out failed"
	fi
	exec "./$out" "${args[@]}"
fi
[ -x bench/peer_bench ] || die "bench/peer_bench is not built (configure found no Scotch? make bench/peer_bench)"
exec ./bench/peer_bench "${args[@]}"
