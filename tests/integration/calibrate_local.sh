#!/bin/bash
# The calibration command on this machine: real writers, a real sweep, and
# threshold detection on it.
#
# `topoplace throttle calibrate` runs 1 and 2 writer processes issuing
# 256 KiB requests (write + fsync) at six intervals for 150 ms each into a
# temporary directory (about 2 s in all).  Checked: the sweep file has the
# documented header; every point has samples from every writer; each
# writer's k-th request started no earlier than k x interval, and all but
# its first (always issued) within the duration; per writer and point the sample count matches duration /
# interval; the writers' files are gone afterwards.  Then
# `topoplace throttle thresholds` must account for both (size, clients)
# groups: each one either yields a table entry or is refused with a
# reason ("no knee" / "too few points"); a local disk may well have no
# knee, and the test does not pretend otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${abs_top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
# shellcheck source=../lib/bed.sh
. "$abs_top_srcdir/tests/lib/bed.sh"

topoplace=$abs_top_builddir/tools/topoplace
[[ -x $topoplace ]] || tp_skip "tools/topoplace is not built"
throttle() { "$topoplace" throttle "$@"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/target"

intervals="0us,500us,1ms,2ms,5ms,10ms"
duration_us=150000
tp_check "calibrate runs 2 writer counts x 6 intervals" \
	throttle calibrate --dir "$tmp/target" --sizes 256K --writers 1,2 \
	--intervals "$intervals" --duration 150ms --fsync each -o "$tmp/sweep.csv"
tp_check_eq "the sweep starts with the documented magic and header" \
	"# topoplace-sweep v1|request_bytes,clients,interval_us,client,start_us,latency_us" \
	"$(head -1 "$tmp/sweep.csv" | cut -c1-20)|$(sed -n 2p "$tmp/sweep.csv")"
tp_check_eq "the writers' files are removed" "" "$(ls -A "$tmp/target")"

# One line per (clients, interval, client): count, worst lateness check.
summary=$(awk -F, -v dur="$duration_us" 'NR > 2 {
		key = $2 " " $3 " " $4
		k = seen[key]++
		# k-th request of this writer may not start before k x interval
		if ($5 + 1 < k * $3) early[key]++
		# after the first (always issued), none starts past the duration
		if (k > 0 && $5 > dur) late[key]++
		if ($1 != 262144) size[key]++
	}
	END {
		for (key in seen)
			print key, seen[key], early[key] + 0, late[key] + 0, size[key] + 0
	}' "$tmp/sweep.csv" | sort -k1,1n -k2,2n -k3,3n)
echo "$summary" | sed 's/^/# clients interval client samples early late badsize: /'
tp_check_eq "every point has samples from each of its writers (1 + 2 per interval)" \
	18 "$(wc -l <<<"$summary")"
tp_check_eq "no request started before its slot (k x interval)" \
	0 "$(awk '{ s += $5 } END { print s + 0 }' <<<"$summary")"
tp_check_eq "no request but a writer's first started after the duration" \
	0 "$(awk '{ s += $6 } END { print s + 0 }' <<<"$summary")"
tp_check_eq "every sample has the requested size" \
	0 "$(awk '{ s += $7 } END { print s + 0 }' <<<"$summary")"
# With a positive interval a writer issues at most duration / interval + 1
# requests, and at least one; fsync latency may make it fewer.
bad_counts=$(awk -v dur="$duration_us" '$2 > 0 && ($4 < 1 || $4 > dur / $2 + 1)' <<<"$summary")
tp_check_eq "per-writer sample counts fit duration / interval" "" "$bad_counts"

throttle thresholds "$tmp/sweep.csv" -o "$tmp/table.csv" 2>"$tmp/thr.err"
rc=$?
sed 's/^/# /' "$tmp/thr.err"
entries=0
[[ -f $tmp/table.csv ]] && entries=$(grep '^262144,' "$tmp/table.csv" | cut -d, -f1,2 | sort -u | wc -l)
refused_groups=$(grep -E '^topoplace: warning: 262144 bytes x [12] clients: (no knee|too few points)' "$tmp/thr.err" | wc -l)
echo "# thresholds: exit $rc, $entries table entries, $refused_groups groups refused"
tp_check_eq "both groups are accounted for (threshold or a stated refusal)" \
	2 "$((entries + refused_groups))"
if ((entries > 0)); then
	tp_check_eq "a table was written: exit 0" 0 "$rc"
	tp_check "the table reads back and gives a window" \
		throttle window --table "$tmp/table.csv" --bytes 256K --clients 2 \
		--interval 100us
else
	tp_check_eq "no knee anywhere: exit 1" 1 "$rc"
	tp_check "no knee anywhere: the failure line says why" \
		grep -qE '^topoplace throttle thresholds: no threshold in the sweep: .*(no knee|too few points)' "$tmp/thr.err"
fi
tp_done
