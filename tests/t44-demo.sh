#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t44-demo.sh - what "make demo" runs (scripts/demo.sh): the bundle of a
# folder of capture archives, the path of index.html as the last line of
# standard output, a previous demo replaced and a stranger's folder left
# alone; then the same on the real samples/.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
mkdir caps
for s in 1 2; do
	"$WCSYNTH" -c -n 200 -S "$s" "synth$s" >/dev/null
	tar czf "caps/synth$s.tar.gz" "synth$s"
done

DEMO_SAMPLES=$TMP/caps DEMO_OUT=$TMP/demo bash "$TOP/scripts/demo.sh" >out 2>err ||
	fail "demo.sh failed: $(cat err)"
[[ $(tail -n 1 out) == "$TMP/demo/index.html" ]] || fail "demo.sh printed '$(cat out)'"
# Two runs of one configuration: the findings name the slower, whose
# figures are drawn, with those across captures.
shopt -s nullglob
drawn=(demo/synth*/scatter.png)
[[ ${#drawn[@]} -eq 1 && -s ${drawn[0]} && -s demo/compare-time.png ]] ||
	fail "demo.sh did not render the figures: ${drawn[*]}"

# Run again: the old demo goes, including folders of captures now gone.
mkdir demo/gone
rm caps/synth2.tar.gz
DEMO_SAMPLES=$TMP/caps DEMO_OUT=$TMP/demo bash "$TOP/scripts/demo.sh" >out 2>err ||
	fail "demo.sh failed the second time: $(cat err)"
[[ ! -e demo/gone && ! -e demo/synth2 ]] || fail "demo.sh left a previous demo's folders"

# A folder that is not a bundle is not removed.
mkdir other
touch other/precious
rc=0
DEMO_SAMPLES=$TMP/caps DEMO_OUT=$TMP/other bash "$TOP/scripts/demo.sh" >out 2>err || rc=$?
[[ $rc -ne 0 && -e other/precious ]] || fail "demo.sh overwrote a folder that is not a bundle"

# No captures: a clear failure.
mkdir none
rc=0
DEMO_SAMPLES=$TMP/none DEMO_OUT=$TMP/d2 bash "$TOP/scripts/demo.sh" >out 2>err || rc=$?
[[ $rc -ne 0 ]] || fail "no captures: exit 0"
grep -q "^demo: no captures in $TMP/none" err || fail "no captures: $(cat err)"

# The real samples, as make demo runs them (three of them unless
# WCANALYZE_SLOW=1: samples_pick).
mapfile -t real < <(samples_pick "$TOP"/samples/*.tar.*)
[[ ${#real[@]} -gt 0 ]] || skip "no samples/*.tar.* yet"
mkdir picked
ln -s "${real[@]}" picked/
DEMO_SAMPLES=$TMP/picked DEMO_OUT=$TMP/real bash "$TOP/scripts/demo.sh" >out 2>err || fail "demo on samples/: $(cat err)"
[[ $(tail -n 1 out) == "$TMP/real/index.html" ]] || fail "demo on samples/ printed '$(cat out)'"
[[ ! -e real/gnuplot.log ]] || fail "gnuplot complained: $(head real/gnuplot.log)"
# Small enough to attach: figures and a timeline for the captures the
# findings name, not for every sample (wcanalyze --capture-pages).
size=$(du -sb real | cut -f1)
[[ $size -lt 20000000 ]] || fail "the demo bundle is $size bytes, not under 20 MB"
pages=$(find real -mindepth 2 -name timeline.json.gz | wc -l)
# (three samples may all be named: "fewer" is checked on all of them)
if [[ ${WCANALYZE_SLOW:-0} == 1 ]]; then
	[[ $pages -ge 1 && $pages -lt ${#real[@]} ]] || fail "$pages capture pages for ${#real[@]} samples"
else
	[[ $pages -ge 1 && $pages -le ${#real[@]} ]] || fail "$pages capture pages for ${#real[@]} samples"
fi
echo "ok: ${#real[@]} samples"
