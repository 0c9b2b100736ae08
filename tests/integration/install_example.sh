#!/bin/bash
# install_example.sh: `make install` installs etc/topoplace.conf.example
# (into $(docdir)/examples), and on a system with nothing else of
# topoplace's set up, the installed `topoplace config check` accepts the
# installed example exactly as shipped: the file an admin starts from is
# valid, as topoplace-config(1) and topoplace.conf(5) say.
#
# Env: abs_top_builddir, abs_top_srcdir (make check).
set -u

: "${abs_top_builddir:?run from make check (abs_top_builddir unset)}"
: "${abs_top_srcdir:?run from make check (abs_top_srcdir unset)}"
. "$abs_top_srcdir/tests/lib/bed.sh"
dest=$(mktemp -d /tmp/tp-install.XXXXXX) || exit 1
trap 'rm -rf "$dest"' EXIT

# The prefix and docdir configure chose, from the build's Makefile.
mkvar() { sed -n "s|^$1 = ||p" "$abs_top_builddir/Makefile" | head -1; }
prefix=$(mkvar prefix)
package=$(mkvar PACKAGE_TARNAME)
[[ -n $prefix && -n $package ]] || tp_skip "no prefix/PACKAGE_TARNAME in $abs_top_builddir/Makefile"

# Only this directory's install targets: a full `make install` from inside
# `make check` would re-enter the running make.
log=$dest.log
if make -C "$abs_top_builddir" install-binPROGRAMS \
	install-dist_topoplace_examplesDATA DESTDIR="$dest" >"$log" 2>&1; then
	tp_pass "make install (tools and the example) into a DESTDIR"
else
	tp_fail "make install (tools and the example) into a DESTDIR" "$(tail -20 "$log")"
	rm -f "$log"
	tp_done
fi
rm -f "$log"

example=$dest$prefix/share/doc/$package/examples/topoplace.conf.example
tp_check "the example is installed in \$(docdir)/examples" test -f "$example"
tp_check_eq "it is the shipped file" "" \
	"$(cmp "$abs_top_srcdir/etc/topoplace.conf.example" "$example" 2>&1)"
tp_check_eq "it is readable by everyone" 644 "$(stat -c %a "$example")"

# A fresh system: no topoplace.conf, no thresholds table, no fabric cache,
# no SLURM_CONF; the installed binary checks the installed example.
tp=$dest$prefix/bin/topoplace
out=$(cd / && env -i PATH=/usr/bin:/bin "$tp" config check "$example" 2>&1)
rc=$?
tp_check_eq "the installed topoplace config check accepts it as shipped" 0 "$rc"
tp_check_eq "and reports it valid with its two partitions" \
	"# $example: valid, 2 partition overrides" "$(head -n 1 <<<"$out")"
((rc == 0)) || printf '#   %s\n' "$out" | head -20
tp_done
