#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# wcdisk_overhead.sh - how many requests a second wcdisk serves when its
# model costs nothing, and what FUSE adds to each request, for
# docs/model-disk.md.  Root (a FUSE mount and loop devices); run it
# under the root lock the tests take:
#
#   flock /run/lock/wcanalyze-root.lock bash bench/wcdisk_overhead.sh [N]
#
# N (default 20000) synchronous 4 KiB direct writes, then as many reads,
# to the same 256 MiB image three ways:
#   plain   a loop device (--direct-io=on) on an image in /var/tmp
#   fuse    the file wcdisk serves, written directly
#   lab     a loop device (--direct-io=on) on the file wcdisk serves:
#           the path a lab's filesystem uses
# Each request waits for the previous one, so the time per request is
# the whole round trip; the ledger's service time per request (the
# model's own cost, near zero here) is printed beside it.  FUSE's
# overhead a request is lab - plain.
#
#   BUILD=DIR   where wcdisk was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
n=${1:-20000}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: wcdisk_overhead.sh [N]" >&2; exit 2; }
# shellcheck source=bench/lib/wcdisk.sh
source "$top/bench/lib/wcdisk.sh"
wd_setup wcdisk_overhead "$build"
work=$WD_WORK
truncate -s 256M "$work/plain.img" "$work/model.img"

# ssd-plp with every cost zero: what is left is wcdisk's bookkeeping
wd_start "$work/model.img" --disk "$top/capture/disks/ssd-plp" -p read_us=0 -p write_us=0 \
	-p overhead_us=0 -p flush_us=0 -p interface_mbs=100000 -p media_outer_mbs=100000 \
	-p media_inner_mbs=100000

now_ns() { date +%s%N; }

# run WHAT TARGET: writes then reads N 4 KiB requests, one at a time
run() {
	local what=$1 target=$2 t0 t1 t2 rows0 rows1 rows2 svc_w svc_r
	rows0=$(wc -l <"$work/ledger.tsv")
	t0=$(now_ns)
	dd if=/dev/zero of="$target" bs=4k count="$n" oflag=direct conv=notrunc status=none
	t1=$(now_ns)
	rows1=$(wc -l <"$work/ledger.tsv")
	dd if="$target" of=/dev/null bs=4k count="$n" iflag=direct status=none
	t2=$(now_ns)
	rows2=$(wc -l <"$work/ledger.tsv")
	# the ledger's service time (end - start, columns 9 and 8) of the
	# rows each pass added; none for the plain image
	svc_w=$(awk -F '\t' -v a="$rows0" -v b="$rows1" 'NR > a && NR <= b { s += $9 - $8; k++ }
		END { if (k) printf "%.1f", s / k / 1000; else print "-" }' "$work/ledger.tsv")
	svc_r=$(awk -F '\t' -v a="$rows1" -v b="$rows2" 'NR > a && NR <= b { s += $9 - $8; k++ }
		END { if (k) printf "%.1f", s / k / 1000; else print "-" }' "$work/ledger.tsv")
	awk -v w="$what" -v n="$n" -v tw=$((t1 - t0)) -v tr=$((t2 - t1)) -v sw="$svc_w" -v sr="$svc_r" \
		-v kw=$((rows1 - rows0)) -v kr=$((rows2 - rows1)) 'BEGIN {
		printf "%-6s write %7.0f req/s %6.1f us a request (wcdisk saw %d, model %s us)\n", w, n / (tw / 1e9), tw / n / 1000, kw, sw
		printf "%-6s read  %7.0f req/s %6.1f us a request (wcdisk saw %d, model %s us)\n", w, n / (tr / 1e9), tr / n / 1000, kr, sr
	}'
}

echo "$n synchronous 4 KiB direct requests each way; $(nproc) cores, load $(cut -d ' ' -f 1-3 /proc/loadavg)"
wd_attach "$work/plain.img"
run plain "$WD_LOOP"
run fuse "$work/mnt/disk"
wd_attach "$work/mnt/disk"
run lab "$WD_LOOP"
