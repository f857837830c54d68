# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# disk.sh - the disk under test: its write cache, the model disk (wcdisk
# through FUSE) that stands in for it, and the file systems made on it.
# Sourced by capture/wccapture.

# ---------------------------------------------------------------- write cache
# Sets DEV's write cache and CACHE_METHOD to the method used.  hdparm changes the
# drive itself; sysfs only changes what the kernel believes, which makes
# it drop flushes, and is all a loop or virtual disk offers.
cache_set() {
	local dev=$1 want=$2 out old f
	out=$(hdparm -W "/dev/$dev" 2>/dev/null || true)
	if [[ $out =~ write-caching[[:space:]]*=[[:space:]]*([01]) ]]; then
		old=${BASH_REMATCH[1]}
		CACHE_RESTORE+=("$dev hdparm $old")
		hdparm -q -W"$([[ $want == on ]] && echo 1 || echo 0)" "/dev/$dev" >/dev/null
		CACHE_METHOD=hdparm
		return 0
	fi
	f=/sys/block/$dev/queue/write_cache
	[[ -w $f ]] || return 1
	old=$(cat "$f")
	CACHE_RESTORE+=("$dev sysfs $old")
	if [[ $want == on ]]; then
		echo "write back" >"$f" || return 1
	else
		echo "write through" >"$f" || return 1
	fi
	CACHE_METHOD=sysfs
}

cache_restore_one() {
	local dev method old
	read -r dev method old <<<"$1"
	case $method in
	hdparm) hdparm -q -W"$old" "/dev/$dev" >/dev/null 2>&1 ;;
	sysfs) echo "$old" >"/sys/block/$dev/queue/write_cache" 2>/dev/null ;;
	rotational) echo "$old" >"/sys/block/$dev/queue/rotational" 2>/dev/null ;;
	esac
}

cache_restore_all() {
	local i
	for ((i = ${#CACHE_RESTORE[@]} - 1; i >= 0; i--)); do
		cache_restore_one "${CACHE_RESTORE[i]}"
	done
	CACHE_RESTORE=()
}

cache_state() {
	local f=/sys/block/$1/queue/write_cache
	case $(cat "$f" 2>/dev/null) in
	"write back") echo on ;;
	"write through") echo off ;;
	*) echo unknown ;;
	esac
}

# ---------------------------------------------------------------- model disk
# The lab's destination can be a loop device attached to a file that
# wcdisk serves through FUSE, so each request costs what a disk model
# says (docs/wcdisk.8).  One wcdisk per capture: every configuration
# starts from the same empty cache, and its ledger is that capture's.

find_wcdisk() {
	local here
	here=$HERE
	if [[ -n ${WCDISK:-} && -x ${WCDISK:-} ]]; then
		echo "$WCDISK"
	elif [[ -x $here/wcdisk ]]; then
		echo "$here/wcdisk"
	elif [[ -n ${BUILD:-} && -x ${BUILD:-}/wcdisk ]]; then
		echo "$BUILD/wcdisk"
	elif [[ -x $here/../build/wcdisk ]]; then
		echo "$here/../build/wcdisk"
	elif command -v wcdisk >/dev/null 2>&1; then
		command -v wcdisk
	else
		return 1
	fi
}

# The parameter file of disk NAME: a path, or a name under capture/disks
# (next to this script, or installed in share/wcanalyze/disks).
find_disk_file() {
	local name=$1 here d
	if [[ $name == */* ]]; then
		[[ -f $name ]] && echo "$name" && return 0
		return 1
	fi
	[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || return 1
	here=$HERE
	for d in "$here/disks" "$here/../share/wcanalyze/disks" \
		/usr/local/share/wcanalyze/disks /usr/share/wcanalyze/disks; do
		[[ -f $d/$name ]] && echo "$d/$name" && return 0
	done
	return 1
}

# Why FUSE cannot be used here, or nothing.
fuse_missing() {
	[[ -c /dev/fuse ]] || { echo "/dev/fuse is missing (modprobe fuse)"; return 0; }
	command -v fusermount3 >/dev/null 2>&1 || { echo "fusermount3 is not installed (Debian package fuse3)"; return 0; }
	find_wcdisk >/dev/null || { echo "wcdisk not found next to wccapture, in \$BUILD or in PATH (run make)"; return 0; }
	return 1
}

# The root memory cgroup, where wcdisk must run: it is on the writeback
# path of the filesystem it serves, and a memory limit on it could wait
# for that writeback (the FUSE writeback deadlock).
memcg_root() {
	if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
		echo /sys/fs/cgroup
	elif [[ -d /sys/fs/cgroup/memory ]]; then
		echo /sys/fs/cgroup/memory
	fi
}

# Starts wcdisk on image $1 with the write cache $2 (on/off); a third
# argument is a second image, the model disk's second region (disk1).
disk_start() {
	local img=$1 cache=$2 i root log=$WORK/wcdisk.log
	local imgs=("$img")
	[[ $# -gt 2 ]] && imgs+=("$3")
	DISK_MNT=$WORK/disk
	mkdir -p "$DISK_MNT"
	rm -f "$WORK/disk.ready" "$WORK/disk-ledger.tsv"
	"$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" -p "write_cache=$cache" \
		"${DISK_EXTRA[@]}" "${PLACE_ARGS[@]}" \
		--ledger "$WORK/disk-ledger.tsv" --ready "$WORK/disk.ready" \
		"${imgs[@]}" "$DISK_MNT" 2>>"$log" &
	DISK_PID=$!
	root=$(memcg_root)
	if [[ -n $root ]] && ! echo "$DISK_PID" >"$root/cgroup.procs" 2>/dev/null; then
		die "cannot move wcdisk out of its memory cgroup into $root (it must not be memory-limited)"
	fi
	for ((i = 0; i < 200; i++)); do
		[[ -e $WORK/disk.ready && -e $DISK_MNT/disk ]] && break
		kill -0 "$DISK_PID" 2>/dev/null || die "wcdisk failed: $(tail -n 1 "$log")"
		sleep 0.05
	done
	[[ -e $DISK_MNT/disk ]] || die "wcdisk did not start within 10 s: $(tail -n 1 "$log")"
}

# Unmounts wcdisk's mount (after its loop device is detached: a daemon
# gone first leaves the loop device failing every request) and waits for
# it.  Safe to call when none runs.
# A FUSE mount whose daemon died cannot be stat()ed (ENOTCONN), so
# mountpoint(1) says it is none: look in the mount table.
fuse_mounted() {
	awk -v m="$1" '$2 == m && $3 ~ /^fuse/ { found = 1 } END { exit !found }' /proc/self/mounts
}

disk_stop() {
	local n rc=0
	if [[ -n $DISK_MNT ]]; then
		for n in 1 2 3 4 5 6 7 8 9 10; do
			fuse_mounted "$DISK_MNT" || break
			fusermount3 -u "$DISK_MNT" 2>/dev/null && break
			sleep "0.$n"
		done
		if fuse_mounted "$DISK_MNT"; then
			say "$DISK_MNT: busy; detaching it lazily"
			fusermount3 -u -z "$DISK_MNT" 2>/dev/null
		fi
		DISK_MNT=""
	fi
	if [[ -n $DISK_PID ]]; then
		# gone with its mount; if not within 5 s, it is stuck
		for ((n = 0; n < 100; n++)); do
			kill -0 "$DISK_PID" 2>/dev/null || break
			sleep 0.05
		done
		kill -TERM "$DISK_PID" 2>/dev/null
		wait "$DISK_PID" 2>/dev/null || rc=$?
		DISK_PID=""
	fi
	return "$rc"
}

# Detaches loop device $1 and forgets it.
loop_detach() {
	local i keep=()
	losetup -d "$1" 2>/dev/null
	for i in "${LOOPS[@]}"; do
		[[ $i == "$1" ]] || keep+=("$i")
	done
	LOOPS=("${keep[@]}")
}

# ---------------------------------------------------------------- file systems
fs_mkfs_once() {
	local fs=$1 dev=$2
	case $fs in
	xfs) mkfs.xfs -q -f "$dev" ;;
	# No lazy init: ext4lazyinit would zero inode tables (and flush,
	# barriers or not) in the middle of the recording.
	ext3) mkfs.ext3 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	esac
}

# fs_mkfs FS DEV: a new file system on DEV, its tools' output on
# standard output.  The previous configuration's file system, when
# umount_retry had to detach it lazily (busy), keeps DEV in use until its
# last user lets go, and mkfs refuses the device until then ("apparently
# in use by the system", "Device or resource busy"): waited for, up to
# 10 s.
fs_mkfs() {
	local fs=$1 dev=$2 i out=""
	for ((i = 0; i < 50; i++)); do
		if out=$(fs_mkfs_once "$fs" "$dev" 2>&1); then
			[[ -z $out ]] || printf '%s\n' "$out"
			return 0
		fi
		[[ $out == *"in use"* || $out == *busy* ]] || break
		sleep 0.2
	done
	printf '%s\n' "$out"
	return 1
}

# Prints the mount options for a barrier setting, or fails with the reason
# the combination cannot exist.
barrier_opts() {
	local fs=$1 barrier=$2
	case $fs:$barrier in
	xfs:on) echo "defaults" ;;
	xfs:off)
		echo "XFS removed the nobarrier mount option in Linux 4.19 (mount fails with Unknown parameter 'nobarrier')"
		return 1
		;;
	ext3:on | ext4:on) echo "barrier=1" ;;
	ext3:off | ext4:off) echo "barrier=0" ;;
	esac
}
