#!/bin/bash
# load_decisions.sh: what select/topoplace_cons_tres said about the jobs of
# one run of bench/load_bench.sh (issue #15), from its decision lines
# (WORK/RUN.decisions: `topoplace: JobId=N: placement=...` of slurmctld's
# log) and, for the jobs that have none, its whole log (WORK/RUN.slurmctld.log,
# when kept).
#
#   bench/load_decisions.sh WORK RUN
#
# Prints, one `# RUN: ...` line each:
#   - jobs placed shared past their whole-leaf wait bound (LeafWaitMax:
#     "leaf gave way to shared");
#   - jobs placed by Slurm's default past their isolation bound
#     (IsolationWaitMax): the job-start line "placement=P: isolation given
#     up after N s".  Not any line with "isolation given up" in it: a
#     decision's reason also says "pod isolation given up (adaptive
#     routing)" for a job the allocator placed across pods, which is no
#     fallback;
#   - jobs that ran (WORK/RUN.done) with no decision line, their ids, and
#     for each the first line slurmctld's log has on it (a fallback's
#     error, e.g. a DecisionBudget or ProfileLookupTimeout one, is worded
#     `topoplace: JobId=N: <why>: placed by plain cons_tres`, not as a
#     decision line).  Nothing for a run without decision lines (cons_tres).
set -u
work=$1 run=$2
dec=$work/$run.decisions
[ -s "$dec" ] || exit 0
ids() { sed 's/^topoplace: JobId=\([0-9]*\):.*/\1/' | sort -u | wc -l; }
echo "# $run: $(grep 'leaf gave way to shared' "$dec" | ids) jobs placed shared past their whole-leaf wait bound"
echo "# $run: $(grep -E '^topoplace: JobId=[0-9]+: placement=[a-z]+: isolation given up after ' "$dec" | ids) jobs placed by Slurm's default past their isolation bound"
log=$work/$run.slurmctld.log
[ -s "$log" ] || log=/dev/null
awk -v run="$run" -v dec="$dec" -v done_file="$work/$run.done" '
	FILENAME == dec {
		if (match($0, /^topoplace: JobId=[0-9]+:/))
			has[substr($0, 18, RLENGTH - 18)] = 1
		next
	}
	FILENAME == done_file {
		if ($4 > 0 && !($1 in has)) miss[++n] = $1
		next
	}
	{	# slurmctld log: the first per-job topoplace line of each job
		if (!match($0, /topoplace: JobId=[0-9]+[: ]/)) next
		line = substr($0, RSTART)
		id = substr(line, 18)
		sub(/[^0-9].*/, "", id)
		if (!(id in first)) first[id] = line
	}
	END {
		list = ""
		for (k = 1; k <= n; k++) list = list " " miss[k]
		printf "# %s: %d jobs that ran have no decision line%s\n", run, n,
		    n ? ":" list : ""
		for (k = 1; k <= n; k++)
			printf "#   JobId=%s: %s\n", miss[k],
			    (miss[k] in first) ? substr(first[miss[k]], 1, 240) \
			                       : "(no topoplace line in slurmctld'"'"'s log)"
	}' "$dec" "$work/$run.done" "$log"
