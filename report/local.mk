# libtopoplace_report: the pictures of `topoplace report` (hop-class
# histograms, heatmaps, fabric link loads, I/O curves), drawn with cairo.
# Kept apart from libtopoplace so the Slurm plugins do not pull in cairo.
noinst_LTLIBRARIES += report/libtopoplace_report.la
report_libtopoplace_report_la_SOURCES = \
	report/canvas.c report/canvas.h \
	report/chart.c report/chart.h \
	report/hops.c report/hops.h \
	report/heatmap.c report/heatmap.h \
	report/iocurve.c report/iocurve.h \
	report/explain.c report/explain.h
report_libtopoplace_report_la_CFLAGS = $(AM_CFLAGS) $(CAIRO_CFLAGS)
report_libtopoplace_report_la_LIBADD = $(CAIRO_LIBS) $(MATH_LIBS)
# Users link placement/libtopoplace.la themselves (one copy of the core).

# `topoplace report` (its `fabric` kind is in report/fabric.mk).
tools_topoplace_SOURCES += tools/cli_report.c
dist_man1_MANS += doc/topoplace-report.1

# Unit tests of the reports (PNG/SVG read back with cairo).
TP_REPORT_UNIT_TESTS = tests/unit/test_canvas tests/unit/test_report_hops \
	tests/unit/test_report_heatmap tests/unit/test_report_iocurve \
	tests/unit/test_report_explain
TP_UNIT_TESTS += $(TP_REPORT_UNIT_TESTS)
check_PROGRAMS += $(TP_REPORT_UNIT_TESTS)
TESTS += $(TP_REPORT_UNIT_TESTS)
TP_REPORT_TEST_LDADD = report/libtopoplace_report.la placement/libtopoplace.la \
	$(CAIRO_LIBS) $(CMOCKA_LIBS) $(MATH_LIBS)
EXTRA_DIST += tests/unit/test_report_svg.h

tests_unit_test_canvas_SOURCES = tests/unit/test_canvas.c
tests_unit_test_canvas_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_canvas_LDADD = $(TP_REPORT_TEST_LDADD)

tests_unit_test_report_hops_SOURCES = tests/unit/test_report_hops.c
tests_unit_test_report_hops_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_report_hops_LDADD = $(TP_REPORT_TEST_LDADD)

tests_unit_test_report_heatmap_SOURCES = tests/unit/test_report_heatmap.c
tests_unit_test_report_heatmap_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_report_heatmap_LDADD = $(TP_REPORT_TEST_LDADD)

tests_unit_test_report_iocurve_SOURCES = tests/unit/test_report_iocurve.c
tests_unit_test_report_iocurve_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_report_iocurve_LDADD = $(TP_REPORT_TEST_LDADD)

tests_unit_test_report_explain_SOURCES = tests/unit/test_report_explain.c
tests_unit_test_report_explain_CFLAGS = $(TP_UNIT_CFLAGS) $(CAIRO_CFLAGS)
tests_unit_test_report_explain_LDADD = $(TP_REPORT_TEST_LDADD)

dist_check_SCRIPTS += tests/integration/cli_report.sh
TESTS += tests/integration/cli_report.sh
# Synthetic sweeps with known answers, read by cli_report.sh, cli_json.sh
# and calibrate_cli.sh.
EXTRA_DIST += tests/lib/sweeps.sh
