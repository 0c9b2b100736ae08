#!/bin/bash
# bench/scale_bench.sh: how much of the remapping's gain a profile recorded
# at another size keeps, when its stencil is scaled (profiles/scale.h).
#
#   bash bench/scale_bench.sh BUILD_DIR
#
# For each real matrix pair of tests/data/matrices (the application at a
# smaller and a larger rank count), the smaller run is imported, scaled to
# the larger count with `topoplace profile scale`, and remapped onto the
# hosts; `topoplace cost` then weighs, on the larger run's real matrix,
# block order, the remapping from the real matrix, and the remapping from
# the scaled profile.  Hosts: contiguous, and scattered over the leaves
# of both pods of a 2x4x8 tree; 8 slots a host.  Prints hop-bytes ratios
# to block (lower is better); a pair whose smaller run is not a stencil
# prints the reason instead.  Then, per application, what a job at one
# size gets under the scale rule (profiles/scale_rule.h) from the runs at
# the other sizes: its verdict, and the hop-bytes of the scaled profile's
# remapping where it accepts, block order where it refuses.
set -euo pipefail
build=${1:?usage: scale_bench.sh BUILD_DIR}
tp=$build/tools/topoplace
top=$(cd "$(dirname "$0")/.." && pwd)
m=$top/tests/data/matrices
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ranks/8 hosts: contiguous from n0001, or scattered (every other host,
# then the next pod).
hosts_for() {
	local n=$(($1 / 8))
	if [[ $2 == contiguous ]]; then
		echo "n[0001-$(printf %04d "$n")]"
	else
		seq 1 2 64 | head -n "$n" | xargs printf 'n%04d\n' | paste -sd,
	fi
}

printf '# %s  %s  nproc=%s  load=%s\n' "$(date -u +%FT%TZ)" \
	"$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')" \
	"$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %5s %5s  %-11s  %-28s %8s %8s %8s\n' app from to hosts \
	"stencil (from -> to)" block real scaled
for pair in NPB-MG.A:16:64 NPB-MG.A:16:128 NPB-MG.A:64:128 \
	miniGhost:64:128 CoMD:64:128 LULESH:27:64 HPCG:16:64; do
	IFS=: read -r app from to <<<"$pair"
	"$tp" profile import --from matrix -o "$tmp/$app-$from.tpp" \
		"$m/$app-$from.txt" >/dev/null
	if ! line=$("$tp" profile scale --ranks "$to" -o "$tmp/scaled.tpp" \
		"$tmp/$app-$from.tpp" 2>&1); then
		printf '%-10s %5s %5s  not scaled: %s\n' "$app" "$from" "$to" \
			"${line#*: }" | cut -c1-150
		continue
	fi
	shape=$(sed 's/^[^,]*, \(.*\) stencil -> [0-9]* ranks, \(.*\)$/\1 -> \2/' <<<"$line")
	for kind in contiguous scattered; do
		hosts=$(hosts_for "$to" "$kind")
		"$tp" remap --profile "$tmp/scaled.tpp" --hosts "$hosts" \
			--slots 8 --fabric 2x4x8 \
			--hostfile-out "$tmp/scaled.hf" >/dev/null
		read -r _ _ _ _ real scaled < <("$tp" cost --matrix "$m/$app-$to.txt" \
			--fabric 2x4x8 --hosts "$hosts" --slots 8 \
			--mapping block,remap,"$tmp/scaled.hf" | grep '^  ratio to first')
		printf '%-10s %5s %5s  %-11s  %-28s %8s %8s %8s\n' "$app" \
			"$from" "$to" "$kind" "$shape" 1.000 "$real" "$scaled"
	done
done

# What a job gets (profiles/scale_rule.h): the application has stored its
# other runs (sizes ascending: oldest first), and a job at the size of the
# last real run asks; the rule scales the nearest run where it accepts,
# and the job keeps block order (Slurm's layout) where it refuses.
# Hop-bytes on the job's real matrix, ratio to block.
echo
printf '%-10s %-12s %5s  %-11s %8s %8s %8s  %s\n' app runs job hosts block \
	real gets "rule's verdict"
for set in NPB-MG.A:16,64:128 NPB-MG.A:16,128:64 NPB-MG.A:64:128 \
	CoMD:16,64:128 CoMD:64:128 miniGhost:16,64:128 miniGhost:64:128 \
	LULESH:8,27:64 \
	HPCG:16,64:128 miniFE:16,64:128; do
	IFS=: read -r app sizes to <<<"$set"
	files=()
	for r in ${sizes//,/ }; do
		"$tp" profile import --from matrix -o "$tmp/$app-$r.tpp" \
			"$m/$app-$r.txt" >/dev/null
		files+=("$tmp/$app-$r.tpp")
	done
	# One size: two runs of it (one file alone is scaled without the
	# rule, as `profile scale PROFILE` does).
	[[ ${#files[@]} -gt 1 ]] || files+=("${files[0]}")
	rm -f "$tmp/rule.tpp"
	if verdict=$("$tp" profile scale --ranks "$to" -o "$tmp/rule.tpp" \
		"${files[@]}" 2>&1); then
		verdict="scaled: ${verdict#*: }"
	else
		verdict=${verdict#topoplace profile: }
	fi
	for kind in contiguous scattered; do
		hosts=$(hosts_for "$to" "$kind")
		mapping=block,remap
		if [[ -e $tmp/rule.tpp ]]; then
			"$tp" remap --profile "$tmp/rule.tpp" --hosts "$hosts" \
				--slots 8 --fabric 2x4x8 \
				--hostfile-out "$tmp/rule.hf" >/dev/null
			mapping=$mapping,$tmp/rule.hf
		fi
		read -r _ _ _ _ real gets < <("$tp" cost --matrix "$m/$app-$to.txt" \
			--fabric 2x4x8 --hosts "$hosts" --slots 8 \
			--mapping "$mapping" | grep '^  ratio to first')
		printf '%-10s %-12s %5s  %-11s %8s %8s %8s  %s\n' "$app" "$sizes" \
			"$to" "$kind" 1.000 "$real" "${gets:-1.000}" "$verdict" |
			cut -c1-200
	done
done
