# libtopoplace_report: the pictures of `topoplace report` (hop-class
# histograms, heatmaps, fabric link loads, I/O curves), drawn with cairo.
# Kept apart from libtopoplace so the Slurm plugins do not pull in cairo.
noinst_LTLIBRARIES += report/libtopoplace_report.la
report_libtopoplace_report_la_SOURCES = \
	report/canvas.c report/canvas.h
report_libtopoplace_report_la_CFLAGS = $(AM_CFLAGS) $(CAIRO_CFLAGS)
report_libtopoplace_report_la_LIBADD = $(CAIRO_LIBS)
# Users link placement/libtopoplace.la themselves (one copy of the core).
