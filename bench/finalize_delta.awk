# finalize_delta.awk: the end of a recorded run, from the pairs files of
# bench/record_overhead_bench.sh and bench/record_job_bench.sh (one pair a
# line: process loop finalize without, then the same with the profiler,
# in seconds).  Prints "N DELTA WITH": how many pairs have a finalize time,
# the median of their finalize with minus without (the profiler's gather,
# build and write), and the median process time with, to weigh it by.
$3 > 0 { n++; d[n] = $6 - $3; w[n] = $4 }
function median(x, n,    i, j, v) {
	for (i = 2; i <= n; i++) {
		v = x[i]
		for (j = i - 1; j >= 1 && x[j] > v; j--)
			x[j + 1] = x[j]
		x[j + 1] = v
	}
	return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
END { if (n) printf "%d %.6f %.6f\n", n, median(d, n), median(w, n) }
