#!/bin/bash
# slurm_store.sh: the profile store among users, through Slurm (issue 14,
# item 5).  With the documented layout (a root-owned 0755 store, nothing
# else prepared), tpalice's `srun --comm-record` step makes her namespace
# via task/topoplace (as root, in slurmstepd): owned by her, 0700.  tpbob
# can neither read it nor create a namespace or "site" in the store; a
# namespace squatted by another user is refused with one error line in
# slurmd's log naming its owner, and the job itself still runs.
set -u

if [ "${1:-}" != --inside ]; then
	: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
	: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
	. "$abs_top_srcdir/tests/lib/bed.sh"
	tp_require_bed
	work=$(mktemp -d /tmp/tp-slurm-store.XXXXXX) || exit 1
	chmod 755 "$work"
	echo "required $abs_top_builddir/slurm-plugin/.libs/spank_topoplace.so" >"$work/plugstack.conf"
	"$abs_top_builddir/tools/topoplace-fattree" --leaves 2 \
		--hosts-per-leaf 2 --spines 1 --format slurm \
		-o "$work/topology.conf" || exit 1
	"$abs_top_srcdir/tests/lib/tp-bed" --topology "$work/topology.conf" \
		--select select/topoplace_cons_tres \
		--task-plugin task/affinity,task/topoplace \
		--plugin-dir "$abs_top_builddir/slurm-plugin/.libs" \
		--plugstack "$work/plugstack.conf" \
		--keep "$abs_top_builddir/tests/integration/slurm_store.keep" \
		-- "$0" --inside
	rc=$?
	rm -rf "$work"
	exit $rc
fi

. "$abs_top_srcdir/tests/lib/bed.sh"
alice=tpalice bob=tpbob
for u in $alice $bob; do
	id -u "$u" >/dev/null 2>&1 || tp_skip "user $u does not exist"
done
etc=$(dirname "$SLURM_CONF")
store=$TP_BED_DIR/store
install -d -o root -g root -m 0755 "$store"
printf 'FabricSource=topology\nProfileStore=%s\n' "$store" >"$etc/topoplace.conf"
scontrol reconfigure
sleep 2

# --- tpalice records: her namespace is made for her ------------------------
tp_check "tpalice's srun --comm-record step runs" \
	tp_as_user "$alice" srun -N 1 -n 1 --comm-record=probe true
tp_check_eq "task/topoplace made her namespace: hers, 0700" "$alice 700" \
	"$(stat -c '%U %a' "$store/$alice" 2>&1)"
tp_check_eq "the store root is unchanged: root's, 0755" "root 755" \
	"$(stat -c '%U %a' "$store")"

# --- tpbob -------------------------------------------------------------------
# denied NAME CMD...: CMD fails with "Permission denied".
denied() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if ((rc != 0)) && grep -q "Permission denied" <<<"$out"; then
		tp_pass "$name"
	else
		tp_fail "$name" "exit status $rc" "$out"
	fi
}
denied "tpbob cannot list tpalice's namespace" tp_as_user "$bob" ls "$store/$alice"
denied "tpbob cannot create a namespace for anyone" tp_as_user "$bob" mkdir "$store/someone"
denied "tpbob cannot create site" tp_as_user "$bob" mkdir "$store/site"

# A namespace for tpbob that tpalice owns (left from an older 1777 store):
# refused, named in slurmd's log; tpbob's job runs regardless.
install -d -o "$alice" -m 0755 "$store/$bob"
tp_check "tpbob's --comm-record step still runs" \
	tp_as_user "$bob" srun -N 1 -n 1 --comm-record=probe true
want="namespace of uid $(id -u "$bob") is owned by uid $(id -u "$alice") ($alice): refused"
tp_check_eq "slurmd logs one error naming the squatter" 1 \
	"$(cat "$TP_BED_LOGDIR"/slurmd.*.log | grep -c -- "--comm-record: $store/$bob: $want")"
tp_check_eq "the squatted namespace is left alone" "$alice 755" \
	"$(stat -c '%U %a' "$store/$bob")"

tp_done
