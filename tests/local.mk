# Unit tests of the core (cmocka) and the project's own integration tests.
# Fabric fixtures live in tests/fabric.mk, the cluster test bed in
# tests/cluster.mk.

TP_UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
TP_UNIT_LDADD = placement/libtopoplace.la $(CMOCKA_LIBS)

TP_CORE_UNIT_TESTS = tests/unit/test_error tests/unit/test_policy \
	tests/unit/test_spank_env tests/unit/test_topo tests/unit/test_file \
	tests/unit/test_json
TP_UNIT_TESTS += $(TP_CORE_UNIT_TESTS)
check_PROGRAMS += $(TP_CORE_UNIT_TESTS)
TESTS += $(TP_CORE_UNIT_TESTS)

tests_unit_test_error_SOURCES = tests/unit/test_error.c
tests_unit_test_error_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_error_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_policy_SOURCES = tests/unit/test_policy.c
tests_unit_test_policy_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_policy_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_file_SOURCES = tests/unit/test_file.c
tests_unit_test_file_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_file_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_json_SOURCES = tests/unit/test_json.c
tests_unit_test_json_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_json_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)

tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_topo_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_spank_env_SOURCES = tests/unit/test_spank_env.c \
	slurm-plugin/spank_env.c slurm-plugin/spank_env.h
tests_unit_test_spank_env_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/slurm-plugin
tests_unit_test_spank_env_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_spank_env_LDADD = $(TP_UNIT_LDADD)

# The plugin slice runs the real daemons with the plugins from this tree.
if WITH_SLURM
TESTS += tests/integration/plugin_slice.sh
endif
dist_check_SCRIPTS += tests/integration/plugin_slice.sh

# The core's unit tests alone, for the sanitizer and valgrind passes
# (tests/run-all): `make check-unit`.  Other fragments add theirs to
# TP_UNIT_TESTS (and to check_PROGRAMS and TESTS).
.PHONY: check-unit
check-unit:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(TP_UNIT_TESTS)"

CLEANFILES += tests/integration/plugin_slice.plugstack.conf
clean-local: tp-clean-keep
tp-clean-keep:
	rm -rf tests/integration/*.keep

# Real communication matrices from mini-apps (see tests/data/matrices/README.md).
EXTRA_DIST += \
	tests/data/matrices/CoMD-128.txt \
	tests/data/matrices/CoMD-128.txt.coll \
	tests/data/matrices/CoMD-16.txt \
	tests/data/matrices/CoMD-16.txt.coll \
	tests/data/matrices/CoMD-64.txt \
	tests/data/matrices/CoMD-64.txt.coll \
	tests/data/matrices/HPCG-128.txt \
	tests/data/matrices/HPCG-128.txt.coll \
	tests/data/matrices/HPCG-16.txt \
	tests/data/matrices/HPCG-16.txt.coll \
	tests/data/matrices/HPCG-64.txt \
	tests/data/matrices/HPCG-64.txt.coll \
	tests/data/matrices/LULESH-125.txt \
	tests/data/matrices/LULESH-125.txt.coll \
	tests/data/matrices/LULESH-27.txt \
	tests/data/matrices/LULESH-27.txt.coll \
	tests/data/matrices/LULESH-64.txt \
	tests/data/matrices/LULESH-64.txt.coll \
	tests/data/matrices/LULESH-8.txt \
	tests/data/matrices/LULESH-8.txt.coll \
	tests/data/matrices/NPB-MG.A-128.txt \
	tests/data/matrices/NPB-MG.A-128.txt.coll \
	tests/data/matrices/NPB-MG.A-16.txt \
	tests/data/matrices/NPB-MG.A-16.txt.coll \
	tests/data/matrices/NPB-MG.A-64.txt \
	tests/data/matrices/NPB-MG.A-64.txt.coll \
	tests/data/matrices/README.md \
	tests/data/matrices/miniFE-128.txt \
	tests/data/matrices/miniFE-128.txt.coll \
	tests/data/matrices/miniFE-16.txt \
	tests/data/matrices/miniFE-16.txt.coll \
	tests/data/matrices/miniFE-64.txt \
	tests/data/matrices/miniFE-64.txt.coll \
	tests/data/matrices/miniGhost-128.txt \
	tests/data/matrices/miniGhost-128.txt.coll \
	tests/data/matrices/miniGhost-16.txt \
	tests/data/matrices/miniGhost-16.txt.coll \
	tests/data/matrices/miniGhost-64.txt \
	tests/data/matrices/miniGhost-64.txt.coll

# The load benchmark's trace cutting, scaling and figures (bench/load_*),
# without a cluster; the benchmark itself is not part of check.
TESTS += tests/integration/bench_load_smoke.sh
dist_check_SCRIPTS += tests/integration/bench_load_smoke.sh
EXTRA_DIST += bench/load_bench.sh bench/load_prep.awk bench/load_report.awk \
	bench/load_predict.sh bench/load_decisions.sh bench/load_waits.sh \
	bench/traces/README.md bench/traces/LLNL-Atlas-2006-2.1-cln.swf.gz

# The profile coverage benchmark's figures (bench/profile_coverage_*, issue
# #18) on hand-made records; the benchmark itself is not part of check.
TESTS += tests/integration/bench_coverage_smoke.sh
dist_check_SCRIPTS += tests/integration/bench_coverage_smoke.sh
EXTRA_DIST += bench/profile_coverage_bench.sh bench/profile_coverage_report.awk

# The recorded-run overhead benchmark (bench/record_overhead_bench.sh, issue
# #18) in its SMOKE mode: one small callgrind pair and 3 wall pairs, checked.
TESTS += tests/integration/bench_overhead_smoke.sh
dist_check_SCRIPTS += tests/integration/bench_overhead_smoke.sh
EXTRA_DIST += bench/record_overhead_bench.sh bench/record_job_bench.sh \
	bench/lammps_lj.in bench/finalize_delta.awk \
	bench/profiler_build.sh \
	bench/callgrind_cost.awk bench/paired_stats.awk
