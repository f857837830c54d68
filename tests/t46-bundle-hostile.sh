#!/usr/bin/env bash
# t46-bundle-hostile.sh - captures whose names are made to attack the
# output side (issue 8): a name must not run a command through gnuplot,
# must reach JSON as valid UTF-8 and a terminal without control bytes;
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
"$WCANALYZE" -o out in1 in2 nl* >stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "hostile names: exit $rc: $(cat stderr)"
# The figures were drawn: gnuplot did read the scripts.
[[ $(find out -name 'throughput.png' | wc -l) -eq 3 ]] ||
	fail "hostile names: not every figure rendered: $(cat out/gnuplot.log 2>/dev/null)"
no_marker "wcanalyze -o"
bash out/render.sh 2>render.err || fail "render.sh failed: $(cat render.err)"
no_marker "render.sh"
# Every title is one single-quoted line.
grep -h '^title = ' out/*/*.gp | grep -qv "^title = '.*'$" &&
	fail "a title is not a single-quoted string: $(grep -h '^title = ' out/*/*.gp)"
[[ $(for g in out/*/throughput.gp; do grep -c '' "$g"; done | sort -u | wc -l) -eq 1 ]] ||
	fail "a name changed the number of lines of a script"

exit 0
