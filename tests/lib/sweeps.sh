# shellcheck shell=bash
# sweeps.sh - synthetic calibration sweeps (topoplace-sweep(5)) whose
# answers are known, shared by the integration tests that read them (bash;
# source it).  One copy, so a test's expectations and the data they were
# derived from cannot drift apart between tests.
#
#   tp_sweep_knee FILE       version 1, two curves: 4 MiB x 4 clients with a
#                            knee (plateau 1000 us; latency (2000 /
#                            interval)^2 x 1000 us below 2000 us, so 1.5 x
#                            the plateau at 1633 us), and 1 MiB x 2 clients
#                            flat at 300 us (no knee); 8 intervals, 20
#                            requests each, +-2% spread.
#   tp_sweep_tradeoff FILE   version 2, 4 MiB x 4 clients shaped like the
#                            issue's measurements: per window (0 to
#                            20000 us) the clients' measured interval and
#                            the victims' mean slowdown (4.6 unthrottled,
#                            1.10 at 6250 us, 1.0 at 20000 us), 20 victim
#                            and 20 alone rows.

tp_sweep_knee() {
	awk 'BEGIN {
	print "# topoplace-sweep v1 synthetic"
	print "request_bytes,clients,interval_us,client,start_us,latency_us"
	n = split("250 500 1000 1500 2000 3000 4000 8000", iv, " ")
	for (i = 1; i <= n; i++)
		for (k = 0; k < 20; k++) {
			r = 2000 / iv[i]; m = r > 1 ? 1000 * r * r : 1000
			printf "4194304,4,%d,%d,%d,%.3f\n", iv[i], k % 4, k * iv[i], m * (1 + (k % 5 - 2) / 100)
			printf "1048576,2,%d,%d,%d,%.3f\n", iv[i], k % 2, k * iv[i], 300 * (1 + (k % 5 - 2) / 100)
		}
}' >"$1"
}

tp_sweep_tradeoff() {
	awk 'BEGIN {
	print "# topoplace-sweep v2 issue-shaped"
	print "request_bytes,clients,interval_us,client,start_us,latency_us,kind"
	n = split("0 2000 4000 5000 6250 8000 10000 20000", w, " ")
	split("3500 3500 4060 5100 6265 8020 9975 20000", t, " ")
	split("4.6 4.0 1.72 1.35 1.10 1.05 1.03 1.0", x, " ")
	for (i = 1; i <= n; i++) {
		for (c = 0; c < 4; c++) for (k = 0; k < 10; k++)
			printf "4194304,4,%s,%d,%.3f,3000,io\n", w[i], c, k * t[i] + c
		for (v = 0; v < 20; v++)
			printf "4194304,4,%s,%d,%d,%.3f,victim\n", w[i], v, v, 10 * x[i]
	}
	for (v = 0; v < 20; v++) printf "4194304,4,0,%d,0,10,alone\n", v
}' >"$1"
}
