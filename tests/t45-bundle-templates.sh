#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t45-bundle-templates.sh - where wcanalyze -o finds the gnuplot templates
# (docs/bundle.md): $WCANALYZE_PLOTS, then next to the program as
# "make install" lays it out, then ./plots; and what it says when there
# are none.  The installed layout is made here by hand, PREFIX/bin and
# PREFIX/share/wcanalyze/plots: that make install lays it out so, and
# that the program it installs finds its templates, is t03's, whose
# install is the one make check pays for (a PREFIX of its own relinks
# every program).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
fix=$TOP/tests/fixtures/reader/xfs
unset WCANALYZE_PLOTS
export WCANALYZE_GNUPLOT=''

# Installed layout: PREFIX/bin/wcanalyze and PREFIX/share/wcanalyze/plots,
# its templates marked, to tell them from any others this machine has.
mkdir -p dest/opt/wc/bin dest/opt/wc/share/wcanalyze/plots
cp "$WCANALYZE" dest/opt/wc/bin/
cp "$TOP"/plots/*.gp dest/opt/wc/share/wcanalyze/plots/
echo '# the installed template' >>dest/opt/wc/share/wcanalyze/plots/scatter.gp
mkdir run
(cd run && "$TMP/dest/opt/wc/bin/wcanalyze" -o b1 "$fix" >/dev/null 2>err) ||
	fail "installed wcanalyze found no templates: $(cat run/err)"
grep -q 'written by wcanalyze .* from plots/scatter.gp' run/b1/xfs/scatter.gp ||
	fail "b1: scatter.gp not made from the template"
grep -q '^# the installed template$' run/b1/xfs/scatter.gp ||
	fail "b1: the templates next to the program were not used"

# $WCANALYZE_PLOTS wins over the installed templates.
mkdir mine
cp "$TOP"/plots/*.gp mine/
echo '# my own template' >>mine/scatter.gp
(cd run && WCANALYZE_PLOTS=$TMP/mine "$TMP/dest/opt/wc/bin/wcanalyze" -o b2 "$fix" >/dev/null 2>&1) ||
	fail "WCANALYZE_PLOTS=mine failed"
grep -q '^# my own template$' run/b2/xfs/scatter.gp || fail "WCANALYZE_PLOTS was not used"

# A program with no templates beside it uses ./plots ...
mkdir -p lone/bin
cp "$WCANALYZE" lone/bin/
rm -rf dest/opt/wc/share/wcanalyze
(cd "$TOP" && "$TMP/lone/bin/wcanalyze" -o "$TMP/b3" "$fix" >/dev/null 2>&1) ||
	fail "./plots was not used"
[[ -s b3/xfs/scatter.gp ]] || fail "b3: no scatter.gp"

# ... and without any, says how to point at them (unless some are
# installed in the compiled-in data folder of this machine).
if ! compgen -G "/usr/local/share/wcanalyze/plots/common.gp" >/dev/null; then
	rc=0
	(cd run && "$TMP/lone/bin/wcanalyze" -o b4 "$fix" >out 2>err) || rc=$?
	[[ $rc -eq 2 ]] || fail "no templates: exit $rc, expected 2"
	grep -q '^wcanalyze: gnuplot templates not found in .*/plots nor ./plots: set WCANALYZE_PLOTS to the source tree.s plots folder$' run/err ||
		fail "no templates: $(cat run/err)"
fi
exit 0
