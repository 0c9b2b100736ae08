# load_report.awk: the figures of bench/load_bench.sh from its per-run
# records, one line per run and the ratios to cons_tres's.  POSIX awk.
#
#   awk -v work=DIR -v runs="cons_tres leaf ..." -v hosts=H -v hpl=HOSTS_PER_LEAF \
#       -v lpp=LEAVES_PER_POD -v tau=S -v span=S -f load_report.awk
#
# Reads, for each run R: DIR/R.t0 (replay start, epoch s), DIR/R.submitted
# (`slurm_id swf_id class nodes run_s`) and DIR/R.done (`slurm_id state
# submit start end hosts`, hosts as node numbers 1.. separated by commas,
# from Slurm's job completion records).  Host h is on leaf
# int((h - 1) / hpl) and pod int(leaf / lpp).  The definitions of the
# figures are in load_bench.sh's opening.
function q(arr, k, f,   i, j, t) {
	for (i = 2; i <= k; i++) {
		t = arr[i]
		for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]
		arr[j + 1] = t
	}
	i = int(k * f + 0.999999)
	if (i < 1) i = 1
	return k ? arr[i] : 0
}
function max(a, b) { return a > b ? a : b }
function min(a, b) { return a < b ? a : b }
function load_run(run,   f, line, a, n, id, i, h, hs, t0) {
	for (id in cls) delete cls[id]
	for (id in st) delete st[id]
	for (id in sb) delete sb[id]
	for (id in bg) delete bg[id]
	for (id in en) delete en[id]
	for (id in hl) delete hl[id]
	f = work "/" run ".t0"
	if ((getline t0 < f) <= 0) return 0
	close(f)
	T0 = t0
	f = work "/" run ".submitted"
	nsub = 0
	while ((getline line < f) > 0) {
		split(line, a, " ")
		nsub++
		if (a[1] == "none") continue
		cls[a[1]] = a[3]
	}
	close(f)
	f = work "/" run ".done"
	while ((getline line < f) > 0) {
		split(line, a, " ")
		if (!(a[1] in cls)) continue
		st[a[1]] = a[2]; sb[a[1]] = a[3]; bg[a[1]] = a[4]; en[a[1]] = a[5]; hl[a[1]] = a[6]
	}
	close(f)
	return 1
}
# Leaves and pods of job id, as " l1 l2 " strings, and its host count.
function places(id,   n, a, i, lf, pd, seenl, seenp) {
	LEAVES = " "; PODS = " "
	n = split(hl[id], a, ",")
	for (i = 1; i <= n; i++) {
		lf = int((a[i] - 1) / hpl)
		pd = int(lf / lpp)
		if (!(lf in seenl)) { seenl[lf] = 1; LEAVES = LEAVES lf " " }
		if (!(pd in seenp)) { seenp[pd] = 1; PODS = PODS pd " " }
	}
	return n
}
function shares(x, y,   a, n, i) {
	n = split(x, a, " ")
	for (i = 1; i <= n; i++) if (index(y, " " a[i] " ")) return 1
	return 0
}
function figures(run,   id, k, w, busy, busy_all, last, s, e, r, bs, jl, jp, io, cs, lx, px, npods, ran, not_done, i, n, tmp, sumw, leaf_hit, pod_hit) {
	if (!load_run(run)) { printf "%-10s (no records)\n", run; return }
	k = 0; busy = 0; busy_all = 0; last = T0; bs = 0; ran = 0; not_done = 0
	for (id in cls) {
		if (!(id in st) || bg[id] <= 0) { not_done++; continue }
		ran++
		w = bg[id] - sb[id]
		wait[++k] = w
		r = en[id] - bg[id]
		bs += max(1, (w + r) / max(r, tau))
		n = split(hl[id], tmp, ",")
		s = max(bg[id], T0); e = min(en[id], T0 + span)
		if (e > s) busy += n * (e - s)
		busy_all += n * (en[id] - bg[id])
		if (en[id] > last) last = en[id]
	}
	sumw = 0
	for (i = 1; i <= k; i++) sumw += wait[i]
	# Exposure of comm_sensitive jobs of 2+ hosts to io_heavy jobs that
	# ran at an overlapping time.
	cs = 0; lx = 0; px = 0
	for (id in cls) {
		if (cls[id] != "comm_sensitive" || !(id in st) || bg[id] <= 0) continue
		if (places(id) < 2) continue
		cs++
		jl = LEAVES; jp = PODS
		npods = split(jp, tmp, " ")
		leaf_hit = 0; pod_hit = 0
		for (io in cls) {
			if (cls[io] != "io_heavy" || !(io in st) || bg[io] <= 0) continue
			if (bg[io] >= en[id] || en[io] <= bg[id]) continue
			places(io)
			if (shares(jl, LEAVES)) leaf_hit = 1
			if (npods > 1 || shares(jp, PODS)) pod_hit = 1
		}
		lx += leaf_hit; px += pod_hit
	}
	U[run] = busy / (hosts * span)
	UA[run] = (last > T0) ? busy_all / (hosts * (last - T0)) : 0
	MW[run] = k ? sumw / k : 0
	PW[run] = q(wait, k, 0.95)
	BS[run] = ran ? bs / ran : 0
	MK[run] = last - T0
	printf "%-10s %5d %5d %5d %6.3f %6.3f %6d %7.1f %6d %7.2f %5d %5d %5d\n", run, nsub, ran, not_done, \
	    U[run], UA[run], MK[run], MW[run], PW[run], BS[run], cs, lx, px
	for (i = 1; i <= k; i++) delete wait[i]
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
BEGIN {
	nr = split(runs, R, " ")
	printf "%-10s %5s %5s %5s %6s %6s %6s %7s %6s %7s %5s %5s %5s\n", "run", "jobs", "ran", "left", \
	    "util", "util_e", "mkspan", "wait", "p95w", "bsld", "cs2+", "leafx", "podx"
	for (i = 1; i <= nr; i++) figures(R[i])
	if (!("cons_tres" in U)) exit
	printf "# ratios to cons_tres (same run): util, util to last end, mean wait, p95 wait, bounded slowdown\n"
	for (i = 1; i <= nr; i++) {
		if (R[i] == "cons_tres" || !(R[i] in U)) continue
		printf "#   %-10s util %s  util_e %s  wait %s  p95w %s  bsld %s\n", R[i], \
		    ratio(U[R[i]], U["cons_tres"]), ratio(UA[R[i]], UA["cons_tres"]), \
		    ratio(MW[R[i]], MW["cons_tres"]), ratio(PW[R[i]], PW["cons_tres"]), \
		    ratio(BS[R[i]], BS["cons_tres"])
	}
	printf "# util: busy node-s / (hosts x %d s submission span); util_e: to the last job's end; wait, p95w: s;\n", span
	printf "# cs2+: comm_sensitive jobs of 2+ hosts that ran; leafx: of them beside an io_heavy job on a leaf; podx: in a pod (or across pods) with one\n"
}
