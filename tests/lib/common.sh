# SPDX-License-Identifier: GPL-2.0-or-later
# common.sh - sourced by the shell tests (tests/t*.sh).
#
# Gives: $TOP, $BUILD, $WCANALYZE, $WCRECORD, $WCSYNTH, a scratch $TMP
# removed at exit, and:
#   skip MSG      exit 77 (a failure under WCANALYZE_STRICT=1)
#   fail MSG      print and exit 1
#   need_root     skip unless root with loop devices; then wait for any
#                 other root test on this machine to end, and mount
#                 tracefs on $TRACEFS if it is not (unmounted at exit:
#                 a test that sets its own EXIT trap calls cleanup_common);
#                 a tracer left on with no reader is switched off
#                 (tracer_reclaim)
#                 WCANALYZE_SKIP_ROOT=1 makes it skip in any case, with a
#                 line run-tests.sh counts as a skip even under
#                 WCANALYZE_STRICT=1 (CI's sanitizer run: the part of each
#                 test before need_root still runs)
#   expect_exit N CMD...   run CMD, fail unless it exits N
#   samples_pick FILE...  prints, one a line, the captures of samples/
#                 among FILE... a test re-reads: all of them with
#                 WCANALYZE_SLOW=1 (make check-slow, CI), else three
#                 ($SAMPLES_QUICK: one per file system, both disks,
#                 cache and barriers on and off), to keep make check
#                 in minutes
#   own_build DIR a copy of $BUILD in DIR (objects, flags, times), for a
#                 test that builds or installs: make check runs the tests
#                 side by side on $BUILD's programs, which no test may
#                 rebuild for another PREFIX under the others' feet
#   without_tracefs CMD... run CMD (after need_root) in a mount namespace
#                 of its own where tracefs is not mounted, as on a machine
#                 booted without it; fail if CMD leaves it mounted there;
#                 return CMD's status
#   lab_wait_copy LOG PID   wait until the wccapture lab running as PID
#                 says in LOG that its copy starts; fail if it never does,
#                 with what the job's processes are waiting on (job_state)
#   lab_wait_files PID CMD... wait until the mount point CMD prints holds
#                 a file below its top level; set LAB_MNT to it
#   BG_PID, LOOP  a test's background job and loop device, undone at
#                 exit by cleanup_common where set: the job gets SIGTERM
#                 and SIGCONT (were it left stopped), never SIGKILL, and is
#                 waited for, so that wccapture or wcrecord undoes its
#                 mounts, loop devices and tracing even when a check
#                 failed; then the device is unmounted where it is still
#                 mounted, and detached.  A test sets BG_PID="" once it
#                 has waited for the job itself.
# shellcheck shell=bash
set -euo pipefail

TOP=${WC_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
WCANALYZE=$BUILD/wcanalyze
WCRECORD=$BUILD/wcrecord
WCSYNTH=$BUILD/tests/wcsynth
export TOP BUILD WCANALYZE WCRECORD WCSYNTH

TRACEFS=/sys/kernel/tracing
TRACEFS_MOUNTED=0

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wctest.XXXXXX")
BG_PID="" LOOP=""
cleanup_common() {
	if [[ -n $BG_PID ]] && kill -TERM "$BG_PID" 2>/dev/null; then
		kill -CONT "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	# before $TMP goes: a device a test mounted in it holds its files
	if [[ -n $LOOP ]]; then
		umount -q "$LOOP" 2>/dev/null || true
		losetup -d "$LOOP" 2>/dev/null || true
	fi
	rm -rf "$TMP"
	if [[ $TRACEFS_MOUNTED == 1 ]]; then
		umount "$TRACEFS" || echo "cannot unmount $TRACEFS" >&2
	fi
	return 0
}
trap cleanup_common EXIT

skip() { echo "skip: $*"; exit 77; }

SAMPLES_QUICK=(hdd7200-xfs-cache-on-barrier-on-run1
	hdd7200-ext3-cache-off-barrier-off-run1 ssd-ext4-cache-on-barrier-off-run1)
samples_pick() {
	local f name q
	for f in "$@"; do
		[[ -e $f ]] || continue
		if [[ ${WCANALYZE_SLOW:-0} != 1 ]]; then
			name=${f##*/}
			name=${name%%.t*}
			for q in "${SAMPLES_QUICK[@]}"; do
				[[ $name == "$q" ]] && break
			done
			[[ $name == "$q" ]] || continue
		fi
		printf '%s\n' "$f"
	done
}

own_build() {
	[[ -f $BUILD/build-flags ]] || fail "no build in $BUILD"
	cp -a --reflink=auto "$BUILD" "$1" || fail "cannot copy $BUILD to $1"
}
SKIP_ROOT_MSG="root part not run (WCANALYZE_SKIP_ROOT=1)"
fail() { echo "FAIL: $*" >&2; exit 1; }

# show_diff A B [LINES]: the first LINES (20) lines of diff A B, on
# standard error.  sed reads diff to the end (head would cut it by
# SIGPIPE); diff's status 1 is not the test's.
show_diff() { diff "$1" "$2" | sed -n "1,${3:-20}p" >&2 || true; }

need_root() {
	[[ ${WCANALYZE_SKIP_ROOT:-0} != 1 ]] || skip "$SKIP_ROOT_MSG"
	[[ $(id -u) -eq 0 ]] || skip "needs root"
	[[ -e /dev/loop-control ]] || skip "needs loop devices"
	[[ -d $TRACEFS ]] || skip "needs tracefs (no $TRACEFS in this kernel)"
	# tracefs, loop devices and mounts are one per machine: two test runs
	# (two work trees, or make check beside a lab) must take turns.
	exec 9>/run/lock/wcanalyze-root.lock
	local since=$SECONDS
	flock 9
	# run-tests.sh shows this beside the test's seconds: the root tests'
	# time on the lock is a critical path of make check's own.
	echo "root lock: waited $((SECONDS - since)) s"
	# A machine may boot without tracefs mounted (no debugfs either);
	# the programs mount it themselves, the tests read it directly.
	if [[ ! -e $TRACEFS/current_tracer ]]; then
		mount -t tracefs nodev "$TRACEFS" || fail "cannot mount tracefs on $TRACEFS"
		TRACEFS_MOUNTED=1
	fi
	tracer_reclaim
	# A ring buffer never used since boot reads "7 (expanded: 1408)"; the
	# first tracer expands it for good, to whole pages (1410).  No program
	# can undo that, so tests that compare the settings before and after
	# start from the expanded state.
	local kb
	kb=$(cat "$TRACEFS/buffer_size_kb")
	if [[ $kb =~ expanded:\ ([0-9]+) ]]; then
		echo "${BASH_REMATCH[1]}" >"$TRACEFS/buffer_size_kb"
	fi
}

# tracer_reclaim: with the root lock held, a tracer that is on while no
# process reads a trace pipe was left by a recorder killed outright
# (SIGKILL: a session or a CI step cut short, which no trap survives).
# No test run can own it, and every recording test would wait a minute
# and fail on it, so it is switched off, with a line saying so, and
# the devices it traced stop being traced.  A tracer that somebody is
# still reading is left alone: the tests then wait for it, or skip.
tracer_reclaim() {
	local cur f
	cur=$(cat "$TRACEFS/current_tracer")
	[[ $cur != nop ]] || return 0
	[[ -z $(find /proc/[0-9]*/fd -maxdepth 1 -lname '*/trace_pipe*' -print -quit 2>/dev/null) ]] ||
		return 0
	echo "note: tracer '$cur' left on with no reader (a recorder killed outright): switched off" >&2
	for f in /sys/block/*/trace/enable; do
		[[ $(cat "$f" 2>/dev/null) == 0 ]] || echo 0 >"$f" 2>/dev/null || true
	done
	echo nop >"$TRACEFS/current_tracer"
}

expect_exit() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[[ $rc -eq $want ]] || fail "'$*' exited $rc, expected $want"
}

without_tracefs() {
	local rc=0
	# Private: what CMD mounts and unmounts stays in the namespace, the
	# tracefs the test reads stays put (it is one instance: the settings
	# CMD changes are the same ones).  debugfs goes too: it would offer
	# tracefs again under debug/tracing.
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m --propagation private bash -c '
		t=$1; shift
		umount "$t"
		if mountpoint -q /sys/kernel/debug; then umount -l /sys/kernel/debug; fi
		[[ ! -e $t/current_tracer ]] || { echo "$t: still mounted" >&2; exit 98; }
		rc=0; "$@" || rc=$?
		mountpoint -q "$t" && { echo "$t: left mounted" >&2; exit 98; }
		exit "$rc"' without_tracefs "$TRACEFS" "$@" || rc=$?
	[[ $rc -ne 98 ]] || fail "without_tracefs $*: tracefs mounted where it must not be"
	return "$rc"
}

lab_wait_copy() {
	local log=$1 pid=$2 i
	# Up to 90 s: wccapture waits up to a minute for a busy blk tracer.
	for ((i = 0; i < 1800; i++)); do
		grep -qs ': copy$' "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	grep -q ': copy$' "$log" || fail "the copy phase never started after ${i}/1800 polls: $(tail -n 3 "$log")
$(job_state "$pid")"
}

# What a job still running is doing, for a failure message: each of its
# processes with state, kernel wait channel and age.
job_state() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || { echo "(the job has exited)"; return 0; }
	ps -e -o pgid=,pid=,ppid=,stat=,wchan:24=,etimes=,args= 2>/dev/null |
		awk -v g="$(ps -o pgid= -p "$pid" | tr -d ' ')" '$1 == g' | cut -c 1-200 || true
}

lab_wait_files() {
	local pid=$1 i
	shift
	# ": copy" is said just before cp starts: a lab signalled at once was
	# sometimes cut before cp read anything, and its trace held no I/O.
	LAB_MNT=""
	for ((i = 0; i < 200; i++)); do
		LAB_MNT=$("$@" || true)
		[[ -n $LAB_MNT && -n $(find "$LAB_MNT" -mindepth 2 -type f -print -quit 2>/dev/null) ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
}
