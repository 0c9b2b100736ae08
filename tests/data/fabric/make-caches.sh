#!/bin/bash
# Regenerate the ibnetdiscover caches of this directory (see README.md):
#   tests/data/fabric/make-caches.sh BUILD_DIR
# Needs ibsim, libumad2sim, opensm and a built BUILD_DIR (topoplace-fattree
# and tools/topoplace).
set -u
export LD_PRELOAD=${LD_PRELOAD:-}
here=$(cd "$(dirname "$0")" && pwd)
abs_top_srcdir=$(cd "$here/../../.." && pwd)
build=$(cd "${1:?usage: make-caches.sh BUILD_DIR}" && pwd)
export abs_top_srcdir
# shellcheck source=../../lib/fabric.sh
. "$abs_top_srcdir/tests/lib/fabric.sh"
fabric_isolate "$@"
fabric_setup
gen=$build/tools/topoplace-fattree
[ -x "$gen" ] || gen=${TOPOPLACE_FATTREE:?no topoplace-fattree}
tool=("$build/tools/topoplace" fabric)

# make NAME ROUTING NETFILE: serve NETFILE, run OpenSM, save NAME.cache
make_one() {
	fabric_start "$3" || exit 1
	fabric_opensm "$2" || echo "warning: $1: opensm -R $2 did not report its tables" >&2
	rm -f "$here/$1.cache"
	fabric_run 60 "${tool[@]}" cache "$here/$1.cache" || exit 1
	fabric_stop
}

"$gen" --leaves 4 --hosts-per-leaf 4 --spines 2 -o "$FABRIC_DIR/fat-4x4.net"
make_one fat-4x4 ftree "$FABRIC_DIR/fat-4x4.net"
"$gen" --leaves 4 --hosts-per-leaf 2 --spines 2 --pods 2 --cores 2 -o "$FABRIC_DIR/fat3-2x2x2.net"
make_one fat3-2x2x2 ftree "$FABRIC_DIR/fat3-2x2x2.net"
make_one irregular updn "$here/irregular.net"
ls -l "$here"/*.cache
