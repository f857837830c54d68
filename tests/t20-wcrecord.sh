#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t20-wcrecord.sh - wcrecord records a loop device through tracefs into
# per-CPU files that blkparse and btt read without complaint, names the
# processes, stops cleanly on SIGTERM and SIGINT, refuses a device that is
# already traced, and leaves every tracefs setting as it found it; it
# mounts tracefs when it is not mounted and unmounts only that mount.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

fix=$TOP/tests/fixtures/capture

# Command-line errors first: they need nothing but the program.
"$WCRECORD" --help >"$TMP/help.out"
cmp -s "$TMP/help.out" "$fix/wcrecord-help.txt" || { diff "$fix/wcrecord-help.txt" "$TMP/help.out"; fail "--help differs"; }
expect_exit 2 "$WCRECORD" 2>/dev/null
expect_exit 2 "$WCRECORD" -d /nonexistent -o "$TMP/o" 2>/dev/null
expect_exit 2 "$WCRECORD" -d /dev/null -o "$TMP/o" 2>/dev/null
expect_exit 2 "$WCRECORD" -b 12 -d "$TMP" -o "$TMP/o" 2>/dev/null
{
	"$WCRECORD" -o "$TMP/o" 2>&1 | sed -n 1p || true
	"$WCRECORD" -d /dev/null -o "$TMP/o" 2>&1 || true
	"$WCRECORD" -w x -o "$TMP/o" 2>&1 || true
} >"$TMP/errors.out"
cmp -s "$TMP/errors.out" "$fix/wcrecord-errors.txt" || { diff "$fix/wcrecord-errors.txt" "$TMP/errors.out"; fail "error messages differ"; }

# --now is CLOCK_MONOTONIC, the clock of /proc/uptime (no suspend here).
now=$("$WCRECORD" --now)
up=$(cut -d ' ' -f 1 /proc/uptime)
awk -v n="$now" -v u="$up" 'BEGIN { d = n / 1e9 - u; exit !(d > -2 && d < 2) }' ||
	fail "--now $now is not the monotonic clock (uptime $up)"

need_root
T=/sys/kernel/tracing
tracer_wait

state() {
	local f
	for f in current_tracer trace_clock buffer_size_kb saved_cmdlines_size \
		tracing_on options/bin options/context-info options/record-cmd; do
		echo "$f: $(cat "$T/$f")"
	done
	echo "enable: $(cat "/sys/block/${LOOP#/dev/}/trace/enable")"
}

truncate -s 128M "$TMP/img"
LOOP=$(losetup -f --show "$TMP/img")
dev=${LOOP#/dev/}
mkfs.ext4 -q -F "$LOOP"
mkdir "$TMP/mnt"
before=$(state)

# 1. A command traced from start to end.
"$WCRECORD" -d "$LOOP" -o "$TMP/t1" -b 8192 --stats "$TMP/t1.stats" -- \
	sh -c "mount $LOOP $TMP/mnt && dd if=/dev/zero of=$TMP/mnt/f bs=64k count=64 status=none &&
	       sync && rm $TMP/mnt/f && sync && umount $TMP/mnt" 2>"$TMP/t1.err" ||
	fail "wcrecord with a command failed: $(cat "$TMP/t1.err")"
[[ $(state) == "$before" ]] || { diff <(echo "$before") <(state); fail "tracefs not restored after a command"; }
ncpu=$(find $T/per_cpu -maxdepth 1 -name 'cpu[0-9]*' | wc -l)
for ((c = 0; c < ncpu; c++)); do
	[[ -e $TMP/t1/$dev.blktrace.$c ]] || fail "no $dev.blktrace.$c (blkparse needs every CPU)"
done
grep -qx 'events_dropped = 0' "$TMP/t1.stats" || fail "events dropped: $(cat "$TMP/t1.stats")"
grep -qx 'invalid_bytes = 0' "$TMP/t1.stats" || fail "invalid bytes: $(cat "$TMP/t1.stats")"
events=$(sed -n 's/^events = //p' "$TMP/t1.stats")
[[ $events -gt 50 ]] || fail "only $events events recorded"
blkparse -D "$TMP/t1" -i "$dev" -d "$TMP/t1.bin" >"$TMP/t1.txt" 2>"$TMP/t1.bperr" ||
	fail "blkparse failed: $(cat "$TMP/t1.bperr")"
[[ ! -s $TMP/t1.bperr ]] || fail "blkparse complained: $(head -n 3 "$TMP/t1.bperr")"
n=$(sed -n "s/^Events ($dev): \([0-9]*\) entries$/\1/p" "$TMP/t1.txt")
[[ $n -eq $events ]] || fail "blkparse shows $n events, wcrecord wrote $events"
# Process names come from the notify records wcrecord adds.
grep -qE ' Q +R.* \[mount\]$' "$TMP/t1.txt" || fail "no read queued by [mount] (process notify records)"
grep -qE ' Q +W.* \[jbd2/' "$TMP/t1.txt" || fail "no write queued by [jbd2/...] (process notify records)"
grep -q 'Skips: 0 forward' "$TMP/t1.txt" || fail "blkparse reports skipped sequence numbers"
(cd "$TMP" && btt -i "$TMP/t1.bin") >"$TMP/t1.btt" 2>&1 || fail "btt failed: $(head -n 3 "$TMP/t1.btt")"
grep -q '^D2C ' "$TMP/t1.btt" || fail "btt found no D2C times"

# 2. No command: SIGTERM is the normal way to stop, exit 0.
"$WCRECORD" -d "$dev" -o "$TMP/t2" --ready "$TMP/t2.ready" 2>"$TMP/t2.err" &
BG_PID=$!
for ((i = 0; i < 100; i++)); do [[ -e $TMP/t2.ready ]] && break; sleep 0.05; done
[[ -e $TMP/t2.ready ]] || fail "wcrecord never became ready: $(cat "$TMP/t2.err")"
[[ $(cat "/sys/block/$dev/trace/enable") == 1 ]] || fail "device tracing not enabled while recording"
dd if="$LOOP" of=/dev/null bs=4k count=16 iflag=direct status=none
kill -TERM "$BG_PID"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 0 ]] || fail "stopped by SIGTERM, exit $rc: $(cat "$TMP/t2.err")"
[[ $(state) == "$before" ]] || fail "tracefs not restored after SIGTERM"
# Into a file: "| grep -q" can end blkparse with SIGPIPE under pipefail.
blkparse -D "$TMP/t2" -i "$dev" >"$TMP/t2.txt" 2>&1 || fail "blkparse of the SIGTERM run failed"
grep -qE ' Q +RS? .*\[dd\]$' "$TMP/t2.txt" || fail "reads of the SIGTERM run not recorded"

# 3. SIGINT while a command runs: the command is interrupted, exit 130.
"$WCRECORD" -d "$dev" -o "$TMP/t3" --ready "$TMP/t3.ready" -- sleep 30 2>"$TMP/t3.err" &
BG_PID=$!
for ((i = 0; i < 100; i++)); do [[ -e $TMP/t3.ready ]] && break; sleep 0.05; done
kill -INT "$BG_PID"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 130 ]] || fail "SIGINT during a command: exit $rc, expected 130"
[[ $(state) == "$before" ]] || fail "tracefs not restored after SIGINT"

# 3b. A SIGINT that comes before the command starts (here: pending when
# wcrecord starts, from a parent that blocked it) still interrupts the
# command, which is not left running: exit 130, and quickly.
start=$("$WCRECORD" --now)
rc=0
perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGINT));
	kill "INT", $$; exec @ARGV or exit 127' -- \
	"$WCRECORD" -d "$dev" -o "$TMP/t3b" -- sleep 6 2>"$TMP/t3b.err" || rc=$?
took=$(($("$WCRECORD" --now) - start))
[[ $rc -eq 130 ]] || fail "SIGINT before the command: exit $rc, expected 130: $(cat "$TMP/t3b.err")"
[[ $took -lt 5000000000 ]] || fail "SIGINT before the command: the command ran on ($took ns)"
[[ $(state) == "$before" ]] || fail "tracefs not restored after an early SIGINT"

# 4. -w: stops by itself.
start=$("$WCRECORD" --now)
"$WCRECORD" -d "$dev" -o "$TMP/t5" -w 0.5 2>"$TMP/t5.err" || fail "-w 0.5 failed: $(cat "$TMP/t5.err")"
took=$(($("$WCRECORD" --now) - start))
[[ $took -ge 500000000 && $took -lt 5000000000 ]] || fail "-w 0.5 took $took ns"
[[ $(state) == "$before" ]] || fail "tracefs not restored after -w"

# 5. A device already traced by someone else is refused, nothing changed.
echo 1 >"/sys/block/$dev/trace/enable"
rc=0; "$WCRECORD" -d "$dev" -o "$TMP/t4" 2>"$TMP/t4.err" || rc=$?
echo 0 >"/sys/block/$dev/trace/enable"
[[ $rc -eq 1 ]] || fail "an already traced device: exit $rc, expected 1"
grep -q "$dev is already being traced" "$TMP/t4.err" || fail "unexpected message: $(cat "$TMP/t4.err")"
[[ $(state) == "$before" ]] || fail "tracefs changed by a refused run"
# 6. tracefs mounted before (every run above): still mounted after.
# Not mounted: wcrecord mounts it, records, and unmounts it again.
mountpoint -q "$T" || fail "wcrecord unmounted a tracefs it had not mounted"
rc=0
without_tracefs "$WCRECORD" -d "$dev" -o "$TMP/t6" -w 0.3 --stats "$TMP/t6.stats" 2>"$TMP/t6.err" || rc=$?
[[ $rc -eq 0 ]] || fail "wcrecord without tracefs mounted: exit $rc: $(cat "$TMP/t6.err")"
grep -q '^events = ' "$TMP/t6.stats" || fail "no stats from the run without tracefs mounted"
[[ -e $TMP/t6/$dev.blktrace.0 ]] || fail "nothing recorded without tracefs mounted"
[[ $(state) == "$before" ]] || { diff <(echo "$before") <(state); fail "tracefs not restored after mounting it"; }
echo "ok: $events events; blkparse and btt read them"
