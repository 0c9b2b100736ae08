# common/: the ground floor of the core library: errors with context
# (tp_error), the caller's log sink (tp_log), bounded file reads (tp_file),
# the JSON writer (tp_json) and strict parsing of durations and byte counts
# (units).  Nothing here includes a header from another directory.
placement_libtopoplace_la_SOURCES += \
	common/tp_error.c common/tp_error.h \
	common/tp_log.c common/tp_log.h \
	common/tp_file.c common/tp_file.h \
	common/tp_json.c common/tp_json.h \
	common/units.c common/units.h

# Slurm hostlist expressions and the growing string, one copy each.
placement_libtopoplace_la_SOURCES += \
	common/hostlist.c common/hostlist.h \
	common/tp_strbuf.c common/tp_strbuf.h

# METIS's prints and SIGTERM trap kept from the remapper's caller
# (tp_quiet.h).
placement_libtopoplace_la_SOURCES += common/tp_quiet.c common/tp_quiet.h

# The words for a profile key's source, shared by profiles/app_identity
# (slurmd's job output) and placement/sched_policy (SystemComment).
placement_libtopoplace_la_SOURCES += \
	common/tp_identity_source.c common/tp_identity_source.h

TP_COMMON_UNIT_TESTS = tests/unit/test_hostlist tests/unit/test_strbuf \
	tests/unit/test_quiet
TP_UNIT_TESTS += $(TP_COMMON_UNIT_TESTS)
check_PROGRAMS += $(TP_COMMON_UNIT_TESTS)
TESTS += $(TP_COMMON_UNIT_TESTS)
tests_unit_test_hostlist_SOURCES = tests/unit/test_hostlist.c
tests_unit_test_hostlist_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_hostlist_LDADD = $(TP_UNIT_LDADD)
tests_unit_test_strbuf_SOURCES = tests/unit/test_strbuf.c
tests_unit_test_strbuf_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_strbuf_LDADD = $(TP_UNIT_LDADD)
tests_unit_test_quiet_SOURCES = tests/unit/test_quiet.c tests/unit/test_stencil.h
tests_unit_test_quiet_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_quiet_LDADD = $(TP_UNIT_LDADD)
