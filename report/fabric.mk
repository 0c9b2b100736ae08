# The fabric view of `topoplace report fabric` (link loads drawn on the tree).
report_libtopoplace_report_la_SOURCES += report/fabric_view.c report/fabric_view.h
report_libtopoplace_report_la_LIBADD += $(MATH_LIBS)

TP_UNIT_TESTS += tests/unit/test_fabric_view
check_PROGRAMS += tests/unit/test_fabric_view
TESTS += tests/unit/test_fabric_view
tests_unit_test_fabric_view_SOURCES = tests/unit/test_fabric_view.c
tests_unit_test_fabric_view_CPPFLAGS = $(AM_CPPFLAGS) -DTP_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_fabric_view_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_fabric_view_LDADD = report/libtopoplace_report.la \
	$(TP_UNIT_LDADD) $(CAIRO_LIBS) $(MATH_LIBS)

tools_topoplace_SOURCES += tools/cli_report_fabric.c

TESTS += tests/integration/cli_report_fabric.sh
dist_check_SCRIPTS += tests/integration/cli_report_fabric.sh
dist_noinst_SCRIPTS += bench/report_bench.sh
