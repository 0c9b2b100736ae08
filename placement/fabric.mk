# The fabric model (issue 3): discovery sources, the model, routes.
placement_libtopoplace_la_SOURCES += \
	placement/fabric.c placement/fabric.h placement/fabric_internal.h \
	placement/fabric_finish.c placement/fabric_output.c placement/fabric_diff.c \
	placement/discover.c placement/discover.h \
	placement/route.c placement/route.h \
	placement/fabric_name_map.c
placement_libtopoplace_la_CFLAGS += $(IBNETDISC_CFLAGS) $(IBMAD_CFLAGS)
placement_libtopoplace_la_LIBADD += $(IBNETDISC_LIBS) $(IBMAD_LIBS)

# `topoplace fabric ...`
tools_topoplace_SOURCES += tools/cli_fabric.c
dist_man1_MANS += doc/topoplace-fabric.1

# Unit tests (data: tests/data/fabric, see its README.md).
TP_FABRIC_UNIT_TESTS = tests/unit/test_fabric tests/unit/test_topology_conf \
	tests/unit/test_route
TP_UNIT_TESTS += $(TP_FABRIC_UNIT_TESTS)
check_PROGRAMS += $(TP_FABRIC_UNIT_TESTS)
TESTS += $(TP_FABRIC_UNIT_TESTS)
TP_FABRIC_TEST_CPPFLAGS = $(AM_CPPFLAGS) -DTP_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_fabric_SOURCES = tests/unit/test_fabric.c
tests_unit_test_fabric_CPPFLAGS = $(TP_FABRIC_TEST_CPPFLAGS)
tests_unit_test_fabric_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_fabric_LDADD = $(TP_UNIT_LDADD)
tests_unit_test_topology_conf_SOURCES = tests/unit/test_topology_conf.c
tests_unit_test_topology_conf_CPPFLAGS = $(TP_FABRIC_TEST_CPPFLAGS)
tests_unit_test_topology_conf_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_topology_conf_LDADD = $(TP_UNIT_LDADD)
tests_unit_test_route_SOURCES = tests/unit/test_route.c
tests_unit_test_route_CPPFLAGS = $(TP_FABRIC_TEST_CPPFLAGS)
tests_unit_test_route_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_route_LDADD = $(TP_UNIT_LDADD)
EXTRA_DIST += tests/data/fabric/README.md tests/data/fabric/make-caches.sh \
	tests/data/fabric/irregular.net tests/data/fabric/irregular.map \
	tests/data/fabric/fat-4x4.cache tests/data/fabric/fat3-2x2x2.cache \
	tests/data/fabric/irregular.cache

# Integration tests: real libibnetdisc against ibsim, real OpenSM, a real
# slurmctld for the written topology.conf (see each script's header).
TP_FABRIC_INTEGRATION = tests/integration/fabric_discover.sh \
	tests/integration/fabric_routes.sh tests/integration/fabric_faults.sh \
	tests/integration/fabric_errors.sh tests/integration/fabric_load.sh
TESTS += $(TP_FABRIC_INTEGRATION)
dist_check_SCRIPTS += $(TP_FABRIC_INTEGRATION) tests/integration/fabric_slurm.sh
if WITH_SLURM
TESTS += tests/integration/fabric_slurm.sh
endif
EXTRA_DIST += tests/integration/fabric_common.sh \
	tests/fuzz/fuzz_topology_conf.c tests/fuzz/fuzz_fabric_cache.c \
	tests/fuzz/corpus/topology_conf tests/fuzz/corpus/fabric_cache \
	bench/fabric_bench.sh
