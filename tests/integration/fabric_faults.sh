#!/bin/bash
# fabric_faults.sh - ibsim fault injection on a 2-level 4x4 fat tree: after
# `Unlink` of a spine, of one leaf uplink, and of a host, the model of the
# fabric (diffed against a cache saved before) reports exactly what
# changed and nothing else, and `fabric show` names the missing uplink.
# After ReLink the fabric equals the saved one again.
# Output: "ok"/"not ok" lines, then "N passed, N failed"; 77 when ibsim,
# libumad2sim or topoplace-fattree is missing.
. "$(cd "$(dirname "$0")" && pwd)/fabric_common.sh"
fabric_need ibsim timeout "$FABRIC_UMAD2SIM" "$gen" "${tool[0]}" || fabric_finish

net=$FABRIC_DIR/fat-4x4.net
before=$FABRIC_DIR/before.cache
out=$FABRIC_DIR/diff.out
"$gen" --leaves 4 --hosts-per-leaf 4 --spines 2 -o "$net" || fabric_finish
if ! fabric_start "$net" 2>"$FABRIC_DIR/err"; then
	fabric_fail "ibsim serves the fabric" "$(cat "$FABRIC_DIR/err")"
	fabric_finish
fi
fc_check "the intact fabric is cached" \
	fabric_run 60 "${tool[@]}" cache "$before"

# diff_after DESCRIPTION EXPECTED-DIFF-LINES: diff live against the cache
diff_after() {
	fabric_run 60 "${tool[@]}" diff --before-cache "$before" >"$out" 2>"$FABRIC_DIR/err"
	fc_eq "$1" "$2" "$(grep -E '^(diff|differences):' "$out")"
}

# leaf002's port cabled to spine002, from the net file
uplink=$(awk '/^Switch.*"leaf002"/ { on = 1; next } /^$/ { on = 0 }
	on && /"spine002"/ { gsub(/[][]/, " ", $1); print $1 + 0; exit }' "$net")

diff_after "nothing changed: no difference" "differences: 0"

fabric_console 'Unlink "spine001"' >/dev/null
diff_after "Unlink spine001: exactly the spine is gone" \
	"diff: gone: switch spine001 (level 2)
differences: 1"
fabric_console 'ReLink "spine001"' >/dev/null
diff_after "ReLink spine001: no difference again" "differences: 0"

fabric_console "Unlink \"leaf002\"[$uplink]" >/dev/null
diff_after "Unlink leaf002[$uplink]: exactly the uplink to spine002 is gone" \
	"diff: gone: 1 cable leaf002 - spine002
differences: 1"
fabric_run 60 "${tool[@]}" show >"$FABRIC_DIR/show" 2>/dev/null
fc_eq "fabric show names the missing uplink" \
	"finding: leaf leaf002 (pod01) has no uplink to spine002 (1 of 2 level-2 switches of its pod)" \
	"$(grep '^finding:' "$FABRIC_DIR/show")"
fabric_console "ReLink \"leaf002\"[$uplink]" >/dev/null

fabric_console 'Unlink "n0007"' >/dev/null
diff_after "Unlink n0007: exactly the host is gone" \
	"diff: gone: host n0007 (was on leaf002)
differences: 1"
fabric_run 60 "${tool[@]}" show >"$FABRIC_DIR/show" 2>/dev/null
fc_eq "fabric show: leaf002 has 3 hosts, the others 4" \
	"finding: leaves have different host counts: 3 of 4 leaves have 4 hosts; leaf002 has 3" \
	"$(grep '^finding:' "$FABRIC_DIR/show")"
fabric_finish
