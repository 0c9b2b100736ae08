# profile_coverage_report.awk: the figures of bench/profile_coverage_bench.sh
# from its per-run records.  POSIX awk, no input (everything in BEGIN).
#
#   awk -v runs="off first" -v work=DIR [-v compress=240] \
#       -f profile_coverage_report.awk
#
# Per run R, in DIR:
#   R.submitted  id swf app nodes run name    (id "none": sbatch refused)
#   R.done       id state submit start end nodes   (epoch s; 0: never)
#   R.comments   id SystemComment...
#   R.recorded   ids of the jobs whose stderr says they were recorded
#   R.store      the store's runs, ./APP/FILE.tpp (./s-*: script keys)
# Rules (the bench's opening says why):
#   eligible  a job of the same application COMPLETED with EndTime < the
#             job's SubmitTime ("ran before"; strictly: Slurm's times are
#             whole seconds, and a run that ended in the second of the
#             submission may not be in the store yet); a job whose
#             application ended between its submit and its start is
#             counted apart
#   profile   the SystemComment names a profile: "profile USER/APP by ..."
#             (chosen for the job) or "profile USER/APP has N ranks, ...:
#             class only" (its class only); "wrong" when the job that
#             recorded it ("recorded by JobId=K") ran another application
#   node-s    nodes x (end - start) of the eligible jobs
# Writes DIR/R.verdicts: id app nodes state verdict SystemComment, verdict
# one of profile, class_only, none (eligible jobs), late (ran before its
# start only), first (not eligible).
function read_run(r,   line, f, n, id) {
	split("", app); split("", st); split("", sb); split("", bg)
	split("", en); split("", nn); split("", cm); split("", rec); split("", order)
	n = 0
	while ((getline line < (work "/" r ".submitted")) > 0) {
		split(line, f, " ")
		if (f[1] == "none") { refused[r]++; continue }
		order[++n] = f[1]; app[f[1]] = f[3]
	}
	while ((getline line < (work "/" r ".done")) > 0) {
		split(line, f, " ")
		st[f[1]] = f[2]; sb[f[1]] = f[3]; bg[f[1]] = f[4]
		en[f[1]] = f[5]; nn[f[1]] = f[6]
	}
	while ((getline line < (work "/" r ".comments")) > 0) {
		id = line; sub(/ .*/, "", id); sub(/^[0-9]+ ?/, "", line); cm[id] = line
	}
	while ((getline line < (work "/" r ".recorded")) > 0) rec[line] = 1
	return n
}
function runs_stored(r,   line, c) {
	c = 0
	while ((getline line < (work "/" r ".store")) > 0)
		if (line !~ /^\.\/s-/) c++
	return c
}
# ran_before(j): 2 when a job of j's application ended before j's
# submission, 1 when only before j's start, else 0.
function ran_before(j, n,   h, o, best) {
	best = 0
	for (h = 1; h <= n; h++) {
		o = order[h]
		if (o == j || app[o] != app[j] || st[o] != "COMPLETED" || en[o] <= 0) continue
		if (en[o] < sb[j]) return 2
		if (bg[j] > 0 && en[o] < bg[j]) best = 1
	}
	return best
}
function verdict(j, v) {
	printf "%s %s %s %s %s %s\n", j, app[j], nn[j], st[j], v, cm[j] > (work "/" runname ".verdicts")
}
function report(k, r,   n, i, j, b, c, o, w, ns, recs, x) {
	n = read_run(r)
	runname = r
	jobs = n; done = elig = prof = only = wrong = ens = pns = late = 0
	split("", why)
	for (i = 1; i <= n; i++) {
		j = order[i]
		if (st[j] == "COMPLETED") done++
		b = ran_before(j, n)
		if (b == 1) late++
		if (b != 2) { verdict(j, b == 1 ? "late" : "first"); continue }
		elig++
		ns = (bg[j] > 0 && en[j] > bg[j]) ? nn[j] * (en[j] - bg[j]) : 0
		ens += ns
		c = cm[j]
		if (c ~ / profile [^ ]+ (by|has) /) {
			prof++; pns += ns
			if (c ~ /: class only/) only++
			verdict(j, c ~ /: class only/ ? "class_only" : "profile")
			if (match(c, /recorded by JobId=[0-9]+/)) {
				o = substr(c, RSTART + 18, RLENGTH - 18)
				if ((o in app) && app[o] != app[j]) wrong++
			}
		} else {
			verdict(j, "none")
			w = c; sub(/^topoplace: /, "", w)
			gsub(/[0-9]+/, "N", w)
			why[w == "" ? "(no SystemComment)" : w]++
		}
	}
	recs = 0
	for (x in rec) recs++
	pct = elig ? 100 * prof / elig : 0
	npct = ens ? 100 * pns / ens : 0
	printf "%-8s %5d %5d %8d %8d %6d %6d %6.1f%% %8d %8d %6.1f%% %5d %5d\n", r, jobs, done,
	    elig, prof, only, wrong, pct, ens, pns, npct, recs, runs_stored(r)
	tail = tail sprintf("# %s: coverage: %d of %d jobs (%.1f%%), node-hours %.2f of %.2f (%.1f%%)\n",
	    r, prof, elig, pct, pns * compress / 3600, ens * compress / 3600, npct)
	if (late) tail = tail sprintf("# %s: %d more jobs' application ended after their submission, before their start (not eligible)\n", r, late)
	for (w in why) tail = tail sprintf("# %s: eligible, no profile, %d jobs: %s\n", r, why[w], w)
	if (refused[r]) tail = tail sprintf("# %s: %d submissions refused by sbatch (%s.sbatch.err)\n", r, refused[r], r)
}
BEGIN {
	if (compress == "") compress = 1
	nr = split(runs, run, " ")
	printf "%-8s %5s %5s %8s %8s %6s %6s %7s %8s %8s %7s %5s %5s\n", "run", "jobs", "done",
	    "eligible", "profile", "class", "wrong", "share", "elig_ns", "prof_ns", "share",
	    "recd", "runs"
	for (k = 1; k <= nr; k++) report(k, run[k])
	printf "%s", tail
	print "# columns: eligible = jobs whose application completed a job before their submission;"
	print "#   profile = of those, placed with a profile (class = its class only); wrong = its"
	print "#   profile was recorded by another application; *_ns = bed node-seconds"
	printf "#   (node-hours above: x %g / 3600, trace time); recd = jobs recorded; runs = .tpp stored\n", compress
}
