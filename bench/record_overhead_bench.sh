#!/bin/bash
# record_overhead_bench.sh: what a recorded run costs (issue #18 goal: "a
# recorded run costs < 1% of its run time"), measured so that the noise of
# a shared machine does not hide it.  Real MPI programs (bench/mpi_bench.c,
# tests/integration/mpi_patterns.c, and Debian's hpcc, the HPC Challenge
# suite, when installed) run without and with libtopoplace_profiler.so
# preloaded, as task/topoplace preloads it for a recorded job.
#
#  1. Instructions (callgrind, user space, every rank): the whole process's
#     Ir without and with the preload, and the profiler's own Ir
#     (bench/callgrind_cost.awk: its functions and what they call, not the
#     MPI calls it forwards), of which the end of the run (gather, build,
#     write).  The profiler's own count does not depend on load; the whole
#     process's does a little (MPI's busy-wait loops spin while a peer is
#     descheduled), which the two whole-process columns show.  A second
#     table gives its work per wrapped call (its count less the start and
#     the end of the run, over the calls into its wrappers) and, with
#     BASE_SRC, the same of another source tree's library on the same
#     program, run beside it: old and new side by side.
#  2. Wall time: PAIRS pairs without/with, back to back, the order
#     alternating; median of the per-pair ratios with a 95% bootstrap
#     interval, min-of-N ratio and the 10th-90th percentile of the ratios
#     (bench/paired_stats.awk); for bench/mpi_bench also the timed loop and
#     the time of MPI_Finalize (the end of the run under the profiler).
#
# Figures only, no pass/fail (but SMOKE=1, below).  Results:
# bench/RESULTS.md ("Recorded run overhead").
#
#   bench/record_overhead_bench.sh [BUILDDIR]
#       env: PAIRS=11  NP=2  PARTS="instr wall"  HPCC_N=200 (instructions)
#            HPCC_WALL_N=600 (wall)  LAMMPS="16 200" (instructions: lattice
#            cells a side, 4 atoms each, and time steps)  LAMMPS_WALL="20 2000"
#            ONLY=REGEX (the workloads, as "NP
#            PROG ARGS", that match)
#            PROFILER_CFLAGS="-D..." (both libraries; bench/profiler_build.sh)
#            BASE_SRC=DIR (instructions: also preload the library built from
#            the sources in DIR, e.g. `git archive main | tar -x -C DIR`,
#            with this tree's tp_config.h; a third callgrind run a workload)
#   SMOKE=1 bench/record_overhead_bench.sh BUILDDIR
#       one small callgrind pair of mpi_bench and 3 wall pairs; checks that
#       the counts are parsed, that the profile was written, that the
#       preloaded run executes more instructions than the plain one, and
#       that the profiler's own count is no more than that difference (it
#       leaves out ld.so's loading of the library); exits 1 if not.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src}
PAIRS=${PAIRS:-11}
NP=${NP:-2}
PARTS=${PARTS:-instr wall}
HPCC_N=${HPCC_N:-200}
HPCC_WALL_N=${HPCC_WALL_N:-600}
LAMMPS=${LAMMPS:-16 200}
LAMMPS_WALL=${LAMMPS_WALL:-20 2000}
SMOKE=${SMOKE:-0}
ONLY=${ONLY:-}
BASE_SRC=${BASE_SRC:-}
T=$(mktemp -d /tmp/tp-recbench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

. "$src/bench/profiler_build.sh"
profiler_build || exit 1
if [[ -n $BASE_SRC ]]; then # the library of the sources to compare with
	(src=$(cd "$BASE_SRC" && pwd) && T=$T/base && mkdir -p "$T" &&
		profiler_build) || exit 1
fi
mpicc -O2 "$src/tests/integration/mpi_patterns.c" -o "$T/mpi_patterns" \
	-lpthread || exit 1
hpcc=$(command -v hpcc || true)
lammps=$(command -v lmp || true)

# hpcc reads hpccinf.txt in its directory: Debian's example with N (the
# HPL matrix order, which also sizes the other kernels) and a 1 x NP grid.
hpcc_dir() { # N NP: prints the directory
	local d="$T/hpcc-$1-$2"
	mkdir -p "$d" &&
		sed -e "6s/^[0-9]* /$1 /" -e "11s/^[0-9]* /1 /" \
			-e "12s/^[0-9]* /$2 /" \
			/usr/share/doc/hpcc/examples/_hpccinf.txt >"$d/hpccinf.txt" &&
		echo "$d"
}

# run PRELOAD(0|1|2) NP OUT PREFIX... -- PROG ARGS...: one mpirun of PROG
# under PREFIX (e.g. valgrind), in PROG's directory for hpcc; stdout to OUT.
# PRELOAD 1: this tree's library; 2: BASE_SRC's.
# PROG lammps takes SIZE STEPS (bench/lammps_lj.in's variables s and n).
run() {
	local pre=$1 np=$2 out=$3 dir=$T
	shift 3
	local prefix=()
	while [[ $1 != -- ]]; do
		prefix+=("$1")
		shift
	done
	shift
	local prog=$1
	shift
	local x=(-x TOPOPLACE_PROFILE_DIR="$T/profiles")
	((pre == 1)) && x+=(-x LD_PRELOAD="$T/libtopoplace_profiler.so")
	((pre == 2)) && x+=(-x LD_PRELOAD="$T/base/libtopoplace_profiler.so")
	if [[ $prog == hpcc ]]; then
		dir=$(hpcc_dir "$1" "$np") || return 1
		set --
		prog=$hpcc
	elif [[ $prog == lammps ]]; then
		set -- -in "$src/bench/lammps_lj.in" -var s "$1" -var n "$2" \
			-log none
		prog=$lammps
	else
		prog=$T/$prog
	fi
	mkdir -p "$T/profiles"
	(cd "$dir" && OMPI_MCA_btl=self,vader OMPI_MCA_plm_rsh_agent=false \
		mpirun --allow-run-as-root --oversubscribe --bind-to core \
		-np "$np" "${x[@]}" "${prefix[@]}" "$prog" "$@") >"$out" 2>>"$T/stderr"
}

# cg_run PRELOAD NP WORKLOAD...: callgrind of every rank; prints the sums
# over the ranks of bench/callgrind_cost.awk's fields (total profiler
# finalize end_mpi progress tls), the number of profiles written and of
# ranks, then the sums of its fields calls and init; fails unless every
# rank's counts were parsed.
cg_run() {
	local pre=$1 np=$2 f
	shift 2
	rm -rf "$T/cg" "$T/profiles"
	mkdir -p "$T/cg"
	run "$pre" "$np" "$T/out" valgrind -q --tool=callgrind --dump-line=no \
		--compress-strings=no --compress-pos=no \
		--callgrind-out-file="$T/cg/out.%p" -- "$@" || return 1
	for f in "$T"/cg/out.*; do
		awk -v lib=libtopoplace_profiler -f "$src/bench/callgrind_cost.awk" "$f" ||
			return 1
	done | awk -v n="$(find "$T/profiles" -name '*.tpp' | wc -l)" -v np="$np" \
		'{ for (i = 1; i <= 8; i++) s[i] += $(2 * i); r++ }
		END { if (r != np) exit 1  # a rank without its counts
		    printf "%d %d %d %d %d %d %d %d %d %d\n", s[1], s[2], s[3],
		    s[4], s[5], s[6], n, r, s[7], s[8] }'
}

# The instruction table: one callgrind pair per workload.  The shares are
# of the plain run's instructions outside Open MPI's progress engine
# (Ir_without - poll): busy-polling, whose count follows the load and not
# the work, would otherwise make the profiler's share look smaller.  That
# base also leaves out real message work, so the shares err high.
instr_part() { # WORKLOAD (as "NP PROG ARGS")...
	local w a b c percall=()
	printf '%-36s %13s %13s %7s %6s %13s %8s %9s %7s %11s %7s\n' \
		"workload (np)" Ir_without Ir_with delta% poll% base_Ir calls% \
		end_cpu_Ir end% end_mpi_Ir tls%
	for w in "$@"; do
		set -- $w
		c=
		a=$(cg_run 0 "$@") && b=$(cg_run 1 "$@") &&
			{ [[ -z $BASE_SRC ]] || c=$(cg_run 2 "$@"); } || {
			printf '%-36s run failed: %s\n' "${w#* } ($1)" \
				"$(tail -n 3 "$T/stderr" | tr '\n' ' ')"
			continue
		}
		awk -v w="${w#* } ($1)" -v a="$a" -v b="$b" 'BEGIN {
			split(a, x, " "); split(b, y, " ")
			base = x[1] - x[5]
			if (base <= 0)
				base = x[1]
			printf "%-36s %13d %13d %7.2f %6.1f %13d %8.4f %9d %7.4f " \
			    "%11d %7.4f\n", w, x[1], y[1],
			    100 * (y[1] - x[1]) / x[1], 100 * x[5] / x[1], base,
			    100 * (y[2] - y[3]) / base, y[3] - y[4],
			    100 * (y[3] - y[4]) / base, y[4], 100 * y[6] / base }'
		percall+=("$(awk -v w="${w#* } ($1)" -v a="$a" -v b="$b" -v c="$c" '
		function per(f) { return f[9] ? (f[2] - f[3] - f[10]) / f[9] : 0 }
		BEGIN {
			split(a, x, " "); split(b, y, " ")
			base = x[1] - x[5]
			if (base <= 0)
				base = x[1]
			if (c == "") {
				printf "%-36s %9d %9.1f %8.4f\n", w, y[9], per(y),
				    100 * per(y) * y[9] / base
				exit
			}
			split(c, z, " ")
			printf "%-36s %9d %9d %11.1f %9.1f %7.3f %10.4f %8.4f\n",
			    w, z[9], y[9], per(z), per(y),
			    per(z) ? per(y) / per(z) : 0,
			    100 * per(z) * z[9] / base, 100 * per(y) * y[9] / base }')")
	done
	# Per wrapped call: the profiler's count less its start (MPI_Init
	# wrappers) and end (MPI_Finalize's gather, build, write), over the
	# calls into its wrappers; its share of base_Ir as calls% above, the
	# start left out.
	echo "## per wrapped call (profiler Ir less start and end of run / calls into its wrappers)"
	if [[ -z $BASE_SRC ]]; then
		printf '%-36s %9s %9s %8s\n' "workload (np)" calls Ir/call calls%
	else
		echo "# base: library of $BASE_SRC"
		printf '%-36s %9s %9s %11s %9s %7s %10s %8s\n' "workload (np)" \
			base_calls calls base_Ir/call Ir/call ratio base_calls% calls%
	fi
	printf '%s\n' "${percall[@]}"
}

# wall_run PRELOAD NP WORKLOAD...: "wall loop finalize" seconds of one run
# (loop and finalize: bench/mpi_bench's own lines, 0 for other programs).
wall_run() {
	local t0 t1
	rm -rf "$T/profiles"
	t0=$(date +%s.%N)
	run "$1" "$2" "$T/out" -- "${@:3}" || return 1
	t1=$(date +%s.%N)
	awk -v t0="$t0" -v t1="$t1" '/^seconds / { l = $2 }
		/^finalize_seconds / { f = $2 }
		END { printf "%.6f %.6f %.6f\n", t1 - t0, l + 0, f + 0 }' "$T/out"
}

# The wall-time table: PAIRS interleaved pairs per workload.
wall_part() { # WORKLOAD (as "NP PROG ARGS")...
	local w i a b
	printf '%-36s %-8s %3s %10s %10s %7s %15s %7s %15s\n' "workload (np)" \
		metric n without_s with_s ratio "95% CI" min_N "p10..p90"
	for w in "$@"; do
		: >"$T/pairs"
		for ((i = 1; i <= PAIRS; i++)); do
			# Alternate which goes first: no order effect on the ratio.
			if ((i % 2)); then
				a=$(wall_run 0 $w) && b=$(wall_run 1 $w)
			else
				b=$(wall_run 1 $w) && a=$(wall_run 0 $w)
			fi || break
			echo "$a $b" >>"$T/pairs"
		done
		if ((i <= PAIRS)); then
			printf '%-36s run failed: %s\n' "${w#* } (${w%% *})" \
				"$(tail -n 3 "$T/stderr" | tr '\n' ' ')"
			continue
		fi
		wall_rows "${w#* } (${w%% *})"
	done
}

# The rows of one workload from $T/pairs ("wall loop fin" without, with).
wall_rows() { # LABEL
	local label=$1 col name s
	for col in 1 2; do
		name=$([[ $col == 1 ]] && echo process || echo loop)
		awk -v c="$col" '$(c) > 0 { print $(c), $(c + 3) }' "$T/pairs" >"$T/col"
		[[ -s $T/col ]] || continue
		s=$(awk -v seed=1 -f "$src/bench/paired_stats.awk" "$T/col") || continue
		set -- $s
		printf '%-36s %-8s %3s %10s %10s %7s %15s %7s %15s\n' "$label" \
			"$name" "$2" "$4" "$6" "$8" "${10}..${12}" "${14}" "${16}..${18}"
	done
	# The end of the run: rank 0's MPI_Finalize, with minus without, per
	# pair; its median, and that over the median process time with.
	set -- $(awk -f "$src/bench/finalize_delta.awk" "$T/pairs")
	(($# == 3)) && awk -v n="$1" -v dm="$2" -v wm="$3" -v lbl="$label" \
		'BEGIN { printf "%-36s %-8s %3d   end of run: %+.4f s (median " \
		    "of %d pairs) = %.3f%% of the run (%.3f s)\n", lbl,
		    "finalize", n, dm, n, 100 * dm / wm, wm }'
}

# SMOKE=1: small runs and checks of what the figures rest on.
smoke() {
	local a b ok=1 out
	a=$(cg_run 0 1 mpi_bench self 8 2000) &&
		b=$(cg_run 1 1 mpi_bench self 8 2000) || {
		echo "FAIL: callgrind runs"
		return 1
	}
	echo "without: $a"
	echo "with:    $b"
	# total profiler finalize end_mpi progress tls profiles ranks, twice
	set -- $(cut -d' ' -f1-8 <<<"$a") $(cut -d' ' -f1-8 <<<"$b")
	check() { # DESCRIPTION CONDITION(awk)
		if awk "BEGIN { exit !($2) }"; then
			echo "ok: $1"
		else
			echo "FAIL: $1"
			ok=0
		fi
	}
	check "counts parsed (one rank, Ir > 1e6)" "$8 == 1 && ${16} == 1 && $1 > 1e6 && $9 > 1e6"
	check "without the preload: no profiler Ir, no profile" "$2 == 0 && $3 == 0 && $7 == 0"
	check "with it: one profile written" "${15} == 1"
	check "with it: more Ir than without" "$9 > $1"
	check "profiler Ir > 0; its end of run, and that end's MPI calls, parts of it" \
		"${10} > 0 && ${11} > 0 && ${11} < ${10} && ${12} > 0 && ${12} < ${11}"
	check "profiler Ir <= the difference (loading is not in it)" "${10} <= $9 - $1"
	out=$(PAIRS=3 wall_part "1 mpi_bench self 8 20000") || {
		echo "FAIL: wall pairs"
		return 1
	}
	echo "$out"
	check "wall rows: process, loop and finalize of 3 pairs" \
		"$(grep -cE '^mpi_bench self 8 20000 \(1\) +(process|loop) +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ ' <<<"$out") == 2 && $(grep -cE 'finalize +3 +end of run' <<<"$out") == 1"
	((ok))
}

if ((SMOKE)); then
	smoke
	exit
fi
echo "# $(date -u +%FT%TZ) $(nproc) cpus, $(lscpu | sed -n 's/^Model name: *//p')," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), PAIRS=$PAIRS NP=$NP" \
	"hpcc=${hpcc:-none} lammps=${lammps:-none}"
instr_set=("1 mpi_bench self 8 20000" "$NP mpi_bench pingpong 8 10000"
	"$NP mpi_bench alltoall 16 5000" "$NP mpi_bench stencil 32 40"
	"$NP mpi_patterns stencil 500 16 16 16" "$NP mpi_patterns subcomm 1000 4096")
wall_set=("1 mpi_bench self 8 2000000" "$NP mpi_bench pingpong 8 200000"
	"$NP mpi_bench alltoall 16 200000" "$NP mpi_bench stencil 48 1000"
	"8 mpi_bench stencil 24 500" "$NP mpi_patterns stencil 20000 16 16 16")
if [[ -n $hpcc ]]; then
	instr_set+=("$NP hpcc $HPCC_N")
	wall_set+=("$NP hpcc $HPCC_WALL_N")
fi
if [[ -n $lammps ]]; then
	instr_set+=("$NP lammps $LAMMPS")
	wall_set+=("$NP lammps $LAMMPS_WALL")
fi
if [[ -n $ONLY ]]; then # keep the workloads that match the regex
	for v in instr_set wall_set; do
		declare -n list=$v
		keep=()
		for w in "${list[@]}"; do
			[[ $w =~ $ONLY ]] && keep+=("$w")
		done
		list=("${keep[@]}")
		unset -n list
	done
fi
if [[ " $PARTS " == *" instr "* ]]; then
	echo "## instructions (callgrind Ir, all ranks summed; % of Ir_without)"
	instr_part "${instr_set[@]}"
fi
if [[ " $PARTS " == *" wall "* ]]; then
	echo "## wall time ($PAIRS pairs each, interleaved)"
	wall_part "${wall_set[@]}"
fi
