#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t63-wcdisk-destage.sh - wcdisk's control file MOUNTPOINT/destage: a
# read of it has the model disk write everything its cache holds to the
# platter, with no request from the kernel (as a drive does before
# standby), and answers once that is done.  The ledger has that work as
# destage rows of no command (cause_seq 0), and ends with an empty cache.
# Idle destage is off here (idle_destage=off), so what the write left in
# the cache stays there until the control asks for it.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
need_wcdisk

img=$TMP/img mnt=$TMP/mnt ledger=$TMP/ledger.tsv
truncate -s 8M "$img"
mkdir -p "$mnt"
"$BUILD/wcdisk" --disk "$TOP/capture/disks/hdd7200" -p idle_destage=off \
	--ledger "$ledger" --ready "$TMP/ready" "$img" "$mnt" 2>"$TMP/log" &
WD_PID=$!
stop_disk() {
	fusermount3 -u "$mnt" 2>/dev/null || true
	[[ -z ${WD_PID:-} ]] || wait "$WD_PID" 2>/dev/null || true
	WD_PID=""
}
trap 'stop_disk; cleanup_common' EXIT
for ((i = 0; i < 200; i++)); do
	[[ -e $TMP/ready && -e $mnt/disk ]] && break
	kill -0 "$WD_PID" 2>/dev/null || fail "wcdisk failed: $(cat "$TMP/log")"
	sleep 0.05
done
[[ -e $mnt/disk ]] || fail "wcdisk did not start"

# 1 MiB in 64 KiB writes: all cached (hdd7200's cache is larger)
dd if=/dev/urandom of="$mnt/disk" bs=64k count=16 seek=16 conv=notrunc status=none ||
	fail "cannot write to the model disk"
left=$(awk -F '\t' 'NR > 1 { d = $18 } END { print d + 0 }' "$ledger")
[[ $left -eq 1048576 ]] || fail "after the writes the cache holds $left bytes, expected 1048576"

out=$(cat "$mnt/destage") || fail "cannot read $mnt/destage"
echo "destage: $out"
[[ $out =~ ^destaged\ ([0-9]+)\ bytes\ in\ ([0-9]+)\ ranges,\ durable\ at\ ([0-9]+)$ ]] ||
	fail "unexpected answer from the control file: $out"
[[ ${BASH_REMATCH[1]} -eq 1048576 ]] || fail "destaged ${BASH_REMATCH[1]} bytes, expected 1048576"
durable=${BASH_REMATCH[3]}
# its rows: destage of no command, adding up to what was left, ending
# when the answer says, and the cache empty after the last
read -r n bytes end dirty <<<"$(awk -F '\t' 'NR > 1 && $2 == "S" && $20 == 0 { n++; b += $4; e = $9 }
	NR > 1 { d = $18 } END { printf "%d %.0f %.0f %.0f", n, b, e, d }' "$ledger")"
[[ $n -ge 1 && $bytes -eq 1048576 ]] || fail "ledger: $n idle destage rows of $bytes bytes, expected 1048576"
[[ $end -eq $durable ]] || fail "ledger's last destage ends at $end, the answer says $durable"
[[ $dirty -eq 0 ]] || fail "ledger ends with $dirty dirty bytes"
# a second read of an empty cache destages nothing, at once
out=$(cat "$mnt/destage")
[[ $out == "destaged 0 bytes in 0 ranges, durable at "* ]] || fail "second destage: $out"
stop_disk
echo "ok: $n destage rows, $bytes bytes, cache empty"
