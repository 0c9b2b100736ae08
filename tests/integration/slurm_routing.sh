#!/bin/bash
# slurm_routing.sh: topoplace.conf's Routing key reaches slurmctld's
# placement (issue #15), on the tp-bed cluster of slurm_place.sh (4 leaves
# x 4 hosts).  A site-wide I/O server sits on leaf001's last port
# (IoServerHosts=n0004).
#   - Routing=adaptive (the default): a 3-node whole-leaf job keeps off
#     leaf001, whose uplinks may carry the server's traffic;
#   - Routing=static, after a reconfigure: the same job takes leaf001's 3
#     other hosts (the tightest fit: under destination-based routing the
#     server's port has links of its own), and slurmctld's decision line
#     says it sits beside the server;
#   - Routing=ecmp: one error naming file, line and key; the previous
#     configuration stays.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_routing --timeout 240

tp_slurm_setup
mkdir -p "$store" && chmod 755 "$store"

write_conf() { # ROUTING-LINE
	cat >"$etc/topoplace.conf" <<CONF
FabricSource=topology
ProfileStore=$store
DefaultPlacement=off
IoServerHosts=n0004
$1
CONF
}

leaf_job() {
	sbatch --parsable -N 3 --placement=leaf -o /dev/null --wrap 'sleep 60'
}

write_conf "Routing=adaptive"
tp_check "slurmctld loads topoplace.conf with Routing=adaptive" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
a=$(leaf_job)
wait_state "$a" RUNNING 30
tp_check_eq "adaptive: the leaf job keeps off the server's leaf" leaf002 \
	"$(leaves_of_job "$a")"
scancel "$a"
tp_wait_job "$a" 30 >/dev/null

write_conf "Routing=static"
tp_check "slurmctld loads topoplace.conf with Routing=static" \
	reconfigure_and_wait "topoplace: reconfigure: $etc/topoplace.conf: fabric of 16 hosts, 4 leaves"
b=$(leaf_job)
wait_state "$b" RUNNING 30
tp_check_eq "static: the leaf job takes the server leaf's other hosts" \
	"n[0001-0003]" "$(squeue -h -j "$b" -o %N)"
tp_check "static: slurmctld's decision says it sits beside the server" \
	grep -q "topoplace: JobId=$b: .*beside I/O servers on 1 leaf (leaf001; static routing: their ports' links are their own)" "$log"
scancel "$b"
tp_wait_job "$b" 30 >/dev/null

before=$(grep -c "Routing: 'ecmp' is not a routing kind" "$log")
write_conf "Routing=ecmp"
scontrol reconfigure
for ((i = 0; i < 50; i++)); do
	(($(grep -c "Routing: 'ecmp' is not a routing kind" "$log") > before)) && break
	sleep 0.2
done
nodes_registered 30
tp_check_eq "a bad Routing value: one error naming file, line and key" 1 \
	"$(($(grep -c "$etc/topoplace.conf: line 5: Routing: 'ecmp' is not a routing kind (expected one of adaptive|static)" "$log") - before))"
c=$(leaf_job)
wait_state "$c" RUNNING 30
tp_check_eq "... and the previous configuration (static) still places" \
	"n[0001-0003]" "$(squeue -h -j "$c" -o %N)"
scancel "$c"
tp_check "slurmctld still answers" scontrol ping
tp_done
