#!/bin/bash
# cli_options.sh: the option helpers the subcommands share (tools/cli.c:
# tp_cli_parse_slots, tp_cli_parse_seed, tp_cli_parse_u32,
# tp_cli_parse_io_where) refuse a bad value with the same one line in every
# subcommand that takes the option, naming the subcommand, the option and
# the value, and exit 2 before any work.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_TOPOPLACE to use
# another topoplace binary.
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}
matrix=$abs_top_srcdir/tests/data/matrices/CoMD-16.txt
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# ---- --slots: ranks per host, 1..1000000 -------------------------------------
slots_msg() { echo "topoplace $1: --slots '$2': expected a whole number from 1 to 1000000"; }
tp_expect_fail "cost --slots 0" 2 "$(slots_msg cost 0)" \
	"$tp" cost --matrix "$matrix" --fabric 1x4x4 --slots 0
tp_expect_fail "remap --slots 1000001" 2 "$(slots_msg remap 1000001)" \
	"$tp" remap --matrix "$matrix" --fabric 1x4x4 --hosts n0001 --slots 1000001
tp_expect_fail "report hops --slots x" 2 "$(slots_msg 'report hops' x)" \
	"$tp" report hops --profile "$matrix" --fabric 1x4x4 -o "$work/h.svg" --slots x
tp_expect_fail "report heatmap --slots -1" 2 "$(slots_msg 'report heatmap' -1)" \
	"$tp" report heatmap --profile "$matrix" --fabric 1x4x4 -o "$work/h.svg" --slots -1
tp_expect_fail "report explain --slots 0" 2 "$(slots_msg 'report explain' 0)" \
	"$tp" report explain --fabric 1x4x4 --nodes 4 --slots 0
tp_expect_fail "report fabric --slots 0" 2 "$(slots_msg 'report fabric' 0)" \
	"$tp" report fabric --fabric 1x4x4 -o "$work/f.svg" --slots 0

# ---- --seed: any 64-bit whole number ---------------------------------------
seed_msg() { echo "topoplace $1: --seed '$2': expected a whole number from 0 to 18446744073709551615"; }
tp_expect_fail "cost --seed x" 2 "$(seed_msg cost x)" \
	"$tp" cost --matrix "$matrix" --fabric 1x4x4 --seed x
tp_expect_fail "remap --seed 2^64" 2 "$(seed_msg remap 18446744073709551616)" \
	"$tp" remap --matrix "$matrix" --fabric 1x4x4 --hosts n0001 \
	--seed 18446744073709551616
tp_expect_fail "report hops --seed -1" 2 "$(seed_msg 'report hops' -1)" \
	"$tp" report hops --profile "$matrix" --fabric 1x4x4 -o "$work/h.svg" --seed -1
tp_expect_fail "report explain --seed 1x" 2 "$(seed_msg 'report explain' 1x)" \
	"$tp" report explain --fabric 1x4x4 --nodes 4 --seed 1x
tp_expect_fail "report fabric --seed ''" 2 "$(seed_msg 'report fabric' '')" \
	"$tp" report fabric --fabric 1x4x4 -o "$work/f.svg" --seed ''
out=$("$tp" cost --matrix "$matrix" --fabric 1x4x4 --seed 18446744073709551615 \
	--mapping random)
tp_check_eq "cost --seed 2^64-1 is taken and printed" \
	"seed 18446744073709551615" "$(head -1 <<<"$out" | grep -o 'seed [0-9]*')"

# ---- 32-bit values ------------------------------------------------------------
tp_expect_fail "place --nodes 2^32" 2 \
	"topoplace place: --nodes '4294967296': expected a whole number from 1 to 4294967295" \
	"$tp" place --fabric 1x4x4 --nodes 4294967296
tp_expect_fail "report explain --job-id x" 2 \
	"topoplace report explain: --job-id 'x': expected a whole number from 0 to 4294967295" \
	"$tp" report explain --fabric 1x4x4 --nodes 4 --job-id x

# ---- --io-where: site only where servers can be placed before the job -------
tp_expect_fail "place --io-where rack" 2 \
	"topoplace place: --io-where 'rack': expected among|beside|site" \
	"$tp" place --fabric 1x4x4 --nodes 4 --io-servers 1 --io-where rack
tp_expect_fail "report explain --io-where site" 2 \
	"topoplace report explain: --io-where 'site': expected among|beside" \
	"$tp" report explain --fabric 1x4x4 --nodes 4 --io-servers 1 --io-where site
out=$("$tp" place --fabric 1x4x4 --nodes 4 --io-servers 1 --io-where among)
tp_check_eq "place --io-where among puts the server on a job host (n0001-n0004)" \
	"n0004" "$(sed -n 's/^io-servers: //p' <<<"$out")"

tp_done
