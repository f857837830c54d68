# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# common.sh - what every wccapture subcommand needs: messages, the state
# the EXIT trap undoes and the trap itself, capture.conf's values of the
# capture in progress, device names and sizes, mounts and loop devices.
# Sourced by capture/wccapture, with the other files of capture/lib.

# Messages go to fd 4, a copy of the original stderr: a trap can run
# while a phase has stderr redirected to its timing file.
exec 4>&2
say() { printf '%s: %s\n' "$PROG" "$*" >&4; }
die() { say "$*"; exit 1; }
# A bad command line: the mistake, and where the help is (not the whole
# usage, which would bury the one line that matters).
HELP_HINT="wccapture --help"
usage_error() { say "$*"; say "try '$HELP_HINT'"; exit 2; }

# ---------------------------------------------------------------- state
# Everything the EXIT trap must undo, newest last.
WORK=""
MOUNTS=()
LOOPS=()
LOOP_IMAGES=()          # images we attach: what LOOPS may not know yet
CACHE_RESTORE=()        # "DEV METHOD OLD" entries
TRACED=()               # devices a recorder may have left enabled
REC_PID=""
REC_KIND=""
DEBUGFS_MOUNTED=0
DISK_MNT=""             # wcdisk's FUSE mount point, while it may be mounted
ONE_DISK=0              # lab: source and destination on one model disk
PLACEMENT=platter       # lab: partitions or platter (--placement)
DISK_PID=""
DISK_EXTRA=()           # more wcdisk options (crash: --platter-log)
PLACE_ARGS=()           # lab: where wcdisk places its images (--offset auto)
MEMCG=""                # the copy's memory cgroup, while it exists
VM_FOUND=()             # "KEY VALUE" of /proc/sys/vm as found, while changed
COPY_PID=""             # the copy running in it, until it is waited for
STAGE=""                # capture being recorded, not yet archived
COUNTED=()              # devices whose counters the capture keeps
OUTDIR=$PWD

# capture.conf values of the capture in progress
declare -A CONF=()
CONF_KEYS=()

conf() {
	local k=$1 v=$2
	[[ -v "CONF[$k]" ]] || CONF_KEYS+=("$k")
	CONF[$k]=$v
}

conf_reset() {
	CONF=()
	CONF_KEYS=()
}

find_wcrecord() {
	local here
	here=$HERE
	if [[ -n ${WCRECORD:-} && -x ${WCRECORD:-} ]]; then
		echo "$WCRECORD"
	elif [[ -x $here/wcrecord ]]; then
		echo "$here/wcrecord"
	elif [[ -n ${BUILD:-} && -x ${BUILD:-}/wcrecord ]]; then
		echo "$BUILD/wcrecord"
	elif [[ -x $here/../build/wcrecord ]]; then
		echo "$here/../build/wcrecord"
	elif command -v wcrecord >/dev/null 2>&1; then
		command -v wcrecord
	else
		return 1
	fi
}

now_ns() { "$WCRECORD" --now; }

# Kernel name of a block device given as /dev/X, a symlink, or X.
kname() {
	local d=$1
	[[ $d == */* ]] && d=$(readlink -f "$d")
	d=${d##*/}
	[[ -e /sys/class/block/$d/dev ]] || return 1
	echo "$d"
}

# The block devices of this machine that hold something (size above 0),
# as a list for a message: what the user may have meant.
block_devices() {
	local d list=() more=0
	for d in /sys/class/block/*; do
		[[ -e $d/size && $(cat "$d/size") != 0 ]] || continue
		if ((${#list[@]} < 24)); then
			list+=("/dev/${d##*/}")
		else
			more=$((more + 1))
		fi
	done
	if ((${#list[@]} == 0)); then
		echo none
	elif ((more)); then
		echo "${list[*]} and $more more"
	else
		echo "${list[*]}"
	fi
}

# Sets BLOCK_DEV to the kernel name of device $1, or refuses it: a name
# that is no block device (the devices that exist are listed), a loop
# device attached to nothing, a device without media.  Nothing recorded
# on such a device would mean anything.
block_device() {
	local dev=$1 n
	BLOCK_DEV=""
	if ! n=$(kname "$dev") || [[ ! -b /dev/$n ]]; then
		die "$dev: no such block device; block devices here: $(block_devices)"
	fi
	if [[ $n == loop* && ! -e /sys/class/block/$n/loop/backing_file ]]; then
		die "/dev/$n: a loop device attached to no file (losetup -f --show IMAGE attaches one)"
	fi
	[[ $(cat "/sys/class/block/$n/size" 2>/dev/null || echo 0) != 0 ]] ||
		die "/dev/$n: no media (its size is 0)"
	BLOCK_DEV=$n
}

# The whole disk holding a partition (the name itself for a disk).
disk_of() {
	local n=$1
	if [[ -e /sys/class/block/$n/partition ]]; then
		basename "$(readlink -f "/sys/class/block/$n/..")"
	else
		echo "$n"
	fi
}

part_start() {
	local n=$1
	if [[ -e /sys/class/block/$n/partition ]]; then
		cat "/sys/class/block/$n/start"
	else
		echo 0
	fi
}

parse_size() {
	local s=$1 n u
	[[ $s =~ ^([0-9]+)([KkMmGg]?)[Bb]?$ ]] || return 1
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
	case $u in
	K | k) n=$((n * 1024)) ;;
	M | m) n=$((n * 1024 * 1024)) ;;
	G | g) n=$((n * 1024 * 1024 * 1024)) ;;
	esac
	echo "$n"
}

# ---------------------------------------------------------------- cleanup
# For the fault tests (tests/t26-capture-faults.sh):
# WCCAPTURE_TEST_STOP=POINT stops this script with SIGSTOP at POINT
# (prepare, copy, delete, command, archive), once, so that a test can signal it or its recorder exactly there.
test_stop() {
	[[ ${WCCAPTURE_TEST_STOP:-} == "$1" ]] || return 0
	WCCAPTURE_TEST_STOP=""
	say "stopped at $1 (WCCAPTURE_TEST_STOP)"
	kill -STOP "$BASHPID"
}

on_signal() {
	say "interrupted by SIG$1; cleaning up"
	case $1 in
	INT) exit 130 ;;
	TERM) exit 143 ;;
	*) exit 129 ;;
	esac
}

cleanup() {
	local rc=$? i d e
	set +e
	# Ignored, not reset: a second Ctrl-C during the archive must not kill
	# us before the mounts, loop devices and cache settings are undone.
	trap '' INT TERM HUP
	# an interrupted --memory copy runs on: stop it before the archive
	# and the unmounts
	memcg_kill
	if [[ -n $REC_PID ]]; then
		recorder_stop "${STAGE:+$STAGE/info/recorder.log}"
		[[ -z $STAGE ]] || conf events_dropped "$REC_DROPPED"
	fi
	if [[ -n $STAGE ]]; then
		d=${STAGE##*/}
		[[ -v "CONF[events_dropped]" ]] || conf events_dropped unknown
		conf complete 0
		capture_archive && say "incomplete capture saved as $OUTDIR/$d.tar.gz"
	fi
	# A recorder killed outright cannot restore what it changed: wcrecord
	# left its undo file, blktrace may have left a device traced.
	if [[ -n $WORK && -e $WORK/undo ]] &&
		"$WCRECORD" --restore "$WORK/undo" 2>&4; then
		say "tracefs settings restored after the recorder died"
	fi
	for d in "${TRACED[@]}"; do
		e=/sys/class/block/$d/trace/enable
		[[ -e $e && $(cat "$e") == 1 ]] && echo 0 >"$e"
	done
	[[ $TRACEFS_MOUNTED == 1 ]] && umount_retry "$TRACEFS"
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount_retry "${MOUNTS[i]}"
	done
	MOUNTS=()
	for ((i = ${#CACHE_RESTORE[@]} - 1; i >= 0; i--)); do
		cache_restore_one "${CACHE_RESTORE[i]}"
	done
	CACHE_RESTORE=()
	for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do
		losetup -d "${LOOPS[i]}" 2>/dev/null
	done
	LOOPS=()
	# A signal between "losetup --show" and noting its answer leaves a
	# device attached that LOOPS never heard of: find it by its image.
	for i in "${LOOP_IMAGES[@]}"; do
		for d in $(losetup -n -O NAME -j "$i" 2>/dev/null); do
			losetup -d "$d" 2>/dev/null
		done
	done
	LOOP_IMAGES=()
	disk_stop
	memcg_remove
	vm_dirty_restore
	[[ $DEBUGFS_MOUNTED == 1 ]] && umount /sys/kernel/debug
	[[ -n $WORK ]] && rm -rf "$WORK"
	exit "$rc"
}

umount_retry() {
	local m=$1 n
	for n in 1 2 3 4 5; do
		umount "$m" 2>/dev/null && return 0
		mountpoint -q "$m" || return 0
		sleep "0.$n"
	done
	say "$m: cannot unmount"
	return 1
}

mount_fs() {
	local dev=$1 mnt=$2
	shift 2
	mkdir -p "$mnt"
	# Noted first: a signal right after mount(8) returns must still find
	# it (umount_retry passes over a mountpoint that is not mounted).
	MOUNTS+=("$mnt")
	mount "$@" "$dev" "$mnt"
}

umount_fs() {
	local mnt=$1 i keep=()
	umount_retry "$mnt"
	for i in "${MOUNTS[@]}"; do
		[[ $i == "$mnt" ]] || keep+=("$i")
	done
	MOUNTS=("${keep[@]}")
}

# Attaches image $1; sets LOOP_DEV (not printed: a subshell would lose
# the note that cleanup must detach it).
loop_attach() {
	LOOP_IMAGES+=("$1")
	LOOP_DEV=$(losetup -f --show "${@:2}" "$1")
	LOOPS+=("$LOOP_DEV")
}
