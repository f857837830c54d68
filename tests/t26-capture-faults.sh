#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t26-capture-faults.sh - wccapture lab stopped by SIGINT or SIGTERM at
# each point of a capture (prepared, copying, deleting, packing), and its
# recorder killed with SIGKILL while copying or deleting: every time,
# no mount, no loop device of its own, no tracing and no tracefs setting
# changed is left, the write cache is as it was, the source tree is
# unchanged, the work directory is gone, and what was recorded is saved
# as an archive with complete = 0.
#
# WCCAPTURE_TEST_STOP makes wccapture stop itself (SIGSTOP) at the point
# named, so each fault lands exactly there.  To add a fault: a line at
# the end calling fault_signal or fault_recorder; to add a check on what
# must not be left behind: a line in after_fault.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

work=""

# The destination: a loop device of ours given with --device, so that its
# write cache setting can be seen coming back.
truncate -s 400M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img")
dev=${LOOP#/dev/}
wc=/sys/block/$dev/queue/write_cache
echo "write back" >"$wc"

src=$TMP/src
mkdir -p "$src/a"
cp -a "$TOP/docs" "$TOP/capture" "$src/a/"
snapshot() { (cd "$src" && find . -printf '%p %s %m %T@\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort); }
src_before=$(snapshot)
tracefs_before=$(tracefs_state)
archive=$dev-ext4-cache-off-barrier-on-run1.tar.gz

# lab_stopped NAME POINT: starts a lab run that stops itself at POINT;
# sets pid once it is stopped there, and work to its work directory (the
# machine is shared: what other runs leave is not this test's business).
lab_stopped() {
	local name=$1 point=$2 i before
	before=$(compgen -G '/var/tmp/wccapture.*' || true)
	# Job control on: a background job otherwise starts with SIGINT
	# ignored and could not trap it, unlike wccapture run from a terminal.
	set -m
	WCCAPTURE_TEST_STOP=$point bash "$TOP/capture/wccapture" lab --warmup 0 --fs ext4 --cache off \
		--barrier on --device "$LOOP" --destroy-data --source "$src" --recorder tracefs \
		-o "$TMP/$name" >/dev/null 2>"$TMP/$name.log" &
	BG_PID=$!
	set +m
	# Up to 90 s: wccapture waits up to a minute for a busy blk tracer.
	for ((i = 0; i < 1800; i++)); do
		if [[ $(awk '{ print $3 }' "/proc/$BG_PID/stat" 2>/dev/null) == T ]]; then
			work=$(comm -13 <(echo "$before") <(compgen -G '/var/tmp/wccapture.*' || true))
			[[ $work == /var/tmp/wccapture.* && $work != *$'\n'* ]] ||
				fail "$name: cannot tell wccapture's work directory: '$work'"
			return 0
		fi
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.05
	done
	fail "$name: wccapture never stopped at $point: $(tail -n 3 "$TMP/$name.log")"
}

# resume NAME WANT: lets the stopped run go on and waits for exit WANT.
resume() {
	local name=$1 want=$2 rc=0
	kill -CONT "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=""
	[[ $rc -eq $want ]] || fail "$name: wccapture exited $rc, expected $want: $(tail -n 3 "$TMP/$name.log")"
}

# after_fault NAME: nothing left behind, an incomplete archive saved.
after_fault() {
	local name=$1 d
	! grep -qF "$work" /proc/self/mounts || fail "$name: mounts left behind"
	! grep -q "^$LOOP " /proc/self/mounts || fail "$name: $LOOP left mounted"
	[[ $(losetup -a) != *"$work"* ]] || fail "$name: loop devices left attached"
	losetup "$LOOP" >/dev/null 2>&1 || fail "$name: $LOOP (not wccapture's) was detached"
	[[ $(cat "/sys/block/$dev/trace/enable") == 0 ]] || fail "$name: tracing left enabled on $dev"
	[[ $(tracefs_state) == "$tracefs_before" ]] ||
		{ diff <(echo "$tracefs_before") <(tracefs_state) >&2; fail "$name: tracefs settings not restored"; }
	[[ $(cat "$wc") == "write back" ]] || fail "$name: write cache not restored: $(cat "$wc")"
	[[ $(snapshot) == "$src_before" ]] || fail "$name: the source tree changed"
	[[ ! -e $work ]] || fail "$name: work directory $work left behind"
	[[ -f $TMP/$name/$archive ]] || fail "$name: no archive saved: $(tail -n 3 "$TMP/$name.log")"
	d=$(archive_open "$TMP/$name/$archive")
	[[ $(conf_get "$d" complete) == 0 ]] || fail "$name: the archive is not marked complete = 0"
	echo "$name: ok"
}

# fault_signal POINT SIG: SIG reaches wccapture at POINT.
fault_signal() {
	local point=$1 sig=$2 name=$1-$2 want
	case $sig in INT) want=130 ;; TERM) want=143 ;; esac
	lab_stopped "$name" "$point"
	kill "-$sig" "$BG_PID"
	resume "$name" "$want"
	grep -q "interrupted by SIG$sig" "$TMP/$name.log" || fail "$name: no word of the signal"
	after_fault "$name"
}

# fault_recorder POINT: the recorder dies by SIGKILL at POINT; it cannot
# restore anything itself, wccapture must.
fault_recorder() {
	local point=$1 name=$1-recorder rec
	lab_stopped "$name" "$point"
	rec=$(pgrep -P "$BG_PID" -x wcrecord || true)
	[[ -n $rec ]] || fail "$name: no wcrecord running under wccapture"
	kill -KILL "$rec"
	resume "$name" 1
	grep -q 'the recorder failed (exit status 137)' "$TMP/$name.log" || fail "$name: no word of the recorder: $(cat "$TMP/$name.log")"
	grep -q 'tracefs settings restored' "$TMP/$name.log" || fail "$name: tracefs not restored: $(cat "$TMP/$name.log")"
	after_fault "$name"
	[[ $(conf_get "$TMP/x/${archive%.tar.gz}" events_dropped) == unknown ]] || fail "$name: events_dropped should be unknown"
}

for point in prepare copy delete archive; do
	fault_signal "$point" INT
	fault_signal "$point" TERM
done
fault_recorder copy
fault_recorder delete
