#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t73-off-device.sh - the time off the device in a single capture's
# findings (issue 43): what the trace cannot tell is "off the device: not
# seen by the block layer", never "the page cache, throttling, sleeping";
# the recorded load average (capture.conf host_loadavg_before,
# host_cpus) and the command's CPU time (phases.tsv) come first; a
# window (--window, --phase) takes the CPU time of the phases it holds
# whole only, and says so when it cuts one, and no other device's busy
# time from outside it (one device traced: none at all).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
"$WCSYNTH" --capture "$TMP/x" >/dev/null
C=$TMP/x
# The command's times: copy 0.3 + 0.9 s of CPU, delete 0.1 + 0.6 s.
awk -F '\t' -v OFS='\t' '
	$1 == "copy" { $4 = 8.689; $5 = 0.3; $6 = 0.9 }
	$1 == "delete" { $4 = 5.830; $5 = 0.1; $6 = 0.6 }
	{ print }' "$C/phases.tsv" >"$TMP/phases" && mv "$TMP/phases" "$C/phases.tsv"

# idle JSON: the device_idle finding.
idle() { jq -c '[.findings[] | select(.kind == "device_idle")][0]' "$1"; }
# holds JSON JQ: the device_idle finding satisfies JQ.
holds() { jq -e "[.findings[] | select(.kind == \"device_idle\")][0] | $2" "$1" >/dev/null; }

run() {
	local out=$1
	shift
	"$WCANALYZE" --format json "$@" "$C" >"$TMP/$out.json" || fail "$out: exit $?"
}

# No load recorded: the CPU time, then the rest in the block layer's
# words, and nothing named the trace cannot see.
run plain
holds "$TMP/plain.json" '(.cpu_s | . > 1.899 and . < 1.901) and
	(.sentence | contains("off the device: not seen by the block layer")) and
	(.sentence | contains("page cache") | not) and (.sentence | contains("load") | not)' ||
	fail "plain: $(idle "$TMP/plain.json")"
echo "ok: the rest is off the device, not seen by the block layer"

# A busy host: the load average before the command, on its CPUs, said
# before anything else is named.
printf 'host_cpus = 2\nhost_loadavg_before = 6.80 5.10 3.00\nhost_loadavg_after = 7.10 6.00 4.00\n' >>"$C/capture.conf"
run busy
holds "$TMP/busy.json" '.load_before == 6.8 and .host_cpus == 2 and
	(.sentence | contains("load average before the command was 6.80 on 2 CPUs")) and
	(.sentence | contains("waited for a CPU")) and
	(.sentence | contains("page cache") | not)' ||
	fail "busy: $(idle "$TMP/busy.json")"
echo "ok: a busy host's load is said"

# A quiet host: the load says the CPUs were free; only then the page
# cache is named, as a likelier cause, never as a finding of the trace.
sed -i 's/^host_loadavg_before = .*/host_loadavg_before = 0.20 0.30 0.40/' "$C/capture.conf"
run quiet
holds "$TMP/quiet.json" '.load_before == 0.2 and
	(.sentence | contains("load average before the command was 0.20 on 2 CPUs")) and
	(.sentence | test("load average.*page cache"))' ||
	fail "quiet: $(idle "$TMP/quiet.json")"
echo "ok: a quiet host's load comes before the page cache"

# --phase delete: the delete's CPU time only (0.7 s), not the command's.
run phase --phase delete
holds "$TMP/phase.json" '(.cpu_s | . > 0.699 and . < 0.701) and .other_device_s == 0' ||
	fail "--phase delete: CPU time not the phase's: $(idle "$TMP/phase.json")"
echo "ok: --phase takes its phase's CPU time"

# --window cutting the copy: its CPU time is not known within the window.
run window --window 0,5
holds "$TMP/window.json" '(has("cpu_s") | not) and .other_device_s == 0 and
	(.sentence | contains("the window cuts phase copy"))' ||
	fail "--window: $(idle "$TMP/window.json")"
echo "ok: a window that cuts a phase takes no CPU time from it"

# The comparison table's legend says the same of its offdev column.
cp -r "$C" "$TMP/y"
sed -i 's/^barrier = .*/barrier = off/; s/^name = .*/name = y/' "$TMP/y/capture.conf"
"$WCANALYZE" "$C" "$TMP/y" >"$TMP/cmp.txt" || fail "comparison: exit $?"
tr '\n' ' ' <"$TMP/cmp.txt" >"$TMP/cmp.line"
grep -q 'offdev = device idle *(off the device: *not seen by the block layer)' "$TMP/cmp.line" ||
	fail "the offdev legend: $(grep -A1 'offdev' "$TMP/cmp.txt")"
echo "ok: the comparison's offdev legend"
