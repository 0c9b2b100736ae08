# Rank remapping, cost model, traffic matrices and rankfile writers
# (issue 5).  Core sources go into libtopoplace.
placement_libtopoplace_la_SOURCES += \
	placement/traffic.c placement/traffic.h \
	placement/cost.c placement/cost.h \
	placement/remap.c placement/remap.h \
	placement/remap_rank_cost.c placement/remap_rank_cost.h \
	placement/remap_scotch.c placement/remap_scotch.h \
	placement/rankfile.c placement/rankfile.h
placement_libtopoplace_la_LIBADD += $(METIS_LIBS) $(SCOTCH_LIBS)

TP_REMAP_UNIT_TESTS = tests/unit/test_traffic tests/unit/test_cost \
	tests/unit/test_remap tests/unit/test_rankfile \
	tests/unit/test_remap_peers tests/unit/test_remap_scotch
TP_UNIT_TESTS += $(TP_REMAP_UNIT_TESTS)
check_PROGRAMS += $(TP_REMAP_UNIT_TESTS)
TESTS += $(TP_REMAP_UNIT_TESTS)

tests_unit_test_traffic_SOURCES = tests/unit/test_traffic.c
tests_unit_test_traffic_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_traffic_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_cost_SOURCES = tests/unit/test_cost.c
tests_unit_test_cost_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_cost_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)

# Per-link load of a job's MPI traffic over the fabric's routes (cost
# model, "per-link loads"): fabrics from topology.conf text, D-mod-k routes.
TP_UNIT_TESTS += tests/unit/test_cost_links
check_PROGRAMS += tests/unit/test_cost_links
TESTS += tests/unit/test_cost_links
tests_unit_test_cost_links_SOURCES = tests/unit/test_cost_links.c
tests_unit_test_cost_links_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_cost_links_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)
# `topoplace cost` link loads: topology.conf, a 3-level cache, live ibsim.
dist_check_SCRIPTS += tests/integration/cli_cost.sh
TESTS += tests/integration/cli_cost.sh

tests_unit_test_remap_SOURCES = tests/unit/test_remap.c
tests_unit_test_remap_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_remap_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_remap_scotch_SOURCES = tests/unit/test_remap_scotch.c \
	tests/unit/test_remap_groups.h
tests_unit_test_remap_scotch_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_remap_scotch_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_remap_peers_SOURCES = tests/unit/test_remap_peers.c \
	tests/unit/test_stencil.h
tests_unit_test_remap_peers_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_remap_peers_LDADD = $(TP_UNIT_LDADD)

# The refinement's per-rank costs, kept by moves (issue 16).
TP_UNIT_TESTS += tests/unit/test_remap_rank_cost
check_PROGRAMS += tests/unit/test_remap_rank_cost
TESTS += tests/unit/test_remap_rank_cost
tests_unit_test_remap_rank_cost_SOURCES = tests/unit/test_remap_rank_cost.c
tests_unit_test_remap_rank_cost_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_remap_rank_cost_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_rankfile_SOURCES = tests/unit/test_rankfile.c
tests_unit_test_rankfile_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_rankfile_LDADD = $(TP_UNIT_LDADD)

# Fragmented allocations (issue 16): never above block nor METIS-rb.
TP_UNIT_TESTS += tests/unit/test_remap_fragmented
check_PROGRAMS += tests/unit/test_remap_fragmented
TESTS += tests/unit/test_remap_fragmented
# Its METIS-rb oracle is bench/peer_bench's peer, one copy for both.
tests_unit_test_remap_fragmented_SOURCES = tests/unit/test_remap_fragmented.c \
	tests/unit/test_stencil.h \
	bench/metis_rb.c bench/metis_rb.h
tests_unit_test_remap_fragmented_CFLAGS = $(TP_UNIT_CFLAGS) -I$(srcdir)/bench
tests_unit_test_remap_fragmented_LDADD = $(TP_UNIT_LDADD) $(METIS_LIBS) $(MATH_LIBS)
# And its Scotch oracle, bench/peer_bench's Scotch peer, where configure
# found Scotch.
if HAVE_SCOTCH
tests_unit_test_remap_fragmented_SOURCES += bench/scotch_peer.c \
	bench/scotch_peer.h bench/pareto_graph.c bench/pareto_graph.h
tests_unit_test_remap_fragmented_LDADD += $(SCOTCH_LIBS)
# Scotch failing under the remapper (SCOTCH_graphMap interposed): the job
# keeps a mapping, the warning says why.
TP_UNIT_TESTS += tests/unit/test_remap_scotch_faults
check_PROGRAMS += tests/unit/test_remap_scotch_faults
TESTS += tests/unit/test_remap_scotch_faults
endif
tests_unit_test_remap_scotch_faults_SOURCES = \
	tests/unit/test_remap_scotch_faults.c tests/unit/test_remap_groups.h
tests_unit_test_remap_scotch_faults_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_remap_scotch_faults_LDADD = $(TP_UNIT_LDADD) $(SCOTCH_LIBS) \
	-ldl


# Mapping quality and time side by side (figures only; see bench/RESULTS.md).
noinst_PROGRAMS += bench/remap_bench
bench_remap_bench_SOURCES = bench/remap_bench.c
bench_remap_bench_LDADD = placement/libtopoplace.la

# Fuzz target and its seeds (built by the lead's fuzz script, not by make).
EXTRA_DIST += tests/fuzz/fuzz_traffic.c \
	tests/fuzz/corpus/traffic/lulesh8.txt \
	tests/fuzz/corpus/traffic/noheader.txt \
	tests/fuzz/corpus/traffic/header_crlf.txt \
	tests/fuzz/corpus/traffic/overflow.txt

# `topoplace remap` / `topoplace cost`, their man pages and integration
# tests (cli_remap.sh: CLI output and errors; rankfile_mpirun.sh: the files
# launched with Open MPI's mpirun and with srun -m arbitrary in a tp-bed).
tools_topoplace_SOURCES += tools/cli_remap.c \
	tools/cli_cost.c tools/cli_cost_busy.c
dist_man1_MANS += doc/topoplace-remap.1 doc/topoplace-cost.1
dist_check_SCRIPTS += tests/integration/cli_remap.sh \
	tests/integration/rankfile_mpirun.sh
# cost --busy: predictions for running jobs (issue #15, the load bench).
dist_check_SCRIPTS += tests/integration/cli_cost_busy.sh
TESTS += tests/integration/cli_cost_busy.sh
TESTS += tests/integration/cli_remap.sh tests/integration/rankfile_mpirun.sh
