#!/bin/bash
# slurm_jobtest_5k.sh: bench/slurm_jobtest_bench.sh at 5,184 nodes (issue 7,
# test 7: "under 5 ms at 5,000 nodes using a large topology.conf").
#
#   bench/slurm_jobtest_5k.sh [BUILD_DIR] [JOBS] [SLURMD_NODES]
#
# topology.conf and slurm.conf name 5,184 nodes: a 3-level fat tree from
# tools/topoplace-fattree, 16 pods x 18 leaves x 18 hosts.  Only SLURMD_NODES
# of them (default 0) run slurmd; the rest are State=CLOUD nodes (powered
# down, idle), which slurmctld puts in the candidate bitmap of every job test
# exactly as idle nodes, so select/cons_tres and the wrapper test each job
# against all 5,184.  Jobs placed on them are allocated (later tests see them
# as running) but never start.  With SLURMD_NODES > 0 slurmctld tries the
# powered-up nodes first (powered-down ones weigh more), so most tests would
# see only those: keep 0 for the 5,184-node figure.  Prints figures, never
# pass/fail.  Needs root.  BENCH_PERF=FILE also records `perf record -g` of
# slurmctld during the submissions into FILE (the where-does-time-go view).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../_build/main}
jobs=${2:-100}
BENCH_SLURMD_NODES=${3:-0} BENCH_PODS=16 BENCH_SPINES=9 \
	exec bash "$here/slurm_jobtest_bench.sh" "$build" 288 18 "$jobs"
