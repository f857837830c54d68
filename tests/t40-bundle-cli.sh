#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t40-bundle-cli.sh - wcanalyze -o DIR: exit status, the path it prints,
# the files of the bundle, the .dat files against saved outputs (reader
# fixtures xfs and ext4), the errors of the option, and a second bundle
# into the same folder (only its own files and the user's are left).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"

# Without rendering: the data and scripts, and a notice on stderr.
rc=0
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o out "$FIX/reader/xfs" "$FIX/reader/ext4" \
	>stdout 2>stderr || rc=$?
[[ $rc -eq 0 ]] || fail "wcanalyze -o exited $rc: $(cat stderr)"
[[ $(cat stdout) == out/index.html ]] || fail "printed '$(cat stdout)', not out/index.html"
grep -q '^wcanalyze: WCANALYZE_GNUPLOT is empty: figures not rendered; .*out/render.sh$' stderr ||
	fail "no notice on how to render: $(cat stderr)"
for f in index.html report.txt report.json summary.csv render.sh \
	compare-time.dat compare-time.gp compare-throughput.dat compare-throughput.gp \
	compare-configs.dat compare-configs.gp \
	xfs/timeline.dat xfs/scatter.dat xfs/latency.dat xfs/phases.dat \
	ext4/scatter.dat; do
	[[ -s out/$f ]] || fail "bundle lacks $f"
done
for g in scatter throughput flushes latency queue phases; do
	[[ -s out/xfs/$g.gp ]] || fail "bundle lacks xfs/$g.gp"
done
[[ ! -e out/xfs/scatter.png ]] || fail "rendered although WCANALYZE_GNUPLOT is empty"

# The figures' data against saved outputs (after a deliberate change,
# WC_REGEN=1 writes them; review the diff before committing it).
if [[ ${WC_REGEN:-0} == 1 ]]; then
	for f in scatter.dat timeline.dat latency.dat phases.dat; do
		cp "out/xfs/$f" "$FIX/bundle/$f"
	done
	cp out/compare-time.dat out/compare-throughput.dat "$FIX/bundle/"
fi
for f in scatter.dat timeline.dat latency.dat phases.dat; do
	diff -u "$FIX/bundle/$f" "out/xfs/$f" >diff.out ||
		fail "xfs/$f differs from tests/fixtures/bundle/$f: $(head -20 diff.out)"
done
for f in compare-time.dat compare-throughput.dat; do
	diff -u "$FIX/bundle/$f" "out/$f" >diff.out ||
		fail "$f differs from tests/fixtures/bundle/$f: $(head -20 diff.out)"
done

# The reports in the bundle are the ones wcanalyze prints.
"$WCANALYZE" --runs "$FIX/reader/xfs" "$FIX/reader/ext4" >report.txt
cmp -s report.txt out/report.txt || fail "report.txt is not wcanalyze's text report"
"$WCANALYZE" --format json "$FIX/reader/xfs" "$FIX/reader/ext4" >report.json
cmp -s report.json out/report.json || fail "report.json is not wcanalyze's JSON"

# Again into the same folder: files are replaced, nothing else touched.
touch out/mine.txt
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o out "$FIX/reader/xfs" "$FIX/reader/ext4" >/dev/null 2>&1 ||
	fail "second run into the same folder failed"
[[ -e out/mine.txt ]] || fail "a file of the user's was removed"

# Errors: no argument, a folder that cannot be made, bad input.
expect_exit 2 "$WCANALYZE" -o
rc=0
"$WCANALYZE" -o "$TMP/nonexistent/deeper" "$FIX/reader/xfs" >stdout 2>stderr || rc=$?
[[ $rc -eq 1 ]] || fail "uncreatable folder: exit $rc, expected 1"
grep -q "^wcanalyze: $TMP/nonexistent/deeper: cannot create folder: No such file or directory$" stderr ||
	fail "uncreatable folder: $(cat stderr)"
[[ ! -s stdout ]] || fail "uncreatable folder: printed a path"
rc=0
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o bad nonexistent >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "missing input: exit $rc, expected 2"
[[ ! -e bad/index.html ]] || fail "missing input: wrote a bundle"
# A misspelt --baseline fails before anything is written.
rc=0
"$WCANALYZE" -o nobase --baseline nosuch "$FIX/reader/xfs" >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "unknown baseline: exit $rc, expected 2"
grep -q "^wcanalyze: no capture named 'nosuch' for --baseline$" stderr ||
	fail "unknown baseline: $(cat stderr)"
[[ ! -e nobase ]] || fail "unknown baseline: left a folder behind"
# A second bundle into the same folder leaves only its own files and
# the user's: the first one's capture folder and comparison go (by its
# bundle-files.txt), a file someone put there stays.
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o again "$FIX/reader/xfs" "$FIX/reader/ext4" >/dev/null 2>&1 ||
	fail "first bundle into again/ failed"
echo mine >again/notes.txt
echo mine >again/ext4/notes.txt
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o again "$FIX/reader/xfs" >/dev/null 2>&1 ||
	fail "second bundle into again/ failed"
[[ ! -e again/compare-time.dat && ! -e again/ext4/timeline.dat ]] ||
	fail "the first bundle's files survived the second: $(ls again again/ext4)"
[[ -s again/xfs/timeline.dat && $(cat again/notes.txt again/ext4/notes.txt) == $'mine\nmine' ]] ||
	fail "the second bundle removed what was not the first one's"
left=$(cd again && printf '%s\n' * | LC_ALL=C sort | tr '\n' ' ')
[[ $left == "bundle-files.txt ext4 index.html notes.txt render.sh report.json report.txt summary.csv xfs " ]] ||
	fail "after a second bundle: $left"
# --capture-pages: named or all, and only for a bundle.
expect_exit 2 "$WCANALYZE" --capture-pages all "$FIX/reader/xfs"
expect_exit 2 "$WCANALYZE" -o pages --capture-pages some "$FIX/reader/xfs"
[[ ! -e pages ]] || fail "a bad --capture-pages left a folder behind"
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o pages --capture-pages all "$FIX/reader/xfs" \
	"$FIX/reader/ext4" >/dev/null 2>&1 || fail "--capture-pages all failed"
[[ -s pages/xfs/scatter.gp && -s pages/ext4/scatter.gp ]] || fail "--capture-pages all: $(ls pages)"
rc=0
WCANALYZE_PLOTS=$TMP "$WCANALYZE" -o t "$FIX/reader/xfs" >stdout 2>stderr || rc=$?
[[ $rc -eq 2 ]] || fail "no templates: exit $rc, expected 2"
grep -q "^wcanalyze: $TMP: WCANALYZE_PLOTS names no folder with common.gp$" stderr ||
	fail "no templates: $(cat stderr)"
exit 0
