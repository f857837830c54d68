#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t43-bundle-large.sh - a capture with many requests: the scatter is binned
# per pixel (far fewer points than requests, and the figure says points
# were merged), the time series are rebinned, and the data files stay
# small whatever the capture's length.  Speed is measured by make bench,
# not here.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

"$WCSYNTH" -c -n 30000 big >/dev/null
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o out big >/dev/null 2>err || fail "wcanalyze -o: $(cat err)"

requests=$("$WCANALYZE" --format json big | jq '.captures[0].requests | add')
[[ $requests -gt 50000 ]] || fail "the capture has only $requests requests"

points=$(grep -vc '^#\|^$' out/big/scatter.dat)
[[ $points -lt $((requests / 2)) ]] || fail "$points scatter lines for $requests requests: not decimated"
# At most one line per pixel column for flushes plus one per cell and
# category (7 categories).
[[ $points -le $((1024 + 7 * 1024 * 512)) ]] || fail "$points scatter lines: more than the grid"
grep -q "^note = '.* requests drawn as .* points: requests of one category in one pixel are merged'$" \
	out/big/scatter.gp || fail "the scatter does not say points were merged"

rows=$(grep -vc '^#' out/big/timeline.dat)
[[ $rows -le 300 && $rows -ge 150 ]] || fail "timeline.dat has $rows rows"

bytes=$(find out -name '*.dat' -exec cat {} + | wc -c)
[[ $bytes -lt 3000000 ]] || fail "the data files take $bytes bytes"
exit 0
