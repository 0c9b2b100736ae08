#!/bin/bash
# slurm_pods.sh: pod exposure under adaptive routing (issue #15) through
# sbatch on a 3-level tree: the 16 hosts of the tp-bed cluster in 2 pods
# of 2 leaves (pod01: leaf001 n[0001-0004], leaf002 n[0005-0008]; pod02:
# leaf003 n[0009-0012], leaf004 n[0013-0016]), Routing=adaptive (the
# default).  An io_heavy job runs on n0001, so pod01's aggregation links
# may carry its I/O.  Whole-leaf comm_sensitive jobs of 4 nodes then
#   - take pod02's two leaves first, although leaf002 is whole too (a
#     plain whole-leaf choice would take it first: it comes first by name);
#   - when only leaf002 is left, start there, and the SystemComment says
#     that pod isolation was given up and why (pod01 carries the I/O job);
# and a job of 8 nodes that only two pods hold together says it spans
# pods.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
if [ "${1:-}" != --inside ]; then
	TP_BED_FATTREE="--leaves 4 --pods 2 --hosts-per-leaf 4 --spines 2 --cores 2" \
		tp_slurm_bed slurm_pods --timeout 240
fi

tp_slurm_setup
tp_slurm_profiles

as_user() { tp_as_user "$user" "$@"; }
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }
comment_has() { comment "$1" | grep -q -- "$2"; }   # JOB PATTERN
comment_lacks() { ! comment "$1" | grep -q -- "$2"; } # JOB PATTERN
leaf_job() { # NODES
	as_user sbatch --parsable -J hpcg --placement=leaf -N "$1" \
		-o /dev/null --wrap 'sleep 300'
}

tp_check "the bed's topology.conf has two pods" \
	grep -q '^SwitchName=pod02 Switches=leaf\[003-004\]' "$etc/topology.conf"
tp_check "slurmctld loads topoplace.conf (Routing=adaptive, the default)" \
	tp_site_conf LeafRemainder=whole

io=$(as_user sbatch --parsable -J ioheavy --placement=shared -N 1 \
	-w n0001 -o /dev/null --wrap 'sleep 300')
tp_check "the io_heavy job runs on n0001 (pod01)" wait_state "$io" RUNNING 30
tp_check_eq "... and is io_heavy" 1 \
	"$(grep -c "JobId=$io placement=shared nodes=n0001 policy=shared class=io_heavy" "$log")"

a=$(leaf_job 4)
tp_check "a 4-node comm_sensitive leaf job runs" wait_state "$a" RUNNING 30
tp_check "... in pod02, not on the whole leaf002 of the pod with I/O" \
	grep -qx 'leaf00[34]' <<<"$(leaves_of_job "$a")"
tp_check "... its SystemComment says how it was placed" \
	comment_has "$a" 'topoplace: placement=leaf class=comm_sensitive'
tp_check "... and gives nothing up" \
	comment_lacks "$a" 'isolation given up'

b=$(leaf_job 4)
tp_check "a second one runs" wait_state "$b" RUNNING 30
tp_check "... on pod02's other leaf" \
	grep -qx 'leaf00[34]' <<<"$(leaves_of_job "$b")"
tp_check "... not beside the first" \
	leaves_disjoint "$(leaves_of_job "$a")" "$(leaves_of_job "$b")"

c=$(leaf_job 4)
tp_check "a third one starts on the only whole leaf left" wait_state "$c" RUNNING 30
tp_check_eq "... leaf002" leaf002 "$(leaves_of_job "$c")"
tp_check "... and its SystemComment says pod isolation was given up, and why" \
	comment_has "$c" "pod isolation given up (adaptive routing): .*pod pod01 carries I/O of job $io"

scancel "$a" "$c"
tp_wait_job "$a" 30 >/dev/null
tp_wait_job "$c" 30 >/dev/null
d=$(leaf_job 8)
tp_check "an 8-node job that no single pod holds runs" wait_state "$d" RUNNING 30
tp_check "... its SystemComment says it spans pods" \
	comment_has "$d" 'pod isolation given up (adaptive routing): spans pods pod01,pod02'

scancel "$io" "$b" "$d"
tp_check "slurmctld still answers" scontrol ping
tp_done
