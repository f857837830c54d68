#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t71-lab-placement.sh - the lab's model disk as the report's disk: with
# one disk (the seed workload's default) the destination and the source
# are partitions of hdd7200's 500 GB (--placement partitions, wcdisk
# --offset auto), capture.conf says where (disk_placement,
# disk_capacity_bytes, disk_offsets) and info/placement.tsv what that
# means on the platter; the what-if replays the capture on that same
# placement: with the cache off, where every write goes to the platter,
# the same capture with its offsets removed, replayed with the images as
# the whole platter, predicts seeks over the image's full stroke: more
# than 10 % longer (1.21 to 1.40 times in the eight runs printed).  Both
# sides are replays in virtual time, so the check does not depend on the
# host's load.  The replay as recorded is printed beside the recording, not
# checked: its error is the replay's dependency rules against a live
# run, not placement, and it moves with the host: -15 % to +15 % in five
# runs on a loaded host, then -6 % to +60 % in five on a fresh machine,
# +49 % in CI, where a 25 % bound failed (scale 0.05; docs/what-if.md
# measures the model's error on the samples).  The live disk's
# placement is checked in its own log: the ledger's seeks.  The lab's
# work folder follows TMPDIR.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

WCC=$TOP/capture/wccapture
rc=0
bash "$WCC" lab --placement sideways -o "$TMP/u" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 2 ]] || fail "--placement sideways: exit $rc"
grep -q "'sideways' is not partitions or platter" "$TMP/err" ||
	fail "--placement sideways: exit $rc, $(cat "$TMP/err")"
rc=0
bash "$WCC" lab --placement partitions --disk loop -o "$TMP/u" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 2 ]] || fail "--placement partitions --disk loop: exit $rc"
grep -q "needs a model disk" "$TMP/err" ||
	fail "--placement partitions --disk loop: exit $rc, $(cat "$TMP/err")"

need_root
tracer_wait
need_wcdisk

# The work folder follows TMPDIR: one that does not exist stops the lab.
rc=0
TMPDIR=$TMP/missing bash "$WCC" lab --workload seed --scale 0.01 --fs ext4 --cache on \
	--barrier on --warmup 0 -o "$TMP/m" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -ne 0 ]] || fail "TMPDIR=$TMP/missing: the lab ran"
grep -qF "$TMP/missing" "$TMP/err" ||
	fail "TMPDIR=$TMP/missing: exit $rc, $(tail -n 2 "$TMP/err")"

mkdir "$TMP/work"
rc=0
TMPDIR=$TMP/work bash "$WCC" lab --workload seed --scale 0.05 --fs ext4 --cache on \
	--barrier on --warmup 0 -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
a=$TMP/out/hdd7200-ext4-cache-on-barrier-on-run1.tar.gz
d=$(archive_open "$a")
grep -E '^disk_' "$d/capture.conf"
cat "$d/info/placement.tsv"
[[ $(conf_get "$d" disk_placement) == partitions ]] || fail "disk_placement is not partitions"
cap=$((976773168 * 512))
[[ $(conf_get "$d" disk_capacity_bytes) == "$cap" ]] ||
	fail "disk_capacity_bytes $(conf_get "$d" disk_capacity_bytes), not hdd7200's $cap"
[[ $(conf_get "$d" disk_offsets) == "1048576 $((cap / 2 / 1048576 * 1048576))" ]] ||
	fail "disk_offsets '$(conf_get "$d" disk_offsets)': not 1 MiB and half the disk"
awk -F '\t' 'NR > 2 && $5 - $4 >= 500 { bad = 1 } END { exit bad }' "$d/info/placement.tsv" ||
	fail "a partition spans 500 cylinders or more"
# a seek inside a partition is short: the median of the ledger's seeks
# is under 2 ms (the platter's would be several)
med=$(awk -F '\t' 'NR > 1 && $13 > 0 { print $13 }' "$d/ledger.tsv" | sort -n |
	awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')
((med > 0 && med < 2000000)) || fail "the ledger's median seek is $med ns"

# busy SIDE: the busy time (window - idle) of the recording (0), of its
# replay as recorded (1) or of the what-if cache=off (2), for the capture
# archive $2
busy() {
	"$WCANALYZE" --format csv --what-if cache=off "$2" |
		awk -F, -v side="$1" '$2 != "all" { next }
			side == 0 && $1 !~ / / || side == 1 && $1 ~ /replayed as recorded$/ ||
			side == 2 && $1 ~ /what-if cache=off$/ { printf "%.6f", $6 - $7 }'
}
rec=$(busy 0 "$a")
placed=$(busy 1 "$a")
placed_off=$(busy 2 "$a")
name=$(basename "$d")
mkdir -p "$TMP/p"
cp -a "$d" "$TMP/p/"
sed -i '/^disk_offsets = /d' "$TMP/p/$name/capture.conf"
tar -C "$TMP/p" -czf "$TMP/p.tar.gz" "$name"
platter_off=$(busy 2 "$TMP/p.tar.gz")
echo "busy: recorded $rec s, replayed as recorded $placed s; cache off: placed $placed_off s, as the platter $platter_off s"
awk -v a="$placed_off" -v b="$platter_off" 'BEGIN { exit !(a > 0 && b / a > 1.1) }' ||
	fail "cache off: as the platter $platter_off s against $placed_off s placed: the what-if does not place the images?"
echo "ok: partitions at $(conf_get "$d" disk_offsets), median seek $med ns"
