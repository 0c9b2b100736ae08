#!/bin/bash
# `topoplace report` end to end on real matrices (tests/data/matrices) and a
# synthetic I/O sweep.
#
# Every kind writes a PNG of the asked size (read from its IHDR) and an SVG
# that a real XML parser accepts; the explanation names the policy, class,
# leaves and costs, fits 78 columns with its cost headings over their
# figures, and follows a busy-hosts file and a topoplace.conf (policy,
# thresholds, I/O servers, per partition); `report fabric` reaches the
# fabric view's own options.
# Bad inputs (a profile that does not fit the fabric, an empty profile, an
# unknown kind, a bad size or extension, a missing directory) give exactly
# one line on stderr naming what is wrong, the documented exit status,
# nothing on stdout and no output file.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"
# shellcheck source=../lib/sweeps.sh
. "$abs_top_srcdir/tests/lib/sweeps.sh"

topoplace=$abs_top_builddir/tools/topoplace
[[ -x $topoplace ]] || tp_skip "tools/topoplace is not built"
command -v xmllint >/dev/null || tp_skip "xmllint (libxml2-utils) is not installed"
report() { "$topoplace" report "$@"; }
matrices=$abs_top_srcdir/tests/data/matrices
lulesh=$matrices/LULESH-64.txt
hpcg=$matrices/HPCG-128.txt

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-cli-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# fontconfig 2.14 loses a block parsing the system's fonts.conf, which a
# sanitizer build reports as a leak of the CLI; a minimal configuration
# listing only the font directory avoids that parse (and nothing here
# depends on the system's font rules).
if [[ -z ${FONTCONFIG_FILE:-} ]]; then
	printf '<?xml version="1.0"?>\n<fontconfig>\n  <dir>/usr/share/fonts</dir>\n</fontconfig>\n' >"$tmp/fonts.conf"
	export FONTCONFIG_FILE=$tmp/fonts.conf
fi

# png_size FILE: "WxH" from the IHDR chunk (bytes 16..23, big endian).
png_size() {
	local b
	read -ra b < <(od -An -tu1 -j16 -N8 "$1")
	echo "$(((b[0] << 24) + (b[1] << 16) + (b[2] << 8) + b[3]))x$(((b[4] << 24) + (b[5] << 16) + (b[6] << 8) + b[7]))"
}
is_png() { [[ $(od -An -tx1 -N8 "$1" | tr -d ' \n') == 89504e470d0a1a0a ]]; }

# check_images NAME SIZE ARGS...: the kind writes a PNG of SIZE and a
# valid SVG, and says where each went.
check_images() {
	local name=$1 size=$2 out
	shift 2
	if out=$(report "$@" --size "$size" -o "$tmp/$name.png" 2>&1) &&
		[[ $out == "wrote $tmp/$name.png ($size,"* ]] &&
		is_png "$tmp/$name.png" &&
		[[ $(png_size "$tmp/$name.png") == "$size" ]]; then
		tp_pass "$name: PNG of $size, path printed"
	else
		tp_fail "$name: PNG of $size, path printed" "output: $out" \
			"size: $(png_size "$tmp/$name.png" 2>/dev/null)"
	fi
	if out=$(report "$@" --size "$size" -o "$tmp/$name.svg" 2>&1) &&
		xmllint --noout "$tmp/$name.svg" 2>"$tmp/xmllint.err" &&
		grep -q "<svg[^>]*width=\"${size%x*}" "$tmp/$name.svg"; then
		tp_pass "$name: SVG parses (xmllint) with the asked width"
	else
		tp_fail "$name: SVG parses (xmllint) with the asked width" \
			"output: $out" "$(head -3 "$tmp/xmllint.err")"
	fi
	[[ -z $(find "$tmp" -name '*.tmp-*') ]] ||
		tp_fail "$name: temporary files left" "$(find "$tmp" -name '*.tmp-*')"
}

check_images hops-rank 1000x500 hops --profile "$lulesh" --fabric 2x4x4 --slots 2
check_images hops-node 900x600 hops --profile "$hpcg" --fabric 2x4x8 --slots 4 \
	--by node --mappings block,cyclic,remap
check_images heatmap-rank 1200x600 heatmap --profile "$hpcg" --fabric 2x4x8 --slots 4
check_images heatmap-node 800x400 heatmap --profile "$lulesh" --fabric 2x4x4 \
	--slots 2 --by node

# Many ranks on a narrow image: bars are aggregated, and the per-rank
# computation does not depend on the aggregation.
check_images hops-aggregated 400x300 hops --profile "$hpcg" --fabric 2x4x16

# A mapping file as `topoplace remap` writes it is accepted as a panel.
"$topoplace" remap --matrix "$lulesh" --fabric 2x4x4 --hosts 'n[0001-0032]' \
	--slots 2 --rankfile "$tmp/lulesh.rankfile" >/dev/null
check_images hops-file 800x400 hops --profile "$lulesh" --fabric 2x4x4 --slots 2 \
	--mappings "block,$tmp/lulesh.rankfile"

# A synthetic sweep with a known knee (tests/lib/sweeps.sh): plateau
# 1000 us, threshold near 1633 us; and a flat curve.
tp_sweep_knee "$tmp/sweep.csv"
check_images io-knee 900x560 io --sweep "$tmp/sweep.csv" --bytes 4M --clients 4 \
	--interval 800us
out=$(report io --sweep "$tmp/sweep.csv" --bytes 4M --clients 4 -o "$tmp/k.png" 2>&1)
tp_check_eq "io: the knee is reported" \
	"wrote $tmp/k.png (900x560, 8 intervals, threshold marked)" "$out"
out=$(report io --sweep "$tmp/sweep.csv" --bytes 1M --clients 2 -o "$tmp/flat.svg" 2>&1)
tp_check_eq "io: a flat curve is drawn and says no knee" \
	"wrote $tmp/flat.svg (900x560, 8 intervals, no knee)" "$out"

# explain: the decision in words, against the default.
if report explain --fabric 2x4x8 --nodes 16 --profile "$lulesh" --slots 4 \
	--io-servers 2 >"$tmp/explain.txt" 2>"$tmp/explain.err"; then
	missing=
	for want in "Placement of LULESH" "Policy: leaf" "Job class: " "  why: " \
		"Leaves: leaf001 leaf002 (2 of 8)" "Why: leaf: 16 hosts" \
		"Default (first free hosts" "hop-bytes (B x hops)" \
		"predicted time (s)" "of the default" "I/O servers (isolated): "; do
		grep -qF "$want" "$tmp/explain.txt" || missing+="'$want' "
	done
	tp_check_eq "explain: policy, class, leaves, costs, servers" "" "$missing"
else
	tp_fail "explain: runs" "$(cat "$tmp/explain.err")"
fi
# Without a topoplace.conf the I/O server policy is IoServerPolicy=auto for
# the routing, the default of `topoplace place`: the same servers, and why
# (adaptive: isolated, n0007 n0008; static: staggered, n0008 n0011).
# Bad values of explain's routing and server policy: one usage error each.
out=$(report explain --fabric 2x4x4 --nodes 4 --routing ecmp 2>&1); rc=$?
tp_check_eq "explain --routing ecmp: usage error naming the value" \
	"2 topoplace report explain: --routing: 'ecmp' is not a routing kind (expected one of adaptive|static)" \
	"$rc $out"
out=$(report explain --fabric 2x4x4 --nodes 4 --io-servers 2 --io-policy Auto 2>&1); rc=$?
tp_check_eq "explain --io-policy Auto: usage error listing auto too" \
	"2 topoplace report explain: --io-policy: I/O server policy 'Auto': expected auto|spread|isolated|random|staggered" \
	"$rc $out"
printf 'Routing=static\n' >"$tmp/static.conf"
declare -A want=([adaptive]="isolated n[0007-0008]" [static]="staggered n[0008,0011]")
for args in "" "--routing static" "--config $tmp/static.conf"; do
	routing=adaptive
	[ -n "$args" ] && routing=static
	# shellcheck disable=SC2086 # word splitting of $args is intended
	page=$(report explain --fabric 2x4x4 --nodes 4 --policy leaf --io-servers 2 $args 2>&1)
	placed=$("$topoplace" place --fabric 2x4x4 --nodes 4 --io-servers 2 \
		--routing $routing)
	tp_check_eq "place --routing $routing: ${want[$routing]}" "${want[$routing]}" \
		"$(sed -n 's/^io-policy: \([a-z]*\),.*/\1/p' <<<"$placed") $(sed -n 's/^io-servers: //p' <<<"$placed")"
	tp_check_eq "explain ${args:-(no options)}: the same policy and servers" \
		"$(sed 's/ n\[\(....\)[-,]\(....\)\]/ n\1 n\2/' <<<"${want[$routing]}")" \
		"$(sed -n 's/^I\/O servers (\([a-z]*\)): \(.*\)/\1 \2/p' <<<"$page")"
	tp_check "... and says IoServerPolicy=auto for $routing routing" \
		grep -q "from: \(IoServerPolicy in [^ ]* (site-wide); \)\?IoServerPolicy=auto: $routing routing:" \
		<<<"$(tr -s ' \n' ' ' <<<"$page")"
done
page=$(report explain --fabric 2x4x4 --nodes 4 --io-servers 2 --io-policy spread)
tp_check_eq "explain --io-policy spread: as given, no auto" \
	"I/O servers (spread): n0008 n0012|" \
	"$(grep '^I/O servers' <<<"$page")|$(grep 'IoServerPolicy=auto' <<<"$page")"

# The page: no line over 78 columns; the cost headings end where the
# figures under them end (right-aligned columns of one width).
awk 'length($0) > 78 { print NR ": " length($0) ": " $0 }' "$tmp/explain.txt" >"$tmp/long"
tp_check_eq "explain: no line over 78 columns" "" "$(cat "$tmp/long")"
head_len=$(grep -m1 'default (block)' "$tmp/explain.txt" | awk '{ print length($0) }')
tp_check_eq "explain: cost headings over their columns ($(grep -m1 -o 'topoplace ([a-z+]*)' "$tmp/explain.txt"))" \
	"$head_len $head_len" \
	"$(grep -m1 'hop-bytes (B x hops)' "$tmp/explain.txt" | awk '{ print length($0) }') $(grep -m1 'predicted time (s)' "$tmp/explain.txt" | awk '{ print length($0) }')"

# --busy: hosts in use (the `topoplace place --busy` format) move the
# decision and the default; --config: the partition's DefaultPlacement,
# class thresholds and I/O servers, each said where it came from.
# flat FILE: the text on one line, runs of blanks and newlines as one space
# (so that what wrapping broke over lines still matches).
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }
printf '# leaf001 mostly taken\nn0001 7 quiet\nn0002 7 quiet\nn0003 7 io_heavy\nn0004 down\nn0005 reserved 8 quiet\n' >"$tmp/busy.txt"
printf 'DefaultPlacement=spread\nPartitionName=comm DefaultPlacement=pack CommSensitiveBytesPerSecPerRank=100K IoServerCount=2\n' >"$tmp/site.conf"
if report explain --fabric 2x4x8 --nodes 16 --profile "$lulesh" --slots 4 \
	--busy "$tmp/busy.txt" >"$tmp/busy.out" 2>"$tmp/busy.err"; then
	missing=
	for want in "Policy: leaf" "Leaves: leaf002 leaf003 (2 of 8)" \
		"  3 leaves, 1 pod: leaf001 leaf002 leaf003"; do
		grep -qF -- "$want" "$tmp/busy.out" || missing+="'$want' "
	done
	tp_check_eq "explain --busy: busy hosts avoided, default after them" "" "$missing"
else
	tp_fail "explain --busy: runs" "$(cat "$tmp/busy.err")"
fi
# site.conf sets no IoServerPolicy: auto, isolated under adaptive routing.
if report explain --fabric 2x4x8 --nodes 16 --profile "$lulesh" --slots 4 \
	--config "$tmp/site.conf" --partition comm >"$tmp/conf.out" 2>"$tmp/conf.err"; then
	missing=
	for want in "Policy: pack" \
		" from: DefaultPlacement=pack in $tmp/site.conf, partition comm" \
		"Job class: comm_sensitive" "or 100 KiB/s per rank or more" \
		" thresholds: from $tmp/site.conf, partition comm" \
		"I/O servers (isolated): " \
		" from: IoServerCount and IoServerPolicy in $tmp/site.conf, partition comm"; do
		flat "$tmp/conf.out" | grep -qF -- "$want" || missing+="'$want' "
	done
	tp_check_eq "explain --config --partition: policy, thresholds, servers from the file" "" "$missing"
else
	tp_fail "explain --config: runs" "$(cat "$tmp/conf.err")"
fi
report explain --fabric 2x4x8 --nodes 4 --config "$tmp/site.conf" >"$tmp/site.out" 2>&1
out=$(flat "$tmp/site.out")
[[ $out == *"Policy: spread"*"from: DefaultPlacement=spread in $tmp/site.conf (site-wide)"* ]] &&
	tp_pass "explain --config: site-wide DefaultPlacement without --partition" ||
	tp_fail "explain --config: site-wide DefaultPlacement without --partition" "$out"
out=$(report explain --fabric 2x4x8 --nodes 4 --config "$tmp/site.conf" --policy leaf 2>&1)
[[ $out == *"Policy: leaf"*"from: given with --policy leaf"* ]] &&
	tp_pass "explain --config: --policy wins over DefaultPlacement" ||
	tp_fail "explain --config: --policy wins over DefaultPlacement" "$out"

out=$(report explain --fabric 2x4x8 --nodes 4 --class io_heavy -o "$tmp/e.txt")
tp_check_eq "explain -o: says where" "wrote $tmp/e.txt" "$out"
grep -q "why: given on the command line" "$tmp/e.txt" &&
	tp_pass "explain: a given class is said to be given" ||
	tp_fail "explain: a given class is said to be given" "$(cat "$tmp/e.txt")"

# fabric: dispatched to the fabric view's own command.
out=$(report fabric --help 2>&1)
[[ $out == "usage: topoplace report fabric"* ]] &&
	tp_pass "report fabric reaches the fabric view" ||
	tp_fail "report fabric reaches the fabric view" "$out"

# --progress: stage lines on stderr, the result line on stdout.
report hops --profile "$lulesh" --fabric 2x4x4 --slots 2 --progress \
	-o "$tmp/p.png" >"$tmp/p.out" 2>"$tmp/p.err"
grep -q "^topoplace report hops: mapping 64 ranks: remap$" "$tmp/p.err" &&
	[[ $(cat "$tmp/p.out") == "wrote $tmp/p.png"* ]] &&
	tp_pass "--progress: stages on stderr" ||
	tp_fail "--progress: stages on stderr" "$(cat "$tmp/p.err")"

# expect_error NAME STATUS PATTERN OUTFILE CMD...: one stderr line matching
# PATTERN, exit STATUS, nothing on stdout, OUTFILE not created.
expect_error() {
	local name=$1 want=$2 pattern=$3 file=$4 rc
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if ((rc == want)) && [[ $(wc -l <"$tmp/err") -eq 1 ]] &&
		grep -qE "$pattern" "$tmp/err" && [[ ! -s $tmp/out ]] &&
		[[ ! -e $file ]] && [[ -z $(find "$tmp" -name '*.tmp-*') ]]; then
		tp_pass "$name"
	else
		tp_fail "$name" "exit $rc (want $want)" "stderr: $(cat "$tmp/err")" \
			"stdout: $(head -3 "$tmp/out")" "pattern: $pattern" \
			"file: $(ls -l "$file" 2>&1)"
	fi
}

printf '# commprof-v1 app=empty ranks=4\n' >"$tmp/empty.txt"
expect_error "empty profile: one clear error, no file" 1 \
	"^topoplace report hops: $tmp/empty.txt: empty profile: no bytes between ranks$" \
	"$tmp/x.png" report hops --profile "$tmp/empty.txt" --fabric 1x2x2 -o "$tmp/x.png"
expect_error "empty profile (explain): one clear error" 1 \
	"^topoplace report explain: $tmp/empty.txt: empty profile" \
	"$tmp/x.txt" report explain --profile "$tmp/empty.txt" --fabric 1x2x2 --nodes 2 -o "$tmp/x.txt"
expect_error "profile larger than the fabric: one clear error, no file" 1 \
	"^topoplace report heatmap: $lulesh: 64 ranks at 1 per host need 64 hosts, fabric 1x2x2 has 4$" \
	"$tmp/x.svg" report heatmap --profile "$lulesh" --fabric 1x2x2 -o "$tmp/x.svg"
expect_error "profile larger than --hosts: one clear error, no file" 1 \
	"64 ranks do not fit the 4 hosts x 4 slots of --hosts$" \
	"$tmp/x.png" report hops --profile "$lulesh" --fabric 2x4x4 \
	--hosts 'n[0001-0004]' --slots 4 -o "$tmp/x.png"
expect_error "--hosts not in the fabric: one clear error" 1 \
	"nx99" "$tmp/x.png" report hops --profile "$lulesh" --fabric 2x4x4 \
	--hosts 'nx99' -o "$tmp/x.png"
expect_error "explain: profile larger than the request: one clear error" 1 \
	"^topoplace report explain: .*has 64 ranks, 4 hosts x 1 slots hold only 4$" \
	"$tmp/x.txt" report explain --profile "$lulesh" --fabric 2x4x4 --nodes 4
printf 'n0001 7 quiet\nnx99 7 quiet\n' >"$tmp/busy-host.txt"
expect_error "explain --busy: unknown host named with file and line" 1 \
	"^topoplace report explain: $tmp/busy-host.txt:2: unknown host 'nx99' \(not in the fabric\)$" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --busy "$tmp/busy-host.txt" -o "$tmp/x.txt"
printf '# ok\n\nn0001 seven quiet\n' >"$tmp/busy-id.txt"
expect_error "explain --busy: bad job id named with file and line" 1 \
	"^topoplace report explain: $tmp/busy-id.txt:3: job id 'seven' is not a number$" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --busy "$tmp/busy-id.txt" -o "$tmp/x.txt"
printf 'n0001 7 loud\n' >"$tmp/busy-class.txt"
expect_error "explain --busy: bad class named with file and line" 1 \
	"^topoplace report explain: $tmp/busy-class.txt:1: .*loud" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --busy "$tmp/busy-class.txt" -o "$tmp/x.txt"
expect_error "explain --busy: missing file named" 1 \
	"^topoplace report explain: --busy $tmp/none.busy: No such file or directory$" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --busy "$tmp/none.busy" -o "$tmp/x.txt"
printf 'DefaultPlacement=pack\nDefaultPlacment=leaf\n' >"$tmp/bad.conf"
expect_error "explain --config: bad key named with file and line" 1 \
	"^topoplace report explain: $tmp/bad.conf: line 2: DefaultPlacment" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --config "$tmp/bad.conf" -o "$tmp/x.txt"
expect_error "explain: --policy auto without a config: usage error" 2 \
	"^topoplace report explain: --policy auto is resolved by a topoplace.conf" \
	"$tmp/x.txt" report explain --fabric 2x4x8 --nodes 4 --policy auto -o "$tmp/x.txt"
expect_error "unknown kind: one clear error" 2 \
	"^topoplace report: unknown kind 'pie' \(hops, heatmap, io, explain, fabric\)$" \
	"$tmp/x.png" report pie -o "$tmp/x.png"
expect_error "bad size: one clear error" 2 \
	"^topoplace report hops: --size '10x10': expected WIDTHxHEIGHT" \
	"$tmp/x.png" report hops --profile "$lulesh" --fabric 2x4x4 --size 10x10 -o "$tmp/x.png"
expect_error "size not a size: one clear error" 2 \
	"^topoplace report io: --size '800': expected WIDTHxHEIGHT" \
	"$tmp/x.png" report io --sweep "$tmp/sweep.csv" --size 800 -o "$tmp/x.png"
expect_error "unknown extension: one clear error before any work" 2 \
	"^topoplace report heatmap: -o $tmp/x.gif: unknown image type" \
	"$tmp/x.gif" report heatmap --profile "$lulesh" --fabric 2x4x4 -o "$tmp/x.gif"
expect_error "missing directory: one clear error naming the path" 1 \
	"^topoplace report hops: $tmp/none/x.png: cannot create the image there: No such file" \
	"$tmp/none/x.png" report hops --profile "$lulesh" --fabric 2x4x4 --slots 2 -o "$tmp/none/x.png"
expect_error "missing profile: one clear error naming it" 1 \
	"^topoplace report hops: $tmp/none.txt: cannot open" \
	"$tmp/x.png" report hops --profile "$tmp/none.txt" --fabric 2x4x4 -o "$tmp/x.png"
expect_error "io: curve not in the sweep: one clear error listing curves" 1 \
	"^topoplace report io: $tmp/sweep.csv: no points of 8192-byte requests from 4 clients .*1048576/2, 4194304/4" \
	"$tmp/x.png" report io --sweep "$tmp/sweep.csv" --bytes 8K --clients 4 -o "$tmp/x.png"
expect_error "io: not a sweep: one clear error naming the line" 1 \
	"^topoplace report io: $lulesh: line 1" \
	"$tmp/x.png" report io --sweep "$lulesh" -o "$tmp/x.png"
expect_error "--by: bad value" 2 "^topoplace report hops: --by 'leaf': expected rank or node$" \
	"$tmp/x.png" report hops --profile "$lulesh" --fabric 2x4x4 --by leaf -o "$tmp/x.png"

tp_done
