#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t79-lab-xfs-nobarrier.sh - the report's fourth row: XFS without
# barriers, which no mount option gives since Linux 4.19, is run on a
# model disk as nobarrier ran it: XFS mounted with its defaults, the
# kernel told the disk writes through (so the block layer strips every
# flush and FUA before they are queued), the model caching as --cache
# says.  capture.conf says so (barrier off, barrier_method
# kernel-write-through, write_cache on), no flush-tagged event reaches
# the destination, the model's ledger holds writes it absorbed in its
# cache, and the kernel's view of the device is put back.  On a loop
# disk, whose cache is the kernel's view, the row stays not applicable.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait
need_wcdisk

WCC=$TOP/capture/wccapture
# the kernel's view of each loop device's cache before the lab (other
# tests may use other loop devices meanwhile: only the lab's is compared)
declare -A before
for f in /sys/block/loop*/queue/write_cache; do
	[[ -e $f ]] || continue
	n=${f#/sys/block/}
	before[${n%%/*}]=$(cat "$f")
done
mkdir "$TMP/work"
rc=0
TMPDIR=$TMP/work bash "$WCC" lab --workload seed --scale 0.05 --fs xfs --cache on \
	--barrier off --warmup 0 -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
grep -q "not applicable" "$TMP/table" && fail "XFS without barriers not run: $(cat "$TMP/table")"
a=$TMP/out/hdd7200-xfs-cache-on-barrier-off-run1.tar.gz
[[ -f $a ]] || fail "no archive for XFS cache on, barriers off: $(ls "$TMP/out")"
d=$(archive_open "$a")
[[ $(conf_get "$d" barrier) == off ]] || fail "barrier is $(conf_get "$d" barrier)"
[[ $(conf_get "$d" barrier_method) == kernel-write-through ]] ||
	fail "barrier_method is '$(conf_get "$d" barrier_method)'"
[[ $(conf_get "$d" write_cache) == on ]] || fail "write_cache is $(conf_get "$d" write_cache), the model cached"
[[ $(conf_get "$d" write_cache_method) == model ]] || fail "write_cache_method is $(conf_get "$d" write_cache_method)"
dst=$(conf_get "$d" destination)
grep -qx "/sys/block/$dst/queue/write_cache:write through" "$d/info/queue-$dst.txt" ||
	fail "the kernel was not told $dst writes through: $(grep write_cache "$d/info/queue-$dst.txt")"
parse_dest "$d"
anyf=$(awk '$6 ~ /^[QDC]$/ && $7 ~ /^F/' "$d/dest.txt" | wc -l)
[[ $anyf -eq 0 ]] || fail "$anyf flush-tagged events reached $dst"
w=$(awk '$6 == "D" && $7 ~ /W/' "$d/dest.txt" | wc -l)
((w > 0)) || fail "no write reached $dst"
# the model cached: writes of the destination's region left dirty data
dirty=$(awk -F '\t' 'NR > 1 && $22 == 0 && $2 == "W" && $18 > m { m = $18 } END { print m + 0 }' "$d/ledger.tsv")
((dirty > 0)) || fail "the ledger's writes left nothing in the model's cache"
if [[ -v "before[$dst]" ]]; then
	[[ $(cat "/sys/block/$dst/queue/write_cache") == "${before[$dst]}" ]] ||
		fail "$dst: the kernel's view of its cache is $(cat "/sys/block/$dst/queue/write_cache"), was ${before[$dst]}"
fi
echo "ok: $w writes, no flush, at most $dirty bytes dirty in the model's cache"

# On a loop disk the kernel's view is the only cache: not applicable.
rc=0
bash "$WCC" lab --disk loop --fs xfs --cache on --barrier off --warmup 0 --files 10 --size 1M \
	-o "$TMP/loop" >"$TMP/table2" 2>"$TMP/log2" || rc=$?
grep -q "not applicable: XFS removed the nobarrier mount option in Linux 4.19.*only on a model disk" "$TMP/table2" ||
	fail "loop disk: $(cat "$TMP/table2") $(tail -n 2 "$TMP/log2")"
