#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t24-record.sh - "wccapture record" traces a mounted disk while a command
# runs, changes nothing on it, and archives one "command" phase with the
# fs, journal range, the disk's hardware queues and command status; a
# failing command still gives a complete archive and a failure exit;
# where tracefs is not mounted it is mounted for the recording and
# unmounted after it.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

truncate -s 128M "$TMP/img"
LOOP=$(losetup -f --show "$TMP/img")
dev=${LOOP#/dev/}
mkfs.ext4 -q -F "$LOOP"
mkdir "$TMP/mnt"
mount "$LOOP" "$TMP/mnt"
wc_before=$(cat "/sys/block/$dev/queue/write_cache")

rc=0
bash "$TOP/capture/wccapture" record --device "$LOOP" --name mine --recorder tracefs -o "$TMP/out" -- \
	sh -c "cp -a $TOP/capture $TMP/mnt/c && sync && rm -r $TMP/mnt/c && sync" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "record exited $rc: $(tail -n 3 "$TMP/log")"
d=$(archive_open "$TMP/out/mine.tar.gz")
archive_check "$d" 1
[[ $(awk -F '\t' 'NR > 1 { print $1 }' "$d/phases.tsv") == command ]] || fail "phases are not one 'command'"
[[ $(conf_get "$d" workload) == command ]] || fail "workload is not command"
[[ $(conf_get "$d" command) == "sh -c cp -a "* ]] || fail "command key: $(conf_get "$d" command)"
[[ $(conf_get "$d" command_status) == 0 ]] || fail "command_status is not 0"
[[ $(conf_get "$d" devices) == "$dev" && $(conf_get "$d" destination) == "$dev" ]] || fail "devices key wrong"
[[ $(conf_get "$d" "device.$dev.role") == disk ]] || fail "role is not disk"
# A loop device is blk-mq with one hardware queue: one flush in flight
# (wcanalyze's flush pairing, docs/methodology.md).
queues=$(find "/sys/block/$dev/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)
[[ $queues -ge 1 && $(conf_get "$d" "device.$dev.hw_queues") == "$queues" ]] ||
	fail "device.$dev.hw_queues is '$(conf_get "$d" "device.$dev.hw_queues")', /sys/block/$dev/mq has $queues"
[[ $(conf_get "$d" fs) == ext4 && $(conf_get "$d" barrier) == on ]] || fail "fs or barrier key wrong"
[[ $(conf_get "$d" write_cache_method) == none ]] || fail "record mode must not change the write cache"
[[ $(conf_get "$d" journal_sectors) =~ ^[1-9][0-9]*$ ]] || fail "no journal range for a mounted ext4"
parse_dest "$d"
grep -qE ' Q +W.* \[cp\]$| Q +W.* \[kworker' "$d/dest.txt" || fail "the command's writes are not in the trace"
[[ $(cat "/sys/block/$dev/queue/write_cache") == "$wc_before" ]] || fail "write cache changed"
mountpoint -q "$TMP/mnt" || fail "the user's mount is gone"

rc=0
bash "$TOP/capture/wccapture" record --device "$dev" --name failing --recorder tracefs -o "$TMP/out" -- \
	sh -c 'exit 3' 2>"$TMP/log2" || rc=$?
[[ $rc -eq 1 ]] || fail "a failing command: exit $rc, expected 1"
grep -q '^wccapture: command exited with status 3$' "$TMP/log2" || fail "unexpected message: $(tail -n 1 "$TMP/log2")"
d=$(archive_open "$TMP/out/failing.tar.gz")
archive_check "$d" 1
[[ $(conf_get "$d" command_status) == 3 ]] || fail "command_status is not 3"
[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "tracer left on"

rc=0
without_tracefs bash "$TOP/capture/wccapture" record --device "$dev" --name unmounted --recorder tracefs \
	-o "$TMP/out" -- sh -c "dd if=/dev/zero of=$TMP/mnt/z bs=64k count=16 conv=fsync status=none && rm $TMP/mnt/z && sync" \
	2>"$TMP/log3" || rc=$?
[[ $rc -eq 0 ]] || fail "record without tracefs mounted exited $rc: $(tail -n 3 "$TMP/log3")"
d=$(archive_open "$TMP/out/unmounted.tar.gz")
archive_check "$d" 1
parse_dest "$d"
[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "tracer left on after mounting tracefs"
# Where lockdown says it would refuse, blktrace is not even tried: a
# blktrace first in PATH that leaves a mark is never run.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\ntouch %q\nexit 1\n' "$TMP/blktrace-ran" >"$TMP/bin/blktrace"
chmod +x "$TMP/bin/blktrace"
echo "none [integrity] confidentiality" >"$TMP/lockdown"
rc=0
WCCAPTURE_LOCKDOWN=$TMP/lockdown PATH=$TMP/bin:$PATH bash "$TOP/capture/wccapture" record \
	--device "$dev" --name locked -o "$TMP/out" -- true 2>"$TMP/log4" || rc=$?
[[ $rc -eq 0 ]] || fail "record under lockdown exited $rc: $(tail -n 3 "$TMP/log4")"
[[ ! -e $TMP/blktrace-ran ]] || fail "blktrace was tried although lockdown refuses it"
grep -qx "wccapture: recorder: tracefs (kernel lockdown (integrity) refuses blktrace's debugfs relay files; blktrace not tried)" "$TMP/log4" ||
	fail "no lockdown reason: $(head -n 3 "$TMP/log4")"
rc=0
WCCAPTURE_LOCKDOWN=$TMP/lockdown PATH=$TMP/bin:$PATH bash "$TOP/capture/wccapture" record \
	--device "$dev" --name locked2 --recorder blktrace -o "$TMP/out" -- true 2>"$TMP/log5" || rc=$?
[[ $rc -eq 1 && ! -e $TMP/blktrace-ran ]] || fail "--recorder blktrace under lockdown: exit $rc"
grep -q "^wccapture: blktrace: cannot record: kernel lockdown (integrity)" "$TMP/log5" ||
	fail "--recorder blktrace under lockdown: $(cat "$TMP/log5")"
# Without lockdown the probe runs (the same fake blktrace, refused).
echo "[none] integrity confidentiality" >"$TMP/lockdown"
WCCAPTURE_LOCKDOWN=$TMP/lockdown PATH=$TMP/bin:$PATH bash "$TOP/capture/wccapture" record \
	--device "$dev" --name unlocked -o "$TMP/out" -- true 2>"$TMP/log6" || fail "record without lockdown failed: $(tail -n 3 "$TMP/log6")"
[[ -e $TMP/blktrace-ran ]] || fail "blktrace not probed without lockdown"
echo "ok: recorded a command on a mounted ext4"
