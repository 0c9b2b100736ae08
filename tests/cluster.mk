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
EXTRA_DIST += tests/lib/bed.sh

# Logs and configs of failed beds (tp-bed --keep tests/integration/NAME.bed).
clean-local: clean-local-cluster
clean-local-cluster:
	-rm -rf tests/integration/*.bed
.PHONY: clean-local-cluster
