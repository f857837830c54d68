#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t87-one-disk.sh - partitions of one disk are analysed as that disk
# (issue 40, docs/methodology.md section 3, "One disk of partitions"): a
# hand-made archive whose capture.conf names loop1 (the destination) and
# loop2 (the source) in disk_regions.  Its requests, in ms from the
# first event (Q of r1 at 9):
#
#   r1  loop2 read    D 10  C 20   disk slice [10, 20]
#   r2  loop1 write   D 15  C 30   disk slice [20, 30]  (loop1's [15, 30])
#   r3  loop1 flush   D 40  C 45   disk slice [40, 45]
#   r4  loop2 read    D 50  C 60   disk slice [50, 60]
#
# The window is [9, 60], 51 ms.  The disk: busy 35 ms, data read 20,
# data write 10, flush 5, idle 16; by partition loop1 2 requests, 4 KiB,
# 15 ms and loop2 2, 128 KiB, 20 ms.  So the report, JSON, CSV, the
# bundle's figures and the comparison's groups give the disk's figures
# and the split, and no finding calls loop2 "the other traced device".
# Without disk_regions
# the same trace is loop1's alone, as before: busy 20 ms, loop2 "the
# other traced device".
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v jq >/dev/null || fail "jq is needed (scripts/deps.sh check installs it)"
command -v python3 >/dev/null || fail "python3 is needed"
cd "$TMP"

# capture NAME BARRIER REGIONS: a capture folder NAME of the four
# requests; REGIONS the disk_regions line ("" for none).
capture() {
	local name=$1 barrier=$2 regions=$3
	mkdir -p "$name/trace"
	(cd "$name/trace" && python3 - <<'PY'
import struct

MS = 1000000
Q, D, C = 1 | (1 << 20), 7 | (1 << 22), 8 | (1 << 23)
READ, WRITE, FLUSH, SYNC = 1 << 16, 1 << 17, 1 << 18, 1 << 19
# (device minor, Q ms, D ms, C ms, sector, bytes, categories)
reqs = [(2, 9, 10, 20, 0, 65536, READ),
        (1, 14, 15, 30, 100, 4096, WRITE | SYNC),
        (1, 39, 40, 45, 0, 0, WRITE | FLUSH),
        (2, 49, 50, 60, 128, 65536, READ)]
events = []
for minor, q, d, c, sector, nbytes, cat in reqs:
    for what, t in ((Q, q), (D, d), (C, c)):
        events.append((t * MS, minor, what | cat, sector, nbytes))
for minor in (1, 2):
    with open('loop%d.blktrace.0' % minor, 'wb') as f:
        seq = 0
        for t, m, action, sector, nbytes in sorted(events):
            if m != minor:
                continue
            seq += 1
            f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, sector,
                                nbytes, action, 100 + minor,
                                (7 << 20) | minor, 0, 0, 0))
PY
	)
	{
		printf 'format_version = 1\nname = %s\ntrace_clock = mono\n' "$name"
		printf 'complete = 1\nevents_dropped = 0\ndevices = loop1 loop2\n'
		printf 'destination = loop1\n'
		printf 'device.loop1.dev = 7:1\ndevice.loop1.role = destination\n'
		printf 'device.loop1.rotational = 1\n'
		printf 'device.loop2.dev = 7:2\ndevice.loop2.role = source\n'
		printf 'device.loop2.rotational = 1\n'
		printf 'fs = xfs\nwrite_cache = off\nbarrier = %s\n' "$barrier"
		printf 'disk_model = hdd7200\nworkload = copy-delete\n'
		printf 'journal_start_sector = 1000000\njournal_sectors = 8\n'
		[[ -z $regions ]] || printf 'disk_regions = %s\n' "$regions"
		[[ -z $regions ]] || printf 'disk_placement = partitions\n'
		[[ -z $regions ]] || printf 'disk_offsets = 1048576 512000000\n'
	} >"$name/capture.conf"
	tar -czf "$name.tar.gz" "$name"
}

capture one on 'loop1 loop2'
capture two off 'loop1 loop2'
capture apart on ''

# approx JSON-NUMBER WANT: equal to the nanosecond.
approx() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'; }

"$WCANALYZE" --format json one.tar.gz >one.json || fail "one: exit $?"
c=$(jq -c '.captures[0]' one.json)
approx "$(jq -r .window_s <<<"$c")" 0.051 || fail "window: $(jq -c .window_s <<<"$c")"
for k in idle:0.016 data_read:0.020 data_write:0.010 flush:0.005; do
	approx "$(jq -r ".time_s.${k%%:*}" <<<"$c")" "${k#*:}" ||
		fail "the disk's ${k%%:*}: $(jq -c .time_s <<<"$c")"
done
jq -e '(.time_s | [.[]] | add) + .outstanding_s - .window_s | fabs < 5e-9' <<<"$c" >/dev/null ||
	fail "the time partition does not sum to the window: $(jq -c .time_s <<<"$c")"
jq -e '.requests.data_read == 2 and .bytes.data_read == 131072 and
	.requests.data_write == 1' <<<"$c" >/dev/null ||
	fail "the disk's requests: $(jq -c '{requests, bytes}' <<<"$c")"
jq -e '[.disk_partitions[] | [.device, .name, .role, .requests, .bytes]] ==
	[["7,1", "loop1", "destination", 2, 4096], ["7,2", "loop2", "source", 2, 131072]]' \
	<<<"$c" >/dev/null || fail "the split: $(jq -c .disk_partitions <<<"$c")"
approx "$(jq -r '.disk_partitions[0].busy_s' <<<"$c")" 0.015 ||
	fail "loop1's busy time: $(jq -c .disk_partitions <<<"$c")"
approx "$(jq -r '.disk_partitions[1].busy_s' <<<"$c")" 0.020 ||
	fail "loop2's busy time: $(jq -c .disk_partitions <<<"$c")"
# The disk's queue: D to C over both partitions (40 ms of 51), two at
# the driver when r2 was dispatched (r1 was there); each device's own
# never more than one.
jq -e '.queue_depth == {"mean": 0.784, "max": 2} and
	([.devices[].queue_depth.max] == [1, 1])' <<<"$c" >/dev/null ||
	fail "queue depth: $(jq -c '[.queue_depth, [.devices[].queue_depth]]' <<<"$c")"
# Each device keeps its own figures (the kernel's counters are its).
jq -e '[.devices[] | .name] == ["loop2", "loop1"]' <<<"$c" >/dev/null ||
	fail "the devices: $(jq -c '[.devices[] | .name]' <<<"$c")"
idle=$(jq -c '.findings[] | select(.kind == "device_idle")' one.json)
jq -e '.device == "loop1+loop2" and .other_device_s == 0 and
	(.sentence | contains("other traced device") | not) and
	(.sentence | contains("the disk loop1+loop2 was idle for 0.016 s"))' \
	<<<"$idle" >/dev/null || fail "the idle finding: $idle"
jq -e '.findings[] | select(.kind == "most_time") | .category == "data_read"' \
	one.json >/dev/null || fail "most time: $(jq -c '.findings[0]' one.json)"
echo "ok: JSON: the disk's figures over both partitions, the split, no other device"

"$WCANALYZE" one.tar.gz >one.txt || fail "one (text): exit $?"
grep -q '^  disk loop1+loop2, 2 partitions of one disk' one.txt ||
	fail "text: no disk line: $(sed -n 1,20p one.txt)"
grep -Eq '^  loop1 destination +2 +4\.0 KiB +0\.015000 +42\.9%$' one.txt ||
	fail "text: loop1's split: $(grep -A3 '^by partition' one.txt)"
grep -Eq '^  loop2 source +2 +128\.0 KiB +0\.020000 +57\.1%$' one.txt ||
	fail "text: loop2's split: $(grep -A3 '^by partition' one.txt)"
grep -q 'other traced device' one.txt && fail "text calls a partition another device"
"$WCANALYZE" --format csv one.tar.gz >one.csv || fail "one (csv): exit $?"
[[ $(sed -n 1p one.csv) == *,disk,part1_device,part1_name,part1_role,part1_requests,part1_bytes,part1_busy_s,part2_device,*,part2_busy_s,outstanding_s ]] ||
	fail "csv header: $(sed -n 1p one.csv)"
grep -q '^one,all,.*,hdd7200,7:1,loop1,destination,2,4096,0\.015000000,7:2,loop2,source,2,131072,0\.020000000,0\.000000000$' one.csv ||
	fail "csv row: $(sed -n 2p one.csv)"
echo "ok: text and CSV give the split by partition"

# The bundle's figures are the disk's too: the source's reads (bit 8,
# data_read) at their place on it, past loop2's offset of 1,000,000
# sectors, beside the destination's write.
"$WCANALYZE" --output bundle one.tar.gz >/dev/null || fail "bundle: exit $?"
awk '!/^#/ && $3 == 8 && $2 > 999999 { r++ } !/^#/ && $3 == 16 && $2 < 4096 { w++ }
	END { exit !(r && w) }' bundle/one/scatter.dat ||
	fail "bundle: the disk's scatter: $(grep -v '^#' bundle/one/scatter.dat)"
echo "ok: the bundle's figures are the disk's"

# The comparison: each group's figures are its disk's.
"$WCANALYZE" --format json one.tar.gz two.tar.gz >cmp.json || fail "cmp: exit $?"
jq -e '[.groups[].figures_s.busy.mean] | all(. > 0.034999999 and . < 0.035000001)' \
	cmp.json >/dev/null || fail "groups: $(jq -c '[.groups[].figures_s.busy]' cmp.json)"
jq -e '[.groups[].parts_s.off_device.mean] | all(. > 0.015999999 and . < 0.016000001)' \
	cmp.json >/dev/null || fail "groups' time off the disk: $(jq -c '[.groups[].parts_s.off_device]' cmp.json)"
echo "ok: the comparison takes the disk's figures"

# Without disk_regions: loop1 alone, as before.
"$WCANALYZE" --format json apart.tar.gz >apart.json || fail "apart: exit $?"
jq -e '.captures[0] | (has("disk_partitions") | not) and
	(.time_s.data_read == 0) and
	((.window_s - .time_s.idle) - 0.020 | fabs < 1e-9)' apart.json >/dev/null ||
	fail "apart: $(jq -c '.captures[0].time_s' apart.json)"
jq -e '.findings[] | select(.kind == "device_idle") |
	.device == "loop1" and (.sentence | contains("the other traced device (loop2)"))' \
	apart.json >/dev/null || fail "apart idle: $(jq -c '.findings[1]' apart.json)"
"$WCANALYZE" --format csv apart.tar.gz >apart.csv || fail "apart (csv): exit $?"
[[ $(sed -n 1p apart.csv) == *,disk,outstanding_s ]] || fail "apart csv has partition columns"
echo "ok: without disk_regions, the destination alone as before"

# Read back from their summaries (t88), the disk, its split and its
# ledger-free partitions compare as the captures do.
for n in one two apart; do
	"$WCANALYZE" --format json "$n.tar.gz" >"$n.sum.json" || fail "$n: summary: exit $?"
done
"$WCANALYZE" --format json one.tar.gz two.tar.gz apart.tar.gz >caps.json
"$WCANALYZE" --format json one.sum.json two.sum.json apart.sum.json >sums.json
cmp -s caps.json sums.json || fail "the summaries of a disk of partitions compare otherwise"
jq -e '.captures[0].raw.capture.disk != null and
	(.captures[0].raw.capture.partitions | length) == 2' sums.json >/dev/null ||
	fail "no disk in the raw record"
echo "ok: summaries of a disk of partitions"
