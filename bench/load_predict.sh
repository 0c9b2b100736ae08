#!/bin/bash
# load_predict.sh: the cost model's predictions for every placement of a
# load_bench.sh run, from what actually ran (issue #15).
#
#   bench/load_predict.sh TOPOPLACE WORK RUN PODS LEAVES HOSTS SPINES CORES \
#       ROUTING SERVERS
#
# TOPOPLACE: the topoplace command; WORK: load_bench.sh's records
# (RUN.done: id state submit start end hosts, RUN.submitted: id swf class
# nodes run); the bed's fat tree: PODS pods of LEAVES leaves of HOSTS hosts,
# SPINES spines (aggregation switches a pod), CORES cores (0: 2-level);
# ROUTING: adaptive|static; SERVERS: how many I/O servers.
#
# The bed has no I/O servers and its topology.conf has one link between two
# switches, so the model gets the bed's tree with its real uplinks and one
# more leaf in each pod for storage (`topoplace cost --fabric
# PODSx(LEAVES+1)xHOSTSxSPINES[xCORES]`, the "dedicated leaves" of the
# issue's measurements): the bed's hosts keep their place in their pod
# (their names shift by a leaf a pod), the SERVERS servers go round-robin
# on the storage leaves, from the last port down, and no job runs beside
# them.
#
# At every instant a job started, the jobs running then (start <= t < end)
# go to `topoplace cost --busy` as an occupancy file: it gives the busiest
# switch link direction of the I/O traffic (every io_heavy host writes one
# host link's rate striped over the servers) and, for each comm_sensitive
# job of 2+ hosts, the largest I/O load on a link direction its traffic
# uses (contention; in host links, above 1.0 the link is oversubscribed).
# Jobs only start at those instants, so the maximum over them is each job's
# worst moment.  Writes WORK/RUN.predict (per comm_sensitive job of 2+
# hosts: id hosts contention link t, its worst moment, t in s from the
# run's first start; links named in the model's tree) and prints one
# summary line.
set -u
tp=$1 work=$2 run=$3 pods=$4 lpp=$5 hpl=$6 spines=$7 cores=$8 routing=$9
servers=${10}
((servers >= 1 && servers <= pods * hpl)) ||
	{ echo "load_predict: $servers servers do not fit $pods storage leaves of $hpl hosts" >&2; exit 1; }
fabric=${pods}x$((lpp + 1))x${hpl}x${spines}
((cores > 0)) && fabric+=x$cores
# The servers' lines, and where they are for the summary.
ioservers=$(for ((k = 0; k < servers; k++)); do
	printf 'n%04d ioserver\n' $(((k % pods) * (lpp + 1) * hpl + lpp * hpl + hpl - k / pods))
done)
storage=$(for ((p = 0; p < pods && p < servers; p++)); do printf ' leaf%03d' $((p * (lpp + 1) + lpp + 1)); done)
snaps=$(mktemp -d "${TMPDIR:-/tmp}/tp-load-predict.XXXXXX") || exit 1
trap 'rm -rf "$snaps"' EXIT

# One occupancy file per distinct start time: snaps/T (host jobid class).
awk -v dir="$snaps" -v per_pod=$((lpp * hpl)) -v pod_hosts=$((lpp * hpl + hpl)) \
	-v servers="$ioservers" '
	FNR == 1 { f++ }
	f == 1 { class[$1] = $3; next }
	$4 > 0 && $6 != "-" {
		n++; id[n] = $1; st[n] = $4; en[n] = $5; hosts[n] = $6
		starts[$4] = 1
	}
	END {
		for (t in starts) {
			file = dir "/" t
			for (k = 1; k <= n; k++) {
				if (!(st[k] <= t && t < en[k])) continue
				c = class[id[k]] == "" ? "quiet" : class[id[k]]
				m = split(hosts[k], h, ",")
				for (i = 1; i <= m; i++) {
					# the bed host in the model tree (a storage leaf a pod)
					x = int((h[i] - 1) / per_pod) * pod_hosts + (h[i] - 1) % per_pod + 1
					printf "n%04d %s %s\n", x, id[k], c > file
				}
			}
			print servers > file
			close(file)
		}
	}' "$work/$run.submitted" "$work/$run.done" || exit 1

t0=$(ls "$snaps" | sort -n | head -1)
[ -n "$t0" ] || { echo "# $run: predicted: no job started"; exit 0; }
for snap in $(ls "$snaps" | sort -n); do
	out=$("$tp" cost --busy "$snaps/$snap" --fabric "$fabric" \
		--routing "$routing") ||
		{ echo "load_predict: $run: topoplace cost --busy failed at $snap" >&2; exit 1; }
	sed "s/^/t=$((snap - t0)) /" <<<"$out"
done | awk -v run="$run" -v fabric="$fabric" -v routing="$routing" \
	-v servers="$servers I/O servers on$storage" -v out="$work/$run.predict" '
	/ io-servers: / { next }
	/ io: / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["max_uplink"] + 0 > io_max) { io_max = v["max_uplink"] + 0; io_link = v["link"]; io_t = substr($1, 3) }
		next
	}
	/ job=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		j = v["job"]
		if (!(j in c) || v["contention"] + 0 > c[j]) {
			c[j] = v["contention"] + 0; link[j] = v["link"]
			hosts[j] = v["hosts"]; at[j] = substr($1, 3)
		}
	}
	END {
		print "# id hosts contention link t (worst moment, s from the first start)" > out
		for (j in c) {
			printf "%s %s %.3f %s %s\n", j, hosts[j], c[j], link[j], at[j] > out
			n++; sum += c[j]; if (c[j] > max) max = c[j]
			if (c[j] > 0) shared++
			if (c[j] > 1.0) over++
		}
		printf "# %s: predicted (cost --busy, %s routing, fabric %s, %s): comm_sensitive 2+ hosts %d, contention mean %.3f max %.3f, %d sharing a link with I/O, %d > 1.0; busiest I/O switch link %.3f (%s, t=%s s)\n", \
			run, routing, fabric, servers, n, n ? sum / n : 0, max, shared + 0, over + 0, io_max, io_link == "" ? "-" : io_link, io_t == "" ? "-" : io_t
	}'
