#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t45-bundle-templates.sh - where wcanalyze -o finds the gnuplot templates
# (docs/bundle.md): $WCANALYZE_PLOTS, then next to the program as
# "make install" lays it out, then ./plots; and what it says when there
# are none.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
fix=$TOP/tests/fixtures/reader/xfs
unset WCANALYZE_PLOTS
export WCANALYZE_GNUPLOT=''

# Installed layout: PREFIX/bin/wcanalyze and PREFIX/share/wcanalyze/plots.
own_build "$TMP/build"
make -s -C "$TOP" BUILD="$TMP/build" DESTDIR="$TMP/dest" PREFIX=/opt/wc install >install.log 2>&1 ||
	fail "make install failed: $(tail -n 5 install.log)"
[[ -s dest/opt/wc/share/wcanalyze/plots/common.gp ]] || fail "make install did not install plots/"
mkdir run
(cd run && "$TMP/dest/opt/wc/bin/wcanalyze" -o b1 "$fix" >/dev/null 2>err) ||
	fail "installed wcanalyze found no templates: $(cat run/err)"
grep -q 'written by wcanalyze .* from plots/scatter.gp' run/b1/xfs/scatter.gp ||
	fail "b1: scatter.gp not made from the template"

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
