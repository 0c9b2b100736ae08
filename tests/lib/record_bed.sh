# record_bed.sh - the outer half of the bed tests whose jobs run under
# task/topoplace with the profiler (bash; source it after bed.sh, outside
# the bed, then call the two functions):
#
#   tp_record_bed_prepare [--mpi PATH] [--pmix] [--hosts-per-leaf N]
#   ... the test's own files in $work ...
#   tp_record_bed_run NAME [TP-BED OPTIONS...]
#
# tp_record_bed_prepare skips the test (tp_skip) unless a bed can run and
# the build has the profiler library; with --mpi, also unless mpicc is
# installed, and builds tests/integration/mpi_patterns.c into $work/PATH;
# with --pmix, also unless Slurm's mpi/pmix plugin is installed.  It makes
# $work (mode 755, under /tmp: the test users must read it), the SPANK
# plugstack and a 2-leaf fat tree of N hosts per leaf (default 2), and
# exports TOPOPLACE_LIBDIR (the built profiler and pacing library) and
# TP_RECORD_WORK=$work for the inside half.
#
# tp_record_bed_run starts tp-bed with select/topoplace_cons_tres,
# task/topoplace, the build's plugins, 4 CPUs per node (unless the options
# give --cpus) and --keep tests/integration/NAME.keep, then runs "$0
# --inside" in it with the options given, removes $work and exits with
# the inside half's status.

tp_record_bed_prepare() {
	local mpi="" pmix=0 hosts=2

	while (($#)); do
		case $1 in
		--mpi) mpi=$2; shift 2 ;;
		--pmix) pmix=1; shift ;;
		--hosts-per-leaf) hosts=$2; shift 2 ;;
		*) echo "tp_record_bed_prepare: unknown option $1" >&2; return 2 ;;
		esac
	done
	tp_require_bed
	[ -f "$abs_top_builddir/profiles/.libs/libtopoplace_profiler.so" ] ||
		tp_skip "the build has no profiler library (configure found no MPI)"
	if [ -n "$mpi" ]; then
		MPICC=$(command -v mpicc.openmpi || command -v mpicc) ||
			tp_skip "mpicc not installed (libopenmpi-dev)"
	fi
	if ((pmix)); then
		[ -n "$(ls /usr/lib/*/slurm-wlm/mpi_pmix*.so 2>/dev/null)" ] ||
			tp_skip "Slurm's mpi/pmix plugin is not installed"
	fi
	work=$(mktemp -d /tmp/tp-record-bed.XXXXXX) || exit 1
	chmod 755 "$work"
	if [ -n "$mpi" ]; then
		mkdir -p -m 755 "$(dirname "$work/$mpi")"
		"$MPICC" -O2 "$abs_top_srcdir/tests/integration/mpi_patterns.c" \
			-pthread -o "$work/$mpi" || {
			echo "not ok - mpi_patterns builds"
			echo "0 passed, 1 failed"
			rm -rf "$work"
			exit 1
		}
	fi
	echo "optional $abs_top_builddir/slurm-plugin/.libs/spank_topoplace.so" \
		>"$work/plugstack.conf"
	"$abs_top_builddir/tools/topoplace-fattree" --leaves 2 \
		--hosts-per-leaf "$hosts" --spines 2 --format slurm \
		-o "$work/topology.conf" || exit 1
	export TOPOPLACE_LIBDIR=$abs_top_builddir/profiles/.libs:$abs_top_builddir/throttle/.libs
	export TP_RECORD_WORK=$work
}

tp_record_bed_run() {
	local name=$1 cpus=(--cpus 4) rc
	shift
	[[ " $* " == *" --cpus "* ]] && cpus=()
	"$abs_top_srcdir/tests/lib/tp-bed" --topology "$work/topology.conf" \
		"${cpus[@]}" --select select/topoplace_cons_tres \
		--task-plugin task/topoplace \
		--plugin-dir "$abs_top_builddir/slurm-plugin/.libs" \
		--plugstack "$work/plugstack.conf" \
		--keep "$abs_top_builddir/tests/integration/$name.keep" \
		"$@" -- "$0" --inside
	rc=$?
	rm -rf "$work"
	exit $rc
}
