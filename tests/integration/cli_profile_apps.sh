#!/bin/bash
# cli_profile_apps.sh: freshness per application through the real CLI, on a
# store signed by a real private munged (topoplace-profile(5), FRESHNESS).
#
# Proves: `profile list --apps` shows used=never for an application never
# chosen, the time of its last-use record when slurmctld's record is there
# (the documented format, written as the lookup writes it: by root for the
# owner), and for a corrupt or foreign-owned record one warning naming the
# file on stderr and used=never, the run itself still listed and verified;
# the JSON form says the same (last_used); `profile prune` drops per
# application the runs beyond --keep and those older than --max-age (the
# newest included), never another application's, and takes the last-use
# record of an application with no run left; --max-age 0 drops none by age;
# `profile list --links` shows each script's link, and why a bad one is
# ignored.
#
# Env: abs_top_builddir, abs_top_srcdir (make check).

. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/lib/bed.sh"

((EUID == 0)) || tp_skip "needs root (a private munged, chown of a record)"
for c in munged mungekey python3; do
	command -v "$c" >/dev/null || tp_skip "$c not installed"
done
tp=${abs_top_builddir:-.}/tools/topoplace
[[ -x $tp ]] || tp_skip "$tp not built"
mdir=${abs_top_srcdir:-$(dirname "$0")/../..}/tests/data/matrices

M=$(mktemp -d /tmp/tp-cli-apps.XXXXXX) || exit 1
chmod 755 "$M"
trap 'kill "$(cat "$M/munged.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$M"' EXIT
tp_private_munged "$M"
S=$M/store
mkdir -m 755 "$S"
P=(--store "$S" --munge-socket "$M/munged.socket")
"$tp" profile import --from matrix -o "$M/lulesh.tpp" "$mdir/LULESH-8.txt" >/dev/null
for name in lulesh lulesh lulesh hpcg; do
	"$tp" profile put "$M/lulesh.tpp" "site/$name" "${P[@]}" >/dev/null ||
		tp_fail "profile put site/$name"
done

# The field used= of application $1 in `list --apps` ($2: its stderr file).
used_of() {
	"$tp" profile list --apps "${P[@]}" site 2>"$2" |
		awk -F'\t' -v app="site/$1" '$1 == app { for (i = 2; i <= NF; i++) if ($i ~ /^used=/) print substr($i, 6) }'
}

tp_check_eq "list --apps: an application never chosen is used=never" \
	"never" "$(used_of lulesh "$M/err")"
tp_check_eq "and nothing is said about it" "" "$(cat "$M/err")"

# The record as slurmctld's lookup writes it (root, for the owner, 0600).
rec=$S/site/lulesh/last-use
printf 'topoplace-last-use 1 1767225600 42\n' >"$rec"
chmod 600 "$rec"
tp_check_eq "a last-use record is shown as the time it holds (UTC)" \
	"2026-01-01T00:00:00Z" "$(used_of lulesh "$M/err")"
tp_check_eq "the other application is still never used" \
	"never" "$(used_of hpcg "$M/err")"
"$tp" profile list --apps "${P[@]}" site --json >"$M/apps.json"
tp_check_eq "list --apps --json: last_used as in the text, null when never" \
	"hpcg None 1 lulesh 2026-01-01T00:00:00Z 3" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s %s %d" % (a["name"], a["last_used"], a["runs"]) for a in d["applications"]))' "$M/apps.json")"

printf 'topoplace-last-use 1 soon 42\n' >"$rec"
tp_check_eq "a corrupt record: used=never" "never" "$(used_of lulesh "$M/err")"
tp_check "and one warning naming the file and why" \
	grep -qx "topoplace: warning: $rec: not a last-use record ('topoplace-last-use 1 <unix seconds> <job id>' and a newline): ignored" "$M/err"
tp_check "the application's run is still listed and verified" \
	bash -c '"$0" profile list --apps "${@:1}" site 2>/dev/null | grep -q "^site/lulesh	runs=3	.*	used=never	ranks=8	class=[a-z_]*	app="' "$tp" "${P[@]}"
printf 'topoplace-last-use 1 1767225600 42\n' >"$rec"
chown 1:1 "$rec"
tp_check_eq "a record of another owner: used=never" "never" "$(used_of lulesh "$M/err")"
tp_check "and one warning naming the file and its owner" \
	grep -q "^topoplace: warning: $rec: owned by uid 1 mode 600, not a regular file of the namespace's owner (uid 0)" "$M/err"
tp_check_eq "exactly one line of warning" 1 "$(wc -l <"$M/err")"
chown 0:0 "$rec"

# prune: per application, by count then by age.
out=$("$tp" profile prune "${P[@]}" --keep 2 site)
tp_check_eq "prune --keep 2: each application to its newest 2, alone" \
	"site/hpcg	runs=1	removed=0
site/lulesh	runs=3	removed=1
1 runs removed from 2 applications, 0 refused" "$out"
newest=$(ls "$S/site/lulesh" | grep '\.tpp$' | sort | tail -1)
oldest=$(ls "$S/site/lulesh" | grep '\.tpp$' | sort | head -1)
touch -d '-2 hours' "$S/site/lulesh/$oldest" "$S/site/hpcg/"*.tpp
tp_check_eq "--max-age 0: nothing dropped by age" \
	"0 runs removed from 2 applications, 0 refused" \
	"$("$tp" profile prune "${P[@]}" --max-age 0 site | tail -1)"
out=$("$tp" profile prune "${P[@]}" --max-age 3600 site/lulesh)
tp_check_eq "prune --max-age 3600 site/lulesh: its old run only" \
	"site/lulesh	runs=2	removed=1" "$(head -1 <<<"$out")"
tp_check_eq "the newest run is kept" "$newest" \
	"$(ls "$S/site/lulesh" | grep '\.tpp$')"
tp_check "hpcg's old run is not lulesh's business" \
	test -e "$(ls "$S/site/hpcg/"*.tpp)"
touch -d '-2 hours' "$S/site/lulesh/$newest"
"$tp" profile prune "${P[@]}" --max-age 3600 site >/dev/null
tp_check_eq "past the age the newest goes too, with its summary and last-use" \
	"" "$(find "$S/site" -type f)"
tp_check_eq "and the applications are gone from the listing" \
	"" "$("$tp" profile list --apps "${P[@]}" site)"

# Links (topoplace-profile(5): the script's link), as slurmstepd leaves
# them: one made by command (version 2), one of version 1 (read as made by
# the program alone), one that names no profile.
"$tp" profile put "$M/lulesh.tpp" site/hpcg "${P[@]}" >/dev/null || tp_fail "profile put site/hpcg"
good=s-0123456789abcdef0123456789abcdef bad=s-fedcba9876543210fedcba9876543210
cmd=s-00000000000000000000000000000001
mkdir -m 700 "$S/site/$good" "$S/site/$bad" "$S/site/$cmd"
printf 'topoplace-link 1 hpcg 17\n' >"$S/site/$good/link"
printf 'topoplace-link 1 ../etc 18\n' >"$S/site/$bad/link"
printf 'topoplace-link 2 hpcg 19 command\n' >"$S/site/$cmd/link"
chmod 600 "$S/site/$good/link" "$S/site/$bad/link" "$S/site/$cmd/link"
out=$("$tp" profile list --links "${P[@]}" site)
tp_check_eq "list --links: the link, its target, the job that left it and its rule; a bad one and why it is ignored" \
	"site/$cmd	-> hpcg	JobId=19	by command|site/$good	-> hpcg	JobId=17	by program|site/$bad	IGNORED: $S/site/$bad/link: links to '../etc', not a profile name: ignored" \
	"$(paste -sd'|' <<<"$out")"
tp_check_eq "list --links --json: the same" \
	"$cmd hpcg 19 command None|$good hpcg 17 program None|$bad None None None links to '../etc', not a profile name: ignored" \
	"$("$tp" profile list --links "${P[@]}" site --json | python3 -c 'import json,sys
for l in json.load(sys.stdin)["links"]:
    print(l["name"], l["target"], l["job_id"], l["rule"], (l["ignored"] or "None").split(": ", 1)[-1])' | paste -sd'|')"
tp_check_eq "list --apps is not changed by links (one application, hpcg)" \
	"site/hpcg" "$("$tp" profile list --apps "${P[@]}" site | cut -f1)"
tp_expect_fail "list --links takes at most one namespace" 2 \
	"topoplace profile: list --links: at most one NS" \
	"$tp" profile list --links "${P[@]}" site other
tp_expect_fail "prune needs --store" 2 \
	"topoplace profile: prune: --store is required" \
	env -u TOPOPLACE_PROFILE_STORE "$tp" profile prune
tp_done
