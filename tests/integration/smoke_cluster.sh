#!/bin/bash
# smoke_cluster.sh - tp-bed brings up a real 32-node Slurm cluster on 8 leaves
# that runs batch and interactive jobs as root and as an ordinary user.
#
# Without arguments it starts the bed and re-runs itself inside it with
# --inside. Env: abs_top_srcdir, abs_top_builddir (from make check),
# TP_TEST_USER (default tpalice).

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${abs_top_srcdir:-$here/../..}
. "$srcdir/tests/lib/bed.sh"

nodes=32 leaves=8
user=${TP_TEST_USER:-tpalice}

if [[ ${1:-} != --inside ]]; then
	tp_require_bed
	exec "$srcdir/tests/lib/tp-bed" --nodes $nodes --leaves $leaves --timeout 300 \
		--keep "${abs_top_builddir:-$PWD}/tests/integration/smoke_cluster.bed" \
		-- "$here/$(basename "$0")" --inside
fi

# count_hosts HOSTLIST: number of names in a Slurm hostlist expression.
count_hosts() { scontrol show hostnames "$1" | wc -l; }

# -- the cluster as configured

tp_check_eq "sinfo: $nodes idle nodes in partition debug" \
	"debug* idle $nodes" "$(sinfo -h -o '%P %T %D' 2>&1)"

topo=$(scontrol show topology 2>&1)
leaf_sizes=$(awk '/Level=0/' <<<"$topo" | sed -n 's/.* Nodes=\([^ ]*\).*/\1/p' |
	while read -r list; do count_hosts "$list"; done | sort | uniq -c | awk '{print $1 "x" $2}')
tp_check_eq "topology: $leaves leaves of $((nodes / leaves)) nodes" \
	"${leaves}x$((nodes / leaves))" "$leaf_sizes"
tp_check_eq "topology: leaves named leaf001..leaf00$leaves" \
	"$(printf 'leaf%03d\n' $(seq $leaves))" \
	"$(awk '/Level=0/' <<<"$topo" | sed -n 's/^SwitchName=\([^ ]*\).*/\1/p' | sort)"
top_level=$(sed -n 's/.* Level=\([0-9]*\).*/\1/p' <<<"$topo" | sort -n | tail -n 1)
tops=$(awk -v l="Level=$top_level" '$2 == l' <<<"$topo")
tp_check_eq "topology: one root switch above all $nodes nodes" \
	"root $nodes" \
	"$(sed -n 's/^SwitchName=\([^ ]*\).* Nodes=\([^ ]*\).*/\1 \2/p' <<<"$tops" |
		while read -r name list; do echo "$name $(count_hosts "$list")"; done)"

# -- jobs

# A batch script that reports its uid, then one line per node of the job.
script=$TP_BED_JOBDIR/smoke.sbatch
cat >"$script" <<'EOF'
#!/bin/sh
echo "uid $(id -u)"
srun sh -c 'echo "node $SLURMD_NODENAME"'
EOF
chmod 0755 "$script"

# check_batch WHO RUN...: submit the script with RUN (a command prefix, e.g.
# tp_as_user alice) and check state, uid, owner and the nodes in its output.
check_batch() {
	local who=$1 uid job state out want
	shift
	uid=$("$@" id -u)
	job=$("$@" sbatch --parsable -N 2 -J smoke -D "$TP_BED_JOBDIR" \
		-o "$TP_BED_JOBDIR/%j.out" "$script" 2>&1)
	if [[ ! $job =~ ^[0-9]+$ ]]; then
		tp_fail "$who: sbatch -N 2 accepted" "$job"
		return
	fi
	state=$(tp_wait_job "$job" 60)
	tp_check_eq "$who: sbatch -N 2 job $job COMPLETED" COMPLETED "$state"
	out=$(cat "$TP_BED_JOBDIR/$job.out" 2>&1)
	want=$(scontrol show hostnames "$(scontrol show job -o "$job" |
		sed -n 's/.* NodeList=\([^ ]*\).*/\1/p')" | sed 's/^/node /')
	tp_check_eq "$who: job output has uid $uid and both nodes" \
		"$(printf 'uid %s\n%s' "$uid" "$want")" \
		"$(head -n 1 <<<"$out"; tail -n +2 <<<"$out" | sort)"
	tp_check_eq "$who: job ran on 2 distinct nodes" 2 "$(sort -u <<<"$want" | grep -c .)"
	tp_check_eq "$who: scontrol show job names the owner" \
		"UserId=$("$@" id -un)($uid)" \
		"$(scontrol show job -o "$job" | grep -o 'UserId=[^ ]*')"
}

# check_srun WHO RUN...: srun -N 8 runs 8 tasks on 8 distinct nodes as WHO.
check_srun() {
	local who=$1 uid out
	shift
	uid=$("$@" id -u)
	out=$("$@" timeout 60 srun -N 8 -J smoke sh -c 'echo "$SLURMD_NODENAME $(id -u)"' 2>&1)
	tp_check_eq "$who: srun -N 8 ran 8 tasks" 8 "$(grep -c '^n[0-9]' <<<"$out")" ||
		printf '%s\n' "$out" | sed 's/^/#   /'
	tp_check_eq "$who: srun -N 8 used 8 distinct nodes" 8 \
		"$(awk '/^n[0-9]/ {print $1}' <<<"$out" | sort -u | wc -l)"
	tp_check_eq "$who: srun tasks ran as uid $uid" "$uid" \
		"$(awk '/^n[0-9]/ {print $2}' <<<"$out" | sort -u | paste -sd' ' -)"
}

check_batch root
check_srun root

if ! id "$user" >/dev/null 2>&1; then
	tp_skip "user $user does not exist (set TP_TEST_USER or create tpalice)"
fi
check_batch "$user" tp_as_user "$user"
check_srun "$user" tp_as_user "$user"

tp_done
