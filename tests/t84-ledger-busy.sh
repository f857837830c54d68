#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t84-ledger-busy.sh - no comparison of busy time leaves out work one
# side left in the drive's cache (issue 40).  Two hand-made captures on
# a model disk (capture.conf disk_model, a ledger.tsv): A ends with its
# data in the drive's cache, which the drive destages after A's last
# request (ledger rows of op S, cause_seq 0, up to durable_ns); B leaves
# nothing.  The comparison's busy difference must be the traces' own
# difference plus A's destage, in the text, JSON and CSV reports, from a
# folder and from an archive; the destage is its own part of the time
# ("destage (no request)"), never idle.  A capture without a ledger reads
# as before, and a ledger row that is no number fails with its offset.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
command -v jq >/dev/null || skip "jq not installed"

HEAD=$'seq\top\tsector\tbytes\tfua\tcache_hit\tarrival_ns\tstart_ns\tend_ns\toverhead_ns\tdestage_ns\tposition_ns\tseek_ns\trotation_ns\ttransfer_ns\tdestage_bytes\tbackground_ns\tdirty_bytes\tlate_ns\tcause_seq\tqueued\tregion'
# destage START END BYTES DIRTY: a ledger row of a range the drive
# destaged of its own (no command waited for it).
destage() {
	printf '0\tS\t4096\t%s\t0\t0\t%s\t%s\t%s\t0\t0\t%s\t0\t0\t%s\t0\t0\t%s\t0\t0\t0\t0\n' \
		"$3" "$1" "$1" "$2" $((($2 - $1) / 2)) $(($2 - $1 - ($2 - $1) / 2)) "$4"
}
# command START END: a write the cache took.
command_row() {
	printf '1\tW\t8192\t4096\t0\t1\t%s\t%s\t%s\t50000\t0\t0\t0\t0\t%s\t0\t0\t4096\t0\t0\t1\t0\n' \
		"$1" "$1" "$2" $(($2 - $1 - 50000))
}

# Two configurations (barriers off and on), other seeds: two recordings.
"$WCSYNTH" -c -n 60 -S 1 -C disk_model=hdd7200 -C barrier=off "$TMP/a" >/dev/null
"$WCSYNTH" -c -n 60 -S 2 -C disk_model=hdd7200 -C barrier=on "$TMP/b" >/dev/null
# end_of X: when capture X's command returned (its last phase's end).
end_of() {
	local e
	e=$(awk -F '\t' '$1 == "delete" { print $3 }' "$TMP/$1/phases.tsv")
	[[ $e =~ ^[0-9]+$ ]] || fail "$1: no delete phase"
	echo "$e"
}
end_a=$(end_of a) end_b=$(end_of b)
# A: 0.3 s of destage after its last request (0.1 s after it), 1 MiB
# left in the cache, durable 0.4 s after the command returned.
s1=$((end_a + 100000000)) s2=$((end_a + 300000000)) s3=$((end_a + 400000000))
{
	echo "$HEAD"
	command_row $((end_a - 3000000)) $((end_a - 2000000))
	destage "$s1" "$s2" 786432 262144
	destage "$s2" "$s3" 262144 0
} >"$TMP/a/ledger.tsv"
printf 'workload_end_ns = %s\ndurable_ns = %s\ndurable_destaged_bytes = 1048576\n' \
	"$end_a" "$s3" >>"$TMP/a/capture.conf"
# B: its cache empty when the command returned.
{
	echo "$HEAD"
	command_row $((end_b - 3000000)) $((end_b - 2000000))
} >"$TMP/b/ledger.tsv"
printf 'workload_end_ns = %s\ndurable_ns = %s\ndurable_destaged_bytes = 0\n' \
	"$end_b" "$end_b" >>"$TMP/b/capture.conf"
# A's trace as it is, without its ledger: what the trace alone says.
cp -r "$TMP/a" "$TMP/a-trace"
rm "$TMP/a-trace/ledger.tsv"

json() { "$WCANALYZE" --format json "$@" || fail "wcanalyze --format json $* exited $?"; }
# busy JSON NAME: the busy time of capture NAME, its window less idle
# and outstanding time (what every comparison of busy time compares).
busy() {
	jq -r --arg n "$2" '.captures[] | select(.name == $n) |
		.window_s - .time_s.idle - .outstanding_s | . * 1e9 | round | . / 1e9' "$1"
}

json "$TMP/a" "$TMP/b" >"$TMP/ab.json"
json "$TMP/a-trace" "$TMP/b" >"$TMP/trace.json"
ba=$(busy "$TMP/ab.json" a) bb=$(busy "$TMP/ab.json" b)
ta=$(busy "$TMP/trace.json" a) tb=$(busy "$TMP/trace.json" b)
echo "busy with the ledgers: a $ba s, b $bb s; the traces alone: a $ta s, b $tb s"
# The destage lies after A's last request: no slice covers it, all of it
# is the drive's busy time.
awk -v ba="$ba" -v bb="$bb" -v ta="$ta" -v tb="$tb" 'BEGIN {
	d = (ba - bb) - (ta - tb)
	printf "the comparison of busy time takes in %.9f s of A'"'"'s destage (0.3 expected)\n", d
	exit !(d > 0.3 - 1e-6 && d < 0.3 + 1e-6) }' ||
	fail "the busy comparison leaves out the destage A left in the drive's cache"
[[ $bb == "$tb" ]] || fail "B's busy time moved with an empty ledger: $tb -> $bb"

# The part of its own, in every form: the capture's time, the group's
# difference, the CSV's columns; the destage is not idle.
jq -e '.captures[] | select(.name == "a") |
	(.time_s.destage_no_request | . > 0.3 - 1e-9 and . < 0.3 + 1e-9) and
	.destage_no_request.ranges == 2 and .destage_no_request.bytes == 1048576' \
	"$TMP/ab.json" >/dev/null || fail "JSON: a's destage_no_request"
jq -e '[.groups[] | select(.difference.parts_s.destage_no_request != null)] | length == 2' \
	"$TMP/ab.json" >/dev/null || fail "JSON: the difference has no destage_no_request part"
jq -e '.captures[] | select(.name == "a") | (.time_s.idle + .time_s.destage_no_request +
	.time_s.flush + .time_s.journal + .time_s.metadata + .time_s.data_read +
	.time_s.data_write + .time_s.discard + .time_s.other + .outstanding_s - .window_s) |
	(if . < 0 then -. else . end) < 1e-6' "$TMP/ab.json" >/dev/null || fail "JSON: a's parts do not add up to its window"
"$WCANALYZE" --format csv "$TMP/a" "$TMP/b" >"$TMP/ab.csv" || fail "csv exited $?"
awk -F ',' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == "a" && $2 == "all" { got = $c["destage_no_request_s"]; d = $c["diff_destage_no_request_s"] }
	END { exit !(got > 0.3 - 1e-9 && got < 0.3 + 1e-9 && d + 0 > 0.29) }' "$TMP/ab.csv" ||
	fail "CSV: a's destage_no_request_s: $(head -n 1 "$TMP/ab.csv")"
"$WCANALYZE" "$TMP/a" "$TMP/b" >"$TMP/ab.txt" || fail "text exited $?"
grep -q 'destag = the drive' "$TMP/ab.txt" || fail "text: the difference table names no destage"
"$WCANALYZE" "$TMP/a" >"$TMP/a.txt" || fail "text of a exited $?"
grep -qE '^destage +0\.300000 ' "$TMP/a.txt" || fail "text: no destage line"
grep -q "(in the window: off the device, no request)" "$TMP/a.txt" &&
	fail "text: the durable destage is still called off the device"
echo "ok: the destage A left in the cache is in the busy comparison, its own part"

# The bundle: the difference figure's data has the destage's part, and
# the HTML tables its column (figures not rendered: no gnuplot needed).
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o "$TMP/bundle" "$TMP/a" "$TMP/b" >/dev/null 2>&1 ||
	fail "the bundle failed"
awk '$1 == "\"a\"" { d = $NF } END { exit !(d > 0.3 - 1e-6 && d < 0.3 + 1e-6) }' \
	"$TMP/bundle/compare-configs.dat" || fail "compare-configs.dat: no destage part for a"
awk '$1 == "\"a\"" { d = $NF } END { exit !(d > 0.3 - 1e-6 && d < 0.3 + 1e-6) }' \
	"$TMP/bundle/compare-time.dat" || fail "compare-time.dat: no destage part for a"
awk '/^"whole capture"/ { d = $NF } END { exit !(d > 0.3 - 1e-6 && d < 0.3 + 1e-6) }' \
	"$TMP/bundle/a/phases.dat" || fail "a/phases.dat: no destage column"
grep -q 'destage (no request)</th>' "$TMP/bundle/index.html" ||
	fail "index.html: no destage column"
echo "ok: the bundle draws the destage as a part of its own"

# The same from archives (the ledger a member beside capture.conf).
tar -C "$TMP" -czf "$TMP/a.tar.gz" a
tar -C "$TMP" -czf "$TMP/b.tar.gz" b
json "$TMP/a.tar.gz" "$TMP/b.tar.gz" >"$TMP/abz.json"
[[ $(busy "$TMP/abz.json" a) == "$ba" && $(busy "$TMP/abz.json" b) == "$bb" ]] ||
	fail "archives: busy $(busy "$TMP/abz.json" a), $(busy "$TMP/abz.json" b), folders $ba, $bb"
echo "ok: the same from archives"

# The model's own account of the whole ledger (JSON `ledger`), as the
# scripts read it: A's busy time is its command and its destage ranges,
# which touch; its commands' time the command's alone.  B's busy time is
# its command's; a replay has no ledger.
ns() { jq -r --arg n "$2" ".captures[] | select(.name == \$n) | $3 | . * 1e9 | round" "$1"; }
cmd_ns=1000000
[[ $(jq '.captures[0].ledger.rows' "$TMP/ab.json") == 3 &&
	$(ns "$TMP/ab.json" a .ledger.busy_s) == $((cmd_ns + s3 - s1)) &&
	$(ns "$TMP/ab.json" a .ledger.commands_s) == "$cmd_ns" &&
	$(ns "$TMP/ab.json" b .ledger.busy_s) == "$cmd_ns" &&
	$(ns "$TMP/abz.json" a .ledger.busy_s) == $((cmd_ns + s3 - s1)) ]] ||
	fail "JSON ledger: $(jq -c '[.captures[].ledger]' "$TMP/ab.json")"
jq -e '[.captures[] | has("ledger")] == [false, true]' "$TMP/trace.json" >/dev/null ||
	fail "a capture without a ledger has a ledger key"
json --what-if cache=on "$TMP/a" >"$TMP/whatif.json"
jq -e '[.captures[] | has("ledger")] == [true, false, false]' "$TMP/whatif.json" >/dev/null ||
	fail "a replay has the recording's ledger: $(jq -c '[.captures[].ledger]' "$TMP/whatif.json")"
cp -r "$TMP/a-trace" "$TMP/w"
echo 'lab_workload = seed' >>"$TMP/w/capture.conf"
json "$TMP/w" "$TMP/b" >"$TMP/w.json"
jq -e '[.captures[].lab_workload] == ["seed", null]' "$TMP/w.json" >/dev/null ||
	fail "JSON lab_workload: $(jq -c '[.captures[].lab_workload]' "$TMP/w.json")"
echo "ok: the ledger's own busy time and the lab's workload in the JSON"

# Without a ledger, as before: no part of it in any form.
json "$TMP/a-trace" >"$TMP/plain.json"
jq -e '[.. | objects | has("destage_no_request")] | any | not' "$TMP/plain.json" >/dev/null ||
	fail "a capture without a ledger has a destage_no_request"
"$WCANALYZE" --format csv "$TMP/a-trace" >"$TMP/plain.csv" || fail "csv exited $?"
[[ $(sed -n 1p "$TMP/plain.csv") != *destage* ]] || fail "CSV without a ledger: $(sed -n 1p "$TMP/plain.csv")"
echo "ok: a capture without a ledger reads as before"

# A hostile ledger: a row that is no number fails with its offset.
bad=$(($(head -n 2 "$TMP/a/ledger.tsv" | wc -c)))
sed -i '3s/\t786432\t/\t78x432\t/' "$TMP/a/ledger.tsv"
rc=0
"$WCANALYZE" "$TMP/a" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -ne 0 ]] || fail "a ledger row that is no number was taken"
grep -q "ledger.tsv: offset $bad: ledger: a field that is not a number" "$TMP/err" ||
	fail "no offset in the message: $(cat "$TMP/err")"
echo "ok: $(cat "$TMP/err")"
