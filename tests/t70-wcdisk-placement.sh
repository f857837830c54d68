#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t70-wcdisk-placement.sh - wcdisk places its images as partitions of a
# disk of the model's own capacity (--offset, capacity_gb;
# analyze/lib/disk/diskmodel.h, "Placement"):
#  - --print-placement: without --offset the images are the platter (a
#    small image spans every cylinder); with --offset auto each is at the
#    start of one of two equal partitions of hdd7200's 500 GB, covering a
#    few hundred cylinders, the seek across it near track-to-track;
#  - every bad placement is refused with the reason (no capacity_gb, one
#    --offset too few, overlapping, past the end, not bytes, with
#    --platter-log) and exit status 2;
#  - served (root, FUSE): with the write cache off each write goes to the
#    platter, so the ledger's seek over 32 MiB inside an image is short
#    with --offset auto and long without (a quarter of a 128 MiB
#    platter), the seek to the other image long with it, and every row's
#    sector is the one in its own image.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

W=$BUILD/wcdisk
HDD=$TOP/capture/disks/hdd7200
truncate -s 1356M "$TMP/a"
truncate -s 1356M "$TMP/b"

# row REGION FIELD: from --print-placement's output in $out
row() {
	awk -F '\t' -v r="$1" -v f="$2" 'NR > 2 && $1 == r { print $f }' <<<"$out"
}

out=$("$W" --disk "$HDD" --print-placement "$TMP/a" "$TMP/b") || fail "--print-placement failed"
echo "$out"
[[ $(sed -n 1p <<<"$out") == "capacity_bytes	$((2 * 1356 * 1048576))" ]] ||
	fail "without --offset the disk is not the two images: $(sed -n 1p <<<"$out")"
[[ $(row 1 5) -eq 99999 ]] || fail "without --offset image 1 does not reach the last cylinder"

out=$("$W" --disk "$HDD" --offset auto --print-placement "$TMP/a" "$TMP/b") ||
	fail "--offset auto --print-placement failed"
echo "$out"
[[ $(sed -n 1p <<<"$out") == "capacity_bytes	$((976773168 * 512))" ]] ||
	fail "hdd7200's capacity is not IDEMA's 500 GB: $(sed -n 1p <<<"$out")"
[[ $(row 0 2) -eq 1048576 ]] || fail "image 0 not at 1 MiB: $(row 0 2)"
half=$((976773168 * 512 / 2 / 1048576 * 1048576))
[[ $(row 1 2) -eq $half ]] || fail "image 1 not at half the disk ($half): $(row 1 2)"
for r in 0 1; do
	span=$(($(row "$r" 5) - $(row "$r" 4)))
	((span < 500)) || fail "image $r spans $span cylinders of 100000"
	awk -v s="$(row "$r" 8)" 'BEGIN { exit !(s < 1.5) }' ||
		fail "the seek across image $r is $(row "$r" 8) ms"
done
awk -v s="$(row 1 9)" 'BEGIN { exit !(s > 8.5) }' ||
	fail "the seek between the partitions is $(row 1 9) ms, not long"

out=$("$W" --disk "$HDD" --offset 1M --offset 2G --print-placement "$TMP/a" "$TMP/b") ||
	fail "--offset 1M --offset 2G failed"
[[ $(row 1 2) -eq $((2 << 30)) ]] || fail "--offset 2G gave $(row 1 2)"

# refused: each with its reason and the status of a bad command line (2,
# wcdisk.8), nothing served
refused() {
	local want=$1 rc=0
	shift
	"$W" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[[ $rc -ne 0 ]] || fail "wcdisk $* accepted"
	[[ $rc -eq 2 ]] || fail "wcdisk $*: exit $rc, not 2 (a bad command line): $(cat "$TMP/err")"
	grep -qF -- "$want" "$TMP/err" || fail "wcdisk $*: no '$want' in: $(cat "$TMP/err")"
	[[ ! -s $TMP/out ]] || fail "wcdisk $*: printed a placement"
}
refused "gives no capacity_gb" --disk "$HDD" -p capacity_gb=0 --offset auto --print-placement "$TMP/a" "$TMP/b"
refused "gives no capacity_gb" --disk "$HDD" -p capacity_gb=0 --offset 1M --offset 2G --print-placement "$TMP/a" "$TMP/b"
refused "1 --offset for 2 images" --disk "$HDD" --offset 1M --print-placement "$TMP/a" "$TMP/b"
refused "overlaps image 0" --disk "$HDD" --offset 1M --offset 1G --print-placement "$TMP/a" "$TMP/b"
refused "ends past the disk" --disk "$HDD" --offset 1M --offset 466G --print-placement "$TMP/a" "$TMP/b"
refused "not bytes" --disk "$HDD" --offset 1X --print-placement "$TMP/a"
refused "not bytes" --disk "$HDD" --offset 99999999999999999999 --print-placement "$TMP/a"
refused "not bytes" --disk "$HDD" --offset 20000000T --print-placement "$TMP/a"
refused "not a multiple of 512" --disk "$HDD" --offset 1000 --print-placement "$TMP/a"
refused "no other --offset" --disk "$HDD" --offset auto --offset 1M --print-placement "$TMP/a"
refused "not with --offset" --disk "$HDD" --offset auto --platter-log "$TMP/log" "$TMP/a" "$TMP/mnt"
refused "'49' is not 0 (none) nor 50" --disk "$HDD" -p capacity_gb=49 --print-params
[[ ! -e $TMP/log ]] || fail "a platter log was written"

need_root
need_wcdisk

# serve LEDGER OPTION...: two 64 MiB images through wcdisk (write cache
# off), one direct 4 KiB write to image 0 at 0, then at 32 MiB, then to
# image 1 at 32 MiB, then stopped.
mnt=$TMP/mnt
WD_PID=""
stop_disk() {
	fusermount3 -u "$mnt" 2>/dev/null || true
	[[ -z $WD_PID ]] || wait "$WD_PID" 2>/dev/null || true
	WD_PID=""
}
trap 'stop_disk; cleanup_common' EXIT
serve() {
	local ledger=$1 i f
	shift
	rm -f "$TMP/ready" "$TMP/a" "$TMP/b"
	truncate -s 64M "$TMP/a"
	truncate -s 64M "$TMP/b"
	mkdir -p "$mnt"
	"$W" --disk "$HDD" -p write_cache=off "$@" --ledger "$ledger" \
		--ready "$TMP/ready" "$TMP/a" "$TMP/b" "$mnt" 2>"$TMP/log" &
	WD_PID=$!
	for ((i = 0; i < 200; i++)); do
		[[ -e $TMP/ready && -e $mnt/disk1 ]] && break
		kill -0 "$WD_PID" 2>/dev/null || fail "wcdisk failed: $(cat "$TMP/log")"
		sleep 0.05
	done
	[[ -e $mnt/disk1 ]] || fail "wcdisk did not start"
	for f in disk:0 disk:8192 disk1:8192; do
		dd if=/dev/urandom of="$mnt/${f%:*}" bs=4k count=1 seek="${f#*:}" \
			oflag=direct conv=notrunc status=none || fail "cannot write $f"
	done
	stop_disk
}
# The three writes' rows: "REGION SECTOR SEEK_NS" each.
writes() {
	awk -F '\t' 'NR > 1 && $2 == "W" { print $22, $3, $13 }' "$1"
}
serve "$TMP/placed.tsv" --offset auto
serve "$TMP/platter.tsv"
echo "placed:"; writes "$TMP/placed.tsv"
echo "platter:"; writes "$TMP/platter.tsv"
for l in placed platter; do
	[[ $(writes "$TMP/$l.tsv" | awk '{ printf "%s:%s ", $1, $2 }') == "0:0 0:65536 1:65536 " ]] ||
		fail "$l: the writes are not at sectors 0, 65536 of image 0 and 65536 of 1: $(writes "$TMP/$l.tsv")"
done
# 32 MiB inside image 0: a few cylinders placed (under 1.5 ms; the
# track-to-track write seek is 1.1 ms), a quarter of the stroke as the
# platter; to image 1: half the disk placed (more than the average seek)
read -r p1 p2 <<<"$(writes "$TMP/placed.tsv" | awk 'NR > 1 { printf "%s ", $3 }')"
read -r q1 _ <<<"$(writes "$TMP/platter.tsv" | awk 'NR > 1 { printf "%s ", $3 }')"
((p1 < 1500000)) || fail "placed: a seek of 32 MiB inside image 0 took $p1 ns"
((q1 > 3000000)) || fail "as the platter: a seek of 32 MiB inside image 0 took only $q1 ns"
((p2 > 8500000)) || fail "placed: the seek to image 1 took only $p2 ns"
echo "ok: 32 MiB inside an image $p1 ns placed, $q1 ns as the platter; to the other image $p2 ns placed"
