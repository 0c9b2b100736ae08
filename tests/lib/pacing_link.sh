# pacing_link.sh: a real shared link for the pacing library's experiments,
# sourced by bench/pacing_link_bench.sh and tests/integration/pacing_link.sh.
#
# Call link_setup inside private network, mount and pid namespaces
# (unshare --net --mount --pid --fork --mount-proc): it makes two more
# network namespaces, a router and the servers', joined by veth pairs
# (clients -> router -> servers); the router's egress to the servers is a
# tc tbf of LINK_RATE with a LINK_LIMIT fifo (the shared link), and it
# starts the I/O sink and the victim's echo server in the servers' one.
# The bottleneck is one hop away, as a switch port is: on the clients' own
# interface TCP would see the queue (TCP small queues) and never fill it.
# Runs put I/O clients (pacing_link writer, through the pacing library)
# and the victim (pacing_link ping) here, started at one instant, and
# append topoplace-sweep(5) v2 rows to a sweep file.
#
# Needs: lib (libtopoplace_pacing.so), link (the pacing_link program),
# topoplace (the CLI).  Settings, each with its default below.
: "${LINK_RATE:=250mbit}" "${LINK_LIMIT:=512kb}" "${LINK_MTU:=9000}"
: "${LINK_CLIENTS:=${CLIENTS:-8}}" "${LINK_BYTES:=${BYTES:-4194304}}"
: "${LINK_CLIENT_RATE:=${CLIENT_RATE:-7812500}}"
: "${LINK_DURATION:=${DURATION:-10000000}}"
: "${LINK_PING_BYTES:=${PING_BYTES:-4096}}" "${LINK_PING_EVERY:=${PING_EVERY:-1000}}"
LINK_SERVER=10.77.1.2
LINK_NETNS=tpsrv
LINK_ROUTER=tprt
LINK_JOB_ID=4242
# The victim and its echo server run at real-time priority: on a cluster
# they have cores of their own on other nodes; here they share two cores
# with the I/O clients (and anything else on the machine), and without it
# their round trips would measure CPU scheduling, not the link.
LINK_VICTIM_PRIO=${LINK_VICTIM_PRIO-chrt -f 50}

link_setup() {
	local i
	LINK_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tp-link.XXXXXX") || return 1
	mount --make-rprivate / &&
		mkdir -p /run/netns && mount -t tmpfs tp-netns /run/netns &&
		ip link set lo up &&
		ip netns add $LINK_ROUTER && ip netns add $LINK_NETNS &&
		ip link add tpv0 type veth peer name tpr0 netns $LINK_ROUTER &&
		ip -n $LINK_ROUTER link add tpr1 type veth peer name tpv1 netns $LINK_NETNS &&
		ip link set tpv0 mtu "$LINK_MTU" gso_max_segs 1 &&
		ip addr add 10.77.0.1/24 dev tpv0 && ip link set tpv0 up &&
		ip route add default via 10.77.0.254 &&
		ip -n $LINK_ROUTER link set lo up &&
		ip -n $LINK_ROUTER link set tpr0 mtu "$LINK_MTU" &&
		ip -n $LINK_ROUTER link set tpr1 mtu "$LINK_MTU" gso_max_segs 1 &&
		ip -n $LINK_ROUTER addr add 10.77.0.254/24 dev tpr0 &&
		ip -n $LINK_ROUTER addr add 10.77.1.254/24 dev tpr1 &&
		ip -n $LINK_ROUTER link set tpr0 up && ip -n $LINK_ROUTER link set tpr1 up &&
		ip netns exec $LINK_ROUTER sysctl -qw net.ipv4.ip_forward=1 &&
		ip -n $LINK_NETNS link set lo up &&
		ip -n $LINK_NETNS link set tpv1 mtu "$LINK_MTU" &&
		ip -n $LINK_NETNS addr add $LINK_SERVER/24 dev tpv1 &&
		ip -n $LINK_NETNS link set tpv1 up &&
		ip -n $LINK_NETNS route add default via 10.77.1.254 &&
		tc -n $LINK_ROUTER qdisc add dev tpr1 root tbf rate "$LINK_RATE" burst 32kb limit "$LINK_LIMIT" || {
		echo "pacing_link: cannot set up the link (namespaces, veth, tc)" >&2
		return 1
	}
	ip netns exec $LINK_NETNS "$link" sink $LINK_SERVER 9000 "$LINK_BYTES" &
	LINK_SINK_PID=$!
	$LINK_VICTIM_PRIO ip netns exec $LINK_NETNS "$link" echo $LINK_SERVER 9001 "$LINK_PING_BYTES" &
	LINK_ECHO_PID=$!
	for ((i = 0; i < 50; i++)); do
		(exec 3<>/dev/tcp/$LINK_SERVER/9000 && exec 4<>/dev/tcp/$LINK_SERVER/9001) 2>/dev/null && return 0
		sleep 0.1
	done
	echo "pacing_link: the sink and echo servers did not start" >&2
	return 1
}

link_cleanup() {
	kill "${LINK_SINK_PID:-}" "${LINK_ECHO_PID:-}" 2>/dev/null
	wait 2>/dev/null
	[[ -n ${LINK_TMP:-} ]] && rm -rf "$LINK_TMP"
}

# link_sweep_header TEXT: the first two lines of a v2 sweep.
link_sweep_header() {
	printf '# topoplace-sweep v2 %s\nrequest_bytes,clients,interval_us,client,start_us,latency_us,kind\n' "$1"
}

# link_victim_rows WINDOW_US KIND < ping output: sweep rows.
link_victim_rows() {
	awk -v b="$LINK_BYTES" -v c="$LINK_CLIENTS" -v w="$1" -v k="$2" \
		'{ printf "%s,%s,%s,0,%s,%s,%s\n", b, c, w, $1, $2, k }'
}

# link_ping AT_NS: the victim, from AT for LINK_DURATION.
link_ping() {
	$LINK_VICTIM_PRIO "$link" ping $LINK_SERVER 9001 "$LINK_PING_BYTES" "$LINK_PING_EVERY" "$1" "$LINK_DURATION"
}

# link_run_alone SWEEP: the victim with the I/O idle, as alone rows.
link_run_alone() {
	local at=$(($(date +%s%N) + 200000000))
	link_ping $at >"$LINK_TMP/ping" || return 1
	link_victim_rows 0 alone <"$LINK_TMP/ping" >>"$1"
}

# link_run_point SWEEP WINDOW_US on|off: LINK_CLIENTS writers with the
# window (0: unthrottled) and the phase on or off, and the victim, all
# started together one second from now (time to start them all); appends
# io and victim rows.  The unthrottled point runs a 1 us window so the
# library still records each start; its requests take far longer than
# that, so the window never holds one back.
link_run_point() {
	local sweep=$1 w=$2 phase=$3 at i pids=() failed=0 lib_w
	lib_w=$w
	((w == 0)) && lib_w=1
	at=$(($(date +%s%N) + 1000000000))
	for ((i = 0; i < LINK_CLIENTS; i++)); do
		rm -f "$LINK_TMP/stats.$i"
		env LD_PRELOAD="$lib" TOPOPLACE_IO_PACE_SOCKETS=1 \
			TOPOPLACE_IO_WINDOW_US=$lib_w TOPOPLACE_IO_PACING_STATS="$LINK_TMP/stats.$i" \
			SLURM_JOB_ID=$LINK_JOB_ID SLURM_PROCID=$i \
			$([[ $phase == off ]] && echo TOPOPLACE_IO_PHASE=0) \
			"$link" writer $LINK_SERVER 9000 "$LINK_BYTES" "$LINK_CLIENT_RATE" $at "$LINK_DURATION" \
			>"$LINK_TMP/writer.$i" &
		pids+=($!)
	done
	link_ping $at >"$LINK_TMP/ping" &
	pids+=($!)
	for i in "${pids[@]}"; do wait "$i" || failed=1; done
	((failed)) && { echo "pacing_link: a writer or the victim failed" >&2; return 1; }
	for ((i = 0; i < LINK_CLIENTS; i++)); do
		# The k-th start the library recorded is the k-th request.
		paste -d' ' \
			<(awk '$1 == "start" { sub("ns=", "", $4); print $4 }' "$LINK_TMP/stats.$i" | sort -n) \
			<(sed -n 's/^done_ns=//p' "$LINK_TMP/writer.$i") |
			awk -v b="$LINK_BYTES" -v c="$LINK_CLIENTS" -v w="$w" -v i="$i" \
				-v t0="$(sed -n 's/^t0_ns=//p' "$LINK_TMP/writer.$i")" \
				'NF == 2 { printf "%s,%s,%s,%d,%.3f,%.3f,io\n", b, c, w, i, ($1 - t0) / 1000, ($2 - $1) / 1000 }'
	done >>"$sweep"
	link_victim_rows "$w" victim <"$LINK_TMP/ping" >>"$sweep"
}

# link_latency_stats KIND WINDOW_US < sweep: "mean p99" of the latencies
# of the rows of that kind and window (LINK_STATS_DECIMALS [1] decimals).
link_latency_stats() {
	awk -F, -v k="$1" -v w="$2" '$7 == k && $3 == w { print $6 }' |
		sort -g | awk -v d="${LINK_STATS_DECIMALS:-1}" '{ v[NR] = $1; s += $1 }
		END { if (!NR) { print "0 0"; exit }
			p = 0.99 * (NR - 1); lo = int(p); f = p - lo
			q = (lo + 1 < NR) ? v[lo + 1] * (1 - f) + v[lo + 2] * f : v[NR]
			printf "%." d "f %." d "f\n", s / NR, q }'
}

# link_io_interval WINDOW_US < sweep: the clients' mean start-to-start
# interval at that window (us) and the number of requests.
link_io_interval() {
	awk -F, -v w="$1" '$7 == "io" && $3 == w { print $4, $5 }' | sort -k1,1n -k2,2g |
		awk '{ if (NR == 1 || $1 != c) { if (n[c] > 1) { s += (l - f) / (n[c] - 1); k++ } c = $1; f = $2 } n[$1]++; l = $2; r++ }
		END { if (n[c] > 1) { s += (l - f) / (n[c] - 1); k++ } printf "%.0f %d\n", k ? s / k : 0, r }'
}

# link_point_summary SWEEP WINDOW_US: one line of figures.
link_point_summary() {
	local alone victim io
	alone=$(link_latency_stats alone 0 <"$1")
	victim=$(link_latency_stats victim "$2" <"$1")
	io=$(link_io_interval "$2" <"$1")
	awk -v w="$2" -v a="$alone" -v v="$victim" -v io="$io" 'BEGIN {
		split(a, A, " "); split(v, V, " "); split(io, I, " ")
		printf "%-10s %10s %11.2fx %9.2fx %10d\n", w, I[1], V[1] / A[1], V[2] / A[2], I[2] }'
}

# link_choose_window TABLE OBJECTIVE: print the decision (indented, to
# stderr) and the chosen window_us (stdout).
link_choose_window() {
	local out
	out=$("$topoplace" throttle window --table "$1" --bytes "$LINK_BYTES" \
		--clients "$LINK_CLIENTS" \
		--interval "$((LINK_BYTES * 1000000 / LINK_CLIENT_RATE))us" \
		--objective "$2") || return 1
	sed 's/^/   /' <<<"$out" >&2
	sed -n 's/^window_us=//p' <<<"$out"
}

# link_objective_met OBJECTIVE MEAN_X: true when mpi_slowdown<=X holds.
link_objective_met() {
	local bound=${1#mpi_slowdown<=}
	[[ $bound != "$1" ]] || return 2
	awk -v m="$2" -v b="$bound" 'BEGIN { exit !(m <= b) }'
}

# link_check_run WINDOW_US on|off OBJECTIVE RUN: the victim alone, then
# the clients at the window with the victim; prints one line of figures
# and sets LINK_MEAN_X and LINK_MET (yes|no).
link_check_run() {
	local sweep=$LINK_TMP/check.csv alone victim
	link_sweep_header check >"$sweep"
	link_run_alone "$sweep" && link_run_point "$sweep" "$1" "$2" || return 1
	alone=$(link_latency_stats alone 0 <"$sweep")
	victim=$(link_latency_stats victim "$1" <"$sweep")
	LINK_MEAN_X=$(awk -v a="${alone% *}" -v v="${victim% *}" 'BEGIN { printf "%.3f", v / a }')
	LINK_P99_X=$(awk -v a="${alone#* }" -v v="${victim#* }" 'BEGIN { printf "%.3f", v / a }')
	LINK_MET=no
	link_objective_met "$3" "$LINK_MEAN_X" && LINK_MET=yes
	printf "%-6s %4s %10.1fus %8.1fus %10.1fus %9.3fx %9.3fx %s\n" "$2" "$4" \
		"${alone% *}" "${alone#* }" "${victim% *}" "$LINK_MEAN_X" "$LINK_P99_X" "$LINK_MET"
}
