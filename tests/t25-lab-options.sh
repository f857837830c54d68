#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t25-lab-options.sh - --source DIR is copied and never changed, --runs
# repeats a configuration, --first-run numbers its runs, --name prefixes
# the archives, and the counts in capture.conf are those of the source
# tree; without --disk the destination is the default model disk,
# hdd7200, with its ledger; a warm-up capture is kept apart, run k of
# every configuration comes before run k + 1 in a shuffled order each
# capture records, with the host's state.  --workload seed puts the
# source and the destination on one model disk (--one-disk on by
# default): both loop devices traced, the ledger's regions those of
# capture.conf's disk_regions, the source only read, at its own sectors.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait
need_wcdisk

src=$TMP/src
mkdir -p "$src/a/b"
cp -a "$TOP/docs" "$TOP/capture" "$src/a/b/"
head -c 300000 /dev/urandom >"$src/a/big"
: >"$src/empty"
snapshot() { (cd "$src" && find . -printf '%p %s %m %T@\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort); }
before=$(snapshot)
files=$(find "$src" -type f | wc -l)
bytes=$(find "$src" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')

rc=0
bash "$TOP/capture/wccapture" lab --fs ext4 --cache on,off --barrier on --runs 2 --first-run 3 \
	--order-seed 11 --source "$src" --name pre --recorder tracefs -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
[[ $(snapshot) == "$before" ]] || fail "the source tree changed"
for run in 3 4; do
	a=$TMP/out/pre-hdd7200-ext4-cache-on-barrier-on-run$run.tar.gz
	[[ -f $a ]] || fail "no $(basename "$a")"
	d=$(archive_open "$a")
	archive_check "$d" 1
	[[ $(conf_get "$d" source_files) == "$files" ]] || fail "run $run: source_files $(conf_get "$d" source_files), expected $files"
	[[ $(conf_get "$d" source_bytes) == "$bytes" ]] || fail "run $run: source_bytes $(conf_get "$d" source_bytes), expected $bytes"
	parse_dest "$d"
	[[ $(conf_get "$d" disk_model) == hdd7200 ]] || fail "run $run: disk_model '$(conf_get "$d" disk_model)', expected the default hdd7200"
	[[ $(conf_get "$d" write_cache_method) == model ]] || fail "run $run: write_cache_method is not model"
	[[ $(wc -l <"$d/ledger.tsv") -gt 1 ]] || fail "run $run: empty ledger"
done
[[ $(grep -cE '^ext4 +on +on +[34] ' "$TMP/table") -eq 2 ]] || { cat "$TMP/table"; fail "table lacks the two runs"; }
echo "ok: $files files, $bytes bytes, two runs"

# The run design (docs/capture-format.md, "Host state and the run
# design"): one warm-up, of the configuration round 3 begins with, saved
# apart; run 3 of both configurations before run 4, each round in the
# order its captures record; the host's state in every capture.conf.
mapfile -t warm < <(cd "$TMP/out" && ls warmup/)
[[ ${#warm[@]} -eq 1 && ${warm[0]} =~ ^pre-hdd7200-ext4-cache-(on|off)-barrier-on-run3-warmup\.tar\.gz$ ]] ||
	fail "warm-ups: ${warm[*]}"
wcache=${BASH_REMATCH[1]}
d=$(archive_open "$TMP/out/warmup/${warm[0]}")
[[ $(conf_get "$d" run_role) == warmup && $(conf_get "$d" lab_position) == 0 ]] ||
	fail "the warm-up's capture.conf: role $(conf_get "$d" run_role), position $(conf_get "$d" lab_position)"
[[ $(grep -cE '^ext4 +(on|off) +on +w ' "$TMP/table") -eq 1 ]] || { cat "$TMP/table"; fail "the table lacks the warm-up"; }
first=$(conf_get "$d" lab_round_order)
[[ ${first%% *} == "ext4/$wcache/on" ]] || fail "the warm-up is not round 3's first configuration: $first"
for run in 3 4; do
	for cache in on off; do
		d=$(archive_open "$TMP/out/pre-hdd7200-ext4-cache-$cache-barrier-on-run$run.tar.gz")
		order=$(conf_get "$d" lab_round_order)
		[[ $order == "ext4/on/on ext4/off/on" || $order == "ext4/off/on ext4/on/on" ]] ||
			fail "run $run: lab_round_order '$order'"
		# Its place: after the whole round before it, at its index in
		# its round's order.
		k=1
		[[ ${order%% *} == "ext4/$cache/on" ]] || k=2
		want=$(((run - 3) * 2 + k))
		[[ $(conf_get "$d" lab_position) == "$want" && $(conf_get "$d" run) == "$run" &&
			$(conf_get "$d" run_role) == measured && $(conf_get "$d" lab_order_seed) == 11 ]] ||
			fail "run $run cache $cache: position $(conf_get "$d" lab_position), expected $want"
		[[ $(conf_get "$d" host_cpus) == "$(nproc)" &&
			$(conf_get "$d" vm_dirty_ratio) == "$(cat /proc/sys/vm/dirty_ratio)" &&
			$(conf_get "$d" host_mem_total_kb) == "$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)" &&
			$(conf_get "$d" host_loadavg_before) =~ ^[0-9.]+\ [0-9.]+\ [0-9.]+$ &&
			$(conf_get "$d" host_loadavg_after) =~ ^[0-9.]+\ [0-9.]+\ [0-9.]+$ &&
			$(conf_get "$d" host_dirty_kb_end) =~ ^[0-9]+$ &&
			$(conf_get "$d" tool_commit) =~ ^([0-9a-f]{12}|unknown)$ ]] ||
			fail "run $run cache $cache: host state: $(grep -E '^(host|vm|tool)_' "$d/capture.conf")"
	done
done
echo "ok: a warm-up, then the rounds in their recorded order, the host's state"

# One disk, two partitions: the seed workload's default.
rc=0
bash "$TOP/capture/wccapture" lab --workload seed --scale 0.005 --fs ext4 --cache on \
	--barrier on --warmup 0 --recorder tracefs -o "$TMP/seed" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "seed lab exited $rc: $(tail -n 3 "$TMP/log")"
d=$(archive_open "$TMP/seed/hdd7200-ext4-cache-on-barrier-on-run1.tar.gz")
archive_check "$d" 1
read -r r0 r1 rest <<<"$(conf_get "$d" disk_regions)"
[[ -n $r0 && -n $r1 && -z $rest ]] || fail "disk_regions '$(conf_get "$d" disk_regions)': expected two devices"
[[ $r0 == "$(conf_get "$d" destination)" ]] || fail "region 0 $r0 is not the destination"
[[ $(conf_get "$d" "device.$r1.role") == source ]] || fail "region 1 $r1 is not the source"
for dev in "$r0" "$r1"; do
	compgen -G "$d/trace/$dev.blktrace.*" >/dev/null || fail "$dev not traced"
done
# every read the ledger has in region 1 is one the trace saw complete on
# the source's loop device (7, N), at the same sector: region-relative
src_reads=$("$WCANALYZE" --dump "$TMP/seed/hdd7200-ext4-cache-on-barrier-on-run1.tar.gz" |
	awk -v dev="7,${r1#loop}" '$1 == dev && $6 == "C" && $7 ~ /R/ { print $8 "+" $10 }' | sort -u)
missing=$(awk -F '\t' 'NR > 1 && $22 == 1 && $2 == "R" { print $3 "+" $4 / 512 }' "$d/ledger.tsv" |
	sort -u | comm -23 - <(echo "$src_reads") | sed -n 1,3p)
[[ -n $src_reads && -z $missing ]] || fail "region 1 reads not in the source's trace: ${missing:-no reads traced}"
awk -F '\t' 'NR > 1 {
	if ($22 == 1 && $2 != "R" && $2 != "S") { print "region 1 (the source) got " $2; exit 1 }
	if ($22 == 1 && $2 == "R") src++
	if ($22 == 0 && $2 == "W") dst++
	if ($22 > 1) { print "region " $22; exit 1 }
} END { if (src == 0 || dst == 0) { print "reads of the source " src ", writes of the destination " dst; exit 1 } }' \
	"$d/ledger.tsv" || fail "ledger regions wrong"
echo "ok: seed on one disk: $r0 and $r1, $(awk -F '\t' 'NR > 1 && $22 == 1' "$d/ledger.tsv" | wc -l) requests to the source"
