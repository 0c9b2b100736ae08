#!/bin/bash
# load_waits.sh: where a topoplace run of bench/load_bench.sh waited longer
# (or shorter) than plain cons_tres on the same stream (issue #15 goal 1),
# job by job, from both runs' records and slurmctld logs.
#
#   bench/load_waits.sh WORK RUN HOSTS HOSTS_PER_LEAF [BOUND_S]
#
# Each job of the stream is matched between WORK/cons_tres.* and WORK/RUN.*
# by its trace id (RUN.submitted, field 2); its wait in each run is start -
# eligible (RUN.done, whole seconds).  For every second a job was pending,
# the run's own records (RUN.done: every job's hosts, start and end) say
# what was free then, leaving that job out: `free` hosts in all, and
# `compat` free hosts on leaves where no job of a class incompatible with
# it ran (comm_sensitive and io_heavy, a 1-host job counting as quiet:
# placement/jobclass.h), which is what `shared` may use (its pod
# preferences never make a job wait).  A second is
#   held    free >= the job's size > compat, from the job's first
#           topoplace "waits:" line on (a job the plugin never made wait
#           was not held): plain cons_tres could have started it, the
#           placement kept it from incompatible traffic (issue #15 goal
#           1's "unless" clause, up to IsolationWaitMax).  The records
#           do not show nodes still completing a job or reserved by
#           backfill, so where that line itself says the job's size was
#           usable in all, the seconds from it to its start (at most to
#           its bound) are held too;
#   open    compat >= size (under cons_tres: free >= size): hosts it may
#           use were free, and it still waited: the queue order (a job
#           ahead that cannot start stops the main pass, backfill
#           reserves nodes for it), a scheduling pass not yet run, nodes
#           still completing the job that freed them.
# The difference delta = wait under RUN - wait under cons_tres of each job
# goes to one of:
#   (a) held    the job had held seconds under RUN;
#   (b) behind  not (a), pending while a job ahead of it in the queue (a
#               lower Slurm job id: the bench releases jobs in stream
#               order and priority/basic is first come first served) was
#               in a held second;
#   (c) other   the rest: of either sign, the noise between two runs of
#               one stream (passes at other moments, a loaded machine).
# Also from RUN's log: jobs placed past their isolation bound BOUND_S
# (IsolationWaitMax, 0: none; "isolation given up after" lines) and how
# long after eligible + BOUND_S they started; and which scheduler started
# each job in each run ("sched: Allocate" for the main pass,
# "sched/backfill: _start_job: Started" for backfill).
#
# Prints `# RUN: ...` lines: per class the jobs, their total delta (s) and
# its share of the mean wait difference (total / jobs in both runs), the
# held and open seconds of each run.  Per job, WORK/RUN.waits (header line
# first).  The seconds are a reconstruction at one-second steps from
# Slurm's records, not what the scheduler saw.
set -u
work=$1 run=$2 hosts=$3 hpl=$4 bound=${5:-0}
for f in cons_tres.submitted cons_tres.done "$run.submitted" "$run.done"; do
	[ -s "$work/$f" ] || { echo "# $run: no $f in $work: no wait attribution"; exit 0; }
done

# The log lines that matter, one per line: epoch_s kind slurm_id.  Kinds:
# W (the job's first "waits:" line: the plugin logs one per job), G
# (placed past the isolation bound), M (started by the main pass), B
# (started by backfill).  Timestamps converted by one date call, as
# load_bench.sh does for the job records.
events() {
	local log=$1 tmp
	[ -s "$log" ] || return 0
	tmp=$(mktemp) || return 0
	sed -n \
		-e 's/^\[\([0-9T:.-]*\)\] topoplace: JobId=\([0-9]*\): placement=[a-z]* class=[a-z_]*: waits: .*needs \([0-9]*\) hosts.* \([0-9]*\) usable hosts (\([0-9]*\) busy.*/\1 W \2 \3 \4/p' \
		-e 's/^\[\([0-9T:.-]*\)\] topoplace: JobId=\([0-9]*\): placement=[a-z]* class=[a-z_]*: waits: .*/\1 W \2 0 0/p' \
		-e 's/^\[\([0-9T:.-]*\)\] topoplace: JobId=\([0-9]*\): placement=[a-z]*: isolation given up after .*/\1 G \2/p' \
		-e 's/^\[\([0-9T:.-]*\)\] sched: Allocate JobId=\([0-9]*\) .*/\1 M \2/p' \
		-e 's/^\[\([0-9T:.-]*\)\] sched\/backfill: _start_job: Started JobId=\([0-9]*\) .*/\1 B \2/p' \
		"$log" >"$tmp"
	if [ -s "$tmp" ]; then
		cut -d' ' -f1 "$tmp" | sed 's/T/ /' | date -f - +%s.%3N 2>/dev/null |
			paste -d' ' - <(cut -d' ' -f2- "$tmp")
	fi
	rm -f "$tmp"
}

awk -v run="$run" -v bound="$bound" -v hosts="$hosts" -v hpl="$hpl" \
	-v out="$work/$run.waits" \
	-v f_cs="$work/cons_tres.submitted" -v f_cd="$work/cons_tres.done" \
	-v f_rs="$work/$run.submitted" -v f_rd="$work/$run.done" \
	-f <(cat <<'AWK'
# A job's class on the fabric (1 comm_sensitive, 2 io_heavy, 3 quiet; a
# 1-host comm_sensitive job counts as quiet: tp_jobclass_on_fabric) and
# the one class it is kept from (0: none).
function cbit(c, n) { return c == "comm_sensitive" ? (n < 2 ? 3 : 1) : (c == "io_heavy" ? 2 : 3) }
function badbits(c, n) { return c == "comm_sensitive" ? (n < 2 ? 0 : 2) : (c == "io_heavy" ? 1 : 0) }
function read_submitted(f, R,   a, line) {
	while ((getline line < f) > 0) {
		split(line, a, " ")
		if (a[1] == "none") continue
		ID[R, a[2]] = a[1]; CLS[R, a[1]] = a[3]; NODES[R, a[1]] = a[4]
		if (R == "r") order[++njobs] = a[2]
	}
	close(f)
}
# Jobs that ran: eligible, start, end, hosts; and per second and leaf the
# busy hosts and the hosts of each class there.  A pending job is on no
# host, so nothing needs leaving out.
function read_done(f, R,   a, line, n, h, t, l, k) {
	while ((getline line < f) > 0) {
		split(line, a, " ")
		if (a[4] <= 0) continue
		EL[R, a[1]] = a[3]; ST[R, a[1]] = a[4]; EN[R, a[1]] = a[5]; HL[R, a[1]] = a[6]
		n = split(a[6], hs, ",")
		for (k = 1; k <= n; k++) {
			l = int((hs[k] - 1) / hpl)
			for (t = a[4]; t < a[5]; t++) {
				BUSY[R, t, l]++
				MASK[R, t, l, cbit(CLS[R, a[1]], NODES[R, a[1]])]++
			}
		}
	}
	close(f)
}
# Seconds job j of run R was pending with hosts free: HELD and OPEN (as
# this script's opening defines them; compat_rule 0: cons_tres, every
# free host is open); HF/HT: its first and last held second.
function pending(R, j, compat_rule,   t, l, free, compat, leaves, bad, fl, held_ok) {
	HELD = 0; OPEN = 0; HF = -1; HT = -1
	leaves = hosts / hpl
	bad = badbits(CLS[R, j], NODES[R, j])
	for (t = EL[R, j]; t < ST[R, j]; t++) {
		free = 0; compat = 0
		held_ok = compat_rule && ((R, j) in WAITS) && t >= int(WAITS[R, j])
		for (l = 0; l < leaves; l++) {
			fl = hpl - BUSY[R, t, l]
			free += fl
			if (!bad || !MASK[R, t, l, bad]) compat += fl
		}
		if (!compat_rule) compat = free
		if (compat >= NODES[R, j]) OPEN++
		else if (held_ok && free >= NODES[R, j]) {
			HELD++
			if (HF < 0) HF = t
			HT = t
		}
	}
}
function share(sum) { return n ? sprintf("%+.2f s of the mean", sum / n) : "-" }
BEGIN {
	read_submitted(f_cs, "c"); read_submitted(f_rs, "r")
	read_done(f_cd, "c"); read_done(f_rd, "r")
	while ((getline line < "/dev/stdin") > 0) {
		m = split(line, a, " "); R = a[m]
		if (a[2] == "G") GIVEN[R, a[3]] = a[1]
		else if (a[2] == "W" && !((R, a[3]) in WAITS)) {
			WAITS[R, a[3]] = a[1]
			# Its first test: enough usable hosts in all, so the
			# placement, not the occupancy, held it.
			if (a[4] > 0 && a[5] + 0 >= a[4] + 0) WAIT_HELD[R, a[3]] = 1
		} else if (a[2] == "M" || a[2] == "B") BY[R, a[3]] = (a[2] == "M" ? "m" : "b")
	}
	print "# trace_id cons_id run_id class nodes wait_cons wait_run delta cat open_cons open_run held_run started_cons started_run placed" > out
	for (k = 1; k <= njobs; k++) {
		s = order[k]; j = ID["r", s]; c = ID["c", s]
		if (!(("r", j) in ST) || !(("c", c) in ST)) continue
		pending("c", c, 0); oc = OPEN
		pending("r", j, 1); or_ = OPEN
		# The plugin's own word: its first test found hosts enough in
		# all but not apart from incompatible classes; held from then
		# at least until it started or its bound passed.
		if (("r", j) in WAIT_HELD) {
			lh = ST["r", j] - int(WAITS["r", j])
			if (bound > 0 && EL["r", j] + bound - int(WAITS["r", j]) < lh)
				lh = EL["r", j] + bound - int(WAITS["r", j])
			if (lh > HELD) {
				HELD = lh
				if (HF < 0 || int(WAITS["r", j]) < HF) HF = int(WAITS["r", j])
				if (HT < int(WAITS["r", j]) + lh - 1) HT = int(WAITS["r", j]) + lh - 1
			}
		}
		HELDS[j] = HELD; HFROM[j] = HF; HTO[j] = HT
		OPC[j] = oc; OPR[j] = or_
		open_c += oc; open_r += or_; held_r += HELD
	}
	n = 0
	for (k = 1; k <= njobs; k++) {
		s = order[k]; j = ID["r", s]; c = ID["c", s]
		if (!(("r", j) in ST) || !(("c", c) in ST)) continue
		n++
		wc = ST["c", c] - EL["c", c]; wr = ST["r", j] - EL["r", j]; d = wr - wc
		total += d
		placed = "-"
		if (HELDS[j] > 0) {
			cat = "a"; na++; asum += d
			if (wc == 0) a_now++
		} else {
			cat = "c"
			if (wr > 0)
				for (h in HELDS)
					if (HELDS[h] > 0 && h + 0 < j + 0 && HFROM[h] < ST["r", j] && HTO[h] >= EL["r", j]) {
						cat = "b"; break
					}
			if (cat == "b") { nb++; bsum += d; bpos += d > 0 ? d : 0 }
			else { nc++; csum += d; cpos += d > 0 ? d : 0; cneg += d < 0 ? d : 0 }
		}
		if (("r", j) in GIVEN) {
			placed = "given_up"; ga++; gsum += d
			late = ST["r", j] - (EL["r", j] + bound)
			glate += late > 0 ? late : 0
		}
		printf "%s %s %s %s %s %d %d %+d %s %d %d %d %s %s %s\n", s, c, j, CLS["r", j], NODES["r", j], \
		    wc, wr, d, cat, OPC[j], OPR[j], HELDS[j], \
		    (("c", c) in BY) ? BY["c", c] : "-", (("r", j) in BY) ? BY["r", j] : "-", placed > out
		started_c[(("c", c) in BY) ? BY["c", c] : "-"]++
		started_r[(("r", j) in BY) ? BY["r", j] : "-"]++
	}
	close(out)
	if (!n) { printf "# %s: no job ran in both runs: no wait attribution\n", run; exit }
	printf "# %s: wait minus cons_tres's, %d jobs that ran in both: total %+d s, mean %+.2f s (per job: %s)\n", \
	    run, n, total, total / n, out
	printf "# %s:   (a) held from incompatible traffic: %d jobs (%d started at once under cons_tres), %+d s (%s); %d held s in all\n", \
	    run, na, a_now, asum, share(asum), held_r
	printf "# %s:   (b) pending behind a held job: %d jobs, %+d s (%s; longer waits %+d s)\n", \
	    run, nb, bsum, share(bsum), bpos
	printf "# %s:   (c) other: %d jobs, %+d s (%s; longer %+d s, shorter %+d s)\n", \
	    run, nc, csum, share(csum), cpos, cneg
	printf "# %s:   placed past the isolation bound (%g s): %d jobs, %+d s, started %d s in all after their bound\n", \
	    run, bound, ga, gsum, glate
	printf "# %s:   open s (pending while hosts it may use were free): cons_tres %d, %s %d\n", \
	    run, open_c, run, open_r
	printf "# %s:   started by the main pass / backfill: cons_tres %d / %d, %s %d / %d\n", \
	    run, started_c["m"], started_c["b"], run, started_r["m"], started_r["b"]
}
AWK
) < <(events "$work/cons_tres.slurmctld.log" | sed 's/$/ c/'
	events "$work/$run.slurmctld.log" | sed 's/$/ r/')
