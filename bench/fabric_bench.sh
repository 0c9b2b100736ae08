#!/bin/bash
# fabric_bench.sh - discovery + model build time and peak memory of
# `topoplace fabric show` next to plain `ibnetdiscover` on the same ibsim
# fat tree (648 hosts 2-level, 1,296 and 5,184 hosts 3-level), live and
# from an ibnetdiscover cache, as ratios. Prints figures only (no pass/fail).
#
#   bench/fabric_bench.sh [BUILD_DIR] [RUNS]     (default: ., 5 runs; median;
#                                                  the two commands alternate)
#
# Needs ibsim, libumad2sim, ibnetdiscover, /usr/bin/time, a built BUILD_DIR
# (tools/topoplace, tools/topoplace-fattree or
# $TOPOPLACE_FATTREE). Runs in private namespaces like the fabric tests.
set -u
export LD_PRELOAD=${LD_PRELOAD:-}
here=$(cd "$(dirname "$0")" && pwd)
abs_top_srcdir=$(cd "$here/.." && pwd)
build=$(cd "${1:-.}" && pwd)
runs=${2:-5}
export abs_top_srcdir
# shellcheck source=../tests/lib/fabric.sh
. "$abs_top_srcdir/tests/lib/fabric.sh"
fabric_isolate "$@"
fabric_setup
gen=${TOPOPLACE_FATTREE:-$build/tools/topoplace-fattree}
tool=("$build/tools/topoplace" fabric)
for need in ibsim ibnetdiscover /usr/bin/time "$gen" "${tool[0]}"; do
	command -v "$need" >/dev/null || { echo "fabric_bench: missing $need" >&2; exit 1; }
done

# one sim|nosim CMD...: "wall_seconds maxrss_kb" of one run (a client of
# the simulator, or a plain program reading a cache)
one() {
	local t0 t1 run=(fabric_run 300)
	[ "$1" = sim ] || run=(timeout 300)
	shift
	t0=$EPOCHREALTIME
	"${run[@]}" /usr/bin/time -f '%M' -o "$FABRIC_DIR/t" "$@" >/dev/null 2>&1 ||
		{ echo "fabric_bench: failed: $*" >&2; return 1; }
	t1=$EPOCHREALTIME
	# wall seconds with 4 decimals (/usr/bin/time has 2), peak RSS
	printf '%.4f %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(tail -n 1 "$FABRIC_DIR/t")"
}

median() { sort -n "$1" | awk -v n="$runs" 'NR == int((n + 1) / 2)'; }

# pair sim|nosim -- CMD-A... -- CMD-B...: runs A and B alternately $runs
# times (so load drift on a shared machine hits both alike); sets a_t a_m
# b_t b_m to the medians.
pair() {
	local mode=$1 i a=() b=()
	shift 2
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	: >"$FABRIC_DIR/a" && : >"$FABRIC_DIR/b"
	for i in $(seq "$runs"); do
		one "$mode" "${a[@]}" >>"$FABRIC_DIR/a"
		one "$mode" "${b[@]}" >>"$FABRIC_DIR/b"
	done
	read -r a_t a_m <<<"$(median "$FABRIC_DIR/a")"
	read -r b_t b_m <<<"$(median "$FABRIC_DIR/b")"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

printf '%-22s %9s %9s %7s %10s %10s %7s\n' fabric "ibnd s" "ours s" ratio \
	"ibnd KiB" "ours KiB" ratio
while read -r name args; do
	net=$FABRIC_DIR/$name.net
	# shellcheck disable=SC2086
	"$gen" $args -o "$net" || exit 1
	fabric_start "$net" || exit 1
	pair sim -- ibnetdiscover -- "${tool[@]}" show
	it=$a_t im=$a_m ot=$b_t om=$b_m
	printf '%-22s %9s %9s %7s %10s %10s %7s\n' "$name live" "$it" "$ot" \
		"$(ratio "$ot" "$it")" "$im" "$om" "$(ratio "$om" "$im")"
	rm -f "$FABRIC_DIR/$name.cache"
	fabric_run 300 ibnetdiscover --cache "$FABRIC_DIR/$name.cache" >/dev/null 2>&1
	fabric_stop
	pair nosim -- ibnetdiscover --load-cache "$FABRIC_DIR/$name.cache" -- \
		"${tool[@]}" show --cache "$FABRIC_DIR/$name.cache"
	it=$a_t im=$a_m ot=$b_t om=$b_m
	printf '%-22s %9s %9s %7s %10s %10s %7s\n' "$name cache" "$it" "$ot" \
		"$(ratio "$ot" "$it")" "$im" "$om" "$(ratio "$om" "$im")"
done <<'SHAPES'
648-2level --leaves 36 --hosts-per-leaf 18 --spines 18
1296-3level --leaves 72 --hosts-per-leaf 18 --spines 9 --pods 4 --cores 18
5184-3level --leaves 288 --hosts-per-leaf 18 --spines 18 --pods 8 --cores 36
SHAPES
