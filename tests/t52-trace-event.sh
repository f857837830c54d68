#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t52-trace-event.sh - the timeline for Perfetto and chrome://tracing
# (issue 27): --format trace-event and --export-trace write the Trace
# Event Format's JSON as its documentation asks (every event has ph, ts,
# pid and tid; B and E pair on each thread; ts never decreases on a
# thread: tests/lib/check-trace-event.py), on a recorded sample, on a
# merged "blkparse -d" file and on standard input; a slice per completed
# request, as many as --dump's completions less those that end a flush
# sequence; names from the input reach the JSON escaped; a bundle's
# CAPTURE/timeline.json.gz is the same JSON, gzip-compressed.  Times
# 2^63 ns apart keep the structure; --timeline-limit bounds the events
# even when no request is ever drawn.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v python3 >/dev/null || fail "python3 is needed (scripts/deps.sh installs it)"
CHECK=$TOP/tests/lib/check-trace-event.py
SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
cd "$TMP"

# slices FILE: the slices drawn, from otherData.
slices() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["slices"]+c["not_drawn"] for c in d["otherData"]["captures"]))' "$1"
}
# completions INPUT: C lines of --dump less the sequence ends, orphan
# completions and completions of requests in flight when recording began
# the JSON report counts (tracker.h): the completed requests.
completions() {
	local c s
	c=$("$WCANALYZE" --dump "$1" | awk '$6 == "C"' | wc -l)
	s=$("$WCANALYZE" --format json "$1" |
		jq '[.captures[].tracking | .sequence_ends + .orphan_completions + .began_in_flight] | add')
	echo $((c - s))
}

# ---- a recorded sample --------------------------------------------------
"$WCANALYZE" --format trace-event "$SAMPLE" >sample.json 2>err ||
	fail "--format trace-event: exit $?: $(cat err)"
python3 "$CHECK" sample.json 1000 || fail "sample: structure"
want=$(completions "$SAMPLE")
got=$(slices sample.json)
[[ $got -eq $want ]] || fail "sample: $got slices, --dump has $want completed requests"
# The flush lanes, the counters and the phases are there.
jq -e '[.traceEvents[] | select(.ph == "B" and .name == "flush")] | length > 0' sample.json >/dev/null ||
	fail "sample: no flush slice"
jq -e '[.traceEvents[] | select(.ph == "B" and .name == "flush")] | all(.tid > 100000)' sample.json >/dev/null ||
	fail "sample: a flush not on the flush lanes"
jq -e '[.traceEvents[] | select(.ph == "B" and .name == "flush") | .args.issued_by] | index("jbd2/loop0-8") != null' sample.json >/dev/null ||
	fail "sample: flushes not credited to jbd2"
for c in "queue depth" "MB/s" "unflushed writes (bytes)"; do
	jq -e --arg c "$c" '[.traceEvents[] | select(.ph == "C" and .name == $c)] | length > 0' sample.json >/dev/null ||
		fail "sample: no counter '$c'"
done
jq -e '[.traceEvents[] | select(.cat == "phase") | .name] == ["copy", "copy", "delete", "delete"] or ([.traceEvents[] | select(.ph == "B" and .cat == "phase") | .name] == ["copy", "delete"])' sample.json >/dev/null ||
	fail "sample: the phases are not slices"

# --export-trace writes the same timeline beside the report.
"$WCANALYZE" --export-trace exported.json "$SAMPLE" >report.txt 2>err ||
	fail "--export-trace: exit $?: $(cat err)"
cmp -s sample.json exported.json || fail "--export-trace differs from --format trace-event"
grep -q '^findings' report.txt || fail "--export-trace: no report"

# ---- a merged blkparse -d file, and standard input ----------------------
mkdir trace
tar -xJf "$SAMPLE" -C trace --strip-components=2 --wildcards '*/trace/*'
blkparse -q -D trace -i loop0 -i loop2 -d merged.bin -O >/dev/null
"$WCANALYZE" --format trace-event merged.bin >merged.json 2>err ||
	fail "merged: exit $?: $(cat err)"
python3 "$CHECK" merged.json 1000 || fail "merged: structure"
want=$(completions merged.bin)
got=$(slices merged.json)
[[ $got -eq $want ]] || fail "merged: $got slices, --dump has $want completed requests"
"$WCANALYZE" --format trace-event - <merged.bin >stdin.json 2>err ||
	fail "stdin: exit $?: $(cat err)"
python3 "$CHECK" stdin.json 1000 || fail "stdin: structure"

# Two inputs: one file, two captures' processes, each still well formed.
"$WCANALYZE" --format trace-event "$SAMPLE" merged.bin >two.json 2>err ||
	fail "two inputs: exit $?: $(cat err)"
python3 "$CHECK" two.json 2000 >/dev/null || fail "two inputs: structure"
[[ $(jq '.otherData.captures | length' two.json) -eq 2 ]] || fail "two inputs: not two captures"

# ---- hostile names: capture, phase and process ---------------------------
"$WCSYNTH" -c -n 200 -S 3 cap >/dev/null
sed -i '/^name = /d' cap/capture.conf
printf 'name = %s\n' "$(printf 'x"\\\001\033]0;t\a\xff\xfe</script>')" >>cap/capture.conf
printf '%s\t1000000000\t2000000000\t0\t0\t0\n' "$(printf 'ph"\\\001\xc3(')" >cap/phases.tsv
# A process name of 13 bytes in the notify records: quote, backslash,
# control, invalid UTF-8, a right-to-left override.
python3 - cap/trace/*.blktrace.* <<'PY'
import sys
bad = b'x"\\\x01\xff\xe2\x80\xae<a>\x7f!'
assert len(bad) == len(b"xfsaild/loop9")
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    open(p, "wb").write(b.replace(b"xfsaild/loop9", bad))
PY
"$WCANALYZE" --format trace-event cap >hostile.json 2>err || fail "hostile: exit $?: $(cat err)"
python3 "$CHECK" hostile.json 10 || fail "hostile names: structure"
python3 - hostile.json <<'PY' || fail "hostile names: not kept exactly (as U+FFFD where not UTF-8)"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = {e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and "name" in e.get("args", {})}
procs = {e["args"].get("process") for e in d["traceEvents"] if e["ph"] == "B" and "args" in e}
assert any(n.startswith('x"\\\x01\x1b]0;t\x07\ufffd\ufffd</script>') for n in names), names
assert 'ph"\\\x01\ufffd(' in names, names
assert 'x"\\\x01\ufffd\u202e<a>\x7f!' in procs, procs
PY
# ---- times 2^63 ns apart, and a bounded size (issue 39) -------------------
# A write completing 2^63 ns after its dispatch, and a phase ending past
# it: no time before the first event (UBSan negated INT64_MIN), the
# phase's end not before its start (it wrapped to -9.2e15 us).  Then a
# capture of 20,000 dispatches that never complete: with --timeline-limit
# 10, at most 16 * 10 + 300 events (traceevent.h), none over 4 KiB.
mkdir -p far/trace flood/trace
python3 - <<'PY'
import struct
def act(what, *cats):
    return what | sum(1 << (16 + c) for c in cats)
def write(path, recs):
    with open(path, 'wb') as f:
        for seq, (t, a) in enumerate(recs, 1):
            f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, 8, 4096,
                                a, 100, (7 << 20) | 1, 0, 0, 0))
t0 = 1000000000
write('far/trace/loop1.blktrace.0', [(t0, act(1, 1, 4)), (t0, act(7, 1, 6)),
                                     (t0 + (1 << 63), act(8, 1, 7))])
with open('far/phases.tsv', 'w') as f:
    f.write('copy\t%d\t%d\t1\t0\t0\n' % (t0 + 5, t0 + (1 << 63) + 5))
write('flood/trace/loop1.blktrace.0',
      [(t0 + i * 1000, act(7, 1, 6)) for i in range(20000)])
for d in ('far', 'flood'):
    with open(d + '/capture.conf', 'w') as f:
        f.write('format_version = 1\nname = %s\n' % d)
PY
"$WCANALYZE" --format trace-event far >far.json 2>err || fail "far: exit $?: $(cat err)"
python3 "$CHECK" far.json 1 >/dev/null || fail "far: structure"
jq -e '[.traceEvents[].ts] | min >= 0' far.json >/dev/null || fail "far: a time before the first event"
"$WCANALYZE" --format trace-event --timeline-limit 10 flood >flood.json 2>err ||
	fail "flood: exit $?: $(cat err)"
grep -q 'the timeline ends at' err || fail "flood: no word on where the timeline ends: $(cat err)"
python3 "$CHECK" flood.json 0 >/dev/null || fail "flood: structure"
n=$(jq '.traceEvents | length' flood.json)
((n <= 16 * 10 + 300)) || fail "flood: $n events with --timeline-limit 10"
awk 'length > 4096 { exit 1 }' flood.json || fail "flood: an event over 4 KiB"
expect_exit 2 "$WCANALYZE" --timeline-limit 10 flood
expect_exit 2 "$WCANALYZE" --format trace-event --timeline-limit -1 flood

# ---- the bundle: each capture's timeline.json.gz, linked ------------------
WCANALYZE_GNUPLOT='' "$WCANALYZE" -o bundle "$SAMPLE" merged.bin >/dev/null 2>err ||
	fail "bundle: exit $?: $(cat err)"
for d in loop-ext4-cache-on-barrier-on-run1 merged.bin; do
	tl=bundle/$d/timeline.json.gz
	[[ -f $tl ]] || fail "bundle: no $tl: $(ls "bundle/$d")"
	[[ ! -e bundle/$d/timeline.json ]] || fail "bundle: $d/timeline.json beside the .gz"
	gzip -t "$tl" || fail "bundle: $tl is not whole gzip"
	python3 "$CHECK" "$tl" 1000 >/dev/null || fail "bundle: $tl"
	grep -q "href=\"$d/timeline.json.gz\"" bundle/index.html || fail "bundle: index.html does not link $tl"
done
# The same JSON as --format trace-event's, at a fraction of its size.
gunzip -c bundle/loop-ext4-cache-on-barrier-on-run1/timeline.json.gz | cmp -s sample.json - ||
	fail "bundle: the timeline differs from --format trace-event's"
raw=$(wc -c <sample.json)
gz=$(wc -c <bundle/loop-ext4-cache-on-barrier-on-run1/timeline.json.gz)
[[ $((gz * 5)) -lt $raw ]] || fail "bundle: the timeline takes $gz bytes compressed, of $raw"
[[ -z $(find bundle -name '.wc-*') ]] || fail "bundle: a timeline left under its fresh name"
expect_exit 2 "$WCANALYZE" -o bundle2 --export-trace x.json "$SAMPLE"
expect_exit 2 "$WCANALYZE" --export-trace - "$SAMPLE"

echo "t49: ok"
