#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t32-report-cli.sh - wcanalyze's analysis mode against saved outputs:
# text, comparison with --baseline, JSON and CSV (with and without
# --baseline) of synthetic captures and of a recorded trace; exit statuses
# of bad options and bad inputs; the text stays within 80 columns.
#
# The saved outputs live in tests/fixtures/attrib/; after a deliberate
# change of the reports, regenerate them with
#   WC_REGEN=1 BUILD=build bash tests/t32-report-cli.sh
# and review the diff before committing it.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/attrib
[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"

# Synthetic captures are made fresh: wcsynth is deterministic.
"$WCSYNTH" --capture "$TMP/xfs-base"
"$WCSYNTH" --capture --seed 2 --flush-ms 40 --other-device "$TMP/xfs-slowflush"
"$WCSYNTH" --seed 3 --depth 1 "$TMP/plain"
tar -C "$TMP" -cJf "$TMP/xfs-slowflush.tar.xz" xfs-slowflush

# same NAME CMD...: CMD's output equals the saved NAME (or becomes it).
same() {
	local name=$1
	shift
	(cd "$TMP" && "$@") >"$TMP/out" || fail "$name: '$*' exited $?"
	if [[ ${WC_REGEN:-0} == 1 ]]; then
		mkdir -p "$FIX" && cp "$TMP/out" "$FIX/$name"
		return
	fi
	[[ -f $FIX/$name ]] || fail "$name: no saved output $FIX/$name"
	diff -u "$FIX/$name" "$TMP/out" || fail "$name: output differs from saved"
	echo "ok: $name"
}

same base.txt "$WCANALYZE" xfs-base
same plain.txt "$WCANALYZE" plain
# --btt: btt's figures too (without it the report says they were not
# computed; t31 checks them against btt itself).
same plain-btt.txt "$WCANALYZE" --btt plain
same compare.txt "$WCANALYZE" --baseline xfs-base xfs-base xfs-slowflush.tar.xz plain
# --runs: the same, then the per-run detail under its heading.
same compare-runs.txt "$WCANALYZE" --runs --baseline xfs-base xfs-base xfs-slowflush.tar.xz plain
same all.json "$WCANALYZE" --format json xfs-base xfs-slowflush.tar.xz plain
same all.csv "$WCANALYZE" --format csv xfs-base xfs-slowflush.tar.xz plain
# --baseline reaches JSON and CSV too: ratios per capture and per phase.
same baseline.json "$WCANALYZE" --format json --baseline xfs-base xfs-base xfs-slowflush.tar.xz plain
same baseline.csv "$WCANALYZE" --format csv --baseline xfs-base xfs-base xfs-slowflush.tar.xz plain
same rate.txt "$WCANALYZE" --media-rate 50 --journal 2000000+65536 plain
same reader-ext4.txt "$WCANALYZE" "$TOP/tests/fixtures/reader/ext4/loop1"

# A comparison answers its question first: the first finding is the
# difference between the configurations, the slowest capture's detail
# comes after it under "caveats".
[[ $(sed -n 2p "$FIX/compare.txt") == '  - The largest difference'* ]] ||
	fail "compare.txt: the first finding is not the difference"
grep -q '^caveats$' "$FIX/compare.txt" || fail "compare.txt: no caveats"

for out in "$FIX"/*.txt; do
	awk -v f="${out##*/}" 'length($0) > 80 {
		print f ": line " NR " is " length($0) " columns"; bad = 1
	} END { exit bad }' "$out" || fail "text report wider than 80 columns"
done

# Usage errors and bad input: status 2 with one line naming the problem.
expect_exit 2 "$WCANALYZE" --format xml "$TMP/plain"
expect_exit 2 "$WCANALYZE" --journal 12 "$TMP/plain"
expect_exit 2 "$WCANALYZE" --journal 12+0 "$TMP/plain"
expect_exit 2 "$WCANALYZE" --media-rate -3 "$TMP/plain"
expect_exit 2 "$WCANALYZE" --baseline nosuch "$TMP/plain" "$TMP/xfs-base"
expect_exit 2 "$WCANALYZE" --format json --baseline nosuch "$TMP/plain"
expect_exit 2 "$WCANALYZE" --format csv --baseline nosuch "$TMP/plain"
"$WCANALYZE" --baseline nosuch "$TMP/plain" >/dev/null 2>"$TMP/err" || true
grep -qx "wcanalyze: no capture named 'nosuch' for --baseline" "$TMP/err" ||
	fail "unknown baseline: no diagnostic"
expect_exit 2 "$WCANALYZE" "$TMP/nonexistent"

# A truncated trace: status 2, a diagnostic, and still a report of what
# came before the bad record.
cp "$TMP/plain.blktrace.0" "$TMP/cut.blktrace.0"
truncate -s -20 "$TMP/cut.blktrace.0"
rc=0
"$WCANALYZE" --format json "$TMP/cut" >"$TMP/cut.json" 2>"$TMP/cut.err" || rc=$?
[[ $rc == 2 ]] || fail "truncated trace: exit $rc, expected 2"
grep -q 'truncated record' "$TMP/cut.err" || fail "truncated trace: $(cat "$TMP/cut.err")"
jq -e '.captures[0].partial == true' "$TMP/cut.json" >/dev/null || fail "truncated trace: no partial report"
echo "ok: exit statuses"

# The tree a capture copied, capture.conf's source_files and source_bytes,
# in JSON as numbers (the doc scripts read them there, not from the
# file); null without them.
sample=$TOP/samples/hdd7200-ext4-cache-on-barrier-on-run2.tar.xz
tar -xOf "$sample" --wildcards '*/capture.conf' >"$TMP/src.conf"
files=$(sed -n 's/^source_files = \([0-9][0-9]*\)$/\1/p' "$TMP/src.conf")
bytes=$(sed -n 's/^source_bytes = \([0-9][0-9]*\)$/\1/p' "$TMP/src.conf")
[[ -n $files && -n $bytes ]] || fail "$sample: its capture.conf has no source_files or source_bytes"
"$WCANALYZE" --format json "$sample" "$TMP/plain" >"$TMP/src.json" || fail "JSON of a sample failed"
jq -e --argjson files "$files" --argjson bytes "$bytes" \
	'.captures[0].source_files == $files and .captures[0].source_bytes == $bytes and
	.captures[1].source_files == null and .captures[1].source_bytes == null' \
	"$TMP/src.json" >/dev/null ||
	fail "source_files, source_bytes: $(jq -c '[.captures[] | [.source_files, .source_bytes]]' "$TMP/src.json")"

# A merged "blkparse -d" file of two devices and no capture.conf: the
# report says which device it is about, and why.
mkdir "$TMP/two"
cp "$TOP"/tests/fixtures/reader/ext4/* "$TMP/two/"
for f in "$TOP"/tests/fixtures/reader/xfs/loop1.blktrace.*; do
	"$BUILD/tests/wctrace_convert" --device 7:2 "$f" "$TMP/two/loop2.blktrace.${f##*.}"
done
blkparse -q -D "$TMP/two" -i loop1 -i loop2 -d "$TMP/two.bin" -O >/dev/null
"$WCANALYZE" "$TMP/two.bin" >"$TMP/two.txt"
grep -qxF '  device 7,2, the busiest, rotational: unknown' "$TMP/two.txt" ||
	fail "two devices: $(cat "$TMP/two.txt")"
grep -qxF '    (most bytes of the 2 devices with I/O: capture.conf names none)' "$TMP/two.txt" ||
	fail "two devices: no reason given: $(cat "$TMP/two.txt")"
awk 'length > 80 { exit 1 }' "$TMP/two.txt" || fail "two devices: a line over 80 columns"
echo "ok: the device picked from two"
