#!/bin/bash
# slurm_interactive.sh: rank remapping for interactive jobs (issue 7), on
# the tp-bed cluster of slurm_place.sh (4 leaves x 4 hosts), as the
# unprivileged user tpalice.
#
#   salloc --comm-profile: srun inside the allocation lays its ranks out as
#       the mapping says (each task prints its rank and SLURMD_NODENAME);
#       its files are in a directory of its own, <TmpFS>/topoplace.<jobid>.
#       XXXXXX (mkdtemp: no other user can claim the name first), the
#       user's, mode 0700, removed when srun ends;
#       srun --rank-remap=off in it keeps Slurm's layout
#   srun --comm-profile making its own allocation: Slurm's layout (no hook
#       runs between the allocation and the step), the tasks get the
#       mapping's files, one line says so
#   sbatch --comm-profile: srun in the script keeps the batch mapping
#   bad profile, missing fabric: one line, Slurm's layout, the job runs
#
# The profile "cross" (rank r talks only with r+8) makes the mapping differ
# from Slurm's block layout: r and r+8 share a node.
set -u

: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
. "$abs_top_srcdir/tests/lib/slurm_place_lib.sh"
[ "${1:-}" = --inside ] || tp_slurm_bed slurm_interactive --timeout 420

tp_slurm_setup
tp_slurm_profiles
{
	echo "# commprof-v1 app=cross ranks=16"
	for i in $(seq 0 15); do echo "$i $(((i + 8) % 16)) 100000000 1000"; done
} >"$out/cross.txt"
"$tp" profile import --from matrix -o "$out/cross.tpp" "$out/cross.txt" >/dev/null &&
	chmod 644 "$out/cross.tpp"
tp_check "$user signs and stores profile cross" tp_as_user "$user" \
	"$tp" profile put --store "$store" --munge-socket "$sock" \
	"$out/cross.tpp" "$user/cross"
tp_slurm_conf

# node_of FILE RANK: the node rank RANK ran on ("RANK NODE ..." lines).
node_of() { awk -v r="$2" '$1 == r { print $2 }' "$1"; }
# pairs_together FILE: ranks r and r+8 ran on the same node, r = 0..7.
pairs_together() {
	local r
	for r in 0 1 2 3 4 5 6 7; do
		[ -n "$(node_of "$1" "$r")" ] &&
			[ "$(node_of "$1" "$r")" = "$(node_of "$1" $((r + 8)))" ] || return 1
	done
}
# topoplace_lines FILE: the number of topoplace lines in FILE.
topoplace_lines() { grep -c 'topoplace' "$1"; }

# --- salloc --comm-profile, then srun ------------------------------------
# shellcheck disable=SC2016 # expanded by the job's shell
tp_as_user "$user" timeout 120 salloc -N4 -n16 -J cross --comm-profile=cross bash -c '
	out=$1
	srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME \$TOPOPLACE_RANKFILE
		if [ \$SLURM_PROCID = 0 ]; then
			cp \"\$SLURM_HOSTFILE\" \"$out/ia.hostfile\"
			stat -c \"%U %a\" \"\$(dirname \"\$TOPOPLACE_RANKFILE\")\" >\"$out/ia.stat\"
		fi" | sort -n >"$out/ia.out"
	dir=$(dirname "$(awk "NR == 1 { print \$3 }" "$out/ia.out")")
	echo "$dir" >"$out/ia.dir"
	[ -e "$dir" ] || echo gone >"$out/ia.gone"
	srun --rank-remap=off -n4 bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME \${SLURM_HOSTFILE:-none}" |
		sort -n >"$out/ia-off.out"
' _ "$out" >"$out/ia.stdout" 2>"$out/ia.err"
tp_check_eq "salloc --comm-profile=cross with srun inside exits 0" 0 $?
tp_check_eq "srun inside salloc ran the profile's 16 ranks" 16 \
	"$(grep -c '^[0-9]* n' "$out/ia.out")"
tp_check_eq "each rank ran on the node the mapping chose" \
	"$(nl -v0 -w1 -s' ' "$out/ia.hostfile")" \
	"$(awk '{ print $1, $2 }' "$out/ia.out")"
tp_check "the mapping is not Slurm's block layout: r and r+8 share a node" \
	pairs_together "$out/ia.out"
dir=$(cat "$out/ia.dir")
tp_check "the tasks saw TOPOPLACE_RANKFILE in <TmpFS>/topoplace.<jobid>.XXXXXX" \
	bash -c '[[ $1 =~ ^/run/topoplace-bed/jobs/topoplace\.[0-9]+\.[A-Za-z0-9]{6}$ ]] && awk -v f="$1/rankfile" "\$3 != f { exit 1 }" "$2"' \
	_ "$dir" "$out/ia.out"
tp_check_eq "the directory is the user's, mode 700" "$user 700" \
	"$(cat "$out/ia.stat")"
tp_check_eq "srun removes it when its step ends (salloc still runs)" gone \
	"$(cat "$out/ia.gone" 2>/dev/null)"
tp_check_eq "no topoplace line on stderr when all is well" 0 \
	"$(topoplace_lines "$out/ia.err")"
tp_check_eq "srun --rank-remap=off in the allocation: 4 tasks, no hostfile" \
	"0 none,1 none,2 none,3 none" \
	"$(awk '{ printf "%s%s %s", (NR > 1 ? "," : ""), $1, $3 }' "$out/ia-off.out")"

# --- srun --comm-profile with an allocation of its own -------------------
# shellcheck disable=SC2016
tp_as_user "$user" timeout 120 srun -N4 -n16 -J cross --comm-profile=cross \
	bash -c 'echo $SLURM_PROCID $SLURMD_NODENAME $TOPOPLACE_RANKFILE
		if [ "$SLURM_PROCID" = 0 ]; then cp "$TOPOPLACE_RANKFILE" "$1/direct.rankfile"; fi' \
	_ "$out" 2>"$out/direct.err" | sort -n >"$out/direct.out"
tp_check_eq "a direct srun --comm-profile runs its 16 ranks" 16 \
	"$(grep -c '^[0-9]* n' "$out/direct.out")"
tp_check_eq "and says in one line that its tasks keep Slurm's layout" 1 \
	"$(grep -c "topoplace: JobId=[0-9]*: srun made its own allocation, so its tasks keep Slurm's layout; the mapping is in \$TOPOPLACE_RANKFILE" "$out/direct.err")"
tp_check_eq "(and nothing else from topoplace)" 1 "$(topoplace_lines "$out/direct.err")"
tp_check "its layout is Slurm's block layout (ranks 0-3 on one node)" \
	bash -c '[ "$(awk "\$1 < 4 { print \$2 }" "$1" | sort -u | wc -l)" = 1 ]' _ "$out/direct.out"
dir=$(awk 'NR == 1 { print $3 }' "$out/direct.out")
tp_check "its tasks got TOPOPLACE_RANKFILE in srun's own directory" \
	bash -c '[[ $1 =~ ^/run/topoplace-bed/jobs/topoplace\.[0-9]+\.[A-Za-z0-9]{6}/rankfile$ ]]' _ "$dir"
tp_check_eq "the rankfile maps the 16 ranks" 16 \
	"$(grep -c '^rank [0-9]*=n' "$out/direct.rankfile")"
tp_check "srun removes its directory when it ends" \
	bash -c '[ ! -e "$(dirname "$1")" ]' _ "$dir"

# --- sbatch --comm-profile: srun in the script keeps the batch mapping ---
j=$(tp_as_user "$user" sbatch --parsable -N4 -n16 -J other --comm-profile=cross \
	-o "$out/batch-%j.out" -e "$out/batch-%j.err" --wrap \
	'cp $SLURM_HOSTFILE hostfile.$SLURM_JOB_ID; srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME" | sort -n')
tp_check_eq "a batch job with --comm-profile completes" COMPLETED "$(tp_wait_job "$j" 90)"
tp_check_eq "srun in its script runs each rank where the batch mapping says" \
	"$(nl -v0 -w1 -s' ' "$out/hostfile.$j")" \
	"$(grep '^[0-9]* n' "$out/batch-$j.out")"
tp_check "(the batch mapping pairs r with r+8)" pairs_together "$out/batch-$j.out"
tp_check_eq "srun does not map again: no topoplace line on its stderr" 0 \
	"$(topoplace_lines "$out/batch-$j.err")"

# --- bad input: one line, Slurm's layout, the job runs -------------------
# shellcheck disable=SC2016
tp_as_user "$user" timeout 120 salloc -N2 --comm-profile=nosuch bash -c \
	'srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME \${SLURM_HOSTFILE:-none}"' \
	>"$out/bad.out" 2>"$out/bad.err"
tp_check_eq "salloc with a missing profile still runs srun's tasks" \
	"0 none,1 none" \
	"$(sort -n "$out/bad.out" | awk '{ printf "%s%s %s", (NR > 1 ? "," : ""), $1, $3 }')"
tp_check_eq "one line naming the profile and saying the layout is Slurm's" 1 \
	"$(grep -c "srun: error: topoplace: JobId=[0-9]*: --comm-profile=nosuch: .*: srun keeps Slurm's task layout" "$out/bad.err")"
tp_check_eq "(and nothing else from topoplace)" 1 "$(topoplace_lines "$out/bad.err")"

# Allocations the mapping does not fit: srun would refuse the hostfile
# (SLURM_NTASKS=8) or run only a part of the ranks (4 CPUs).
for shape in "-n8 8" "-n0 4"; do
	set -- $shape
	opt=$1 tasks=$2
	[ "$opt" = -n0 ] && opt=
	# shellcheck disable=SC2016,SC2086
	tp_as_user "$user" timeout 120 salloc -N4 $opt --comm-profile=cross bash -c \
		'srun bash -c "echo \$SLURM_PROCID \${SLURM_HOSTFILE:-none}"' \
		>"$out/misfit.out" 2>"$out/misfit.err"
	tp_check_eq "salloc -N4 ${opt:-(1 CPU a node)}: srun runs $tasks tasks in Slurm's layout" \
		"$(seq -f '%g none' 0 $((tasks - 1)) | paste -sd,)" \
		"$(sort -n "$out/misfit.out" | paste -sd,)"
	tp_check_eq "one line saying why the mapping does not fit" 1 \
		"$(grep -c "srun: error: topoplace: JobId=[0-9]*: --comm-profile=cross: 16 ranks, but the allocation has .*: srun keeps Slurm's task layout" "$out/misfit.err")"
done

cp "$etc/topoplace.conf" "$out/good.conf"
sed -i 's/^FabricSource=.*/FabricSource=cache\nFabricCache=\/nonexistent\/fabric.cache/' "$etc/topoplace.conf"
# -n16: the profile's ranks, so srun gets as far as the fabric.
# shellcheck disable=SC2016
tp_as_user "$user" timeout 120 salloc -N4 -n16 --comm-profile=cross bash -c \
	'srun bash -c "echo \$SLURM_PROCID \$SLURMD_NODENAME \${SLURM_HOSTFILE:-none}"' \
	>"$out/nofabric.out" 2>"$out/nofabric.err"
tp_check_eq "with the fabric missing srun runs 16 tasks in Slurm's layout" \
	"$(seq -f '%g none' 0 15 | paste -sd,)" \
	"$(sort -n "$out/nofabric.out" | awk '{ printf "%s%s %s", (NR > 1 ? "," : ""), $1, $3 }')"
tp_check_eq "one line naming the missing fabric cache" 1 \
	"$(grep -c "srun: error: topoplace: JobId=[0-9]*: .*/nonexistent/fabric.cache.*: srun keeps Slurm's task layout" "$out/nofabric.err")"
tp_check_eq "(and nothing else from topoplace)" 1 "$(topoplace_lines "$out/nofabric.err")"
cp "$out/good.conf" "$etc/topoplace.conf"
tp_done
