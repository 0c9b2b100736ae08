# libtopoplace: the core library.  No Slurm inside; plain structs in, plain
# structs out.  Built as a PIC convenience library linked into the CLI, the
# tests and every Slurm plugin.  One library for every floor of the core:
# common/, profiles/, throttle/ and config/ add their sources to it.
noinst_LTLIBRARIES += placement/libtopoplace.la
placement_libtopoplace_la_SOURCES = \
	placement/policy.c placement/policy.h \
	placement/topo.c placement/topo.h
placement_libtopoplace_la_CFLAGS = $(AM_CFLAGS)
placement_libtopoplace_la_LIBADD = $(MATH_LIBS)
