#!/bin/bash
# smoke_bed_cleanup.sh - a tp-bed killed with SIGKILL leaves nothing behind:
# no process of its PID namespace (munged, slurmctld, slurmd, slurmstepd, job
# processes) and nothing on the host filesystem; its logs are still kept.
#
# Processes are matched by the bed's PID namespace, never by name, so the
# machine's other daemons and other beds are not touched or counted.

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${abs_top_srcdir:-$here/../..}
. "$srcdir/tests/lib/bed.sh"
tp_require_bed

work=$(mktemp -d "${TMPDIR:-/tmp}/tp-bed-cleanup.XXXXXX") || exit 99
bed=
cleanup() {
	[[ -n $bed ]] && kill -KILL "$bed" 2>/dev/null
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM # run cleanup on these too

# procs_in_ns NS [TICKS]: "pid comm" of every live process whose PID
# namespace is NS (and, with TICKS, that started by TICKS clock ticks after
# boot).  The kernel reuses a dead namespace's inode number: another bed
# started after the SIGKILL (tests run in parallel) can get this one's, and
# its processes are not this bed's leftovers.
procs_in_ns() {
	local d ns state start
	for d in /proc/[0-9]*; do
		ns=$(readlink "$d/ns/pid" 2>/dev/null) || continue
		[[ $ns == "$1" ]] || continue
		# comm may hold spaces: the fields after its closing parenthesis
		read -r state start < <(sed 's/.*) //' "$d/stat" 2>/dev/null |
			awk '{print $1, $20}') || continue
		[[ $state == Z ]] && continue
		[[ -n ${2:-} ]] && ((start > $2)) && continue
		echo "${d#/proc/} $(cat "$d/comm" 2>/dev/null)"
	done
}
# Clock ticks since boot now, as /proc/PID/stat counts a start time.
ticks_now() {
	awk -v hz="$(getconf CLK_TCK)" '{printf "%d\n", $1 * hz + 1}' /proc/uptime
}

# Inside the bed: start a job whose steps are running (so slurmstepd and job
# processes exist), report the bed's identity, then wait to be killed.
"$srcdir/tests/lib/tp-bed" --nodes 8 --leaves 2 --timeout 120 --keep "$work/keep" -- \
	bash -c '
		set -u
		job=$(sbatch --parsable -N 2 -o /dev/null --wrap "srun sleep 300") || exit 1
		for i in $(seq 100); do
			# srun runs the tasks as /usr/bin/sleep 300
			[[ $(pgrep -c -f "/sleep 300\$") -ge 2 ]] && break
			sleep 0.1
		done
		scontrol ping >"$1/ping"
		echo "$TP_BED_DIR" >"$1/dir"
		readlink /proc/self/ns/pid >"$1/ns.tmp" && mv "$1/ns.tmp" "$1/ns"
		exec sleep 300' bed "$work" </dev/null &
bed=$!

for ((i = 0; i < 600; i++)); do
	[[ -s $work/ns ]] && break
	kill -0 "$bed" 2>/dev/null || break
	sleep 0.1
done
if [[ ! -s $work/ns ]]; then
	tp_fail "bed came up" "tp-bed exited before its command reported"
	tp_done
fi
ns=$(cat "$work/ns")
dir=$(cat "$work/dir")
tp_check "slurmctld of the bed answered" grep -q 'is UP' "$work/ping"

before=$(procs_in_ns "$ns")
missing=
for d in munged slurmctld slurmd slurmstepd; do
	awk -v c="$d" '$2 == c {f = 1} END {exit !f}' <<<"$before" || missing+=" $d"
done
tp_check_eq "bed runs munged, slurmctld, slurmd and a job's slurmstepd" "" "$missing"
echo "# $(wc -l <<<"$before") processes in bed namespace $ns before SIGKILL"

kill -KILL "$bed"
t0=${EPOCHREALTIME/[.,]/}
killed_at=$(ticks_now)
{ wait "$bed"; } 2>/dev/null # reap it here, without bash's "Killed" notice
bed=
deadline=$((SECONDS + 10))
while [[ -n $(procs_in_ns "$ns" "$killed_at") ]] && ((SECONDS < deadline)); do
	sleep 0.1
done
left=$(procs_in_ns "$ns" "$killed_at")
tp_check_eq "no process of the bed left within 10 s of SIGKILL" "" "$left"
echo "# bed namespace empty $(((${EPOCHREALTIME/[.,]/} - t0) / 1000)) ms after SIGKILL"

tp_check "bed state dir $dir is empty on the host" \
	test -z "$(ls -A -- "$dir" 2>&1)"
tp_check "no bed tmpfs mounted on the host" \
	eval "! grep -q ' $dir ' /proc/self/mountinfo"
# Keeping the logs is the last step of the teardown: wait for it briefly.
for ((i = 0; i < 50; i++)); do
	[[ -s $work/keep/log/slurmctld.log ]] && break
	sleep 0.1
done
tp_check "logs kept after SIGKILL" test -s "$work/keep/log/slurmctld.log"

tp_done
