#!/bin/bash
# cli_output_files.sh: where the tools write an output file.  A regular
# file (or a new name) is replaced whole through a temporary file and
# rename(2), so a reader never sees half of it; anything else that exists
# is written in place: a FIFO stays a FIFO and its reader gets the text, a
# symbolic link stays a link and its target gets the text, a device node
# stays a device.  (Renaming over /dev/null as root turned the machine's
# /dev/null into a regular file: every later `sbatch -o /dev/null` job
# failed to start.)  The device here is a copy of /dev/null made in a
# scratch directory, so a regression cannot harm the real one.
#
# Env: abs_top_builddir, abs_top_srcdir (make check).
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
tp=$abs_top_builddir/tools/topoplace
fattree=$abs_top_builddir/tools/topoplace-fattree
matrix=$abs_top_srcdir/tests/data/matrices/CoMD-16.txt
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
remap() { timeout 60 "$tp" remap --matrix "$matrix" --fabric 1x4x4 --hosts 'n[0001-0004]' \
	--slots 4 --seed 1 --rankfile "$1" >/dev/null; }

# The reference: a regular file, replaced whole, no temporary left.
remap "$work/rf"
tp_check "rankfile to a new name: written" grep -q '^rank 0=' "$work/rf"
echo stale >"$work/rf2"
remap "$work/rf2"
tp_check "rankfile over a regular file: replaced" cmp "$work/rf" "$work/rf2"
tp_check_eq "no temporary file is left beside them" "rf rf2" "$(ls "$work" | xargs)"

# A FIFO: its reader gets the rankfile, the FIFO stays.
mkfifo "$work/fifo"
timeout 30 cat "$work/fifo" >"$work/from_fifo" &
reader=$!
remap "$work/fifo"
tp_check_eq "rankfile into a FIFO: exit 0" 0 $?
wait "$reader"
tp_check "... the FIFO is still a FIFO" test -p "$work/fifo"
tp_check "... its reader got the rankfile" cmp "$work/rf" "$work/from_fifo"

# A symbolic link: the link stays, its target gets the file.
echo old >"$work/target.tpp"
ln -s target.tpp "$work/link.tpp"
"$tp" profile import --from matrix -o "$work/link.tpp" "$matrix" >/dev/null
tp_check "profile import -o a symbolic link: the link stays a link" test -L "$work/link.tpp"
tp_check "... its target holds the profile" \
	bash -c "'$tp' profile show '$work/target.tpp' | grep -q '^ranks: *16'"
ln -s topo.conf "$work/topo-link.conf"
"$fattree" --format=slurm --leaves 2 --hosts-per-leaf 2 --spines 1 -o "$work/topo-link.conf"
tp_check "topoplace-fattree -o a symbolic link: the link stays a link" test -L "$work/topo-link.conf"
tp_check "... its target holds topology.conf" grep -q '^SwitchName=' "$work/topo.conf"

ln -s hops-target.svg "$work/hops.svg"
"$tp" report hops --profile "$matrix" --fabric 1x4x4 -o "$work/hops.svg" >/dev/null
tp_check "report hops -o a symbolic link: the link stays a link" test -L "$work/hops.svg"
tp_check "... its target holds the SVG" grep -q '<svg' "$work/hops-target.svg"
tp_check_eq "... and no temporary file is left" "" "$(ls "$work" | grep '\.tmp')"

# A device node (a copy of /dev/null; making one needs root).
if [ "$(id -u)" = 0 ] && mknod -m 666 "$work/null" c 1 3 2>/dev/null; then
	remap "$work/null"
	tp_check "rankfile into a device node: it stays a character device" test -c "$work/null"
	"$tp" profile import --from matrix -o "$work/null" "$matrix" >/dev/null
	tp_check "profile import into it: still a character device" test -c "$work/null"
	"$fattree" --format=slurm --leaves 2 --hosts-per-leaf 2 --spines 1 -o "$work/null"
	tp_check "topoplace-fattree into it: still a character device" test -c "$work/null"
else
	echo "# device node checks skipped: not root, or mknod refused"
fi
tp_check "the real /dev/null is a character device" test -c /dev/null
tp_done
