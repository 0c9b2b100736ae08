# libtopoplace: the core library.  No Slurm inside; plain structs in, plain
# structs out.  Built as a PIC convenience library linked into the CLI, the
# tests and every Slurm plugin.
noinst_LTLIBRARIES += placement/libtopoplace.la
placement_libtopoplace_la_SOURCES = \
	placement/tp_error.c placement/tp_error.h \
	placement/tp_log.c placement/tp_log.h \
	placement/tp_file.c placement/tp_file.h \
	placement/tp_json.c placement/tp_json.h \
	placement/policy.c placement/policy.h \
	placement/topo.c placement/topo.h
placement_libtopoplace_la_CFLAGS = $(AM_CFLAGS)
placement_libtopoplace_la_LIBADD = $(MATH_LIBS)
