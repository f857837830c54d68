#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# wcdisk_fio.sh - the model disk measured as a disk is: fio against a loop
# device (direct I/O) on the file wcdisk serves, for docs/model-disk.md's
# table against a 2008 7200 rpm SATA disk's published figures.  Root (a
# FUSE mount and a loop device); fio from scripts/deps.sh fio.  Run it
# under the lock the lab takes:
#
#   flock /tmp/wc-trace.lock bash bench/wcdisk_fio.sh [DISK [SECONDS]]
#
# DISK (default hdd7200) names capture/disks/DISK; SECONDS (default 10)
# is each random job's run time.  For each job a fresh wcdisk on a fresh
# 4 GiB sparse image (the image spans the model's whole stroke whatever
# its size): random 4 KiB reads and writes at queue depth 1 and 32, the
# cache on and off; a sequential 1 MiB read of the first GiB (the outer
# zone); 4,096 random 4 KiB writes (16 MiB, the cache's size) then one
# fsync, whose flush the ledger times.  Prints one line a job: IOPS or
# MB/s as fio reports them, and the ledger's mean service and queue.
#
#   BUILD=DIR   where wcdisk was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
disk=${1:-hdd7200}
secs=${2:-10}
[[ $disk =~ ^[A-Za-z0-9._-]+$ && -f $top/capture/disks/$disk ]] ||
	{ echo "wcdisk_fio: no capture/disks/$disk" >&2; exit 2; }
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "usage: wcdisk_fio.sh [DISK [SECONDS]]" >&2; exit 2; }
command -v fio >/dev/null || { echo "wcdisk_fio: no fio: scripts/deps.sh fio" >&2; exit 1; }
command -v jq >/dev/null || { echo "wcdisk_fio: no jq: scripts/deps.sh check" >&2; exit 1; }
# shellcheck source=bench/lib/wcdisk.sh
source "$top/bench/lib/wcdisk.sh"
wd_setup wcdisk_fio "$build"
work=$WD_WORK

# start_disk PARAM...: a fresh wcdisk on a fresh 4 GiB sparse image and a
# loop device on it: WD_LOOP
start_disk() {
	rm -f "$work/model.img"
	truncate -s 4G "$work/model.img"
	wd_start "$work/model.img" --disk "$top/capture/disks/$disk" "$@"
	wd_attach "$work/mnt/disk"
}

# the ledger's commands: mean service (ms) and mean queue at a pick
ledger_means() {
	awk -F '\t' 'NR > 1 && $2 != "S" && $2 != "F" { n++; s += $9 - $19 - $8; q += $21 }
		END { if (n) printf "service %.2f ms, queued %.1f", s / n / 1e6, q / n }' "$work/ledger.tsv"
}

# job NAME CACHE RW BS DEPTH [FIO-ARGS...]
job() {
	local name=$1 cache=$2 rw=$3 bs=$4 depth=$5 out
	shift 5
	start_disk -p "write_cache=$cache"
	out=$(fio --name="$name" --filename="$WD_LOOP" --direct=1 --ioengine=libaio \
		--rw="$rw" --bs="$bs" --iodepth="$depth" --output-format=json "$@")
	case $rw in
	read | write)
		printf '%-28s cache %-3s  %8.1f MB/s  %s\n' "$name" "$cache" \
			"$(jq -r ".jobs[0].${rw}.bw_bytes / 1e6" <<<"$out")" "$(ledger_means)" ;;
	randread)
		printf '%-28s cache %-3s  %8.1f IOPS  %s\n' "$name" "$cache" \
			"$(jq -r '.jobs[0].read.iops' <<<"$out")" "$(ledger_means)" ;;
	*)
		printf '%-28s cache %-3s  %8.1f IOPS  %s\n' "$name" "$cache" \
			"$(jq -r '.jobs[0].write.iops' <<<"$out")" "$(ledger_means)" ;;
	esac
	wd_stop
}

echo "wcdisk_fio: $disk, $secs s a random job, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
for cache in on off; do
	for depth in 1 32; do
		job "randread-4k-qd$depth" "$cache" randread 4k "$depth" --time_based --runtime="$secs"
		# the cache's 16 MiB fill in well under a second at the
		# interface rate: ramp past it, measure the steady state
		job "randwrite-4k-qd$depth" "$cache" randwrite 4k "$depth" --time_based \
			--runtime="$secs" --ramp_time=2
	done
done
job "read-1m-outer-1GiB" on read 1M 4 --size=1G
# a flush of a full cache: 4,096 scattered 4 KiB writes, then fsync
start_disk -p write_cache=on -p idle_destage=off
fio --name=fill --filename="$WD_LOOP" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
	--iodepth=32 --number_ios=4096 --end_fsync=1 --output-format=json >/dev/null
awk -F '\t' 'NR > 1 && $2 == "F" && $16 > 0 { f[$1] = ($9 - $19 - $8) / 1e6; b[$1] = $16 }
	NR > 1 && $2 == "S" && $20 > 0 { n[$20]++ }
	END { for (k in f) printf "%-28s cache on   %8.1f ms  destaged %.1f MiB in %d ranges\n",
		"flush-full-cache", f[k], b[k] / 1048576, n[k] }' "$work/ledger.tsv"
wd_stop
