# load_prep.awk: a job stream for bench/load_bench.sh, cut from a Standard
# Workload Format (SWF) trace and scaled to the test cluster.  POSIX awk.
#
#   zcat TRACE.swf.gz | awk -f load_prep.awk -v hosts=128 -v compress=60 \
#       -v window=10800 [-v run_cap=120] [-v target=0.9] [-v step=3600] \
#       [-v min_jobs=20] [-v trace_nodes=N] [-v start=S]
#
# Input: SWF lines (fields 1 job, 2 submit, 4 run, 5 allocated procs,
# 8 requested procs, 9 requested time, 12 user, 14 executable; `;` header
# lines give MaxNodes and MaxProcs).  Output, one line per job, sorted by
# submit offset, after `#` lines that say what was chosen:
#
#   swf_id submit_s nodes run_s limit_min class
#
# Why each rule is what it is:
#   - jobs: records with submit >= 0, run >= 0 and a size (allocated procs,
#     else requested procs) are used; the others never ran (PWA README:
#     placeholders and jobs cancelled before they started).
#   - size: trace nodes = procs / (MaxProcs / MaxNodes) rounded up, then
#     scaled by hosts / MaxNodes and rounded up (a 1-node job stays 1 node),
#     at most `hosts`.  Rounding up makes small jobs relatively bigger; the
#     window is chosen on the scaled sizes, so the load below is what the
#     cluster is really offered.
#   - time: every trace duration is divided by `compress`; a run becomes
#     `sleep` of max(1, round(run / compress)) seconds (Slurm's clock has
#     one-second steps), at most `run_cap` seconds so that a replay ends.
#     The time limit (Slurm counts it in minutes) is the requested time
#     scaled, else the run, rounded up to whole minutes, at least the run.
#   - window: `window` trace seconds of submissions.  Starts are tried every
#     `step` trace seconds; the window kept is the one whose offered load
#     (sum of nodes x run over hosts x window, all scaled) is nearest to
#     `target` among windows with at least `min_jobs` jobs (ties: the
#     earliest).  `start` (trace seconds) forces a start instead.
#   - class: comm_sensitive / io_heavy / quiet from a hash of the job's
#     application: the executable number (field 14) when the trace has one,
#     else the user (field 12), else the job id, so that every run of one
#     application gets the same class, as a profile would give it.  Knuth's
#     multiplicative hash: b = floor(100 * frac(key * 2654435761 / 2^32));
#     b < 40 comm_sensitive, 40 <= b < 60 io_heavy, else quiet (40/20/40 of
#     the applications; the share of jobs in a window differs and is
#     printed).
function ceil(x) { return x == int(x) ? x : int(x) + 1 }
function class_of(job, user, exe,   key, h) {
	key = exe > 0 ? exe : (user > 0 ? user : job)
	h = (key * 2654435761) % 4294967296
	h = int(100 * h / 4294967296)
	return h < 40 ? "comm_sensitive" : (h < 60 ? "io_heavy" : "quiet")
}
BEGIN {
	if (hosts < 1 || compress <= 0 || window <= 0) {
		print "load_prep.awk: hosts, compress and window must be positive" > "/dev/stderr"
		bad = 1
		exit 2
	}
	if (run_cap == "") run_cap = 120
	if (target == "") target = 0.9
	if (step == "") step = 3600
	if (min_jobs == "") min_jobs = 20
	max_nodes = 0
	max_procs = 0
	n = 0
}
/^;/ {
	if ($2 == "MaxNodes:") max_nodes = $3
	if ($2 == "MaxProcs:") max_procs = $3
	next
}
NF >= 18 {
	procs = $5 > 0 ? $5 : $8
	if ($2 < 0 || $4 < 0 || procs <= 0)
		next
	n++
	id[n] = $1; sub_t[n] = $2; run_t[n] = $4; req_t[n] = $9
	procs_of[n] = procs; user[n] = $12; exe[n] = $14
}
END {
	if (bad) exit 2
	if (trace_nodes == "") trace_nodes = max_nodes
	if (trace_nodes <= 0 || max_procs <= 0 || n == 0) {
		print "load_prep.awk: no MaxNodes/MaxProcs header or no usable job" > "/dev/stderr"
		exit 2
	}
	ppn = max_procs / trace_nodes
	for (i = 1; i <= n; i++) {
		nodes[i] = ceil(ceil(procs_of[i] / ppn) * hosts / trace_nodes)
		if (nodes[i] > hosts) nodes[i] = hosts
		r = int(run_t[i] / compress + 0.5)
		if (r < 1) r = 1
		if (r > run_cap) r = run_cap
		run_s[i] = r
		lim = req_t[i] > 0 ? req_t[i] / compress : r
		if (lim < r) lim = r
		limit_min[i] = ceil(lim / 60)
	}
	# Offered load of the windows [s, s + window): two pointers over the
	# submit-ordered jobs (the cleaned traces are in submit order).
	span = window / compress
	best = -1
	first = sub_t[1]
	last = sub_t[n]
	if (start != "") { first = start; last = start }
	lo = 1
	for (s = first; s <= last; s += step) {
		while (lo <= n && sub_t[lo] < s) lo++
		work = 0; cnt = 0
		for (j = lo; j <= n && sub_t[j] < s + window; j++) {
			work += nodes[j] * run_s[j]
			cnt++
		}
		if (cnt < min_jobs && start == "") continue
		load = work / (hosts * span)
		d = load - target
		if (d < 0) d = -d
		if (best < 0 || d < best) { best = d; best_s = s; best_load = load; best_cnt = cnt }
	}
	if (best < 0) {
		print "load_prep.awk: no window of " window " s has " min_jobs " jobs" > "/dev/stderr"
		exit 2
	}
	printf "# trace: MaxNodes %d, %g procs/node; %d usable jobs\n", trace_nodes, ppn, n
	printf "# window: trace seconds [%d, %d) (%g h), offered load %.3f of %d hosts, %d jobs\n", \
	    best_s, best_s + window, window / 3600, best_load, hosts, best_cnt
	printf "# scaled: 1/%g time (%g s of submissions), sizes x %d/%d rounded up, runs capped at %d s\n", \
	    compress, span, hosts, trace_nodes, run_cap
	out = 0
	for (i = 1; i <= n; i++) {
		if (sub_t[i] < best_s || sub_t[i] >= best_s + window) continue
		c = class_of(id[i], user[i], exe[i])
		cls[c]++
		line[++out] = sprintf("%d %d %d %d %d %s", id[i], int((sub_t[i] - best_s) / compress), \
		    nodes[i], run_s[i], limit_min[i], c)
	}
	printf "# classes (jobs): comm_sensitive %d, io_heavy %d, quiet %d\n", \
	    cls["comm_sensitive"], cls["io_heavy"], cls["quiet"]
	for (i = 1; i <= out; i++) print line[i]
}
