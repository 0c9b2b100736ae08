#!/bin/bash
# cli_remap.sh: `topoplace remap` and `topoplace cost` on real matrices:
# output, files, agreement between the two, and one clear error (naming the
# file, line or option) for each bad input they read.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_TOPOPLACE to use
# another topoplace binary.
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}
mdir=$abs_top_srcdir/tests/data/matrices
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

"$tp" remap --help >/dev/null 2>&1 || tp_skip "$tp has no remap subcommand"


# ---- remap: output and files ----------------------------------------------
out=$("$tp" remap --matrix "$mdir/LULESH-64.txt" --hosts 'n[0001-0004]' \
	--slots 16 --fabric 2x4x4 --seed 3 --rankfile "$work/rf" \
	--machinefile "$work/mf" --hostfile-out "$work/hf" 2>&1)
tp_check_eq "remap succeeds" 0 $?
before=$(sed -n 's/^hop-bytes before (block): \([0-9]*\)$/\1/p' <<<"$out")
after=$(sed -n 's/^hop-bytes after ([a-z+]*): \([0-9]*\) .*/\1/p' <<<"$out")
tp_check "remap prints hop-bytes before and after, after <= before" \
	bash -c '[ -n "$1" ] && [ -n "$2" ] && [ "$2" -le "$1" ]' _ "$before" "$after"
tp_check "remap improves LULESH-64 at 16 ranks/host" [ "${after:-0}" -lt "${before:-0}" ]
tp_check_eq "the rankfile has a line per rank" 64 "$(grep -c '^rank [0-9]*=n000[1-4] slot=[0-9]*$' "$work/rf")"
tp_check_eq "the hostfile has a line per rank" 64 "$(grep -c '^n000[1-4]$' "$work/hf")"
tp_check_eq "no host gets more than its 16 slots" "" \
	"$(sort "$work/hf" | uniq -c | awk '$1 > 16')"
out2=$("$tp" remap --matrix "$mdir/LULESH-64.txt" --hosts 'n[0001-0004]' \
	--slots 16 --fabric 2x4x4 --seed 3 --rankfile "$work/rf2" 2>&1)
tp_check "the same seed gives the same rankfile" cmp "$work/rf" "$work/rf2"
# --search fast: the bisection and one packed partition (2 candidates in
# the debug log), never above block; a bad value is one usage line.
out=$("$tp" remap --matrix "$mdir/LULESH-64.txt" --hosts 'n[0001-0004]' \
	--slots 16 --fabric 2x4x4 --seed 3 --search fast --verbose \
	--rankfile "$work/rf_fast" 2>&1)
tp_check_eq "remap --search fast succeeds" 0 $?
fast=$(sed -n 's/^hop-bytes after ([a-z+]*): \([0-9]*\) .*/\1/p' <<<"$out")
tp_check_eq "--search fast tries 2 partitions" 2 \
	"$(grep -c 'debug: remap: candidate [0-9]*:' <<<"$out")"
tp_check_eq "--search fast runs no leaf-wide polish" 0 \
	"$(grep -c 'leaf-wide polish' <<<"$out")"
tp_check "--search fast: after <= before" \
	bash -c '[ -n "$1" ] && [ "$1" -le "$2" ]' _ "$fast" "$before"
tp_check_eq "--search fast: a rankfile line per rank" 64 \
	"$(grep -c '^rank [0-9]*=n000[1-4] slot=[0-9]*$' "$work/rf_fast")"
out=$("$tp" remap --matrix "$mdir/LULESH-64.txt" --hosts 'n[0001-0004]' \
	--slots 16 --fabric 2x4x4 --search quick 2>&1)
tp_check_eq "remap --search quick is a usage error" 2 $?
tp_check_eq "remap --search quick: one line naming the value" \
	"topoplace remap: --search quick: remap search 'quick': expected auto, full or fast" \
	"$(head -1 <<<"$out")"
# The default (auto): a job of at most 16 ranks tries the bisection and one
# packed partition, still polished, and (built with Scotch) Scotch's
# mapping; --search full tries more.
for hs in 'n[0001-0016] 1 16' 'n[0001-0004] 4 4'; do
	read -r hosts slots nh <<<"$hs"
	out=$("$tp" remap --matrix "$mdir/HPCG-16.txt" --hosts "$hosts" \
		--slots "$slots" --fabric 2x4x4 --seed 3 --verbose 2>&1)
	tp_check_eq "16 ranks on $nh hosts, default search: 2 METIS partitions" 2 \
		"$(grep -c 'debug: remap: candidate [0-9]*: \(bisection\|packed\)' <<<"$out")"
	tp_check "(and Scotch's mapping where built with it: $(grep -c 'debug: remap: candidate [0-9]*: scotch' <<<"$out"))" \
		[ "$(grep -c 'debug: remap: candidate [0-9]*:' <<<"$out")" = \
		"$((2 + $(grep -c 'debug: remap: candidate 2: scotch' <<<"$out")))" ]
	tp_check_eq "16 ranks on $nh hosts, default search: leaf-wide polish" 1 \
		"$(grep -c 'leaf-wide polish' <<<"$out")"
done
out=$("$tp" remap --matrix "$mdir/HPCG-16.txt" --hosts 'n[0001-0016]' \
	--slots 1 --fabric 2x4x4 --seed 3 --search full --verbose 2>&1)
tp_check "16 ranks, --search full: more than 2 partitions" \
	[ "$(grep -c 'debug: remap: candidate [0-9]*:' <<<"$out")" -gt 2 ]
printf 'n0003:8\n# comment\nn0004 slots=8\nn0001\n\n' >"$work/hosts"
tp_check "remap reads a host file with per-host slots" \
	"$tp" remap --matrix "$mdir/HPCG-16.txt" --hostfile "$work/hosts" \
	--slots 1 --fabric 2x4x4 --hostfile-out "$work/hf3"
# 16 ranks on 8 + 8 + 1 slots: the two 8-slot hosts hold them all.
tp_check_eq "host file slots are honoured (8, 8, 1 slots; 16 ranks)" \
	"n0003<=8 n0004<=8 total=16" \
	"$(sort "$work/hf3" | uniq -c | awk '{ n += $1; m = ($2 == "n0001") ? 1 : 8; printf "%s%s<=%s", (NR > 1 ? " " : ""), $2, ($1 <= m ? m : "OVER") } END { print " total=" n }')"

# ---- cost: side by side, imported mappings agree with remap ---------------
out=$("$tp" cost --matrix "$mdir/LULESH-64.txt" --hosts 'n[0001-0004]' \
	--slots 16 --fabric 2x4x4 --seed 3 \
	--mapping block,cyclic,random,remap --mapping "$work/rf,$work/mf" \
	--mapping "$work/hf" 2>&1)
tp_check_eq "cost succeeds" 0 $?
row=$(awk '$1 == "hop-bytes" { $1 = ""; print substr($0, 2) }' <<<"$out")
read -r c_block c_cyclic c_random c_remap c_rf c_mf c_hf <<<"$row"
tp_check_eq "cost: block matches remap's 'before'" "$before" "$c_block"
tp_check_eq "cost: remap matches remap's 'after'" "$after" "$c_remap"
tp_check_eq "cost: the imported rankfile, machinefile and hostfile agree" \
	"$after $after $after" "$c_rf $c_mf $c_hf"
tp_check "cost prints hop classes, leaf loads and predicted time" \
	bash -c 'for k in "bytes on-node" "bytes other-pod" "max leaf up bytes" "predicted time s" "queue search s" "contention s"; do grep -q "^ *$k " <<<"$1" || exit 1; done' _ "$out"
printf 'leaf_uplinks = 2\nqueue_gamma_s = 0\n' >"$work/params"
tp_check_eq "cost: gamma 0 from a parameter file zeroes queue search" \
	"0 0" "$("$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric 1x2x8 \
		--mapping block,remap --params "$work/params" |
		awk '$1 == "queue" { print $4, $5 }')"

# ---- a topoplace profile instead of a matrix text -------------------------
# The profile is LULESH-8 imported by `topoplace profile import`; remap and
# cost must read it (sniffed by its magic) and see the same traffic.
if "$tp" profile import --from matrix -o "$work/l8.tpp" "$mdir/LULESH-8.txt" \
	>/dev/null 2>"$work/err"; then
	tp_pass "profile import writes a LULESH-8 profile"
else
	tp_fail "profile import writes a LULESH-8 profile" "$(cat "$work/err")"
fi
remap8=(--hosts 'n0001,n0005,n0002,n0006' --slots 2 --fabric 1x2x4 --seed 5)
m_out=$("$tp" remap --matrix "$mdir/LULESH-8.txt" "${remap8[@]}" \
	--rankfile "$work/rf_m" 2>&1)
p_out=$("$tp" remap --matrix "$work/l8.tpp" "${remap8[@]}" \
	--rankfile "$work/rf_p" 2>&1)
tp_check_eq "remap --matrix PROFILE prints what the matrix text gives" \
	"$m_out" "$p_out"
tp_check "remap --matrix PROFILE writes the same rankfile" \
	cmp "$work/rf_m" "$work/rf_p"
tp_check_eq "remap --profile is --matrix" "$m_out" \
	"$("$tp" remap --profile "$work/l8.tpp" "${remap8[@]}" 2>&1)"
tp_check "remap of the profile reports non-zero hop-bytes" \
	grep -q '^hop-bytes before (block): [1-9][0-9]*$' <<<"$p_out"
# everything after the first line (which names the file) must agree
cost8=(--fabric 1x2x4 --slots 2 --seed 5 --mapping block,cyclic,random,remap)
tp_check_eq "cost --profile PROFILE: every row as for the matrix text" \
	"$("$tp" cost --matrix "$mdir/LULESH-8.txt" "${cost8[@]}" 2>&1 | tail -n +2)" \
	"$("$tp" cost --profile "$work/l8.tpp" "${cost8[@]}" 2>&1 | tail -n +2)"
# Read once: a pipe cannot be sniffed and then opened again.
tp_check_eq "remap reads a matrix text from a pipe" "$m_out" \
	"$("$tp" remap --matrix <(cat "$mdir/LULESH-8.txt") "${remap8[@]}" 2>&1)"
tp_check_eq "remap reads a profile from a pipe" "$m_out" \
	"$("$tp" remap --profile <(cat "$work/l8.tpp") "${remap8[@]}" 2>&1)"
head -c 100 "$work/l8.tpp" >"$work/short.tpp"
tp_expect_fail "remap: a truncated profile is one line naming the file" 1 \
	"topoplace remap: $work/short.tpp: file: offset 16: truncated: body of 2262 bytes and trailer need more than the 100 bytes of the file" \
	"$tp" remap --matrix "$work/short.tpp" "${remap8[@]}"
cp "$work/l8.tpp" "$work/flip.tpp"
printf '\377' | dd of="$work/flip.tpp" bs=1 seek=200 conv=notrunc 2>/dev/null
tp_expect_fail "cost: a corrupted profile is one line naming the file" 1 \
	"topoplace cost: $work/flip.tpp: trailer: offset 2294: checksum mismatch: SHA-256 of the 2294 bytes before does not match the stored digest (file corrupted or tampered with)" \
	"$tp" cost --profile "$work/flip.tpp" --fabric 1x2x4

# ---- one clear error per bad input ------------------------------------------
tp_expect_fail "remap: bad --fabric" 2 \
	"topoplace remap: --fabric '2x4': expected PODSxLEAVESxHOSTS (e.g. 2x18x18) or a file" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts n0001 --fabric 2x4
tp_expect_fail "remap: --slots 0" 2 "topoplace remap: --slots '0': expected a whole number from 1 to 1000000" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts n0001 --slots 0 --fabric 2x4x4
tp_expect_fail "remap: both --hosts and --hostfile" 2 \
	"topoplace remap: give one of --hosts and --hostfile" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts n0001 --hostfile x --fabric 2x4x4
tp_expect_fail "remap: unknown option" 2 "topoplace remap: unknown option '--bogus'" \
	"$tp" remap --bogus
tp_expect_fail "remap: more ranks than slots" 1 \
	"topoplace remap: remap: 16 ranks but only 8 slots on 2 hosts" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts 'n[0001-0002]' --slots 4 --fabric 2x4x4
tp_expect_fail "remap: host not in the fabric" 1 \
	"topoplace remap: hostlist 'n[0031-0033]': host 'n0033' is not in the fabric" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts 'n[0031-0033]' --slots 16 --fabric 2x4x4
printf 'n0001\nzz9\n' >"$work/badhosts"
tp_expect_fail "remap: host file names the bad line" 1 \
	"topoplace remap: $work/badhosts: line 2: host 'zz9' is not in the fabric" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hostfile "$work/badhosts" --fabric 2x4x4
printf 'n0001:x\n' >"$work/badslots"
tp_expect_fail "remap: host file bad slot count" 1 \
	"topoplace remap: $work/badslots: line 1: bad slot count 'x'" \
	"$tp" remap --matrix "$mdir/CoMD-16.txt" --hostfile "$work/badslots" --fabric 2x4x4
printf '0 1 10\n1 two 5\n' >"$work/badm"
tp_expect_fail "remap: matrix names file and line" 1 \
	"topoplace remap: $work/badm: line 2: dst is not a decimal number" \
	"$tp" remap --matrix "$work/badm" --hosts n0001 --fabric 2x4x4
# The mapping is printed before the files are written: only stderr counts.
tp_expect_fail "remap: unwritable rankfile" 1 \
	"topoplace remap: /nonexistent/rf: cannot create a temporary file beside it: No such file or directory" \
	bash -c '"$@" >/dev/null' _ "$tp" remap --matrix "$mdir/CoMD-16.txt" --hosts n0001 --slots 16 \
	--fabric 2x4x4 --rankfile /nonexistent/rf
printf 'rank 0=n0001 slot=0\nrank 0=n0002 slot=0\n' >"$work/dup"
tp_expect_fail "cost: imported mapping placing a rank twice" 1 \
	"topoplace cost: $work/dup: line 2: rank 0 placed twice" \
	"$tp" cost --matrix "$mdir/LULESH-8.txt" --fabric 1x2x4 --mapping "$work/dup"
printf 'n0001\nn0002\n' >"$work/short"
tp_expect_fail "cost: imported mapping missing ranks" 1 \
	"topoplace cost: $work/short: rank 2 is not placed" \
	"$tp" cost --matrix "$mdir/LULESH-8.txt" --fabric 1x2x4 --mapping "$work/short"
tp_expect_fail "cost: unknown mapping is read as a file" 1 \
	"topoplace cost: greedy: cannot open: No such file or directory" \
	"$tp" cost --matrix "$mdir/LULESH-8.txt" --fabric 1x2x4 --mapping greedy
printf 'leaf_uplinks = 2\nalpha = 1\n' >"$work/badparams"
tp_expect_fail "cost: bad parameter file names line and key" 1 \
	"topoplace cost: $work/badparams: line 2: unknown key 'alpha'" \
	"$tp" cost --matrix "$mdir/LULESH-8.txt" --fabric 1x2x4 --params "$work/badparams"

# ---- METIS's prints stay off stdout ----------------------------------------
# A 40-rank grid at one rank per host on one pod, its hosts 14, 13 and 9 on
# three leaves and 1 on each of four more: METIS 5.1 prints "***Cannot
# bisect a graph with 0 vertices!" there, which stood ahead of the JSON
# document on stdout (common/tp_quiet.h).
awk 'BEGIN { for (r = 0; r < 40; r++) {
	if (r % 8 < 7) printf "%d %d 1000\n%d %d 1000\n", r, r + 1, r + 1, r
	if (r < 32) printf "%d %d 1000\n%d %d 1000\n", r, r + 8, r + 8, r } }' \
	>"$work/grid40"
scattered='n[0001-0014],n[0019-0031],n[0037-0045],n0055,n0073,n0091,n0109'
"$tp" remap --matrix "$work/grid40" --hosts "$scattered" --slots 1 \
	--fabric 1x8x18 --seed 1 --json --rankfile "$work/rf40" \
	>"$work/remap40.json" 2>"$work/remap40.err"
tp_check_eq "scattered hosts: remap --json succeeds" 0 $?
if command -v python3 >/dev/null; then
	tp_check_eq "scattered hosts: stdout is one JSON document, 40 ranks" 40 \
		"$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["mapping"]))' \
			"$work/remap40.json" 2>&1)"
fi
tp_check_eq "scattered hosts: METIS's lines on neither stdout nor stderr" "" \
	"$(grep -h 'Cannot bisect\|too many parts' "$work/remap40.json" "$work/remap40.err")"
tp_check_eq "scattered hosts: every rank on a host of its own" 40 \
	"$(sed -n 's/^rank [0-9]*=\(n[0-9]*\) slot=0$/\1/p' "$work/rf40" | sort -u | wc -l)"
out=$("$tp" remap --matrix "$work/grid40" --hosts "$scattered" --slots 1 \
	--fabric 1x8x18 --seed 1 --search full 2>&1)
tp_check_eq "scattered hosts: text output without METIS's lines (full search)" "" \
	"$(grep 'Cannot bisect\|too many parts' <<<"$out")"

# ---- a SIGTERM while METIS runs ends the process ---------------------------
# METIS traps SIGTERM during each call: `topoplace remap` used to swallow
# one that came meanwhile, fall back to rank order for that split and exit
# 0 with that mapping.  Now it is held until the search ends, then ends the
# process (143).  A 65,536-rank grid at 8 ranks per host takes about
# 0.4 s here, the search (METIS's bisection and the refinement) from about
# 0.04 s on (after reading the matrix).
awk 'BEGIN { for (r = 0; r < 65536; r++) {
	if (r % 128 < 127) printf "%d %d 1000\n%d %d 1000\n", r, r + 1, r + 1, r
	if (r < 65408) printf "%d %d 1000\n%d %d 1000\n", r, r + 128, r + 128, r } }' \
	>"$work/grid64k"
for delay in 0.1 0.2 0.3; do
	rm -f "$work/rf64k"
	"$tp" remap --matrix "$work/grid64k" --hosts 'n[0001-8192]' --slots 8 \
		--fabric 10x50x18 --seed 1 --rankfile "$work/rf64k" \
		>/dev/null 2>"$work/term.err" &
	pid=$!
	sleep "$delay"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	tp_check_eq "SIGTERM after ${delay}s ends remap (143), no rankfile" "143 no" \
		"$? $([ -e "$work/rf64k" ] && echo yes || echo no)"
done

tp_done
