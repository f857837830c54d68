#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t76-disk-name.sh - one name for a disk without a model (issue 43: the
# loop sample was "-" in the tables, "disk unknown" in the figures and
# "loop" elsewhere): a capture on a loop device with no disk_model is
# "loop" in the text report's table, in the page's tables, in the
# figures' labels and panel titles and in the findings, and no table
# or figure calls its disk "-" or "unknown".
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
cd "$TMP"
"$WCSYNTH" -c -n 50 -S 5 modelled >/dev/null
"$WCSYNTH" -c -n 50 -S 6 plain >/dev/null
sed -i '/^disk_model/d' plain/capture.conf
# A model's name short enough for the text table to print names, not d1.
sed -i 's/^disk_model = .*/disk_model = hdd7200/' modelled/capture.conf
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o out modelled plain >/dev/null 2>err ||
	fail "wcanalyze -o: $(cat err)"

# The text report's table of captures: its disk column.
grep -E '^plain +xfs +off +on +loop ' out/report.txt >/dev/null ||
	fail "report.txt: $(grep '^plain ' out/report.txt)"
# The page: its disk cell in the time-by-category table.
grep -q '<a href="#cap-plain">plain</a></td><td>xfs</td><td>off</td><td>on</td><td>loop</td>' out/index.html ||
	fail "index.html: no 'loop' in plain's row"
# The figures: the bar labels and the panel titles.
grep -q '"plain" "xfs" "off" "on" "loop"' out/compare-time.dat ||
	fail "compare-time.dat: $(grep plain out/compare-time.dat)"
grep -q "^ptitle[0-9]* = 'disk loop: #2'" out/compare-time.gp ||
	fail "compare-time.gp: $(grep '^ptitle' out/compare-time.gp)"
# The findings: the group compared with nothing names its disk so too.
if grep -E 'disk unknown|an unknown disk|"-"' out/compare-time.gp out/compare-time.dat \
	out/report.txt >named.txt; then
	fail "a disk called unknown or -: $(sed -n 1,3p named.txt)"
fi
echo "ok: a loop device without a model is 'loop' everywhere"
