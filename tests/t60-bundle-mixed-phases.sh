#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t60-bundle-mixed-phases.sh - a bundle of captures with phases.tsv and
# without.  A disk none of whose captures had phases made a panel of
# compare-phases with no bar: gnuplot stopped there ("all points y value
# undefined", exit 1) and wcanalyze -o failed.  Now that panel is left
# out, a configuration without phases on a disk that has some keeps its
# place labelled "no phases.tsv", index.html names the captures without
# phases, and with none at all says why there is no phases figure.
# Panels after the first carry no legend, not even its title "phase".
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || skip "needs gnuplot"
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

# a and b: one disk, two configurations; c and d: another disk.
"$WCSYNTH" -c -n 40 a >/dev/null
"$WCSYNTH" -c -n 40 -C write_cache=on b >/dev/null
"$WCSYNTH" -c -n 40 -f 5 c >/dev/null
"$WCSYNTH" -c -n 40 -f 5 d >/dev/null
rm b/phases.tsv c/phases.tsv

bundle() {
	local out=$1 rc=0
	shift
	"$WCANALYZE" -o "$out" "$@" >/dev/null 2>"$out.err" || rc=$?
	[[ $rc -eq 0 ]] || fail "wcanalyze -o $out $*: exit $rc: $(cat "$out.err")" \
		"$(cat "$out/gnuplot.log" 2>/dev/null)"
	[[ ! -e $out/gnuplot.log ]] || fail "$out: gnuplot said: $(cat "$out/gnuplot.log")"
}

# The disk of c has no phases: one panel, a's; c's row stays, NaN.
bundle ac a c
grep -qx 'panels = "0 0"' ac/compare-phases.gp || fail "ac: panels: $(grep '^panels' ac/compare-phases.gp)"
grep -qx 'npanels = 1' ac/compare-phases.gp || fail "ac: not one panel"
[[ -s ac/compare-phases.png && -s ac/compare-phases.svg ]] || fail "ac: compare-phases not rendered"
grep -q '^"c" .* NaN NaN NaN NaN NaN NaN 0$' ac/compare-phases.dat ||
	fail "ac: c's row: $(grep '^"c"' ac/compare-phases.dat)"
grep -q '^"a" .* 1$' ac/compare-phases.dat || fail "ac: a's row does not count its run with phases"
grep -q '<p>Without phases.tsv, so not in the wall time of each phase: #2 c\.' ac/index.html ||
	fail "ac: index.html does not name c as without phases"
echo "ok: a disk without phases has no panel, and the page names its capture"

# b shares a's disk: their panel is drawn, b's place labelled.
bundle abc a b c
grep -qx 'panels = "0 1"' abc/compare-phases.gp || fail "abc: panels: $(grep '^panels' abc/compare-phases.gp)"
grep -q 'no phases.tsv' abc/compare-phases.gp || fail "abc: no label for a group without phases"
grep -q 'phase: #2 b, #3 c\.' abc/index.html || fail "abc: index.html does not name b and c"
echo "ok: a configuration without phases keeps its place in its disk's panel"

# a and d: two disks with phases, two panels; the legend, its title
# with it, is the first panel's alone.
bundle ad a d
grep -qx 'npanels = 2' ad/compare-phases.gp || fail "ad: not two panels"
titles=$({ grep -o '>phase<' ad/compare-phases.svg || true; } | wc -l)
[[ $titles -eq 1 ]] || fail "ad: the legend's title \"phase\" drawn $titles times, not once"
echo "ok: two panels, the legend in the first alone"

# None has phases: no figure, and the page says why.
bundle bc b c
[[ ! -e bc/compare-phases.gp && ! -e bc/compare-phases.png ]] || fail "bc: a phases figure without phases"
grep -q '<p>No figure: Wall time of each phase.*(no capture has phases.tsv)\.</p>' bc/index.html ||
	fail "bc: index.html does not say why there is no phases figure"
[[ -s bc/compare-time.png ]] || fail "bc: compare-time not rendered"
echo "ok: without any phases the page says why there is no phases figure"
exit 0
