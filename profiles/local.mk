# profiles/: the profile format, the munge-signed store, importers and
# exporters (all in the core library), the `topoplace profile` subcommand
# and their tests.
placement_libtopoplace_la_SOURCES += \
	profiles/sha256.c profiles/sha256.h \
	profiles/profile.c profiles/profile.h \
	profiles/exec_id.c profiles/exec_id.h \
	profiles/exec_match.c profiles/exec_match.h \
	profiles/store.c profiles/store.h \
	profiles/summary.c profiles/summary.h \
	profiles/munge_auth.c profiles/munge_auth.h \
	profiles/convert.c profiles/convert.h \
	profiles/record_policy.c profiles/record_policy.h \
	profiles/app_identity.c profiles/app_identity.h \
	profiles/app_summary.c profiles/app_summary.h \
	profiles/scale.c profiles/scale.h \
	profiles/scale_rule.c profiles/scale_rule.h
placement_libtopoplace_la_CFLAGS += $(MUNGE_CFLAGS)
placement_libtopoplace_la_LIBADD += $(MUNGE_LIBS)

# `topoplace profile`
tools_topoplace_SOURCES += tools/cli_profile.c
dist_man1_MANS += doc/topoplace-profile.1
dist_man5_MANS += doc/topoplace-profile.5

TP_PROFILE_UNIT_TESTS = tests/unit/test_profile_format \
	tests/unit/test_stencil_scale tests/unit/test_scale_rule \
	tests/unit/test_profile_store tests/unit/test_profile_convert
TP_UNIT_TESTS += $(TP_PROFILE_UNIT_TESTS)
check_PROGRAMS += $(TP_PROFILE_UNIT_TESTS)
TESTS += $(TP_PROFILE_UNIT_TESTS)

tests_unit_test_profile_format_SOURCES = tests/unit/test_profile_format.c
tests_unit_test_profile_format_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_profile_format_LDADD = $(TP_UNIT_LDADD)

# A profile's stencil found and rebuilt at another size (profiles/scale.h).
tests_unit_test_stencil_scale_SOURCES = tests/unit/test_stencil_scale.c
tests_unit_test_stencil_scale_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_stencil_scale_LDADD = $(TP_UNIT_LDADD)
EXTRA_DIST += bench/scale_bench.sh

# Whether a profile scales to a job of another size (profiles/scale_rule.h),
# on the real runs of tests/data/matrices.
tests_unit_test_scale_rule_SOURCES = tests/unit/test_scale_rule.c
tests_unit_test_scale_rule_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTP_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_scale_rule_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_scale_rule_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_profile_store_SOURCES = tests/unit/test_profile_store.c
tests_unit_test_profile_store_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_profile_store_LDADD = $(TP_UNIT_LDADD)

tests_unit_test_profile_convert_SOURCES = tests/unit/test_profile_convert.c
tests_unit_test_profile_convert_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTP_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_profile_convert_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_profile_convert_LDADD = $(TP_UNIT_LDADD)

# Test fixtures and where they came from.
EXTRA_DIST += profiles/testdata/ompi-ring4/README.md \
	profiles/testdata/ompi-ring4/ring.c \
	profiles/testdata/ompi-ring4/prof.0.prof \
	profiles/testdata/ompi-ring4/prof.1.prof \
	profiles/testdata/ompi-ring4/prof.2.prof \
	profiles/testdata/ompi-ring4/prof.3.prof

# Reading speed of profiles vs the text matrices (prints figures only; see
# bench/RESULTS.md).
noinst_PROGRAMS += bench/profile_bench
bench_profile_bench_SOURCES = bench/profile_bench.c
bench_profile_bench_LDADD = placement/libtopoplace.la

# Real munged, real users: run by `make check` as root (skips otherwise).
# It drives `tools/topoplace profile`.
TESTS += tests/integration/profile_store_munge.sh
dist_check_SCRIPTS += tests/integration/profile_store_munge.sh

# libFuzzer targets and seeds (built by the lead's fuzz script).
EXTRA_DIST += tests/fuzz/fuzz_profile.c tests/fuzz/fuzz_ompi_monitoring.c \
	tests/fuzz/fuzz_profile_coll.c \
	tests/fuzz/corpus/profile/lulesh8-unsigned.tpp \
	tests/fuzz/corpus/profile/lulesh8-signed.tpp \
	tests/fuzz/corpus/profile/ring4-ompi.tpp \
	tests/fuzz/corpus/profile/ring4-exec-1.1.tpp \
	tests/fuzz/corpus/profile/ring4-args-1.2.tpp \
	tests/fuzz/corpus/ompi_monitoring/ring4-rank0.prof \
	tests/fuzz/corpus/ompi_monitoring/ring4-rank3.prof \
	tests/fuzz/corpus/profile_coll/LULESH-27.txt.coll \
	tests/fuzz/corpus/profile_coll/HPCG-16.txt.coll

# The summary parser's fuzz target and seeds (tests/fuzz/run).
EXTRA_DIST += tests/fuzz/fuzz_summary.c tests/fuzz/corpus/summary/valid \
	tests/fuzz/corpus/summary/version2 tests/fuzz/corpus/summary/version3 \
	tests/fuzz/corpus/summary/version4
# The site's recording policy (ProfileRecord; issue #18).
TP_UNIT_TESTS += tests/unit/test_record_policy
check_PROGRAMS += tests/unit/test_record_policy
TESTS += tests/unit/test_record_policy
tests_unit_test_record_policy_SOURCES = tests/unit/test_record_policy.c
tests_unit_test_record_policy_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_record_policy_LDADD = $(TP_UNIT_LDADD)

# Script keys: a batch job's application beyond its job name (issue #18).
TP_UNIT_TESTS += tests/unit/test_identity
check_PROGRAMS += tests/unit/test_identity
TESTS += tests/unit/test_identity
tests_unit_test_identity_SOURCES = tests/unit/test_identity.c
tests_unit_test_identity_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_identity_LDADD = $(TP_UNIT_LDADD)

# The store's runs per application (`topoplace profile list --apps`).
TP_UNIT_TESTS += tests/unit/test_app_summary
check_PROGRAMS += tests/unit/test_app_summary
TESTS += tests/unit/test_app_summary
tests_unit_test_app_summary_SOURCES = tests/unit/test_app_summary.c
tests_unit_test_app_summary_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_app_summary_LDADD = $(TP_UNIT_LDADD)

# What a run ran: executable hash, layout, their summary lines (issue #18).
TP_UNIT_TESTS += tests/unit/test_exec_id
check_PROGRAMS += tests/unit/test_exec_id
TESTS += tests/unit/test_exec_id
tests_unit_test_exec_id_SOURCES = tests/unit/test_exec_id.c
tests_unit_test_exec_id_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_exec_id_LDADD = $(TP_UNIT_LDADD)

# A step's application by its executable: the bounded store scan, the
# run chosen, the command found as execvp finds it (issue #18).
TP_UNIT_TESTS += tests/unit/test_exec_match
check_PROGRAMS += tests/unit/test_exec_match
TESTS += tests/unit/test_exec_match
tests_unit_test_exec_match_SOURCES = tests/unit/test_exec_match.c
tests_unit_test_exec_match_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_exec_match_LDADD = $(TP_UNIT_LDADD)
