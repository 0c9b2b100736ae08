# Fabric fixtures and their tests (included by the top Makefile.am):
#  - tests/unit/test_fattree: cmocka tests of the generator (tools/fattree.c);
#  - tests/integration/ibnd_leaves: libibnetdisc discovery + BFS levelling,
#    printing the leaves and their hosts (used by the smoke tests);
#  - smoke tests on a simulated fabric (ibsim, libumad2sim, OpenSM), run in
#    private namespaces by tests/lib/fabric.sh; they exit 77 (skipped) when a
#    program is missing, unless TOPOPLACE_REQUIRE_ALL=1.

TP_FATTREE_UNIT_TESTS = tests/unit/test_fattree
TP_UNIT_TESTS += $(TP_FATTREE_UNIT_TESTS)
check_PROGRAMS += $(TP_FATTREE_UNIT_TESTS) tests/integration/ibnd_leaves
TESTS += $(TP_FATTREE_UNIT_TESTS)

tests_unit_test_fattree_SOURCES = tests/unit/test_fattree.c \
	tools/fattree.c tools/fattree.h
tests_unit_test_fattree_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_unit_test_fattree_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fattree_LDADD = $(CMOCKA_LIBS)

tests_integration_ibnd_leaves_SOURCES = tests/integration/ibnd_leaves.c
tests_integration_ibnd_leaves_CFLAGS = $(AM_CFLAGS) $(IBNETDISC_CFLAGS)
tests_integration_ibnd_leaves_LDADD = $(IBNETDISC_LIBS)

TP_FATTREE_SMOKE_TESTS = \
	tests/integration/smoke_fabric_discover.sh \
	tests/integration/smoke_opensm_ftree.sh
TESTS += $(TP_FATTREE_SMOKE_TESTS)
dist_check_SCRIPTS += $(TP_FATTREE_SMOKE_TESTS)
EXTRA_DIST += tests/lib/fabric.sh
