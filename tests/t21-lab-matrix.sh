#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t21-lab-matrix.sh - a tiny lab matrix (every fs x cache x barrier, 100
# files, 4 MB) gives one valid archive per applicable configuration and
# lists XFS without barriers as not applicable; flush requests reach the
# destination with the cache and barriers on and never with the cache
# off; the journal range in capture.conf is where the journal writes of
# the trace land; nothing is left mounted, attached or traced.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait

# Another lab may be running on this machine outside the tests: what
# this one leaves is what was not there before.
ours() { grep wccapture | LC_ALL=C sort || true; }
loops_before=$(losetup -a | ours)
mounts_before=$(ours </proc/self/mounts)
work_before=$({ compgen -G '/var/tmp/wccapture.*/dst.img' || true; } | ours)
new_since() { LC_ALL=C comm -13 <(echo "$1") <(echo "$2"); }
rc=0
bash "$TOP/capture/wccapture" lab --warmup 0 --disk loop --files 100 --size 4M --image-size 320M \
	-o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 20 "$TMP/log")"

# The table: 12 rows, two of them XFS without barriers, with the reason.
[[ $(grep -cE '^(xfs|ext3|ext4) ' "$TMP/table") -eq 12 ]] || { cat "$TMP/table"; fail "table has not 12 rows"; }
[[ $(grep -cE "^xfs +(on|off) +off +- +not applicable: XFS removed the nobarrier mount option in Linux 4.19" "$TMP/table") -eq 2 ]] ||
	{ cat "$TMP/table"; fail "XFS nobarrier not listed as not applicable"; }
grep -q 'recorder: ' "$TMP/log" || fail "the recorder choice is not printed"

n=0
for a in "$TMP"/out/*.tar.gz; do
	n=$((n + 1))
	d=$(archive_open "$a")
	name=$(basename "$d")
	archive_check "$d" 1
	[[ $(awk -F '\t' 'NR > 1 { printf "%s ", $1 }' "$d/phases.tsv") == "copy delete " ]] ||
		fail "$name: phases are not copy, delete"
	[[ $(conf_get "$d" workload) == copy-delete && $(conf_get "$d" source_files) == 100 &&
		$(conf_get "$d" source_bytes) == 4194304 ]] || fail "$name: workload keys wrong"
	[[ $(wc -w <<<"$(conf_get "$d" devices)") -eq 2 ]] || fail "$name: source and destination not both traced"
	# Lab archives are named DISK-FS-cache-...: the filesystem is the
	# word before "cache".
	[[ $name =~ (^|-)(xfs|ext3|ext4)-cache- ]] || fail "$name: no filesystem in the name"
	fs=${BASH_REMATCH[2]}
	[[ $(conf_get "$d" fs) == "$fs" ]] || fail "$name: fs key differs"
	[[ $name =~ cache-(on|off)-barrier-(on|off) ]] || fail "$name: unexpected name"
	cache=${BASH_REMATCH[1]} barrier=${BASH_REMATCH[2]}
	[[ $(conf_get "$d" write_cache) == "$cache" ]] || fail "$name: write_cache key differs"
	[[ $(conf_get "$d" write_cache_method) == sysfs ]] || fail "$name: loop devices have only sysfs"
	[[ $(conf_get "$d" barrier) == "$barrier" ]] || fail "$name: barrier key differs"
	js=$(conf_get "$d" journal_start_sector)
	jn=$(conf_get "$d" journal_sectors)
	[[ $js =~ ^[0-9]+$ && $jn =~ ^[1-9][0-9]*$ ]] || fail "$name: no journal range"
	parse_dest "$d"

	# Flushes: the RWBS of a flush starts with F (a pure one is FN).
	flushes=$(awk '$6 == "D" && $7 == "FN"' "$d/dest.txt" | wc -l)
	anyf=$(awk '$6 ~ /^[QDC]$/ && $7 ~ /^F/' "$d/dest.txt" | wc -l)
	if [[ $cache == on && $barrier == on ]]; then
		[[ $flushes -gt 0 ]] || fail "$name: no FN flush reached the destination"
	else
		[[ $anyf -eq 0 ]] || fail "$name: $anyf flush-tagged events with cache $cache, barrier $barrier"
	fi

	# Journal: writes with a preflush (FW...), and everything jbd2
	# queues, land in the recorded range.
	if [[ $cache == on && $barrier == on ]]; then
		out=$(awk -v s="$js" -v n="$jn" '$6 == "Q" && ($7 ~ /^FW/ || $NF ~ /^\[jbd2\//) {
			j++; if ($8 < s || $8 + $10 > s + n) bad++ }
			END { printf "%d %d", j, bad }' "$d/dest.txt")
		read -r j bad <<<"$out"
		[[ $j -gt 0 ]] || fail "$name: no journal writes found in the trace"
		[[ $bad -eq 0 ]] || fail "$name: $bad of $j journal writes outside $js+$jn"
		echo "$name: $flushes flushes, $j journal writes inside $js+$jn"
	fi
done
[[ $n -eq 10 ]] || fail "$n archives, expected 10"

# Nothing left behind.
left=$(new_since "$loops_before" "$(losetup -a | ours)")
[[ -z $left ]] || fail "loop devices left attached: $left"
left=$(new_since "$mounts_before" "$(ours </proc/self/mounts)")
[[ -z $left ]] || fail "mounts left behind: $left"
[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "tracer left on"
left=$(new_since "$work_before" "$({ compgen -G '/var/tmp/wccapture.*/dst.img' || true; } | ours)")
[[ -z $left ]] || fail "work directory left behind: $left"
