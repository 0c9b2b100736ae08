#!/bin/bash
# cli_profile_scale.sh: `topoplace profile scale` on real matrices
# (topoplace-profile(5), SCALING).
#
# Proves: NPB-MG at 16 ranks is found as a 3-D 4x2x2 periodic stencil and
# rebuilt at 64 ranks as 4x4x4, the grid NPB-MG's own 64-rank run has: the
# scaled profile's pairs (6 a rank) are all pairs of the real run, whose
# other pairs carry under 2% of its bytes, and its
# remapping weighs on the real 64-rank matrix no more than block order;
# an all-to-all-like code (HPCG's 27-point stencil) and LULESH are refused
# with the reason, exit 1, and no file; so are a garbage and a missing
# file, with one line naming them; bad --ranks and missing arguments are
# usage errors (exit 2).  Of several runs, the scale rule: NPB-MG at 16
# and 64 ranks is scaled from the nearest run, CoMD (a stencil at 64 only),
# one size and a run that is no stencil are refused with the reason.
#
# Env: abs_top_builddir, abs_top_srcdir (make check).

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/lib/bed.sh"

tp=${abs_top_builddir:-.}/tools/topoplace
[[ -x $tp ]] || tp_skip "$tp not built"
mdir=${abs_top_srcdir:-$(dirname "$0")/../..}/tests/data/matrices
T=$(mktemp -d /tmp/tp-cli-scale.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

for run in NPB-MG.A-16 NPB-MG.A-64 HPCG-16 LULESH-27; do
	"$tp" profile import --from matrix -o "$T/$run.tpp" "$mdir/$run.txt" \
		>/dev/null || tp_fail "import $run"
done

out=$("$tp" profile scale --ranks 64 -o "$T/mg64.tpp" "$T/NPB-MG.A-16.tpp")
tp_check_eq "MG at 16 ranks scales to 64 as the grid MPI_Dims_create gives" \
	"$T/NPB-MG.A-16.tpp: 16 ranks, 3-D 4x2x2 periodic stencil -> 64 ranks, 3-D 4x4x4 periodic" \
	"$out"
tp_check_eq "MG's real 64-rank run is that grid" \
	"$T/NPB-MG.A-64.tpp: 64 ranks, 3-D 4x4x4 periodic stencil -> 64 ranks, 3-D 4x4x4 periodic" \
	"$("$tp" profile scale --ranks 64 "$T/NPB-MG.A-64.tpp")"
pairs() { "$tp" profile export --to matrix "$1" | awk '!/^#/ {print $1, $2}' | sort; }
tp_check_eq "every pair of the scaled profile is a pair of the real 64-rank run" \
	"" "$(comm -13 <(pairs "$T/NPB-MG.A-64.tpp") <(pairs "$T/mg64.tpp"))"
tp_check_eq "(384 of them: 6 a rank)" 384 "$(pairs "$T/mg64.tpp" | wc -l)"
# The real run's other pairs: MG's coarse levels, a few hundred bytes each.
"$tp" profile export --to matrix "$T/mg64.tpp" |
	awk '!/^#/ {print $1, $2}' >"$T/scaled.pairs"
off=$("$tp" profile export --to matrix "$T/NPB-MG.A-64.tpp" | awk '
	NR == FNR { grid[$1 " " $2] = 1; next }
	/^#/ { next }
	{ all += $3; if (!(($1 " " $2) in grid)) off += $3 }
	END { printf "%.4f", off / all }' "$T/scaled.pairs" -)
tp_check "the real run's pairs it lacks carry under 2% of the bytes ($off)" \
	awk -v f="$off" 'BEGIN { exit !(f != "" && f < 0.02) }'

hosts='n[0001-0003,0009-0012,0017]'
"$tp" remap --profile "$T/mg64.tpp" --hosts "$hosts" --slots 8 \
	--fabric 2x4x8 --hostfile-out "$T/scaled.hf" >/dev/null ||
	tp_fail "remap from the scaled profile"
ratio=$("$tp" cost --matrix "$mdir/NPB-MG.A-64.txt" --fabric 2x4x8 \
	--hosts "$hosts" --slots 8 --mapping block,"$T/scaled.hf" |
	awk '/^  ratio to first/ {print $5}')
tp_check "its remapping costs no more than block on the real matrix ($ratio)" \
	awk -v r="$ratio" 'BEGIN { exit !(r != "" && r <= 1.0) }'

for run in HPCG-16 LULESH-27; do
	"$tp" profile scale --ranks 64 -o "$T/no.tpp" "$T/$run.tpp" \
		>"$T/out" 2>"$T/err"
	rc=$?
	tp_check_eq "$run is refused (exit 1)" 1 "$rc"
	tp_check "($run) one line names the file and why: $(cat "$T/err")" \
		grep -q "^topoplace profile: $T/$run.tpp: not a regular stencil in MPI_Dims_create's layout (1-D: .*; 2-D: .*; 3-D: .*% of the bytes off the grid's neighbours)$" "$T/err"
	tp_check_eq "($run) nothing on stdout, no file" "0 no" \
		"$(wc -l <"$T/out") $([[ -e $T/no.tpp ]] && echo yes || echo no)"
done

# A file that is not a profile, and one that is not there: one line naming
# it, exit 1, nothing written.
head -c 300 /dev/urandom >"$T/garbage.tpp"
for f in "$T/garbage.tpp" "$T/missing.tpp"; do
	"$tp" profile scale --ranks 64 -o "$T/no.tpp" "$f" >"$T/out" 2>"$T/err"
	rc=$?
	tp_check_eq "scale of ${f##*/}: exit 1, nothing written" "1 0 no" \
		"$rc $(wc -l <"$T/out") $([[ -e $T/no.tpp ]] && echo yes || echo no)"
	tp_check "(${f##*/}) one error line naming it: $(head -1 "$T/err")" \
		bash -c '[[ $(wc -l <"$1") == 1 ]] && grep -q "$2" "$1"' _ "$T/err" "$f"
done

# Several runs of one application: the rule slurmd applies to a job of
# another size (topoplace-profile(5), SCALING).  NPB-MG at 16 and 64 ranks:
# the 64-rank run (the nearest) scaled to 128; CoMD (a stencil at 64 ranks
# only) and one size are refused, exit 1, no file.
for run in NPB-MG.A-128 CoMD-16 CoMD-64; do
	"$tp" profile import --from matrix -o "$T/$run.tpp" "$mdir/$run.txt" \
		>/dev/null || tp_fail "import $run"
done
out=$("$tp" profile scale --ranks 128 -o "$T/mg128.tpp" \
	"$T/NPB-MG.A-16.tpp" "$T/NPB-MG.A-64.tpp")
tp_check_eq "MG at 16 and 64 ranks: scaled to 128 from the 64-rank run" \
	"$T/NPB-MG.A-64.tpp: 3-D periodic stencil seen at 16, 64 ranks: its 64-rank run scaled -> 128 ranks, 3-D 8x4x4 periodic" \
	"$out"
tp_check_eq "(the scaled profile: 128 ranks, 6 pairs a rank)" 768 \
	"$(pairs "$T/mg128.tpp" | wc -l)"
"$tp" profile scale --ranks 128 -o "$T/mgrule.tpp" "$T/NPB-MG.A-64.tpp" \
	>/dev/null
tp_check_eq "(the same grid as the 64-rank run scaled alone)" \
	"$(pairs "$T/mgrule.tpp")" "$(pairs "$T/mg128.tpp")"
tp_check "MG at 16, 64 and 128 ranks to 256: from the 128-rank run" \
	grep -q "NPB-MG.A-128.tpp: 3-D periodic stencil seen at 16, 64, 128 ranks: its 128-rank run scaled -> 256 ranks, 3-D 8x8x4 periodic" \
	<<<"$("$tp" profile scale --ranks 256 "$T/NPB-MG.A-16.tpp" "$T/NPB-MG.A-64.tpp" "$T/NPB-MG.A-128.tpp")"
for runs in "CoMD-16 CoMD-64" "CoMD-64 CoMD-64" "NPB-MG.A-16 HPCG-16"; do
	# shellcheck disable=SC2086 # the words of $runs
	set -- $runs
	"$tp" profile scale --ranks 128 -o "$T/no.tpp" "$T/$1.tpp" "$T/$2.tpp" \
		>"$T/out" 2>"$T/err"
	rc=$?
	tp_check_eq "runs $runs: not scaled, exit 1, nothing written: $(cat "$T/err")" \
		"1 0 no" \
		"$rc $(wc -l <"$T/out") $([[ -e $T/no.tpp ]] && echo yes || echo no)"
done
tp_check_eq "(CoMD-64 twice: the reason)" \
	"topoplace profile: not scaled: a stencil seen at 64 ranks only: one size does not show the application's layout at another" \
	"$("$tp" profile scale --ranks 128 "$T/CoMD-64.tpp" "$T/CoMD-64.tpp" 2>&1)"
tp_check_eq "(CoMD at 16 and 64: the reason)" \
	"topoplace profile: not scaled: its 16-rank run is not a stencil in MPI_Dims_create's layout" \
	"$("$tp" profile scale --ranks 128 "$T/CoMD-16.tpp" "$T/CoMD-64.tpp" 2>&1)"

for bad in "--ranks 0" "--ranks x" "--ranks 1048577" "--ranks" ""; do
	# shellcheck disable=SC2086 # the words of $bad
	"$tp" profile scale $bad "$T/NPB-MG.A-16.tpp" >/dev/null 2>"$T/err"
	rc=$?
	tp_check_eq "scale $bad: usage error (exit 2): $(head -1 "$T/err")" 2 "$rc"
done
tp_done
