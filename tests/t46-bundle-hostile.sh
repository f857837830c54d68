#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t46-bundle-hostile.sh - captures whose names are made to attack the
# output side (issue 8): a name must not run a command through gnuplot,
# must reach JSON as valid UTF-8 and a terminal without control bytes,
# and so must capture.conf's disk_model (JSON's "disk", exactly);
# names that collide with the bundle's own must not hang it; links
# planted in -o DIR must not make it write outside DIR.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || fail "gnuplot is needed (scripts/deps.sh installs it)"
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

# mk FOLDER [NAME]: a small capture in FOLDER; its capture.conf names it
# NAME, or, without NAME, has no name (the folder's name is used).
n=0
mk() {
	n=$((n + 1))
	"$WCSYNTH" -c -n 200 -S "$n" "cap$n" >/dev/null
	sed -i '/^name = /d' "cap$n/capture.conf"
	if [[ $# -gt 1 ]]; then
		printf 'name = %s\n' "$2" >>"cap$n/capture.conf"
	fi
	mv "cap$n" "$1"
}

# Every marker a hostile name tries to create, wherever gnuplot runs.
no_marker() {
	local found
	found=$(find "$TMP" -name 'marker*' -print)
	[[ -z $found ]] || fail "$1: a capture name ran a command: $found"
}

# ---- gnuplot: backquotes, $(...), quotes, macros -------------------------
# Backquotes run a command even inside gnuplot's double quotes; the paths
# are absolute so that the marker shows wherever the command runs.
mk in1 "x\`touch $TMP/marker1\`y"
mk in2 "\$(touch $TMP/marker2)'\`touch $TMP/marker3\`'\"@title\\"
# From the folder's name: a newline would end the title's command.
# shellcheck disable=SC2016 # the backquotes are the attack, not for bash
mk "$(printf 'nl\n`touch marker4`\nset output')"
rc=0
# Every capture's scripts, whatever the findings name.
"$WCANALYZE" -o out --capture-pages all in1 in2 nl* >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "hostile names: exit $rc: $(cat stderr)"
# The figures were drawn: gnuplot did read the scripts.
[[ $(find out -name 'throughput.png' | wc -l) -eq 3 ]] ||
	fail "hostile names: not every figure rendered: $(cat out/gnuplot.log 2>/dev/null)"
no_marker "wcanalyze -o"
bash out/render.sh 2>render.err || fail "render.sh failed: $(cat render.err)"
no_marker "render.sh"
# Every title is one single-quoted line.
grep -h '^title = ' out/*/*.gp | grep -v "^title = '.*'$" >/dev/null &&
	fail "a title is not a single-quoted string: $(grep -h '^title = ' out/*/*.gp)"
[[ $(for g in out/*/throughput.gp; do grep -c '' "$g"; done | sort -u | wc -l) -eq 1 ]] ||
	fail "a name changed the number of lines of a script"

# ---- text, CSV, errors: no control byte; JSON: valid UTF-8 --------------
# Only printable ASCII on a line (escape.h: the text escape).
ascii_only() {
	local bad
	bad=$(LC_ALL=C grep -n '[^ -~]' "$2" | LC_ALL=C cat -v | sed -n 1,3p) || true
	[[ -z $bad ]] || fail "$1: raw control or non-ASCII bytes: $bad"
}
json_ok() {
	if python3 -c pass 2>/dev/null; then
		python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' <"$2" ||
			fail "$1: not JSON in valid UTF-8"
	else
		iconv -f UTF-8 -t UTF-8 "$2" >/dev/null || fail "$1: not valid UTF-8"
		jq . "$2" >/dev/null || fail "$1: not JSON"
	fi
}
# From capture.conf: a terminal title, clear screen, CR, a C1 CSI, bytes
# that are not UTF-8; from a folder's name: a newline, a cut UTF-8
# sequence, a right-to-left override.
mk esc1 "$(printf 'esc\033]0;owned\a\033[2J\r\x9b\xff\xfe,"q" end')"
# capture.conf's disk_model is capture text too (the report's "disk"):
# quotes, backslashes, a brace, a tab, ESC, CR, a C1 byte, bytes that
# are not UTF-8, a right-to-left override.
model=$(printf 'm"q\\b\\\\"}\t\033[2J\r\x9b\xff\xfe\xc3(\xe2\x80\xae end')
sed -i '/^disk_model = /d' esc1/capture.conf
printf 'disk_model = %s\n' "$model" >>esc1/capture.conf
mk "$(printf 'dir\033[31m\nline\xc3(\xe2\x80\xae')"
esc2=$(printf 'dir\033[31m\nline\xc3(\xe2\x80\xae')
"$WCANALYZE" esc1 >text1 2>err1 || fail "text report: exit $?: $(cat err1)"
ascii_only "text report" text1
grep -qF 'capture esc\033]0;owned\007\033[2J\015\233\377\376,"q" end' text1 ||
	fail "text report: the name is not escaped as \\ooo: $(head -1 text1)"
"$WCANALYZE" esc1 "$esc2" >text2 2>err2 || fail "comparison: exit $?: $(cat err2)"
ascii_only "comparison" text2
"$WCANALYZE" --format csv esc1 "$esc2" >out.csv 2>err3 || fail "csv: exit $?: $(cat err3)"
ascii_only "csv" out.csv
# A header and three rows a capture (all, copy, delete): no name broke a line.
[[ $(wc -l <out.csv) -eq 7 ]] || fail "csv: a name broke a line"
"$WCANALYZE" --format json esc1 "$esc2" >out.json 2>err4 || fail "json: exit $?: $(cat err4)"
json_ok "--format json" out.json
# The disk, in the capture and in its group, through the JSON escaper:
# what was valid UTF-8 kept, each byte of what was not U+FFFD.
if python3 -c pass 2>/dev/null; then
	printf '%s' "$model" | python3 -c '
import json, sys
want = sys.stdin.buffer.read().decode("utf-8", "replace")
r = json.load(open("out.json", encoding="utf-8"))
got = [c["disk"] for c in r["captures"] if c["name"].startswith("esc")]
got += [g["disk"] for g in r["groups"] if g["disk"] and g["disk"].startswith("m")]
sys.exit(0 if got.count(want) == 2 else "disk: %r, not %r" % (got, want))' ||
		fail "--format json: the hostile disk_model is not the disk, escaped"
fi
rc=0
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o esc esc1 "$esc2" >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "-o with control characters: exit $rc: $(cat stderr)"
json_ok "report.json" esc/report.json
ascii_only "report.txt" esc/report.txt
ascii_only "summary.csv" esc/summary.csv
iconv -f UTF-8 -t UTF-8 esc/index.html >/dev/null || fail "index.html: not valid UTF-8"
LC_ALL=C grep -q "$(printf '[\033\r\a]')" esc/index.html && fail "index.html: raw control characters"
# An error about a hostile file name: escaped, exit 2 (not a trace).
printf 'not a trace' >"$(printf 'bad\033]0;owned\a\xff')"
rc=0
"$WCANALYZE" bad* >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "a file that is no trace: exit $rc, not 2"
ascii_only "error message" stderr
grep -qF 'wcanalyze: bad\033]0;owned\007\377: ' stderr || fail "error message: $(LC_ALL=C cat -v stderr)"
# A warning about capture.conf names the capture's folder: escaped too.
warn=$(printf 'warn\033[2J')
mk "$warn"
printf 'events_dropped = -5\n' >>"$warn/capture.conf"
rc=0
"$WCANALYZE" "$warn" >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "a capture with a bad value: exit $rc: $(LC_ALL=C cat -v stderr)"
ascii_only "warning" stderr
grep -qF 'wcanalyze: warn\033[2J/capture.conf: line ' stderr || fail "warning: $(LC_ALL=C cat -v stderr)"
# The same warning from --dump, whose events keep blkparse's raw names.
rc=0
"$WCANALYZE" --dump "$warn" >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "--dump of a capture with a bad value: exit $rc: $(LC_ALL=C cat -v stderr)"
ascii_only "--dump warning" stderr
grep -qF 'wcanalyze: warn\033[2J/capture.conf: line ' stderr || fail "--dump warning: $(LC_ALL=C cat -v stderr)"
# The bundle's path, printed on standard output, is the user's own -o
# DIR, but a folder it lies in may be named by someone else.
mkdir "$warn-out"
rc=0
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o "$warn-out/b" "$warn" >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "-o in a hostile folder: exit $rc: $(LC_ALL=C cat -v stderr)"
ascii_only "the bundle's path" stdout
grep -qxF 'warn\033[2J-out/b/index.html' stdout || fail "the bundle's path: $(LC_ALL=C cat -v stdout)"

# ---- names that are the bundle's own: no endless loop, no clash ----------
mk own1 compare-time
mk own2 compare-time
mk own3 index.html
mk own4 report.txt
mk own5 ../../escape
rc=0
WCANALYZE_GNUPLOT='' timeout 30 "$WCANALYZE" -o own --capture-pages all own1 own2 own3 own4 own5 \
	>stdout 2>stderr || rc=$?
[[ $rc -ne 124 ]] || fail "captures named compare-time: wcanalyze -o hung"
[[ $rc -eq 0 ]] || fail "captures named as the bundle's files: exit $rc: $(cat stderr)"
[[ -f own/index.html && -f own/report.txt && -f own/compare-time.gp ]] ||
	fail "a capture took the place of one of the bundle's files"
[[ $(find own -mindepth 1 -maxdepth 1 -type d | wc -l) -eq 5 ]] ||
	fail "five captures in $(find own -mindepth 1 -maxdepth 1 -type d | wc -l) folders"
[[ -d own/_._.._escape ]] || fail "../../escape: not a folder inside DIR"

# ---- links planted in -o DIR ---------------------------------------------
mk plain plain
mkdir outside outside/dir
for f in index report png log dat; do echo "precious $f" >"outside/$f"; done
snapshot() { (cd outside && find . -printf '%p %y\n' -type f -exec cat {} + | sort); }
snapshot >outside.before
check_outside() {
	snapshot | cmp -s - outside.before || fail "$1: a file outside DIR changed"
}
# Links in place of the bundle's files, a capture's files and gnuplot's
# figures, one dangling (it would create a file outside).
mkdir -p links/plain
ln -s "$TMP/outside/index" links/index.html
ln -s "$TMP/outside/report" links/report.txt
ln -s "$TMP/outside/log" links/gnuplot.log
ln -s "$TMP/outside/png" links/plain/scatter.png
ln -s "$TMP/outside/dat" links/plain/timeline.dat
ln -s "$TMP/outside/new" links/plain/throughput.svg
rc=0
"$WCANALYZE" -o links plain >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "links to files in DIR: exit $rc: $(cat stderr)"
check_outside "links to files in DIR"
for f in index.html report.txt plain/scatter.png plain/timeline.dat plain/throughput.svg; do
	[[ -f links/$f && ! -L links/$f ]] || fail "links/$f was not replaced by a file"
done
[[ ! -L links/gnuplot.log ]] || fail "links/gnuplot.log: the link is still there"
[[ -z $(find links -name '.wc-*' -o -name '.render-*') ]] ||
	fail "temporary files left: $(find links -name '.wc-*' -o -name '.render-*')"
# A link in place of a capture's folder is refused and says so.
mkdir cdir
ln -s "$TMP/outside/dir" cdir/plain
rc=0
"$WCANALYZE" -o cdir plain >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "a link as a capture folder: exit $rc, not 2: $(cat stderr)"
grep -qx 'wcanalyze: cdir/plain: a symbolic link where a folder of the bundle goes: refused' stderr ||
	fail "a link as a capture folder: $(cat stderr)"
check_outside "a link as a capture folder"
# So is DIR itself when it is a link (someone else's, in /tmp say).
ln -s "$TMP/outside/dir" ldir
rc=0
"$WCANALYZE" -o ldir/ plain >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "DIR a link: exit $rc, not 2: $(cat stderr)"
grep -qx 'wcanalyze: ldir/: a symbolic link where a folder of the bundle goes: refused' stderr ||
	fail "DIR a link: $(cat stderr)"
check_outside "DIR a link"

exit 0
