# A job's preparation on its nodes (issue 17): what slurmd decides for a
# batch job before its script starts (remapping, I/O servers, throttle
# window, the site's recording) and the throttle decision slurmstepd
# shares, with no Slurm inside.  jobprep/ sits above config/: it reads the
# settings topoplace.conf gives and calls placement/, profiles/ and
# throttle/.
placement_libtopoplace_la_SOURCES += \
	jobprep/batch_prep.c jobprep/batch_prep.h \
	jobprep/child_records.c jobprep/child_records.h \
	jobprep/prep_throttle.c jobprep/prep_throttle.h

TP_UNIT_TESTS += tests/unit/test_batch_prep
check_PROGRAMS += tests/unit/test_batch_prep
TESTS += tests/unit/test_batch_prep
tests_unit_test_batch_prep_SOURCES = tests/unit/test_batch_prep.c
tests_unit_test_batch_prep_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_batch_prep_LDADD = $(TP_UNIT_LDADD)

TP_UNIT_TESTS += tests/unit/test_child_records
check_PROGRAMS += tests/unit/test_child_records
TESTS += tests/unit/test_child_records
tests_unit_test_child_records_SOURCES = tests/unit/test_child_records.c
tests_unit_test_child_records_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_child_records_LDADD = $(TP_UNIT_LDADD)
