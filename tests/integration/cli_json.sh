#!/bin/bash
# cli_json.sh: every `--json` form prints one valid JSON document on stdout
# (read back by Python's json module, not by eye), starts with its schema
# and version, and says the same as the text form of the same run:
#   - remap: hop-bytes and method as in the text, every rank mapped once,
#     the same mapping as the rankfile written beside it;
#   - cost: each mapping's hop-bytes as in the text table, class bytes
#     adding up, links with --per-link adding up to the stage totals;
#   - place: the text's hosts/leaves/reason, I/O servers and per-policy
#     loads; a request that cannot be met is a document (outcome not_met,
#     exit 1); --json with a fabric file and --io-servers is refused;
#   - throttle window: window and reason as in the text, absent figures null;
#   - config check: the shipped example valid with each setting's origin and
#     line; a bad file a document listing every error (exit 1, nothing on
#     stderr); --quiet with --json refused;
#   - fabric show/diff/load: counts as in the text; --json on an action that
#     writes files refused.
# Env: abs_top_builddir, abs_top_srcdir (make check).
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}
mdir=$abs_top_srcdir/tests/data/matrices
fdir=$abs_top_srcdir/tests/data/fabric
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
command -v python3 >/dev/null || tp_skip "python3 is needed to read JSON"

# jq_py FILE EXPR: evaluate the Python expression EXPR over the document d
# of FILE (which must parse as exactly one JSON value) and print it.
jq_py() {
	python3 -c '
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
r = eval(sys.argv[2])
print(r if not isinstance(r, bool) else str(r).lower())' "$1" "$2"
}
# doc NAME SCHEMA FILE: FILE is one JSON document of SCHEMA, version 1
doc() {
	tp_check_eq "$1: schema and version first" "['schema', 'version'] $2 1" \
		"$(jq_py "$3" "'%s %s %s' % (list(d)[:2], d['schema'], d['version'])" 2>&1)"
}

# ---- remap
"$tp" remap --matrix "$mdir/CoMD-16.txt" --fabric 1x4x4 \
	--hosts 'n[0001-0004]' --slots 4 >"$work/remap.txt"
"$tp" remap --matrix "$mdir/CoMD-16.txt" --fabric 1x4x4 \
	--hosts 'n[0001-0004]' --slots 4 --rankfile "$work/rf" \
	--json >"$work/remap.json"
tp_check_eq "remap --json exits 0" 0 $?
doc remap topoplace.remap "$work/remap.json"
tp_check_eq "remap: hop-bytes as in the text" \
	"$(sed -n 's/^hop-bytes after (\([a-z-]*\)): \([0-9]*\) .*/\1 \2/p' "$work/remap.txt")" \
	"$(jq_py "$work/remap.json" "'%s %d' % (d['method'], d['hop_bytes'])")"
tp_check_eq "remap: every rank once, in order" "16 True" \
	"$(jq_py "$work/remap.json" "'%d %s' % (len(d['mapping']), [m['rank'] for m in d['mapping']] == list(range(16)))")"
tp_check_eq "remap: the mapping is the rankfile's" \
	"$(sed -n 's/^rank \([0-9]*\)=\([^ ]*\) slot=\([0-9]*\)$/\1 \2 \3/p' "$work/rf")" \
	"$(jq_py "$work/remap.json" "'\n'.join('%d %s %d' % (m['rank'], m['host'], m['slot']) for m in d['mapping'])")"
tp_check_eq "remap: files written are named, others null" "$work/rf None None" \
	"$(jq_py "$work/remap.json" "'%s %s %s' % (d['files']['rankfile'], d['files']['machinefile'], d['files']['hostfile'])")"

# ---- cost
"$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric "$fdir/fat-4x4.cache" \
	--per-link >"$work/cost.txt"
"$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric "$fdir/fat-4x4.cache" \
	--per-link --json >"$work/cost.json"
tp_check_eq "cost --json exits 0" 0 $?
doc cost topoplace.cost "$work/cost.json"
tp_check_eq "cost: hop-bytes per mapping as in the table" \
	"$(sed -n 's/^hop-bytes  *//p' "$work/cost.txt" | tr -s ' ')" \
	"$(jq_py "$work/cost.json" "' '.join(str(m['hop_bytes']) for m in d['mappings'])")"
tp_check_eq "cost: mappings named, routes dmodk" "block cyclic random remap dmodk" \
	"$(jq_py "$work/cost.json" "' '.join([m['mapping'] for m in d['mappings']] + [d['routes']])")"
tp_check_eq "cost: per-link bytes add up to the stage totals" "true" \
	"$(jq_py "$work/cost.json" "all(sum(l['bytes'] for l in m['links']['per_link']) == sum(m['links']['stage_bytes'].values()) for m in d['mappings'])")"
tp_check_eq "cost: predicted total is the sum of its terms" "true" \
	"$(jq_py "$work/cost.json" "all(abs(p['total'] - p['max_rate'] - p['queue_search'] - p['contention']) <= 1e-9 * p['total'] for p in (m['predicted_s'] for m in d['mappings']))")"
"$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric 1x4x4 --slots 4 --json >"$work/cost2.json"
tp_check_eq "cost: a PxLxH tree has routes null and no links" "None False" \
	"$(jq_py "$work/cost2.json" "'%s %s' % (d['routes'], any('links' in m for m in d['mappings']))")"

# ---- place
"$tp" place --fabric 2x4x4 --nodes 6 --class comm_sensitive \
	--io-servers 2 >"$work/place.txt"
"$tp" place --fabric 2x4x4 --nodes 6 --class comm_sensitive \
	--io-servers 2 --json >"$work/place.json"
tp_check_eq "place --json exits 0" 0 $?
doc place topoplace.place "$work/place.json"
tp_check_eq "place: outcome, leaves and reason as in the text" \
	"placed $(sed -n 's/^leaves: //p' "$work/place.txt") | $(sed -n 's/^reason: //p' "$work/place.txt")" \
	"$(jq_py "$work/place.json" "'%s %s | %s' % (d['outcome'], ' '.join(d['leaves']), d['reason'])")"
tp_check_eq "place: six hosts, the servers and their reason as in the text" \
	"6 $(sed -n 's/^io-reason: //p' "$work/place.txt") True" \
	"$(jq_py "$work/place.json" "'%d %s %s' % (len(d['hosts']), d['io_servers']['reason'], all(h + ' (' in d['io_servers']['reason'] for h in d['io_servers']['hosts']))")"
tp_check_eq "place: one io_loads entry per server policy" \
	"$(sed -n '/^io-load:/,$p' "$work/place.txt" | grep -c '^  [a-z]')" \
	"$(jq_py "$work/place.json" "len(d['io_loads'])")"
"$tp" place --fabric 1x2x4 --nodes 6 --busy <(printf 'n0001 7 io_heavy\nn0005 8 io_heavy\n') \
	--json >"$work/notmet.json" 2>"$work/notmet.err"
tp_check_eq "place: a request that cannot be met exits 1" 1 $?
tp_check_eq "place: ... and is a document saying so" "not_met True" \
	"$(jq_py "$work/notmet.json" "'%s %s' % (d['outcome'], d['reason'].startswith('cannot be met now'))")"
tp_expect_fail "place: --json with a fabric file and --io-servers is refused" 2 \
	"topoplace place: --json with --io-servers compares the policies on a PxLxH tree only; for per-link loads over a fabric's routes use --io-kv" \
	"$tp" place --fabric "$fdir/fat-4x4.cache" --nodes 2 --io-servers 1 --json

# ---- throttle window
cat >"$work/table.csv" <<'CSV'
# topoplace-thresholds v1
request_bytes,clients,threshold_us,plateau_us,confidence
4194304,8,2000,100,1
CSV
"$tp" throttle window --table "$work/table.csv" --bytes 4M --clients 8 \
	--interval 800us >"$work/window.txt"
"$tp" throttle window --table "$work/table.csv" --bytes 4M --clients 8 \
	--interval 800us --json >"$work/window.json"
tp_check_eq "throttle window --json exits 0" 0 $?
doc "throttle window" topoplace.throttle-window "$work/window.json"
tp_check_eq "throttle window: window and reason as in the text" \
	"$(sed -n 's/^window_us=//p' "$work/window.txt") $(sed -n 's/^reason=//p' "$work/window.txt")" \
	"$(jq_py "$work/window.json" "'%d %s' % (d['window_us'], d['reason'])")"
tp_check_eq "throttle window: no curve, no victim figures: null" "None None None" \
	"$(jq_py "$work/window.json" "'%s %s %s' % (d['curve'], d['victim_slowdown'], d['measured_cost'])")"
tp_check_eq "throttle window: the text prints its reason once" 1 \
	"$(grep -c '^reason=' "$work/window.txt")"

# ---- config check
example=$work/topoplace.conf.example
sed "s|^#ThresholdTable=.*|ThresholdTable=$work/table.csv|" \
	"$abs_top_srcdir/etc/topoplace.conf.example" >"$example"
"$tp" config check --json "$example" >"$work/config.json" 2>"$work/config.err"
tp_check_eq "config check --json on the example exits 0" 0 $?
doc "config check" topoplace.config "$work/config.json"
leaf_line=$(grep -n '^PartitionName=leaf ' "$example" | cut -d: -f1)
tp_check_eq "config: the leaf partition's placement, from its line" \
	"leaf leaf partition $leaf_line" \
	"$(jq_py "$work/config.json" "' '.join(str(s[k]) for p in d['partitions'] if p['name'] == 'leaf' for s in p['settings'] if s['key'] == 'DefaultPlacement' for k in ('value',)) + ' ' + ' '.join('%s %s %s' % (p['name'], s['from'], s['line']) for p in d['partitions'] if p['name'] == 'leaf' for s in p['settings'] if s['key'] == 'DefaultPlacement')")"
tp_check_eq "config: an unset key is a default with line null" "none default None" \
	"$(jq_py "$work/config.json" "' '.join('%s %s %s' % (s['value'], s['from'], s['line']) for s in d['site']['settings'] if s['key'] == 'NodeNameMap')")"
tp_check_eq "config: a site-wide key names its line" "8 site $(grep -n '^ProfileKeep=' "$example" | cut -d: -f1)" \
	"$(jq_py "$work/config.json" "' '.join('%s %s %s' % (s['value'], s['from'], s['line']) for s in d['site']['settings'] if s['key'] == 'ProfileKeep')")"
tp_check_eq "config: as many site settings as the text prints" \
	"$("$tp" config check "$example" | sed -n '/^# site-wide/,/^$/p' | grep -c '=')" \
	"$(jq_py "$work/config.json" "len(d['site']['settings'])")"
printf 'Bogus=1\nRemapBudget=xx\nDefaultPlacement=leaf\n' >"$work/bad.conf"
"$tp" config check --json "$work/bad.conf" >"$work/bad.json" 2>"$work/bad.err"
tp_check_eq "config: a bad file exits 1" 1 $?
tp_check_eq "config: ... with every error in the document, none on stderr" \
	"False 2 2 0" \
	"$(jq_py "$work/bad.json" "'%s %d %d' % (d['valid'], d['error_count'], sum(e.startswith('$work/bad.conf: line ') for e in d['errors']))") $(wc -c <"$work/bad.err")"
"$tp" config check --json "$work/none.conf" >"$work/none.json" 2>/dev/null
tp_check_eq "config: an unreadable file is a document too" "1 False 1" \
	"$? $(jq_py "$work/none.json" "'%s %d' % (d['valid'], d['error_count'])")"
tp_expect_fail "config: --quiet and --json exclude each other" 2 \
	"topoplace config: check: --quiet and --json exclude each other" \
	"$tp" config check --quiet --json "$example"

# ---- fabric
"$tp" fabric show --cache "$fdir/fat3-2x2x2.cache" >"$work/show.txt"
"$tp" fabric show --cache "$fdir/fat3-2x2x2.cache" --json >"$work/show.json"
tp_check_eq "fabric show --json exits 0" 0 $?
doc "fabric show" topoplace.fabric-show "$work/show.json"
tp_check_eq "fabric show: summary as in the text" \
	"$(sed -n 's/^summary: //p' "$work/show.txt")" \
	"$(jq_py "$work/show.json" "' '.join('%s=%s' % kv for kv in d['summary'].items())")"
tp_check_eq "fabric show: the text's leaves with their hosts" \
	"$(sed -n 's/^leaf \([^ ]*\) \([^ ]*\) hosts=[0-9]*: /\1 \2 /p' "$work/show.txt")" \
	"$(jq_py "$work/show.json" "'\n'.join(' '.join([l['name'], l['pod']] + [h['name'] for h in l['hosts']]) for l in d['leaves'])")"
"$tp" fabric diff --cache "$fdir/fat-4x4.cache" \
	--before-cache "$fdir/fat3-2x2x2.cache" >"$work/diff.txt"
"$tp" fabric diff --cache "$fdir/fat-4x4.cache" \
	--before-cache "$fdir/fat3-2x2x2.cache" --json >"$work/diff.json"
doc "fabric diff" topoplace.fabric-diff "$work/diff.json"
tp_check_eq "fabric diff: the same findings, each with a kind" \
	"$(sed -n 's/^diff: //p' "$work/diff.txt") $(sed -n 's/^differences: //p' "$work/diff.txt")" \
	"$(jq_py "$work/diff.json" "'\n'.join(f['text'] for f in d['findings'] if f['kind'] != 'unknown') + ' %d' % d['differences']")"
"$tp" fabric load --cache "$fdir/fat-4x4.cache" --dmodk \
	--matrix "$mdir/CoMD-16.txt" >"$work/load.txt" 2>&1
"$tp" fabric load --cache "$fdir/fat-4x4.cache" --dmodk \
	--matrix "$mdir/CoMD-16.txt" --json >"$work/load.json"
doc "fabric load" topoplace.fabric-load "$work/load.json"
tp_check_eq "fabric load: flows, bytes and hop-bytes as in the text" \
	"$(sed -n 's/^traffic: \([0-9]*\) flows, \([0-9]*\) bytes, hop-bytes \([0-9]*\)$/\1 \2 \3/p' "$work/load.txt")" \
	"$(jq_py "$work/load.json" "'%d %d %d' % (d['flows'], d['bytes'], d['hop_bytes'])")"
tp_expect_fail "fabric: --json on an action that writes files is refused" 2 \
	"topoplace fabric: --json: for show, diff and load (topology writes a file or paths)" \
	"$tp" fabric topology --cache "$fdir/fat-4x4.cache" --json

tp_done
