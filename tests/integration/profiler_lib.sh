# profiler_lib.sh - shared by the profiler_*.sh tests (bash; source it after
# tests/lib/bed.sh).  Builds libtopoplace_profiler.so (profiles/profiler*.c
# plus the profile writer and store it uses) and the MPI test programs with
# Debian's Open MPI wrappers into $PT (a fresh directory readable by
# tpalice), and offers:
#
#   prof_build OUT [CFLAGS...]           build the library (again) into OUT
#   prof_run NP OUTDIR PROGRAM ARGS...   mpirun with $PROF_LIB preloaded,
#                                        profile written to OUTDIR
#   prof_file OUTDIR                     the one .tpp file in OUTDIR
#   prof_matrix FILE                     its matrix, "src dst bytes msgs",
#                                        sorted
#   prof_coll FILE NAME                  "calls bytes" of one collective
#
# Until configure has an MPI conditional the library is not part of the
# automake build (like throttle/pacing_mpi.c); these tests build it.
# Skips (77) without mpicc/mpif90/mpirun or the profile CLI.

: "${abs_top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# PROF_MPI=mpich: Debian's MPICH (mpicc.mpich, mpiexec.mpich) instead.
PROF_MPI=${PROF_MPI:-openmpi}
if [[ $PROF_MPI == mpich ]]; then
	MPICC=mpicc.mpich MPIF90=mpif90.mpich MPIRUN=mpiexec.mpich
	# Launcher options of the tests' own mpirun lines.
	MPIRUN_OPTS=()
	# gcc 12 takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for a
	# zero-size array.
	PROG_CFLAGS=(-Wno-stringop-overflow)
else
	MPICC=${MPICC:-mpicc.openmpi}
	MPIF90=${MPIF90:-mpif90.openmpi}
	MPIRUN=${MPIRUN:-mpirun.openmpi}
	command -v "$MPICC" >/dev/null || MPICC=mpicc
	command -v "$MPIF90" >/dev/null || MPIF90=mpif90
	command -v "$MPIRUN" >/dev/null || MPIRUN=mpirun
	MPIRUN_OPTS=(--allow-run-as-root --oversubscribe)
	PROG_CFLAGS=()
fi
for c in "$MPICC" "$MPIRUN"; do
	command -v "$c" >/dev/null || tp_skip "$c not installed (openmpi-bin, libopenmpi-dev)"
done
PROF_CLI=("$abs_top_builddir/tools/topoplace" profile)
[[ -x ${PROF_CLI[0]} ]] || tp_skip "${PROF_CLI[0]} not built"

PT=$(mktemp -d "${TMPDIR:-/tmp}/tp-profiler.XXXXXX") || exit 1
chmod 755 "$PT"
trap 'rm -rf "$PT"' EXIT
S=$abs_top_srcdir

# prof_build OUT [CFLAGS...]: the library, with extra compiler flags.
prof_build() {
	local out=$1
	shift
	"$MPICC" -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wformat=2 \
		-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -fPIC -shared \
		-Wl,-z,defs "$@" \
		-fvisibility=hidden -I"$abs_top_builddir" -I"$S/common" -I"$S/profiles" \
		"$S/profiles/profiler.c" "$S/profiles/profiler_io.c" \
		"$S/profiles/profiler_fortran.c" "$S/profiles/profile.c" \
		"$S/profiles/sha256.c" "$S/profiles/store.c" "$S/profiles/summary.c" "$S/profiles/scale.c" "$S/profiles/scale_rule.c" "$S/profiles/exec_id.c" "$S/profiles/app_identity.c" "$S/profiles/munge_auth.c" \
		"$S/common/tp_error.c" "$S/common/tp_log.c" "$S/common/tp_file.c" \
		-lmunge -ldl -lpthread -o "$out"
}
tp_check "the profiler library builds with $MPICC (-Werror)" \
	prof_build "$PT/libtopoplace_profiler.so" || tp_done
PROF_LIB=$PT/libtopoplace_profiler.so
tp_check "the MPI test programs build" \
	"$MPICC" -O2 -Wall -Wextra -Werror "${PROG_CFLAGS[@]}" \
	"$S/tests/integration/mpi_patterns.c" -pthread \
	-o "$PT/mpi_patterns" || tp_done

# prof_run NP OUTDIR PROGRAM ARGS...: extra env in PROF_ENV (array).
prof_run() {
	local np=$1 out=$2
	shift 2
	if [[ $PROF_MPI == mpich ]]; then
		# Hydra hands its whole environment to the ranks.
		env "${PROF_ENV[@]}" TOPOPLACE_PROFILE_DIR="$out" \
			LD_PRELOAD="$PROF_LIB" "$MPIRUN" -n "$np" \
			"${PROF_MPIRUN_ARGS[@]}" "$@"
		return
	fi
	env "${PROF_ENV[@]}" OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader \
		OMPI_MCA_mpi_yield_when_idle=1 TOPOPLACE_PROFILE_DIR="$out" \
		LD_PRELOAD="$PROF_LIB" \
		"$MPIRUN" "${MPIRUN_OPTS[@]}" -np "$np" \
		-x LD_PRELOAD -x TOPOPLACE_PROFILE_DIR -x TOPOPLACE_PROFILE_NAME \
		-x TOPOPLACE_PROFILE_STORE -x TOPOPLACE_MUNGE_SOCKET \
		-x TOPOPLACE_PROFILE_FILE "${PROF_MPIRUN_ARGS[@]}" "$@"
}
PROF_ENV=()
PROF_MPIRUN_ARGS=()

prof_file() { ls "$1"/*.tpp 2>/dev/null; }
prof_matrix() { "${PROF_CLI[@]}" export --to matrix "$1" | grep -v '^#' | sort -n -k1,1 -k2,2; }
prof_coll() {
	"${PROF_CLI[@]}" show "$1" | awk -v n="$2" '
		/^collectives:/ { c = 1; next }
		/^[a-z]/ { c = 0 }
		c && $1 == n { print $2, $3; found = 1 }
		END { if (!found) print "0 0" }'
}
