#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record-merge-heavy.sh - records the merge-heavy capture of "make bench"
# (bench/merge-heavy-xfs.tar.xz): a copy of many small files onto XFS on
# a plain loop image, then sync.  Writeback submits each file's pages as
# 4 KiB bios of adjacent files, which the block layer merges into one
# request several at a time: a trace of mostly Q and M, unlike the
# project's own shapes (mostly one bio a request).
#
#   bench/record-merge-heavy.sh OUTDIR [FILES]
#
# Writes OUTDIR/merge-heavy-xfs.tar.gz through wccapture record.  Needs
# root and loop devices; run it under "flock /tmp/wc-trace.lock" on a
# shared machine.  Undoes its loop device and mount on every exit.
set -euo pipefail

out=${1:?usage: record-merge-heavy.sh OUTDIR [FILES]}
files=${2:-3000}
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}"
export BUILD
work=$(mktemp -d "${TMPDIR:-/var/tmp}/wcmerge.XXXXXX")
loop='' mnt=$work/mnt

cleanup() {
	set +e
	mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loop ]] && losetup -d "$loop"
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$out" "$mnt" "$work/src"
truncate -s 512M "$work/img"
loop=$(losetup -f --show "$work/img")
mkfs.xfs -q -f "$loop"
mount "$loop" "$mnt"
# Small files of 1 to 4 pages, ten to a folder: XFS puts new folders
# in other allocation groups, so a request merges the pages of a few
# adjacent files, not of hundreds.
for ((i = 0; i < files; i++)); do
	d=$work/src/d$((i / 10))
	[[ -d $d ]] || mkdir "$d"
	head -c $(((i % 4 + 1) * 4096)) /dev/zero >"$d/f$i"
done
sync
# shellcheck disable=SC2016 # the inner shell expands its arguments
"$top/capture/wccapture" record --device "$loop" --name merge-heavy-xfs -o "$out" -- \
	sh -c 'cp -r "$1" "$2/copy" && sync' sh "$work/src" "$mnt"
