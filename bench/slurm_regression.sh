#!/bin/bash
# slurm_regression.sh - Slurm's own regression tests as the judge of
# "select/topoplace_cons_tres behaves exactly as cons_tres" (issue #17).
#
#   bench/slurm_regression.sh [--slurm-prefix DIR] [--slurm-source DIR]
#       [--placement POLICY] [--test-timeout SECS] [--out DIR] [TEST...]
#
# Runs a list of Slurm's expect tests about node selection (node counts,
# -w/--exclude, --contiguous, --exclusive, --ntasks-per-node, memory,
# oversubscription, --spread-job, arrays, heterogeneous jobs,
# reservations) and of its python (pytest) tests of the same (py:NAME,
# below; TEST... replaces the list) on two tp-bed clusters that
# differ only in SelectType: select/cons_tres, and
# select/topoplace_cons_tres with a topoplace.conf as a site would write
# it (FabricSource=topology, DefaultPlacement=POLICY, default auto).  Both
# are 16 nodes of 4 CPUs under 4 leaves of a fat tree (topology/tree),
# task/none, the build tree's plugins in PluginDir.  Each test runs as
# root inside the bed, from a copy of the Slurm source's testsuite (the
# cache stays untouched), bounded by --test-timeout (default 180 s).
#
# Prints a table `test | cons_tres | topoplace | same?` (PASS, FAIL, SKIP
# or TIMEOUT), each difference with its known reason (below) or
# "UNEXPLAINED", and the closing line `N same, N differ`.  Exit status 0
# when every difference is a documented one, 1 otherwise, 2 on bad usage.
#
# Documented differences (topoplace(7)):
#   - a test that asks for SelectType=select/cons_tres by name
#     (check_config_select "cons_tres") skips, or skips that subtest, on
#     the wrapper: its name is select/topoplace_cons_tres;
#   - test3.11 on Slurm 22.05: scontrol refuses CoreCnt reservations
#     because it tests the select plugin's id (the wrapper's is its own).
#
# --slurm-prefix DIR: the Slurm installed under DIR (e.g. 24.11 from
# tools/build-slurm; the build tree must be configured for it), else the
# Slurm on PATH (Debian's 22.05).  --slurm-source DIR: the Slurm source
# tree whose testsuite runs (default: DIR/../src with --slurm-prefix, else
# /var/cache/topoplace/slurm-source).  --out DIR: where the per-test
# output, the results and the failed beds' logs go (default
# ./slurm-regression.<date>).  Needs root, expect and a built tree:
# abs_top_builddir and abs_top_srcdir in the environment (the make target
# `make slurm-regression` sets them; TP_REGRESSION_ARGS passes options).
# The python tests need Debian's python3-pytest, python3-py,
# python3-requests and python3-pexpect (tools/install-deps installs them);
# they run in the testsuite's local-config mode, so a test that needs
# another slurm.conf skips on both clusters.
set -u

# The default list: the expect tests of Slurm 22.05 and 24.11 (both have
# them all) that exercise node selection.
default_tests=(
	test1.2 test1.14 test1.23 test1.37 test1.80 test1.81 test1.82 test1.83
	test1.84 test1.85 test1.86 test1.87 test1.92 test1.97 test1.100
	test1.113 test1.114 test1.117 test1.120 test2.8 test3.11 test3.14
	test4.5 test5.6 test5.11 test6.14 test8.14 test15.7 test15.19
	test15.20 test15.21 test15.24 test15.27 test15.39 test17.10 test17.11
	test17.17 test17.27 test17.32 test17.63 test28.1 test28.2 test28.3
	test28.9 test38.1 test38.3 test38.5 test38.19
)

# The python tests about node selection, as "py:NAME 22.05-FILE 24.11-FILE"
# under testsuite/python/tests ("-": not in that version).  24.11 renamed
# them by number; each pair was matched by its test functions' names.
# Left out: RoutePlugin/topology/test_plugin.py links a program against
# libslurmfull in the Slurm prefix's lib/slurm, where Debian's package has
# none.
python_tests=(
	"py:exclusive commands/srun/test_--exclusive.py test_116_13.py"
	"py:ntasks-per-node commands/srun/test_--ntasks-per-node.py test_116_18.py"
	"py:mem-mincpus-tmp commands/srun/test_--mem--mincpus--tmp.py test_116_28.py"
	"py:overcommit commands/srun/test_--overcommit.py test_116_9.py"
	"py:threads commands/srun/test_--threads.py test_116_42.py"
	"py:concurrent-steps commands/srun/test_batch_multiple_concurrent_steps.py test_116_7.py"
	"py:hostfile commands/srun/test_hostfile.py test_116_5.py"
	"py:increasing-sizes commands/srun/test_srun_increasing_job_sizes.py test_116_33.py"
	"py:parallel-launch commands/srun/test_parallel_launch_srun.py test_116_1.py"
	"py:test-only commands/srun/test_--test-only.py test_116_38.py"
	"py:immediate commands/srun/test_--immediate.py test_116_11.py"
	"py:no-allocate commands/srun/test_--no-allocate.py test_116_23.py"
	"py:time-limit commands/srun/test_-t.py test_116_45.py"
	"py:wait commands/srun/test_--wait.py test_116_46.py"
	"py:env-variables commands/srun/test_env_variables.py test_116_40.py"
	"py:job-name commands/srun/test_--job-name.py test_116_41.py"
	"py:hetjob commands/sbatch/test_hetjob.py test_105_2.py"
	"py:arrays features/job_arrays/test_basics.py test_122_1.py"
	"py:reservation-flags features/reservations/test_flags.py test_123_1.py"
	"py:update-partition commands/scontrol/test_update_partition.py test_108_1.py"
	"py:window-exclusivity parameters/slurm/SwitchType/none/test_window_exclusivity.py test_134_1.py"
	"py:constraint commands/srun/test_--constraint.py -"
)

# python_file NAME VERSION: the file of python test NAME in VERSION's
# testsuite/python/tests; nothing when that version has none.
python_file() {
	local want=$1 version=$2 entry name old new
	for entry in "${python_tests[@]}"; do
		read -r name old new <<<"$entry"
		[[ $name == "$want" ]] || continue
		[[ $version == 22.05 ]] || old=$new
		[[ $old != - ]] && echo "$old"
		return 0
	done
	return 1
}

usage() {
	echo "slurm_regression.sh: $*" >&2
	echo "usage: slurm_regression.sh [--slurm-prefix DIR] [--slurm-source DIR]" \
		"[--placement POLICY] [--test-timeout SECS] [--out DIR] [TEST...]" >&2
	exit 2
}

# ---------------------------------------------------------------- inside

# write_globals DIR SLURM_DIR SOURCE: the testsuite's configuration for
# this bed (binaries, the source tree's config.h, no colours).
write_globals() {
	cat >"$1/testsuite.conf" <<CONF
SlurmSourceDir=$3
SlurmBuildDir=$3
SlurmInstallDir=$2
SlurmConfigDir=$(dirname "$SLURM_CONF")
CONF
	cat >"$1/expect/globals.local" <<CONF
set slurm_dir "$2"
set build_dir "$3"
set src_dir "$3"
set testsuite_colorize false
set testsuite_cleanup_on_failure false
CONF
}

# topoplace_conf POLICY: the site's topoplace.conf, loaded by a
# reconfigure (as the bed tests do, tests/lib/slurm_place_lib.sh).
topoplace_conf() {
	local etc
	etc=$(dirname "$SLURM_CONF")
	mkdir -p "$TP_BED_DIR/store" && chmod 755 "$TP_BED_DIR/store"
	cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
ProfileStore=$TP_BED_DIR/store
DefaultPlacement=$1
CONF
	# shellcheck disable=SC2034 # read by reconfigure_and_wait
	log=$TP_BED_SLURMCTLD_LOG
	TP_RECONFIGURE_WAIT=60 reconfigure_and_wait \
		"topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves" ||
		{ echo "slurm_regression.sh: slurmctld did not load $etc/topoplace.conf"; return 1; }
}

# run_pytest FILE LOG: one file of the python testsuite, local-config mode;
# prints its result: PASS (some passed, none failed), SKIP (all skipped, or
# none collected), FAIL or TIMEOUT, with pytest's counts, e.g. PASS(3p,1s).
run_pytest() {
	local rc counts
	(cd "$copy/python" && SLURM_TESTSUITE_CONF=$copy/testsuite.conf \
		exec timeout -k 10 "$test_timeout" /usr/bin/python3 -m pytest \
		-p no:cacheprovider -q -rs "tests/$1") </dev/null >"$2" 2>&1
	rc=$?
	counts=$(tail -n 3 "$2" | grep -oE '[0-9]+ (passed|failed|skipped|error)' |
		awk '{ printf "%s%d%s", n++ ? "," : "", $1, substr($2, 1, 1) }')
	case $rc in
	0) grep -qE '[0-9]+ passed' "$2" && echo "PASS($counts)" || echo "SKIP($counts)" ;;
	5) echo SKIP ;;
	124 | 137) echo TIMEOUT ;;
	*) echo "FAIL($counts)" ;;
	esac
}

# run_one TEST: run it from the copy, its output into $out/TEST.log; one
# line "TEST RESULT SECONDS" appended to $results.  A python test comes as
# py:NAME@FILE.
run_one() {
	local t=$1 rc start result
	start=$SECONDS
	if [[ $t == py:*@* ]]; then
		result=$(run_pytest "${t#*@}" "$out/${t%@*}.log")
		t=${t%@*}
	else
		(cd "$copy/expect" && exec timeout -k 10 "$test_timeout" expect "./$t") \
			</dev/null >"$out/$t.log" 2>&1
		rc=$?
		case $rc in
		0) result=PASS ;;
		255) result=SKIP ;;
		124 | 137) result=TIMEOUT ;;
		*) result=FAIL ;;
		esac
	fi
	echo "$t $result $((SECONDS - start))" >>"$results"
	# A test that timed out may leave jobs behind: the next one starts clean.
	scancel --user=root 2>/dev/null
	# shellcheck disable=SC2016 # expanded by that sh
	wait_for 30 sh -c '[ -z "$(squeue -h -o %A)" ]'
	scontrol -o show reservation 2>/dev/null |
		sed -n 's/^ReservationName=\([^ ]*\).*/\1/p' |
		while read -r r; do scontrol delete reservation "$r"; done
}

inside() {
	local select=$1 slurm_dir=$2 source=$3 t
	out=$4 placement=$5 test_timeout=$6
	shift 6
	# shellcheck source=../tests/lib/bed.sh
	. "$abs_top_srcdir/tests/lib/bed.sh"
	# shellcheck source=../tests/lib/slurm_place_lib.sh
	. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
	results=$out/results
	copy=$out/testsuite
	: >"$results"
	if [[ $select == select/topoplace_cons_tres ]]; then
		topoplace_conf "$placement" || return 1
	fi
	write_globals "$copy" "$slurm_dir" "$source"
	for t; do
		run_one "$t"
		tail -n 1 "$results"
	done
}

if [[ ${1:-} == --inside ]]; then
	shift
	inside "$@"
	exit
fi

# ---------------------------------------------------------------- outside

# explain TEST: why TEST may differ between the two clusters, or nothing.
explain() {
	local t=$1
	if [[ $t == test3.11 && $version == 22.05 ]]; then
		echo "documented: CoreCnt reservations refused on 22.05 (plugin id)"
	elif grep -q 'check_config_select "cons_tres"' "$source/testsuite/expect/$t" 2>/dev/null ||
		{ [[ $t == py:* ]] && grep -q '"select/cons_tres"' \
			"$source/testsuite/python/tests/$(python_file "$t" "$version")" 2>/dev/null; }; then
		echo "documented: the test checks SelectType=select/cons_tres by name"
	else
		echo UNEXPLAINED
	fi
}

# one_bed SELECT DIR: run the tests on a bed with SELECT; results in DIR.
one_bed() {
	local select=$1 dir=$2 topo=$work/topology.conf
	rm -rf "$dir" && mkdir -p "$dir" && chmod 755 "$dir" || return 1
	cp -a "$source/testsuite" "$dir/testsuite" || return 1
	chmod -R a+rX "$dir/testsuite"
	echo "# $select: ${#tests[@]} tests (per test $test_timeout s)" >&2
	"$abs_top_srcdir/tests/lib/tp-bed" --topology "$topo" --cpus 4 \
		--select "$select" --plugin-dir "$plugins" \
		${slurm_prefix:+--slurm-prefix "$slurm_prefix"} \
		--timeout $((${#tests[@]} * (test_timeout + 45) + 300)) \
		--keep "$dir/bed" \
		-- "$self" --inside "$select" "$slurm_dir" "$source" "$dir" \
		"$placement" "$test_timeout" "${run_tests[@]}" | sed 's/^/#   /' >&2
	[[ -s $dir/results ]]
}

result_of() { awk -v t="$1" '$1 == t { print $2 }' "$2/results"; }

report() {
	local t a b same=0 differ=0 unexplained=0 why
	printf '%-22s | %-12s | %-12s | %s\n' test cons_tres topoplace same?
	for t in "${tests[@]}"; do
		a=$(result_of "$t" "$out/cons_tres")
		b=$(result_of "$t" "$out/topoplace")
		if [[ ${a:-MISSING} == "${b:-MISSING}" ]]; then
			same=$((same + 1))
			printf '%-22s | %-12s | %-12s | yes\n' "$t" "${a:-MISSING}" "${b:-MISSING}"
		else
			differ=$((differ + 1))
			why=$(explain "$t")
			[[ $why == UNEXPLAINED ]] && unexplained=$((unexplained + 1))
			printf '%-22s | %-12s | %-12s | no: %s\n' "$t" "${a:-MISSING}" "${b:-MISSING}" "$why"
		fi
	done
	echo "$same same, $differ differ ($unexplained unexplained)"
	((unexplained == 0))
}

slurm_prefix=${TP_BED_SLURM_PREFIX:-} source='' placement=auto
test_timeout=180 out=''
while (($#)); do
	case $1 in
	--slurm-prefix) slurm_prefix=${2:?}; shift 2 ;;
	--slurm-source) source=${2:?}; shift 2 ;;
	--placement) placement=${2:?}; shift 2 ;;
	--test-timeout) test_timeout=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) usage "runs Slurm's expect tests beside cons_tres and topoplace" ;;
	-*) usage "unknown option $1" ;;
	*) break ;;
	esac
done
tests=("$@")
if ((${#tests[@]} == 0)); then
	tests=("${default_tests[@]}")
	for entry in "${python_tests[@]}"; do
		tests+=("${entry%% *}")
	done
fi
[[ $test_timeout =~ ^[1-9][0-9]*$ ]] || usage "--test-timeout must be whole seconds, not '$test_timeout'"
: "${abs_top_builddir:?set abs_top_builddir (make slurm-regression does)}"
: "${abs_top_srcdir:?set abs_top_srcdir (make slurm-regression does)}"
((EUID == 0)) || usage "needs root (tp-bed: namespaces, tmpfs)"
command -v expect >/dev/null || usage "needs expect (tools/install-deps installs it)"
if [[ -n $slurm_prefix ]]; then
	slurm_prefix=$(readlink -m -- "$slurm_prefix")
	slurm_dir=$slurm_prefix
	: "${source:=$(dirname "$slurm_prefix")/src}"
	version=$("$slurm_prefix/sbin/slurmctld" -V | awk '{ print $2 }')
else
	slurm_dir=$(dirname "$(dirname "$(command -v slurmctld)")")
	: "${source:=/var/cache/topoplace/slurm-source}"
	version=$(slurmctld -V | awk '{ print $2 }')
fi
version=${version%.*}
[[ -f $source/testsuite/expect/globals ]] || usage "$source holds no Slurm testsuite (testsuite/expect/globals)"
# run_tests: what the beds run (a python test as py:NAME@FILE); tests:
# the names the table shows, without a python test this version lacks.
run_tests=() names=()
for t in "${tests[@]}"; do
	if [[ $t == py:* ]]; then
		f=$(python_file "$t" "$version") || usage "no python test $t (names: see python_tests in $0)"
		if [[ -z $f ]]; then
			echo "# $t: not in Slurm $version's python testsuite" >&2
			continue
		fi
		[[ -f $source/testsuite/python/tests/$f ]] || usage "$source/testsuite/python/tests has no $f ($t)"
		/usr/bin/python3 -c 'import pytest, py.io, requests, pexpect' 2>/dev/null ||
			usage "$t needs python3-pytest, python3-py, python3-requests and python3-pexpect (tools/install-deps)"
		run_tests+=("$t@$f")
	else
		[[ -f $source/testsuite/expect/$t ]] || usage "$source/testsuite/expect has no $t"
		run_tests+=("$t")
	fi
	names+=("$t")
done
tests=("${names[@]}")
self=$(readlink -f -- "$0")
plugins=$abs_top_builddir/slurm-plugin/.libs
[[ -e $plugins/select_topoplace_cons_tres.so ]] || usage "no $plugins/select_topoplace_cons_tres.so: build the tree first"
out=$(readlink -m -- "${out:-slurm-regression.$(date -u +%Y%m%dT%H%M%S)}")
mkdir -p "$out" && chmod 755 "$out" || exit 1
work=$(mktemp -d /tmp/tp-regression.XXXXXX) && chmod 755 "$work" || exit 1
trap 'rm -rf "$work"' EXIT
"$abs_top_builddir/tools/topoplace-fattree" --leaves 4 --hosts-per-leaf 4 \
	--spines 2 --format slurm -o "$work/topology.conf" || exit 1

echo "# Slurm $version ($slurm_dir), testsuite of $source, DefaultPlacement=$placement"
one_bed select/cons_tres "$out/cons_tres" || echo "# the cons_tres bed gave no results (logs in $out/cons_tres/bed)"
one_bed select/topoplace_cons_tres "$out/topoplace" || echo "# the topoplace bed gave no results (logs in $out/topoplace/bed)"
report | tee "$out/table"
exit "${PIPESTATUS[0]}"
