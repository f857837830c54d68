#!/usr/bin/env bash
# t49-what-if.sh - wcanalyze --what-if on a sample capture: the report
# holds the capture, its replay as recorded and each what-if; two runs
# give the same bytes; a spec or a disk that is wrong is a usage error.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

SAMPLE=$TOP/samples/hdd7200-ext4-cache-on-barrier-on-run2.tar.xz
export WCANALYZE_DISKS=$TOP/capture/disks
cd "$TMP"

"$WCANALYZE" --what-if cache=off --what-if disk=ssd,barrier=off \
	"$SAMPLE" >a.txt 2>a.err || fail "what-if failed: $(cat a.err)"
for n in "replayed as recorded" "what-if cache=off" "what-if disk=ssd,barrier=off"; do
	grep -qF "hdd7200-ext4-cache-on-barrier-on-run2 $n" a.txt ||
		fail "no '$n' in the report"
done
"$WCANALYZE" --what-if cache=off --what-if disk=ssd,barrier=off \
	"$SAMPLE" >b.txt 2>/dev/null
cmp -s a.txt b.txt || fail "two runs differ: $(diff a.txt b.txt | head -5)"
"$WCANALYZE" --format json --what-if cache=off "$SAMPLE" >a.json
"$WCANALYZE" --format json --what-if cache=off "$SAMPLE" >b.json
cmp -s a.json b.json || fail "two JSON runs differ"
"$WCANALYZE" --format csv --what-if cache=off "$SAMPLE" >a.csv
grep -q 'what-if cache=off,all,' a.csv || fail "no what-if row in the CSV"

# The cache off costs the device time with every write waiting for the
# media: more busy time than the replay as recorded, in data writes.
busy() { awk -F, -v n="$1" '$1 == n && $2 == "all" { print $6 - $7 }' a.csv; }
base=$(busy "hdd7200-ext4-cache-on-barrier-on-run2 replayed as recorded")
off=$(busy "hdd7200-ext4-cache-on-barrier-on-run2 what-if cache=off")
awk -v b="$base" -v o="$off" 'BEGIN { exit !(b > 1 && o > b * 1.3) }' ||
	fail "cache off: busy $off s against $base s as recorded"

expect_exit 2 "$WCANALYZE" --what-if cache=maybe "$SAMPLE"
expect_exit 2 "$WCANALYZE" --what-if nosuchkey=1 "$SAMPLE"
expect_exit 2 "$WCANALYZE" --what-if disk=nosuchdisk "$SAMPLE"
expect_exit 2 "$WCANALYZE" --what-if cache=off "$SAMPLE" "$SAMPLE"
exit 0
