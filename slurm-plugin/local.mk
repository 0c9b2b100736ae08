# Slurm plugins: thin adapters between Slurm and libtopoplace.
#
# Built against Slurm's internal headers (configure --with-slurm-source),
# linked against no Slurm library: symbols resolve from the loading daemon
# (slurmctld, slurmstepd) or client at load time.  Installed into Slurm's
# plugin directory.
if WITH_SLURM
slurmplugindir = $(SLURM_PLUGIN_DIR)
slurmplugin_LTLIBRARIES = \
	slurm-plugin/select_topoplace_cons_tres.la \
	slurm-plugin/task_topoplace.la \
	slurm-plugin/spank_topoplace.la

# Slurm's headers do not survive our strictest warnings; plugins get the
# common set, still as errors in CI.
TP_PLUGIN_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers \
	$(TP_WERROR)
TP_PLUGIN_CPPFLAGS = $(SLURM_CPPFLAGS) -I$(top_srcdir)/common \
	-I$(top_srcdir)/placement -I$(top_srcdir)/profiles -I$(top_srcdir)/throttle \
	-I$(top_srcdir)/config -I$(top_srcdir)/jobprep \
	-I$(top_srcdir)/slurm-plugin
TP_PLUGIN_LDFLAGS = -module -avoid-version -shared

slurm_plugin_select_topoplace_cons_tres_la_SOURCES = \
	slurm-plugin/tp_profile_lookup.c slurm-plugin/tp_profile_lookup.h \
	slurm-plugin/select_topoplace_cons_tres.c \
	slurm-plugin/tp_select_model.c slurm-plugin/tp_select_model.h \
	slurm-plugin/tp_select_ops.h slurm-plugin/tp_select_ops_22_05.h \
	slurm-plugin/tp_select_ops_24_11.h slurm-plugin/tp_slurm_compat.h \
	slurm-plugin/tp_slurm_acct.c slurm-plugin/tp_slurm_acct.h \
	slurm-plugin/spank_env.c slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_core.h \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/tp_slurm_fabric.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_select_topoplace_cons_tres_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_select_topoplace_cons_tres_la_LIBADD = placement/libtopoplace.la

slurm_plugin_task_topoplace_la_SOURCES = \
	slurm-plugin/task_topoplace.c \
	slurm-plugin/tp_slurm_compat.c slurm-plugin/tp_slurm_compat.h \
	slurm-plugin/spank_env.c slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_core.h \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/tp_slurm_fabric.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_task_topoplace_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_task_topoplace_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS) \
	-DTP_PKGLIBDIR='"$(pkglibdir)"'
slurm_plugin_task_topoplace_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_task_topoplace_la_LIBADD = placement/libtopoplace.la

# The SPANK plugin needs only Slurm's public headers; in srun it maps
# profiles for interactive jobs with the task plugin's code.
slurm_plugin_spank_topoplace_la_SOURCES = slurm-plugin/spank_topoplace.c \
	slurm-plugin/spank_env.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_core.h \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/tp_slurm_fabric.h \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_options.h
slurm_plugin_spank_topoplace_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
slurm_plugin_spank_topoplace_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
slurm_plugin_spank_topoplace_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
slurm_plugin_spank_topoplace_la_LIBADD = placement/libtopoplace.la

endif

# End-to-end tests on tp-bed (root; skipped elsewhere).
if WITH_SLURM
TESTS += tests/integration/slurm_place.sh tests/integration/slurm_record.sh \
	tests/integration/slurm_scale.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_place.sh \
	tests/integration/slurm_record.sh tests/integration/slurm_scale.sh
# task/topoplace: job directories, I/O servers, throttled interactive steps.
if WITH_SLURM
TESTS += tests/integration/slurm_task.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_task.sh
EXTRA_DIST += tests/fuzz/fuzz_spank_options.c \
	tests/fuzz/corpus/spank_options/placement-leaf \
	tests/fuzz/corpus/spank_options/comm-profile \
	tests/fuzz/corpus/spank_options/comm-record-empty \
	tests/fuzz/corpus/spank_options/rank-remap \
	tests/fuzz/corpus/spank_options/io-servers \
	tests/fuzz/corpus/spank_options/io-throttle \
	bench/slurm_jobtest_bench.sh tests/lib/slurm_place_lib.sh

# Profiles of known class for slurm_place.sh.
check_PROGRAMS += tests/integration/slurm_profile_gen
tests_integration_slurm_profile_gen_SOURCES = \
	tests/integration/slurm_profile_gen.c
tests_integration_slurm_profile_gen_CPPFLAGS = -I$(top_srcdir)/common \
	-I$(top_srcdir)/placement -I$(top_srcdir)/profiles
tests_integration_slurm_profile_gen_LDADD = placement/libtopoplace.la

# The plugins' Slurm-free helpers (no Slurm needed to build or run).
TP_UNIT_TESTS += tests/unit/test_slurm_options
check_PROGRAMS += tests/unit/test_slurm_options
TESTS += tests/unit/test_slurm_options
tests_unit_test_slurm_options_SOURCES = tests/unit/test_slurm_options.c \
	slurm-plugin/tp_slurm_options.c slurm-plugin/tp_slurm_core.c \
	slurm-plugin/tp_slurm_fabric.c slurm-plugin/spank_env.c
tests_unit_test_slurm_options_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/placement -I$(top_srcdir)/profiles \
	-I$(top_srcdir)/throttle -I$(top_srcdir)/slurm-plugin
tests_unit_test_slurm_options_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_slurm_options_LDADD = $(TP_UNIT_LDADD)

# Decisions kept across restarts, the rank files of interactive jobs.
TP_UNIT_TESTS += tests/unit/test_slurm_decision
check_PROGRAMS += tests/unit/test_slurm_decision
TESTS += tests/unit/test_slurm_decision
tests_unit_test_slurm_decision_SOURCES = tests/unit/test_slurm_decision.c \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_fabric.c
tests_unit_test_slurm_decision_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/placement -I$(top_srcdir)/profiles \
	-I$(top_srcdir)/throttle -I$(top_srcdir)/slurm-plugin
tests_unit_test_slurm_decision_CFLAGS = $(TP_UNIT_CFLAGS)
tests_unit_test_slurm_decision_LDADD = $(TP_UNIT_LDADD)

# The select plugin's profile lookups off slurmctld's locks.
TP_UNIT_TESTS += tests/unit/test_profile_lookup
check_PROGRAMS += tests/unit/test_profile_lookup
TESTS += tests/unit/test_profile_lookup
tests_unit_test_profile_lookup_SOURCES = tests/unit/test_profile_lookup.c \
	slurm-plugin/tp_profile_lookup.c slurm-plugin/tp_profile_lookup.h \
	slurm-plugin/tp_slurm_core.c slurm-plugin/tp_slurm_fabric.c
tests_unit_test_profile_lookup_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/placement -I$(top_srcdir)/profiles \
	-I$(top_srcdir)/throttle -I$(top_srcdir)/slurm-plugin
tests_unit_test_profile_lookup_CFLAGS = $(TP_UNIT_CFLAGS) -pthread
tests_unit_test_profile_lookup_LDADD = $(TP_UNIT_LDADD) -lpthread

# --comm-record of an Open MPI run over 4 nodes, each slurmd with a TmpFS of
# its own (tp-bed --node-tmpfs; issue #18).
if WITH_SLURM
TESTS += tests/integration/slurm_record_nodes.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_record_nodes.sh

# The site's recording policy (ProfileRecord) through the real daemons
# (issue #18).
if WITH_SLURM
TESTS += tests/integration/slurm_record_policy.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_record_policy.sh

# Under ProfileRecord the executable of a step identifies its application
# (issue #18).
if WITH_SLURM
TESTS += tests/integration/slurm_record_exec.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_record_exec.sh

# A step's executable on a hung file system: slurmstepd's hash of it is
# given up after TP_SC_EXEC_HASH_TIMEOUT_MS and the job runs (issue #18's
# bound, the fault injected with tests/lib/tp_hangfs.c, a FUSE stand-in).
if WITH_SLURM
TESTS += tests/integration/slurm_exec_hang.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_exec_hang.sh
# The store's file system full while a job records: the job runs, says
# why, and nothing half written is left.
if WITH_SLURM
TESTS += tests/integration/slurm_store_full.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_store_full.sh
if HAVE_FUSE3
check_PROGRAMS += tests/lib/tp-hangfs
tests_lib_tp_hangfs_SOURCES = tests/lib/tp_hangfs.c
tests_lib_tp_hangfs_CFLAGS = $(AM_CFLAGS) $(FUSE3_CFLAGS)
tests_lib_tp_hangfs_LDADD = $(FUSE3_LIBS)
else
EXTRA_DIST += tests/lib/tp_hangfs.c
endif
