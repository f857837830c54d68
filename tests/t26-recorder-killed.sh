#!/usr/bin/env bash
# t26-recorder-killed.sh - when wcrecord dies by SIGKILL in the middle of
# a capture (it cannot restore anything itself), wccapture fails with an
# archive marked complete = 0 and puts the tracer and every tracefs
# setting back as they were.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

T=/sys/kernel/tracing
state() {
	local f
	for f in current_tracer trace_clock buffer_size_kb saved_cmdlines_size \
		tracing_on options/bin options/context-info options/record-cmd; do
		echo "$f: $(cat "$T/$f")"
	done
}
before=$(state)
pid=""
cleanup() {
	if [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
	fi
	cleanup_common
}
trap cleanup EXIT

bash "$TOP/capture/wccapture" lab --fs ext4 --cache on --barrier on \
	--files 3000 --size 30M --recorder tracefs -o "$TMP/out" >/dev/null 2>"$TMP/log" &
pid=$!
for ((i = 0; i < 1800; i++)); do
	grep -qs ': copy$' "$TMP/log" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
rec=$(pgrep -P "$pid" -x wcrecord || true)
[[ -n $rec ]] || fail "no wcrecord running under wccapture: $(tail -n 3 "$TMP/log")"
kill -KILL "$rec"
rc=0; wait "$pid" || rc=$?
pid=""
[[ $rc -eq 1 ]] || fail "wccapture exited $rc after its recorder was killed, expected 1"
grep -q 'the recorder failed (exit status 137)' "$TMP/log" || fail "no message about the recorder: $(cat "$TMP/log")"
grep -q 'tracefs settings restored' "$TMP/log" || fail "tracefs not restored: $(cat "$TMP/log")"
[[ $(state) == "$before" ]] || { diff <(echo "$before") <(state); fail "tracefs differs after the recorder was killed"; }
d=$(archive_open "$TMP/out/ext4-cache-on-barrier-on-run1.tar.gz")
[[ $(conf_get "$d" complete) == 0 ]] || fail "the archive is not marked complete = 0"
[[ $(conf_get "$d" events_dropped) == unknown ]] || fail "events_dropped should be unknown"
! grep -q wccapture /proc/self/mounts || fail "mounts left behind"
[[ $(losetup -a) != *wccapture* ]] || fail "loop devices left behind"
echo "ok: recorder killed, everything restored"
