#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t01-shellcheck.sh - every bash script of the project is shellcheck-clean,
# and none cuts a pipeline short.  Under pipefail a reader that stops
# early (head, grep -q, grep -m) leaves the writer to die of SIGPIPE
# whenever it writes after that: status 141, a test that fails now and
# then or a condition that is false though it matched.  sed -n 1p and
# grep PATTERN >/dev/null read to the end (GNU grep drains its input when
# its output is /dev/null); sed's q and grep -m are for files they read
# themselves.  The pipeline check is run on a planted script, which must
# fail.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TOP"
mapfile -t scripts < <(ls capture/wccapture capture/lib/*.sh scripts/*.sh scripts/lib/*.sh bench/*.sh bench/lib/*.sh \
	tests/*.sh tests/lib/*.sh tests/fixtures/*/*.sh tests/fuzz/*.sh .ci/run 2>/dev/null)
[[ ${#scripts[@]} -gt 10 ]] || fail "found only ${#scripts[@]} scripts"

# cut_pipes FILE...: the pipelines (continuation lines joined) whose
# reader after a | stops early, as FILE:LINE: TEXT; comments left out.
cut_pipes() {
	awk '
	FNR == 1 { if (text != "") show(); text = "" }
	function show() {
		if (text !~ /^[ \t]*#/ &&
		    text ~ /\|[ \t]*(head([ \t]|$)|grep([ \t]+-[-A-Za-z0-9]+)*[ \t]+-([A-Za-z]*[qm]|-quiet|-silent|-max-count))/)
			print name ":" start ": " text
	}
	{
		if (text != "" && prev ~ /\|[ \t]*$/) { text = text " " $0 }
		else { if (text != "") show(); text = $0; start = FNR; name = FILENAME }
		prev = $0
	}
	END { if (text != "") show() }' "$@"
}

printf '%s\n' '#!/usr/bin/env bash' 'seq 9 | grep -q 1 || exit 1' 'seq 9 |' '	head -n 1' \
	'seq 9 | grep -E -m 1 x' 'seq 9 | grep -qx 1' '# a | head' 'seq 9 | sed -n 1p' \
	'seq 9 | grep 1 >/dev/null' 'head -n 1 /etc/passwd | grep -c x' >"$TMP/planted.sh"
cut_pipes "$TMP/planted.sh" >"$TMP/planted.out"
printf '%s\n' "$TMP/planted.sh:2: seq 9 | grep -q 1 || exit 1" "$TMP/planted.sh:3: seq 9 | 	head -n 1" \
	"$TMP/planted.sh:5: seq 9 | grep -E -m 1 x" "$TMP/planted.sh:6: seq 9 | grep -qx 1" >"$TMP/planted.want"
cmp -s "$TMP/planted.want" "$TMP/planted.out" ||
	{ show_diff "$TMP/planted.want" "$TMP/planted.out"; fail "the pipeline check misses what was planted"; }
# this file plants such pipelines: it is the one left out
cut_pipes "${scripts[@]/#tests\/t01-shellcheck.sh/\/dev/null}" >"$TMP/cut.out"
[[ ! -s $TMP/cut.out ]] || fail "a pipeline cut short (SIGPIPE under pipefail): $(sed -n 1,10p "$TMP/cut.out")"
echo "ok: no pipeline cut short in ${#scripts[@]} scripts"

command -v shellcheck >/dev/null 2>&1 || skip "shellcheck is not installed"
# wccapture is one program in several files: a global that one file of
# capture/lib sets and another reads is unused in the first, unset in the
# second.  So those files are checked one by one without these checks,
# and the program whole with them: the dispatcher with each file it
# sources in place of its source line, each line mapped back to its file.
whole_checks=SC2034,SC2153,SC2154
awk -v map="$TMP/whole.map" '
	function put(text, where) { print text; print ++n " " where >map }
	/^source "\$WCCAPTURE_LIB\/[a-z]+\.sh"$/ {
		f = $2; gsub(/"|\$WCCAPTURE_LIB\//, "", f); f = "capture/lib/" f; k = 0
		put(": \"$WCCAPTURE_LIB\"", FILENAME ":" FNR)
		while ((getline line <f) > 0) put(line, f ":" ++k)
		close(f); next
	}
	{ put($0, FILENAME ":" FNR) }' capture/wccapture >"$TMP/whole.sh"
shellcheck -f gcc -i "$whole_checks" "$TMP/whole.sh" >"$TMP/whole.out" 2>&1 ||
	fail "wccapture as a whole: $(awk -F: 'NR == FNR { split($0, m, " "); at[m[1]] = m[2]; next }
		{ $2 = at[$2]; $1 = ""; print }' OFS=: "$TMP/whole.map" "$TMP/whole.out" | sed -n 's/^://; 1,30p')"
shellcheck -x -e "$whole_checks" capture/lib/*.sh >"$TMP/sc.out" 2>&1 || fail "$(sed -n 1,30p "$TMP/sc.out")"
mapfile -t others < <(printf '%s\n' "${scripts[@]}" | grep -v '^capture/lib/')
shellcheck -x "${others[@]}" >"$TMP/sc.out" 2>&1 || fail "$(sed -n 1,30p "$TMP/sc.out")"
echo "ok: ${#scripts[@]} scripts clean"
