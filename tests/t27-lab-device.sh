#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t27-lab-device.sh - wccapture lab --device DEV --destroy-data on a block
# device of our own (a loop device standing in for a spare disk): the
# device is formatted and traced as the destination, the archive says so,
# flushes reach it with cache and barriers on, the journal range holds the
# journal writes, and the device is handed back unmounted with its write
# cache setting restored.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

img=$TMP/spare.img
truncate -s 400M "$img"
LOOP=$(losetup -f --show "$img") || skip "no free loop device"
dev=$LOOP
kn=${dev##*/}
wc_before=$(cat "/sys/block/$kn/queue/write_cache")

rc=0
bash "$TOP/capture/wccapture" lab --warmup 0 --device "$dev" --destroy-data --fs ext4,xfs \
	--cache on --barrier on --files 60 --size 2M -o "$TMP/out" \
	>"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab --device exited $rc: $(tail -n 5 "$TMP/log")"

n=0
for a in "$TMP"/out/*.tar.gz; do
	n=$((n + 1))
	d=$(archive_open "$a")
	name=$(basename "$d")
	archive_check "$d" 1
	[[ $(conf_get "$d" destination) == "$kn" ]] || fail "$name: destination is not $kn"
	[[ $(conf_get "$d" "device.$kn.role") == destination ]] || fail "$name: $kn not traced as the destination"
	# Lab archives are named DISK-FS-cache-...: the filesystem is the
	# word before "cache".
	[[ $name =~ (^|-)(xfs|ext3|ext4)-cache- ]] || fail "$name: no filesystem in the name"
	fs=${BASH_REMATCH[2]}
	[[ $(conf_get "$d" fs) == "$fs" ]] || fail "$name: fs key differs"
	js=$(conf_get "$d" journal_start_sector)
	jn=$(conf_get "$d" journal_sectors)
	[[ $js =~ ^[0-9]+$ && $jn =~ ^[1-9][0-9]*$ ]] || fail "$name: no journal range"
	parse_dest "$d"
	flushes=$(awk '$6 == "D" && $7 == "FN"' "$d/dest.txt" | wc -l)
	[[ $flushes -gt 0 ]] || fail "$name: no FN flush reached $kn"
	out=$(awk -v s="$js" -v n="$jn" '$6 == "Q" && $7 ~ /^FW/ {
		j++; if ($8 < s || $8 + $10 > s + n) bad++ }
		END { printf "%d %d", j, bad }' "$d/dest.txt")
	read -r j bad <<<"$out"
	[[ $j -gt 0 && $bad -eq 0 ]] || fail "$name: $bad of $j preflush writes outside $js+$jn"
	echo "$name: $flushes flushes on $kn, $j preflush writes inside $js+$jn"
done
[[ $n -eq 2 ]] || fail "$n archives, expected 2"

# Handed back: not mounted, still attached (it is ours), cache as before.
! grep -q "^$dev " /proc/self/mounts || fail "$dev left mounted"
losetup "$dev" >/dev/null 2>&1 || fail "$dev was detached by wccapture"
[[ $(cat "/sys/block/$kn/queue/write_cache") == "$wc_before" ]] || fail "write_cache not restored"
[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "tracer left on"
