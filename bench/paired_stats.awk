# paired_stats.awk: the robust figures of interleaved with/without pairs,
# for bench/record_overhead_bench.sh.  Input: one pair a line, "WITHOUT
# WITH" (seconds of two runs made back to back, so a load change hits both).
#
#   awk -v seed=1 -f paired_stats.awk pairs
#
# Prints "n N without_med A with_med B ratio_med R ci_lo L ci_hi H
# ratio_min M ratio_p10 P ratio_p90 Q":
#   R      median of the per-pair ratios WITH/WITHOUT (one loaded pair moves
#          it by at most one rank);
#   L, H   its 95% bootstrap interval (2000 resamples of the pairs, seeded:
#          the same input prints the same figures);
#   M      min-of-N: the fastest WITH over the fastest WITHOUT (each the
#          run least disturbed by the other sessions on the machine);
#   P, Q   10th and 90th percentile of the per-pair ratios: the noise.
function sort(x, n,    i, j, v) { # insertion sort of x[1..n], ascending
	for (i = 2; i <= n; i++) {
		v = x[i]
		for (j = i - 1; j >= 1 && x[j] > v; j--)
			x[j + 1] = x[j]
		x[j + 1] = v
	}
}
function median(x, n,    y, i) {
	for (i = 1; i <= n; i++)
		y[i] = x[i]
	sort(y, n)
	return n % 2 ? y[(n + 1) / 2] : (y[n / 2] + y[n / 2 + 1]) / 2
}
function pct(x, n, p,    y, i) { # nearest rank
	for (i = 1; i <= n; i++)
		y[i] = x[i]
	sort(y, n)
	i = int(p * n + 0.999999)
	return y[i < 1 ? 1 : i]
}
NF >= 2 && $1 > 0 && $2 > 0 {
	n++
	a[n] = $1
	b[n] = $2
	r[n] = $2 / $1
	if (n == 1 || $1 < amin)
		amin = $1
	if (n == 1 || $2 < bmin)
		bmin = $2
}
END {
	if (n < 1)
		exit 1
	srand(seed == "" ? 1 : seed)
	for (k = 1; k <= 2000; k++) {
		for (i = 1; i <= n; i++)
			s[i] = r[1 + int(rand() * n)]
		boot[k] = median(s, n)
	}
	printf "n %d without_med %.6f with_med %.6f ratio_med %.4f ci_lo %.4f " \
	    "ci_hi %.4f ratio_min %.4f ratio_p10 %.4f ratio_p90 %.4f\n", n,
	    median(a, n), median(b, n), median(r, n), pct(boot, 2000, 0.025),
	    pct(boot, 2000, 0.975), bmin / amin, pct(r, n, 0.1), pct(r, n, 0.9)
}
