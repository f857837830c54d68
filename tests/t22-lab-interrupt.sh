#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t22-lab-interrupt.sh - SIGINT in the middle of a lab run (twice: once
# more during the cleanup) leaves no
# mount, no loop device of its own, no tracing and the write cache as it
# was, and still saves what was recorded as an archive with complete = 0.
# The destination is a loop device given with --device, so the test can
# see its write cache setting come back.  Then SIGINT and SIGTERM during a
# --memory copy, whose sync is made to hang: the lab must stop at once
# with 130 / 143 (not when the copy ends), kill the copy and remove its
# memory cgroup.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

truncate -s 512M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img")
dev=${LOOP#/dev/}
wc=/sys/block/$dev/queue/write_cache
echo "write back" >"$wc"
loops_before=$(losetup -a | wc -l)

# Enough files that the copy is still running when the signal comes.
# Job control on: otherwise a background job starts with SIGINT ignored
# and cannot trap it, unlike wccapture run from a terminal.
set -m
bash "$TOP/capture/wccapture" lab --warmup 0 --fs ext4 --cache off --barrier on \
	--device "$LOOP" --destroy-data --files 4000 --size 40M --recorder tracefs \
	-o "$TMP/out" >"$TMP/table" 2>"$TMP/log" &
BG_PID=$!
set +m
lab_wait_copy "$TMP/log" "$BG_PID"
[[ $(cat "$wc") == "write through" ]] || fail "write cache not turned off during the run"
dest_mount() { findmnt -n -o TARGET --source "/dev/$dev" | sed -n 1p; }
lab_wait_files "$BG_PID" dest_mount
kill -INT "$BG_PID"
# And again while it cleans up, as an impatient user does: the cleanup
# must not be cut short by the second one.
for ((i = 0; i < 200; i++)); do
	grep -qs 'cleaning up' "$TMP/log" && break
	sleep 0.01
done
kill -INT "$BG_PID" 2>/dev/null || true
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 130 ]] || fail "interrupted lab exited $rc, expected 130: $(tail -n 3 "$TMP/log")"
grep -q 'incomplete capture saved as' "$TMP/log" || fail "no incomplete archive reported"

a=$TMP/out/$dev-ext4-cache-off-barrier-on-run1.tar.gz
[[ -f $a ]] || fail "no archive after the interrupt"
d=$(archive_open "$a")
archive_check "$d" 0
[[ $(conf_get "$d" destination) == "$dev" ]] || fail "destination is not $dev"
[[ $(conf_get "$d" "device.$dev.role") == destination ]] || fail "$dev is not the destination"
# The copy may be cut before any writeback reached the destination, but
# the source has been read: every trace parses, and holds some I/O.
io=0
for t in $(conf_get "$d" devices); do
	blkparse -D "$d/trace" -i "$t" >"$TMP/$t.txt" 2>"$TMP/$t.err" || fail "blkparse $t failed"
	[[ ! -s $TMP/$t.err ]] || fail "blkparse $t: $(head -n 3 "$TMP/$t.err")"
	io=$((io + $(grep -c ' [QDC]  *[RW]' "$TMP/$t.txt" || true)))
done
[[ $io -gt 0 ]] || fail "no I/O recorded before the interrupt"

# nothing_left NAME: what every interrupted lab must have undone.
nothing_left() {
	[[ $(cat "$wc") == "write back" ]] || fail "$1: write cache not restored: $(cat "$wc")"
	! grep -q "wccapture\|^/dev/$dev " /proc/self/mounts || fail "$1: mounts left behind"
	[[ $(losetup -a | wc -l) -eq $loops_before ]] || fail "$1: loop devices left attached: $(losetup -a)"
	[[ $(cat "/sys/block/$dev/trace/enable") == 0 ]] || fail "$1: tracing left enabled on $dev"
	[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "$1: tracer left on"
	[[ $(cat /sys/kernel/tracing/options/bin) == 0 ]] || fail "$1: binary trace option left on"
}
nothing_left "SIGINT"
echo "ok: interrupted with $(($(wc -l <"$d/phases.tsv") - 1)) phases done"

# --memory: the copy runs in a subshell in a memory cgroup.  A signal
# used to wait until that subshell ended (cp and sync done; on a slow
# disk, minutes).  Its sync is made to hang here (a sync found first in
# PATH that sleeps when it runs in wccapture's memory cgroup, and passes
# on everywhere else), so a lab that waits for the copy is still running
# long after the signal.
memcg_dir() {
	local d
	for d in /sys/fs/cgroup/memory /sys/fs/cgroup; do
		compgen -G "$d/wccapture.*" || true
	done
}
mkdir -p "$TMP/bin"
real_sync=$(command -v sync)
cat >"$TMP/bin/sync" <<SYNC
#!/bin/bash
if grep -q '/wccapture\.[0-9]*\$' /proc/self/cgroup; then
	echo "\$\$" >"$TMP/sync.pid"
	exec sleep 120
fi
exec $real_sync "\$@"
SYNC
chmod +x "$TMP/bin/sync"
memory_interrupt() {
	local sig=$1 want=$2 out=$TMP/mem-$1 i rc t0 sp st
	rm -f "$TMP/sync.pid"
	set -m
	PATH=$TMP/bin:$PATH bash "$TOP/capture/wccapture" lab --warmup 0 --fs ext4 --cache off --barrier on \
		--device "$LOOP" --destroy-data --files 200 --size 8M --memory 64M \
		--recorder tracefs -o "$out" >/dev/null 2>"$TMP/mem.log" &
	BG_PID=$!
	set +m
	# Up to 90 s: wccapture waits up to a minute for a busy blk tracer.
	for ((i = 0; i < 1800; i++)); do
		[[ -s $TMP/sync.pid ]] && break
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.05
	done
	[[ -s $TMP/sync.pid ]] || fail "--memory $sig: the copy's sync never ran: $(tail -n 3 "$TMP/mem.log")"
	sp=$(cat "$TMP/sync.pid")
	[[ -n $(memcg_dir) ]] || fail "--memory $sig: no memory cgroup during the copy"
	t0=$SECONDS
	kill "-$sig" "$BG_PID"
	# The hanging sync sleeps 120 s: a lab still running after 60 s
	# waits for the copy.
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$BG_PID" 2>/dev/null &&
		fail "--memory $sig: the lab is still running $((SECONDS - t0)) s after SIG$sig (it waits for the copy)"
	rc=0; wait "$BG_PID" || rc=$?
	BG_PID=""
	[[ $rc -eq $want ]] || fail "--memory $sig: lab exited $rc, expected $want: $(tail -n 3 "$TMP/mem.log")"
	grep -q "interrupted by SIG$sig" "$TMP/mem.log" || fail "--memory $sig: no word of the signal"
	# killed, it may stay a zombie a moment until it is reaped
	for ((i = 0; i < 100; i++)); do
		st=$(awk '{ print $3 }' "/proc/$sp/stat" 2>/dev/null || true)
		[[ -z $st || $st == Z ]] && break
		sleep 0.05
	done
	[[ -z $st || $st == Z ]] || fail "--memory $sig: the copy (its sync, pid $sp) still runs"
	[[ -z $(memcg_dir) ]] || fail "--memory $sig: memory cgroup left: $(memcg_dir)"
	d=$(archive_open "$out/$dev-ext4-cache-off-barrier-on-run1.tar.gz")
	archive_check "$d" 0
	nothing_left "--memory $sig"
	echo "ok: --memory copy stopped by SIG$sig, exit $rc after $((SECONDS - t0)) s"
}
memory_interrupt INT 130
memory_interrupt TERM 143
