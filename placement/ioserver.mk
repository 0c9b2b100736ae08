# Per-link load of a job's I/O over the fabric's routes (issue 5, I/O server
# placement "with real routes"): unit test and the ibsim integration test.
TP_UNIT_TESTS += tests/unit/test_ioserver_links
check_PROGRAMS += tests/unit/test_ioserver_links
TESTS += tests/unit/test_ioserver_links
tests_unit_test_ioserver_links_SOURCES = tests/unit/test_ioserver_links.c
tests_unit_test_ioserver_links_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_ioserver_links_LDADD = $(TP_UNIT_LDADD) $(MATH_LIBS)
dist_check_SCRIPTS += tests/integration/ioserver_routes.sh
TESTS += tests/integration/ioserver_routes.sh
tests_unit_test_ioserver_links_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTP_TOP_SRCDIR='"$(abs_top_srcdir)"'
