#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t78-lab-memory.sh - the report's machine: the seed workload runs by
# default in a memory cgroup of 1G (a desktop of 2008) at the dirty
# limits of its 2.6.23/24 kernels, 10 % and 5 % of that memory (cgroup v2:
# vm.dirty_ratio 10 and dirty_background_ratio 5, which writeback applies
# to the group's memory; v1: host-wide dirty_bytes and
# dirty_background_bytes of those shares).  capture.conf says what was
# set and what the host had; the host's settings are put back after the
# capture and after a SIGTERM in the middle of one.  No timing bound:
# the run is stopped at its copy phase (WCCAPTURE_TEST_STOP) to look.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

WCC=$TOP/capture/wccapture
need_root
tracer_wait
need_wcdisk

# The host's write-back settings, in capture.conf's lab_vm_dirty_host order.
vm() {
	local k out=""
	for k in dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes; do
		out+="${out:+ }$k=$(cat "/proc/sys/vm/$k")"
	done
	echo "$out"
}
before=$(vm)
echo "host: $before"

rc=0
bash "$WCC" lab --workload seed --scale 0.05 --fs ext4 --cache on --barrier on \
	--warmup 0 -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
[[ $(vm) == "$before" ]] || fail "the host's settings not put back: $(vm), found $before"
d=$(archive_open "$TMP/out/hdd7200-ext4-cache-on-barrier-on-run1.tar.gz")
grep -E '^(copy_memory_limit|lab_vm_dirty|lab_vm_dirty_host|lab_memcg|vm_dirty_[a-z_]*) ' "$d/capture.conf"
[[ $(conf_get "$d" copy_memory_limit) == 1G ]] ||
	fail "copy_memory_limit '$(conf_get "$d" copy_memory_limit)', not the default 1G"
[[ $(conf_get "$d" lab_vm_dirty_host) == "$before" ]] ||
	fail "lab_vm_dirty_host '$(conf_get "$d" lab_vm_dirty_host)', the host had $before"
g=$((1024 * 1024 * 1024))
case $(conf_get "$d" lab_memcg) in
v2)
	want="dirty_ratio=10 dirty_background_ratio=5"
	[[ $(conf_get "$d" vm_dirty_ratio) == 10 && $(conf_get "$d" vm_dirty_background_ratio) == 5 ]] ||
		fail "v2: vm_dirty_ratio and vm_dirty_background_ratio are not 10 and 5"
	;;
v1)
	want="dirty_bytes=$((g / 10)) dirty_background_bytes=$((g / 20))"
	[[ $(conf_get "$d" vm_dirty_bytes) == $((g / 10)) &&
		$(conf_get "$d" vm_dirty_background_bytes) == $((g / 20)) ]] ||
		fail "v1: vm_dirty_bytes and vm_dirty_background_bytes are not 10 % and 5 % of 1G"
	;;
*) fail "lab_memcg '$(conf_get "$d" lab_memcg)'" ;;
esac
[[ $(conf_get "$d" lab_vm_dirty) == "$want" ]] ||
	fail "lab_vm_dirty '$(conf_get "$d" lab_vm_dirty)', not '$want'"

# A SIGTERM while the copy runs under the lab's settings puts them back.
set -m
WCCAPTURE_TEST_STOP=copy bash "$WCC" lab --disk loop --workload tree --files 20 --size 1M \
	--memory 512M --fs ext4 --cache on --barrier on --warmup 0 -o "$TMP/term" \
	>/dev/null 2>"$TMP/term.log" &
BG_PID=$!
set +m
for ((i = 0; i < 1800; i++)); do
	[[ $(awk '{ print $3 }' "/proc/$BG_PID/stat" 2>/dev/null) == T ]] && break
	kill -0 "$BG_PID" 2>/dev/null || fail "the lab ended before its copy: $(tail -n 3 "$TMP/term.log")"
	sleep 0.05
done
during=$(vm)
echo "during the copy: $during"
[[ $during != "$before" ]] || fail "the copy runs under the host's own settings"
kill -TERM "$BG_PID"
kill -CONT "$BG_PID"
rc=0
wait "$BG_PID" || rc=$?
BG_PID=""
[[ $rc -eq 143 ]] || fail "SIGTERM: exit $rc: $(tail -n 3 "$TMP/term.log")"
[[ $(vm) == "$before" ]] || fail "after SIGTERM the host's settings are $(vm), found $before"
echo "ok: $want for the copy, the host's put back"
