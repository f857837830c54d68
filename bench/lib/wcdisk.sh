# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# wcdisk.sh - sourced by bench/wcdisk_*.sh: the model disk served through
# FUSE from a work folder, loop devices on it, and their undoing on every
# exit path.
#
#   wd_setup NAME BUILD
#                     exits 1 unless root with BUILD/wcdisk; makes WD_WORK
#                     (/var/tmp/NAME.XXXXXX, with mnt/) and sets the EXIT
#                     trap that undoes all the below and removes it
#   wd_start IMAGE WCDISK-ARG...
#                     a fresh wcdisk on IMAGE, served at WD_WORK/mnt/disk,
#                     its ledger WD_WORK/ledger.tsv; returns once it serves
#   wd_attach FILE    a loop device (--direct-io=on) on FILE: WD_LOOP
#   wd_stop           detaches the loop devices, unmounts, stops wcdisk
# Messages say NAME; a failure exits 1.

WD_NAME="" WD_WCDISK="" WD_WORK="" WD_PID="" WD_LOOP="" WD_LOOPS=()

wd_setup() {
	WD_NAME=$1 WD_WCDISK=$2/wcdisk
	[[ $(id -u) -eq 0 ]] || { echo "$WD_NAME: needs root" >&2; exit 1; }
	[[ -x $WD_WCDISK ]] || { echo "$WD_NAME: no $WD_WCDISK: run make" >&2; exit 1; }
	trap wd_cleanup EXIT
	WD_WORK=$(mktemp -d "/var/tmp/$WD_NAME.XXXXXX")
	mkdir "$WD_WORK/mnt"
}

wd_start() {
	local image=$1 i
	shift
	rm -f "$WD_WORK/ready" "$WD_WORK/ledger.tsv"
	"$WD_WCDISK" "$@" --ledger "$WD_WORK/ledger.tsv" --ready "$WD_WORK/ready" \
		"$image" "$WD_WORK/mnt" 2>"$WD_WORK/wcdisk.log" &
	WD_PID=$!
	for ((i = 0; i < 200; i++)); do
		[[ -e $WD_WORK/ready && -e $WD_WORK/mnt/disk ]] && return 0
		kill -0 "$WD_PID" 2>/dev/null ||
			{ echo "$WD_NAME: wcdisk failed: $(cat "$WD_WORK/wcdisk.log")" >&2; exit 1; }
		sleep 0.05
	done
	echo "$WD_NAME: wcdisk did not start in 10 s" >&2
	exit 1
}

# Not a command substitution: the device must be recorded in this shell
# to be detached.
wd_attach() {
	WD_LOOP=$(losetup -f --show --direct-io=on "$1")
	WD_LOOPS+=("$WD_LOOP")
}

wd_stop() {
	local l i
	[[ -n $WD_WORK ]] || return 0
	for l in "${WD_LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null || true
	done
	WD_LOOPS=() WD_LOOP=""
	# a loop device is released some time after losetup -d returns; the
	# FUSE mount stays busy until then
	for ((i = 0; i < 50; i++)); do
		[[ $(losetup -a) != *"$WD_WORK"/* ]] && break
		sleep 0.1
	done
	if [[ -n $WD_WORK ]] && awk -v m="$WD_WORK/mnt" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; then
		fusermount3 -u "$WD_WORK/mnt" || fusermount3 -u -z "$WD_WORK/mnt" || true
	fi
	if [[ -n $WD_PID ]]; then
		kill -TERM "$WD_PID" 2>/dev/null || true
		wait "$WD_PID" 2>/dev/null || true
		WD_PID=""
	fi
}

wd_cleanup() {
	wd_stop
	[[ -z $WD_WORK ]] || rm -rf "$WD_WORK"
}
