#!/bin/bash
# cli_config.sh: `topoplace config check` accepts the shipped example and
# prints each partition's effective settings; each bad file exits 1 with
# one line per error naming the file, the line and the key (every error of
# the file, then their count); a partition slurm.conf does not define is a
# warning that names Slurm's spelling; bad usage exits 2.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_TOPOPLACE to use
# another topoplace binary.
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT


# The shipped example with its ThresholdTable line enabled and pointed at a
# real table (check reads the tables it names); as shipped, without edits,
# it is checked by install_example.sh.
cat >"$work/io-thresholds.csv" <<'CSV'
# topoplace-thresholds v1
request_bytes,clients,threshold_us,plateau_us,confidence
1048576,4,2000,100,1
CSV
example=$work/topoplace.conf.example
sed "s|^#ThresholdTable=.*|ThresholdTable=$work/io-thresholds.csv|" \
	"$abs_top_srcdir/etc/topoplace.conf.example" >"$example"
out=$("$tp" config check "$example" 2>&1)
tp_check_eq "example file is valid" 0 $?
tp_check_eq "header counts the partitions" \
	"# $example: valid, 2 partition overrides" "$(head -n 1 <<<"$out")"
tp_check_eq "leaf partition places on whole leaves" \
	"    DefaultPlacement=leaf  # this partition, line $(grep -n '^PartitionName=leaf ' "$example" | cut -d: -f1)" \
	"$(sed -n '/^PartitionName=leaf$/,/^$/p' <<<"$out" | grep DefaultPlacement=)"
tp_check_eq "shared partition throttles with the preload library" \
	"    ThrottleMode=preload  # this partition, line $(grep -n '^PartitionName=shared ' "$example" | cut -d: -f1)" \
	"$(sed -n '/^PartitionName=shared$/,/^$/p' <<<"$out" | grep ThrottleMode=)"
tp_check_eq "shared partition inherits the site-wide window bound" \
	"    ThrottleMaxWindow=50ms  # site-wide, line $(grep -n '^ThrottleMaxWindow=' "$example" | cut -d: -f1)" \
	"$(sed -n '/^PartitionName=shared$/,/^$/p' <<<"$out" | grep ThrottleMaxWindow=)"
tp_check_eq "unset keys show their default" \
	"ProfileKeep=8  # line 22" "$(grep '^ProfileKeep=' <<<"$out")"
tp_check_eq "--partition prints one partition" "PartitionName=leaf" \
	"$("$tp" config check --partition leaf "$example" | sed -n 2p)"

# TOPOPLACE_CONF, then beside SLURM_CONF, as slurmctld would look.
mkdir -p "$work/etc"
printf 'RankRemap=off\n' >"$work/etc/topoplace.conf"
tp_check_eq "default file beside SLURM_CONF" "RankRemap=off  # line 1" \
	"$(SLURM_CONF=$work/etc/slurm.conf "$tp" config check | grep '^RankRemap=')"
tp_check "TOPOPLACE_CONF names the file" \
	env TOPOPLACE_CONF="$example" "$tp" config check --quiet

bad=$work/topoplace.conf
printf '# site\nDefaultPlacement=leaf\nDecisionBudget=2 parsecs\n' >"$bad"
printf 'DecisionBudget=2ms\nThresholdTable=%s\n' "$work/none.csv" >"$work/notable.conf"
tp_expect_fail "a missing ThresholdTable: file, line, key and why" 1 \
	"topoplace config: $work/notable.conf: line 2: ThresholdTable: $work/none.csv: cannot open: No such file or directory" \
	"$tp" config check "$work/notable.conf"
printf 'not a table\n' >"$work/bad.csv"
printf 'PartitionName=io ThresholdTable=%s\n' "$work/bad.csv" >"$work/badtable.conf"
tp_expect_fail "a bad partition ThresholdTable names the partition's line" 1 \
	"topoplace config: $work/badtable.conf: line 1: ThresholdTable: $work/bad.csv: line 1: column 1: not a topoplace threshold table (first line must be '# topoplace-thresholds v1')" \
	"$tp" config check "$work/badtable.conf"
tp_expect_fail "bad duration: file, line, key" 1 \
	"topoplace config: $bad: line 3: DecisionBudget '2 parsecs': unknown unit ' parsecs' (use us, ms or s)" \
	"$tp" config check "$bad"
printf 'DecisionBudget=2ms\nFabricSorce=cache\n' >"$bad"
tp_expect_fail "unknown key" 1 \
	"topoplace config: $bad: line 2: FabricSorce: unknown key" \
	"$tp" config check "$bad"
printf 'ThrottleMinWindow=5ms\nThrottleMaxWindow=2ms\n' >"$bad"
tp_expect_fail "min window above max" 1 \
	"topoplace config: $bad: line 2: ThrottleMinWindow 5ms is above ThrottleMaxWindow 2ms" \
	"$tp" config check "$bad"
printf 'PartitionName=comm\n' >"$bad"
tp_expect_fail "override of nothing" 1 \
	"topoplace config: $bad: line 1: PartitionName=comm overrides nothing" \
	"$tp" config check "$bad"
printf 'TbfHook=apply-tbf\n' >"$bad"
tp_expect_fail "relative path" 1 \
	"topoplace config: $bad: line 1: TbfHook: 'apply-tbf' is not an absolute path (daemons do not share a working directory)" \
	"$tp" config check "$bad"
tp_expect_fail "missing file" 1 \
	"topoplace config: $work/none.conf: cannot open: No such file or directory" \
	"$tp" config check "$work/none.conf"
head -c 1048577 /dev/zero | tr '\0' '#' >"$bad"
tp_expect_fail "oversized file" 1 \
	"topoplace config: $bad: 1048577 bytes, larger than the limit of 1048576" \
	"$tp" config check "$bad"
tp_expect_fail "two files is bad usage" 2 \
	"topoplace config: check: one FILE at most, got 'a' and 'b'" \
	"$tp" config check a b
tp_expect_fail "unknown action is bad usage" 2 \
	"topoplace config: unknown action 'lint' (expected check)" \
	"$tp" config lint

# Every error of a file, in line order, then how many.
printf '%s\n' 'DefaultPlacement=leeaf' 'DecisionBudget=2ms' 'Bogus=1' \
	'PartitionName=io DefaultPlacement=shared' 'RankRemap=maybe' >"$bad"
tp_expect_fail "every error is listed, then the count" 1 \
	"topoplace config: $bad: line 1: DefaultPlacement: 'leeaf' is not a placement policy (expected one of auto|leaf|shared|pack|spread|off)
topoplace config: $bad: line 3: Bogus: unknown key
topoplace config: $bad: line 5: RankRemap: 'maybe' is not one of auto|off
topoplace config: $bad: 3 errors" \
	"$tp" config check "$bad"

# Partition names: Slurm matches them case-sensitively, so does topoplace;
# a line for a partition slurm.conf lacks is named, with Slurm's spelling.
mkdir -p "$work/site"
printf 'PartitionName=debug Nodes=ALL Default=YES\npartitionname=io Nodes=ALL\n' \
	>"$work/site/slurm.conf"
printf 'PartitionName=Debug DefaultPlacement=leaf\nPartitionName=io DefaultPlacement=shared\n' \
	>"$work/site/topoplace.conf"
out=$(env -u SLURM_CONF "$tp" config check --quiet "$work/site/topoplace.conf" 2>&1)
rc=$?
tp_check_eq "a partition named with other case: still valid" 0 "$rc"
tp_check_eq "but a warning names Slurm's spelling (slurm.conf beside the file)" \
	"topoplace config: warning: $work/site/topoplace.conf: line 1: PartitionName=Debug: no such partition in $work/site/slurm.conf (Slurm matches partition names case-sensitively: did you mean 'debug'?); its settings apply to no job" \
	"$out"
printf 'PartitionName=gpu Nodes=ALL\n' >"$work/other-slurm.conf"
out=$("$tp" config check --quiet --slurm-conf "$work/other-slurm.conf" \
	"$work/site/topoplace.conf" 2>&1)
tp_check_eq "--slurm-conf names the file; each unknown partition is a line" 2 \
	"$(grep -c 'no such partition in '"$work/other-slurm.conf"'; its settings apply to no job' <<<"$out")"
printf 'PartitionName=Debug Nodes=ALL\n' >>"$work/site/slurm.conf"
tp_check_eq "no warning once slurm.conf defines both" "" \
	"$(env -u SLURM_CONF "$tp" config check --quiet "$work/site/topoplace.conf" 2>&1)"

tp_done
