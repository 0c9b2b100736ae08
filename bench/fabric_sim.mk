# The packet-level fat-tree model for throttle windows (issue 19 goal 3;
# figures in bench/RESULTS.md, run by bench/fabric_sim_bench.sh and
# bench/ioserver_sim_bench.sh, not in CI).
# Included from the top Makefile.am:  include $(srcdir)/bench/fabric_sim.mk
noinst_PROGRAMS += bench/fabric_sim
bench_fabric_sim_SOURCES = bench/fabric_sim.c
bench_fabric_sim_LDADD = placement/libtopoplace.la
EXTRA_DIST += bench/fabric_sim_bench.sh bench/ioserver_sim_bench.sh
# Its smoke test: small runs with answers known from the parameters.
TESTS += tests/integration/fabric_sim.sh
dist_check_SCRIPTS += tests/integration/fabric_sim.sh
