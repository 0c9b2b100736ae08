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
#   - fabric show/diff/load: counts as in the text; route: the text's path,
#     lids, hops and up-down, --all-leaves every path and both counts, an
#     unknown host one line and no document; --json on an action that
#     writes files refused;
#   - report hops/heatmap/io/fabric: the text's summary line(s); hop-class
#     bytes as topoplace cost's, heatmap cells holding every byte, the
#     sweep's knee and window, the trade-off's window and objective,
#     busiest links; explain: every figure of the page (policy and its
#     source, class, reason and thresholds, hosts, leaves, pods, held
#     hosts, the default, hop-bytes and bytes per class, predicted times
#     and ratios, I/O servers) equal in both forms, a job that waits
#     explained with exit 0 and nulls, a default without hop-bytes a null
#     ratio where the page says so, bad --fabric / --nodes the text's
#     one line and exit status with no document;
#   - profile show: header, digest, matrix, top pairs and collectives as in
#     the text; a missing profile one error line and no document;
#   - profile verify (files): one result per file, ok / refused / not_found,
#     the text's exit status and reasons;
#   - profile list, list --apps, verify on a store signed by a real private
#     munged: runs and application lines as in the text; a replayed run
#     refused with error auth, a flipped bit refused with error parse, a
#     missing name not_found; verify --as ok in its own place, auth in
#     another; munged stopped for real: not_checked with error io, never
#     refused, for a stored run and for --as (needs root and munge:
#     skipped otherwise).
# Env: abs_top_builddir, abs_top_srcdir (make check).
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
# shellcheck source=../lib/sweeps.sh
. "$abs_top_srcdir/tests/lib/sweeps.sh"
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
tp_check_eq "place: the remainder (6 hosts on 4-host leaves) as in the text" \
	"compatible $(sed -n 's/^remainder: //p' "$work/place.txt")" \
	"$(jq_py "$work/place.json" "'%s %s' % (d['leaf_remainder'], d['remainder'])")"
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
"$tp" fabric route --cache "$fdir/fat-4x4.cache" --dmodk n0001 n0016 >"$work/route.txt" 2>&1
"$tp" fabric route --cache "$fdir/fat-4x4.cache" --dmodk n0001 n0016 --json >"$work/route.json"
doc "fabric route" topoplace.fabric-route "$work/route.json"
tp_check_eq "fabric route: the text's path, lids, hops and up-down" \
	"$(sed -n 's/^path: //p; s/^lids: //p; s/^hops: //p; s/^up-down: //p' "$work/route.txt")" \
	"$(jq_py "$work/route.json" "(lambda r: '\n'.join([' -> '.join('%s[%d]' % (p['node'], p['port']) for p in r['path']) + ' -> ' + r['dst'], '%d %d' % (r['src_lid'], r['dst_lid']), str(r['hops']), 'yes' if r['up_down'] else 'no']))(d['routes_checked'][0])")"
"$tp" fabric route --cache "$fdir/fat3-2x2x2.cache" --dmodk --all-leaves --print-paths >"$work/routes.txt" 2>&1
"$tp" fabric route --cache "$fdir/fat3-2x2x2.cache" --dmodk --all-leaves --json >"$work/routes.json"
tp_check_eq "fabric route --all-leaves --json exits 0" 0 $?
doc "fabric route --all-leaves" topoplace.fabric-route "$work/routes.json"
tp_check_eq "fabric route --all-leaves: every path of the text, and its counts" \
	"$(sed -n 's/^path: //p' "$work/routes.txt"; sed -n 's/^leaf pairs: \([0-9]*\) up-down: \([0-9]*\)$/\1 \2/p' "$work/routes.txt")" \
	"$(jq_py "$work/routes.json" "'\n'.join([' -> '.join('%s[%d]' % (p['node'], p['port']) for p in r['path']) + ' -> ' + r['dst'] for r in d['routes_checked']] + ['%d %d' % (d['leaf_pairs'], d['up_down'])])")"
tp_expect_fail "fabric route --json: a host not in the fabric is one line, no document" 1 \
	"topoplace fabric route: ibnetdiscover cache $fdir/fat-4x4.cache: no host n9999 in the fabric" \
	"$tp" fabric route --cache "$fdir/fat-4x4.cache" --dmodk n0001 n9999 --json
tp_expect_fail "fabric: --json on an action that writes files is refused" 2 \
	"topoplace fabric: --json: for show, diff, route and load (topology writes a file)" \
	"$tp" fabric topology --cache "$fdir/fat-4x4.cache" --json

# ---- profile show / verify on files (no store)
"$tp" profile import --from matrix -o "$work/lulesh.tpp" "$mdir/LULESH-8.txt" >/dev/null
"$tp" profile show --pairs 5 "$work/lulesh.tpp" >"$work/pshow.txt"
"$tp" profile show --pairs 5 --json "$work/lulesh.tpp" >"$work/pshow.json"
tp_check_eq "profile show --json exits 0" 0 $?
doc "profile show" topoplace.profile-show "$work/pshow.json"
tp_check_eq "profile show: ranks, matrix and digest as in the text" \
	"$(sed -n 's/^ranks: *\([0-9]*\).*/\1/p' "$work/pshow.txt") $(sed -n 's/^matrix: *\([0-9]*\) pairs, \([0-9]*\) bytes, \([0-9]*\) messages$/\1 \2 \3/p' "$work/pshow.txt") $(sed -n 's/^digest: *sha256://p' "$work/pshow.txt")" \
	"$(jq_py "$work/pshow.json" "'%d %d %d %d %s' % (d['ranks'], d['matrix']['pairs'], d['matrix']['bytes'], d['matrix']['messages'], d['sha256'])")"
tp_check_eq "profile show: the text's top pairs, shares as its percentages" \
	"$(sed -n '/^top pairs:/,/^[a-z]/p' "$work/pshow.txt" | grep '^  *[0-9]' | tr -s ' ' | sed 's/^ //')" \
	"$(jq_py "$work/pshow.json" "'\n'.join('%d %d %d %d %.2f%%' % (p['src'], p['dst'], p['bytes'], p['msgs'], 100 * p['share']) for p in d['top_pairs'])")"
tp_check_eq "profile show: the text's collectives" \
	"$(sed -n '/^collectives:/,/^io:/p' "$work/pshow.txt" | grep '^  [A-Za-z]' | grep -v '^  name ' | tr -s ' ' | sed 's/^ //')" \
	"$(jq_py "$work/pshow.json" "'\n'.join('%s %d %d' % (c['name'], c['calls'], c['bytes']) for c in d['collectives'])")"
tp_check_eq "profile show: the header total is the matrix's bytes" \
	"$(head -1 "$mdir/LULESH-8.txt" | sed 's/.*total_bytes=\([0-9]*\).*/\1/')" \
	"$(jq_py "$work/pshow.json" "d['matrix']['bytes']")"
tp_check_eq "profile show: unsigned file, no per-node count, I/O of the text" \
	"none None $(sed -n 's/^io: *\([0-9]*\) requests.*, \([0-9]*\) clients$/\1 \2/p' "$work/pshow.txt")" \
	"$(jq_py "$work/pshow.json" "'%s %s %d %d' % (d['credential'], d['ranks_per_node'], d['io']['requests'], d['io']['client_count'])")"
tp_expect_fail "profile show --json: a missing profile is one error line, no document" 1 \
	"topoplace profile: $work/none.tpp: open: No such file or directory" \
	"$tp" profile show --json "$work/none.tpp"
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 1
open(sys.argv[2], 'wb').write(b)" "$work/lulesh.tpp" "$work/flipped.tpp"
"$tp" profile verify --json "$work/lulesh.tpp" "$work/flipped.tpp" "$work/none.tpp" \
	>"$work/pverify.json" 2>"$work/pverify.err"
rc=$?
"$tp" profile verify "$work/lulesh.tpp" "$work/flipped.tpp" "$work/none.tpp" >/dev/null 2>&1
tp_check_eq "profile verify --json: a bad file exits 1 as the text does" "1 1" "$rc $?"
doc "profile verify" topoplace.profile-verify "$work/pverify.json"
tp_check_eq "profile verify: one result per file, in order, each judged" \
	"$work/lulesh.tpp digest ok None|$work/flipped.tpp digest refused parse|$work/none.tpp digest not_found not_found|1 2|0" \
	"$(jq_py "$work/pverify.json" "'|'.join('%s %s %s %s' % (r['profile'], r['check'], r['status'], r['error']) for r in d['results']) + '|%d %d' % (d['ok'], d['failed'])")|$(wc -c <"$work/pverify.err")"
tp_check_eq "profile verify: a refusal's reason is the text's message" \
	"$("$tp" profile verify "$work/flipped.tpp" 2>&1 | sed 's/^topoplace profile: //')" \
	"$(jq_py "$work/pverify.json" "d['results'][1]['reason']")"
tp_expect_fail "profile: --json on an action that prints no report is refused" 2 \
	"topoplace profile: --json: for show, list and verify (export prints no report)" \
	"$tp" profile export --json --to dense "$work/lulesh.tpp"

# ---- report hops / heatmap / io / fabric / explain
"$tp" report hops --profile "$mdir/CoMD-16.txt" --fabric 1x4x4 --slots 4 \
	--mappings block,remap -o "$work/hops.svg" >"$work/hops.txt"
"$tp" report hops --profile "$mdir/CoMD-16.txt" --fabric 1x4x4 --slots 4 \
	--mappings block,remap -o "$work/hops-j.svg" --json >"$work/hops.json"
tp_check_eq "report hops --json exits 0, the picture written" "0 true" \
	"$? $([[ -s $work/hops-j.svg ]] && echo true)"
doc "report hops" topoplace.report-hops "$work/hops.json"
tp_check_eq "report hops: the text's summary" \
	"$(sed "s|$work/hops.svg|OUT|" "$work/hops.txt")" \
	"$(jq_py "$work/hops.json" "'wrote OUT (%dx%d, hop classes per %s, %d mappings)' % (d['width'], d['height'], d['by'], len(d['mappings']))")"
"$tp" cost --matrix "$mdir/CoMD-16.txt" --fabric 1x4x4 --slots 4 --json >"$work/hops-cost.json"
tp_check_eq "report hops: bytes by hop class per mapping are topoplace cost's" \
	"$(jq_py "$work/hops-cost.json" "' '.join('%s:%s' % (m['mapping'], sorted(m['class_bytes'].items())) for m in d['mappings'] if m['mapping'] in ('block', 'remap'))")" \
	"$(jq_py "$work/hops.json" "' '.join('%s:%s' % (m['mapping'], sorted(m['class_bytes'].items())) for m in d['mappings'])")"
"$tp" report heatmap --profile "$mdir/CoMD-16.txt" --fabric 2x2x2 --slots 2 \
	--mappings block,cyclic --by node -o "$work/heat.png" >"$work/heat.txt"
"$tp" report heatmap --profile "$mdir/CoMD-16.txt" --fabric 2x2x2 --slots 2 \
	--mappings block,cyclic --by node -o "$work/heat.png" --json >"$work/heat.json"
tp_check_eq "report heatmap --json exits 0" 0 $?
doc "report heatmap" topoplace.report-heatmap "$work/heat.json"
tp_check_eq "report heatmap: the text's summary" "$(cat "$work/heat.txt")" \
	"$(jq_py "$work/heat.json" "'wrote %s (%dx%d, heatmap per %s, %d mappings)' % (d['output'], d['width'], d['height'], d['by'], len(d['mappings']))")"
tp_check_eq "report heatmap: each mapping's cells hold all bytes, 8 nodes on 4 leaves" \
	"$(jq_py "$work/hops.json" "sum(d['mappings'][0]['class_bytes'].values())") 8 4|$(jq_py "$work/hops.json" "sum(d['mappings'][0]['class_bytes'].values())") 8 4" \
	"$(jq_py "$work/heat.json" "'|'.join('%d %d %d' % (m['bytes'], m['items'], m['leaves']) for m in d['mappings'])")"
tp_sweep_knee "$work/sweep.csv"
"$tp" report io --sweep "$work/sweep.csv" --bytes 4M --clients 4 \
	--interval 800us -o "$work/io.svg" >"$work/io.txt"
"$tp" report io --sweep "$work/sweep.csv" --bytes 4M --clients 4 \
	--interval 800us -o "$work/io.svg" --json >"$work/io.json"
tp_check_eq "report io --json exits 0" 0 $?
doc "report io" topoplace.report-io "$work/io.json"
tp_check_eq "report io: the text's summary" "$(cat "$work/io.txt")" \
	"$(jq_py "$work/io.json" "'wrote %s (%dx%d, %d intervals, %s)' % (d['output'], d['width'], d['height'], d['intervals'], 'threshold marked' if d['threshold'] else 'no knee')")"
tp_check_eq "report io: the sweep's knee (plateau 1000 us, threshold between its 1500 and 2000 us), the window at it" \
	"4194304 4 1000 1500 2000 True True" \
	"$(jq_py "$work/io.json" "'%d %d %g %g %g %s %s' % (d['request_bytes'], d['clients'], d['threshold']['plateau_us'], d['threshold']['knee_us'], d['threshold']['safe_us'], 1500 < d['threshold']['threshold_us'] < 2000, d['window_us'] == round(d['threshold']['threshold_us']) and 'below the threshold' in d['window_reason'])")"
"$tp" report io --sweep "$work/sweep.csv" --bytes 1M --clients 2 -o "$work/flat.svg" >"$work/flat.txt"
"$tp" report io --sweep "$work/sweep.csv" --bytes 1M --clients 2 -o "$work/flat.svg" --json >"$work/flat.json"
tp_check_eq "report io: a flat curve has threshold and window null, and says why" \
	"$(sed 's/.*, //; s/)$//' "$work/flat.txt") None None True" \
	"$(jq_py "$work/flat.json" "'%s %s %s %s' % ('no knee' if d['threshold'] is None else 'threshold marked', d['threshold'], d['window_us'], d['no_threshold_reason'].startswith('1048576 bytes x 2 clients: no knee'))")"
# a version 2 sweep: the trade-off form
tp_sweep_tradeoff "$work/v2.csv"
"$tp" report io --sweep "$work/v2.csv" --tradeoff --objective 'mpi_slowdown<=1.1' \
	-o "$work/tradeoff.png" >"$work/tradeoff.txt"
"$tp" report io --sweep "$work/v2.csv" --tradeoff --objective 'mpi_slowdown<=1.1' \
	-o "$work/tradeoff.png" --json >"$work/tradeoff.json"
tp_check_eq "report io --tradeoff --json exits 0" 0 $?
doc "report io --tradeoff" topoplace.report-io "$work/tradeoff.json"
tp_check_eq "report io --tradeoff: the text's summary, with the decision's reason" \
	"$(cat "$work/tradeoff.txt") True" \
	"$(jq_py "$work/tradeoff.json" "'wrote %s (%dx%d, %d windows, window %d us, objective %s) %s' % (d['output'], d['width'], d['height'], d['windows'], d['window_us'], d['objective'], d['tradeoff'] and len(d['window_reason']) > 0)")"
fjob="a=n[0001-0002],n[0005-0006],profile=$mdir/CoMD-16.txt,slots=4"
"$tp" report fabric --fabric "$fdir/fat-4x4.cache" --job "$fjob" --job 'b=n[0009-0010]' \
	-o "$work/fab.svg" --no-progress >"$work/fab.txt"
"$tp" report fabric --fabric "$fdir/fat-4x4.cache" --job "$fjob" --job 'b=n[0009-0010]' \
	-o "$work/fab.svg" --no-progress --json >"$work/fab.json"
tp_check_eq "report fabric --json exits 0" 0 $?
doc "report fabric" topoplace.report-fabric "$work/fab.json"
tp_check_eq "report fabric: the text's summary, routes, job and busiest links" \
	"$(cat "$work/fab.txt")" \
	"$(jq_py "$work/fab.json" "'\n'.join(['wrote %s: %dx%d, %d hosts %s, %d link strokes (2 per link)' % (d['output'], d['width'], d['height'], d['hosts'], 'one by one' if not d['aggregated'] else 'aggregated by leaf', d['link_strokes']) + ('' if not d['aggregated'] else ' + 2 per leaf for its host links'), 'routes: ' + ('modelled routes (D-mod-k, not read from the fabric)' if d['routes'] == 'modelled' else 'real routes (the switches\' forwarding tables)')] + ['job %s: %d ranks on %d hosts, at most %d per host (mapping %s)' % (j['name'], j['ranks'], j['hosts'], j['most_per_host'], j['mapping']) for j in d['jobs']] + ['busiest link: %s %d bytes' % (d['busiest_link']['link'], d['busiest_link']['bytes']), 'busiest switch link: %s %d bytes' % (d['busiest_switch_link']['link'], d['busiest_switch_link']['bytes'])])")"
"$tp" report fabric --fabric 1x4x4 -o "$work/idle.svg" --no-progress --json >"$work/idle.json"
tp_check_eq "report fabric: no traffic, busiest links null" "[] None None" \
	"$(jq_py "$work/idle.json" "'%s %s %s' % (d['jobs'], d['busiest_link'], d['busiest_switch_link'])")"
# explain: every figure of the page, read from the page and from the
# document of the same run by explain_fields (one "key<TAB>value" line
# each, the text's labels and number formats applied to the document's
# values), compared key by key.
explain_fields() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys

def fmt_bytes(b):
    # tp_canvas_format_bytes: three significant digits, binary units
    names = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
    dec = lambda v: 2 if v < 9.995 else 1 if v < 99.95 else 0
    v, u = float(b), 0
    while u < 5 and v >= 1024.0:
        v, u = v / 1024.0, u + 1
    d = 0 if u == 0 else dec(v)
    if u < 5 and v >= 1023.5:
        v, u = v / 1024.0, u + 1
        d = dec(v)
    return '%.*f %s' % (d, v, names[u])

rows = [('hop_bytes', 'hop-bytes \\(B x hops\\)'), ('on_node', 'bytes on-node'),
        ('same_leaf', 'bytes same leaf'), ('same_pod', 'bytes same pod'),
        ('other_pod', 'bytes across pods')]
out = {}
form, path = sys.argv[1], sys.argv[2]
if form == 'text':
    text = open(path).read()
    flat = ' '.join(text.split())  # undo the page's wrapping
    def grab(key, pattern, src=flat):
        m = re.search(pattern, src, re.M)
        if m:
            out[key] = ' '.join(g for g in m.groups() if g is not None)
    grab('heading', r'^Placement of (.*?): (\d+) hosts? Policy:')
    grab('policy', r'Policy: (\w+): ')
    grab('policy_source', r'Policy: \w+: .*? from: (.*?) Job class:')
    grab('class', r'Job class: (\w+) ')
    grab('class_reason', r'Job class: \w+ why: (.*?) io_heavy when:')
    grab('io_heavy_when', r'io_heavy when: at least (\S+ \S+) of I/O and (\S+ \S+)/s per client \(for (\d+) clients')
    grab('comm_sensitive_when', r'comm_sensitive when: messages of at most (\S+ \S+) at (\d+)/s per rank or more, or (\S+ \S+)/s per rank')
    grab('thresholds_source', r' thresholds: (.*?) (?:Hosts|Decision):')
    m = re.search(r'Decision: the job waits: (.*)$', flat)
    if m:
        out['outcome'] = 'not_met ' + m.group(1)
    else:
        m = re.search(r' Why: (.*?) Default \(first free', flat)
        out['outcome'] = 'placed ' + m.group(1) if m else '(no Why: line)'
        grab('hosts', r'Hosts: (.*?) Leaves:')
        grab('leaves', r'Leaves: (.*?) \((\d+ of \d+)\) Pods:')
        grab('pods', r'Pods: (.*?) \((\d+ of \d+)\) (?:Held|Why)')
        grab('reserved', r'Held for this job \(rest of its leaves\): (.*?) Why:')
        grab('default', r'hands them out\): (\d+) lea(?:f|ves), (\d+) pods?: (.*?) Communication:')
        grab('communication', r'Communication: (\d+) ranks, (\d+) per host')
        grab('mapping', r'default \(block\) topoplace \((.*?)\) hop-bytes')
        for key, label in rows:
            grab(key, r'^ +' + label + r' +(\S+ \S+) +(\S+ \S+)$', text)
        grab('predicted_s', r'^ +predicted time \(s\) +(\S+) +(\S+)$', text)
        grab('ratios', r'hop-bytes: (?:([\d.]+) of the default|the default (has none))(?:; predicted time: ([\d.]+) of the default)?')
        grab('io_servers', r'I/O servers \((\w+)\): (.*?) why: (.*?) from: (.*)$')
else:
    d = json.load(open(path))
    out['heading'] = '%s %d' % (d['job'], d['nodes'])
    out['policy'] = d['policy']
    if d['policy_source'] is not None:
        out['policy_source'] = d['policy_source']
    out['class'] = d['class']
    if d['classified']:
        t = d['thresholds']
        out['class_reason'] = d['class_reason']
        out['io_heavy_when'] = '%s %s %d' % (fmt_bytes(t['io_bytes_min']), fmt_bytes(t['io_client_bytes_per_s_min']), t['io_reference_clients'])
        out['comm_sensitive_when'] = '%s %.0f %s' % (fmt_bytes(t['comm_small_message_bytes_max']), t['comm_messages_per_s_per_rank_min'], fmt_bytes(t['comm_bytes_per_s_per_rank_min']))
        out['thresholds_source'] = t['source']
    out['outcome'] = '%s %s' % (d['outcome'], d['reason'])
    if d['outcome'] == 'placed':
        out['hosts'] = ' '.join(d['hosts'])
        out['leaves'] = '%s %d of %d' % (' '.join(d['leaves']), len(d['leaves']), d['leaves_in_fabric'])
        out['pods'] = '%s %d of %d' % (' '.join(d['pods']), len(d['pods']), d['pods_in_fabric'])
        if d['reserved']:
            out['reserved'] = ' '.join(d['reserved'])
        df = d['default']
        out['default'] = '%d %d %s' % (len(df['leaves']), len(df['pods']), ' '.join(df['leaves']))
        c = d['costs']
        out['communication'] = '%d %d' % (d['ranks'], d['slots'])
        out['mapping'] = c['mapping']
        for key, _ in rows:
            out[key] = ' '.join(fmt_bytes(c[side]['hop_bytes'] if key == 'hop_bytes' else c[side]['class_bytes'][key]) for side in ('default', 'topoplace'))
        out['predicted_s'] = '%.6g %.6g' % (c['default']['predicted_s']['total'], c['topoplace']['predicted_s']['total'])
        out['ratios'] = ' '.join('%.3f' % r if r is not None else 'has none' if k == 'hop_bytes_ratio' else ''
                                 for k, r in ((k, c[k]) for k in ('hop_bytes_ratio', 'predicted_ratio'))).strip()
        io = d['io_servers']
        if io is not None:
            out['io_servers'] = '%s %s %s %s' % (io['policy'], ' '.join(io['hosts']), io['reason'], io['source'])
for k in sorted(out):
    print('%s\t%s' % (k, out[k]))
PY
}
# explain_compare NAME TEXT JSON: each key of the document's fields has the
# page's value; the page has no key the document lacks.
explain_compare() {
	local name=$1 key value want
	explain_fields text "$2" >"$work/fields.text"
	explain_fields json "$3" >"$work/fields.json"
	tp_check_eq "$name: the same fields in both forms" \
		"$(cut -f1 "$work/fields.text" | tr '\n' ' ')" \
		"$(cut -f1 "$work/fields.json" | tr '\n' ' ')"
	while IFS=$'\t' read -r key value; do
		want=$(awk -F'\t' -v k="$key" '$1 == k { sub(/^[^\t]*\t/, ""); print }' "$work/fields.text")
		tp_check_eq "$name: $key as in the text" "$want" "$value"
	done <"$work/fields.json"
}
# LeafRemainder=whole: 6 hosts on 4-host leaves hold 2 (the default puts
# them on a shared leaf, holding none).
printf 'DefaultPlacement=spread\nPartitionName=comm DefaultPlacement=leaf LeafRemainder=whole IoServerCount=2 CommSensitiveBytesPerSecPerRank=100K\n' >"$work/explain.conf"
printf 'n0001 7 quiet\n' >"$work/explain.busy"
ex_args=(--fabric 2x4x4 --nodes 6 --profile "$mdir/CoMD-16.txt" --slots 4
	--config "$work/explain.conf" --partition comm --busy "$work/explain.busy")
"$tp" report explain "${ex_args[@]}" >"$work/explain.txt"
"$tp" report explain "${ex_args[@]}" --json >"$work/explain.json"
tp_check_eq "report explain --json exits 0" 0 $?
doc "report explain" topoplace.report-explain "$work/explain.json"
explain_compare "report explain" "$work/explain.txt" "$work/explain.json"
# No IoServerPolicy in the file: auto, isolated (one leaf) under adaptive
# routing.
tp_check_eq "report explain: held hosts, servers and thresholds from the file, output null" \
	"n0011 n0012|n0015 n0016|102400.0|None" \
	"$(jq_py "$work/explain.json" "'%s|%s|%s|%s' % (' '.join(d['reserved']), ' '.join(d['io_servers']['hosts']), float(d['thresholds']['comm_bytes_per_s_per_rank_min']), d['output'])")"
tp_check_eq "report explain: predicted totals are the sums of their terms" "true" \
	"$(jq_py "$work/explain.json" "all(abs(p['total'] - p['max_rate'] - p['queue_search'] - p['contention']) <= 1e-9 * p['total'] for p in (d['costs'][s]['predicted_s'] for s in ('default', 'topoplace')))")"
"$tp" report explain "${ex_args[@]}" --json -o "$work/explain-o.txt" >"$work/explain-o.json"
tp_check_eq "report explain --json -o: the page in the file, the document names it" \
	"0 $work/explain-o.txt" \
	"$(cmp "$work/explain.txt" "$work/explain-o.txt" && echo 0) $(jq_py "$work/explain-o.json" "d['output']")"
# Traffic that block order keeps on-node: the default has no hop-bytes, so
# the ratio is null where the page says "the default has none".
printf '# commprof-v1 app=pairs ranks=4\n0 1 1048576 10\n2 3 1048576 10\n' >"$work/pairs.txt"
ex_args=(--fabric 1x2x2 --nodes 2 --profile "$work/pairs.txt" --slots 2 --policy pack)
"$tp" report explain "${ex_args[@]}" >"$work/pairs.page"
"$tp" report explain "${ex_args[@]}" --json >"$work/pairs.json"
explain_compare "report explain (no default hop-bytes)" "$work/pairs.page" "$work/pairs.json"
tp_check_eq "report explain (no default hop-bytes): the ratio is null, not 0" "0 None" \
	"$(jq_py "$work/pairs.json" "'%d %s' % (d['costs']['default']['hop_bytes'], d['costs']['hop_bytes_ratio'])")"
# A request that cannot be met now: explained (exit 0, as the text form),
# nothing placed is null.
printf 'n0001 7 io_heavy\nn0005 8 io_heavy\nn0009 8 io_heavy\nn0013 8 io_heavy\n' >"$work/explain-full.busy"
"$tp" report explain --fabric 1x4x4 --nodes 4 --busy "$work/explain-full.busy" >"$work/waits.txt"
"$tp" report explain --fabric 1x4x4 --nodes 4 --busy "$work/explain-full.busy" --json >"$work/waits.json"
tp_check_eq "report explain --json: a job that waits exits 0 like the text" 0 $?
explain_compare "report explain (waits)" "$work/waits.txt" "$work/waits.json"
tp_check_eq "report explain (waits): not classified, nothing placed is null" \
	"False None None None None None None None" \
	"$(jq_py "$work/waits.json" "' '.join(str(d[k]) for k in ('classified', 'thresholds', 'ranks', 'hosts', 'default', 'costs', 'io_servers', 'policy_source'))")"
# Bad input: the text form's one line on stderr and exit status, no document.
for bad in "--fabric 2x2x2x --nodes 2|2|topoplace report explain: --fabric '2x2x2x': expected PODSxLEAVESxHOSTS (e.g. 2x18x18) or a file" \
	"--fabric 2x4x4 --nodes 0|2|topoplace report explain: --nodes '0': expected a whole number from 1 to 4294967295" \
	"--fabric 2x4x4 --nodes 99|1|topoplace report explain: allocation request for job 1: 99 nodes, but the fabric has only 32 hosts"; do
	IFS='|' read -r args status message <<<"$bad"
	read -ra args <<<"$args"
	tp_expect_fail "report explain: ${args[*]}: one line, exit $status" "$status" "$message" \
		"$tp" report explain "${args[@]}"
	tp_expect_fail "report explain --json: ${args[*]}: the same line and exit, no document" "$status" "$message" \
		"$tp" report explain "${args[@]}" --json
done
tp_expect_fail "report explain --json: a document that cannot be written whole is an error" 1 \
	"topoplace report explain: JSON output: write error" \
	bash -c '"$1" report explain --fabric 1x4x4 --nodes 2 --json >/dev/full' _ "$tp"

tp_expect_fail "profile show --json: a document that cannot be written whole is an error" 1 \
	"topoplace profile: JSON output: write error" \
	bash -c '"$1" profile show --json "$2" >/dev/full' _ "$tp" "$work/lulesh.tpp"
tp_expect_fail "report fabric --json: a document that cannot be written whole is an error" 1 \
	"topoplace report fabric: JSON output: write error" \
	bash -c '"$1" report fabric --fabric 1x4x4 -o "$2" --no-progress --json >/dev/full' \
	_ "$tp" "$work/full.svg"

# ---- profile list / list --apps / verify on a store, with a real munged
# (last: without root or munge the rest of this file is skipped, not passed)
((EUID == 0)) || tp_skip "profile store checks need root (a private munged)"
for c in munged mungekey; do
	command -v "$c" >/dev/null || tp_skip "$c not installed"
done
M=$(mktemp -d /tmp/tp-cli-json.XXXXXX) || exit 1
chmod 755 "$M"
trap 'kill "$(cat "$M/munged.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$work" "$M"' EXIT
tp_private_munged "$M"
S=$M/store
mkdir -m 755 "$S"
P=(--store "$S" --munge-socket "$M/munged.socket")
tp_check "profile put signs two runs of site/lulesh" \
	bash -c '"$0" profile put "$1" site/lulesh "${@:2}" && "$0" profile put "$1" site/lulesh "${@:2}"' \
	"$tp" "$work/lulesh.tpp" "${P[@]}"
tp_check "profile put signs site/replayed" "$tp" profile put "$work/lulesh.tpp" site/replayed "${P[@]}"
"$tp" profile list "${P[@]}" >"$work/plist.txt"
"$tp" profile list "${P[@]}" --json >"$work/plist.json"
tp_check_eq "profile list --json exits 0" 0 $?
doc "profile list" topoplace.profile-list "$work/plist.json"
tp_check_eq "profile list: the text's runs, sizes and times" \
	"$(cat "$work/plist.txt")" \
	"$(jq_py "$work/plist.json" "'\n'.join('%s/%s/%s\t%d\t%s' % (r['ns'], r['name'], r['run'], r['size_bytes'], r['modified']) for r in d['runs'])")"
"$tp" profile list --apps "${P[@]}" site >"$work/papps.txt"
"$tp" profile list --apps "${P[@]}" site --json >"$work/papps.json"
tp_check_eq "profile list --apps --json exits 0" 0 $?
doc "profile list --apps" topoplace.profile-apps "$work/papps.json"
tp_check_eq "profile list --apps: the text's lines" \
	"$(cat "$work/papps.txt")" \
	"$(jq_py "$work/papps.json" "'\n'.join('%s/%s\truns=%d\tfirst=%s\tlast=%s\tused=%s\tranks=%d\tclass=%s\tapp=%s\texe=%s\tlayout=%s\targs=%s' % (a['ns'], a['name'], a['runs'], a['first'], a['last'], a['last_used'] or 'never', a['ranks'], a['class'], a['app'], (a['executable']['path'] or '?') + ('@' + a['executable']['sha256'][:12] if a['executable']['sha256'] else '') if a['executable']['sha256'] or a['executable']['path'] else '?', a['layout'] or '?', '%d@%s' % (a['executable']['args_count'], a['executable']['args_sha256'][:12]) if a['executable']['args_sha256'] else '?') for a in d['applications'])")"
tp_check_eq "profile list --apps: the filter, each newest run verified" \
	"site None ok,ok" \
	"$(jq_py "$work/papps.json" "'%s %s %s' % (d['ns'], d['name'], ','.join(a['status'] for a in d['applications']))")"
"$tp" profile show "${P[@]}" site/lulesh >"$work/pshow2.txt"
"$tp" profile show "${P[@]}" site/lulesh --json >"$work/pshow2.json"
tp_check_eq "profile show --json from the store: verified, digest of the text" \
	"verified $(sed -n 's/^digest: *sha256://p' "$work/pshow2.txt")" \
	"$(jq_py "$work/pshow2.json" "'%s %s' % (d['credential'], d['sha256'])")"
"$tp" profile show "${P[@]}" --merged site/lulesh --json >"$work/pmerged.json"
tp_check_eq "profile show --merged --json: two runs, no digest" "True 2 None" \
	"$(jq_py "$work/pmerged.json" "'%s %d %s' % (d['merged'], d['runs'], d['sha256'])")"

# Attacks: a replay under another name (credential refused) and a flipped
# bit (tampered file); then munged unreachable, distinguishable by field.
run=$(ls "$S/site/lulesh" | grep '\.tpp$' | sort | tail -1)
cp -p "$S/site/lulesh/$run" "$S/site/replayed/0000000000000001-00000001-00000001.tpp"
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 1
open(sys.argv[1], 'wb').write(b)" "$S/site/lulesh/$run"
"$tp" profile verify "${P[@]}" site/lulesh site/replayed site/none --json \
	>"$work/sverify.json" 2>"$work/sverify.err"
rc=$?
doc "profile verify (store)" topoplace.profile-verify "$work/sverify.json"
tp_check_eq "profile verify --json (store): exit 1, every run judged, nothing on stderr" \
	"1 store,ok,None store,refused,parse store,refused,auth store,ok,None store,not_found,not_found 2 3 0" \
	"$rc $(jq_py "$work/sverify.json" "' '.join('%s,%s,%s' % (r['check'], r['status'], r['error']) for r in d['results']) + ' %d %d' % (d['ok'], d['failed'])") $(wc -c <"$work/sverify.err")"
"$tp" profile verify "${P[@]}" site/lulesh site/replayed site/none >"$work/sverify.txt" 2>&1
tp_check_eq "profile verify (store): the reasons are the text's" \
	"$(grep -E 'REFUSED|NOT CHECKED' "$work/sverify.txt")" \
	"$(jq_py "$work/sverify.json" "'\n'.join('%s: REFUSED: %s' % (r['profile'], r['reason']) for r in d['results'] if r['status'] == 'refused')")"
good=$S/site/replayed/$(ls "$S/site/replayed" | grep '\.tpp$' | sort | tail -1)
"$tp" profile verify "${P[@]}" --as site/replayed "$good" --json >"$work/as-ok.json"
rc=$?
"$tp" profile verify "${P[@]}" --as site/lulesh "$good" --json >"$work/as-bad.json" 2>"$work/as-bad.err"
rc_bad=$?
tp_check_eq "profile verify --as --json: its own place ok (exit 0), another refused with error auth (exit 1), nothing on stderr" \
	"0 site/replayed as ok None|1 site/lulesh as refused auth True|0" \
	"$rc $(jq_py "$work/as-ok.json" "'%s %s %s %s' % (d['as'], d['results'][0]['check'], d['results'][0]['status'], d['results'][0]['error'])")|$rc_bad $(jq_py "$work/as-bad.json" "'%s %s %s %s %s' % (d['as'], d['results'][0]['check'], d['results'][0]['status'], d['results'][0]['error'], d['results'][0]['reason'].startswith('$good as site/lulesh: '))")|$(wc -c <"$work/as-bad.err")"
kill "$(cat "$M/munged.pid")"
for _ in $(seq 50); do [[ -e $M/munged.socket ]] || break; sleep 0.1; done
"$tp" profile verify "${P[@]}" --as site/replayed "$good" --json >"$work/as-nomunge.json"
rc=$?
tp_check_eq "profile verify --as --json with munged stopped: not_checked, io" \
	"1 as not_checked io" \
	"$rc $(jq_py "$work/as-nomunge.json" "'%s %s %s' % (d['results'][0]['check'], d['results'][0]['status'], d['results'][0]['error'])")"
"$tp" profile verify "${P[@]}" site/replayed --json >"$work/nomunge.json" 2>/dev/null
rc=$?
tp_check_eq "profile verify --json with munged stopped: exit 1, not_checked, io, not refused" \
	"1 not_checked io True" \
	"$rc $(jq_py "$work/nomunge.json" "' '.join([d['results'][0]['status'], d['results'][0]['error'], str('munged unreachable at socket $M/munged.socket' in d['results'][0]['reason'])])")"
"$tp" profile list --apps "${P[@]}" --json >"$work/nomunge-apps.json"
tp_check_eq "profile list --apps --json with munged stopped: the tampered run refused, the other not_checked" \
	"refused,None,None not_checked,None,None" \
	"$(jq_py "$work/nomunge-apps.json" "' '.join('%s,%s,%s' % (a['status'], a['ranks'], a['class']) for a in d['applications'])")"

tp_done
