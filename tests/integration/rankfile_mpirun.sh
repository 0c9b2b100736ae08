#!/bin/bash
# rankfile_mpirun.sh: the launcher files `topoplace remap` writes are obeyed
# by the real launchers, checked by where each rank actually ran.
#
#  1. Open MPI (Debian's mpirun): the rankfile's `slot=S` binds rank N to
#     core S, read back from each rank's /proc/self/status Cpus_allowed_list.
#     On one machine Open MPI only knows the local host, so the fabric host
#     name in the rankfile (n0001) is replaced by this machine's hostname;
#     which *host* a rank lands on is checked in part 2.  A rankfile with the
#     slots reversed proves the check tells the two apart.
# 1b. Open MPI across hosts: mpirun's rsh launcher replaced (mca
#     plm_rsh_agent) by a stand-in that starts each host's daemon here with
#     the host name in its environment, as in part 3: each rank of a
#     remapped 8-rank rankfile on 4 hosts must report its rankfile host and
#     be bound to its slot.
#  2. SLURM_HOSTFILE: inside a tp-bed cluster of 8 nodes on 2 leaves,
#     `srun -m arbitrary` with the file; each rank's SLURMD_NODENAME must be
#     the file's line for that rank.
#  3. The Hydra machinefile: MPICH's mpiexec.hydra launched with it, its
#     ssh launcher replaced (-launcher-exec) by a stand-in that records the
#     host each proxy was sent to and starts the proxy here with that name
#     in its environment: each rank must report the host its machinefile
#     run names.  (Inside a Slurm allocation Hydra's slurm launcher starts
#     its proxies in Slurm's node order whatever the machinefile says:
#     there, MPICH jobs use srun and SLURM_HOSTFILE, part 2.)
#
# A part that cannot run (no mpirun, no mpiexec.hydra, no test bed) fails
# under TOPOPLACE_REQUIRE_ALL=1, as a skip would: nothing passes unlaunched.
#
# Env: abs_top_builddir, abs_top_srcdir (make check); TP_TOPOPLACE to use
# another topoplace binary.
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
topoplace=${TP_TOPOPLACE:-$abs_top_builddir/tools/topoplace}

if [ "${1:-}" = --inside ]; then
	# Part 2, inside the bed: print ok/not ok lines for the outer script.
	. "$abs_top_srcdir/tests/lib/bed.sh"
	dir=$TP_BED_JOBDIR/rankfile
	mkdir -p "$dir"
	# 8 ranks: a ring 0-4-1-5-2-6-3-7 and two heavy pairs, so remap moves
	# ranks away from block order.
	{
		echo "# commprof-v1 ranks=8"
		for p in "0 4" "4 1" "1 5" "5 2" "2 6" "6 3" "3 7" "7 0"; do
			echo "$p 1000 10"
		done
	} >"$dir/ring.txt"
	tp_check "topoplace remap writes a SLURM_HOSTFILE for the bed's nodes" \
		"$topoplace" remap --matrix "$dir/ring.txt" \
		--hosts 'n[0001-0002],n[0005-0006]' --slots 2 --fabric 1x2x4 \
		--hostfile-out "$dir/hostfile"
	tp_check "the hostfile is not block order (the remap moved ranks)" \
		bash -c '! diff -q "$1" <(printf "n0001\nn0001\nn0002\nn0002\nn0005\nn0005\nn0006\nn0006\n")' \
		_ "$dir/hostfile"
	out=$(SLURM_HOSTFILE="$dir/hostfile" timeout 120 srun -m arbitrary \
		-n 8 bash -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' 2>&1)
	tp_check_eq "srun -m arbitrary ran all 8 ranks" 8 \
		"$(grep -c '^[0-9] n[0-9]*$' <<<"$out")"
	tp_check_eq "each rank ran on the node its hostfile line names" \
		"$(awk '{print NR - 1, $1}' "$dir/hostfile")" \
		"$(sort -n <<<"$out")"
	exit 0
fi

. "$abs_top_srcdir/tests/lib/bed.sh"

# not_run WHAT: a part that could not be launched.
not_run() {
	if [[ ${TOPOPLACE_REQUIRE_ALL:-0} == 1 ]]; then
		tp_fail "not run although TOPOPLACE_REQUIRE_ALL=1: $*"
	else
		echo "# not run: $*"
	fi
}

"$topoplace" remap --help >/dev/null 2>&1 ||
	tp_skip "$topoplace has no remap subcommand"
work=$(mktemp -d) || exit 1
# Open MPI's daemons detach (orted --daemonize): if mpirun is stopped by
# its timeout, they would outlive the test; their command line names the
# rankfile under $work.
trap 'pkill -f "orte_rankfile $work/" 2>/dev/null; rm -rf "$work"' EXIT

# fake_remote_shell PATH LOG: writes PATH, a stand-in for the ssh/rsh that
# mpirun (plm_rsh_agent) and Hydra (-launcher-exec) call with options, a
# host and a command line: it appends the host to LOG and runs the command
# here with TP_FAKE_HOST=host in its environment, which the ranks inherit.
# Each stand-in host gets its own TMPDIR, as each real host has its own
# /tmp: Open MPI's daemons name their session directory after the real
# hostname, and four daemons sharing one directory here raced on it (one
# died at start-up, and mpirun waited for it forever: 2 of 10 runs hung).
fake_remote_shell() {
	cat >"$1" <<SH
#!/bin/bash
while [[ \${1:-} == -* ]]; do
	case \$1 in -[opliF]) shift 2 ;; *) shift ;; esac
done
host=\$1
shift
echo "\$host" >>'$2'
mkdir -p '$work/tmp.'"\$host" || exit 1
exec env TP_FAKE_HOST="\$host" TMPDIR='$work/tmp.'"\$host" sh -c "\$*"
SH
	chmod +x "$1"
}

# ranks_report ERR CMD...: CMD's standard output sorted by rank; its
# standard error goes to ERR, so that a launcher's warning is not read as a
# rank's line, and is shown by stderr_detail when the check fails.
ranks_report() {
	local err=$1
	shift
	timeout 120 "$@" 2>"$err" | sort -n
}

# stderr_detail ERR: the launcher's standard error as `#` lines under the
# check that just failed.
stderr_detail() {
	[[ -s $1 ]] && head -n 20 "$1" | sed 's/^/#   launcher stderr: /'
	return 0
}

# ---- 1b. Open MPI rankfile across hosts ----------------------------------
# mpirun's rsh launcher replaced (plm_rsh_agent) by a stand-in that records
# the host each daemon was sent to and starts the daemon here with that
# name in its environment, which its ranks inherit: each rank must report
# the host and be bound to the slot its rankfile line names.  An 8-rank
# ring that remap moves out of block order on 4 hosts x 2 slots, so that
# mpirun's default placement would not pass.
multi_host_rankfile() {
	{
		echo "# commprof-v1 ranks=8"
		for p in "0 4" "4 1" "1 5" "5 2" "2 6" "6 3" "3 7" "7 0"; do
			echo "$p 1000 10"
		done
	} >"$work/ring.txt"
	tp_check "topoplace remap writes a rankfile for 4 hosts" \
		"$topoplace" remap --matrix "$work/ring.txt" \
		--hosts 'n[0001-0002],n[0005-0006]' --slots 2 --fabric 1x2x4 \
		--rankfile "$work/rankfile.hosts"
	want=$(sed -n 's/^rank \([0-9]*\)=\([^ ]*\) slot=\([0-9]*\)$/\1 \2 \3/p' \
		"$work/rankfile.hosts")
	tp_check "the rankfile is not block order (the remap moved ranks)" \
		bash -c '! diff -q <(cut -d" " -f2 <<<"$1") <(printf "n0001\nn0001\nn0002\nn0002\nn0005\nn0005\nn0006\nn0006\n")' \
		_ "$want"
	fake_remote_shell "$work/fake-rsh" "$work/launched.ompi"
	report='echo "$OMPI_COMM_WORLD_RANK $TP_FAKE_HOST $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
	got=$(ranks_report "$work/mpirun.err" mpirun --allow-run-as-root \
		--oversubscribe --mca plm_rsh_agent "$work/fake-rsh" \
		--mca plm_rsh_no_tree_spawn 1 \
		--host n0001:2,n0002:2,n0005:2,n0006:2 \
		--rankfile "$work/rankfile.hosts" -np 8 \
		sh -c "$report")
	tp_check_eq "mpirun started one daemon per rankfile host" \
		"$(cut -d" " -f2 <<<"$want" | sort -u)" \
		"$(sort -u "$work/launched.ompi" 2>/dev/null)"
	tp_check_eq "each Open MPI rank ran on its rankfile host, bound to its slot" \
		"$want" "$got" || stderr_detail "$work/mpirun.err"
}

# ---- 1. Open MPI rankfile -> core binding --------------------------------
if command -v mpirun >/dev/null; then
	cores=$(nproc)
	((cores > 4)) && cores=4
	if ((cores < 2)); then
		tp_fail "Open MPI part needs 2 cores, this machine has $cores"
	else
		{
			echo "# commprof-v1 ranks=$cores"
			for ((r = 1; r < cores; r++)); do
				echo "$((r - 1)) $r 100 1"
			done
		} >"$work/chain.txt"
		tp_check "topoplace remap writes an Open MPI rankfile" \
			"$topoplace" remap --matrix "$work/chain.txt" \
			--hosts n0001 --slots "$cores" --fabric 1x1x1 \
			--rankfile "$work/rankfile"
		host=$(hostname)
		sed "s/=n0001 /=$host /" "$work/rankfile" >"$work/rankfile.local"
		# What each rank must be bound to: "rank slot" from the file.
		want=$(sed -n 's/^rank \([0-9]*\)=.* slot=\([0-9]*\)$/\1 \2/p' \
			"$work/rankfile.local")
		tp_check_eq "the rankfile places every rank" "$cores" \
			"$(wc -l <<<"$want")"
		report='echo "$OMPI_COMM_WORLD_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
		got=$(ranks_report "$work/mpirun.err" mpirun --allow-run-as-root \
			--oversubscribe --rankfile "$work/rankfile.local" \
			-np "$cores" sh -c "$report")
		tp_check_eq "mpirun binds each rank to its rankfile slot" \
			"$want" "$got" || stderr_detail "$work/mpirun.err"
		# Reverse the slots: the binding must follow, or the check above
		# could not tell a honoured rankfile from default binding.
		awk -v n="$cores" '{ sub(/slot=[0-9]+/, "slot=" (n - 1 - (NR - 1))); print }' \
			"$work/rankfile.local" >"$work/rankfile.rev"
		want=$(sed -n 's/^rank \([0-9]*\)=.* slot=\([0-9]*\)$/\1 \2/p' \
			"$work/rankfile.rev")
		got=$(ranks_report "$work/mpirun.err" mpirun --allow-run-as-root \
			--oversubscribe --rankfile "$work/rankfile.rev" \
			-np "$cores" sh -c "$report")
		tp_check_eq "mpirun follows reversed slots (the check discriminates)" \
			"$want" "$got" || stderr_detail "$work/mpirun.err"
		multi_host_rankfile
	fi
else
	not_run "mpirun not installed (openmpi-bin): Open MPI part"
fi

# ---- 3. Hydra machinefile = hostfile order ------------------------------
tp_check "topoplace remap writes machinefile and hostfile" \
	"$topoplace" remap --matrix "$abs_top_srcdir/tests/data/matrices/LULESH-27.txt" \
	--hosts 'n[0001-0004]' --slots 8 --fabric 1x2x2 \
	--machinefile "$work/machinefile" --hostfile-out "$work/hostfile"
tp_check_eq "the machinefile's runs expand to the hostfile" \
	"$(cat "$work/hostfile")" \
	"$(awk -F: '{ for (i = 0; i < $2; i++) print $1 }' "$work/machinefile")"
tp_check "the mapping is not block order (the remap moved ranks)" \
	bash -c '! diff -q "$1" <(for h in n0001 n0002 n0003 n0004; do for i in 1 2 3 4 5 6 7 8; do echo $h; done; done | head -27)' \
	_ "$work/hostfile"
if command -v mpiexec.hydra >/dev/null; then
	fake_remote_shell "$work/fake-ssh" "$work/launched"
	got=$(ranks_report "$work/hydra.err" mpiexec.hydra -launcher ssh \
		-launcher-exec "$work/fake-ssh" -f "$work/machinefile" -n 27 \
		sh -c 'echo "$PMI_RANK $TP_FAKE_HOST"')
	tp_check_eq "mpiexec.hydra started one proxy per machinefile host" \
		"$(cut -d: -f1 "$work/machinefile" | sort -u)" \
		"$(sort -u "$work/launched" 2>/dev/null)"
	tp_check_eq "each MPICH rank ran on the host its machinefile run names" \
		"$(awk '{print NR - 1, $1}' "$work/hostfile")" "$got" ||
		stderr_detail "$work/hydra.err"
else
	not_run "mpiexec.hydra not installed (mpich): Hydra part"
fi

# ---- 2. SLURM_HOSTFILE with srun -m arbitrary in a bed --------------------
bed_ok=1
((EUID == 0)) || bed_ok=0
for c in slurmctld slurmd srun munged unshare; do
	command -v "$c" >/dev/null || bed_ok=0
done
if ((bed_ok)); then
	inside=$("$abs_top_srcdir/tests/lib/tp-bed" --nodes 8 --leaves 2 \
		--timeout 300 -- "$0" --inside 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) tp_pass "bed: ${line#ok - }" ;;
		"not ok - "*) tp_fail "bed: ${line#not ok - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <<<"$inside"
	grep -q '^ok - \|^not ok - ' <<<"$inside" ||
		tp_fail "the bed ran the srun part (exit $rc)" "$inside"
else
	not_run "tp-bed cannot run here (needs root, Slurm, munge): srun part"
fi

tp_done
