#!/bin/bash
# fabric_slurm.sh - the topology.conf `topoplace fabric topology` writes
# from discovered fabrics (the ibnetdiscover caches of tests/data/fabric:
# 2-level 4x4 and 3-level 2 pods x 2 leaves x 2 hosts) is accepted by a
# real slurmctld (tests/lib/tp-bed --topology): every node comes up and
# Slurm's switch hierarchy is the one written.
# Output: "ok"/"not ok" lines, then "N passed, N failed"; 77 without Slurm.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need timeout slurmctld slurmd scontrol "${tool[0]}" || fabric_finish
bed=$abs_top_srcdir/tests/lib/tp-bed

for cache in fat-4x4 fat3-2x2x2; do
	conf=$FABRIC_DIR/$cache.topology.conf
	if ! "${tool[@]}" topology --cache "$abs_top_srcdir/tests/data/fabric/$cache.cache" \
		-o "$conf" 2>"$FABRIC_DIR/err"; then
		fabric_fail "$cache: topology.conf written" "$(cat "$FABRIC_DIR/err")"
		continue
	fi
	hosts=$(grep -o 'Nodes=[^ ]*' "$conf" | wc -l)
	# inside the bed: the switches Slurm knows, and the idle node count
	TP_BED_KEEP=0 timeout 300 "$bed" --topology "$conf" --timeout 240 -- \
		bash -c 'scontrol show topology | sed -n "s/^SwitchName=\([^ ]*\) .*/\1/p" | sort | tr "\n" " "; echo;
			sinfo -h -o "%D %t"' >"$FABRIC_DIR/bed.out" 2>"$FABRIC_DIR/bed.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fabric_fail "$cache: slurmctld accepts the written topology.conf" \
			"tp-bed exited $rc" "$(tail -n 8 "$FABRIC_DIR/bed.err")"
		continue
	fi
	fabric_pass "$cache: slurmctld accepts the written topology.conf"
	fc_eq "$cache: Slurm's switches are the written ones" \
		"$(sed -n 's/^SwitchName=\([^ ]*\) .*/\1/p' "$conf" | sort | tr '\n' ' ')" \
		"$(sed -n 1p "$FABRIC_DIR/bed.out")"
	want=$("${tool[@]}" show --cache "$abs_top_srcdir/tests/data/fabric/$cache.cache" |
		sed -n 's/^summary: .* hosts=\([0-9]*\) .*/\1/p')
	fc_eq "$cache: all $want nodes of $hosts leaves are idle" "$want idle" \
		"$(sed -n 2p "$FABRIC_DIR/bed.out")"
done
fabric_finish
