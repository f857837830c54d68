#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t57-crash.sh - power cuts on the model disk (wccapture crash): a small
# seeded run on ext4 with the disk's cache on.  With barriers off at least
# one cut loses fsynced data or corrupts the filesystem; with barriers on
# none does (every cut clean or repaired by journal replay).  Then the
# same run interrupted by SIGTERM in its cuts exits 143; either way no
# loop device, mount, FUSE mount, wcdisk or work folder of the run is left
# and the loop devices' write_cache settings are as they were.
#
# How deterministic: the cuts' kinds and random choices follow --seed,
# but the platter log they are chosen from is what the kernel sent in
# this run (its timing, writeback and journal commits vary), so the
# times, and which cuts lose what, differ between runs.  What is asserted
# holds in every run: a cut just after an fsync returned, with barriers
# off, finds that fsync's data still in the volatile cache (the model
# destages only after 100 ms idle, and the workload is smaller than the
# cache); with barriers on every fsync waited for its flush.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

W=$TOP/capture/wccapture

# usage errors need no root
expect_exit 2 bash "$W" crash --cache maybe
expect_exit 2 bash "$W" crash --cuts 0
expect_exit 2 bash "$W" crash --tear half

need_root
need_wcdisk

# --print-params reaches crash through a pipe, never a file of a name
# anyone can guess in TMPDIR (a link planted there made root write
# through it): with TMPDIR a folder that does not exist the disk's
# parameters are still read, and its power-loss protection refused.
rc=0
TMPDIR=$TMP/no-such-folder bash "$W" crash --disk ssd-plp --fs ext4 \
	-o "$TMP/plp" >/dev/null 2>"$TMP/plp.err" || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q 'power-loss protection (plp = on)' "$TMP/plp.err"; then
	fail "crash --disk ssd-plp with TMPDIR missing: exit $rc: $(cat "$TMP/plp.err")"
fi

works_before=$(compgen -G '/var/tmp/wccapture.*' || true)
before=$(loop_settings)

# What this test's runs may have left: a work folder that was not there
# before, and any loop device or mount inside one.
nothing_left() {
	local w
	for w in $(compgen -G '/var/tmp/wccapture.*' || true); do
		grep -qx -- "$w" <<<"$works_before" && continue
		fail "$1: work folder $w left"
	done
	# the work folders are gone, so a device or mount naming one is ours
	for w in $(losetup -n -O BACK-FILE 2>/dev/null | grep -o '/var/tmp/wccapture\.[^/]*' || true); do
		[[ -d $w ]] || fail "$1: a loop device on $w is left: $(losetup -a)"
	done
	for w in $(awk '{ print $2 }' /proc/self/mounts | grep -o '/var/tmp/wccapture\.[^/]*' || true); do
		[[ -d $w ]] || fail "$1: a mount in $w is left"
	done
	loop_settings_kept "$before" "$1"
}

out=$TMP/out
bash "$W" crash --fs ext4 --cache on --barrier on,off --cuts 6 --seed 3 --disk-param idle_destage=off \
	--files 12 -o "$out" >"$TMP/table" 2>"$TMP/log" ||
	fail "wccapture crash failed: $(tail -n 3 "$TMP/log")"
nothing_left "a crash run"
summary=$out/crash.tsv
[[ $(wc -l <"$summary") -eq 3 ]] || fail "crash.tsv: not two configurations: $(cat "$summary")"
# fs cache barrier seed tear cuts clean replayed corrupt lost reproduce
read -r _ _ _ _ _ n_on clean_on rep_on bad_on lost_on _ < <(awk -F '\t' '$3 == "on"' "$summary")
read -r _ _ _ _ _ n_off _ _ bad_off lost_off _ < <(awk -F '\t' '$3 == "off"' "$summary")
[[ $n_on == 6 && $n_off == 6 ]] || fail "not 6 cuts each: $(cat "$summary")"
((bad_on == 0 && lost_on == 0 && clean_on + rep_on == 6)) ||
	fail "barriers on: a cut lost fsynced data or corrupted: $(cat "$out/ext4-cache-on-barrier-on/cuts.tsv")"
((bad_off + lost_off >= 1)) ||
	fail "barriers off: no cut lost fsynced data or corrupted: $(cat "$out/ext4-cache-on-barrier-off/cuts.tsv")"
# the promises were checked: some were due, and with barriers off an
# after-fsync cut broke at least the fsync just returned
awk -F '\t' 'NR > 1 && $2 == "after-fsync" && $6 > 0 { due++ } END { exit !(due >= 1) }' \
	"$out/ext4-cache-on-barrier-on/cuts.tsv" || fail "barriers on: no after-fsync cut with promises due"
awk -F '\t' 'NR > 1 && $2 == "after-fsync" && $7 > 0 { n++ } END { exit !(n >= 1) }' \
	"$out/ext4-cache-on-barrier-off/cuts.tsv" || fail "barriers off: no after-fsync cut broke a promise"
grep -q 'wccapture crash --fs ext4 --cache on --barrier off --cuts 6 --seed 3' "$summary" ||
	fail "crash.tsv has no command to reproduce a configuration"
echo "ok: barriers on: $clean_on clean, $rep_on repaired by replay; barriers off: $bad_off corrupt, $lost_off fsynced data lost (of 6)"

# SIGTERM while it checks its cuts: exit 143, nothing left
set -m
bash "$W" crash --fs ext4 --cache on --barrier on --cuts 40 --files 8 \
	-o "$TMP/out2" >/dev/null 2>"$TMP/log2" &
BG_PID=$!
set +m
for ((i = 0; i < 600; i++)); do
	grep -q ': cut 2 ' "$TMP/log2" && break
	kill -0 "$BG_PID" 2>/dev/null || break
	sleep 0.1
done
grep -q ': cut 2 ' "$TMP/log2" || fail "the interrupted run never reached its second cut: $(tail -n 3 "$TMP/log2")"
kill -TERM "$BG_PID"
rc=0; wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 143 ]] || fail "SIGTERM: exit $rc, expected 143: $(tail -n 3 "$TMP/log2")"
nothing_left "SIGTERM"
echo "ok: SIGTERM during the cuts: exit 143, nothing left"
