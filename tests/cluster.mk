# Integration tests on a private local Slurm cluster (included by the top
# Makefile.am). tests/lib/tp-bed starts the cluster; tests/lib/bed.sh holds the
# helpers the test scripts source. The scripts need bash, root, munge and
# Slurm; they exit 77 (skipped) when those are missing, unless
# TOPOPLACE_REQUIRE_ALL=1.

TESTS += \
	tests/integration/smoke_cluster.sh \
	tests/integration/smoke_bed_cleanup.sh

dist_check_SCRIPTS += \
	tests/integration/smoke_cluster.sh \
	tests/integration/smoke_bed_cleanup.sh

dist_noinst_SCRIPTS += tests/lib/tp-bed

# topoplace's plugins: interactive jobs, slurmctld restart (more in
# slurm-plugin/local.mk).
if WITH_SLURM
TESTS += tests/integration/slurm_interactive.sh \
	tests/integration/slurm_restart.sh tests/integration/slurm_fallback.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_interactive.sh \
	tests/integration/slurm_restart.sh tests/integration/slurm_fallback.sh
EXTRA_DIST += tests/lib/bed.sh

# select/topoplace_cons_tres under valgrind memcheck in slurmctld (issue 7,
# test 6); tests/lib/slurmctld.supp holds Slurm's own known findings.
if WITH_SLURM
TESTS += tests/integration/slurm_valgrind.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_valgrind.sh
EXTRA_DIST += tests/lib/slurmctld.supp bench/slurm_jobtest_5k.sh

# Logs and configs of failed beds (tp-bed --keep tests/integration/NAME.bed).
clean-local: clean-local-cluster
clean-local-cluster:
	-rm -rf tests/integration/*.bed
.PHONY: clean-local-cluster

# The profile store among users through Slurm (issue 14, item 5).
if WITH_SLURM
TESTS += tests/integration/slurm_store.sh
endif
dist_check_SCRIPTS += tests/integration/slurm_store.sh
