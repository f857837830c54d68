#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t41-bundle-render.sh - a bundle made where gnuplot is not installed still
# holds every .dat and .gp file and says how to render them; its render.sh
# then renders every figure the page shows, also in capture folders
# named -P, - and --help, and a bundle made with gnuplot has the same
# figures.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || fail "gnuplot is needed (scripts/deps.sh installs it)"
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

"$WCSYNTH" -c -n 300 -S 3 synth-a >/dev/null
"$WCSYNTH" -c -n 300 -S 4 -f 0.5 synth-b >/dev/null

# No gnuplot on the PATH.
mkdir empty
rc=0
PATH=$TMP/empty "$WCANALYZE" -o nognu synth-a synth-b >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "without gnuplot: exit $rc: $(cat stderr)"
grep -q '^wcanalyze: gnuplot not found: figures not rendered; their .dat and .gp files are in nognu; to render them, install gnuplot (apt-get install gnuplot-nox) and run nognu/render.sh$' stderr ||
	fail "without gnuplot: $(cat stderr)"
[[ -z $(find nognu -name '*.png') ]] || fail "without gnuplot: PNG files appeared"
grep -q 'figures are not rendered' nognu/index.html || fail "index.html does not say the figures are missing"

# Every image the page shows, as a list.
images() { grep -o 'src="[^"]*"' "$1/index.html" | sed 's/^src="//; s/"$//' | sort; }
images nognu >imgs
[[ $(wc -l <imgs) -ge 15 ]] || fail "index.html shows only $(wc -l <imgs) images"
while read -r img; do
	[[ -s nognu/${img%.png}.gp ]] || fail "no script for $img"
done <imgs

bash nognu/render.sh 2>render.err || fail "render.sh failed: $(cat render.err)"
while read -r img; do
	[[ $(head -c 8 "nognu/$img" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
		fail "render.sh: $img is not a PNG"
	# An SVG wherever the page links one (the heat maps are PNG only).
	if grep -q "href=\"${img%.png}.svg\"" nognu/index.html; then
		grep -q '<svg' "nognu/${img%.png}.svg" || fail "render.sh: ${img%.png}.svg is not SVG"
	else
		[[ $img == */heatmap-* ]] || fail "index.html links no SVG of $img"
		[[ ! -e nognu/${img%.png}.svg ]] || fail "render.sh: ${img%.png}.svg drawn, not linked"
	fi
done <imgs

# Captures named -P, - and --help (issue 39): render.sh named their
# folders to dirname and cd as options ("dirname: invalid option").
for n in -P - --help; do
	mkdir -p "opt/c$n"
	cp -r synth-a/. "opt/c$n/"
	sed -i "s/^name = .*/name = $n/" "opt/c$n/capture.conf"
done
PATH=$TMP/empty "$WCANALYZE" --capture-pages all -o optb opt/c-P opt/c- opt/c--help >stdout 2>stderr ||
	fail "captures named as options: $(cat stderr)"
(cd optb && bash ./render.sh) 2>render.err || fail "render.sh with folders named as options: $(cat render.err)"
for n in -P - --help; do
	[[ -d optb/$n ]] || fail "no folder '$n' in the bundle: $(ls optb)"
	[[ -s optb/$n/throughput.png ]] || fail "render.sh did not draw $n/throughput.png"
done

# With gnuplot: the same figures, rendered, and no log left behind.
"$WCANALYZE" -o withgnu synth-a synth-b >stdout 2>stderr || fail "with gnuplot: $(cat stderr)"
[[ ! -s stderr ]] || fail "with gnuplot, wcanalyze said: $(cat stderr)"
[[ ! -e withgnu/gnuplot.log ]] || fail "gnuplot complained: $(cat withgnu/gnuplot.log)"
images withgnu | cmp -s - imgs || fail "the pages show different figures"
while read -r img; do
	[[ -s withgnu/$img ]] || fail "with gnuplot: $img missing"
done <imgs
# The data does not depend on whether gnuplot was there.
for f in synth-a/timeline.dat synth-a/scatter.dat compare-time.dat; do
	cmp -s "nognu/$f" "withgnu/$f" || fail "$f differs with and without gnuplot"
done
exit 0
