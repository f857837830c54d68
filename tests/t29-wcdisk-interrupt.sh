#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t29-wcdisk-interrupt.sh - a lab on the model disk that loses its wcdisk
# daemon (SIGKILL) in the middle of the copy fails, and one interrupted
# by SIGINT exits 130 with an incomplete archive; either way nothing is
# left: no FUSE mount, no wcdisk, no loop device, and the loop devices'
# write_cache settings are as they were (they outlive the attachment: the
# next user would inherit them; rotational is set again by every attach).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait
need_wcdisk

dest_mount() { findmnt -n -o TARGET -t ext4 | grep '/wccapture\.[^/]*/dst$' | sed -n 1p; }

# Starts a lab whose copy takes a while, waits until the copy writes to
# the model disk; sets pid and the destination's daemon wdpid.
start_lab() {
	local out=$1
	# Emptied here, not only by the job's redirection: under load the
	# job may not have run when lab_wait_copy first reads the log, which
	# then still holds the previous lab's ": copy" (seen: "never started
	# after 0/1800 polls").
	: >"$TMP/log"
	set -m
	bash "$TOP/capture/wccapture" lab --warmup 0 --disk hdd7200 --fs ext4 --cache on --barrier on \
		--workload fsync --files 3000 --size 12M --recorder tracefs \
		-o "$out" >/dev/null 2>"$TMP/log" &
	BG_PID=$!
	set +m
	lab_wait_copy "$TMP/log" "$BG_PID"
	wdpid=$(pgrep -x wcdisk | sed -n 1p || true)
	[[ -n $wdpid ]] || fail "no wcdisk running during the copy"
	# some files on the destination, so the daemon serves the filesystem
	lab_wait_files "$BG_PID" dest_mount
	[[ -n $LAB_MNT ]] || fail "no destination mount during the copy"
	wdpid=$(pgrep -x wcdisk | sed -n 1p || true)
	[[ -n $wdpid ]] || fail "no wcdisk running during the copy: $(tail -n 3 "$TMP/log")"
}

nothing_left() {
	! grep -q 'wcdisk' /proc/self/mounts || fail "$1: a wcdisk FUSE mount is left: $(grep wcdisk /proc/self/mounts)"
	! pgrep -x wcdisk >/dev/null || fail "$1: a wcdisk daemon is left"
	[[ $(losetup -a) != *wccapture* ]] || fail "$1: loop devices left: $(losetup -a)"
	! grep -q wccapture /proc/self/mounts || fail "$1: mounts left behind"
	loop_settings_kept "$before" "$1"
	if compgen -G '/sys/fs/cgroup/memory/wccapture.*' >/dev/null ||
		compgen -G '/sys/fs/cgroup/wccapture.*' >/dev/null; then
		fail "$1: memory cgroup left"
	fi
}

before=$(loop_settings)

# 1. The daemon dies: the loop device fails every request; the lab must
# stop with an error and clean up (the dead mount included).
start_lab "$TMP/out1"
kill -KILL "$wdpid" || fail "wcdisk $wdpid gone before it was killed: $(tail -n 3 "$TMP/log")"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 1 ]] || fail "lab exited $rc after wcdisk was killed, expected 1: $(tail -n 3 "$TMP/log")"
nothing_left "wcdisk killed"
echo "ok: wcdisk killed: $(grep -m 1 -E 'failed|error' "$TMP/log" || tail -n 1 "$TMP/log")"

# 2. Ctrl-C: exit 130, an incomplete archive, nothing left.
start_lab "$TMP/out2"
kill -INT "$BG_PID"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 130 ]] || fail "interrupted lab exited $rc, expected 130: $(tail -n 3 "$TMP/log")"
a=$TMP/out2/hdd7200-ext4-cache-on-barrier-on-run1.tar.gz
[[ -f $a ]] || fail "no archive after the interrupt"
d=$(archive_open "$a")
archive_check "$d" 0
nothing_left "interrupted"
echo "ok: interrupted"
