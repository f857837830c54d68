#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t66-kernel-counters.sh - the report beside the kernel's counters
# (counters.tsv, docs/methodology.md "The kernel's counters"): a trace
# that holds what the kernel completed agrees; one that lost events gets
# the share it holds, in text and JSON, and a finding naming what was
# lost; one with more than the kernel counted gets a finding too; a
# capture without counters says it could not be checked, and one whose
# counters cannot be used says why.  wcsynth's capture is made fresh;
# its counters are written here from the trace's own tally, so that the
# test holds whatever wcsynth draws.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
"$WCSYNTH" --capture "$TMP/x"
C=$TMP/x
HEAD=$'when\tdevice\tdisk\tstart_ns\tend_ns\tstat'

# No counters.tsv: said in the text and in JSON, and no finding.
"$WCANALYZE" "$C" >"$TMP/none.txt"
grep -qxF 'kernel counters: none (no counters.tsv): the trace could not be checked' \
	"$TMP/none.txt" || fail "no counters: not said: $(tail -n 3 "$TMP/none.txt")"
"$WCANALYZE" --format json "$C" >"$TMP/none.json"
jq -e '.captures[0].kernel_counters.state == "none" and
	(.captures[0].kernel_counters.why | test("could not be checked")) and
	([.findings[] | select(.kind == "kernel_counters")] | length == 0)' \
	"$TMP/none.json" >/dev/null || fail "no counters: JSON $(jq -c '.captures[0].kernel_counters' "$TMP/none.json")"
echo "ok: without counters"

# stat FIELDS...: a 17-field stat line with the given reads, sectors
# read, writes, sectors written, io_ticks, discards, sectors discarded,
# flushes.
stat17() {
	echo "$1 0 $2 0 $3 0 $4 0 0 $5 0 $6 0 $7 0 $8 0"
}
# counters BEFORE AFTER: counters.tsv of loop9, read long before the
# trace's first event and long after its last.
counters() {
	printf '%s\nbefore\tloop9\tloop9\t0\t1\t%s\nafter\tloop9\tloop9\t999000000000\t999000000001\t%s\n' \
		"$HEAD" "$1" "$2" >"$C/counters.tsv"
}

# The trace's own tally: against a kernel that counted nothing.
zero=$(stat17 0 0 0 0 0 0 0 0)
counters "$zero" "$zero"
"$WCANALYZE" --format json "$C" >"$TMP/tally.json"
t() { jq -r ".captures[0].kernel_counters.devices[0].$1.trace" "$TMP/tally.json"; }
reads=$(t reads) rs=$(t read_sectors) writes=$(t writes) ws=$(t write_sectors)
discards=$(t discards) ds=$(t discard_sectors) flushes=$(t flushes)
[[ $writes -gt 0 && $flushes -gt 0 && $discards -gt 0 ]] ||
	fail "wcsynth's trace has no writes, flushes or discards: $writes $flushes $discards"
jq -e '[.findings[] | select(.kind == "kernel_counters")][0].sentence |
	test("^The trace holds more than the kernel counted in x: on loop9 the trace holds [0-9,]+ reads")' \
	"$TMP/tally.json" >/dev/null || fail "more than the kernel: no finding: $(jq -c '.findings[0]' "$TMP/tally.json")"
echo "ok: more than the kernel counted"

# The kernel counted what the trace holds: they agree, no finding.
counters "$(stat17 100 800 1000 8000 5000 10 80 20)" \
	"$(stat17 $((100 + reads)) $((800 + rs)) $((1000 + writes)) $((8000 + ws)) 5400 \
		$((10 + discards)) $((80 + ds)) $((20 + flushes)))"
"$WCANALYZE" "$C" >"$TMP/agree.txt"
grep -qxF "  the trace holds 100 % of the writes the kernel completed, and agrees on every field" \
	"$TMP/agree.txt" || fail "agreement: $(grep -A3 "kernel's counters" "$TMP/agree.txt")"
grep -q '^  busy [0-9.]* s in the trace, io_ticks 0.400 s: io_ticks advances in jiffies' \
	"$TMP/agree.txt" || fail "agreement: io_ticks not beside busy"
"$WCANALYZE" --format json "$C" >"$TMP/agree.json"
jq -e '.captures[0].kernel_counters.devices[0] | .agrees and
	.held == "the trace holds 100 % of the writes the kernel completed" and
	.writes.kernel == .writes.trace and .io_ticks_s == 0.4' "$TMP/agree.json" >/dev/null ||
	fail "agreement: JSON $(jq -c '.captures[0].kernel_counters.devices[0]' "$TMP/agree.json")"
jq -e '[.findings[] | select(.kind == "kernel_counters")] | length == 0' "$TMP/agree.json" >/dev/null ||
	fail "agreement: a kernel_counters finding"
echo "ok: agreement"

# The kernel completed 1,204 writes more: events were lost.  The share
# is cut, never rounded up.
counters "$(stat17 100 800 1000 8000 5000 10 80 20)" \
	"$(stat17 $((100 + reads)) $((800 + rs)) $((1000 + writes + 1204)) $((8000 + ws)) 5400 \
		$((10 + discards)) $((80 + ds)) $((20 + flushes)))"
pm=$((writes * 1000 / (writes + 1204)))
held="the trace holds $((pm / 10)).$((pm % 10)) % of the writes the kernel completed"
"$WCANALYZE" "$C" >"$TMP/lost.txt"
grep -qxF "  $held" "$TMP/lost.txt" || fail "lost: '$held' not in $(grep -A3 "kernel's counters" "$TMP/lost.txt")"
grep -q '^  writes  .* events lost$' "$TMP/lost.txt" || fail "lost: the writes row not marked"
sed -n '2,4p' "$TMP/lost.txt" | tr '\n' ' ' | tr -s ' ' >"$TMP/lost.first"
grep -qF -- "- Events were lost in x: on loop9 the kernel completed 1,204 writes the trace does not have ($held)" "$TMP/lost.first" ||
	fail "lost: not the first finding: $(sed -n '1,5p' "$TMP/lost.txt")"
"$WCANALYZE" --format json "$C" >"$TMP/lost.json"
jq -e --arg held "$held" '.captures[0].kernel_counters.devices[0] |
	(.agrees | not) and .held == $held and .writes.missing == 1204' \
	"$TMP/lost.json" >/dev/null || fail "lost: JSON $(jq -c '.captures[0].kernel_counters.devices[0]' "$TMP/lost.json")"
jq -e '.findings[0] | .kind == "kernel_counters" and .missing_writes == 1204 and
	.device == "loop9" and (.sentence | test("Events were lost in x: on loop9 the kernel completed 1,204 writes the trace does not have"))' \
	"$TMP/lost.json" >/dev/null || fail "lost: JSON finding $(jq -c '.findings[0]' "$TMP/lost.json")"
echo "ok: events lost"

# From an archive as from a folder; and in a comparison the other
# captures that differ are named.  The other is another recording (named
# y): the same one given twice counts once (ca398c7).
tar -C "$TMP" -cJf "$TMP/x.tar.xz" x
cp -a "$C" "$TMP/y"
sed -i 's/^name = x$/name = y/' "$TMP/y/capture.conf"
"$WCANALYZE" --format json "$TMP/x.tar.xz" "$TMP/y" >"$TMP/two.json"
jq -e '.captures[0].kernel_counters.devices[0].writes.missing == 1204 and
	([.findings[] | select(.kind == "kernel_counters")][0].others == "y")' \
	"$TMP/two.json" >/dev/null || fail "archive: $(jq -c '[.findings[] | select(.kind == "kernel_counters")]' "$TMP/two.json")"
echo "ok: archive and comparison"

# Counters that cannot be used: why, in text and JSON.
printf '%s\nbefore\tloop9\tloop9\t0\t1\t%s\n' "$HEAD" "$zero" >"$C/counters.tsv"
"$WCANALYZE" "$C" >"$TMP/half.txt"
tail -n 2 "$TMP/half.txt" | tr '\n' ' ' | tr -s ' ' >"$TMP/half.tail"
grep -qxF 'kernel counters: not compared, so the trace could not be checked: loop9: no reading after the workload ' \
	"$TMP/half.tail" ||
	fail "half: $(tail -n 3 "$TMP/half.txt")"
"$WCANALYZE" --format json "$C" >"$TMP/half.json"
jq -e '.captures[0].kernel_counters | .state == "not_compared" and
	.why == "loop9: no reading after the workload"' "$TMP/half.json" >/dev/null ||
	fail "half: JSON $(jq -c '.captures[0].kernel_counters' "$TMP/half.json")"
echo "ok: counters not usable"
