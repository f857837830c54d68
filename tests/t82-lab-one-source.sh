#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t82-lab-one-source.sh - one source for every configuration: the lab
# puts the tree once on one filesystem (--source-fs, ext4 by default),
# and every configuration, XFS's too, reads that same filesystem from
# the same place, so that only the destination differs; capture.conf
# says what the source was (source_fs, source_where, source_one).  No
# timing: names, keys and offsets only.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

WCC=$TOP/capture/wccapture
rc=0
bash "$WCC" lab --source-fs ntfs -o "$TMP/u" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 2 ]] || fail "--source-fs ntfs: exit $rc"
grep -q "'ntfs' is not xfs, ext3, ext4 or each" "$TMP/err" ||
	fail "--source-fs ntfs: $(cat "$TMP/err")"

need_root
tracer_wait
need_wcdisk

rc=0
bash "$WCC" lab --workload seed --scale 0.01 --fs xfs,ext4 --cache on --barrier on \
	--warmup 0 -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
offs=""
for fs in xfs ext4; do
	d=$(archive_open "$TMP/out/hdd7200-$fs-cache-on-barrier-on-run1.tar.gz")
	grep -E '^(fs|source_[a-z]*|disk_offsets) ' "$d/capture.conf"
	[[ $(conf_get "$d" source_fs) == ext4 ]] || fail "$fs: source_fs '$(conf_get "$d" source_fs)', not ext4"
	[[ $(conf_get "$d" source_where) == partition ]] ||
		fail "$fs: source_where '$(conf_get "$d" source_where)', not partition"
	[[ $(conf_get "$d" source_one) == 1 ]] || fail "$fs: source_one '$(conf_get "$d" source_one)'"
	# the source was mounted as ext4 while the capture ran
	awk '$2 ~ /\/src-ext4$/ && $3 == "ext4" { found = 1 } END { exit !found }' "$d/info/mounts.txt" ||
		fail "$fs: no ext4 source mounted: $(grep src "$d/info/mounts.txt")"
	# ... from the same place on the disk
	o=$(conf_get "$d" disk_offsets)
	[[ -z $offs || $o == "$offs" ]] || fail "$fs: disk_offsets '$o', the other's '$offs'"
	offs=$o
done
echo "ok: one ext4 source at $offs for xfs and ext4"
