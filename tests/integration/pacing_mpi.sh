#!/bin/bash
# MPI-IO through the pacing library's MPI part (libtopoplace_pacing_mpi.so:
# throttle/pacing.c + throttle/phase.c + throttle/pacing_mpi.c, PMPI-style
# MPI_File_write*).
#
# The test compiles the library (and a small MPI writer) with mpicc into a
# temporary directory, so it runs whatever configure found; it skips
# without mpicc/mpirun.  Two ranks each issue 20 MPI_File_write_at calls
# back to back, with the library's statistics on
# (TOPOPLACE_IO_PACING_STATS).  Every check holds however loaded the
# machine is (speed is measured in bench/, not asserted here):
#  - lower bounds on time: every rank's "previous call to this return"
#    (>= the start-to-start interval) reaches the window, and the run takes
#    at least (20 - 1) x window;
#  - each rank is its own client: the library recorded 20 MPI request
#    starts per rank, none closer than the window to the one before;
#  - paced once, not again underneath: the POSIX calls the MPI library
#    makes inside MPI_File_write_at reach the library (nested > 0) but get
#    no start: between a rank's first and last MPI_File_write_at the only
#    starts are its 20 MPI requests;
#  - without a window the library sees the 20 MPI requests per rank and
#    applies no window to anything.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"

command -v mpicc >/dev/null || tp_skip "mpicc not installed (libopenmpi-dev)"
command -v mpirun >/dev/null || tp_skip "mpirun not installed"

# Files on tmpfs when there is one: the disk is not under test.
base=${TMPDIR:-/tmp}
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
tmp=$(mktemp -d "$base/tp-pacing-mpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

tp_check "the MPI pacing library builds with mpicc" \
	mpicc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared \
	-I"$abs_top_builddir" -I"$abs_top_srcdir/throttle" \
	"$abs_top_srcdir/throttle/pacing.c" "$abs_top_srcdir/throttle/phase.c" \
	"$abs_top_srcdir/throttle/pacing_mpi.c" \
	-o "$tmp/libtopoplace_pacing_mpi.so" || tp_done
tp_check "the MPI writer builds" \
	mpicc -O2 "$abs_top_srcdir/tests/integration/pacing_mpi_writer.c" \
	-o "$tmp/writer" || tp_done

field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
fcmp() { awk "BEGIN { exit !($*) }"; }
# stat_of KEY PID: KEY from process PID's statistics summary line.
stat_of() {
	awk -v k="$1" -v p="$2" '$1 == "pacing" && $2 == "pid=" p {
		for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' \
		"$tmp/stats"
}
# loop_starts PID FROM TO: "count min_gap_ns ops" of process PID's
# recorded starts with FROM <= ns <= TO, in time order.
loop_starts() {
	awk -v p="$1" -v a="$2" -v b="$3" '$1 == "start" && $2 == "pid=" p {
		sub("ns=", "", $4); if ($4 + 0 >= a + 0 && $4 + 0 <= b + 0) print $4, $5 }' "$tmp/stats" |
		sort -n | awk '{ if (NR > 1 && (m == "" || $1 - t < m)) m = $1 - t; t = $1
			if (!($2 in op)) { op[$2]; ops = ops (ops == "" ? "" : ",") substr($2, 4) } }
		END { printf "%d %s %s\n", NR, (m == "" ? "-" : m), (ops == "" ? "-" : ops) }'
}
# all_min_gap PID: the smallest gap between any two of PID's starts.
all_min_gap() { loop_starts "$1" 0 1e30 | cut -d' ' -f2; }
run() { # ENV... : two ranks on this host, as root too
	rm -f "$tmp/stats"
	# Idle ranks yield the CPU: tests running beside this one keep theirs.
	env "$@" TOPOPLACE_IO_PACING_STATS="$tmp/stats" \
		OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader \
		OMPI_MCA_mpi_yield_when_idle=1 \
		mpirun --allow-run-as-root --oversubscribe -np 2 \
		-x LD_PRELOAD -x TOPOPLACE_IO_WINDOW_US -x TOPOPLACE_IO_PACING_STATS \
		"$tmp/writer" "$tmp/data" 20 65536 2>"$tmp/mpirun.err"
}

w=5000
out=$(run LD_PRELOAD="$tmp/libtopoplace_pacing_mpi.so" TOPOPLACE_IO_WINDOW_US=$w)
echo "# paced: $out" | sed '2,$s/^/# /'
[[ -n $out ]] || { tp_fail "mpirun ran" "$(cat "$tmp/mpirun.err")"; tp_done; }
sed -n 's/^pacing /# stats: /p' "$tmp/stats"
outer=$(field min_outer_us "$out")
total=$(field total_us "$out")
tp_check "MPI_File_write_at call-to-next-return reaches the window on every rank ($outer us >= $w)" \
	fcmp "$outer >= $w"
tp_check "each rank paces itself: total >= 19 windows ($total us >= $((19 * w)))" \
	fcmp "$total >= 19 * $w"
ranks=$(grep -c '^rank=' <<<"$out")
tp_check_eq "both ranks reported their write loop" 2 "$ranks"
while read -r rank pid from to; do
	rank=${rank#rank=} pid=${pid#pid=} from=${from#*=} to=${to#*=}
	s=$(loop_starts "$pid" "$from" "$to")
	echo "# rank $rank (pid $pid) in its write loop: starts, min gap ns, ops: $s"
	tp_check_eq "rank $rank: the library saw its 20 MPI requests" 20 "$(stat_of mpi_calls "$pid")"
	nested=$(stat_of nested "$pid")
	tp_check "rank $rank: the MPI library's POSIX calls underneath reached the pacing library ($nested)" \
		fcmp "${nested:-0} >= 20"
	tp_check_eq "rank $rank: paced once, not again underneath: in the loop only the 20 MPI requests got a start" \
		"20 mpi_write" "$(cut -d' ' -f1,3 <<<"$s")"
	gap=$(all_min_gap "$pid")
	tp_check "rank $rank: no two of its starts closer than the window ($gap ns >= $((w * 1000)))" \
		fcmp "$gap >= $w * 1000"
done < <(grep '^rank=' <<<"$out")

out=$(run LD_PRELOAD="$tmp/libtopoplace_pacing_mpi.so" TOPOPLACE_IO_WINDOW_US=)
echo "# window unset: $out" | sed '2,$s/^/# /'
sed -n 's/^pacing /# stats: /p' "$tmp/stats"
ranks=0
while read -r rank pid _; do
	rank=${rank#rank=} pid=${pid#pid=}
	ranks=$((ranks + 1))
	tp_check_eq "no window, rank $rank: 20 MPI requests seen, none paced (mpi_calls requests paced)" \
		"20 0 0" "$(stat_of mpi_calls "$pid") $(stat_of requests "$pid") $(stat_of paced "$pid")"
done < <(grep '^rank=' <<<"$out")
tp_check_eq "no window: both ranks reported" 2 "$ranks"

tp_done
