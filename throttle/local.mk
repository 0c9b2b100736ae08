# throttle/: I/O-congestion thresholds, throttle windows, Lustre TBF rules
# (in libtopoplace) and the pacing preload library (its own module).
placement_libtopoplace_la_SOURCES += \
	throttle/csv.c throttle/csv.h \
	throttle/sweep.c throttle/sweep.h \
	throttle/threshold.c throttle/threshold.h \
	throttle/window.c throttle/window.h \
	throttle/prediction.c throttle/prediction.h \
	throttle/tbf.c throttle/tbf.h \
	throttle/calibrate.c throttle/calibrate.h \
	throttle/phase.c throttle/phase.h

TP_THROTTLE_UNIT_TESTS = tests/unit/test_threshold tests/unit/test_window \
	tests/unit/test_sweep tests/unit/test_tbf tests/unit/test_calibrate \
	tests/unit/test_phase
TP_UNIT_TESTS += $(TP_THROTTLE_UNIT_TESTS)
check_PROGRAMS += $(TP_THROTTLE_UNIT_TESTS)
TESTS += $(TP_THROTTLE_UNIT_TESTS)

tests_unit_test_threshold_SOURCES = tests/unit/test_threshold.c
tests_unit_test_threshold_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_threshold_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)

tests_unit_test_window_SOURCES = tests/unit/test_window.c
tests_unit_test_window_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_window_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)

tests_unit_test_sweep_SOURCES = tests/unit/test_sweep.c
tests_unit_test_sweep_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_sweep_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)

tests_unit_test_tbf_SOURCES = tests/unit/test_tbf.c
tests_unit_test_tbf_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_tbf_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_calibrate_SOURCES = tests/unit/test_calibrate.c
tests_unit_test_calibrate_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_calibrate_LDADD = $(TP_UNIT_LDADD)

# The pacing preload library: a module of its own (NOT in libtopoplace),
# installed to $(pkglibdir) for jobs to LD_PRELOAD.  Its MPI-IO part
# (throttle/pacing_mpi.c -> libtopoplace_pacing_mpi.so) needs mpi.h: built
# when configure found Open MPI (HAVE_MPI).
if HAVE_MPI
pkglib_LTLIBRARIES += throttle/libtopoplace_pacing_mpi.la
throttle_libtopoplace_pacing_mpi_la_SOURCES = throttle/pacing.c \
	throttle/pacing_mpi.c throttle/pacing.h throttle/phase.c throttle/phase.h
throttle_libtopoplace_pacing_mpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
throttle_libtopoplace_pacing_mpi_la_LDFLAGS = -module -avoid-version -shared
throttle_libtopoplace_pacing_mpi_la_LIBADD = $(MPI_LIBS)
endif
pkglib_LTLIBRARIES += throttle/libtopoplace_pacing.la
throttle_libtopoplace_pacing_la_SOURCES = throttle/pacing.c throttle/pacing.h \
	throttle/phase.c throttle/phase.h
throttle_libtopoplace_pacing_la_CFLAGS = $(AM_CFLAGS)
throttle_libtopoplace_pacing_la_LDFLAGS = -module -avoid-version -shared

# Real writes through the library.
check_PROGRAMS += tests/integration/pacing_writer
tests_integration_pacing_writer_SOURCES = tests/integration/pacing_writer.c
tests_integration_pacing_writer_LDADD = -lpthread
TESTS += tests/integration/pacing_preload.sh
dist_check_SCRIPTS += tests/integration/pacing_preload.sh

# `topoplace throttle`
tools_topoplace_SOURCES += tools/cli_throttle.c
dist_man1_MANS += doc/topoplace-throttle.1
dist_man5_MANS += doc/topoplace-sweep.5
TESTS += tests/integration/calibrate_local.sh tests/integration/calibrate_cli.sh
dist_check_SCRIPTS += tests/integration/calibrate_local.sh \
	tests/integration/calibrate_cli.sh
TESTS += tests/integration/pacing_mpi.sh
dist_check_SCRIPTS += tests/integration/pacing_mpi.sh
TESTS += tests/integration/pacing_phase.sh
dist_check_SCRIPTS += tests/integration/pacing_phase.sh
TESTS += tests/integration/pacing_objective_slurm.sh
dist_check_SCRIPTS += tests/integration/pacing_objective_slurm.sh
EXTRA_DIST += tests/integration/pacing_mpi_writer.c \
	tests/fuzz/fuzz_sweep.c \
	tests/fuzz/corpus/sweep/minimal.csv \
	tests/fuzz/corpus/sweep/real-head.csv \
	tests/fuzz/corpus/sweep/knee.csv \
	tests/fuzz/corpus/sweep/table.csv \
	tests/fuzz/corpus/sweep/crlf.csv \
	bench/pacing_bench.sh \
	tests/fuzz/corpus/sweep/v2-victims.csv \
	tests/fuzz/corpus/sweep/table-v2.csv \
	tests/fuzz/corpus/sweep/v3-runs.csv \
	tests/fuzz/corpus/sweep/table-v3.csv
# The shared-link experiment's traffic: I/O clients, sink, victim ping-pong.
check_PROGRAMS += tests/integration/pacing_link
tests_integration_pacing_link_SOURCES = tests/integration/pacing_link.c
tests_integration_pacing_link_LDADD = -lpthread
EXTRA_DIST += bench/pacing_link_bench.sh
TESTS += tests/integration/pacing_link.sh
dist_check_SCRIPTS += tests/integration/pacing_link.sh
EXTRA_DIST += tests/lib/pacing.sh tests/lib/pacing_link.sh

tests_unit_test_phase_SOURCES = tests/unit/test_phase.c
tests_unit_test_phase_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_phase_LDADD = $(TP_UNIT_LDADD)
