#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t75-bundle-width.sh - index.html in a 1,400-pixel window (issue 43:
# "tables that wrap or scroll in the page"): in headless Chromium the page
# is no wider than the window, and every table wider than the page's
# column is inside a box that scrolls it (overflow-x auto), so that no
# column is cut off.  Captures with long names (the lab's) make the
# tables wide; docs/bundle.md describes a screenshot of the demo's page.
#
# The page has no JavaScript; the check does: a probe page frames
# index.html and writes what it measured into its own DOM, which
# --dump-dom prints (as t42 does).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v chromium >/dev/null || fail "chromium is needed (scripts/deps.sh installs it)"
cd "$TMP"

"$WCSYNTH" -c -n 100 -S 5 hdd7200-ext3-cache-off-barrier-off-run1 >/dev/null
"$WCSYNTH" -c -n 100 -S 6 -f 0.5 hdd7200-ext3-cache-on-barrier-off-run1 >/dev/null
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o bundle hdd7200-ext3-cache-off-barrier-off-run1 \
	hdd7200-ext3-cache-on-barrier-off-run1 >/dev/null 2>err || fail "wcanalyze -o: $(cat err)"

cat >probe.html <<PROBE
<!DOCTYPE html>
<html><body style="margin: 0">
<iframe id="f" src="file://$TMP/bundle/index.html" width="1400" height="900" style="border: 0"></iframe>
<pre id="out">not loaded</pre>
<script>
window.addEventListener('load', function () {
	var d = document.getElementById('f').contentDocument, w, t, out = [], i;
	if (!d) {
		document.getElementById('out').textContent = 'no access';
		return;
	}
	w = d.defaultView;
	out.push('page ' + d.documentElement.scrollWidth + ' ' + d.documentElement.clientWidth);
	t = d.getElementsByTagName('table');
	for (i = 0; i < t.length; i++) {
		var p = t[i].parentElement, box = 0;
		while (p && p !== d.body && !box) {
			var o = w.getComputedStyle(p).overflowX;
			if (o === 'auto' || o === 'scroll')
				box = p.clientWidth;
			p = p.parentElement;
		}
		out.push('table ' + t[i].offsetWidth + ' ' + d.body.clientWidth + ' ' + box);
	}
	document.getElementById('out').textContent = out.join('\n');
});
</script>
</body></html>
PROBE
profile=$(mktemp -d "$TMP/profile.XXXXXX")
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
	--user-data-dir="$profile" --allow-file-access-from-files --dump-dom \
	"file://$TMP/probe.html" 2>chromium.log >dom.html || true
sed -n '/<pre id="out">/,/<\/pre>/p' dom.html | sed 's/<[^>]*>//g' | grep -v '^$' >probe.out || true
read -r _ page window < <(grep '^page ' probe.out) || fail "the browser measured nothing: $(tail -n 3 chromium.log)"
[[ $window -eq 1400 ]] || fail "the frame is $window pixels wide, not 1400"
[[ $(grep -c '^table ' probe.out) -ge 2 ]] || fail "fewer than two tables: $(cat probe.out)"
# t42's summary table of the same kind is wider than the page's column:
# the check below would pass vacuously without a wide table.
awk '$1 == "table" && $2 > $3 { n++ } END { exit !n }' probe.out ||
	fail "no table wider than the page's column: nothing tested: $(cat probe.out)"
awk '$1 == "table" && $2 > $3 && $4 == 0 { print; bad = 1 } END { exit bad }' probe.out >cut.out ||
	fail "tables wider than the page's column with no box to scroll them: $(cat cut.out)"
[[ $page -le $window ]] || fail "the page is $page pixels wide in a $window-pixel window"
echo "ok: $(grep -c '^table ' probe.out) tables, the page $page pixels wide in $window"
