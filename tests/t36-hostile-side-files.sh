#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t36-hostile-side-files.sh - what a capture's own files can do to the
# reader: a FIFO named capture.conf or phases.tsv is refused at once (it
# used to block for ever), an unreadable file is reported with its errno
# and exit 1 (it used to be "not a trace or archive", exit 2), and
# capture.conf values out of range are refused with a warning that names
# the file, line and key.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/reader/ext4
cd "$TMP"

for f in capture.conf phases.tsv; do
	mkdir -p "fifo-$f/trace"
	cp "$FIX"/loop1.blktrace.* "fifo-$f/trace/"
	mkfifo "fifo-$f/$f"
	for mode in --dump --format=text; do
		rc=0
		timeout 20 "$WCANALYZE" "$mode" "fifo-$f" >out 2>err || rc=$?
		[[ $rc -ne 124 ]] || fail "$f as a FIFO: $mode still blocks"
		[[ $rc -eq 2 ]] || fail "$f as a FIFO: $mode exit $rc, expected 2: $(cat err)"
		grep -qx "wcanalyze: fifo-$f/$f: not a regular file" err ||
			fail "$f as a FIFO: $mode said: $(cat err)"
	done
done

# Unreadable: root reads everything, so take its override away.
cp "$FIX/loop1.blktrace.0" unreadable
chmod 000 unreadable
as_user=()
if [[ $(id -u) -eq 0 ]]; then
	command -v setpriv >/dev/null || skip "setpriv missing (util-linux)"
	as_user=(setpriv "--bounding-set=-dac_override,-dac_read_search")
fi
rc=0
"${as_user[@]}" "$WCANALYZE" --dump unreadable >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "unreadable file: exit $rc, expected 1: $(cat err)"
grep -qx "wcanalyze: unreadable: Permission denied" err ||
	fail "unreadable file: said: $(cat err)"

# Values out of range: warned about, one line each, and left unknown.
mkdir -p bad/trace
cp "$FIX"/loop1.blktrace.* bad/trace/
printf 'name = bad\nevents_dropped = -5\nwrite_cache = maybe\n' >bad/capture.conf
printf 'copy\t9\t3\n' >bad/phases.tsv
"$WCANALYZE" --format json bad >out.json 2>err
grep -qx 'wcanalyze: bad/capture.conf: line 2: events_dropped: not a count from 0 to 9223372036854775807, ignored' err ||
	fail "events_dropped -5: $(cat err)"
grep -qx 'wcanalyze: bad/capture.conf: line 3: write_cache: not on or off, ignored' err ||
	fail "write_cache maybe: $(cat err)"
grep -qx 'wcanalyze: bad/phases.tsv: line 1: end_ns: before start_ns, row ignored' err ||
	fail "phase end before start: $(cat err)"
jq -e '.captures[0] | .events_dropped == null and .write_cache == null' out.json >/dev/null ||
	fail "refused values are not unknown in JSON: $(jq -c '.captures[0] | {events_dropped, write_cache}' out.json)"

# A destination the trace holds no I/O on: said on standard error and in
# the report (it was a bare "no completed I/O in the trace").
mkdir -p elsewhere/trace
cp "$FIX"/loop1.blktrace.* elsewhere/trace/
printf 'destination = loop0\ndevice.loop0.dev = 7:0\n' >elsewhere/capture.conf
"$WCANALYZE" elsewhere >out 2>err
want='capture.conf names device 7,0 as the destination, but the trace holds I/O only on 7,1'
grep -qxF "wcanalyze: elsewhere: $want" err || fail "missing destination: stderr: $(cat err)"
grep -qxF "  $want" out || fail "missing destination: report: $(cat out)"

# Time that goes backwards: warned once, with a count.
python3 - <<'PY'
import struct
Q = 1 | (1 << 17) | (1 << 20)
with open('back.blktrace.0', 'wb') as f:
    for seq, t in enumerate([100, 200, 150, 300, 120, 400], 1):
        f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, 8 * seq,
                            4096, Q, 1, (7 << 20) | 1, 0, 0, 0))
PY
"$WCANALYZE" --dump back >out 2>err
grep -qxF 'wcanalyze: back: time goes backwards 2 times (events kept in the order read)' err ||
	fail "time backwards (dump): $(cat err)"
"$WCANALYZE" back >out 2>err
[[ $(grep -c 'time goes backwards 2 times' err) -eq 1 ]] || fail "time backwards (report): $(cat err)"
# The same trace under a name with control bytes and invalid UTF-8 (ESC ]
# title, BEL, CR, C1 CSI, 0xff): the warning names it escaped, as ls -b.
hostile=$'b\e]0;x\a\r\x9b\xff'
cp back.blktrace.0 "$hostile.blktrace.0"
want='b\033]0;x\007\015\233\377: time goes backwards 2 times (events kept in the order read)'
"$WCANALYZE" --dump "$hostile" >out 2>err
grep -qxF "wcanalyze: $want" err || fail "time backwards, hostile name (dump): $(od -c err | sed -n 1,10p)"
"$WCANALYZE" "$hostile" >out 2>err
grep -qxF "wcanalyze: $want" err || fail "time backwards, hostile name (report): $(od -c err | sed -n 1,10p)"
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' err && fail "time backwards: raw bytes on standard error: $(od -c err | sed -n 1,10p)"
echo "ok: FIFOs refused, unreadable file exit 1, bad values, missing destination and backward time warned (a hostile name escaped)"
