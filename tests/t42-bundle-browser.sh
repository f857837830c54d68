#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t42-bundle-browser.sh - index.html in a real browser (headless Chromium,
# Debian's chromium package): every image it shows loads, a page with one
# image missing is caught (so the check can fail), and a screenshot of the
# page is not blank.  Also checks the page itself is static: no script,
# nothing fetched from a network.
#
# The page has no JavaScript; the check does.  A probe page (in $TMP, not
# in the bundle) frames index.html and, once everything has loaded, writes
# each image's state into its own DOM, which --dump-dom prints.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v chromium >/dev/null || fail "chromium is needed (scripts/deps.sh installs it)"
command -v gnuplot >/dev/null || fail "gnuplot is needed (scripts/deps.sh installs it)"
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

browser() {
	local profile
	profile=$(mktemp -d "$TMP/profile.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$profile" "$@" 2>>"$TMP/chromium.log"
}

# Prints one line per image of DIR/index.html: "ok SRC" or "broken SRC".
probe() {
	cat >"$TMP/probe.html" <<PROBE
<!DOCTYPE html>
<html><body>
<iframe id="f" src="file://$TMP/$1/index.html" width="1280" height="900"></iframe>
<pre id="out">not loaded</pre>
<script>
window.addEventListener('load', function () {
	var d = document.getElementById('f').contentDocument, out = [], i;
	if (!d) {
		document.getElementById('out').textContent = 'no access';
		return;
	}
	var imgs = d.getElementsByTagName('img');
	for (i = 0; i < imgs.length; i++)
		out.push((imgs[i].complete && imgs[i].naturalWidth > 0 ?
			  'ok ' : 'broken ') + imgs[i].getAttribute('src'));
	document.getElementById('out').textContent = 'images ' + imgs.length +
		'\n' + out.join('\n');
});
</script>
</body></html>
PROBE
	browser --allow-file-access-from-files --dump-dom "file://$TMP/probe.html" |
		sed -n '/<pre id="out">/,/<\/pre>/p' | sed 's/<[^>]*>//g' | grep -v '^$'
}

"$WCSYNTH" -c -n 300 -S 5 synth-a >/dev/null
"$WCSYNTH" -c -n 300 -S 6 -f 0.5 synth-b >/dev/null
"$WCANALYZE" -o bundle synth-a synth-b >/dev/null 2>err || fail "wcanalyze -o: $(cat err)"

# Static: no script, no style or image from elsewhere.
! grep -qi '<script' bundle/index.html || fail "index.html has a script"
! grep -Eqi '(src|href)="(https?:)?//' bundle/index.html || fail "index.html refers to the network"
! grep -Eqi '@import|url\(' bundle/index.html || fail "index.html's style fetches something"

want=$(grep -o '<img ' bundle/index.html | wc -l)
[[ $want -ge 15 ]] || fail "index.html shows only $want images"
probe bundle >probe.out
[[ $(head -n 1 probe.out) == "images $want" ]] ||
	fail "the browser saw '$(head -n 1 probe.out)', expected images $want: $(tail -n 5 chromium.log)"
[[ $(grep -c '^ok ' probe.out) -eq $want ]] ||
	fail "images that did not load: $(grep -v '^ok ' probe.out | tr '\n' ' ')"

# The check catches a missing image.
cp -r bundle broken
rm broken/synth-b/latency.png
probe broken >probe.out
[[ $(grep -c '^broken ' probe.out) -eq 1 ]] ||
	fail "a missing image was not caught: $(cat probe.out)"
grep -q '^broken synth-b/latency.png$' probe.out ||
	fail "the wrong image was found missing: $(cat probe.out)"

# A screenshot (half scale, to keep the pixel dump small) is not blank:
# many colours, a good part of it not white.
browser --window-size=1280,2400 --force-device-scale-factor=0.5 \
	--screenshot="$TMP/shot.png" "file://$TMP/bundle/index.html" >/dev/null
[[ -s shot.png ]] || fail "no screenshot: $(tail -n 5 chromium.log)"
gnuplot -e "set table '$TMP/pixels.txt'; plot '$TMP/shot.png' binary filetype=png using 1:2:3 with rgbimage; unset table"
read -r colours inked total < <(awk '$1 ~ /^[0-9]/ && NF >= 5 {
	c[$3 " " $4 " " $5] = 1; t++
	if ($3 < 245 || $4 < 245 || $5 < 245) n++
} END { print length(c), n + 0, t + 0 }' pixels.txt)
[[ $total -gt 100000 ]] || fail "screenshot has only $total pixels"
[[ $colours -ge 50 ]] || fail "screenshot has only $colours colours: blank?"
[[ $((inked * 100 / total)) -ge 5 ]] || fail "screenshot is $((inked * 100 / total))% inked: blank?"
exit 0
