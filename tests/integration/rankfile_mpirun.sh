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
#  2. SLURM_HOSTFILE: inside a tp-bed cluster of 8 nodes on 2 leaves,
#     `srun -m arbitrary` with the file; each rank's SLURMD_NODENAME must be
#     the file's line for that rank.
#  3. The Hydra machinefile: its runs must expand to the hostfile's order
#     (no MPICH launcher is installed here to launch with it).
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

"$topoplace" remap --help >/dev/null 2>&1 ||
	tp_skip "$topoplace has no remap subcommand"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

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
		got=$(timeout 120 mpirun --allow-run-as-root --oversubscribe \
			--rankfile "$work/rankfile.local" -np "$cores" \
			sh -c "$report" 2>&1 | sort -n)
		tp_check_eq "mpirun binds each rank to its rankfile slot" \
			"$want" "$got"
		# Reverse the slots: the binding must follow, or the check above
		# could not tell a honoured rankfile from default binding.
		awk -v n="$cores" '{ sub(/slot=[0-9]+/, "slot=" (n - 1 - (NR - 1))); print }' \
			"$work/rankfile.local" >"$work/rankfile.rev"
		want=$(sed -n 's/^rank \([0-9]*\)=.* slot=\([0-9]*\)$/\1 \2/p' \
			"$work/rankfile.rev")
		got=$(timeout 120 mpirun --allow-run-as-root --oversubscribe \
			--rankfile "$work/rankfile.rev" -np "$cores" \
			sh -c "$report" 2>&1 | sort -n)
		tp_check_eq "mpirun follows reversed slots (the check discriminates)" \
			"$want" "$got"
	fi
else
	echo "# mpirun not installed: Open MPI part not run"
fi

# ---- 3. Hydra machinefile = hostfile order ------------------------------
tp_check "topoplace remap writes machinefile and hostfile" \
	"$topoplace" remap --matrix "$abs_top_srcdir/tests/data/matrices/LULESH-27.txt" \
	--hosts 'n[0001-0004]' --slots 8 --fabric 1x2x2 \
	--machinefile "$work/machinefile" --hostfile-out "$work/hostfile"
tp_check_eq "the machinefile's runs expand to the hostfile" \
	"$(cat "$work/hostfile")" \
	"$(awk -F: '{ for (i = 0; i < $2; i++) print $1 }' "$work/machinefile")"

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
	echo "# tp-bed cannot run here (needs root, Slurm, munge): srun part not run"
fi

tp_done
