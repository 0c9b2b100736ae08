#!/bin/bash
# peers-setup.sh: build TreeMatch, as embedded in Open MPI's source, into a
# static archive for bench/peer_bench (issue 5's peer comparison).
#
# Usage: bench/peers-setup.sh [--cache DIR]
#   default DIR: /var/cache/topoplace; the Open MPI source goes to
#   DIR/openmpi-source, the archive and its headers to DIR/treematch
#   (libtreematch.a, include/*.h).  Nothing is written in the project tree
#   and nothing of TreeMatch's code is part of topoplace.
#
# Takes Debian's source package of the installed Open MPI (needs a deb-src
# entry: tools/install-deps adds one) and compiles
# ompi/mca/topo/treematch/treematch/*.c with cc; TreeMatch includes hwloc's
# headers and uses libhwloc, so libhwloc-dev is installed if missing (only
# this benchmark needs it).  Re-running is cheap: a built archive for the
# same source version is kept.
set -euo pipefail

cache=/var/cache/topoplace
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) cache=${2:?--cache needs a directory}; shift 2 ;;
	--cache=*) cache=${1#--cache=}; shift ;;
	-h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "peers-setup: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

die() { echo "peers-setup: $*" >&2; exit 1; }

src_cache=$cache/openmpi-source
tm_cache=$cache/treematch
version=$(dpkg-query -W -f '${Version}' libopenmpi-dev 2>/dev/null || true)
[ -n "$version" ] || version=$(apt-cache showsrc openmpi 2>/dev/null |
	sed -n 's/^Version: //p' | head -n 1)
# A binNMU (+bN) has the source of the version without it.
version=${version%+b*}
[ -n "$version" ] || die "cannot tell which openmpi source to fetch (no libopenmpi-dev, no deb-src entry?)"

if [ -f "$tm_cache/libtreematch.a" ] && [ -f "$tm_cache/.version" ] &&
   [ "$(cat "$tm_cache/.version")" = "$version" ]; then
	echo "peers-setup: $tm_cache/libtreematch.a already built from openmpi $version"
	exit 0
fi

if ! dpkg-query -W -f '${Status}' libhwloc-dev 2>/dev/null | grep -q 'ok installed'; then
	echo "peers-setup: installing libhwloc-dev (TreeMatch includes hwloc.h)"
	apt-get install -y -q libhwloc-dev >/dev/null || die "apt-get install libhwloc-dev failed"
fi
command -v dpkg-source >/dev/null || die "dpkg-source is missing (apt-get install dpkg-dev)"
mkdir -p "$cache" || die "cannot create $cache"

if [ ! -f "$src_cache/.version" ] || [ "$(cat "$src_cache/.version")" != "$version" ]; then
	work=$(mktemp -d "$cache/.openmpi-source.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	echo "peers-setup: fetching openmpi $version source (about 10 MB)"
	if ! (cd "$work" && apt-get source -q --only-source "openmpi=$version" > fetch.log 2>&1) &&
	   ! (cd "$work" && apt-get source -q --only-source openmpi > fetch.log 2>&1); then
		tail -n 5 "$work/fetch.log" >&2
		die "apt-get source openmpi failed: is there a 'Types: deb-src' entry (tools/install-deps adds one), and did 'apt-get update' run since?"
	fi
	src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'openmpi-*' | head -n 1)
	[ -n "$src" ] || die "apt-get source produced no openmpi-* directory"
	echo "$version" > "$src/.version"
	rm -rf "$src_cache"
	mv "$src" "$src_cache"
	rm -rf "$work"
	trap - EXIT
fi

tm_src=$src_cache/ompi/mca/topo/treematch/treematch
[ -d "$tm_src" ] || die "$tm_src is missing: this Open MPI has no embedded TreeMatch"

build=$(mktemp -d "$cache/.treematch.XXXXXX")
trap 'rm -rf "$build"' EXIT
echo "peers-setup: compiling TreeMatch from $tm_src"
# tm_kpartitioning.c includes a config.h of Open MPI's build for one
# optional HAVE_LIBSCOTCH: an empty one leaves TreeMatch's own k-partitioner.
mkdir -p "$build/cfg"
: > "$build/cfg/config.h"
objs=()
for f in "$tm_src"/*.c; do
	o=$build/$(basename "${f%.c}").o
	# Old code: no -Werror, warnings silenced; -fcommon for its tentative
	# definitions shared between files.
	if ! cc -O2 -fPIC -fcommon -w -I"$tm_src" -I"$build/cfg" -c "$f" -o "$o" 2>"$o.log"; then
		echo "peers-setup: skipped $(basename "$f"): $(head -n 1 "$o.log")"
		continue
	fi
	objs+=("$o")
done
[ ${#objs[@]} -gt 0 ] || die "no TreeMatch file compiled"
mkdir -p "$build/out/include"
ar rcs "$build/out/libtreematch.a" "${objs[@]}"
cp "$tm_src"/*.h "$build/out/include/"
echo "$version" > "$build/out/.version"
rm -rf "$tm_cache"
mv "$build/out" "$tm_cache"
echo "peers-setup: ready: $tm_cache/libtreematch.a (${#objs[@]} files, openmpi $version)"
