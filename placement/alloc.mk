# Leaf allocation policies, job classes and I/O server placement (issue 5),
# with their unit tests, the `topoplace place` subcommand and the benchmark.
placement_libtopoplace_la_SOURCES += \
	placement/jobclass.c placement/jobclass.h \
	placement/alloc.c placement/alloc.h

TP_ALLOC_UNIT_TESTS = tests/unit/test_jobclass tests/unit/test_alloc
TP_UNIT_TESTS += $(TP_ALLOC_UNIT_TESTS)
check_PROGRAMS += $(TP_ALLOC_UNIT_TESTS)
TESTS += $(TP_ALLOC_UNIT_TESTS)

tests_unit_test_jobclass_SOURCES = tests/unit/test_jobclass.c
tests_unit_test_jobclass_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_jobclass_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_alloc_SOURCES = tests/unit/test_alloc.c
tests_unit_test_alloc_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_alloc_LDADD = $(TP_UNIT_LDADD)

placement_libtopoplace_la_SOURCES += placement/ioserver.c placement/ioserver.h
TP_UNIT_TESTS += tests/unit/test_ioserver
check_PROGRAMS += tests/unit/test_ioserver
TESTS += tests/unit/test_ioserver
tests_unit_test_ioserver_SOURCES = tests/unit/test_ioserver.c
tests_unit_test_ioserver_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_ioserver_LDADD = $(TP_UNIT_LDADD)

# `topoplace place`
tools_topoplace_SOURCES += tools/cli_place.c
dist_man1_MANS += doc/topoplace-place.1
dist_check_SCRIPTS += tests/integration/cli_place.sh
TESTS += tests/integration/cli_place.sh

# What the select adapter knows between job tests: running jobs, their
# recorded decisions and leaf holds (issue 14, item 3; issue 17).
placement_libtopoplace_la_SOURCES += placement/sched_state.c \
	placement/sched_state.h
TP_UNIT_TESTS += tests/unit/test_sched_state
check_PROGRAMS += tests/unit/test_sched_state
TESTS += tests/unit/test_sched_state
tests_unit_test_sched_state_SOURCES = tests/unit/test_sched_state.c
tests_unit_test_sched_state_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_sched_state_LDADD = $(TP_UNIT_LDADD)

# What the select adapter does with a pending job at one scheduling test:
# narrow, wait or fall back (issue #17).
placement_libtopoplace_la_SOURCES += placement/sched_decide.c \
	placement/sched_decide.h
TP_UNIT_TESTS += tests/unit/test_sched_decide
check_PROGRAMS += tests/unit/test_sched_decide
TESTS += tests/unit/test_sched_decide
tests_unit_test_sched_decide_SOURCES = tests/unit/test_sched_decide.c
tests_unit_test_sched_decide_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_sched_decide_LDADD = $(TP_UNIT_LDADD)

# The pending jobs' decisions by job id (bounded, evicts stale ones).
placement_libtopoplace_la_SOURCES += placement/sched_decisions.c \
	placement/sched_decisions.h
TP_UNIT_TESTS += tests/unit/test_sched_decisions
check_PROGRAMS += tests/unit/test_sched_decisions
TESTS += tests/unit/test_sched_decisions
tests_unit_test_sched_decisions_SOURCES = tests/unit/test_sched_decisions.c
tests_unit_test_sched_decisions_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_sched_decisions_LDADD = $(TP_UNIT_LDADD)

# Settling a pending job's profile before its policy is resolved, step by
# step: flags, lookup queued, answer or timeout, and the notes (issue #17).
placement_libtopoplace_la_SOURCES += placement/sched_policy.c \
	placement/sched_policy.h
TP_UNIT_TESTS += tests/unit/test_sched_policy
check_PROGRAMS += tests/unit/test_sched_policy
TESTS += tests/unit/test_sched_policy
tests_unit_test_sched_policy_SOURCES = tests/unit/test_sched_policy.c
tests_unit_test_sched_policy_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_sched_policy_LDADD = $(TP_UNIT_LDADD)
