#!/bin/bash
# slurm_record_nodes.sh: --comm-record of a real Open MPI run over 4 nodes
# (issue #18).  The bed gives every slurmd a TmpFS of its own
# (tp-bed --node-tmpfs), as real nodes have: mpi/pmix makes its per-step
# directory there on every node of the step, which on one shared TmpFS
# collides.  tpalice's batch job runs `srun --mpi=pmix` over 4 nodes, 8
# ranks, with task/topoplace preloading libtopoplace_profiler.so on every
# node; the ranks' traffic is gathered to rank 0 and the store gets one
# profile with all 8 ranks, whose matrix has traffic between ranks that
# ran on different nodes.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	. "$abs_top_srcdir/tests/lib/record_bed.sh"
	tp_record_bed_prepare --mpi mpi_patterns --pmix
	tp_record_bed_run slurm_record_nodes --cpus 2 --node-tmpfs
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice
id -u "$alice" >/dev/null 2>&1 || tp_skip "user $alice does not exist"
work=$TP_RECORD_WORK
out=$TP_BED_JOBDIR
etc=$(dirname "$SLURM_CONF")
tp=$abs_top_builddir/tools/topoplace
sock=$TP_BED_DIR/munge/munge.socket
store=$TP_BED_DIR/store
mkdir -p "$store" && chmod 755 "$store"
install -d -o "$alice" -m 755 "$store/$alice"
printf 'FabricSource=topology\nProfileStore=%s\n' "$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

tp_check_eq "every node has a TmpFS of its own" 4 \
	"$(ls -d "$TP_BED_NODE_TMPFS"/*/ 2>/dev/null | wc -l)"

# Ranks on different nodes of the bed are on one host but, for Open MPI,
# on different nodes (PMIx says so): they talk over TCP on loopback, and
# so do two ranks of one node (Open MPI 4.1's shared-memory transport fails
# now and then under load: open-mpi/ompi#5262).
# TMPDIR (Open MPI's session directory) is the node's TmpFS, as a site's
# TaskProlog would set it: one path, a different directory on each node.
tmpfs=$(sed -n 's/^TmpFS=//p' "$SLURM_CONF")
mpienv="export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1 TMPDIR=$tmpfs"
# Each task notes its node and the pmix step directory it sees in its
# node's TmpFS, then execs the program (LD_PRELOAD carries over).
# shellcheck disable=SC2016 # expanded by the task's shell
task='echo "$SLURMD_NODENAME $(cd "$TMPDIR" && ls -d spmix_appdir_*)" >"$1/nodes.$SLURM_PROCID"; exec "$2" ring 50'
submit() {
	tp_as_user "$alice" sbatch --parsable -N 4 -n 8 -J ring4 --comm-record \
		-o "$out/rec-%j.out" --wrap "$mpienv; srun --mpi=pmix bash -c '$task' _ $out $work/mpi_patterns"
}
j=$(submit)
state=$(tp_wait_job "$j" 180)
# Open MPI 4.1's TCP transport between the bed's nodes (one host, one
# loopback address) now and then crashes a rank under load before the
# program runs ("Open MPI failed to TCP connect", a peer's segfault):
# Open MPI's failure (seen in CI beside other beds), not
# topoplace's, and nothing was recorded. Submitted once more, and said so.
if [ "$state" = FAILED ] &&
	grep -qE "Open MPI failed to TCP connect|peer hung up|Segmentation fault" "$out/rec-$j.out" &&
	[ -z "$(ls "$store/$alice/ring4/"*.tpp 2>/dev/null)" ]; then
	echo "# job $j: Open MPI's TCP transport failed (its output below); submitted again"
	grep -m3 -e "Message:" -e "Error:" -e "Segmentation" "$out/rec-$j.out" | sed 's/^/#   /'
	rm -f "$out"/nodes.*
	j=$(submit)
	state=$(tp_wait_job "$j" 180)
fi
tp_check_eq "the 4-node recorded job $j completes" COMPLETED "$state" ||
	sed 's/^/#   /' "$out/rec-$j.out" 2>/dev/null | tail -n 20
tp_check_eq "its 8 ranks ran on 4 nodes" 4 \
	"$(cut -d' ' -f1 "$out"/nodes.* 2>/dev/null | sort -u | wc -l)"
# mpi/pmix removes its directory when the step ends: the tasks looked.
tp_check_eq "every task saw mpi/pmix's directory of the step in its node's TmpFS" \
	8 "$(grep -c ' spmix_appdir_[0-9]*_'"$j"'\.0$' "$out"/nodes.* 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')"
tp_check "the run left one profile in $alice/ring4" \
	bash -c '[ $(ls "$1"/*.tpp 2>/dev/null | wc -l) = 1 ]' _ "$store/$alice/ring4"
tp_check "it verifies: signed by $alice for $alice/ring4" \
	"$tp" profile verify --store "$store" --munge-socket "$sock" "$alice/ring4"
show=$("$tp" profile show --store "$store" --munge-socket "$sock" "$alice/ring4" 2>&1)
tp_check_eq "it has all 8 ranks of the run" 8 \
	"$(sed -n 's/^ranks: *\([0-9]*\).*/\1/p' <<<"$show")"
# Pairs of ranks that ran on different nodes: only the gather from the
# other nodes can have brought their traffic into rank 0's matrix.
cross=$(awk 'FNR == 1 { split(FILENAME, f, "."); node[f[length(f)]] = $1 }
	END { for (s in node) for (d in node) if (node[s] != node[d]) print s, d }' \
	"$out"/nodes.* 2>/dev/null | sort)
top=$(sed -n '/^top pairs:/,/^[a-z]/{s/^ *\([0-9][0-9]*\) *\([0-9][0-9]*\) .*/\1 \2/p}' <<<"$show" | sort)
tp_check "its top pairs include traffic between ranks on different nodes" \
	bash -c '[ -n "$(comm -12 <(echo "$1") <(echo "$2"))" ]' _ "$cross" "$top" ||
	printf '#   %s\n' "$show"
tp_done
